// SPDX-License-Identifier: GPL-2.0-only
#include "workload/benchmarks.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "workload/replay.h"

namespace schedlab::workload {

namespace {

constexpr int kWfSync = 0x10;  // WF_SYNC, as kernel/sched.h defines it
constexpr std::uint64_t kPageSize = 4096;
// CPU work of the syscalls, in ns (documented in docs/scenario-format.md).
constexpr Time kPipeWriteNs = 1500, kPipeReadNs = 1200;
constexpr Time kSocketWriteNs = 2500, kSocketReadNs = 2000;
constexpr Time kFutexWakeNs = 1000;                 // one FUTEX_WAKE by a schbench thread
constexpr std::uint64_t kSchbenchMaxPending = 128;  // run_rps_thread()'s `batch`

Action run(Time ns) {
  return Action{Action::Kind::Run, ns};
}
Action runtime(Time ns) {
  return Action{Action::Kind::Runtime, ns};
}
Action sleep(Time ns) {
  return Action{Action::Kind::Sleep, ns};
}
Action block() {
  return Action{Action::Kind::Block, 0};
}
Action exit_action() {
  return Action{Action::Kind::Exit, 0};
}

// hackbench's and schbench's start: every task is forked, then all are released together.
// MODEL: the last task to arrive releases the others from its CPU (the real benchmarks' parent
// writes the start byte; here no separate parent task exists).
struct Barrier {
  int arrived = 0;
  bool released = false;
  Time release_ns = 0;
  std::vector<int> waiting;
  // true: go on; false: block.
  bool arrive(int member, int members, int cpu, Env &env) {
    if (++arrived < members) {
      waiting.push_back(member);
      return false;
    }
    released = true;
    release_ns = env.now();
    for (int m : waiting) env.wake(m, 0, cpu);
    waiting.clear();
    return true;
  }
  // A member's pass through the start barrier: true once it may start (the first time it
  // arrives, or after the release woke it); false: it blocks until the release.
  bool pass(int member, bool &member_arrived, int members, int cpu, Env &env) {
    if (released) return true;
    if (member_arrived) return false;
    member_arrived = true;
    return arrive(member, members, cpu, env);
  }
};

// ---------------------------------------------------------------------------------------------

class Hackbench : public Model {
 public:
  explicit Hackbench(const HackbenchSpec &s) : s_(s) {
    const std::uint64_t buffer =
        s.buffer ? s.buffer : (s.socket ? kSocketBufferBytes : kPipeBufferBytes);
    for (int i = 0; i < s.groups * s.fds; i++) ch_.emplace_back(s.socket, buffer, s.datasize);
    st_.resize(static_cast<std::size_t>(s.tasks()));
    const Time per_byte = static_cast<Time>(s.datasize) / 4;  // 0.25 ns per byte copied
    write_ns_ =
        (s.write_cost ? s.write_cost : (s.socket ? kSocketWriteNs : kPipeWriteNs)) + per_byte;
    read_ns_ = (s.read_cost ? s.read_cost : (s.socket ? kSocketReadNs : kPipeReadNs)) + per_byte;
  }
  int members() const override { return s_.tasks(); }
  bool one_process_per_task() const override { return !s_.threads; }

  Action next(int m, int cpu, sim::Stream &, Env &env) override {
    St &t = st_[static_cast<std::size_t>(m)];
    if (!t.started) {
      if (!barrier_.pass(m, t.arrived, members(), cpu, env)) return block();
      t.started = true;
    }
    const int per_group = 2 * s_.fds;
    const int group = m / per_group, idx = m % per_group;
    return idx < s_.fds ? receiver(m, t, group, idx, cpu, env) : sender(m, t, group, cpu, env);
  }

  void report(BenchReport &r) const override {
    r.has_hackbench = true;
    if (done_receivers_ == s_.groups * s_.fds)
      r.hackbench_ns = std::max(r.hackbench_ns, end_ns_ - barrier_.release_ns);
    else
      r.hackbench_unfinished = true;
    r.hackbench_messages += messages_;
    r.hackbench_expected_messages +=
        static_cast<std::uint64_t>(s_.groups) * static_cast<std::uint64_t>(s_.fds) * per_task();
  }

 private:
  struct St {
    bool arrived = false, started = false, pending = false;
    std::uint64_t n = 0;  // messages written (sender) or read (receiver)
  };
  // Messages each sender writes, and each receiver reads: loops rounds of one per receiver.
  std::uint64_t per_task() const { return s_.loops * static_cast<std::uint64_t>(s_.fds); }
  Channel &channel(int group, int receiver) {
    return ch_[static_cast<std::size_t>(group * s_.fds + receiver)];
  }

  Action sender(int m, St &t, int group, int cpu, Env &env) {
    if (t.pending) {
      // pipe_write() / unix_stream_sendmsg() done: the data is readable, the reader woken.
      Channel &c = channel(group, static_cast<int>(t.n % static_cast<std::uint64_t>(s_.fds)));
      t.pending = false;
      t.n++;
      c.commit();
      if (c.reader_waiting >= 0) {
        const int r = c.reader_waiting;
        c.reader_waiting = -1;
        env.wake(r, kWfSync, cpu);
      }
      // pipe_write()'s wake_next_writer: room left, so the next waiting writer may go on.
      if (!s_.socket && c.can_write() && !c.writers.empty()) {
        const int w = c.writers.front();
        c.writers.pop_front();
        env.wake(w, kWfSync, cpu);
      }
    }
    if (t.n == per_task()) return exit_action();
    // for (i < loops) for (j < num_fds) write(out_fds[j], ...)
    Channel &c = channel(group, static_cast<int>(t.n % static_cast<std::uint64_t>(s_.fds)));
    if (!c.can_write()) {
      c.writers.push_back(m);
      return block();
    }
    c.reserve();
    t.pending = true;
    return run(write_ns_);
  }

  Action receiver(int m, St &t, int group, int idx, int cpu, Env &env) {
    Channel &c = channel(group, idx);
    if (t.pending) {
      t.pending = false;
      t.n++;
      messages_++;
      switch (c.release()) {
        case Channel::WakeWriters::None:
          break;
        case Channel::WakeWriters::One:
          if (!c.writers.empty()) {
            const int w = c.writers.front();
            c.writers.pop_front();
            env.wake(w, kWfSync, cpu);
          }
          break;
        case Channel::WakeWriters::All: {
          const std::deque<int> ws = std::move(c.writers);
          c.writers.clear();
          for (int w : ws) env.wake(w, kWfSync, cpu);
          break;
        }
      }
    }
    if (t.n == per_task()) {
      if (++done_receivers_ == s_.groups * s_.fds) end_ns_ = env.now();
      return exit_action();
    }
    if (!c.can_read()) {
      c.reader_waiting = m;
      return block();
    }
    c.take();
    t.pending = true;
    return run(read_ns_);
  }

  HackbenchSpec s_;
  std::vector<Channel> ch_;
  std::vector<St> st_;
  Barrier barrier_;
  Time write_ns_ = 0, read_ns_ = 0;
  int done_receivers_ = 0;
  Time end_ns_ = 0;
  std::uint64_t messages_ = 0;
};

// ---------------------------------------------------------------------------------------------

class Schbench : public Model {
 public:
  Schbench(const SchbenchSpec &s, int nr_cpus)
      : s_(s), workers_(s.workers > 0 ? s.workers : nr_cpus) {
    st_.resize(static_cast<std::size_t>(members()));
  }
  int members() const override { return s_.message_threads * (1 + workers_); }

  Action next(int m, int cpu, sim::Stream &rng, Env &env) override {
    St &t = st_[static_cast<std::size_t>(m)];
    if (!t.started) {
      if (!barrier_.pass(m, t.arrived, members(), cpu, env)) return block();
      t.started = true;
      t.blocked = false;
      stop_ns_ = barrier_.release_ns + s_.runtime;
    }
    t.blocked = false;
    const int per = 1 + workers_;
    if (m % per == 0) return s_.rps ? rps_thread(m, t, cpu, env) : msg_thread(m, t, cpu, env);
    return worker(m, t, m - m % per, cpu, rng, env);
  }

  void report(BenchReport &r) const override {
    r.has_schbench = true;
    r.schbench_wakeup_ns.insert(r.schbench_wakeup_ns.end(), wakeup_.begin(), wakeup_.end());
    r.schbench_request_ns.insert(r.schbench_request_ns.end(), request_.begin(), request_.end());
    r.schbench_requests += requests_;
    r.schbench_window_ns = s_.runtime > s_.warmup ? s_.runtime - s_.warmup : 0;
  }

 private:
  enum class W { Top, Waiting, Sleeping, Working };
  struct St {
    bool arrived = false, started = false;
    bool blocked = false;  // in fwait()/Block
    bool posted = false;   // futex: FUTEX_RUNNING (a post arrived) rather than FUTEX_BLOCKED
    W w = W::Top;
    Time wake_time = 0, work_start = 0;
    std::uint64_t queued = 0;  // rps mode: requests posted to this worker, not yet taken
    std::uint64_t batch = 0;   // rps mode: requests being worked on
    // message thread
    std::vector<int> list, waking;
    bool done = false;
    std::uint64_t posted_this_second = 0, cur = 0;
    Time second_start = 0;
  };

  bool stopping(Env &env) const { return env.now() >= stop_ns_; }
  bool counted(Time now) const { return now >= barrier_.release_ns + s_.warmup && now <= stop_ns_; }
  // fpost(): a futex post; FUTEX_WAKE only reaches a task blocked in fwait().
  void fpost(int target, int cpu, Env &env) {
    St &t = st_[static_cast<std::size_t>(target)];
    t.posted = true;
    if (t.blocked) {
      t.blocked = false;
      env.wake(target, 0, cpu);
    }
  }
  Action fwait(St &t) {
    t.blocked = true;
    return block();
  }

  // run_msg_thread(): wake every queued worker, then wait for a post.
  Action msg_thread(int m, St &t, int cpu, Env &env) {
    for (;;) {
      if (!t.waking.empty()) {  // xlist_wake_all(), one FUTEX_WAKE at a time
        const int w = t.waking.back();
        t.waking.pop_back();
        fpost(w, cpu, env);
        return runtime(kFutexWakeNs);
      }
      if (t.done) return exit_action();
      if (stopping(env)) {
        t.done = true;  // xlist_wake_all() once more, then break
      } else if (!t.posted && t.list.empty()) {
        return fwait(t);
      }
      t.posted = false;  // td->futex = FUTEX_BLOCKED
      t.waking.assign(t.list.rbegin(), t.list.rend());
      t.list.clear();
      (void)m;
    }
  }

  // run_rps_thread(): each second, post rps requests round robin, then sleep out the second.
  Action rps_thread(int m, St &t, int cpu, Env &env) {
    const int first = m + 1;
    for (;;) {
      if (stopping(env)) {
        if (t.done) return exit_action();
        t.done = true;
        for (int i = 0; i < workers_; i++) fpost(first + i, cpu, env);
        return runtime(kFutexWakeNs * static_cast<Time>(workers_));
      }
      if (t.posted_this_second == 0 && t.second_start == 0) t.second_start = env.now();
      if (t.posted_this_second < s_.rps) {
        t.posted_this_second++;
        const int w = first + static_cast<int>(t.cur++ % static_cast<std::uint64_t>(workers_));
        St &ws = st_[static_cast<std::size_t>(w)];
        if (ws.queued > kSchbenchMaxPending) return sleep(100 * NSEC_PER_USEC);
        ws.queued++;
        ws.wake_time = env.now();
        fpost(w, cpu, env);
        return runtime(kFutexWakeNs);
      }
      const Time end = std::min(t.second_start + NSEC_PER_SEC, stop_ns_);
      if (env.now() < end) return sleep(end - env.now());
      t.posted_this_second = 0;
      t.second_start = 0;
    }
  }

  Action worker(int m, St &t, int msg, int cpu, sim::Stream &rng, Env &env) {
    St &mt = st_[static_cast<std::size_t>(msg)];
    for (;;) {
      switch (t.w) {
        case W::Top:
          if (t.batch > 0) {  // rps mode: the next spliced request
            t.batch--;
            t.work_start = env.now();
            t.w = W::Sleeping;
            if (const Time d = draw(s_.sleep, rng)) return sleep(d);
            continue;
          }
          if (stopping(env)) {
            // MODEL: the exiting worker posts its message thread, as schbench's main thread
            // does at the end, so a message thread blocked in fwait() sees `stopping`.
            fpost(msg, cpu, env);
            return exit_action();
          }
          // msg_and_wait()
          t.posted = false;
          t.wake_time = env.now();
          if (s_.rps) {
            if (t.queued > 0) {  // request_splice(): take every queued request, no wait
              t.batch = t.queued;
              t.queued = 0;
              t.posted = false;
              continue;
            }
          } else {
            mt.list.push_back(m);
          }
          fpost(msg, cpu, env);
          t.w = W::Waiting;
          return fwait(t);
        case W::Waiting: {
          if (!t.posted && !stopping(env)) return fwait(t);
          if (counted(env.now()) && env.now() > t.wake_time)
            wakeup_.push_back(env.now() - t.wake_time);
          if (s_.rps) {
            t.w = W::Top;  // `continue`: the next msg_and_wait() splices the request
            continue;
          }
          if (stopping(env) && !t.posted) return exit_action();
          t.work_start = env.now();
          t.w = W::Sleeping;
          if (const Time d = draw(s_.sleep, rng)) return sleep(d);
          continue;
        }
        case W::Sleeping: {
          t.w = W::Working;
          if (const Time d = draw(s_.work, rng)) return run(d);
          continue;
        }
        case W::Working:
          if (counted(env.now())) {
            request_.push_back(env.now() - t.work_start);
            requests_++;
          }
          t.w = W::Top;
          continue;
      }
    }
  }

  SchbenchSpec s_;
  int workers_;
  std::vector<St> st_;
  Barrier barrier_;
  Time stop_ns_ = kTimeNever;
  std::vector<Time> wakeup_, request_;
  std::uint64_t requests_ = 0;
};

// ---------------------------------------------------------------------------------------------

class Forker : public Model {
 public:
  Forker(const ForkSpec &s, int members) : s_(s), st_(static_cast<std::size_t>(members)) {}
  int members() const override { return static_cast<int>(st_.size()); }

  Action next(int m, int cpu, sim::Stream &rng, Env &env) override {
    St &t = st_[static_cast<std::size_t>(m)];
    for (;;) {
      if (t.pending) {  // fork() is done: the child is woken by the fork path
        t.pending = false;
        t.forked++;
        t.live++;
        forks_++;
        env.fork_child(m, draw(s_.child_run, rng), cpu);
        if (t.forked < s_.children)
          if (const Time d = draw(s_.interval, rng)) return sleep(d);
      }
      if (t.forked < s_.children) {
        t.pending = true;
        if (s_.fork_cost) return runtime(s_.fork_cost);
        continue;
      }
      if (s_.wait && t.live > 0) {  // wait(2) for the children
        t.waiting = true;
        return block();
      }
      return exit_action();
    }
  }

  void child_exited(int m, int cpu, Env &env) override {
    St &t = st_[static_cast<std::size_t>(m)];
    exited_++;
    if (t.live > 0) t.live--;
    if (t.live == 0 && t.waiting) {  // do_notify_parent(): SIGCHLD wakes the waiting parent
      t.waiting = false;
      env.wake(m, 0, cpu);
    }
  }

  void report(BenchReport &r) const override {
    r.has_fork = true;
    r.forks += forks_;
    r.children_exited += exited_;
  }

 private:
  struct St {
    std::uint64_t forked = 0, live = 0;
    bool pending = false, waiting = false;
  };
  ForkSpec s_;
  std::vector<St> st_;
  std::uint64_t forks_ = 0, exited_ = 0;
};

// ---------------------------------------------------------------------------------------------

// A VM: vCPU threads run while their guest vCPU has work and halt (block) while it is idle;
// VMM threads do short periodic bursts. The hwlat guest's tracer spins on one vCPU for `width`
// of every `window`, round robin; the executor reports when that vCPU's thread leaves and
// regains the host CPU, and every such gap inside the tracer's sampling time is measured.
class Vm : public Model {
 public:
  explicit Vm(const VmSpec &s)
      : s_(s),
        hw_(static_cast<std::size_t>(s.vcpus)),
        vmm_(static_cast<std::size_t>(s.vmm_threads)) {}
  int members() const override { return s_.tasks(); }
  bool infinite() const override { return true; }
  bool dormant(int m) const override { return m < s_.vcpus && s_.guest == VmSpec::Guest::Idle; }

  Action next(int m, int /*cpu*/, sim::Stream &rng, Env &env) override {
    const Time t = env.now();
    if (m >= s_.vcpus) {  // a VMM thread: sleep a jittered period, then a burst
      char &burst = vmm_[static_cast<std::size_t>(m - s_.vcpus)];
      if (burst && s_.vmm_burst) {
        burst = false;
        return run(s_.vmm_burst);
      }
      burst = true;
      const Time half = s_.vmm_period / 2;
      return sleep(std::max<Time>(1, half + rng.uniform_u64(0, 2 * half)));
    }
    switch (s_.guest) {
      case VmSpec::Guest::Stress:
        return Action{Action::Kind::Forever, 0};
      case VmSpec::Guest::Idle:
        return block();  // HLT, never woken
      case VmSpec::Guest::Hwlat:
        break;
    }
    Hw &h = hw_[static_cast<std::size_t>(m)];
    if (h.sampling) {
      if (t < h.sample_end) return runtime(std::min(h.sample_end - t, kChunk));
      h.sampling = false;
      sampling_ns_ += h.sample_end - h.sample_start;
      close_window(h);
    }
    const std::uint64_t vcpus = static_cast<std::uint64_t>(s_.vcpus);
    const std::uint64_t k0 = t / s_.window;
    if (k0 % vcpus == static_cast<std::uint64_t>(m) && k0 != h.last_window &&
        t < k0 * s_.window + s_.width) {  // this vCPU's window: sample until its width ends
      h.last_window = k0;
      h.sampling = true;
      h.sample_start = t;
      h.sample_end = k0 * s_.window + s_.width;
      windows_++;
      return runtime(std::min(h.sample_end - t, kChunk));
    }
    // Idle (halted) until this vCPU's next window.
    std::uint64_t k = k0 + 1;
    k += (static_cast<std::uint64_t>(m) + vcpus - k % vcpus) % vcpus;
    return sleep(k * s_.window - t);
  }

  void switched_out(int m, Time t) override {
    if (s_.guest != VmSpec::Guest::Hwlat || m >= s_.vcpus) return;
    Hw &h = hw_[static_cast<std::size_t>(m)];
    if (h.sampling && t >= h.sample_start && t < h.sample_end) h.off_since = t;
  }
  void switched_in(int m, Time t) override {
    if (s_.guest != VmSpec::Guest::Hwlat || m >= s_.vcpus) return;
    gap_end(hw_[static_cast<std::size_t>(m)], t);
  }
  void finish(Time end) override {
    for (Hw &h : hw_) {
      gap_end(h, end);
      if (h.sampling) {
        h.sampling = false;
        if (end > h.sample_start) sampling_ns_ += std::min(end, h.sample_end) - h.sample_start;
        close_window(h);
      }
    }
  }

  void report(BenchReport &r) const override {
    BenchReport::Vm v;
    v.guest = s_.guest;
    v.width = s_.width;
    v.window = s_.window;
    v.threshold = s_.threshold;
    v.windows = windows_;
    v.sampling_ns = sampling_ns_;
    v.samples = samples_;
    v.gaps_over_threshold = gaps_over_;
    v.sample_latency_ns = sample_latency_;
    v.max_gap_ns = max_gap_;
    v.sum_gap_ns = sum_gap_;
    v.breach_gap_ns = breach_gap_;
    r.vms.push_back(v);
  }

 private:
  static constexpr Time kChunk = NSEC_PER_MSEC;  // the tracer's spin, in slices of CPU time
  struct Hw {
    bool sampling = false;
    Time sample_start = 0, sample_end = 0;
    std::uint64_t last_window = ~std::uint64_t{0};
    Time off_since = kTimeNever;  // switched out while sampling, at this time
    Time window_max_us = 0;       // the window's largest gap, in whole microseconds
  };
  // The thread runs again at t: the tracer sees the whole gap, in whole microseconds as
  // get_sample() reads it (time_to_us()), and counts it when it is above the threshold (also in
  // microseconds); the lost sampling time is the part before the width's end.
  void gap_end(Hw &h, Time t) {
    if (h.off_since == kTimeNever) return;
    const Time gap = t > h.off_since ? t - h.off_since : 0;
    sum_gap_ += std::min(t, h.sample_end) - h.off_since;
    h.off_since = kTimeNever;
    max_gap_ = std::max(max_gap_, gap);
    const Time gap_us = gap / NSEC_PER_USEC;
    h.window_max_us = std::max(h.window_max_us, gap_us);
    if (gap_us > s_.threshold / NSEC_PER_USEC) {
      gaps_over_++;
      breach_gap_ += gap;
    }
  }
  // get_sample()'s end: at most one sample per window, recorded when the window's largest gap
  // (inner or outer: the model's gaps are the vCPU thread's time off the host CPU, wherever in
  // the loop they fall) is above the threshold, with that gap as its latency.
  void close_window(Hw &h) {
    if (h.window_max_us > s_.threshold / NSEC_PER_USEC) {
      samples_++;
      sample_latency_ += h.window_max_us * NSEC_PER_USEC;
    }
    h.window_max_us = 0;
  }
  VmSpec s_;
  std::vector<Hw> hw_;
  std::vector<char> vmm_;  // the VMM thread's next action is its burst
  std::uint64_t windows_ = 0, samples_ = 0, gaps_over_ = 0;
  Time sampling_ns_ = 0, max_gap_ = 0, sum_gap_ = 0, breach_gap_ = 0, sample_latency_ = 0;
};

}  // namespace

// The run's lost time as an hwlat user estimates it: the samples' latencies, seen in `width` of
// every `window`, scaled up by window/width to the run's windows * window of time, as a share of
// that time; the window/width factors cancel.
double BenchReport::Vm::noise_pct() const {
  if (windows == 0 || width == 0) return std::nan("");
  return static_cast<double>(sample_latency_ns) /
         (static_cast<double>(windows) * static_cast<double>(width)) * 100.0;
}

double BenchReport::Vm::lost_time_pct() const {
  if (sampling_ns == 0) return std::nan("");
  return static_cast<double>(sum_gap_ns) / static_cast<double>(sampling_ns) * 100.0;
}

// ---------------------------------------------------------------------------------------------

Channel::Channel(bool socket, std::uint64_t buffer, int datasize)
    : socket_(socket), datasize_(std::max(1, datasize)) {
  if (socket_) {
    sndbuf_ = std::max<std::uint64_t>(1, buffer);
    charge_ = static_cast<std::uint64_t>(datasize_) + kSkbOverheadBytes;
  } else {
    max_slots_ = std::max<std::uint64_t>(1, buffer / kPageSize);
    per_page_ = std::max<std::uint64_t>(1, kPageSize / static_cast<std::uint64_t>(datasize_));
  }
}

bool Channel::can_write() const {
  // sock_alloc_send_pskb() waits while sk_wmem_alloc >= sk_sndbuf.
  if (socket_) return wmem_ < sndbuf_;
  // pipe_write(): a small write merges into the last page if it fits, else needs a free slot.
  if (!pages_.empty() && pages_.back().written < per_page_) return true;
  return pages_.size() < max_slots_;
}

void Channel::reserve() {
  assert(can_write());
  if (socket_) {
    wmem_ += charge_;
    return;
  }
  if (!pages_.empty() && pages_.back().written < per_page_)
    pages_.back().written++;
  else
    pages_.push_back(Page{1, 0});
}

void Channel::commit() {
  readable_++;
}

void Channel::take() {
  assert(readable_ > 0);
  readable_--;
}

Channel::WakeWriters Channel::release() {
  if (socket_) {
    wmem_ -= std::min(wmem_, charge_);
    // sock_wfree() -> unix_write_space(): wake every writer once a quarter or less is in use.
    return (wmem_ << 2) <= sndbuf_ ? WakeWriters::All : WakeWriters::None;
  }
  assert(!pages_.empty());
  Page &p = pages_.front();
  p.read++;
  if (p.read < p.written) return WakeWriters::None;
  // pipe_read() (6.5+): freeing a buffer of a full pipe wakes one (exclusive) writer. The pipe
  // is looked at now, when the model frees the page, not when the read began: writers may
  // have filled it during the read's CPU time, which the kernel's pipe mutex would not allow.
  const bool was_full = pages_.size() >= max_slots_;
  pages_.pop_front();
  return was_full ? WakeWriters::One : WakeWriters::None;
}

std::uint64_t Channel::capacity_messages() const {
  if (socket_) return (sndbuf_ + charge_ - 1) / charge_;
  return max_slots_ * per_page_;
}

std::unique_ptr<Model> make_model(const Benchmark &b, int nr_cpus, int members) {
  switch (b.kind) {
    case Benchmark::Kind::Hackbench:
      return std::make_unique<Hackbench>(b.hackbench);
    case Benchmark::Kind::Schbench:
      return std::make_unique<Schbench>(b.schbench, nr_cpus);
    case Benchmark::Kind::Fork:
      return std::make_unique<Forker>(b.fork, members);
    case Benchmark::Kind::Vm:
      return std::make_unique<Vm>(b.vm);
    case Benchmark::Kind::Replay:
      return std::make_unique<Replay>(b.replay);
    case Benchmark::Kind::None:
      break;
  }
  return nullptr;
}

}  // namespace schedlab::workload
