// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Benchmark models: hackbench (perf bench sched messaging), schbench and a fork loop. A group
// runs one model instead of phases. A model is a state machine per member task: the executor
// asks it for the member's next action each time the previous one is done, on the CPU the
// member runs on, and the model acts on other tasks (wakeups, forks) only through Env.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/time.h"
#include "workload/program.h"

namespace schedlab::workload {

struct HackbenchSpec {
  int groups = 10;
  int fds = 20;
  std::uint64_t loops = 100;
  bool threads = false;      // mode = "thread": one process; "process": one process per task
  bool socket = true;        // transport = "socket" (AF_UNIX SOCK_STREAM) or "pipe"
  int datasize = 100;        // bytes per message, 1..4096 (PIPE_BUF: every write is atomic)
  std::uint64_t buffer = 0;  // bytes; 0 = the transport's default (64 KiB pipe, 208 KiB socket)
  Time write_cost = 0;       // CPU work of one write(2) before its bytes; 0 = transport default
  Time read_cost = 0;        // likewise for read(2)
  int tasks() const { return 2 * groups * fds; }
};

struct SchbenchSpec {
  int message_threads = 1;
  int workers = 0;  // per message thread; 0 = the machine's number of CPUs
  Time runtime = 30 * NSEC_PER_SEC;
  Time warmup = 0;  // requests done before release + warmup are not counted
  Dist sleep{Dist::Kind::Const, 100 * NSEC_PER_USEC, 0};
  Dist work{Dist::Kind::Const, 17 * NSEC_PER_MSEC, 0};
  std::uint64_t rps = 0;  // 0: saturate; > 0: requests per second per message thread
  int tasks(int nr_cpus) const { return message_threads * (1 + (workers > 0 ? workers : nr_cpus)); }
};

struct ForkSpec {
  std::uint64_t children = 100;  // per forking task
  Dist child_run{Dist::Kind::Const, 200 * NSEC_PER_USEC, 0};
  Dist interval{Dist::Kind::Const, NSEC_PER_MSEC, 0};
  Time fork_cost = 50 * NSEC_PER_USEC;  // CPU time of one fork() in the parent
  bool wait = true;                     // the parent waits for its children before it exits
};

// A virtual machine: one process of `vcpus` vCPU threads, then `vmm_threads` VMM threads.
struct VmSpec {
  enum class Guest { Stress, Hwlat, Idle };
  int vcpus = 8;
  Guest guest = Guest::Stress;
  // hwlat: sample on one vCPU for `width` of every `window` (round robin over the vCPUs);
  // a stretch off the host CPU longer than `threshold` is a sample.
  Time width = 100 * NSEC_PER_MSEC;
  Time window = 300 * NSEC_PER_MSEC;
  Time threshold = 100 * NSEC_PER_USEC;
  int vmm_threads = 2;
  Time vmm_burst = 50 * NSEC_PER_USEC;   // CPU work of one VMM burst
  Time vmm_period = 10 * NSEC_PER_MSEC;  // mean sleep between bursts, jittered +-50 %
  int tasks() const { return vcpus + vmm_threads; }
};

struct Benchmark {
  enum class Kind { None, Hackbench, Schbench, Fork, Vm, Replay };
  Kind kind = Kind::None;
  HackbenchSpec hackbench;
  SchbenchSpec schbench;
  ForkSpec fork;
  VmSpec vm;
  std::shared_ptr<const struct ReplaySpec> replay;  // workload/replay.h
};

// The executor's side: wakeups and forks done by the member running on `cpu`.
class Env {
 public:
  virtual ~Env() = default;
  virtual Time now() const = 0;
  // try_to_wake_up(member's task, wake_flags, cpu).
  virtual void wake(int member, int wake_flags, int cpu) = 0;
  // Forks a child of `member` that runs `child_run` once and exits (wake_up_new_task on cpu).
  virtual void fork_child(int member, Time child_run, int cpu) = 0;
};

// Results of the benchmark models of one run.
struct BenchReport {
  bool has_hackbench = false;
  Time hackbench_ns = 0;  // release to the last receiver done (max over hackbench groups)
  std::uint64_t hackbench_messages = 0, hackbench_expected_messages = 0;
  // Some receiver had not read all its messages when the run ended (scenario duration, or
  // tasks that never woke): hackbench_ns is then not a result.
  bool hackbench_unfinished = false;
  bool has_schbench = false;
  std::vector<Time> schbench_wakeup_ns;   // samples, unsorted
  std::vector<Time> schbench_request_ns;  // samples, unsorted
  std::uint64_t schbench_requests = 0;    // completed in the measured window
  Time schbench_window_ns = 0;            // runtime - warmup
  bool has_fork = false;
  std::uint64_t forks = 0, children_exited = 0;
  // One per vm group, in scenario order.
  struct Vm {
    std::string name;  // the group's (set by the executor)
    VmSpec::Guest guest = VmSpec::Guest::Stress;
    Time width = 0, window = 0, threshold = 0;
    std::uint64_t windows = 0;  // hwlat windows sampled (one cut short by the run's end counts)
    Time sampling_ns = 0;       // time the tracer sampled: from its first run in a window to the
                                // window's width end (or the run's end)
    // As kernel/trace/trace_hwlat.c's get_sample() records them: at most one sample per
    // window, when the window's largest gap is above threshold (gaps in whole microseconds).
    std::uint64_t samples = 0;
    Time sample_latency_ns = 0;             // the samples' latencies (their largest gaps), summed
    std::uint64_t gaps_over_threshold = 0;  // every gap above threshold (the samples' counts)
    Time max_gap_ns = 0;
    Time sum_gap_ns = 0;     // every gap, whatever its length: the lost sampling time
    Time breach_gap_ns = 0;  // the gaps above threshold, summed
    Time forceidle_ns = 0;   // core_forceidle_sum of the VM's tasks (set by the executor)
    // sample_latency_ns / (windows * width) * 100: the samples scaled up by window/width, as a
    // share of the run's time; NaN without windows.
    double noise_pct() const;
    // sum_gap_ns / sampling_ns * 100; NaN without sampling time.
    double lost_time_pct() const;
  };
  std::vector<Vm> vms;
};

class Model {
 public:
  virtual ~Model() = default;
  // The member's next action; Action::Kind::Block waits for an Env::wake from another member.
  virtual Action next(int member, int cpu, sim::Stream &rng, Env &env) = 0;
  // A child forked by `member` exited on cpu.
  virtual void child_exited(int /*member*/, int /*cpu*/, Env & /*env*/) {}
  virtual void report(BenchReport &r) const = 0;
  virtual int members() const = 0;
  // Members that are single-threaded processes of their own (threads_per_process = 1).
  virtual bool one_process_per_task() const { return false; }
  // Members that run until the run's duration ends (they do not count as finite tasks).
  virtual bool infinite() const { return false; }
  // A member that is never started (a halted vCPU): it costs the host nothing.
  virtual bool dormant(int /*member*/) const { return false; }
  // The executor's view of the member on the host CPU: switched out at `t`; switched in with
  // its code running again from `t` (after the switch costs).
  virtual void switched_out(int /*member*/, Time /*t*/) {}
  virtual void switched_in(int /*member*/, Time /*t*/) {}
  // The run ends at `end` (before report()).
  virtual void finish(Time /*end*/) {}
  // The member's comm; empty: the group's naming (name-N).
  virtual std::string comm(int /*member*/) const { return {}; }
};

// The model of a group of `members` tasks (hackbench and schbench fix their own count).
std::unique_ptr<Model> make_model(const Benchmark &b, int nr_cpus, int members);

// hackbench's buffer: a pipe (16 slots of 4 KiB pages, small writes merge into the last page)
// or a unix stream socket (bytes charged = datasize + skb overhead, against sk_sndbuf).
// Exposed for tests.
class Channel {
 public:
  Channel(bool socket, std::uint64_t buffer, int datasize);
  bool can_write() const;
  void reserve();  // space for one message, before the write's CPU cost
  void commit();   // the message becomes readable
  bool can_read() const { return readable_ > 0; }
  void take();  // one readable message, before the read's CPU cost
  // Frees the taken message's space; returns how many waiting writers to wake (0, 1 or all).
  enum class WakeWriters { None, One, All };
  WakeWriters release();
  std::uint64_t capacity_messages() const;

  int reader_waiting = -1;  // member blocked in read(), or -1
  std::deque<int> writers;  // members blocked in write(), FIFO

 private:
  bool socket_;
  int datasize_;
  std::uint64_t readable_ = 0;
  // pipe
  std::uint64_t max_slots_ = 16, per_page_ = 40;
  struct Page {
    std::uint64_t written = 0, read = 0;
  };
  std::deque<Page> pages_;
  // socket
  std::uint64_t sndbuf_ = 212992, charge_ = 0, wmem_ = 0;
};

inline constexpr std::uint64_t kPipeBufferBytes = 65536;     // 16 pages (pipe-max-size default)
inline constexpr std::uint64_t kSocketBufferBytes = 212992;  // net.core.wmem_default
inline constexpr std::uint64_t kSkbOverheadBytes = 576;      // approx. SKB_TRUESIZE(0)

}  // namespace schedlab::workload
