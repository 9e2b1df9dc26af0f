// SPDX-License-Identifier: GPL-2.0-only
// trace-cmd data files (trace.dat) for replay, read through libtracecmd's public API: its
// records in time order across CPUs, their fields found by name in the file's own event
// formats, so any kernel's and any trace-cmd's file version reads the same way.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "scenario/ftrace_reader.h"

#ifdef SCHEDLAB_HAVE_LIBTRACECMD
// trace-cmd.h includes tracefs.h, whose inline functions are C that C++ refuses (an int passed
// as an enum); none of trace-cmd.h's declarations uses it, so it is left out by its guard.
#include <sched.h>  // cpu_set_t, which tracefs.h would have brought
#define _TRACE_FS_H
#include <trace-cmd.h>
#endif

namespace schedlab::scenario {

bool is_trace_dat(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  char magic[10] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, "\x17\x08\x44tracing", 10) == 0;
}

ParsedTrace read_trace(const std::string &file) {
  return is_trace_dat(file) ? read_trace_dat(file) : read_ftrace(file);
}

#ifndef SCHEDLAB_HAVE_LIBTRACECMD

ParsedTrace read_trace_dat(const std::string &file) {
  throw TraceUnsupported(
      fmt::format("{}: a trace-cmd data file: unsupported here: built without libtracecmd", file));
}

#else

namespace {

[[noreturn]] void fail(const std::string &file, const std::string &what) {
  throw ScenarioError(fmt::format("{}: error: {}", file, what));
}

struct Handle {
  tracecmd_input *h = nullptr;
  ~Handle() {
    if (h) tracecmd_close(h);
  }
};

// One event replay uses, and where its fields are.
struct Kind {
  TraceEvent::Type type;
  tep_event *event = nullptr;
  tep_format_field *a_comm = nullptr, *a_pid = nullptr, *b_comm = nullptr, *b_pid = nullptr,
                   *state = nullptr;
};

// What the reading process sends back, over a pipe: events, then the end (the CPU count) or
// an error.
enum Msg : char { kMsgEvent = 'E', kMsgEnd = 'N', kMsgError = 'X' };

void put(std::FILE *out, const void *p, std::size_t n) {
  std::fwrite(p, 1, n, out);
}
void put_str(std::FILE *out, const std::string &s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  put(out, &n, 4);
  put(out, s.data(), s.size());
}
bool get(std::FILE *in, void *p, std::size_t n) {
  return std::fread(p, 1, n, in) == n;
}
bool get_str(std::FILE *in, std::string *s) {
  std::uint32_t n = 0;
  if (!get(in, &n, 4) || n > (1u << 20)) return false;
  s->resize(n);
  return get(in, s->data(), n);
}

// Reads the file's records in the child process, sending replay's events to `out`.
struct Reader {
  std::FILE *out = nullptr;
  tep_handle *tep = nullptr;
  std::vector<Kind> kinds;
  std::string error;  // set by the callback, which must not throw through libtracecmd
  long long records = 0;
  Time last_ts = 0;

  bool field_ok(const tep_record *r, const tep_format_field *f) const {
    return f->offset >= 0 && f->size >= 0 && f->offset + f->size <= r->size;
  }
  bool number(const tep_record *r, tep_format_field *f, long long *v) const {
    unsigned long long u = 0;
    if (!field_ok(r, f) || tep_read_number_field(f, r->data, &u) != 0) return false;
    *v = static_cast<long long>(u);
    return true;
  }
  bool pid(const tep_record *r, tep_format_field *f, int *out_pid) const {
    long long v = 0;
    if (!number(r, f, &v) || f->size != 4) return false;
    v = static_cast<std::int32_t>(v);
    if (v < 0) return false;
    *out_pid = static_cast<int>(v);
    return true;
  }
  // A char array or a __data_loc string, within the record.
  bool string(const tep_record *r, const tep_format_field *f, std::string *s) const {
    if (!field_ok(r, f)) return false;
    const char *data = static_cast<const char *>(r->data);
    int at = f->offset, len = f->size;
    if (f->flags & TEP_FIELD_IS_DYNAMIC) {
      if (f->size != 4) return false;
      const auto loc = static_cast<std::uint32_t>(tep_read_number(tep, data + f->offset, 4));
      at = static_cast<int>(loc & 0xffff);
      len = static_cast<int>(loc >> 16);
      if (f->flags & TEP_FIELD_IS_RELATIVE) at += f->offset + f->size;
      if (at + len > r->size) return false;
    }
    s->assign(data + at, strnlen(data + at, static_cast<std::size_t>(len)));
    return true;
  }

  int record(tep_record *r) {
    records++;
    if (r->size < 8) {
      error = fmt::format("record {} on cpu {}: {} bytes, shorter than an event's header", records,
                          r->cpu, r->size);
      return -1;
    }
    const int id = tep_data_type(tep, r);
    const Kind *k = nullptr;
    for (const Kind &c : kinds)
      if (c.event->id == id) k = &c;
    if (!k) return 0;  // an event replay does not use
    TraceEvent e;
    bool ok = pid(r, k->a_pid, &e.a_pid) && string(r, k->a_comm, &e.a_comm);
    if (k->b_pid) ok = ok && pid(r, k->b_pid, &e.b_pid) && string(r, k->b_comm, &e.b_comm);
    if (k->state) {
      // prev_state: a task still runnable is 0 (R) or, preempted, a flag above the states'
      // low byte (R+); any bit of the low byte is a state it left the CPU in.
      long long st = 0;
      ok = ok && number(r, k->state, &st);
      e.blocked = (st & 0xff) != 0;
    }
    if (!ok) {
      error = fmt::format("record {} on cpu {}: {}: a field lies outside the record", records,
                          r->cpu, k->event->name);
      return -1;
    }
    if (r->cpu < 0 || r->cpu >= 65536) {
      error = fmt::format("record {}: cpu {} out of range", records, r->cpu);
      return -1;
    }
    const Time ts = static_cast<Time>(r->ts);
    if (ts < last_ts) {
      error = fmt::format("record {} on cpu {}: timestamp goes back in time", records, r->cpu);
      return -1;
    }
    last_ts = ts;
    // The entry's hardirq, softirq and NMI flags (TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI).
    const char irq = (tep_data_flags(tep, r) & (0x08 | 0x10 | 0x40)) != 0;
    const char type = static_cast<char>(k->type), blocked = e.blocked;
    const std::int32_t cpu = r->cpu, task = tep_data_pid(tep, r);
    const auto line = static_cast<std::int32_t>(std::min<long long>(records, INT32_MAX));
    const char msg = kMsgEvent;
    put(out, &msg, 1);
    put(out, &type, 1);
    put(out, &irq, 1);
    put(out, &blocked, 1);
    put(out, &cpu, 4);
    put(out, &line, 4);
    put(out, &ts, 8);
    put(out, &task, 4);
    put(out, &e.a_pid, 4);
    put(out, &e.b_pid, 4);
    put_str(out, e.a_comm);
    put_str(out, e.b_comm);
    return 0;
  }
};

int on_record(tracecmd_input *, tep_record *r, int, void *data) {
  return static_cast<Reader *>(data)->record(r);
}

// The child's work: open the file, find the events' fields, send every record replay uses.
// Returns an error, or "" after sending the end.
std::string read_in_child(const std::string &file, std::FILE *out) {
  tracecmd_set_loglevel(TEP_LOG_NONE);
  tep_set_loglevel(TEP_LOG_NONE);
  Reader rd;
  rd.out = out;
  Handle h;
  h.h = tracecmd_open_head(file.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS);
  if (!h.h)
    return "not a trace-cmd data file libtracecmd can read (truncated, or its headers are "
           "corrupt)";
  if (tracecmd_init_data(h.h) < 0) {
    // libtracecmd 1.3 cannot close a handle whose data it failed to set up; the process ends.
    h.h = nullptr;
    return "its CPU data does not read (the file is truncated or corrupt)";
  }
  rd.tep = tracecmd_get_tep(h.h);
  const struct {
    TraceEvent::Type type;
    const char *name, *a_comm, *a_pid, *b_comm, *b_pid, *state;
  } wanted[] = {
      {TraceEvent::Type::Switch, "sched_switch", "prev_comm", "prev_pid", "next_comm", "next_pid",
       "prev_state"},
      {TraceEvent::Type::Waking, "sched_waking", "comm", "pid", nullptr, nullptr, nullptr},
      {TraceEvent::Type::WakeupNew, "sched_wakeup_new", "comm", "pid", nullptr, nullptr, nullptr},
      {TraceEvent::Type::Fork, "sched_process_fork", "parent_comm", "parent_pid", "child_comm",
       "child_pid", nullptr},
      {TraceEvent::Type::Exit, "sched_process_exit", "comm", "pid", nullptr, nullptr, nullptr},
  };
  for (const auto &w : wanted) {
    Kind k{w.type};
    k.event = tep_find_event_by_name(rd.tep, "sched", w.name);
    if (!k.event) continue;  // not recorded
    for (auto [name, field] : {std::pair{w.a_comm, &k.a_comm}, std::pair{w.a_pid, &k.a_pid},
                               std::pair{w.b_comm, &k.b_comm}, std::pair{w.b_pid, &k.b_pid},
                               std::pair{w.state, &k.state}}) {
      if (!name) continue;
      *field = tep_find_field(k.event, name);
      if (!*field) return fmt::format("sched:{}'s format has no field {}", w.name, name);
    }
    rd.kinds.push_back(k);
  }
  if (rd.kinds.empty()) return "no scheduler event formats (sched_switch, sched_waking, ...)";
  if (tracecmd_iterate_events(h.h, nullptr, 0, on_record, &rd) < 0)
    return rd.error.empty() ? "libtracecmd could not read the events (corrupt data)" : rd.error;
  const char msg = kMsgEnd;
  const std::int32_t cpus = tep_get_cpus(rd.tep);
  put(out, &msg, 1);
  put(out, &cpus, 4);
  return "";
}

}  // namespace

// libtracecmd reads the file in a child process: a file it chokes on (it crashes on some
// truncated ones) costs the child, and the command reports it in one line. The child's
// stdout and stderr go to /dev/null; its findings come back through a pipe.
ParsedTrace read_trace_dat(const std::string &file) {
  if (access(file.c_str(), R_OK) != 0)
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", file, std::strerror(errno)));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw ScenarioError(
        fmt::format("{}: error: cannot read: pipe: {}", file, std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    throw ScenarioError(fmt::format("{}: error: cannot read: fork: {}", file, std::strerror(err)));
  }
  if (child == 0) {
    close(fds[0]);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    std::FILE *out = fdopen(fds[1], "wb");
    if (!out) _exit(1);
    std::string error;
    try {
      error = read_in_child(file, out);
    } catch (const std::exception &e) {
      error = e.what();
    }
    if (!error.empty()) {
      const char msg = kMsgError;
      put(out, &msg, 1);
      put_str(out, error);
    }
    _exit(std::fflush(out) == 0 ? 0 : 1);
  }
  close(fds[1]);
  std::FILE *in = fdopen(fds[0], "rb");
  ParsedTrace t;
  t.file = file;
  std::string error;
  bool ended = false;
  int max_cpu = -1;
  for (char msg; !ended && error.empty() && in && get(in, &msg, 1);) {
    if (msg == kMsgEvent) {
      TraceEvent e;
      char type = 0, irq = 0, blocked = 0;
      std::int32_t cpu = 0, line = 0, pid = 0, a_pid = 0, b_pid = 0;
      if (!(get(in, &type, 1) && get(in, &irq, 1) && get(in, &blocked, 1) && get(in, &cpu, 4) &&
            get(in, &line, 4) && get(in, &e.ts, 8) && get(in, &pid, 4) && get(in, &a_pid, 4) &&
            get(in, &b_pid, 4) && get_str(in, &e.a_comm) && get_str(in, &e.b_comm)))
        break;
      e.type = static_cast<TraceEvent::Type>(type);
      e.irq = irq;
      e.blocked = blocked;
      e.cpu = cpu;
      e.line = line;
      e.pid = pid;
      e.a_pid = a_pid;
      e.b_pid = b_pid;
      max_cpu = std::max(max_cpu, e.cpu);
      t.events.push_back(std::move(e));
    } else if (msg == kMsgEnd) {
      std::int32_t cpus = 0;
      ended = get(in, &cpus, 4);
      t.nr_cpus = cpus > 0 && cpus <= 65536 ? cpus : 0;
    } else if (msg == kMsgError) {
      if (!get_str(in, &error)) error = "libtracecmd could not read it";
    } else {
      break;
    }
  }
  if (in)
    std::fclose(in);
  else
    close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!error.empty()) fail(file, error);
  if (!ended) {
    if (WIFSIGNALED(status))
      fail(file, fmt::format("libtracecmd stopped on signal {} reading it (a truncated or "
                             "corrupt trace.dat)",
                             WTERMSIG(status)));
    fail(file, "libtracecmd could not read it (a truncated or corrupt trace.dat)");
  }
  if (t.events.empty())
    fail(file, "no scheduler events (sched_switch, sched_waking, ...) in the trace");
  if (t.nr_cpus <= max_cpu) t.nr_cpus = max_cpu + 1;
  return t;
}

#endif

}  // namespace schedlab::scenario
