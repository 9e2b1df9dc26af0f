// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// schedlab measure: a scenario's workload run for real on this host, one thread per task (or a
// process that thread forks, for models of processes), with the task's nice, policy, affinity
// and core-scheduling cookies, and the kernel's own accounting (/proc/.../schedstat and sched)
// as the result.
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "real/schedstat.h"
#include "scenario/scenario.h"
#include "workload/benchmarks.h"

namespace schedlab::real {

// Something the host or this kernel cannot do for the scenario (exit code 3, "unsupported
// here"), as opposed to bad input.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TaskResult {
  int tid = 0;
  std::string comm;
  bool finite = true;
  // /proc/self/task/TID/schedstat: time on a CPU, time runnable but waiting, timeslices.
  bool has_schedstat = false;
  u64 runtime_ns = 0, wait_ns = 0, timeslices = 0;
  u64 sleep_ns = 0;  // lifetime - runtime - wait: blocked (sleeping) time
  // /proc/self/task/TID/sched (0 when the file or the field is missing).
  bool has_sched = false;
  u64 nr_switches = 0, nr_voluntary_switches = 0, nr_involuntary_switches = 0;
  u64 nr_migrations = 0;
  std::optional<u64> core_forceidle_sum_ns;  // present only with CONFIG_SCHED_CORE
  // The thread's core-scheduling cookie (PR_SCHED_CORE_GET) at its end, where the kernel has
  // core scheduling: 0 without one. The value is an opaque id, equal for threads that share.
  std::optional<u64> core_cookie;
  u64 start_ns = 0;  // from the common start of the tasks
  u64 exit_ns = 0;
  bool exited = false;  // finished its phases (not stopped by the run's end or Ctrl-C)
};

struct MeasureResult {
  std::string scenario, config;
  u64 seed = 0;
  u64 end_ns = 0;         // when the run ended (last task done, duration, or Ctrl-C)
  u64 completion_ns = 0;  // last exit of a finite task; 0 if none exited
  bool interrupted = false;
  std::vector<TaskResult> tasks;
  workload::BenchReport bench;        // the groups' benchmarks (hackbench, schbench), when run
  std::vector<std::string> warnings;  // e.g. a nice value the process may not set
  // CPU time the whole host spent busy (user, nice, system, irq, softirq, steal of
  // /proc/stat) from the start to the end of the run, when readable: minus the tasks' runtime,
  // it is what other processes (and the hypervisor) took from the run.
  std::optional<u64> host_busy_ns;
  std::optional<double> loadavg_1min;  // /proc/loadavg before the run
  // What /proc/schedstat counted from the start to the end of the run (every CPU, so other
  // processes' scheduling too), or why it could not be read (no CONFIG_SCHEDSTATS, a
  // container that hides it).
  std::optional<Schedstat> schedstat;
  std::string schedstat_unavailable;
};

// What measure knows about the host.
struct HostInfo {
  int nr_cpus = 0;
  TopologySpec machine;  // valid when described
  bool described = false;
  std::string kernel_release;
  double ns_per_loop = 0;      // calibration
  bool core_sched = false;     // prctl(PR_SCHED_CORE) works
  std::string core_sched_why;  // why not, one phrase
};

// The host's CPUs, kernel and core-scheduling support (not the calibration).
HostInfo probe_host(const std::string &sysfs_root);

// Throws Unsupported (one line) when measure cannot run `config` of `s` here: a benchmark
// model it does not run, cookies without core scheduling, a CPU the host lacks. `config` may
// be null (no [[config]]).
void check_supported(const scenario::Scenario &s, const scenario::ConfigSpec *config,
                     const HostInfo &host);

// Runs the workload once. *interrupt is polled (a SIGINT handler sets it): every thread stops
// within a few ms and the partial result comes back with interrupted = true. Throws
// std::runtime_error when a thread cannot be set up.
MeasureResult run_measure(const scenario::Scenario &s, const scenario::ConfigSpec *config,
                          const HostInfo &host, const std::atomic<bool> &interrupt);

}  // namespace schedlab::real
