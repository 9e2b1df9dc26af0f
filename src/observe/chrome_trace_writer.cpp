// SPDX-License-Identifier: GPL-2.0-only
#include "observe/chrome_trace_writer.h"

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
               "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"CPUs\"}}");
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

void ChromeTraceWriter::sched_switch(Time now, int cpu, const task_struct *prev, unsigned int,
                                     const task_struct *next) {
  Track &t = tracks_[static_cast<std::size_t>(cpu)];
  if (t.task && !prev->is_idle_task)
    slice(cpu, t.since, now, trace_comm(prev, false).c_str(), prev->pid, prev->core_cookie);
  t.task = next->is_idle_task ? nullptr : next;
  t.since = now;
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
  std::fputs("\n]}\n", out_);
  std::fflush(out_);
}

}  // namespace schedlab::observe
