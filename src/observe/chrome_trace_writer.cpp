// SPDX-License-Identifier: GPL-2.0-only
#include "observe/chrome_trace_writer.h"

#include <algorithm>
#include <string>

#include "observe/ftrace_writer.h"

namespace schedlab::observe {

using kernel::task_struct;

static std::string us(Time ns) {
  return std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1);
}

ChromeTraceWriter::ChromeTraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                                     std::vector<int> cpus, bool pelt)
    : k_(k),
      out_(out),
      from_(from),
      to_(to),
      traced_(traced_cpus(k.nr_cpu_ids(), cpus)),
      tracks_(static_cast<std::size_t>(k.nr_cpu_ids())),
      pelt_(pelt) {
  std::fprintf(out_, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"CPUs\"}}",
               kCpuProcess);
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_"
               "index\":-1}}",
               kCpuProcess);
  for (int c = 0; c < k.nr_cpu_ids(); c++) {
    if (!traced_[static_cast<std::size_t>(c)]) continue;
    const auto &info = k.topology().cpu(c);
    event_prefix();
    std::fprintf(out_,
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":"
                 "\"CPU %d (core %d)\"}}",
                 c, c, info.core);
    event_prefix();
    // Siblings next to each other: sort tracks by core, then thread.
    std::fprintf(out_,
                 "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{"
                 "\"sort_index\":%d}}",
                 c, info.core * k.topology().threads_per_core() + info.thread);
  }
}

void ChromeTraceWriter::event_prefix() {
  if (!first_) std::fputs(",\n", out_);
  first_ = false;
}

void ChromeTraceWriter::slice(int cpu, Time start, Time end, const char *name, int pid,
                              unsigned long cookie) {
  if (!traced_[static_cast<std::size_t>(cpu)]) return;
  if (start < from_) start = from_;
  if (end > to_) end = to_;
  if (end <= start) return;
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%s,"
               "\"dur\":%s,\"args\":{\"pid\":%d,\"cookie\":%lu}}",
               name, pid ? "task" : "forced_idle", cpu, us(start).c_str(), us(end - start).c_str(),
               pid, cookie);
}

void ChromeTraceWriter::sched_switch(Time now, int cpu, const task_struct *prev,
                                     unsigned int prev_state, const task_struct *next) {
  Track &t = tracks_[static_cast<std::size_t>(cpu)];
  if (t.task && !prev->is_idle_task)
    slice(cpu, t.since, now, trace_comm(prev, false).c_str(), prev->pid, prev->core_cookie);
  t.task = next->is_idle_task ? nullptr : next;
  t.since = now;
  if (!prev->is_idle_task)
    set_state(prev, now, prev_state == kernel::TASK_RUNNING ? State::Runnable : State::Sleeping,
              cpu);
  if (!next->is_idle_task) set_state(next, now, State::Running, cpu);
}

// A process per thread group, named after its leader (its first thread), and a thread per
// task, both the first time the task shows.
void ChromeTraceWriter::name_task(const task_struct *p) {
  if (!named_threads_.insert(p->pid).second) return;
  if (named_processes_.insert(p->tgid).second) {
    const task_struct *leader = p;
    if (p->pid != p->tgid)
      for (const auto &q : k_.tasks())
        if (q->pid == p->tgid) leader = q.get();
    event_prefix();
    std::fprintf(out_,
                 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}}",
                 p->tgid, trace_comm(leader, false).c_str());
  }
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
               "\"%s\"}}",
               p->tgid, p->pid, trace_comm(p, false).c_str());
}

void ChromeTraceWriter::close_state(Task &t, Time now) {
  if (t.state == State::Sleeping || !traced(t.cpu)) return;
  Time start = std::max(t.since, from_), end = std::min(now, to_);
  if (end <= start) return;
  const char *name = t.state == State::Running ? "Running"
                     : t.forced_idle           ? "Runnable (forced idle)"
                                               : "Runnable";
  name_task(t.p);
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"%s\",\"cat\":\"thread_state\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
               "\"ts\":%s,\"dur\":%s,\"args\":{\"cpu\":%d}}",
               name, t.p->tgid, t.p->pid, us(start).c_str(), us(end - start).c_str(), t.cpu);
}

void ChromeTraceWriter::set_state(const task_struct *p, Time now, State s, int cpu) {
  Task &t = tasks_[p->pid];
  close_state(t, now);
  t.p = p;
  t.state = s;
  t.since = now;
  t.cpu = cpu;
  t.forced_idle =
      s == State::Runnable && tracks_[static_cast<std::size_t>(cpu)].forceidle_since != kTimeNever;
}

// sched_waking() runs in the waker's context: a task's, unless an interrupt or the balancing
// softirq does the waking (a timer, an IPI), which no task asked for.
void ChromeTraceWriter::flow_start(Time now, int this_cpu, const task_struct *p) {
  const task_struct *waker = k_.cpu_rq(this_cpu)->curr;
  if (!in_window(now) || waker->is_idle_task || k_.in_hardirq() || k_.in_serving_softirq() ||
      !traced(this_cpu))
    return;
  Task &t = tasks_[p->pid];
  t.p = p;
  t.flow = next_flow_++;
  name_task(waker);
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"id\":%llu,\"pid\":%d,"
               "\"tid\":%d,\"ts\":%s}",
               t.flow, waker->tgid, waker->pid, us(now).c_str());
}

// The arrow ends on the woken task's Runnable slice, which starts here ("bp":"e": the slice
// that encloses the point).
void ChromeTraceWriter::flow_end(Time now, Task &t) {
  if (!t.flow) return;
  const unsigned long long id = t.flow;
  t.flow = 0;
  if (!in_window(now) || !traced(t.cpu)) return;
  name_task(t.p);
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,"
               "\"pid\":%d,\"tid\":%d,\"ts\":%s}",
               id, t.p->tgid, t.p->pid, us(now).c_str());
}

void ChromeTraceWriter::sched_waking(Time now, int this_cpu, const task_struct *p) {
  flow_start(now, this_cpu, p);
}

void ChromeTraceWriter::sched_wakeup(Time now, const task_struct *p, int cpu) {
  set_state(p, now, State::Runnable, cpu);
  flow_end(now, tasks_[p->pid]);
}

void ChromeTraceWriter::sched_wakeup_new(Time now, const task_struct *p, int cpu) {
  flow_start(now, k_.this_cpu(), p);
  set_state(p, now, State::Runnable, cpu);
  flow_end(now, tasks_[p->pid]);
}

// A queued task that moves waits on its new CPU from now on.
void ChromeTraceWriter::sched_migrate_task(Time now, const task_struct *p, int, int dest) {
  auto it = tasks_.find(p->pid);
  if (it == tasks_.end() || it->second.state != State::Runnable) return;
  set_state(p, now, State::Runnable, dest);
}

void ChromeTraceWriter::sched_forceidle(Time now, int cpu, bool on) {
  Track &t = tracks_[static_cast<std::size_t>(cpu)];
  if (on) {
    t.forceidle_since = now;
    forceidle_cpus_++;
  } else if (t.forceidle_since != kTimeNever) {
    slice(cpu, t.forceidle_since, now, "forced idle", 0, 0);
    t.forceidle_since = kTimeNever;
    forceidle_cpus_--;
  }
  // The tasks waiting on the CPU wait because of forced idle from now on, or no longer.
  for (auto &[pid, task] : tasks_)
    if (task.state == State::Runnable && task.cpu == cpu && task.forced_idle != on) {
      close_state(task, now);
      task.since = now;
      task.forced_idle = on;
    }
  if (now >= from_ && now < to_) {
    event_prefix();
    std::fprintf(out_,
                 "{\"name\":\"forced idle CPUs\",\"ph\":\"C\",\"pid\":0,\"ts\":%s,\"args\":{"
                 "\"cpus\":%d}}",
                 us(now).c_str(), forceidle_cpus_);
  }
}

// What cpu_util() starts from: the larger of the two is the CPU's utilisation for SIS_UTIL's
// scan depth and the balancer's group statistics.
void ChromeTraceWriter::util_counter(Time t, int cpu, const kernel::sched_avg &avg) {
  if (!traced_[static_cast<std::size_t>(cpu)] || t < from_ || t >= to_) return;
  event_prefix();
  std::fprintf(out_,
               "{\"name\":\"CPU %d util\",\"ph\":\"C\",\"pid\":0,\"ts\":%s,\"args\":{"
               "\"util_avg\":%lu,\"util_est\":%u}}",
               cpu, us(t).c_str(), avg.util_avg, avg.util_est);
}

void ChromeTraceWriter::finish(Time end) {
  for (int c = 0; c < k_.nr_cpu_ids(); c++) {
    Track &t = tracks_[static_cast<std::size_t>(c)];
    if (t.task)
      slice(c, t.since, end, trace_comm(t.task, false).c_str(), t.task->pid, t.task->core_cookie);
    if (t.forceidle_since != kTimeNever) slice(c, t.forceidle_since, end, "forced idle", 0, 0);
  }
  for (auto &[pid, task] : tasks_) close_state(task, end);
  std::fputs("\n]}\n", out_);
  std::fflush(out_);
}

}  // namespace schedlab::observe
