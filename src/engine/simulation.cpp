// SPDX-License-Identifier: GPL-2.0-only
#include "engine/simulation.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <map>
#include <stdexcept>

namespace schedlab::engine {

using kernel::task_struct;
using workload::Action;

static int policy_of(scenario::Policy p) {
  switch (p) {
    case scenario::Policy::Batch:
      return SCHED_BATCH;
    case scenario::Policy::Idle:
      return SCHED_IDLE;
    case scenario::Policy::Normal:
      break;
  }
  return kernel::SCHED_NORMAL;
}

// Stream purposes: each task has one stream per purpose, so adding a purpose never shifts
// the values another one sees.
// Kernel threads draw from purposes of their own, indexed among the kernel threads: adding
// them leaves every workload task's streams (and so the twin's, which does not start them)
// unchanged.
enum StreamPurpose : u64 {
  kStreamPhases = 1,
  kStreamStart = 2,
  kStreamChild = 3,
  kStreamKthreadPhases = 4,
  kStreamKthreadStart = 5,
};

Simulation::Simulation(const scenario::Scenario &s, const std::string &config_name,
                       const kernel::KernelConfig &cfg, u64 seed)
    : s_(s), config_name_(config_name), seed_(seed), cfg_(cfg), topo_(s.topology) {
  kernel_ = std::make_unique<kernel::Kernel>(topo_, s.costs, cfg_, events_);
  kernel_->seed_random(seed);
  kernel_->set_hooks(this);
  metrics_ = std::make_unique<observe::Metrics>(topo_.nr_cpus());
  kernel_->add_tracer(metrics_.get());

  exec_.resize(static_cast<std::size_t>(topo_.nr_cpus()));
  for (int c = 0; c < topo_.nr_cpus(); c++)
    exec_[static_cast<std::size_t>(c)].done_timer =
        events_.make_timer(EV_WORK_DONE, static_cast<u32>(c));

  u64 task_index = 0, kthread_index = 0;
  for (const auto &g : s.groups) {
    if (g.kthread && !cfg_.kthreads) {
      kthread_index += static_cast<u64>(g.count);  // the others keep their streams
      continue;
    }
    workload::Model *model = nullptr;
    if (g.bench.kind != workload::Benchmark::Kind::None) {
      ModelInst mi;
      mi.model = workload::make_model(g.bench, topo_.nr_cpus(), g.count);
      if (!mi.model || mi.model->members() != g.count)
        throw std::invalid_argument(s.file + ": group '" + g.name +
                                    "': benchmark task count does not match the group's count");
      mi.env = std::make_unique<ModelEnv>(this, work_.size());
      mi.group = &g;
      mi.base = work_.size();
      model = mi.model.get();
      models_.push_back(std::move(mi));
    }
    CpuMask allowed(topo_.nr_cpus());
    if (g.cpus.empty())
      allowed = topo_.all();
    else
      for (int c : g.cpus) allowed.set(c);
    for (int i = 0; i < g.count; i++) {
      std::string comm = scenario::task_name(g, i);
      if (g.per_cpu) {
        allowed = CpuMask(topo_.nr_cpus());
        allowed.set(i);
      }
      if (model && !model->comm(i).empty()) comm = model->comm(i);
      const u64 index = g.kthread ? kthread_index++ : task_index++;
      const u64 phases_purpose = g.kthread ? kStreamKthreadPhases : kStreamPhases;
      const u64 start_purpose = g.kthread ? kStreamKthreadStart : kStreamStart;
      TaskWork w;
      w.p = kernel_->create_task(comm, g.nice, policy_of(g.policy), allowed);
      // MODEL: a kernel thread only sleeps and runs as its phases say (docs/model.md, 33).
      w.p->kthread = g.kthread;
      w.group = &g;
      w.finite = !g.stress && g.loops != 0;
      bool dormant = false;
      if (model) {
        w.finite = !model->infinite();
        dormant = model->dormant(i);
        w.model = model;
        w.member = i;
        w.model_idx = models_.size() - 1;
      }
      // Streams are keyed by the task's index in the scenario, not by pid or configuration:
      // every configuration sees the same demands.
      w.rng = sim::Stream(seed, {phases_purpose, index});
      sim::Stream start_rng(seed, {start_purpose, index});
      const Time start = workload::draw(g.start, start_rng);
      w.first = start;
      w.act = Action{Action::Kind::Run, 0};  // a new thread runs briefly before its first phase
      w.wake_timer = events_.make_timer(EV_TASK_WAKE, static_cast<u32>(work_.size()));
      w.start_timer = events_.make_timer(EV_TASK_START, static_cast<u32>(work_.size()));
      // A dormant member (a halted vCPU) is created but never started.
      if (!dormant) events_.arm(w.start_timer, start);
      if (w.finite) finite_left_++;
      work_.push_back(std::move(w));
    }
  }
  for (auto &w : work_)
    if (!w.model) w.cursor = workload::Cursor(&w.group->phases, w.group->loops, w.group->stress);
  init_sync();
  assign_processes();
  apply_cookies();
}

// Thread groups and process groups, as the scenario declares them: a process's tgid is the pid
// of its first thread, a process group's pgid the pid of its first task.
void Simulation::assign_processes() {
  std::map<std::string, int> pgid_of;
  std::size_t i = 0;
  for (const auto &g : s_.groups) {
    if (g.kthread && !cfg_.kthreads) continue;  // not created
    const std::string pgrp = g.pgrp.empty() ? g.name : g.pgrp;
    int per = g.threads_per_process > 0 ? g.threads_per_process : g.count;
    if (g.kthread) per = 1;  // every kernel thread is a process of its own
    if (i < work_.size() && work_[i].model && work_[i].model->one_process_per_task()) per = 1;
    int tgid = 0;
    for (int t = 0; t < g.count; t++, i++) {
      task_struct *p = work_[i].p;
      if (t % per == 0) tgid = p->pid;
      p->tgid = tgid;
      p->pgid = pgid_of.emplace(pgrp, p->pid).first->second;
    }
  }
}

static const char *errno_name(int err) {
  switch (-err) {
    case ENODEV:
      return "ENODEV";
    case EINVAL:
      return "EINVAL";
    case ESRCH:
      return "ESRCH";
    case ENOMEM:
      return "ENOMEM";
    case EPERM:
      return "EPERM";
  }
  return "error";
}

// The configuration's cookies, set before any task starts: shorthands first (the first task
// of each set creates a cookie and shares it to the others, as a benchmark would), then the
// explicit prctl() calls in order.
void Simulation::apply_cookies() {
  const scenario::ConfigSpec *spec = nullptr;
  for (const auto &c : s_.configs)
    if (c.name == config_name_) spec = &c;
  if (!spec) return;
  kernel::Kernel &k = *kernel_;
  using K = kernel::Kernel;
  auto call = [&](unsigned cmd, task_struct *target, int type, task_struct *current, int line) {
    const int err = k.sched_core_share_pid(cmd, target, type, current);
    if (err)
      throw std::invalid_argument(s_.file + ":" + std::to_string(line) + ": configuration \"" +
                                  config_name_ +
                                  "\": prctl(PR_SCHED_CORE) failed: " + errno_name(err));
  };
  for (const auto &sh : spec->cookies) {
    std::vector<task_struct *> members;
    for (const auto &w : work_)
      if (w.group->name == sh.group) members.push_back(w.p);
    const std::size_t per = sh.per > 0 ? static_cast<std::size_t>(sh.per) : members.size();
    for (std::size_t first = 0; first < members.size(); first += per) {
      task_struct *leader = members[first];
      call(K::PR_SCHED_CORE_CREATE, leader, K::PIDTYPE_PID, leader, sh.line);
      for (std::size_t j = first + 1; j < std::min(first + per, members.size()); j++)
        call(K::PR_SCHED_CORE_SHARE_TO, members[j], K::PIDTYPE_PID, leader, sh.line);
    }
  }
  auto by_name = [&](const std::string &comm) -> task_struct * {
    for (const auto &w : work_)
      if (w.p->comm == comm) return w.p;
    throw std::invalid_argument(s_.file + ": no task named '" + comm + "'");
  };
  for (const auto &op : spec->prctl) {
    task_struct *current = by_name(op.by);
    task_struct *target = op.pid.empty() ? current : by_name(op.pid);
    unsigned cmd = K::PR_SCHED_CORE_CREATE;
    if (op.cmd == scenario::PrctlOp::Cmd::ShareTo) cmd = K::PR_SCHED_CORE_SHARE_TO;
    if (op.cmd == scenario::PrctlOp::Cmd::ShareFrom) cmd = K::PR_SCHED_CORE_SHARE_FROM;
    int type = K::PIDTYPE_PID;
    if (op.scope == scenario::CookieScope::ThreadGroup) type = K::PIDTYPE_TGID;
    if (op.scope == scenario::CookieScope::ProcessGroup) type = K::PIDTYPE_PGID;
    call(cmd, target, type, current, op.line);
  }
}

Simulation::~Simulation() = default;

u32 Simulation::speed_of(int cpu) const {
  const CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
  if (!e.w || e.w->act.kind != Action::Kind::Run) return kSpeedOne;
  // Whether a sibling runs is as good as random to the branch predictor: no branch per one.
  bool corun = false;
  for (const int s : topo_.smt_cpus(cpu)) {
    const bool busy = exec_[static_cast<std::size_t>(s)].w != nullptr;
    corun |= (s != cpu) & busy;
  }
  return corun ? s_.costs.smt_corun_speed : kSpeedOne;
}

void Simulation::settle(int cpu) {
  CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
  if (!e.w || now_ <= e.seg_start) return;
  if (e.w->act.kind == Action::Kind::Run || e.w->act.kind == Action::Kind::Runtime) {
    const u64 done =
        e.speed == kSpeedOne
            ? now_ - e.seg_start
            : static_cast<u64>((static_cast<unsigned __int128>(now_ - e.seg_start) * e.speed) >>
                               16);
    e.w->remaining -= done < e.w->remaining ? done : e.w->remaining;
  }
  e.seg_start = now_;
}

void Simulation::arm_done(int cpu) {
  CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
  if (!e.w || e.w->act.kind == Action::Kind::Forever) {
    events_.cancel(e.done_timer);
    return;
  }
  // At full speed the work takes its own length: no 128-bit division on the common path.
  const u64 ns =
      e.speed == kSpeedOne
          ? e.w->remaining
          : static_cast<u64>(
                ((static_cast<unsigned __int128>(e.w->remaining) << 16) + e.speed - 1) / e.speed);
  events_.arm(e.done_timer, e.seg_start + ns);
}

void Simulation::cpu_switched(int cpu, task_struct *prev, task_struct *next) {
  settle(cpu);
  CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
  // MODEL: newidle balancing's CPU time delays the next task on this CPU (docs/model.md).
  const Time stall = kernel_->cpu_rq(cpu)->newidle_stall_ns;
  kernel_->cpu_rq(cpu)->newidle_stall_ns = 0;
  if (!prev->is_idle_task) {
    TaskWork &pw = work_[static_cast<std::size_t>(prev->pid - 1)];
    if (pw.model) pw.model->switched_out(pw.member, now_);
  }
  e.w = next->is_idle_task ? nullptr : &work_[static_cast<std::size_t>(next->pid - 1)];
  if (e.w) {
    // Cache refill after a move to another core (same LLC) or another LLC: extra work.
    const int last = next->last_ran_cpu;
    if (last >= 0 && e.w->act.kind == Action::Kind::Run &&
        topo_.cpu(last).core != topo_.cpu(cpu).core) {
      e.w->remaining += topo_.cpu(last).llc == topo_.cpu(cpu).llc
                            ? s_.costs.migration_penalty_ns
                            : s_.costs.cross_llc_migration_penalty_ns;
    }
    next->last_ran_cpu = cpu;
    // The switch, and any newidle balancing this CPU did just before, take CPU time first.
    e.seg_start = now_ + s_.costs.context_switch_ns + stall;
    if (e.w->model) e.w->model->switched_in(e.w->member, e.seg_start);
  }
  // The siblings' speed changes when this CPU turns busy or idle.
  if (prev->is_idle_task != next->is_idle_task) {
    for (const int sib : topo_.smt_cpus(cpu)) {
      if (sib == cpu || !exec_[static_cast<std::size_t>(sib)].w) continue;
      settle(sib);
      exec_[static_cast<std::size_t>(sib)].speed = speed_of(sib);
      arm_done(sib);
    }
  }
  e.speed = speed_of(cpu);
  arm_done(cpu);
}

void Simulation::write_marks(int cpu) {
  for (const std::string &line : marks_) kernel_->trace_marker_write(cpu, line);
  marks_.clear();
}

void Simulation::work_done(int cpu) {
  CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
  assert(e.w);
  TaskWork &w = *e.w;
  w.remaining = 0;
  e.seg_start = std::max(e.seg_start, now_);
  if (w.rtlog && !w.rtlog->started()) [[unlikely]] {
    // rt-app's thread starts: its first line (thread 0 writes the clock reference first).
    w.rtlog->task_start(now_, &w == &work_.front(), marks_);
    write_marks(cpu);
  }
  for (;;) {
    Action a;
    if (w.retry) {
      a = Action{Action::Kind::Sync, 0, w.retry};
      w.retry = nullptr;
    } else {
      a = w.model ? w.model->next(w.member, cpu, w.rng, *models_[w.model_idx].env)
                  : w.cursor.next(w.rng);
    }
    switch (a.kind) {
      case Action::Kind::Run:
      case Action::Kind::Runtime:
        if (a.amount == 0) continue;
        w.act = a;
        w.remaining = a.amount;
        e.speed = speed_of(cpu);
        arm_done(cpu);
        return;
      case Action::Kind::Forever:
        w.act = a;
        arm_done(cpu);
        return;
      case Action::Kind::Sleep: {
        w.act = Action{Action::Kind::Run, 0};
        w.p->__state = kernel::TASK_INTERRUPTIBLE;
        // hrtimer with the task's slack: an isolated timer fires at the end of its range.
        const Time slack = static_cast<Time>(cfg_.tunables[kernel::TUNABLE_timer_slack_ns]);
        events_.arm(w.wake_timer, now_ + a.amount + slack);
        kernel_->hrtimer_start(cpu, now_ + a.amount + slack);
        kernel_->block_current(cpu);
        return;
      }
      case Action::Kind::Block:
        // Waits for a wakeup from another task (a pipe, a futex, wait(2)): no timer.
        w.act = Action{Action::Kind::Run, 0};
        w.p->__state = kernel::TASK_INTERRUPTIBLE;
        kernel_->block_current(cpu);
        return;
      case Action::Kind::Sync:
        if (do_sync(w, cpu, *a.phase)) return;
        continue;
      case Action::Kind::Mark:
        if (w.rtlog) {
          w.rtlog->mark(now_, s_.marks[a.phase->res], marks_);
          write_marks(cpu);
        }
        continue;
      case Action::Kind::Exit:
        if (w.rtlog) {
          w.rtlog->task_end(now_, marks_);
          write_marks(cpu);
        }
        w.act = Action{Action::Kind::Exit, 0};
        finite_left_--;
        if (w.parent >= 0) {  // exit_notify(): the parent hears of it from this CPU
          TaskWork &pw = work_[static_cast<std::size_t>(w.parent)];
          pw.model->child_exited(pw.member, cpu, *models_[pw.model_idx].env);
        }
        kernel_->do_exit(cpu);
        return;
    }
  }
}

void Simulation::handle(const sim::EventQueue::Fired &f) {
  switch (f.kind) {
    case kernel::EV_TICK:
    case kernel::EV_TICK_REMOTE:
    case kernel::EV_IPI:
      kernel_->handle_event(f.kind, f.arg);
      break;
    case EV_TASK_START:
      // MODEL: tasks are forked by a launcher on CPU 0 that takes no CPU time itself.
      kernel_->wake_up_new_task(work_[f.arg].p, 0);
      break;
    case EV_TASK_WAKE: {
      task_struct *p = work_[f.arg].p;
      kernel_->irq_enter();  // hrtimer_wakeup() runs in the timer interrupt
      kernel_->hrtimer_expired(p->timer_cpu, now_);
      kernel_->try_to_wake_up(p, 0, p->timer_cpu);
      kernel_->irq_exit();
      break;
    }
    case EV_WORK_DONE:
      work_done(static_cast<int>(f.arg));
      break;
    default:
      assert(false && "unknown event");
  }
}

void Simulation::ModelEnv::wake(int member, int wake_flags, int cpu) {
  task_struct *p = sim_->work_[base_ + static_cast<std::size_t>(member)].p;
  sim_->kernel_->try_to_wake_up(p, wake_flags, cpu);
}

// fork(): copy_process() (the child inherits the parent's affinity, nice, policy, process
// group and core-scheduling cookie, in a process of its own), then wake_up_new_task() from the
// parent's CPU. The child runs `child_run` of CPU work and exits.
void Simulation::ModelEnv::fork_child(int member, Time child_run, int cpu) {
  Simulation &sm = *sim_;
  const std::size_t pidx = base_ + static_cast<std::size_t>(member);
  task_struct *parent = sm.work_[pidx].p;
  const scenario::TaskGroupSpec *g = sm.work_[pidx].group;
  task_struct *child = sm.kernel_->create_task(parent->comm + "-c", g->nice, policy_of(g->policy),
                                               parent->cpus_mask);
  assert(static_cast<std::size_t>(child->pid) == sm.work_.size() + 1);
  child->tgid = child->pid;
  child->pgid = parent->pgid;
  sm.kernel_->sched_core_fork(child, parent);
  auto &prog = sm.child_programs_.emplace_back();
  prog.push_back(workload::Phase{workload::Phase::Kind::Run,
                                 workload::Dist{workload::Dist::Kind::Const, child_run, 0},
                                 0,
                                 {}});
  TaskWork w;
  w.p = child;
  w.group = g;
  w.finite = true;
  w.parent = static_cast<std::ptrdiff_t>(pidx);
  w.rng = sim::Stream(sm.seed_, {kStreamChild, sm.forks_++});
  w.cursor = workload::Cursor(&prog, 1, false);
  w.act = Action{Action::Kind::Run, 0};
  w.wake_timer = sm.events_.make_timer(EV_TASK_WAKE, static_cast<u32>(sm.work_.size()));
  w.start_timer = sm.events_.make_timer(EV_TASK_START, static_cast<u32>(sm.work_.size()));
  sm.finite_left_++;
  sm.work_.push_back(std::move(w));
  sm.kernel_->wake_up_new_task(child, cpu);
}

void Simulation::enable_check(Time wasted_threshold) {
  if (checker_) return;
  checker_ = std::make_unique<observe::InvariantChecker>(*kernel_, s_.costs, wasted_threshold);
  kernel_->add_tracer(checker_.get());
}

RunResult Simulation::run() {
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r;
  r.scenario = s_.name;
  r.config = config_name_;
  r.seed = seed_;
  r.kernel = cfg_;
  u64 nr = 0;
  const Time limit = s_.duration_ns ? s_.duration_ns : kTimeNever;
  bool any_finite = finite_left_ > 0;
  // The event count at which to look at the stop flag and the event limit next.
  u64 check_at = ~u64{0};
  if (stop_) check_at = kStopPollEvents;
  if (max_events_) check_at = std::min(check_at, max_events_);
  // rt-app's ftrace log, when the file asks for it and a trace takes it. MODEL: rt-app's main
  // thread is not simulated (a launcher that takes no CPU time forks the tasks): its lines are
  // written on CPU 0, by whatever CPU 0 runs.
  const bool rtapp_log = s_.rtapp_log.categories != 0 && kernel_->traces_print();
  const bool rtapp_main = rtapp_log && (s_.rtapp_log.categories & workload::kRtappMain);
  if (rtapp_log)
    for (TaskWork &w : work_)
      if (!w.model) w.rtlog = std::make_unique<workload::RtappLog>(s_.rtapp_log);
  if (rtapp_main) kernel_->trace_marker_write(0, workload::rtapp_main_line("start"));
  while (!events_.empty()) {
    if (any_finite && finite_left_ == 0) break;
    if (events_.next_time() > limit) break;
    if (nr >= check_at) [[unlikely]] {
      if (max_events_ && nr >= max_events_) {
        r.stop = RunResult::Stop::EventLimit;
        break;
      }
      if (stop_ && stop_->load(std::memory_order_relaxed)) {
        r.stop = RunResult::Stop::Interrupted;
        break;
      }
      check_at = stop_ ? nr + kStopPollEvents : ~u64{0};
      if (max_events_) check_at = std::min(check_at, max_events_);
    }
    const auto f = events_.pop();
    now_ = f.time;
    kernel_->set_clock(now_);
    handle(f);
    kernel_->run_preempt_points();
    if (after_event_) after_event_(*kernel_, now_);
    if (checker_) checker_->after_event(now_);
    nr++;
  }
  if (events_.empty() && finite_left_ > 0)
    for (const auto &w : work_)
      if (w.finite && w.act.kind != Action::Kind::Exit) r.stuck_tasks.push_back(w.p->comm);
  const Time end = (any_finite && finite_left_ == 0) || r.stop != RunResult::Stop::None
                       ? now_
                       : (s_.duration_ns ? s_.duration_ns : now_);
  now_ = end;
  if (rtapp_main) {
    // rt-app's main thread: "shutdown" when the duration ends the run, then "end" once the
    // threads are gone (cancelled ones write no more lines).
    kernel_->set_clock(end);
    if (r.stop == RunResult::Stop::None && !(any_finite && finite_left_ == 0) && s_.duration_ns)
      kernel_->trace_marker_write(0, workload::rtapp_main_line("shutdown"));
    kernel_->trace_marker_write(0, workload::rtapp_main_line("end"));
  }
  std::vector<const task_struct *> tasks;
  for (const auto &w : work_) tasks.push_back(w.p);
  r.metrics = metrics_->finish(end, tasks);
  if (checker_) {
    checker_->finish(end, &r.metrics);
    r.check = checker_->report();
  }
  r.events = nr;
  r.sis = kernel_->sis_stats();
  for (int cpu = 0; cpu < topo_.nr_cpus(); cpu++) {
    const kernel::rq *rq = kernel_->cpu_rq(cpu);
    RunResult::CpuSched cs;
    for (std::size_t i = 0; i < NR_RUN_STATS; i++)
      if (kStatistics[i].field) cs.stat[i] = rq->*kStatistics[i].field;
    for (int t = 0; t < 3; t++) {
      cs.lb_count_by_idle[static_cast<std::size_t>(t)] = rq->lb_count_by_idle[t];
      cs.lb_gained_by_idle[static_cast<std::size_t>(t)] = rq->lb_gained_by_idle[t];
    }
    cs.ticks = rq->nr_ticks;
    cs.remote_ticks = rq->nr_remote_ticks;
    cs.avg_idle_ns = rq->avg_idle;
    cs.avg_idle_updates = rq->avg_idle_samples;
    cs.mean_avg_idle_ns = rq->avg_idle_samples ? static_cast<double>(rq->avg_idle_sum) /
                                                     static_cast<double>(rq->avg_idle_samples)
                                               : 0.0;
    r.sched.push_back(cs);
  }
  for (const auto &mi : models_) {
    mi.model->finish(end);
    const std::size_t before = r.bench.vms.size();
    mi.model->report(r.bench);
    if (r.bench.vms.size() == before + 1) {  // a VM: its name and its tasks' forced idle time
      workload::BenchReport::Vm &v = r.bench.vms.back();
      v.name = mi.group->name;
      for (int m = 0; m < mi.model->members(); m++)
        v.forceidle_ns += work_[mi.base + static_cast<std::size_t>(m)].p->core_forceidle_sum;
    }
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace schedlab::engine
