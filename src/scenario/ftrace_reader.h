// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Reads ftrace text traces: the kernel's trace file (nop tracer, 4 or 5 latency-flag columns)
// and `trace-cmd report` output (with or without the flag column, micro- or nanosecond
// timestamps). Keeps the scheduler events replay needs; other events are skipped. A line that
// is not an event line, or a scheduler event whose fields do not parse, is an error naming the
// file and line.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "workload/replay.h"

namespace schedlab::scenario {

struct TraceEvent {
  enum class Type : std::uint8_t { Switch, Waking, WakeupNew, Fork, Exit };
  Type type = Type::Switch;
  bool irq = false;  // raised in hardirq/softirq context (flags 'h', 'H', 's', 'z', 'Z')
  int cpu = 0;
  int line = 0;
  Time ts = 0;           // ns
  int pid = 0;           // the task current on `cpu` (the line's TASK-PID)
  int a_pid = 0;         // switch: prev; waking/wakeup_new/exit: the task; fork: the parent
  int b_pid = 0;         // switch: next; fork: the child
  bool blocked = false;  // switch: prev left the CPU not runnable (prev_state other than R/R+)
  std::string a_comm, b_comm;
};

struct ParsedTrace {
  std::string file;
  int nr_cpus = 0;  // "#P:N" in the header, else the highest CPU seen + 1
  std::vector<TraceEvent> events;
};

// Throws ScenarioError ("FILE:LINE: error: ...") on bad input.
ParsedTrace parse_ftrace(std::string_view text, const std::string &file);
ParsedTrace read_ftrace(const std::string &file);

// A trace this build cannot read (a trace-cmd data file without libtracecmd): what() is one
// line, "FILE: ...: unsupported here: ...".
class TraceUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Whether `file` starts with a trace-cmd data file's magic ("\x17\x08\x44tracing").
bool is_trace_dat(const std::string &file);
// A trace-cmd data file (trace.dat, any version trace-cmd writes), read with libtracecmd: the
// same events read_ftrace() keeps, with nanosecond timestamps and the file's CPU count. Throws
// ScenarioError ("FILE: error: ...") on a file it cannot read, TraceUnsupported when schedlab
// was built without libtracecmd.
ParsedTrace read_trace_dat(const std::string &file);
// Either reader, by the file's first bytes.
ParsedTrace read_trace(const std::string &file);

// Each task's run / sleep / wake sequence (workload/replay.h). Tasks whose every event is in
// the idle task (pid 0) are not replayed.
std::shared_ptr<const workload::ReplaySpec> derive_replay(const ParsedTrace &t);

// A scenario that replays `spec` on `base`'s machine, costs, kernel and configurations (their
// cookie settings dropped: they name the base's task groups). Without a base: a machine of
// spec.nr_cpus CPUs without SMT, one configuration. `cookies`: lists of comms, each list
// sharing one fresh cookie in every configuration.
Scenario replay_scenario(std::shared_ptr<const workload::ReplaySpec> spec, const Scenario *base,
                         const std::vector<std::vector<std::string>> &cookies);

}  // namespace schedlab::scenario
