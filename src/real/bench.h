// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The benchmark models of a scenario run for real by `schedlab measure` (on the host or in the
// twin's guest): hackbench (perf bench sched messaging) over real pipes or AF_UNIX stream
// sockets, its members threads of one process or (process mode) processes of their own;
// schbench's message and worker threads with real futexes, saturating or at a request rate;
// fork() of children that work and exit. Each member runs on its own thread, which measure has
// set up (name, affinity, nice, cookie), or in a process that thread forks; the VMs run as
// threads too (vCPUs, an hwlat tracer, VMM threads). The results fill the simulator's
// BenchReport, so they are summarised the same way.
#include <atomic>
#include <memory>
#include <string>

#include "sim/random.h"
#include "workload/benchmarks.h"

namespace schedlab::real {

class RealBench {
 public:
  virtual ~RealBench() = default;
  // Runs member `m` on the calling thread until it is done or *stop is set. `rng` is the
  // member's phase stream (the simulator's), for the model's random draws. A member that ran
  // as a process of its own (forked by the calling thread, so with its affinity, policy and
  // cookie) returns that process's pid: it has exited and is not reaped yet, so its
  // accounting can be read as the task's; reap() then reaps it. Otherwise 0.
  virtual int member(int m, sim::Stream &rng, const std::atomic<bool> &stop) = 0;
  virtual void reap(int /*m*/) {}
  // Unblocks every member (closes pipes, wakes futexes) once *stop is set.
  virtual void abort() = 0;
  virtual void report(workload::BenchReport &r) const = 0;
  // What went wrong on the way (a fork that failed), for the run's warnings; empty if nothing.
  virtual std::string error() const { return {}; }
  // Members that run until the run ends (VMs), rather than to an end of their own.
  virtual bool infinite() const { return false; }
};

// The real benchmark of group `name`; nullptr for a kind measure does not run (check_supported()
// names it first). `ns_per_loop` is measure's calibration, for the model's CPU work.
std::unique_ptr<RealBench> make_real_bench(const workload::Benchmark &b, const std::string &name,
                                           int members, double ns_per_loop);

// What measure cannot run ("model trace replay, which measure does not run yet"), or empty.
std::string real_bench_unsupported(const workload::Benchmark &b);

}  // namespace schedlab::real
