// SPDX-License-Identifier: GPL-2.0-only
// rt-app's events between tasks, as the simulated tasks' user side carries them out: mutexes,
// barriers, condition variables, suspend/resume and timers, each blocking or waking through
// the kernel as glibc's futex-based primitives would.
#include <algorithm>
#include <cassert>

#include "engine/simulation.h"

namespace schedlab::engine {

using workload::Action;

static void count_barriers(const std::vector<workload::Phase> &phases, std::vector<u64> &uses) {
  for (const workload::Phase &ph : phases) {
    if (ph.kind == workload::Phase::Kind::Loop) count_barriers(ph.body, uses);
    if (ph.kind == workload::Phase::Kind::Barrier) uses[ph.res]++;
  }
}

void Simulation::init_sync() {
  const std::size_t nr = s_.resources.size();
  if (nr == 0) return;
  sync_.resize(nr);
  relock_.resize(nr);
  for (std::size_t r = 0; r < nr; r++) {
    relock_[r].kind = workload::Phase::Kind::Lock;
    relock_[r].res = static_cast<std::uint32_t>(r);
    // Reserved once, so that blocking never allocates.
    sync_[r].waiters.reserve(work_.size());
  }
  // rt-app counts a barrier's users at parse time: every use of its name in a thread's events,
  // once per instance (not per loop iteration).
  std::vector<u64> uses(nr);
  for (TaskWork &w : work_) {
    if (w.model) continue;
    w.timer_next.assign(nr, kTimeNever);
    std::fill(uses.begin(), uses.end(), 0);
    count_barriers(w.group->phases, uses);
    for (std::size_t r = 0; r < nr; r++) sync_[r].users += uses[r];
  }
}

// The running task blocks until a sync_wake(); `queue` is where it waits (nullptr: it is
// already queued).
void Simulation::sync_block(TaskWork &w, int cpu, std::vector<std::size_t> *queue) {
  if (queue) queue->push_back(static_cast<std::size_t>(w.p->pid - 1));
  w.act = Action{Action::Kind::Run, 0};
  w.p->__state = kernel::TASK_INTERRUPTIBLE;
  kernel_->block_current(cpu);
}

// A futex wakeup (FUTEX_WAKE: try_to_wake_up without WF_SYNC) by the task running on cpu.
void Simulation::sync_wake(std::size_t idx, int cpu) {
  kernel_->try_to_wake_up(work_[idx].p, 0, cpu);
}

// pthread_mutex_unlock(): the mutex is free and one waiter is woken to retry; a task that gets
// there first takes it (no hand-over, as with glibc's futex mutex).
void Simulation::mutex_release(SyncState &m, int cpu) {
  m.holder = -1;
  if (m.waiters.empty()) return;
  const std::size_t idx = m.waiters.front();
  m.waiters.erase(m.waiters.begin());
  sync_wake(idx, cpu);
}

// Carries out a synchronisation phase for the task running on cpu; returns true when the task
// left the CPU or has a new action (work_done must stop), false to go on to the next action.
// MODEL: the calls themselves take no CPU time, and the internal mutex rt-app takes around
// suspend, resume and barrier is held for no time, so it is not contended.
bool Simulation::do_sync(TaskWork &w, int cpu, const workload::Phase &ph) {
  using K = workload::Phase::Kind;
  const auto self = static_cast<std::ptrdiff_t>(w.p->pid - 1);
  switch (ph.kind) {
    case K::Timer: {
      // rt-app: the first use starts from the thread's start (t_first); every use moves the
      // boundary one period on and sleeps until it, if it is still ahead. After an overrun
      // "relative" restarts from now, "absolute" keeps the old grid.
      Time &next = s_.resources[ph.res].per_task ? w.timer_next[ph.res] : sync_[ph.res].next;
      if (next == kTimeNever) next = w.first;
      next += ph.dist.a;
      if (w.rtlog) w.rtlog->timer(now_, next, now_ < next);
      if (now_ < next) {
        w.act = Action{Action::Kind::Run, 0};
        w.p->__state = kernel::TASK_INTERRUPTIBLE;
        // clock_nanosleep(TIMER_ABSTIME): an hrtimer with the task's slack, like Sleep.
        const Time slack = static_cast<Time>(cfg_.tunables[kernel::TUNABLE_timer_slack_ns]);
        events_.arm(w.wake_timer, next + slack);
        kernel_->hrtimer_start(cpu, next + slack);
        kernel_->block_current(cpu);
        return true;
      }
      if (!ph.absolute) next = now_;
      return false;
    }
    case K::Yield: {
      w.act = Action{Action::Kind::Run, 0};
      w.remaining = 0;
      kernel_->sys_sched_yield(cpu);
      CpuExec &e = exec_[static_cast<std::size_t>(cpu)];
      if (e.w != &w) return true;  // switched out: it goes on when it runs again
      // Picked again at once: it goes on after the system call.
      // MODEL: a sched_yield() that does not switch costs one context switch of CPU time
      // (the system call and schedule()), which also keeps a yield-only loop moving in time.
      w.act = Action{Action::Kind::Runtime, s_.costs.context_switch_ns};
      w.remaining = s_.costs.context_switch_ns;
      e.speed = speed_of(cpu);
      arm_done(cpu);
      return true;
    }
    case K::Barrier: {
      SyncState &b = sync_[ph.res];
      if (++b.arrived < b.users) {
        sync_block(w, cpu, &b.waiters);
        return true;
      }
      // The last user releases everyone (pthread_cond_broadcast) and goes on.
      b.arrived = 0;
      for (std::size_t idx : b.waiters) sync_wake(idx, cpu);
      b.waiters.clear();
      return false;
    }
    case K::Suspend:
      sync_block(w, cpu, &sync_[ph.res].waiters);
      return true;
    case K::Resume:
    case K::Broadcast: {
      // pthread_cond_broadcast(); nobody waiting: the wakeup is lost, as in rt-app.
      SyncState &c = sync_[ph.res];
      for (std::size_t idx : c.waiters) sync_wake(idx, cpu);
      c.waiters.clear();
      return false;
    }
    case K::Signal: {
      SyncState &c = sync_[ph.res];
      if (!c.waiters.empty()) {
        const std::size_t idx = c.waiters.front();
        c.waiters.erase(c.waiters.begin());
        sync_wake(idx, cpu);
      }
      return false;
    }
    case K::Lock: {
      // MODEL: no priority inheritance (rt-app's pi_enabled): the fair class has no use for it.
      // A holder that locks again waits forever, like a default (non-recursive) mutex.
      SyncState &m = sync_[ph.res];
      if (m.holder < 0) {
        m.holder = self;
        return false;
      }
      w.retry = &ph;
      sync_block(w, cpu, &m.waiters);
      return true;
    }
    case K::Unlock:
      // MODEL: unlocking a mutex the task does not hold releases it anyway (glibc's default
      // mutex does not check the owner).
      mutex_release(sync_[ph.res], cpu);
      return false;
    case K::Wait:
    case K::Sync: {
      SyncState &c = sync_[ph.res];
      if (ph.kind == K::Sync && !c.waiters.empty()) {
        const std::size_t idx = c.waiters.front();
        c.waiters.erase(c.waiters.begin());
        sync_wake(idx, cpu);
      }
      // pthread_cond_wait(): releases the mutex, waits, and takes the mutex again once woken.
      SyncState &m = sync_[ph.res2];
      if (m.holder == self) mutex_release(m, cpu);
      w.retry = &relock_[ph.res2];
      sync_block(w, cpu, &c.waiters);
      return true;
    }
    case K::Run:
    case K::Runtime:
    case K::Sleep:
    case K::Loop:
    case K::Mark:
      break;
  }
  assert(false && "not a synchronisation phase");
  return false;
}

}  // namespace schedlab::engine
