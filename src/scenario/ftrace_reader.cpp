// SPDX-License-Identifier: GPL-2.0-only
#include "scenario/ftrace_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace schedlab::scenario {

namespace {

constexpr int kMaxCpus = 65536;

[[noreturn]] void fail(const std::string &file, int line, const std::string &what) {
  throw ScenarioError(fmt::format("{}:{}: error: {}", file, line, what));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// A non-negative decimal that fits an int.
bool to_int(std::string_view s, int *out) {
  if (!all_digits(s) || s.size() > 9) return false;
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  *out = v;
  return true;
}

// "SECONDS.FRACTION" with 1 to 9 fraction digits, to ns.
bool to_ns(std::string_view s, Time *out) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  const auto secs = s.substr(0, dot), frac = s.substr(dot + 1);
  if (!all_digits(secs) || secs.size() > 10 || !all_digits(frac) || frac.size() > 9) return false;
  Time v = 0;
  for (char c : secs) v = v * 10 + static_cast<Time>(c - '0');
  Time f = 0;
  for (char c : frac) f = f * 10 + static_cast<Time>(c - '0');
  for (std::size_t i = frac.size(); i < 9; i++) f *= 10;
  *out = v * NSEC_PER_SEC + f;
  return true;
}

// Values of `markers` in order ("comm=", " pid=", ...): each value runs to the next marker, the
// last to the end. Comms may hold spaces; the markers around them still delimit them.
bool fields(std::string_view body, std::initializer_list<std::string_view> markers,
            std::vector<std::string_view> *out) {
  out->clear();
  std::size_t pos = 0;
  const std::string_view *prev = nullptr;
  std::size_t value_start = 0;
  for (const std::string_view &m : markers) {
    const auto at = body.find(m, pos);
    if (at == std::string_view::npos || (!prev && at != 0)) return false;
    if (prev) out->push_back(body.substr(value_start, at - value_start));
    value_start = at + m.size();
    pos = value_start;
    prev = &m;
  }
  out->push_back(body.substr(value_start));
  return true;
}

// "comm:pid" of libtraceevent's sched plugin output (trace-cmd report).
bool comm_pid(std::string_view s, std::string *comm, int *pid) {
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos || !to_int(s.substr(colon + 1), pid)) return false;
  *comm = std::string(trim(s.substr(0, colon)));
  return true;
}

// prev_state: "R" or "R+" is preempted (still runnable); anything else left the runqueue.
bool state_blocked(std::string_view st) {
  return !(st == "R" || st == "R+");
}

bool parse_switch(std::string_view body, TraceEvent *e) {
  std::vector<std::string_view> v;
  if (fields(body,
             {"prev_comm=", " prev_pid=", " prev_prio=", " prev_state=", " ==> next_comm=",
              " next_pid=", " next_prio="},
             &v)) {
    e->a_comm = std::string(v[0]);
    e->b_comm = std::string(v[4]);
    e->blocked = state_blocked(v[3]);
    return to_int(v[1], &e->a_pid) && to_int(v[5], &e->b_pid) && !v[3].empty();
  }
  // trace-cmd's plugin: "prev:pid [prio] STATE ==> next:pid [prio]".
  const auto arrow = body.find(" ==> ");
  if (arrow == std::string_view::npos) return false;
  const auto left = body.substr(0, arrow), right = body.substr(arrow + 5);
  const auto close = left.rfind("] ");
  const auto open_l = left.rfind(" [", close);
  const auto open_r = right.rfind(" [");
  if (close == std::string_view::npos || open_l == std::string_view::npos ||
      open_r == std::string_view::npos)
    return false;
  e->blocked = state_blocked(left.substr(close + 2));
  return comm_pid(left.substr(0, open_l), &e->a_comm, &e->a_pid) &&
         comm_pid(right.substr(0, open_r), &e->b_comm, &e->b_pid);
}

// sched_waking / sched_wakeup_new: "comm=C pid=P prio=N target_cpu=CPU" (older kernels add
// success=1), or the plugin's "C:P [N] CPU:CPU".
bool parse_wake(std::string_view body, TraceEvent *e) {
  std::vector<std::string_view> v;
  if (fields(body, {"comm=", " pid="}, &v)) {
    const auto sp = v[1].find(' ');
    e->a_comm = std::string(v[0]);
    return to_int(v[1].substr(0, sp), &e->a_pid);
  }
  const auto open = body.rfind(" [");
  return open != std::string_view::npos && comm_pid(body.substr(0, open), &e->a_comm, &e->a_pid);
}

bool parse_fork(std::string_view body, TraceEvent *e) {
  std::vector<std::string_view> v;
  return fields(body, {"comm=", " pid=", " child_comm=", " child_pid="}, &v) &&
         (e->a_comm = std::string(v[0]), e->b_comm = std::string(v[2]), true) &&
         to_int(v[1], &e->a_pid) && to_int(trim(v[3]), &e->b_pid);
}

bool parse_exit(std::string_view body, TraceEvent *e) {
  std::vector<std::string_view> v;
  if (!fields(body, {"comm=", " pid="}, &v)) return false;
  const auto sp = v[1].find(' ');
  e->a_comm = std::string(v[0]);
  return to_int(v[1].substr(0, sp), &e->a_pid);
}

// trace-cmd report's header lines.
bool header_line(std::string_view l) {
  return l.starts_with("cpus=") || l.starts_with("version") || l.starts_with("CPU ");
}

// Line by line, so a multi-gigabyte trace is never held in memory: only its events are.
class Reader {
 public:
  explicit Reader(const std::string &file) { t_.file = file; }
  void line(std::string_view line, bool last_line);
  ParsedTrace finish();

 private:
  void parse_line(std::string_view line);
  ParsedTrace t_;
  int line_no_ = 0, max_cpu_ = -1;
  Time last_ts_ = 0;
};

void Reader::line(std::string_view line, bool last_line) {
  if (line.find('\0') != std::string_view::npos)
    fail(t_.file, line_no_ + 1, "binary data in a text trace");
  try {
    parse_line(line);
  } catch (const ScenarioError &) {
    // A trace cut short (a copy still being written, a full disk) ends mid-line.
    if (last_line)
      fail(t_.file, line_no_,
           "truncated last line (no newline at its end): '" +
               std::string(trim(line).substr(0, 60)) + "'");
    throw;
  }
}

void Reader::parse_line(std::string_view line) {
  const std::string &file = t_.file;
  const int line_no = ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const auto l = trim(line);
  if (l.empty()) return;
  if (l.front() == '#') {
    const auto p = l.find("#P:");
    int n = 0;
    if (p != std::string_view::npos && to_int(trim(l.substr(p + 3)), &n) && n > 0 && n <= kMaxCpus)
      t_.nr_cpus = n;
    return;
  }
  if (header_line(l)) return;
  // TASK-PID [CPU] (FLAGS) SECONDS.FRACTION: EVENT: FIELDS, or perf script's default layout
  // for tracepoints: COMM TID [CPU] SECONDS.MICROS: sched:EVENT: FIELDS (COMM may hold spaces;
  // TID may be PID/TID).
  const auto open = l.find(" [");
  const auto close = open == std::string_view::npos ? open : l.find(']', open);
  int cpu = 0, pid = 0;
  const auto task = open == std::string_view::npos ? l : trim(l.substr(0, open));
  const auto dash = task.rfind('-');
  bool task_ok = dash != std::string_view::npos && to_int(task.substr(dash + 1), &pid);
  if (!task_ok) {
    auto id = task.substr(task.rfind(' ') == std::string_view::npos ? 0 : task.rfind(' ') + 1);
    if (const auto slash = id.find('/'); slash != std::string_view::npos) id = id.substr(slash + 1);
    task_ok = id.size() < task.size() && to_int(id, &pid);
  }
  if (close == std::string_view::npos || !to_int(l.substr(open + 2, close - open - 2), &cpu) ||
      !task_ok) {
    fail(file, line_no,
         "not an ftrace event line (TASK-PID [CPU] FLAGS SECONDS: EVENT: FIELDS): '" +
             std::string(l.substr(0, 60)) + "'");
  }
  if (cpu >= kMaxCpus) fail(file, line_no, fmt::format("cpu {} is beyond {} CPUs", cpu, kMaxCpus));
  std::string_view rest = trim(l.substr(close + 1));
  std::string_view flags;
  auto sp = rest.find(' ');
  Time ts = 0;
  if (sp != std::string_view::npos &&
      !(rest[sp - 1] == ':' && to_ns(rest.substr(0, sp - 1), &ts))) {
    flags = rest.substr(0, sp);
    rest = trim(rest.substr(sp + 1));
    sp = rest.find(' ');
  }
  if (sp == std::string_view::npos || rest[sp - 1] != ':' || !to_ns(rest.substr(0, sp - 1), &ts))
    fail(file, line_no, "bad timestamp (SECONDS.FRACTION:)");
  rest = trim(rest.substr(sp + 1));  // perf script right-aligns the event names
  const auto colon = rest.find(": ");
  auto event = colon == std::string_view::npos ? trim(rest) : rest.substr(0, colon);
  if (event.starts_with("sched:")) event.remove_prefix(6);  // perf's SUBSYSTEM:EVENT
  const auto body =
      colon == std::string_view::npos ? std::string_view{} : trim(rest.substr(colon + 2));
  TraceEvent e;
  bool ok = true;
  if (event == "sched_switch") {
    e.type = TraceEvent::Type::Switch;
    ok = parse_switch(body, &e);
  } else if (event == "sched_waking") {
    e.type = TraceEvent::Type::Waking;
    ok = parse_wake(body, &e);
  } else if (event == "sched_wakeup_new") {
    e.type = TraceEvent::Type::WakeupNew;
    ok = parse_wake(body, &e);
  } else if (event == "sched_process_fork") {
    e.type = TraceEvent::Type::Fork;
    ok = parse_fork(body, &e);
  } else if (event == "sched_process_exit") {
    e.type = TraceEvent::Type::Exit;
    ok = parse_exit(body, &e);
  } else {
    return;  // sched_wakeup, sched_migrate_task, markers, other events: replay needs none
  }
  if (!ok)
    fail(file, line_no,
         fmt::format("{}: fields do not follow its format: '{}'", event, body.substr(0, 80)));
  if (ts < last_ts_) fail(file, line_no, "timestamp goes back in time (the trace must be sorted)");
  last_ts_ = ts;
  // The hardirq/softirq column is the third flag character.
  e.irq = flags.size() >= 3 && std::strchr("hHsSzZ", flags[2]) != nullptr;
  e.cpu = cpu;
  e.pid = pid;
  e.ts = ts;
  e.line = line_no;
  if (cpu > max_cpu_) max_cpu_ = cpu;
  t_.events.push_back(std::move(e));
}

ParsedTrace Reader::finish() {
  if (t_.events.empty())
    fail(t_.file, line_no_,
         "no scheduler events (sched_switch, sched_waking, ...): is this an ftrace text trace?");
  if (t_.nr_cpus <= max_cpu_) t_.nr_cpus = max_cpu_ + 1;
  return std::move(t_);
}

}  // namespace

ParsedTrace parse_ftrace(std::string_view text, const std::string &file) {
  Reader r(file);
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    const bool last = nl == std::string_view::npos;
    if (last) nl = text.size();
    r.line(text.substr(pos, nl - pos), last);
    pos = nl + 1;
  }
  return r.finish();
}

ParsedTrace read_ftrace(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", file, std::strerror(errno)));
  Reader r(file);
  std::string line;
  while (std::getline(in, line)) r.line(line, in.eof());
  if (in.bad()) throw ScenarioError(fmt::format("{}: error: read failed", file));
  return r.finish();
}

}  // namespace schedlab::scenario
