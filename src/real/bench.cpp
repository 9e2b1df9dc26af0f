// SPDX-License-Identifier: GPL-2.0-only
#include "real/bench.h"

#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <functional>
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
  // False if *stop was set first. The last to arrive stamps the release and runs `on_release`.
  bool arrive(const std::atomic<bool> &stop, const std::function<void()> &on_release = {}) {
    std::unique_lock lock(mu_);
    if (--left_ == 0) {
      release_ns_ = monotonic_ns();
      if (on_release) on_release();
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

// hackbench: groups of `fds` receivers and `fds` senders; every sender writes `loops`
// messages of `datasize` bytes to each receiver of its group, round by round; each receiver
// reads fds * loops messages. Time: from the release of all to the last receiver's end.
// Thread mode (-T): every member is a thread of this process. Process mode: as hackbench
// forks its senders and receivers, every member's thread forks a process that waits for the
// release (the end of file on a start pipe), does the member's work and exits; the thread waits
// for it, and its accounting is the task's.
class Hackbench : public RealBench {
 public:
  explicit Hackbench(const workload::HackbenchSpec &s) : s_(s), barrier_(s.tasks()) {
    const int n = s.groups * s.fds;
    auto fail = [&](const std::string &what) {
      const std::string err = std::strerror(errno);
      cleanup();
      throw std::runtime_error("hackbench: cannot make " + what + ": " + err);
    };
    for (int i = 0; i < n; i++) {
      int fd[2];
      const int rc = s.socket ? socketpair(AF_UNIX, SOCK_STREAM, 0, fd) : pipe(fd);
      if (rc != 0) fail(s.socket ? "a socket pair" : "a pipe");
      ch_.push_back({fd[0], fd[1]});
    }
    if (s.threads) return;
    int fd[2];
    if (pipe(fd) != 0) fail("its start pipe");
    start_ = {fd[0], fd[1]};
    pids_.assign(static_cast<std::size_t>(s.tasks()), 0);
    // The receivers' end times, written by the processes.
    void *p = mmap(nullptr, sizeof(std::uint64_t) * static_cast<std::size_t>(n),
                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("shared memory");
    ends_ = static_cast<std::uint64_t *>(p);
  }
  ~Hackbench() override { cleanup(); }

  int member(int m, sim::Stream &, const std::atomic<bool> &stop) override {
    const int per_group = 2 * s_.fds, group = m / per_group, idx = m % per_group;
    const bool receiver = idx < s_.fds;
    std::vector<char> buf(static_cast<std::size_t>(s_.datasize), 'x');
    if (s_.threads) {
      if (!barrier_.arrive(stop)) return 0;
      if (!receiver) {
        work(group, idx, buf, &stop);
        return 0;
      }
      if (!work(group, idx, buf, &stop)) return 0;
      messages_.fetch_add(per_receiver(), std::memory_order_relaxed);
      std::lock_guard lock(mu_);
      end_ns_ = std::max(end_ns_, monotonic_ns());
      done_receivers_++;
      return 0;
    }
    const pid_t pid = fork();
    if (pid == 0) {  // the member's process: only async-signal-safe calls from here on
      close(start_.wr);
      char c;
      while (read(start_.rd, &c, 1) < 0 && errno == EINTR) {
      }
      const bool ok = work(group, idx, buf, nullptr);
      if (ok && receiver) ends_[group * s_.fds + idx] = monotonic_ns();
      _exit(ok ? 0 : 1);
    }
    {
      std::lock_guard lock(mu_);
      if (pid > 0) pids_[static_cast<std::size_t>(m)] = pid;
      if (pid < 0) fork_error_ = errno;
    }
    // The last member's thread releases every process at once: its copy of the start pipe's
    // write end is the last one open.
    barrier_.arrive(stop, [this] {
      std::lock_guard lock(mu_);
      close_fd(start_.wr);
    });
    if (pid < 0) return 0;
    siginfo_t si{};
    while (waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    if (receiver && si.si_code == CLD_EXITED && si.si_status == 0) {
      messages_.fetch_add(per_receiver(), std::memory_order_relaxed);
      std::lock_guard lock(mu_);
      end_ns_ = std::max(end_ns_, ends_[group * s_.fds + idx]);
      done_receivers_++;
    }
    return pid;
  }

  void reap(int m) override {
    pid_t pid = 0;
    {
      std::lock_guard lock(mu_);
      if (pids_.empty()) return;
      std::swap(pid, pids_[static_cast<std::size_t>(m)]);
    }
    if (pid > 0)
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  }

  void abort() override {
    // Blocked readers see the end of file, blocked writers EPIPE; processes are killed (they
    // hold their own copies of the channels).
    {
      std::lock_guard lock(mu_);
      for (const pid_t pid : pids_)
        if (pid > 0) kill(pid, SIGKILL);
      close_fd(start_.wr);
    }
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

  std::string error() const override {
    std::lock_guard lock(mu_);
    return fork_error_ ? std::string(kName) + ": fork() failed: " + std::strerror(fork_error_) : "";
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
  void cleanup() {
    for (auto &c : ch_) close_channel(c);
    close_channel(start_);
    for (std::size_t m = 0; m < pids_.size(); m++) {
      if (pids_[m] > 0) kill(pids_[m], SIGKILL);
      reap(static_cast<int>(m));
    }
    if (ends_) munmap(ends_, sizeof(std::uint64_t) * static_cast<std::size_t>(s_.groups * s_.fds));
    ends_ = nullptr;
  }
  std::uint64_t per_receiver() const { return s_.loops * static_cast<std::uint64_t>(s_.fds); }
  // One member's reads or writes; false if it stopped short (aborted, or *stop set). Makes no
  // allocation, so a forked process may run it.
  bool work(int group, int idx, std::vector<char> &buf, const std::atomic<bool> *stop) const {
    if (idx < s_.fds) {  // receiver: reads its channel until every message is in
      const int fd = ch_[static_cast<std::size_t>(group * s_.fds + idx)].rd;
      const std::uint64_t want = per_receiver() * static_cast<std::uint64_t>(s_.datasize);
      std::uint64_t got = 0;
      while (got < want) {
        const ssize_t n = read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;  // aborted
        got += static_cast<std::uint64_t>(n);
      }
      return true;
    }
    for (std::uint64_t i = 0; i < s_.loops; i++)  // sender
      for (int j = 0; j < s_.fds; j++) {
        const int fd = ch_[static_cast<std::size_t>(group * s_.fds + j)].wr;
        std::size_t done = 0;
        while (done < buf.size()) {
          const ssize_t n = s_.socket ? send(fd, buf.data() + done, buf.size() - done, MSG_NOSIGNAL)
                                      : write(fd, buf.data() + done, buf.size() - done);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0 || (stop && stop->load(std::memory_order_relaxed))) return false;
          done += static_cast<std::size_t>(n);
        }
      }
    return true;
  }

  static constexpr const char *kName = "hackbench";
  workload::HackbenchSpec s_;
  std::vector<Channel> ch_;
  Channel start_;
  std::vector<pid_t> pids_;  // process mode: each member's process until reaped
  int fork_error_ = 0;
  std::uint64_t *ends_ = nullptr;
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

  int member(int m, sim::Stream &rng, const std::atomic<bool> &stop) override {
    if (!barrier_.arrive(stop)) return 0;
    if (s_.rps) {
      rps_member(m, rng, stop);
      return 0;
    }
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
          return 0;
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
    keep(wakeups, requests);
    return 0;
  }

  // schbench -R: each message thread posts `rps` requests a second round robin to its
  // workers (run_rps_thread(): a worker with more than 128 pending makes it pause 100 us and
  // the request is dropped), then sleeps out the second. A worker takes every request queued
  // for it at once (request_splice()) and works them one by one, sleeping then working; it
  // waits for a post only when none is queued, and its wakeup latency is from the post that
  // woke it.
  void rps_member(int m, sim::Stream &rng, const std::atomic<bool> &stop) {
    const std::uint64_t release = barrier_.release_ns(), end = release + s_.runtime;
    const int msg = m - m % per_;
    St &me = st_[static_cast<std::size_t>(m)];
    auto stopping = [&] { return stop.load(std::memory_order_relaxed) || monotonic_ns() >= end; };
    auto counted = [&](std::uint64_t t) { return t >= release + s_.warmup && t <= end; };
    auto sleep_ns = [](std::uint64_t d) {
      timespec ts{static_cast<time_t>(d / 1'000'000'000u), static_cast<long>(d % 1'000'000'000u)};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
    };
    if (m == msg) {
      const int workers = per_ - 1;
      std::uint64_t cur = 0;
      while (!stopping() && workers > 0) {
        const std::uint64_t second = monotonic_ns();
        for (std::uint64_t i = 0; i < s_.rps && !stopping(); i++) {
          St &w = st_[static_cast<std::size_t>(m + 1 + static_cast<int>(cur++ % workers))];
          if (w.queued.load() > kMaxPending) {
            sleep_ns(100'000);
            continue;
          }
          w.queued.fetch_add(1);
          w.wake_time.store(monotonic_ns());
          w.futex.post();
        }
        const std::uint64_t until = std::min(second + 1'000'000'000, end), now = monotonic_ns();
        if (now < until && !stop.load()) me.futex.wait(until);
      }
      for (int i = 1; i < per_; i++) st_[static_cast<std::size_t>(m + i)].futex.post();
      return;
    }
    std::vector<std::uint64_t> wakeups, requests;
    std::uint64_t batch = 0;
    for (;;) {
      if (batch > 0) {
        batch--;
        const std::uint64_t start = monotonic_ns();
        if (const Time d = workload::draw(s_.sleep, rng)) sleep_ns(d);
        if (const Time d = workload::draw(s_.work, rng)) burn_ns(ns_per_loop_, d, &stop);
        const std::uint64_t done = monotonic_ns();
        if (counted(done)) requests.push_back(done - start);
        continue;
      }
      if (stopping()) break;
      me.futex.v.store(0);  // FUTEX_BLOCKED: a post from now on wakes the wait below
      if ((batch = me.queued.exchange(0)) > 0) continue;
      if (!me.futex.wait(end + 1'000'000'000)) break;
      const std::uint64_t woke = monotonic_ns();
      if (stopping()) break;
      const std::uint64_t posted = me.wake_time.load();
      if (counted(woke) && woke > posted) wakeups.push_back(woke - posted);
    }
    keep(wakeups, requests);
  }

  void keep(const std::vector<std::uint64_t> &wakeups, const std::vector<std::uint64_t> &requests) {
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
  static constexpr std::uint64_t kMaxPending = 128;  // run_rps_thread()'s limit
  struct St {
    Futex futex;
    std::vector<int> list;                    // message thread: workers waiting to be posted
    std::atomic<std::uint64_t> queued{0};     // rps: requests posted, not yet taken
    std::atomic<std::uint64_t> wake_time{0};  // rps: when the last request was posted
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
// time the vCPU did not run; a window whose largest gap is above `threshold` gives one sample
// (get_sample()), the gaps above it are counted. Outside its window the vCPU sleeps.
class Vm : public RealBench {
 public:
  Vm(const workload::VmSpec &s, std::string name, double ns_per_loop)
      : s_(s), name_(std::move(name)), ns_per_loop_(ns_per_loop), barrier_(s.tasks()) {}
  bool infinite() const override { return true; }

  int member(int m, sim::Stream &rng, const std::atomic<bool> &stop) override {
    if (!barrier_.arrive(stop)) return 0;
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
      return 0;
    }
    switch (s_.guest) {
      case workload::VmSpec::Guest::Stress:
        while (!stop.load(std::memory_order_relaxed)) burn_loops(100000);
        return 0;
      case workload::VmSpec::Guest::Idle:
        while (!stop.load(std::memory_order_relaxed)) sleep_to(monotonic_ns() + 50'000'000);
        return 0;
      case workload::VmSpec::Guest::Hwlat:
        break;
    }
    const std::uint64_t vcpus = static_cast<std::uint64_t>(s_.vcpus);
    std::uint64_t windows = 0, samples = 0, gaps_over = 0, sampling = 0;
    Time max_gap = 0, sum_gap = 0, breach = 0, sample_latency = 0;
    const Time threshold_us = s_.threshold / 1000;
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
      Time window_max_us = 0;
      while (last < end && !stop.load(std::memory_order_relaxed)) {
        const std::uint64_t now = monotonic_ns();
        const Time gap = now - last;
        if (gap > kMinGapNs) {
          sum_gap += std::min(now, end) - last;
          max_gap = std::max(max_gap, gap);
          // In whole microseconds, as time_to_us() gives them to get_sample().
          window_max_us = std::max(window_max_us, gap / 1000);
          if (gap / 1000 > threshold_us) {
            gaps_over++;
            breach += gap;
          }
        }
        last = now;
      }
      sampling += std::min(last, end) - start;
      // One sample per window, when its largest gap is above threshold.
      if (window_max_us > threshold_us) {
        samples++;
        sample_latency += window_max_us * 1000;
      }
    }
    std::lock_guard lock(mu_);
    v_.windows += windows;
    v_.samples += samples;
    v_.gaps_over_threshold += gaps_over;
    v_.sample_latency_ns += sample_latency;
    v_.sampling_ns += sampling;
    v_.max_gap_ns = std::max(v_.max_gap_ns, max_gap);
    v_.sum_gap_ns += sum_gap;
    v_.breach_gap_ns += breach;
    return 0;
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

// fork(): each member forks `children` children, `interval` apart; a child does `child_run`
// of calibrated work and exits; with `wait` the member then waits for its children. A child is
// a copy of its member's thread (affinity, policy, nice and cookie, as sched_core_fork() gives
// the kernel's), woken by wake_up_new_task(); the fork's own cost is the kernel's.
class Forker : public RealBench {
 public:
  Forker(const workload::ForkSpec &s, double ns_per_loop) : s_(s), ns_per_loop_(ns_per_loop) {}
  ~Forker() override {
    abort();
    reap_all(0);
  }

  int member(int, sim::Stream &rng, const std::atomic<bool> &stop) override {
    std::vector<pid_t> mine;
    for (std::uint64_t i = 0; i < s_.children && !stop.load(); i++) {
      const Time run = workload::draw(s_.child_run, rng);
      const pid_t pid = fork();
      if (pid == 0) {  // the child: only async-signal-safe calls from here on
        burn_ns(ns_per_loop_, run, nullptr);
        _exit(0);
      }
      if (pid < 0) {
        std::lock_guard lock(mu_);
        fork_error_ = errno;
        break;
      }
      mine.push_back(pid);
      {
        std::lock_guard lock(mu_);
        live_.push_back(pid);
        forks_++;
      }
      if (i + 1 < s_.children)
        if (const Time d = workload::draw(s_.interval, rng)) sleep_for(d, stop);
    }
    if (s_.wait)
      for (const pid_t pid : mine) reap_one(pid, 0);
    return 0;
  }

  void abort() override {
    std::lock_guard lock(mu_);
    for (const pid_t pid : live_) kill(pid, SIGKILL);
  }

  std::string error() const override {
    std::lock_guard lock(mu_);
    return fork_error_ ? std::string(kName) + ": fork() failed: " + std::strerror(fork_error_) : "";
  }

  void report(BenchReport &r) const override {
    // Children not waited for that have exited by now count, as in the simulator at the end.
    const_cast<Forker *>(this)->reap_all(WNOHANG);
    std::lock_guard lock(mu_);
    r.has_fork = true;
    r.forks += forks_;
    r.children_exited += exited_;
  }

 private:
  static void sleep_for(std::uint64_t d, const std::atomic<bool> &stop) {
    const std::uint64_t until = monotonic_ns() + d;
    for (std::uint64_t now = monotonic_ns(); now < until && !stop.load(); now = monotonic_ns()) {
      const std::uint64_t step = std::min<std::uint64_t>(until - now, 50'000'000);
      timespec ts{static_cast<time_t>(step / 1'000'000'000u),
                  static_cast<long>(step % 1'000'000'000u)};
      nanosleep(&ts, nullptr);
    }
  }
  // Reaps `pid` (flags: 0 or WNOHANG); a child that exited of itself counts.
  void reap_one(pid_t pid, int flags) {
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, flags)) < 0 && errno == EINTR) {
    }
    if (r != pid) return;
    std::lock_guard lock(mu_);
    live_.erase(std::remove(live_.begin(), live_.end(), pid), live_.end());
    if (WIFEXITED(status)) exited_++;
  }
  void reap_all(int flags) {
    std::vector<pid_t> live;
    {
      std::lock_guard lock(mu_);
      live = live_;
    }
    for (const pid_t pid : live) reap_one(pid, flags);
  }

  static constexpr const char *kName = "fork";
  workload::ForkSpec s_;
  double ns_per_loop_;
  mutable std::mutex mu_;
  std::vector<pid_t> live_;  // forked, not reaped
  std::uint64_t forks_ = 0, exited_ = 0;
  int fork_error_ = 0;
};

}  // namespace

std::string real_bench_unsupported(const workload::Benchmark &b) {
  using K = workload::Benchmark::Kind;
  switch (b.kind) {
    case K::None:
      return {};
    case K::Hackbench:
    case K::Schbench:
    case K::Fork:
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
  if (b.kind == workload::Benchmark::Kind::Fork)
    return std::make_unique<Forker>(b.fork, ns_per_loop);
  if (b.kind == workload::Benchmark::Kind::Vm) return std::make_unique<Vm>(b.vm, name, ns_per_loop);
  return nullptr;
}

}  // namespace schedlab::real
