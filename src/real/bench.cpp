// SPDX-License-Identifier: GPL-2.0-only
#include "real/bench.h"

#include <linux/futex.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "real/calibrate.h"

namespace schedlab::real {

namespace {

using workload::BenchReport;

// All members of a group meet here; the last to arrive releases them and stamps the time.
class StartBarrier {
 public:
  explicit StartBarrier(int n) : left_(n) {}
  // False if *stop was set first.
  bool arrive(const std::atomic<bool> &stop) {
    std::unique_lock lock(mu_);
    if (--left_ == 0) {
      release_ns_ = monotonic_ns();
      cv_.notify_all();
      return true;
    }
    while (left_ > 0 && !stop.load()) cv_.wait_for(lock, std::chrono::milliseconds(20));
    return left_ <= 0;
  }
  std::uint64_t release_ns() const { return release_ns_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_;
  std::uint64_t release_ns_ = 0;
};

// hackbench -T: groups of `fds` receivers and `fds` senders; every sender writes `loops`
// messages of `datasize` bytes to each receiver of its group, round by round; each receiver
// reads fds * loops messages. Time: from the release of all to the last receiver's end.
class Hackbench : public RealBench {
 public:
  explicit Hackbench(const workload::HackbenchSpec &s) : s_(s), barrier_(s.tasks()) {
    const int n = s.groups * s.fds;
    for (int i = 0; i < n; i++) {
      int fd[2];
      const int rc = s.socket ? socketpair(AF_UNIX, SOCK_STREAM, 0, fd) : pipe(fd);
      if (rc != 0) {
        for (auto &c : ch_) close_channel(c);
        throw std::runtime_error(std::string("hackbench: cannot make a ") +
                                 (s.socket ? "socket pair" : "pipe") + ": " + std::strerror(errno));
      }
      ch_.push_back({fd[0], fd[1]});
    }
  }
  ~Hackbench() override {
    for (auto &c : ch_) close_channel(c);
  }

  void member(int m, sim::Stream &, const std::atomic<bool> &stop) override {
    if (!barrier_.arrive(stop)) return;
    const int per_group = 2 * s_.fds, group = m / per_group, idx = m % per_group;
    std::vector<char> buf(static_cast<std::size_t>(s_.datasize), 'x');
    const std::uint64_t per_task = s_.loops * static_cast<std::uint64_t>(s_.fds);
    if (idx < s_.fds) {  // receiver: reads its channel until every message is in
      const int fd = ch_[static_cast<std::size_t>(group * s_.fds + idx)].rd;
      const std::uint64_t want = per_task * static_cast<std::uint64_t>(s_.datasize);
      std::uint64_t got = 0;
      while (got < want) {
        const ssize_t n = read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // aborted
        got += static_cast<std::uint64_t>(n);
      }
      messages_.fetch_add(per_task, std::memory_order_relaxed);
      std::lock_guard lock(mu_);
      if (++done_receivers_ == s_.groups * s_.fds) end_ns_ = monotonic_ns();
      return;
    }
    for (std::uint64_t i = 0; i < s_.loops; i++)  // sender
      for (int j = 0; j < s_.fds; j++) {
        const int fd = ch_[static_cast<std::size_t>(group * s_.fds + j)].wr;
        std::size_t done = 0;
        while (done < buf.size()) {
          const ssize_t n = s_.socket ? send(fd, buf.data() + done, buf.size() - done, MSG_NOSIGNAL)
                                      : write(fd, buf.data() + done, buf.size() - done);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0 || stop.load(std::memory_order_relaxed)) return;
          done += static_cast<std::size_t>(n);
        }
      }
  }

  void abort() override {
    // Blocked readers see the end of file, blocked writers EPIPE.
    for (auto &c : ch_) {
      if (s_.socket) {
        shutdown(c.rd, SHUT_RDWR);
        shutdown(c.wr, SHUT_RDWR);
      } else {
        close_fd(c.wr);
        close_fd(c.rd);
      }
    }
  }

  void report(BenchReport &r) const override {
    r.has_hackbench = true;
    std::lock_guard lock(mu_);
    if (done_receivers_ == s_.groups * s_.fds && end_ns_ >= barrier_.release_ns())
      r.hackbench_ns = std::max<Time>(r.hackbench_ns, end_ns_ - barrier_.release_ns());
    else
      r.hackbench_unfinished = true;
    r.hackbench_messages += messages_.load();
    r.hackbench_expected_messages += static_cast<std::uint64_t>(s_.groups) *
                                     static_cast<std::uint64_t>(s_.fds) * s_.loops *
                                     static_cast<std::uint64_t>(s_.fds);
  }

 private:
  struct Channel {
    int rd = -1, wr = -1;
  };
  static void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  static void close_channel(Channel &c) {
    close_fd(c.rd);
    close_fd(c.wr);
  }
  workload::HackbenchSpec s_;
  std::vector<Channel> ch_;
  StartBarrier barrier_;
  mutable std::mutex mu_;
  int done_receivers_ = 0;
  std::uint64_t end_ns_ = 0;
  std::atomic<std::uint64_t> messages_{0};
};

// A futex word, as schbench's: FUTEX_BLOCKED until a post makes it FUTEX_RUNNING.
struct Futex {
  std::atomic<int> v{0};
  void post() {
    if (v.exchange(1) == 0)
      syscall(SYS_futex, reinterpret_cast<int *>(&v), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  // Waits until posted (and consumes the post) or `until_ns` (monotonic) passes.
  bool wait(std::uint64_t until_ns) {
    for (;;) {
      if (v.exchange(0) == 1) return true;
      const std::uint64_t now = monotonic_ns();
      if (now >= until_ns) return false;
      const std::uint64_t d = std::min<std::uint64_t>(until_ns - now, 20'000'000);
      timespec ts{0, static_cast<long>(d)};
      syscall(SYS_futex, reinterpret_cast<int *>(&v), FUTEX_WAIT_PRIVATE, 0, &ts, nullptr, 0);
    }
  }
};

// schbench: message threads, each with `workers` workers. A worker stamps the time, queues
// itself on its message thread and posts it, then waits for its own post; the message thread
// posts every queued worker. The worker's wakeup latency is the time from its stamp to running
// again; it then sleeps, works, and its request latency is from the end of the wait to the end
// of the work. Counted between release + warmup and release + runtime.
class Schbench : public RealBench {
 public:
  Schbench(const workload::SchbenchSpec &s, int members, double ns_per_loop)
      : s_(s),
        per_(s.message_threads > 0 ? members / s.message_threads : 1),
        barrier_(members),
        ns_per_loop_(ns_per_loop),
        st_(static_cast<std::size_t>(members)) {}

  void member(int m, sim::Stream &rng, const std::atomic<bool> &stop) override {
    if (!barrier_.arrive(stop)) return;
    const std::uint64_t release = barrier_.release_ns(), end = release + s_.runtime;
    const int msg = m - m % per_;
    St &me = st_[static_cast<std::size_t>(m)];
    auto stopping = [&] { return stop.load(std::memory_order_relaxed) || monotonic_ns() >= end; };
    auto counted = [&](std::uint64_t t) { return t >= release + s_.warmup && t <= end; };
    if (m == msg) {  // run_msg_thread()
      for (;;) {
        const bool last = stopping();
        std::vector<int> wake;
        {
          std::lock_guard lock(mu_);
          wake.swap(me.list);
        }
        for (auto it = wake.rbegin(); it != wake.rend(); ++it)
          st_[static_cast<std::size_t>(*it)].futex.post();
        if (last) {
          // Once more after the end, for workers that queued meanwhile.
          std::lock_guard lock(mu_);
          for (int w : me.list) st_[static_cast<std::size_t>(w)].futex.post();
          me.list.clear();
          return;
        }
        me.futex.wait(end);
      }
    }
    std::vector<std::uint64_t> wakeups, requests;
    for (;;) {  // worker
      if (stopping()) break;
      const std::uint64_t stamp = monotonic_ns();
      {
        std::lock_guard lock(mu_);
        st_[static_cast<std::size_t>(msg)].list.push_back(m);
      }
      st_[static_cast<std::size_t>(msg)].futex.post();
      if (!me.futex.wait(end + 1'000'000'000)) break;
      const std::uint64_t woke = monotonic_ns();
      if (stopping()) break;
      if (counted(woke)) wakeups.push_back(woke - stamp);
      if (const Time d = workload::draw(s_.sleep, rng)) {
        timespec ts{static_cast<time_t>(d / 1'000'000'000u), static_cast<long>(d % 1'000'000'000u)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
      }
      if (const Time d = workload::draw(s_.work, rng)) burn_ns(ns_per_loop_, d, &stop);
      const std::uint64_t done = monotonic_ns();
      if (counted(done)) requests.push_back(done - woke);
    }
    st_[static_cast<std::size_t>(msg)].futex.post();  // the message thread may be waiting
    std::lock_guard lock(mu_);
    wakeup_.insert(wakeup_.end(), wakeups.begin(), wakeups.end());
    request_.insert(request_.end(), requests.begin(), requests.end());
  }

  void abort() override {
    for (St &s : st_) s.futex.post();
  }

  void report(BenchReport &r) const override {
    r.has_schbench = true;
    std::lock_guard lock(mu_);
    r.schbench_wakeup_ns.insert(r.schbench_wakeup_ns.end(), wakeup_.begin(), wakeup_.end());
    r.schbench_request_ns.insert(r.schbench_request_ns.end(), request_.begin(), request_.end());
    r.schbench_requests += request_.size();
    r.schbench_window_ns = s_.runtime > s_.warmup ? s_.runtime - s_.warmup : 0;
  }

 private:
  struct St {
    Futex futex;
    std::vector<int> list;  // message thread: workers waiting to be posted
  };
  workload::SchbenchSpec s_;
  int per_;
  StartBarrier barrier_;
  double ns_per_loop_;
  std::vector<St> st_;
  mutable std::mutex mu_;
  std::vector<Time> wakeup_, request_;
};

// A VM as threads of the process: vCPU threads that spin (stress guest), stay halted (idle
// guest) or run an hwlat tracer, and VMM threads of short periodic bursts. The hwlat tracer
// samples as kernel/trace/trace_hwlat.c does: in its window (`width` of every `window`, round
// robin over the vCPUs) it reads the clock in a tight loop, and a gap between two reads is
// time the vCPU did not run; a gap above `threshold` is a sample. Outside its window the vCPU
// sleeps.
class Vm : public RealBench {
 public:
  Vm(const workload::VmSpec &s, std::string name, double ns_per_loop)
      : s_(s), name_(std::move(name)), ns_per_loop_(ns_per_loop), barrier_(s.tasks()) {}
  bool infinite() const override { return true; }

  void member(int m, sim::Stream &rng, const std::atomic<bool> &stop) override {
    if (!barrier_.arrive(stop)) return;
    const std::uint64_t t0 = barrier_.release_ns();
    auto sleep_to = [&](std::uint64_t until) {
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint64_t now = monotonic_ns();
        if (now >= until) return;
        const std::uint64_t d = std::min<std::uint64_t>(until - now, 50'000'000);
        timespec ts{static_cast<time_t>(d / 1'000'000'000u), static_cast<long>(d % 1'000'000'000u)};
        nanosleep(&ts, nullptr);
      }
    };
    if (m >= s_.vcpus) {  // a VMM thread: a jittered period, then a burst
      const Time half = s_.vmm_period / 2;
      while (!stop.load(std::memory_order_relaxed)) {
        sleep_to(monotonic_ns() + std::max<Time>(1, half + rng.uniform_u64(0, 2 * half)));
        if (s_.vmm_burst && !stop.load()) burn_ns(ns_per_loop_, s_.vmm_burst, &stop);
      }
      return;
    }
    switch (s_.guest) {
      case workload::VmSpec::Guest::Stress:
        while (!stop.load(std::memory_order_relaxed)) burn_loops(100000);
        return;
      case workload::VmSpec::Guest::Idle:
        while (!stop.load(std::memory_order_relaxed)) sleep_to(monotonic_ns() + 50'000'000);
        return;
      case workload::VmSpec::Guest::Hwlat:
        break;
    }
    const std::uint64_t vcpus = static_cast<std::uint64_t>(s_.vcpus);
    std::uint64_t windows = 0, samples = 0, sampling = 0;
    Time max_gap = 0, sum_gap = 0, breach = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t t = monotonic_ns() - t0;
      std::uint64_t k = t / s_.window;
      if (!(k % vcpus == static_cast<std::uint64_t>(m) && t < k * s_.window + s_.width)) {
        k++;
        k += (static_cast<std::uint64_t>(m) + vcpus - k % vcpus) % vcpus;
        sleep_to(t0 + k * s_.window);
        continue;
      }
      // get_sample(): read the clock until the width's end; gaps between reads are lost time.
      windows++;
      const std::uint64_t end = t0 + k * s_.window + s_.width;
      std::uint64_t last = monotonic_ns();
      const std::uint64_t start = last;
      while (last < end && !stop.load(std::memory_order_relaxed)) {
        const std::uint64_t now = monotonic_ns();
        const Time gap = now - last;
        if (gap > kMinGapNs) {
          sum_gap += std::min(now, end) - last;
          max_gap = std::max(max_gap, gap);
          if (gap > s_.threshold) {
            samples++;
            breach += gap;
          }
        }
        last = now;
      }
      sampling += std::min(last, end) - start;
    }
    std::lock_guard lock(mu_);
    v_.windows += windows;
    v_.samples += samples;
    v_.sampling_ns += sampling;
    v_.max_gap_ns = std::max(v_.max_gap_ns, max_gap);
    v_.sum_gap_ns += sum_gap;
    v_.breach_gap_ns += breach;
  }

  void abort() override {}

  void report(BenchReport &r) const override {
    std::lock_guard lock(mu_);
    BenchReport::Vm v = v_;
    v.name = name_;
    v.guest = s_.guest;
    v.width = s_.width;
    v.window = s_.window;
    v.threshold = s_.threshold;
    r.vms.push_back(v);
  }

 private:
  // Reads closer than this are the loop's own pace, not time away from the CPU.
  static constexpr Time kMinGapNs = 1000;
  workload::VmSpec s_;
  std::string name_;
  double ns_per_loop_;
  StartBarrier barrier_;
  mutable std::mutex mu_;
  BenchReport::Vm v_;
};

}  // namespace

std::string real_bench_unsupported(const workload::Benchmark &b) {
  using K = workload::Benchmark::Kind;
  switch (b.kind) {
    case K::None:
      return {};
    case K::Hackbench:
      if (!b.hackbench.threads)
        return "model hackbench in process mode, which measure does not run yet (it runs every "
               "task as a thread of one process; mode = \"thread\" runs)";
      return {};
    case K::Schbench:
      if (b.schbench.rps)
        return "model schbench with rps, which measure does not run yet (without rps it runs)";
      return {};
    case K::Fork:
      return "model fork, which measure does not run yet";
    case K::Vm:
      return {};
    case K::Replay:
      return "model trace replay, which measure does not run yet";
  }
  return "an unknown model";
}

std::unique_ptr<RealBench> make_real_bench(const workload::Benchmark &b, const std::string &name,
                                           int members, double ns_per_loop) {
  if (!real_bench_unsupported(b).empty()) return nullptr;
  if (b.kind == workload::Benchmark::Kind::Hackbench)
    return std::make_unique<Hackbench>(b.hackbench);
  if (b.kind == workload::Benchmark::Kind::Schbench)
    return std::make_unique<Schbench>(b.schbench, members, ns_per_loop);
  if (b.kind == workload::Benchmark::Kind::Vm) return std::make_unique<Vm>(b.vm, name, ns_per_loop);
  return nullptr;
}

}  // namespace schedlab::real
