// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Writes the model's tracepoints as a trace-cmd data file (trace.dat, version 6 of the format
// trace-cmd.dat.v6(5) describes), as `trace-cmd record` would save them from Linux 6.12 or 6.18
// (the scenario's kernel version) on x86-64: the tracefs files the kernel would give
// (events/header_page, events/header_event, each event's format file with its fields' offsets
// and sizes, saved_cmdlines, a symbol table for the marker's function), then each CPU's events
// as ring-buffer pages (observe/ring_buffer_pages.h) in the binary layout those format files
// describe. The events, their CPUs, tasks, flags and fields are those FtraceWriter prints as
// text for the same run; timestamps keep their nanoseconds. Event pages are spooled to an
// unnamed temporary file, so memory does not grow with the trace; finish() writes the file
// front to back (a pipe will do).
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"
#include "observe/ring_buffer_pages.h"

namespace schedlab::observe {

// An event's record layout, from which both its format file and its records are made.
struct TraceDatField {
  enum class Kind : std::uint8_t {
    Int,   // an integer of `size` bytes
    Comm,  // char name[16], NUL-padded
    Str,   // __data_loc char[]: a 32-bit (length << 16 | offset) to a string after the fields
    Buf,   // char name[]: the rest of the record (ftrace's print event)
  };
  const char *type;  // as the format file declares it: "pid_t", "unsigned long", ...
  const char *name;
  Kind kind;
  unsigned size = 0;  // Int only
  bool is_signed = false;
  unsigned offset = 0;  // computed
};

struct TraceDatEvent {
  const char *system;
  const char *name;
  std::uint16_t id;
  std::vector<TraceDatField> fields;  // after the four common_* fields
  const char *print_fmt;
  unsigned size = 0;  // of the fixed part, computed: C's struct layout, as the kernel's
};

// The events of the simulated kernel (`v618`: 6.18's layouts, else 6.12's), their field
// offsets filled in; `pelt` adds the load-tracking events.
std::vector<TraceDatEvent> tracedat_events(bool v618, bool pelt);
// The text of events/SYSTEM/NAME/format for `e`.
std::string tracedat_format_file(const TraceDatEvent &e);
// events/header_page and events/header_event for pages of `page_size` bytes.
std::string tracedat_header_page(std::size_t page_size);
std::string tracedat_header_event();

class TraceDatWriter : public kernel::TraceSink {
 public:
  static constexpr std::size_t kPageSize = 4096;  // x86-64's page, a ring-buffer page
  // Events in [from, to) on `cpus` (empty = all) only, as FtraceWriter. The caller keeps `out`
  // open until finish().
  TraceDatWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                 std::vector<int> cpus = {}, bool pelt = false);
  ~TraceDatWriter() override;
  // 0 once the writer can write, else the errno of what failed (no temporary file).
  int error() const { return err_; }
  // Writes the file and flushes: 0, or the errno of a failed write. Once: later events are
  // not written.
  int finish();

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_waking(Time, int, const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;
  void sched_process_fork(Time, const kernel::task_struct *) override;
  void sched_process_exit(Time, const kernel::task_struct *) override;
  void sched_forceidle(Time, int, bool) override;
  void sched_core_cookie(Time, const kernel::task_struct *, unsigned long, unsigned long) override;
  void sched_core_pick(Time, int, const kernel::task_struct *, unsigned long,
                       unsigned int) override;
  // Lines user space writes to trace_marker (rt-app's markers): ftrace's print event.
  bool traces_print() const override { return true; }
  void print(Time, int, const kernel::task_struct *, std::string_view) override;
  bool traces_pelt() const override { return pelt_; }
  void pelt_cfs(Time, int, int, const kernel::sched_avg &) override;
  void pelt_se(Time, int, const kernel::task_struct *) override;
  void util_est_cfs(Time, int, int, const kernel::sched_avg &) override;
  void util_est_se(Time, int, const kernel::task_struct *) override;

 private:
  // The events by their place in tracedat_events().
  enum Ev : std::uint8_t {
    kPrint,
    kSwitch,
    kWaking,
    kWakeup,
    kWakeupNew,
    kMigrate,
    kFork,
    kExit,
    kPeltCfs,
    kPeltSe,
    kUtilEstCfs,
    kUtilEstSe
  };
  // A field's value: an integer, or a string for Comm, Str and Buf fields.
  struct Arg {
    Arg(long long v) : i(v) {}           // NOLINT: implicit, so that values read as a field list
    Arg(std::string_view v) : s(v) {}    // NOLINT
    Arg(const std::string &v) : s(v) {}  // NOLINT
    long long i = 0;
    std::string_view s;
  };
  // Starts an event on `cpu` for `current`, as FtraceWriter::prefix(); false (nothing
  // written) outside the window or the traced CPUs.
  // `irqs_off`: false for a system call's event (interrupts on), as FtraceWriter::prefix().
  bool begin(Time t, int cpu, const kernel::task_struct *current, bool in_schedule = false,
             bool irqs_off = true);
  bool begin(Time t, int cpu) { return begin(t, cpu, k_.cpu_rq(cpu)->curr); }
  // Encodes the event begun with its field values, in the order of its fields, and adds it to
  // the CPU's pages.
  void emit(Ev ev, std::initializer_list<Arg> args);
  void marker(const std::string &text);
  void note(const kernel::task_struct *p);  // for saved_cmdlines
  std::string headers() const;              // the file up to the CPU data's offsets
  int write_file();

  const kernel::Kernel &k_;
  std::FILE *out_;
  std::FILE *spool_ = nullptr;
  int err_ = 0;
  bool finished_ = false;
  bool pelt_;
  Time from_, to_;
  std::vector<char> cpus_;  // by CPU: traced or not
  std::vector<TraceDatEvent> events_;
  std::vector<std::unique_ptr<RingBufferPages>> pages_;  // by CPU, made at its first event
  std::vector<std::vector<std::uint32_t>> spooled_;      // by CPU: its pages' places in the spool
  std::uint32_t nr_spooled_ = 0;
  std::map<int, std::string> comms_;  // pid -> comm
  // The event being built.
  int cpu_ = 0;
  Time ts_ = 0;
  std::uint8_t flags_ = 0;
  int pid_ = 0;
  std::vector<std::uint8_t> rec_;
};

}  // namespace schedlab::observe
