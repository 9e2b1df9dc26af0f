// SPDX-License-Identifier: GPL-2.0-only
#include "real/measure.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "machine/host_topology.h"
#include "real/bench.h"
#include "real/calibrate.h"
#include "sim/random.h"
#include "workload/program.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SHARE_TO 2
#define PR_SCHED_CORE_SHARE_FROM 3
#endif

namespace schedlab::real {

namespace {

using scenario::ConfigSpec;
using scenario::Scenario;
using scenario::TaskGroupSpec;
using workload::Action;

// PR_SCHED_CORE_SCOPE_THREAD, _THREAD_GROUP, _PROCESS_GROUP (PIDTYPE_PID, _TGID, _PGID).
constexpr int kPidTypePid = 0, kPidTypeTgid = 1, kPidTypePgid = 2;
// The stream purposes of experiment/simulation.cpp, so a measured run draws the same phase
// lengths and start delays as the simulated run with the same seed.
constexpr u64 kStreamPhases = 1, kStreamStart = 2;
// Sleeps are cut into pieces of at most this, so a stop request is seen promptly.
constexpr u64 kMaxSleepSliceNs = 50'000'000;

int sys_gettid() {
  return static_cast<int>(::gettid());
}

std::string errno_text(int err) {
  switch (err) {
    case EINVAL:
      return "EINVAL";
    case ENODEV:
      return "ENODEV";
    case EPERM:
      return "EPERM";
    case ESRCH:
      return "ESRCH";
    case EACCES:
      return "EACCES";
    case ENOMEM:
      return "ENOMEM";
  }
  return std::strerror(err);
}

// "12.345678" in ms (the kernel's SPLIT_NS) or a plain integer, as ns or as a count.
std::optional<u64> parse_sched_value(const std::string &v, bool split_ns) {
  if (v.empty()) return std::nullopt;
  const auto dot = v.find('.');
  try {
    if (!split_ns) return static_cast<u64>(std::stoull(v));
    const u64 ms = std::stoull(v.substr(0, dot));
    u64 frac = 0;
    if (dot != std::string::npos) {
      std::string f = v.substr(dot + 1, 6);
      while (f.size() < 6) f += '0';
      frac = std::stoull(f);
    }
    return ms * 1'000'000 + frac;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

// A thread's own accounting (/proc/self/task/TID), read by the thread itself at its end, or a
// child process's (/proc/PID/task/PID) once it has exited and before it is reaped.
void read_task_stats(const std::string &dir, TaskResult &r) {
  if (std::ifstream in(dir + "/schedstat"); in && (in >> r.runtime_ns >> r.wait_ns >> r.timeslices))
    r.has_schedstat = true;
  std::ifstream in(dir + "/sched");
  if (!in) return;
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    auto trim = [](std::string &s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
    };
    trim(key);
    trim(value);
    if (key == "nr_switches") {
      r.has_sched = true;
      r.nr_switches = parse_sched_value(value, false).value_or(0);
    } else if (key == "nr_voluntary_switches") {
      r.nr_voluntary_switches = parse_sched_value(value, false).value_or(0);
    } else if (key == "nr_involuntary_switches") {
      r.nr_involuntary_switches = parse_sched_value(value, false).value_or(0);
    } else if (key == "se.nr_migrations") {
      r.nr_migrations = parse_sched_value(value, false).value_or(0);
    } else if (key == "core_forceidle_sum") {
      r.core_forceidle_sum_ns = parse_sched_value(value, true);
    }
  }
}

// /proc/schedstat now, or why not (one phrase).
std::optional<Schedstat> read_schedstat(std::string &why) {
  std::ifstream in("/proc/schedstat");
  if (!in) {
    why = std::string("/proc/schedstat: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    return parse_schedstat(text.str());
  } catch (const SchedstatError &e) {
    why = e.what();
    return std::nullopt;
  }
}

// Busy CPU time of the whole host so far, from /proc/stat's "cpu" line (USER_HZ ticks).
std::optional<u64> host_busy_ns() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  u64 user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      cpu != "cpu")
    return std::nullopt;
  const long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) return std::nullopt;
  return (user + nice + system + irq + softirq + steal) * (1'000'000'000u / static_cast<u64>(hz));
}

std::optional<double> loadavg_1min() {
  std::ifstream in("/proc/loadavg");
  double v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

bool needs_cookies(const ConfigSpec *c) {
  return c && (!c->cookies.empty() || !c->prctl.empty());
}

// One of the scenario's resources (rt-app's events between tasks), as real pthread objects:
// `mtx` is the mutex of a Mutex resource, or the internal mutex rt-app takes around suspend,
// resume and barriers; `cond` the condition variable.
struct SyncRes {
  pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  std::atomic<int> holder{0};                  // Mutex: the tid that holds it, 0 when free
  u64 users = 0, arrived = 0, generation = 0;  // Barrier
  u64 timer_next = 0;                          // a shared Timer's next boundary (0: unset)
};

// One scenario task as a host thread.
struct Task {
  std::string comm;
  const TaskGroupSpec *group = nullptr;
  workload::Cursor cursor;
  sim::Stream rng;
  u64 start_delay_ns = 0;
  int tid = 0;
  bool ready = false, done = false;
  std::string setup_error;
  std::function<int()> op;     // a prctl() this thread must make as `current`
  RealBench *bench = nullptr;  // the group's benchmark, when it runs one
  int member = 0;              // index in the group
  // The scenario's process and process group (as the simulator assigns them): the index of
  // their first task.
  std::size_t process = 0, process_group = 0;
  u64 first_ns = 0;             // when it started (rt-app's t_first), for its timers
  std::vector<u64> timer_next;  // its own ("unique") timers' next boundaries
  int op_result = 0;
  int process_pid = 0;  // the process the task ran as (forked by its thread), if any
  TaskResult result;
};

void count_barrier_uses(const std::vector<workload::Phase> &phases, std::deque<SyncRes> &sync) {
  for (const workload::Phase &ph : phases) {
    if (ph.kind == workload::Phase::Kind::Loop) count_barrier_uses(ph.body, sync);
    if (ph.kind == workload::Phase::Kind::Barrier) sync[ph.res].users++;
  }
}

class Runner {
 public:
  Runner(const Scenario &s, const ConfigSpec *config, const HostInfo &host,
         const std::atomic<bool> &interrupt)
      : s_(s), config_(config), host_(host), interrupt_(interrupt) {}
  MeasureResult run();

 private:
  void body(Task &t);
  void setup(Task &t);
  void act(Task &t, u64 t0);
  bool sleep_until(u64 deadline_ns) const;
  bool do_sync(Task &t, const workload::Phase &ph);
  bool cond_wait(SyncRes &c, pthread_mutex_t *m);
  bool lock(SyncRes &m, int tid);
  int call_on(Task &t, std::function<int()> op);
  void apply_cookies();
  Task &by_name(const std::string &comm);

  const Scenario &s_;
  const ConfigSpec *config_;
  const HostInfo &host_;
  const std::atomic<bool> &interrupt_;
  std::deque<Task> tasks_;
  std::vector<std::unique_ptr<RealBench>> benches_;
  std::deque<SyncRes> sync_;  // by resource index
  std::mutex mu_;
  std::condition_variable cv_;
  bool go_ = false;
  u64 t0_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<std::string> warnings_;
};

bool Runner::sleep_until(u64 deadline_ns) const {
  for (;;) {
    if (stop_.load(std::memory_order_relaxed)) return false;
    const u64 now = monotonic_ns();
    if (now >= deadline_ns) return true;
    const u64 until = std::min(deadline_ns, now + kMaxSleepSliceNs);
    timespec ts{static_cast<time_t>(until / 1'000'000'000u),
                static_cast<long>(until % 1'000'000'000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }
}

// The task's attributes, set on its own thread id, as the scenario gives them.
void Runner::setup(Task &t) {
  const TaskGroupSpec &g = *t.group;
  pthread_setname_np(pthread_self(), t.comm.substr(0, 15).c_str());
  if (!g.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : g.cpus) CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      t.setup_error = t.comm + ": sched_setaffinity failed: " + errno_text(errno);
  }
  if (g.policy != scenario::Policy::Normal) {
    sched_param p{};
    const int policy = g.policy == scenario::Policy::Batch ? SCHED_BATCH : SCHED_IDLE;
    if (sched_setscheduler(0, policy, &p) != 0)
      t.setup_error = t.comm + ": sched_setscheduler failed: " + errno_text(errno);
  }
  if (g.nice != 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(t.tid), g.nice) != 0) {
    const int err = errno;
    std::lock_guard lock(mu_);
    if (warnings_.empty() || warnings_.back().rfind("group '" + g.name + "'", 0) != 0)
      warnings_.push_back("group '" + g.name + "': cannot set nice " + std::to_string(g.nice) +
                          " (" + errno_text(err) +
                          (g.nice < 0 ? ": a negative nice needs CAP_SYS_NICE" : "") +
                          "); its tasks run at the nice they inherit");
  }
}

void Runner::act(Task &t, u64 t0) {
  if (t.bench) {
    t.process_pid = t.bench->member(t.member, t.rng, stop_);
    if (!stop_.load()) {
      t.result.exited = true;
      t.result.exit_ns = monotonic_ns() - t0;
    }
    return;
  }
  for (;;) {
    if (stop_.load(std::memory_order_relaxed)) return;
    const Action a = t.cursor.next(t.rng);
    switch (a.kind) {
      case Action::Kind::Run:
        if (!burn_ns(host_.ns_per_loop, a.amount, &stop_)) return;
        break;
      case Action::Kind::Runtime: {
        // CPU time of this thread, whatever else happens on the CPU.
        const u64 until = thread_cpu_ns() + a.amount;
        while (thread_cpu_ns() < until) {
          if (stop_.load(std::memory_order_relaxed)) return;
          burn_loops(64);
        }
        break;
      }
      case Action::Kind::Sleep:
        if (!sleep_until(monotonic_ns() + a.amount)) return;
        break;
      case Action::Kind::Forever:
        while (!stop_.load(std::memory_order_relaxed)) burn_loops(100000);
        return;
      case Action::Kind::Sync:
        if (!do_sync(t, *a.phase)) return;
        break;
      case Action::Kind::Mark:  // rt-app's trace lines: a measurement records no trace
        break;
      case Action::Kind::Exit:
        t.result.exited = true;
        t.result.exit_ns = monotonic_ns() - t0;
        return;
      default:  // Block: the benchmark models' own, which run in RealBench
        return;
    }
  }
}

// CLOCK_REALTIME 50 ms from now: the deadline of one slice of a timed wait.
timespec wait_slice_deadline() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 50'000'000;
  if (ts.tv_nsec >= 1'000'000'000) {
    ts.tv_sec++;
    ts.tv_nsec -= 1'000'000'000;
  }
  return ts;
}

// pthread_cond_timedwait() in slices, so that a stop request is seen; returns false on stop.
// Like rt-app's single pthread_cond_wait(), any wakeup ends the wait.
bool Runner::cond_wait(SyncRes &c, pthread_mutex_t *m) {
  for (;;) {
    if (stop_.load(std::memory_order_relaxed)) return false;
    const timespec ts = wait_slice_deadline();
    if (pthread_cond_timedwait(&c.cond, m, &ts) != ETIMEDOUT) return true;
  }
}

// pthread_mutex_lock() in slices, likewise; records the holder.
bool Runner::lock(SyncRes &m, int tid) {
  for (;;) {
    if (stop_.load(std::memory_order_relaxed)) return false;
    const timespec ts = wait_slice_deadline();
    if (pthread_mutex_timedlock(&m.mtx, &ts) == 0) {
      m.holder.store(tid);
      return true;
    }
  }
}

// rt-app's events between tasks, with real pthread objects and clock_nanosleep(), as
// experiment/simulation.cpp models them. Returns false when the run is stopping.
bool Runner::do_sync(Task &t, const workload::Phase &ph) {
  using K = workload::Phase::Kind;
  SyncRes &r = sync_[ph.res];
  switch (ph.kind) {
    case K::Timer: {
      // The first use starts from the task's start; each use moves the boundary one period on
      // and sleeps until it if it is ahead; after an overrun "relative" restarts from now.
      const bool own = s_.resources[ph.res].per_task;
      u64 next;
      {
        std::lock_guard lock(mu_);
        u64 &n = own ? t.timer_next[ph.res] : r.timer_next;
        if (n == 0) n = t.first_ns;
        n += ph.dist.a;
        next = n;
      }
      if (monotonic_ns() < next) return sleep_until(next);
      if (!ph.absolute) {
        std::lock_guard lock(mu_);
        (own ? t.timer_next[ph.res] : r.timer_next) = monotonic_ns();
      }
      return true;
    }
    case K::Yield:
      sched_yield();
      return true;
    case K::Barrier: {
      pthread_mutex_lock(&r.mtx);
      if (++r.arrived < r.users) {
        const u64 gen = r.generation;
        bool ok = true;
        while (ok && r.generation == gen) ok = cond_wait(r, &r.mtx);
        pthread_mutex_unlock(&r.mtx);
        return ok;
      }
      r.arrived = 0;
      r.generation++;
      pthread_cond_broadcast(&r.cond);
      pthread_mutex_unlock(&r.mtx);
      return true;
    }
    case K::Suspend: {
      pthread_mutex_lock(&r.mtx);
      const bool ok = cond_wait(r, &r.mtx);
      pthread_mutex_unlock(&r.mtx);
      return ok;
    }
    case K::Resume:
      pthread_mutex_lock(&r.mtx);
      pthread_cond_broadcast(&r.cond);
      pthread_mutex_unlock(&r.mtx);
      return true;
    case K::Broadcast:
      pthread_cond_broadcast(&r.cond);
      return true;
    case K::Signal:
      pthread_cond_signal(&r.cond);
      return true;
    case K::Lock:
      return lock(r, t.tid);
    case K::Unlock:
      // As glibc's default mutex: released whoever holds it.
      r.holder.store(0);
      pthread_mutex_unlock(&r.mtx);
      return true;
    case K::Wait:
    case K::Sync: {
      // pthread_cond_wait(condition res, mutex res2): the mutex is taken first if the task
      // does not hold it (the simulator then takes it after the wakeup), and held after.
      SyncRes &m = sync_[ph.res2];
      if (m.holder.load() != t.tid && !lock(m, t.tid)) return false;
      if (ph.kind == K::Sync) pthread_cond_signal(&r.cond);
      m.holder.store(0);
      const bool ok = cond_wait(r, &m.mtx);
      m.holder.store(t.tid);
      if (!ok) {
        m.holder.store(0);
        pthread_mutex_unlock(&m.mtx);
      }
      return ok;
    }
    case K::Run:
    case K::Runtime:
    case K::Sleep:
    case K::Loop:
    case K::Mark:
      break;
  }
  return true;
}

void Runner::body(Task &t) {
  t.tid = sys_gettid();
  setup(t);
  {
    std::unique_lock lock(mu_);
    t.ready = true;
    cv_.notify_all();
    for (;;) {
      cv_.wait(lock, [&] { return t.op || go_ || stop_.load(); });
      if (!t.op) break;
      lock.unlock();
      const int r = t.op();
      lock.lock();
      t.op_result = r;
      t.op = nullptr;
      cv_.notify_all();
    }
  }
  const u64 t0 = t0_;
  if (go_ && sleep_until(t0 + t.start_delay_ns)) {
    t.first_ns = monotonic_ns();
    t.result.start_ns = t.first_ns - t0;
    act(t, t0);
  }
  const int pid = t.process_pid;
  read_task_stats(pid ? "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid)
                      : "/proc/self/task/" + std::to_string(t.tid),
                  t.result);
  if (host_.core_sched) {
    unsigned long cookie = 0;
    if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, static_cast<unsigned long>(pid),
              static_cast<unsigned long>(kPidTypePid), &cookie) == 0)
      t.result.core_cookie = cookie;
  }
  if (pid) t.bench->reap(t.member);
  const u64 end = (t.result.exited ? t.result.exit_ns + t0 : monotonic_ns());
  const u64 life = end > t0 + t.result.start_ns ? end - t0 - t.result.start_ns : 0;
  const u64 busy = t.result.runtime_ns + t.result.wait_ns;
  t.result.sleep_ns = life > busy ? life - busy : 0;
  if (!t.result.exited) t.result.exit_ns = end > t0 ? end - t0 : 0;
  std::lock_guard lock(mu_);
  t.done = true;
  cv_.notify_all();
}

// Runs `op` on t's thread (it is `current` for prctl) and returns its result.
int Runner::call_on(Task &t, std::function<int()> op) {
  std::unique_lock lock(mu_);
  t.op = std::move(op);
  cv_.notify_all();
  cv_.wait(lock, [&] { return !t.op; });
  return t.op_result;
}

Task &Runner::by_name(const std::string &comm) {
  for (Task &t : tasks_)
    if (t.comm == comm) return t;
  throw std::runtime_error("no task named '" + comm + "'");
}

// As experiment/simulation.cpp applies them: shorthands first (the first task of each set
// creates a cookie and shares it to the others), then the prctl() calls, each made by its
// `by` task.
void Runner::apply_cookies() {
  if (!needs_cookies(config_)) return;
  auto prctl_op = [](unsigned long cmd, int pid, int type = kPidTypePid) {
    return [cmd, pid, type] {
      return prctl(PR_SCHED_CORE, cmd, static_cast<unsigned long>(pid),
                   static_cast<unsigned long>(type), 0UL) == 0
                 ? 0
                 : errno;
    };
  };
  auto check = [&](int err, int line) {
    if (err)
      throw Unsupported(s_.file + ":" + std::to_string(line) + ": configuration \"" +
                        config_->name + "\": prctl(PR_SCHED_CORE) failed: " + errno_text(err));
  };
  for (const auto &sh : config_->cookies) {
    std::vector<Task *> members;
    for (Task &t : tasks_)
      if (t.group->name == sh.group) members.push_back(&t);
    const std::size_t per = sh.per > 0 ? static_cast<std::size_t>(sh.per) : members.size();
    for (std::size_t first = 0; first < members.size(); first += per) {
      Task &leader = *members[first];
      check(call_on(leader, prctl_op(PR_SCHED_CORE_CREATE, 0)), sh.line);
      for (std::size_t j = first + 1; j < std::min(first + per, members.size()); j++)
        check(call_on(leader, prctl_op(PR_SCHED_CORE_SHARE_TO, members[j]->tid)), sh.line);
    }
  }
  // A thread_group or process_group scope reaches the members of the scenario's process or
  // process group. Every task here is a thread of one process, so the call is made per member
  // with the same result the kernel's scoped call gives: CREATE makes one new cookie (on the
  // first member, which then shares it to the others), SHARE_TO gives every member the
  // caller's cookie. SHARE_FROM takes no scope: the kernel refuses it, as it is passed on.
  for (const auto &op : config_->prctl) {
    Task &by = by_name(op.by);
    Task &target = op.pid.empty() ? by : by_name(op.pid);
    unsigned long cmd = PR_SCHED_CORE_CREATE;
    if (op.cmd == scenario::PrctlOp::Cmd::ShareTo) cmd = PR_SCHED_CORE_SHARE_TO;
    if (op.cmd == scenario::PrctlOp::Cmd::ShareFrom) cmd = PR_SCHED_CORE_SHARE_FROM;
    const int pid = op.pid.empty() ? 0 : target.tid;
    if (op.scope == scenario::CookieScope::Thread || cmd == PR_SCHED_CORE_SHARE_FROM) {
      const int type = op.scope == scenario::CookieScope::Thread        ? kPidTypePid
                       : op.scope == scenario::CookieScope::ThreadGroup ? kPidTypeTgid
                                                                        : kPidTypePgid;
      check(call_on(by, prctl_op(cmd, pid, type)), op.line);
      continue;
    }
    std::vector<Task *> members;
    for (Task &t : tasks_)
      if (op.scope == scenario::CookieScope::ThreadGroup ? t.process == target.process
                                                         : t.process_group == target.process_group)
        members.push_back(&t);
    Task *from = &by;
    if (cmd == PR_SCHED_CORE_CREATE) {
      from = members.front();
      check(call_on(by, prctl_op(PR_SCHED_CORE_CREATE, from->tid, kPidTypePid)), op.line);
    }
    for (Task *m : members)
      if (m != from)
        check(call_on(*from, prctl_op(PR_SCHED_CORE_SHARE_TO, m->tid, kPidTypePid)), op.line);
  }
}

MeasureResult Runner::run() {
  u64 task_index = 0;
  std::map<std::string, std::size_t> pgrp_first;
  for (const TaskGroupSpec &g : s_.groups) {
    // The kernel runs its own kernel threads; a scenario's stand for them in the model only.
    if (g.kthread) continue;
    // Processes and process groups as experiment/simulation.cpp assigns them: every
    // threads_per_process tasks of a group (default: all) are one process, one per task for
    // models of processes (hackbench's process mode); groups naming one pgrp share it.
    int per = g.threads_per_process > 0 ? g.threads_per_process : g.count;
    if (g.bench.kind == workload::Benchmark::Kind::Hackbench && !g.bench.hackbench.threads) per = 1;
    const std::size_t pgrp =
        pgrp_first.emplace(g.pgrp.empty() ? g.name : g.pgrp, tasks_.size()).first->second;
    RealBench *bench = nullptr;
    if (g.bench.kind != workload::Benchmark::Kind::None) {
      benches_.push_back(make_real_bench(g.bench, g.name, g.count, host_.ns_per_loop));
      bench = benches_.back().get();
      if (!bench)
        throw Unsupported("measure: task group " + g.name + " uses " +
                          real_bench_unsupported(g.bench));
    }
    for (int i = 0; i < g.count; i++, task_index++) {
      Task &t = tasks_.emplace_back();
      t.comm = scenario::task_name(g, i);
      t.group = &g;
      t.rng = sim::Stream(s_.seed, {kStreamPhases, task_index});
      sim::Stream start_rng(s_.seed, {kStreamStart, task_index});
      t.start_delay_ns = workload::draw(g.start, start_rng);
      t.cursor = workload::Cursor(&g.phases, g.loops, g.stress);
      t.result.comm = t.comm;
      t.result.finite = bench ? !bench->infinite() : !g.stress && g.loops != 0;
      t.bench = bench;
      t.member = i;
      t.process = i % per == 0 ? tasks_.size() - 1 : tasks_[tasks_.size() - 2].process;
      t.process_group = pgrp;
    }
  }
  // rt-app counts a barrier's users at parse time: every use of its name in a thread's events.
  for (std::size_t i = 0; i < s_.resources.size(); i++) sync_.emplace_back();
  for (Task &t : tasks_) {
    t.timer_next.assign(s_.resources.size(), 0);
    if (!t.bench) count_barrier_uses(t.group->phases, sync_);
  }
  std::vector<std::thread> threads;
  threads.reserve(tasks_.size());
  for (Task &t : tasks_) threads.emplace_back([this, &t] { body(t); });
  auto stop_and_join = [&] {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    for (auto &b : benches_) b->abort();
    for (SyncRes &r : sync_) pthread_cond_broadcast(&r.cond);
    for (auto &th : threads) th.join();
  };
  std::string setup_error;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] {
      for (const Task &t : tasks_)
        if (!t.ready) return false;
      return true;
    });
    for (const Task &t : tasks_)
      if (!t.setup_error.empty() && setup_error.empty()) setup_error = t.setup_error;
  }
  if (!setup_error.empty()) {
    stop_and_join();
    throw std::runtime_error(setup_error);
  }
  try {
    apply_cookies();
  } catch (...) {
    stop_and_join();
    throw;
  }

  MeasureResult r;
  r.scenario = s_.name;
  r.config = config_ ? config_->name : "default";
  r.seed = s_.seed;
  r.loadavg_1min = loadavg_1min();
  const std::optional<u64> busy0 = host_busy_ns();
  const std::optional<Schedstat> schedstat0 = read_schedstat(r.schedstat_unavailable);
  {
    std::lock_guard lock(mu_);
    t0_ = monotonic_ns();
    go_ = true;
    cv_.notify_all();
  }
  // The run ends when every finite task is done, at the scenario's duration, or on Ctrl-C.
  // This thread is no task of the scenario: it sleeps until a task finishes (body() notifies),
  // the duration ends, or the next look at the interrupt flag, which a signal handler sets and
  // cannot notify. Polling instead (every 2 ms) woke it about 330 times a second on the twin, an
  // untagged task preempting the workload and forcing cookied siblings idle.
  constexpr u64 kInterruptCheckNs = 100'000'000;
  {
    std::unique_lock lock(mu_);
    for (;;) {
      if (interrupt_.load()) {
        r.interrupted = true;
        break;
      }
      const u64 now = monotonic_ns();
      if (s_.duration_ns && now >= t0_ + s_.duration_ns) break;
      bool finite_left = false, any_finite = false;
      for (const Task &t : tasks_) {
        any_finite |= t.result.finite;
        finite_left |= t.result.finite && !t.done;
      }
      if (any_finite && !finite_left) break;
      u64 wake = now + kInterruptCheckNs;
      if (s_.duration_ns) wake = std::min(wake, t0_ + s_.duration_ns);
      cv_.wait_for(lock, std::chrono::nanoseconds(wake - now));
    }
  }
  r.end_ns = monotonic_ns() - t0_;
  if (const std::optional<u64> busy1 = host_busy_ns(); busy0 && busy1 && *busy1 >= *busy0)
    r.host_busy_ns = *busy1 - *busy0;
  if (schedstat0) {
    if (const std::optional<Schedstat> schedstat1 = read_schedstat(r.schedstat_unavailable)) {
      try {
        r.schedstat = schedstat_delta(*schedstat0, *schedstat1);
      } catch (const SchedstatError &e) {
        r.schedstat_unavailable = e.what();
      }
    }
  }
  stop_and_join();
  for (const Task &t : tasks_) {
    r.tasks.push_back(t.result);
    r.tasks.back().tid = t.process_pid ? t.process_pid : t.tid;
    if (t.result.exited && t.result.finite)
      r.completion_ns = std::max(r.completion_ns, t.result.exit_ns);
  }
  for (const auto &b : benches_) {
    b->report(r.bench);
    if (const std::string e = b->error(); !e.empty()) warnings_.push_back(e);
  }
  // Forced idle charged to each VM's tasks (core_forceidle_sum), as the simulator reports it.
  for (auto &v : r.bench.vms)
    for (const Task &t : tasks_)
      if (t.group->name == v.name) v.forceidle_ns += t.result.core_forceidle_sum_ns.value_or(0);
  r.warnings = warnings_;
  return r;
}

}  // namespace

HostInfo probe_host(const std::string &sysfs_root) {
  HostInfo h;
  try {
    const HostTopology t = read_host_topology(sysfs_root);
    h.machine = t.spec;
    h.described = true;
    h.nr_cpus = static_cast<int>(t.cpus.size());
  } catch (const HostTopologyError &) {
    h.nr_cpus = static_cast<int>(std::thread::hardware_concurrency());
  }
  utsname u{};
  if (uname(&u) == 0) h.kernel_release = u.release;
  unsigned long cookie = 0;
  if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0UL, static_cast<unsigned long>(kPidTypePid),
            &cookie) == 0) {
    h.core_sched = true;
  } else if (errno == ENODEV) {
    h.core_sched_why = "this machine has no SMT (prctl(PR_SCHED_CORE) fails with ENODEV)";
  } else if (errno == EINVAL) {
    h.core_sched_why =
        "this kernel has no core scheduling (prctl(PR_SCHED_CORE) fails with EINVAL: "
        "built without CONFIG_SCHED_CORE)";
  } else {
    h.core_sched_why = "prctl(PR_SCHED_CORE) fails with " + errno_text(errno);
  }
  if (h.core_sched && h.described && h.machine.threads_per_core == 1) {
    h.core_sched = false;
    h.core_sched_why = "this machine has no SMT (one thread per core)";
  }
  return h;
}

void check_supported(const Scenario &s, const ConfigSpec *config, const HostInfo &host) {
  for (const TaskGroupSpec &g : s.groups) {
    if (g.kthread) continue;  // not started: the kernel has its own
    if (const std::string why = real_bench_unsupported(g.bench); !why.empty())
      throw Unsupported("measure: task group " + g.name + " uses " + why);
    for (int c : g.cpus)
      if (c >= host.nr_cpus)
        throw Unsupported("measure: task group " + g.name + " is bound to cpu " +
                          std::to_string(c) + ", which this host does not have (" +
                          std::to_string(host.nr_cpus) + " CPUs)");
  }
  if (!needs_cookies(config)) return;
  if (!host.core_sched)
    throw Unsupported("measure: configuration \"" + config->name +
                      "\" skipped: it sets core-scheduling cookies, and " + host.core_sched_why);
}

MeasureResult run_measure(const Scenario &s, const ConfigSpec *config, const HostInfo &host,
                          const std::atomic<bool> &interrupt) {
  Runner r(s, config, host, interrupt);
  return r.run();
}

}  // namespace schedlab::real
