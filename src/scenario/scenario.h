// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A scenario, parsed and validated: plain structs with every unit resolved to integers.
// The file format is documented in docs/scenario-format.md.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/features.h"
#include "kernel/tunables.h"
#include "machine/costs.h"
#include "machine/topology.h"
#include "sim/time.h"
#include "workload/benchmarks.h"
#include "workload/program.h"
#include "workload/rtapp_log.h"

namespace schedlab::scenario {

using Dist = workload::Dist;
using Phase = workload::Phase;

enum class Policy { Normal, Batch, Idle };

struct TaskGroupSpec {
  std::string name;  // comm of each task: name, or name-N when count > 1
  int count = 1;
  int nice = 0;
  Policy policy = Policy::Normal;
  std::vector<int> cpus;    // affinity; empty = every CPU
  bool stress = false;      // never sleeps, never ends
  std::uint64_t loops = 1;  // repeat the phases this many times, then exit
  std::vector<Phase> phases;
  Dist start;  // delay before the task is forked
  // Processes: every `threads_per_process` consecutive tasks of the group are the threads of
  // one process (thread group); 0 = the whole group is one process (a multi-threaded program).
  // At most count; need not divide it (the last process takes the remainder).
  int threads_per_process = 0;
  // Process group: groups that name the same pgrp share one; default: the group's name.
  std::string pgrp;
  // A kernel thread (PF_KTHREAD): the kernel's own activity, not the workload's. Its tasks take
  // no cookie, are left out of the run's statistics (as the twin counts only the workload's
  // tasks), draw from their own random streams (so adding them leaves every workload task's
  // demands unchanged) and are not started by `measure`, where the real kernel has its own.
  bool kthread = false;
  // One task per CPU, bound to it and named name/CPU, as the kernel's per-CPU kthreads are.
  bool per_cpu = false;
  // A benchmark model run instead of phases (hackbench, schbench, fork); kind None = phases.
  workload::Benchmark bench;
  int line = 0;  // where the group starts in the file
};

// prctl(PR_SCHED_CORE, cmd, pid, type, 0) run by task `by` on task `pid` (both task names, i.e.
// comms such as "worker-3"), in the order given, before any task starts.
enum class CookieScope { Thread, ThreadGroup, ProcessGroup };  // PIDTYPE_PID, _TGID, _PGID
struct PrctlOp {
  enum class Cmd { Create, ShareTo, ShareFrom };
  Cmd cmd = Cmd::Create;
  std::string by;   // the calling task ("current")
  std::string pid;  // the target task; empty = `by` itself (pid 0)
  CookieScope scope = CookieScope::Thread;
  int line = 0;
};

// The comm of task i of a group: `name` when count is 1, else `name-0` .. `name-(count-1)`; a
// per-CPU group's are `name/0` .. `name/(CPUs-1)`, as the kernel names per-CPU kthreads. A
// benchmark model may name its tasks itself (workload::Model::comm()).
std::string task_name(const TaskGroupSpec &g, int i);

// Shorthand: fresh cookies for a group's tasks, one per group, per task, or per n consecutive
// tasks (n = 2 gives the seed mail's "5 pairs" of 10 threads).
struct CookieShorthand {
  std::string group;
  int per = 0;  // 0 = one cookie for the whole group; n >= 1: one per n consecutive tasks
  int line = 0;
};

struct ConfigSpec {
  std::string name;
  std::vector<std::pair<kernel::sched_feat_id, bool>> features;
  std::vector<std::pair<kernel::sched_tunable_id, std::int64_t>> tunables;
  std::optional<std::vector<int>> nohz_full;  // replaces [kernel] nohz_full when set
  std::optional<bool> kthreads;               // replaces [kernel] kthreads when set
  std::vector<CookieShorthand> cookies;       // applied first, in order
  std::vector<PrctlOp> prctl;                 // then these, in order
  int line = 0;
};

// "patched cuts the overhead of base (over reference) by X %": a line the experiment prints.
struct CompareSpec {
  std::string base;       // e.g. "Cookie"
  std::string patched;    // e.g. "Cookie + patch"
  std::string reference;  // e.g. "No cookie"; overhead = completion time - reference's
  // All three name configs; the reader checks base != patched and reference != both.
  int line = 0;
};

struct Scenario {
  std::string file;
  // The file's text as read, before any override: what a result embeds so that it can be
  // re-run without the file (load_scenario_text()).
  std::string source;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Time duration_ns = 0;  // 0: run until every finite task has exited
  TopologySpec topology;
  bool host_machine = false;  // [machine] host = true: `topology` was read from this host
  MachineCosts costs;
  // [machine.idle]: the idle states' names (their latencies are in costs) and the preset they
  // came from, empty when listed one by one.
  std::vector<std::string> idle_state_names;
  std::string idle_preset;
  kernel::KernelConfig kernel;  // the [kernel] section: the base of every configuration
  std::vector<TaskGroupSpec> groups;
  // What the groups' synchronisation phases name (Phase::res indexes this).
  std::vector<workload::Resource> resources;
  std::vector<ConfigSpec> configs;  // empty: one implicit configuration named "default"
  std::vector<CompareSpec> compares;
  // rt-app's ftrace log (an rt-app file's global.ftrace): what it writes, and the marks its
  // tasks' Mark phases index. Empty for a TOML scenario.
  workload::RtappLogConfig rtapp_log;
  std::vector<workload::RtappMark> marks;
};

// Bad input: what() is one line, "FILE:LINE:COL: error: FIELD: MESSAGE" (LINE:COL omitted
// when the error has no position, e.g. an unreadable file).
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a file of either format (scenario/load.cpp picks the reader).
Scenario load_scenario(const std::filesystem::path &file);
Scenario parse_scenario(std::string_view text, const std::string &file_name);
// The text of a scenario file of either format, read from elsewhere (a result's embedded copy):
// `file` names it in messages and picks the format as load_scenario() does.
Scenario load_scenario_text(std::string_view text, const std::filesystem::path &file);

// rt-app's JSON (docs/rt-app.md), read into the same Scenario; load_scenario() picks it for a
// .json file or a text that starts with '{' (after blanks and comments).
bool is_rtapp_json(const std::filesystem::path &file, std::string_view text);
Scenario parse_rtapp(std::string_view text, const std::string &file_name);

// "10ms", "1.5us", "3 s", "250ns", "0": durations; returns nullopt on a malformed string.
std::optional<Time> parse_duration(std::string_view s);
// The same; on error, sets *why to a one-line message that quotes `s`.
std::optional<Time> parse_duration(std::string_view s, std::string *why);
// "uniform(0ms, 10ms)", "exp(5ms)", "normal(10ms, 2ms)", or a plain duration.
// On error, returns nullopt and sets *why.
std::optional<Dist> parse_dist(std::string_view s, std::string *why);
// Kernel cpulist: "0-3,8,10-11"; nullopt on error (sets *why).
std::optional<std::vector<int>> parse_cpulist(std::string_view s, std::string *why);

// Applies a configuration on top of the scenario's kernel (scenario/config.h adds the command
// line's switches).
kernel::KernelConfig apply_config(const Scenario &s, const ConfigSpec *config);

}  // namespace schedlab::scenario
