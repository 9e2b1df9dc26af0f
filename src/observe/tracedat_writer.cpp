// SPDX-License-Identifier: GPL-2.0-only
#include "observe/tracedat_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "observe/ftrace_writer.h"

namespace schedlab::observe {

using kernel::task_struct;
using Kind = TraceDatField::Kind;

namespace {

// sched_switch's print fmt in 6.12 and 6.18: prev_state's flags, TASK_REPORT_MAX (0x100) as
// "+" for a preempted task.
constexpr const char *kSwitchFmt =
    "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
    "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & "
    "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
    "0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 "
    "| 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
    "0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { "
    "0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { "
    "0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | "
    "0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) "
    "+ 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio";
constexpr const char *kWakeFmt =
    "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
    "REC->target_cpu";

// ftrace's print event (a trace_marker write) records the address of tracing_mark_write(),
// which it prints by name: the file's symbol table gives that function (and the next one, so
// that the address falls inside it).
constexpr std::uint64_t kMarkWriteAddr = 0xffffffff812a4c30ULL;
constexpr std::uint64_t kMarkWriteIp = kMarkWriteAddr + 0x5e;
constexpr const char *kKallsyms =
    "ffffffff812a4c30 T tracing_mark_write\n"
    "ffffffff812a5080 T tracing_mark_raw_write\n";
constexpr const char *kTraceClock =
    "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n";

TraceDatField num(const char *type, const char *name, unsigned size, bool is_signed) {
  return {type, name, Kind::Int, size, is_signed};
}
TraceDatField comm(const char *name) {
  return {"char", name, Kind::Comm};
}
TraceDatField str(const char *name) {
  return {"__data_loc char[]", name, Kind::Str};
}

// Offsets as C lays out the kernel's record struct: each field at its alignment after the
// 8 bytes of common fields, the whole padded to its largest alignment.
void lay_out(TraceDatEvent &e) {
  unsigned at = 8, align = 4;
  for (auto &f : e.fields) {
    const unsigned a = f.kind == Kind::Int ? f.size : f.kind == Kind::Str ? 4 : 1;
    at = (at + a - 1) / a * a;
    f.offset = at;
    at += f.kind == Kind::Int ? f.size : f.kind == Kind::Str ? 4 : f.kind == Kind::Comm ? 16 : 0;
    align = std::max(align, a);
  }
  e.size = (at + align - 1) / align * align;
}

void put_le(std::uint8_t *at, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; i++) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void append_le(std::string &s, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; i++) s.push_back(static_cast<char>(v >> (8 * i)));
}

// A file of the tracing directory as the format stores it: its size (of `bytes` bytes), then
// its text.
void append_file(std::string &s, const std::string &text, unsigned bytes) {
  append_le(s, text.size(), bytes);
  s += text;
}

}  // namespace

std::vector<TraceDatEvent> tracedat_events(bool v618, bool pelt) {
  const char *pid = "pid_t";
  std::vector<TraceDatEvent> ev;
  ev.push_back({"ftrace",
                "print",
                5,
                {num("unsigned long", "ip", 8, false), {"char", "buf", Kind::Buf}},
                "\"%ps: %s\", (void *)REC->ip, REC->buf"});
  ev.push_back({"sched",
                "sched_switch",
                316,
                {comm("prev_comm"), num(pid, "prev_pid", 4, true), num("int", "prev_prio", 4, true),
                 num("long", "prev_state", 8, true), comm("next_comm"),
                 num(pid, "next_pid", 4, true), num("int", "next_prio", 4, true)},
                kSwitchFmt});
  const std::vector<TraceDatField> wake = {comm("comm"), num(pid, "pid", 4, true),
                                           num("int", "prio", 4, true),
                                           num("int", "target_cpu", 4, true)};
  ev.push_back({"sched", "sched_waking", 319, wake, kWakeFmt});
  ev.push_back({"sched", "sched_wakeup", 318, wake, kWakeFmt});
  ev.push_back({"sched", "sched_wakeup_new", 317, wake, kWakeFmt});
  // 6.18 stores these comms as strings of their own length.
  ev.push_back(
      {"sched",
       "sched_migrate_task",
       315,
       {v618 ? str("comm") : comm("comm"), num(pid, "pid", 4, true), num("int", "prio", 4, true),
        num("int", "orig_cpu", 4, true), num("int", "dest_cpu", 4, true)},
       v618 ? "\"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", __get_str(comm), REC->pid, "
              "REC->prio, REC->orig_cpu, REC->dest_cpu"
            : "\"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, REC->pid, "
              "REC->prio, REC->orig_cpu, REC->dest_cpu"});
  ev.push_back({"sched",
                "sched_process_fork",
                310,
                {v618 ? str("parent_comm") : comm("parent_comm"), num(pid, "parent_pid", 4, true),
                 v618 ? str("child_comm") : comm("child_comm"), num(pid, "child_pid", 4, true)},
                v618 ? "\"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
                       "REC->parent_pid, __get_str(child_comm), REC->child_pid"
                     : "\"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
                       "REC->parent_pid, REC->child_comm, REC->child_pid"});
  // 6.18 adds group_dead.
  TraceDatEvent exit{"sched",
                     "sched_process_exit",
                     313,
                     {comm("comm"), num(pid, "pid", 4, true), num("int", "prio", 4, true)},
                     "\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio"};
  if (v618) {
    exit.fields.push_back(num("bool", "group_dead", 1, false));
    exit.print_fmt =
        "\"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, REC->prio, "
        "REC->group_dead ? \"true\" : \"false\"";
  }
  ev.push_back(exit);
  if (pelt) {
    // LISA's kernel module (system "lisa"), with its variably-sized strings and, for kernels
    // with runnable_avg, the runnable field.
    const char *ul = "unsigned long", *ull = "unsigned long long", *ui = "unsigned int";
    ev.push_back({"lisa",
                  "lisa__sched_pelt_cfs",
                  1500,
                  {num(ull, "update_time", 8, false), num(ul, "runnable", 8, false),
                   num(ul, "util", 8, false), num(ul, "load", 8, false), num("int", "cpu", 4, true),
                   str("path")},
                  "\"cpu=%d path=%s load=%lu util=%lu update_time=%llu runnable=%lu\", REC->cpu, "
                  "__get_str(path), REC->load, REC->util, REC->update_time ,REC->runnable"});
    ev.push_back(
        {"lisa",
         "lisa__sched_pelt_se",
         1501,
         {num(ull, "update_time", 8, false), num(ul, "load", 8, false),
          num(ul, "runnable", 8, false), num(ul, "util", 8, false), num("int", "cpu", 4, true),
          num("int", "pid", 4, true), str("path"), str("comm")},
         "\"cpu=%d path=%s comm=%s pid=%d load=%lu util=%lu update_time=%llu runnable=%lu\", "
         "REC->cpu, __get_str(path), __get_str(comm), REC->pid, REC->load, REC->util, "
         "REC->update_time ,REC->runnable"});
    ev.push_back({"lisa",
                  "lisa__sched_util_est_cfs_unified",
                  1502,
                  {num(ul, "util", 8, false), num(ui, "util_est", 4, false),
                   num("int", "cpu", 4, true), str("path")},
                  "\"cpu=%d path=%s util_est=%u util=%lu\", REC->cpu, __get_str(path), "
                  "REC->util_est, REC->util"});
    ev.push_back(
        {"lisa",
         "lisa__sched_util_est_se_unified",
         1503,
         {num(ul, "util", 8, false), num(ui, "util_est", 4, false), num("int", "cpu", 4, true),
          num("int", "pid", 4, true), str("path"), str("comm")},
         "\"cpu=%d path=%s comm=%s pid=%d util_est=%u util=%lu\", REC->cpu, "
         "__get_str(path), __get_str(comm), REC->pid, REC->util_est, REC->util"});
  }
  for (auto &e : ev) lay_out(e);
  return ev;
}

// The kernel's event format file: the common fields, a blank line, the event's own fields (an
// array as TYPE NAME[LEN], a __data_loc string by its type), a blank line, the print fmt.
std::string tracedat_format_file(const TraceDatEvent &e) {
  std::string s = fmt::format("name: {}\nID: {}\nformat:\n", e.name, e.id);
  s += "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
  for (const auto &f : e.fields) {
    std::string decl;
    unsigned size = f.size;
    switch (f.kind) {
      case Kind::Int:
        decl = fmt::format("{} {}", f.type, f.name);
        break;
      case Kind::Comm:
        decl = fmt::format("{} {}[16]", f.type, f.name);
        size = 16;
        break;
      case Kind::Str:
        decl = fmt::format("{} {}", f.type, f.name);
        size = 4;
        break;
      case Kind::Buf:
        decl = fmt::format("{} {}[]", f.type, f.name);
        size = 0;
        break;
    }
    s += fmt::format("\tfield:{};\toffset:{};\tsize:{};\tsigned:{};\n", decl, f.offset, size,
                     f.is_signed ? 1 : 0);
  }
  s += fmt::format("\nprint fmt: {}\n", e.print_fmt);
  return s;
}

std::string tracedat_header_page(std::size_t page_size) {
  return fmt::format(
      "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
      "\tfield: char data;\toffset:16;\tsize:{};\tsigned:0;\n",
      page_size - RingBufferPages::kPageHeader);
}

std::string tracedat_header_event() {
  return "# compressed entry header\n"
         "\ttype_len    :    5 bits\n"
         "\ttime_delta  :   27 bits\n"
         "\tarray       :   32 bits\n"
         "\n"
         "\tpadding     : type == 29\n"
         "\ttime_extend : type == 30\n"
         "\ttime_stamp : type == 31\n"
         "\tdata max type_len  == 28\n";
}

TraceDatWriter::TraceDatWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                               std::vector<int> cpus, bool pelt)
    : k_(k),
      out_(out),
      pelt_(pelt),
      from_(from),
      to_(to),
      cpus_(traced_cpus(k.nr_cpu_ids(), cpus)),
      events_(tracedat_events(k.config().version == kernel::KernelVersion::V6_18, pelt)),
      pages_(static_cast<std::size_t>(k.nr_cpu_ids())),
      spooled_(static_cast<std::size_t>(k.nr_cpu_ids())) {
  spool_ = std::tmpfile();
  if (!spool_) err_ = errno ? errno : EIO;
  rec_.reserve(256);
}

TraceDatWriter::~TraceDatWriter() {
  if (spool_) std::fclose(spool_);
}

void TraceDatWriter::note(const task_struct *p) {
  if (p->pid != 0) comms_.try_emplace(p->pid, trace_comm(p, false));
}

bool TraceDatWriter::begin(Time t, int cpu, const task_struct *current, bool in_schedule,
                           bool irqs_off) {
  if (finished_ || err_ || t < from_ || t >= to_ || !cpus_[static_cast<std::size_t>(cpu)])
    return false;
  cpu_ = cpu;
  ts_ = t;
  flags_ = trace_entry_flags(k_, current, in_schedule);
  if (!irqs_off) flags_ &= static_cast<std::uint8_t>(~kTraceIrqsOff);
  pid_ = current->pid;
  note(current);
  return true;
}

void TraceDatWriter::emit(Ev ev, std::initializer_list<Arg> args) {
  const TraceDatEvent &e = events_[ev];
  rec_.assign(e.size, 0);
  put_le(rec_.data(), e.id, 2);
  rec_[2] = flags_;  // rec_[3], the preempt count, stays 0 (see trace_flags())
  put_le(rec_.data() + 4, static_cast<std::uint32_t>(pid_), 4);
  const TraceDatField *f = e.fields.data();
  for (const Arg &a : args) {
    switch (f->kind) {
      case Kind::Int:
        put_le(rec_.data() + f->offset, static_cast<std::uint64_t>(a.i), f->size);
        break;
      case Kind::Comm:  // TASK_COMM_LEN: 15 characters and a NUL
        std::memcpy(rec_.data() + f->offset, a.s.data(), std::min<std::size_t>(a.s.size(), 15));
        break;
      case Kind::Str: {
        const std::size_t len = a.s.size() + 1;
        put_le(rec_.data() + f->offset, len << 16 | rec_.size(), 4);
        rec_.insert(rec_.end(), a.s.begin(), a.s.end());
        rec_.push_back(0);
        break;
      }
      case Kind::Buf:
        rec_.insert(rec_.end(), a.s.begin(), a.s.end());
        rec_.push_back(0);
        break;
    }
    f++;
  }
  auto &pages = pages_[static_cast<std::size_t>(cpu_)];
  if (!pages) {
    const std::size_t cpu = static_cast<std::size_t>(cpu_);
    pages = std::make_unique<RingBufferPages>(
        kPageSize, [this, cpu](std::span<const std::uint8_t> page) {
          if (err_) return;
          if (std::fwrite(page.data(), 1, page.size(), spool_) != page.size()) {
            err_ = errno ? errno : EIO;
            return;
          }
          spooled_[cpu].push_back(nr_spooled_++);
        });
  }
  // Records are a few hundred bytes at most (comms and markers are short), far from a page.
  if (!pages->add(static_cast<std::uint64_t>(ts_), rec_) && !err_) err_ = EMSGSIZE;
}

// A trace_marker write: the text and the newline the kernel adds.
void TraceDatWriter::marker(const std::string &text) {
  emit(kPrint, {static_cast<long long>(kMarkWriteIp), std::string_view(text + "\n")});
}

void TraceDatWriter::print(Time t, int cpu, const task_struct *current, std::string_view buf) {
  if (!begin(t, cpu, current, false, /*irqs_off=*/false)) return;
  marker(std::string(buf));
}

void TraceDatWriter::sched_switch(Time t, int cpu, const task_struct *prev, unsigned int prev_state,
                                  const task_struct *next) {
  if (!begin(t, cpu, prev)) return;
  note(next);
  emit(kSwitch, {trace_comm(prev, false), prev->pid, trace_prio(prev),
                 trace_prev_state_value(prev, prev_state), trace_comm(next, false), next->pid,
                 trace_prio(next)});
}

void TraceDatWriter::sched_waking(Time t, int this_cpu, const task_struct *p) {
  if (!begin(t, this_cpu)) return;
  note(p);
  emit(kWaking, {trace_comm(p, false), p->pid, trace_prio(p), p->cpu});
}

void TraceDatWriter::sched_wakeup(Time t, const task_struct *p, int cpu) {
  if (!begin(t, k_.this_cpu())) return;
  emit(kWakeup, {trace_comm(p, false), p->pid, trace_prio(p), cpu});
}

void TraceDatWriter::sched_wakeup_new(Time t, const task_struct *p, int cpu) {
  if (!begin(t, k_.this_cpu())) return;
  note(p);
  emit(kWakeupNew, {trace_comm(p, false), p->pid, trace_prio(p), cpu});
}

void TraceDatWriter::sched_migrate_task(Time t, const task_struct *p, int orig, int dest) {
  if (!begin(t, k_.this_cpu())) return;
  emit(kMigrate, {trace_comm(p, false), p->pid, trace_prio(p), orig, dest});
}

void TraceDatWriter::sched_process_fork(Time t, const task_struct *child) {
  const int cpu = child->cpu;
  const task_struct *parent = k_.cpu_rq(cpu)->curr;
  if (!begin(t, cpu, parent)) return;
  note(child);
  emit(kFork, {trace_comm(parent, false), parent->pid, trace_comm(child, false), child->pid});
}

void TraceDatWriter::sched_process_exit(Time t, const task_struct *p) {
  if (!begin(t, p->cpu, p)) return;
  if (k_.config().version == kernel::KernelVersion::V6_18)
    emit(kExit, {trace_comm(p, false), p->pid, trace_prio(p), trace_group_dead(k_, p)});
  else
    emit(kExit, {trace_comm(p, false), p->pid, trace_prio(p)});
}

void TraceDatWriter::sched_forceidle(Time t, int cpu, bool on) {
  if (!begin(t, cpu)) return;
  marker(fmt::format("C|0|forceidle_cpu{}|{}", cpu, on ? 1 : 0));
}

void TraceDatWriter::sched_core_cookie(Time t, const task_struct *p, unsigned long old,
                                       unsigned long cookie) {
  if (!begin(t, p->cpu)) return;
  marker(fmt::format("sched_core_cookie: comm={} pid={} old={} cookie={}", trace_comm(p, false),
                     p->pid, old, cookie));
}

void TraceDatWriter::sched_core_pick(Time t, int cpu, const task_struct *max, unsigned long cookie,
                                     unsigned int forceidle) {
  if (!begin(t, cpu, k_.cpu_rq(cpu)->curr, /*in_schedule=*/true)) return;
  marker(fmt::format("sched_core_pick: core={} max_comm={} max_pid={} cookie={} forceidle={}",
                     k_.topology().cpu(cpu).core, trace_comm(max, false), max->pid, cookie,
                     forceidle));
}

void TraceDatWriter::pelt_cfs(Time t, int this_cpu, int cpu, const kernel::sched_avg &avg) {
  if (!begin(t, this_cpu)) return;
  emit(kPeltCfs, {static_cast<long long>(avg.last_update_time),
                  static_cast<long long>(avg.runnable_avg), static_cast<long long>(avg.util_avg),
                  static_cast<long long>(avg.load_avg), cpu, std::string_view("/")});
}

void TraceDatWriter::pelt_se(Time t, int this_cpu, const task_struct *p) {
  if (!begin(t, this_cpu)) return;
  const kernel::sched_avg &avg = p->se.avg;
  emit(kPeltSe, {static_cast<long long>(avg.last_update_time), static_cast<long long>(avg.load_avg),
                 static_cast<long long>(avg.runnable_avg), static_cast<long long>(avg.util_avg),
                 p->cpu, p->pid, std::string_view("(null)"), trace_comm(p, false)});
}

void TraceDatWriter::util_est_cfs(Time t, int this_cpu, int cpu, const kernel::sched_avg &avg) {
  if (!begin(t, this_cpu)) return;
  emit(kUtilEstCfs,
       {static_cast<long long>(avg.util_avg), avg.util_est, cpu, std::string_view("/")});
}

void TraceDatWriter::util_est_se(Time t, int this_cpu, const task_struct *p) {
  if (!begin(t, this_cpu)) return;
  emit(kUtilEstSe, {static_cast<long long>(p->se.avg.util_avg),
                    p->se.avg.util_est & ~kernel::UTIL_AVG_UNCHANGED, p->cpu, p->pid,
                    std::string_view("(null)"), trace_comm(p, false)});
}

// Everything before the CPU data: the initial format, the tracing directory's files, the CPU
// count, the options (the trace clock) and the flyrecord table of each CPU's data.
std::string TraceDatWriter::headers() const {
  std::string s("\x17\x08\x44tracing6", 11);
  s.push_back('\0');
  s.push_back(0);  // little endian
  s.push_back(8);  // sizeof(long)
  append_le(s, kPageSize, 4);
  s.append("header_page", 12);
  append_file(s, tracedat_header_page(kPageSize), 8);
  s.append("header_event", 13);
  append_file(s, tracedat_header_event(), 8);
  // ftrace's own events (the first), then the other systems, each with its name.
  std::vector<std::string> systems;
  for (const auto &e : events_)
    if (std::find(systems.begin(), systems.end(), e.system) == systems.end())
      systems.push_back(e.system);
  for (std::size_t i = 0; i < systems.size(); i++) {
    if (i == 1) append_le(s, systems.size() - 1, 4);
    if (i > 0) s.append(systems[i].c_str(), systems[i].size() + 1);
    const auto n = std::count_if(events_.begin(), events_.end(),
                                 [&](const TraceDatEvent &e) { return systems[i] == e.system; });
    append_le(s, static_cast<std::uint64_t>(n), 4);
    for (const auto &e : events_)
      if (systems[i] == e.system) append_file(s, tracedat_format_file(e), 8);
  }
  append_file(s, kKallsyms, 4);
  append_file(s, "", 4);  // printk_formats
  std::string cmdlines;
  for (const auto &[pid, comm] : comms_) cmdlines += fmt::format("{} {}\n", pid, comm);
  append_file(s, cmdlines, 8);
  const auto nr_cpus = static_cast<std::size_t>(k_.nr_cpu_ids());
  append_le(s, nr_cpus, 4);
  s.append("options  ", 10);
  append_le(s, 4, 2);  // TRACECMD_OPTION_TRACECLOCK: the trace_clock file
  append_le(s, std::strlen(kTraceClock) + 1, 4);
  s.append(kTraceClock, std::strlen(kTraceClock) + 1);
  append_le(s, 0, 2);  // the end of the options
  s.append("flyrecord", 10);
  // Each CPU's pages, page-aligned after the headers.
  const std::size_t table = s.size() + nr_cpus * 16 + 8 + std::strlen("[local]");
  std::uint64_t at = (table + kPageSize - 1) / kPageSize * kPageSize;
  for (std::size_t c = 0; c < nr_cpus; c++) {
    const std::uint64_t size = spooled_[c].size() * kPageSize;
    append_le(s, at, 8);
    append_le(s, size, 8);
    at += size;
  }
  append_file(s, "[local]", 8);  // the clock in use
  s.resize((s.size() + kPageSize - 1) / kPageSize * kPageSize, '\0');
  return s;
}

int TraceDatWriter::write_file() {
  for (auto &p : pages_)
    if (p) p->flush();
  if (err_) return err_;
  if (std::fflush(spool_) != 0) return errno ? errno : EIO;
  const std::string h = headers();
  if (std::fwrite(h.data(), 1, h.size(), out_) != h.size()) return errno ? errno : EIO;
  std::vector<std::uint8_t> page(kPageSize);
  for (const auto &list : spooled_)
    for (std::uint32_t i : list) {
      const auto off = static_cast<off_t>(i) * static_cast<off_t>(kPageSize);
      if (pread(fileno(spool_), page.data(), kPageSize, off) != static_cast<ssize_t>(kPageSize))
        return errno ? errno : EIO;
      if (std::fwrite(page.data(), 1, kPageSize, out_) != kPageSize) return errno ? errno : EIO;
    }
  return 0;
}

int TraceDatWriter::finish() {
  if (err_) return err_;
  if (finished_) return 0;
  finished_ = true;
  if (const int rc = write_file()) return rc;
  if (std::fflush(out_) != 0 || std::ferror(out_)) return errno ? errno : EIO;
  return 0;
}

}  // namespace schedlab::observe
