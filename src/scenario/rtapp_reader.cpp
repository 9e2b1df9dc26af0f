// SPDX-License-Identifier: GPL-2.0-only
// Reads rt-app's JSON workload description (github.com/scheduler-tools/rt-app, doc/tutorial.txt)
// into the Scenario the TOML reader produces. rt-app's own files are "json-like", as its
// workgen script accepts them: comments, trailing commas, repeated keys ("run" twice in one
// phase) and a bare "suspend" key; so the JSON here is read by a small lenient parser that
// keeps every key in file order, which is event order. The translation builds the table a TOML
// scenario would have and hands it to the TOML reader, so both formats share every check.
// Whatever rt-app can express and schedlab cannot model is refused, naming file, task, phase
// and event: a silently dropped lock or timer would make the simulated workload a different one.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/table_reader.h"

namespace schedlab::scenario {

namespace {

using i64 = std::int64_t;

// ---- A lenient JSON value, members in file order, duplicates kept. ----

struct JValue;
struct JMember;

struct JValue {
  // Missing: a key with no value (workgen's bare "suspend", which means the task's own name).
  enum class Type { Null, Bool, Int, Float, String, Array, Object, Missing };
  Type type = Type::Null;
  bool b = false;
  i64 i = 0;
  double f = 0;
  std::string s;
  std::vector<JValue> arr;
  std::vector<JMember> obj;
  int line = 0, col = 0;
};

struct JMember {
  std::string key;
  int line = 0, col = 0;
  JValue value;
};

std::string_view type_name(const JValue &v) {
  switch (v.type) {
    case JValue::Type::Null:
      return "null";
    case JValue::Type::Bool:
      return "a boolean";
    case JValue::Type::Int:
      return "an integer";
    case JValue::Type::Float:
      return "a number";
    case JValue::Type::String:
      return "a string";
    case JValue::Type::Array:
      return "an array";
    case JValue::Type::Object:
      return "an object";
    case JValue::Type::Missing:
      return "no value";
  }
  return "?";
}

class Error {
 public:
  explicit Error(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(int line, int col, std::string_view field, std::string_view msg) const {
    if (line > 0)
      throw ScenarioError(fmt::format("{}:{}:{}: error: {}: {}", file_, line, col, field, msg));
    throw ScenarioError(fmt::format("{}: error: {}: {}", file_, field, msg));
  }
  const std::string &file() const { return file_; }

 private:
  std::string file_;
};

class Parser {
 public:
  Parser(std::string_view text, const Error &err) : t_(text), err_(err) {}

  JValue parse_document() {
    skip();
    JValue v = value(0);
    skip();
    if (p_ < t_.size()) fail("unexpected text after the top-level value");
    return v;
  }

 private:
  // Deep enough for any workload; bounded so hostile input cannot exhaust the stack.
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(std::string_view msg) const {
    err_.fail(line_, col_, "invalid JSON", msg);
  }
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void advance() {
    if (t_[p_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++p_;
  }
  void skip() {
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '/') {
        while (p_ < t_.size() && t_[p_] != '\n') advance();
      } else if (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '*') {
        advance();
        advance();
        while (p_ < t_.size() && !(t_[p_] == '*' && p_ + 1 < t_.size() && t_[p_ + 1] == '/'))
          advance();
        if (p_ >= t_.size()) fail("unterminated /* comment");
        advance();
        advance();
      } else {
        break;
      }
    }
  }

  JValue value(int depth) {
    if (depth > kMaxDepth) fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
    JValue v;
    v.line = line_;
    v.col = col_;
    const char c = peek();
    if (c == '{') {
      object(v, depth);
    } else if (c == '[') {
      array(v, depth);
    } else if (c == '"') {
      v.type = JValue::Type::String;
      v.s = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      number(v);
    } else if (word("true")) {
      v.type = JValue::Type::Bool;
      v.b = true;
    } else if (word("false")) {
      v.type = JValue::Type::Bool;
    } else if (word("null")) {
      v.type = JValue::Type::Null;
    } else if (c == '\0') {
      fail("unexpected end of file, expected a value");
    } else {
      fail(fmt::format("unexpected character '{}', expected a value", c));
    }
    return v;
  }

  bool word(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    for (size_t k = 0; k < w.size(); ++k) advance();
    return true;
  }

  void object(JValue &v, int depth) {
    v.type = JValue::Type::Object;
    advance();  // '{'
    for (;;) {
      skip();
      if (peek() == '}') break;  // empty object, or a trailing comma before it
      if (peek() != '"') fail("expected a key (a string in double quotes) or '}'");
      JMember m;
      m.line = line_;
      m.col = col_;
      m.key = string();
      skip();
      if (peek() == ':') {
        advance();
        skip();
        m.value = value(depth + 1);
      } else if (peek() == ',' || peek() == '}') {
        m.value.type = JValue::Type::Missing;
        m.value.line = m.line;
        m.value.col = m.col;
      } else {
        fail(fmt::format("expected ':' after key \"{}\"", m.key));
      }
      v.obj.push_back(std::move(m));
      skip();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == '}') break;
      fail("expected ',' or '}'");
    }
    advance();  // '}'
  }

  void array(JValue &v, int depth) {
    v.type = JValue::Type::Array;
    advance();  // '['
    for (;;) {
      skip();
      if (peek() == ']') break;
      v.arr.push_back(value(depth + 1));
      skip();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == ']') break;
      fail("expected ',' or ']'");
    }
    advance();  // ']'
  }

  static void utf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    advance();  // '"'
    std::string out;
    for (;;) {
      if (p_ >= t_.size()) fail("unterminated string");
      const char c = t_[p_];
      if (c == '"') break;
      if (c == '\n') fail("unterminated string (newline inside)");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      const char e = peek();
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = 0;
          for (int k = 0; k < 4; ++k) {
            advance();
            const char h = peek();
            const int d = h >= '0' && h <= '9'   ? h - '0'
                          : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                 : -1;
            if (d < 0) fail("bad \\u escape (expected 4 hex digits)");
            cp = cp * 16 + static_cast<unsigned>(d);
          }
          utf8(out, cp);
          break;
        }
        default:
          fail("bad escape in string");
      }
      advance();
    }
    advance();  // '"'
    return out;
  }

  void number(JValue &v) {
    const size_t start = p_;
    if (peek() == '-') advance();
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
    while (peek() >= '0' && peek() <= '9') advance();
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      advance();
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9') advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9') advance();
    }
    const std::string text(t_.substr(start, p_ - start));
    if (integral) {
      errno = 0;
      char *end = nullptr;
      const long long x = std::strtoll(text.c_str(), &end, 10);
      if (errno == 0) {
        v.type = JValue::Type::Int;
        v.i = x;
        return;
      }
    }
    v.type = JValue::Type::Float;
    v.f = std::strtod(text.c_str(), nullptr);
  }

  std::string_view t_;
  const Error &err_;
  size_t p_ = 0;
  int line_ = 1, col_ = 1;
};

// ---- Translation. ----

// rt-app's event names, in the order its parser tries them as key prefixes ("runtime" before
// "run", "memrun" before "mem"): a key's event type is the first name it starts with.
constexpr std::string_view kEvents[] = {"lock",    "unlock",  "wait",    "signal",   "broad",
                                        "sync",    "sleep",   "runtime", "run",      "timer",
                                        "suspend", "resume",  "memrun",  "mem",      "iorun",
                                        "yield",   "barrier", "fork",    "sem_post", "sem_wait"};

std::optional<std::string_view> event_type(std::string_view key) {
  for (std::string_view e : kEvents)
    if (key.substr(0, e.size()) == e) return e;
  return std::nullopt;
}

// Why schedlab cannot run an event type; empty for those it can.
std::string unsupported_reason(std::string_view type) {
  if (type == "run" || type == "runtime" || type == "sleep" || type == "timer" || type == "lock" ||
      type == "unlock" || type == "wait" || type == "signal" || type == "broad" || type == "sync" ||
      type == "suspend" || type == "resume" || type == "barrier" || type == "yield")
    return {};
  if (type == "sem_post" || type == "sem_wait")
    return "semaphores are not modelled (only mutexes, condition variables, suspend/resume and "
           "barriers are)";
  if (type == "fork")
    return "forking tasks at run time is not modelled (every task starts at 0 "
           "plus its delay)";
  if (type == "mem" || type == "memrun") return "memory-bound load is not modelled";
  if (type == "iorun") return "I/O load is not modelled";
  return "not modelled";
}

// rt-app's number for an event type (its resource_t, src/rt-app_types.h), as rtapp_event
// lines print it; `unique`: a timer whose ref starts with "unique" (one per thread).
int rtapp_type(std::string_view type, bool unique) {
  if (type == "wait") return 2;
  if (type == "signal") return 3;
  if (type == "broad") return 4;
  if (type == "sleep") return 5;
  if (type == "run") return 6;
  if (type == "sync") return 7;
  if (type == "lock") return 8;
  if (type == "unlock") return 9;
  if (type == "timer") return unique ? 11 : 10;
  if (type == "suspend") return 12;
  if (type == "resume") return 13;
  if (type == "runtime") return 19;
  if (type == "yield") return 20;
  if (type == "barrier") return 21;
  return 0;  // the others are refused
}

// rt-app keeps an event's name in 48 bytes: a key copied whole keeps 47 characters, a name
// built with snprintf ("key:resource") 46.
std::string rtapp_desc(std::string s, std::size_t max) {
  if (s.size() > max) s.resize(max);
  return s;
}

enum class RtPolicy { Other, Batch, Idle, Fifo, Rr, Deadline };

std::optional<RtPolicy> policy_of(std::string_view s) {
  if (s == "SCHED_OTHER") return RtPolicy::Other;
  if (s == "SCHED_BATCH") return RtPolicy::Batch;
  if (s == "SCHED_IDLE") return RtPolicy::Idle;
  if (s == "SCHED_FIFO") return RtPolicy::Fifo;
  if (s == "SCHED_RR") return RtPolicy::Rr;
  if (s == "SCHED_DEADLINE") return RtPolicy::Deadline;
  return std::nullopt;
}

// The machine of a file without "schedlab": { "machine": ... }: one socket of 4 SMT2 cores, the
// smallest shape where core scheduling has both idle cores and half-idle cores to choose from.
toml::table default_machine() {
  return toml::table{{"sockets", 1},
                     {"llcs_per_socket", 1},
                     {"cores_per_llc", 4},
                     {"threads_per_core", 2},
                     {"numbering", "x86"}};
}

class Translator {
 public:
  explicit Translator(const Error &err) : err_(err) {}

  toml::table translate(const JValue &root, const std::string &stem);

  // Where each translated group and phase came from: TOML-reader field paths such as
  // "group[0].phases[2]" to the rt-app event's position and name ("task:phase:event"), so that
  // the TOML reader's errors on the translated table point into the rt-app file.
  struct Origin {
    int line = 0, col = 0;
    std::string field;
  };
  std::map<std::string, Origin> origins;

  // rt-app's ftrace log: its categories, and per translated group (in order) its phases as
  // rt-app runs them, for the Mark phases add_marks() puts around the translated events.
  workload::RtappLogConfig rtapp_log;
  struct PhaseLayout {
    i64 loop = 1;                             // rt-app's phase loop (-1: forever)
    bool flat = true;                         // its events are in the task's body, not a loop
    std::vector<workload::RtappMark> events;  // one per rt-app event, modelled or not
  };
  std::vector<std::vector<PhaseLayout>> layouts;

 private:
  struct Task {
    std::string name;
    const JValue *obj = nullptr;
    int line = 0, col = 0;
    std::size_t index = 0;  // among the file's tasks
  };

  [[noreturn]] void fail(const JValue &at, std::string_view field, std::string_view msg) const {
    err_.fail(at.line, at.col, field, msg);
  }
  [[noreturn]] void fail(const JMember &at, std::string_view field, std::string_view msg) const {
    err_.fail(at.line, at.col, field, msg);
  }
  i64 integer(const JValue &v, std::string_view field, i64 lo, i64 hi) const {
    if (v.type != JValue::Type::Int)
      fail(v, field, fmt::format("expected an integer, got {}", type_name(v)));
    if (v.i < lo || v.i > hi)
      fail(v, field, fmt::format("must be between {} and {}, got {}", lo, hi, v.i));
    return v.i;
  }
  i64 usec(const JValue &v, std::string_view field) const {
    return integer(v, field, 0, std::numeric_limits<i64>::max() / 1000) * 1000;
  }
  RtPolicy policy(const JValue &v, std::string_view field) const {
    if (v.type != JValue::Type::String)
      fail(v, field, fmt::format("expected a string, got {}", type_name(v)));
    auto p = policy_of(v.s);
    if (!p)
      fail(v, field,
           fmt::format("unknown policy '{}' (rt-app's: SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, "
                       "SCHED_RR, SCHED_FIFO, SCHED_DEADLINE)",
                       v.s));
    if (*p == RtPolicy::Fifo || *p == RtPolicy::Rr || *p == RtPolicy::Deadline)
      fail(v, field,
           fmt::format("{} is not modelled: schedlab simulates the fair class only (SCHED_OTHER, "
                       "SCHED_BATCH, SCHED_IDLE)",
                       v.s));
    return *p;
  }
  std::vector<int> cpus(const JValue &v, std::string_view field) const {
    if (v.type != JValue::Type::Array)
      fail(v, field, fmt::format("expected an array of CPU numbers, got {}", type_name(v)));
    std::vector<int> out;
    for (const JValue &c : v.arr) out.push_back(static_cast<int>(integer(c, field, 0, 1 << 20)));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void read_global(const JValue &g);
  void read_schedlab(const JValue &s);
  // A timer, yield or synchronisation event as a TOML phase; nullopt when it does nothing.
  std::optional<toml::table> sync_event(const JMember &m, std::string_view type,
                                        const std::string &task, const std::string &field) const;
  std::string name_of(const JValue &v, const std::string &field) const {
    if (v.type != JValue::Type::String)
      fail(v, field, fmt::format("expected a string (a resource name), got {}", type_name(v)));
    if (v.s.empty()) fail(v, field, "the resource name must not be empty");
    return v.s;
  }
  const JValue &member(const JValue &obj, std::string_view key, const std::string &field) const {
    for (const JMember &x : obj.obj)
      if (x.key == key) return x.value;
    fail(obj, field, fmt::format("missing required key \"{}\"", key));
  }
  toml::table read_task(const Task &t, std::size_t group);
  // Appends a phase's events to `out`, and rt-app's view of each to `marks`; returns the
  // phase's loop count (-1: forever). `index`: the task's position in the file.
  i64 read_phase(const JValue &obj, const std::string &task, std::size_t index,
                 const std::string &phase, std::vector<Origin> &out_origins,
                 const std::vector<int> &task_cpus, RtPolicy task_policy,
                 std::optional<i64> task_priority, bool events_only_here, toml::array &out,
                 std::vector<workload::RtappMark> &marks);
  // rt-app's event record for the rtapp_event line and the statistics.
  workload::RtappMark event_mark(const JMember &m, std::string_view type, const std::string &task,
                                 std::size_t index, int id, bool modelled) const;

  const Error &err_;
  RtPolicy default_policy_ = RtPolicy::Other;
  const JValue *default_policy_at_ = nullptr;
  i64 duration_ns_ = 0;
  bool duration_set_ = false;
  toml::table scenario_, machine_ = default_machine(), kernel_;
  toml::array configs_, compares_;
  bool have_kernel_ = false;
  bool forever_ = true;  // every task loops forever so far
};

// A JSON value of the "schedlab" object as a TOML node, for the TOML reader to check.
toml::array to_toml_array(const JValue &v, const Error &err, const std::string &field);
toml::table to_toml_table(const JValue &v, const Error &err, const std::string &field);

template <typename Put>
void put_toml(const JValue &v, const Error &err, const std::string &field, Put put) {
  switch (v.type) {
    case JValue::Type::Bool:
      put(toml::value<bool>(v.b));
      return;
    case JValue::Type::Int:
      put(toml::value<i64>(v.i));
      return;
    case JValue::Type::Float:
      put(toml::value<double>(v.f));
      return;
    case JValue::Type::String:
      put(toml::value<std::string>(v.s));
      return;
    case JValue::Type::Array:
      put(to_toml_array(v, err, field));
      return;
    case JValue::Type::Object:
      put(to_toml_table(v, err, field));
      return;
    default:
      err.fail(v.line, v.col, field, fmt::format("expected a value, got {}", type_name(v)));
  }
}

toml::array to_toml_array(const JValue &v, const Error &err, const std::string &field) {
  toml::array a;
  for (size_t k = 0; k < v.arr.size(); ++k)
    put_toml(v.arr[k], err, fmt::format("{}[{}]", field, k),
             [&](auto &&n) { a.push_back(std::move(n)); });
  return a;
}

toml::table to_toml_table(const JValue &v, const Error &err, const std::string &field) {
  if (v.type != JValue::Type::Object)
    err.fail(v.line, v.col, field, fmt::format("expected an object, got {}", type_name(v)));
  toml::table t;
  for (const JMember &m : v.obj) {
    const std::string f = field + "." + m.key;
    if (t.contains(m.key)) err.fail(m.line, m.col, f, "duplicate key");
    put_toml(m.value, err, f, [&](auto &&n) { t.insert(m.key, std::move(n)); });
  }
  return t;
}

void Translator::read_global(const JValue &g) {
  if (g.type != JValue::Type::Object)
    fail(g, "global", fmt::format("expected an object, got {}", type_name(g)));
  for (const JMember &m : g.obj) {
    const std::string field = "global." + m.key;
    if (m.key == "duration") {
      const i64 d = integer(m.value, field, -1, std::numeric_limits<i64>::max() / 1000000000);
      // -1: until every thread has ended, which is also what duration 0 means here.
      duration_ns_ = d < 0 ? 0 : d * 1000000000;
      duration_set_ = d > 0;
    } else if (m.key == "default_policy") {
      if (m.value.type != JValue::Type::String)
        fail(m.value, field, fmt::format("expected a string, got {}", type_name(m.value)));
      if (!policy_of(m.value.s))
        fail(m.value, field, fmt::format("unknown policy '{}'", m.value.s));
      // Refused only when a task actually runs with it (see read_task).
      default_policy_ = *policy_of(m.value.s);
      default_policy_at_ = &m.value;
    } else if (m.key == "ftrace") {
      // rt-app's trace_marker lines: a list of categories, or the older boolean (true: all).
      if (m.value.type == JValue::Type::Bool) {
        rtapp_log.categories = m.value.b ? workload::kRtappMain | workload::kRtappTask |
                                               workload::kRtappLoop | workload::kRtappEvent |
                                               workload::kRtappStats | workload::kRtappAttrs
                                         : 0;
      } else if (m.value.type == JValue::Type::String) {
        std::string bad;
        if (!workload::parse_rtapp_categories(m.value.s, &rtapp_log.categories, &bad))
          fail(m.value, field,
               fmt::format("unknown category '{}' (rt-app's: main, task, loop, event, stats, "
                           "none, comma-separated)",
                           bad));
      } else {
        fail(m.value, field,
             fmt::format("expected a string of categories (e.g. \"main,task,loop\") or a "
                         "boolean, got {}",
                         type_name(m.value)));
      }
    } else if (m.key == "cumulative_slack") {
      if (m.value.type != JValue::Type::Bool)
        fail(m.value, field, fmt::format("expected a boolean, got {}", type_name(m.value)));
      rtapp_log.cumulative_slack = m.value.b;  // the slack of rtapp_stats lines
    } else if (m.key == "calibration" || m.key == "pi_enabled" || m.key == "lock_pages" ||
               m.key == "logdir" || m.key == "log_basename" || m.key == "log_size" ||
               m.key == "gnuplot" || m.key == "io_device" || m.key == "mem_buffer_size" ||
               m.key == "frag") {
      // MODEL: calibration, logging and memory locking change how real rt-app measures and
      // burns CPU, not the workload; "run" is work at full speed, calibrated exactly. ("frag"
      // is in rt-app's shipped examples but unknown to its parser.)
    } else {
      fail(m, field,
           "unknown key (rt-app's global keys: duration, calibration, default_policy, "
           "pi_enabled, lock_pages, logdir, log_basename, log_size, ftrace, gnuplot, "
           "io_device, mem_buffer_size, cumulative_slack)");
    }
  }
}

void Translator::read_schedlab(const JValue &s) {
  if (s.type != JValue::Type::Object)
    fail(s, "schedlab", fmt::format("expected an object, got {}", type_name(s)));
  for (const JMember &m : s.obj) {
    const std::string field = "schedlab." + m.key;
    if (m.key == "name" || m.key == "description" || m.key == "seed") {
      put_toml(m.value, err_, field,
               [&](auto &&n) { scenario_.insert_or_assign(m.key, std::move(n)); });
    } else if (m.key == "duration") {
      // A schedlab duration ("2s", or ns) wins over global.duration.
      put_toml(m.value, err_, field,
               [&](auto &&n) { scenario_.insert_or_assign(m.key, std::move(n)); });
      duration_set_ = true;
    } else if (m.key == "machine") {
      machine_ = to_toml_table(m.value, err_, field);
    } else if (m.key == "kernel") {
      kernel_ = to_toml_table(m.value, err_, field);
      have_kernel_ = true;
    } else if (m.key == "configs") {
      configs_ = to_toml_array(m.value, err_, field);
    } else if (m.key == "compares") {
      compares_ = to_toml_array(m.value, err_, field);
    } else {
      fail(m, field,
           "unknown key (expected one of: name, description, seed, duration, machine, kernel, "
           "configs, compares)");
    }
  }
}

i64 Translator::read_phase(const JValue &obj, const std::string &task, std::size_t index,
                           const std::string &phase, std::vector<Origin> &out_origins,
                           const std::vector<int> &task_cpus, RtPolicy task_policy,
                           std::optional<i64> task_priority, bool task_level, toml::array &out,
                           std::vector<workload::RtappMark> &marks) {
  const std::string where = task + ":" + phase;
  i64 loop = 1;
  bool any_event = false;
  for (const JMember &m : obj.obj) {
    const std::string field = where + ":" + m.key;
    if (auto type = event_type(m.key)) {
      any_event = true;
      const std::string why = unsupported_reason(*type);
      if (!why.empty()) fail(m, field, fmt::format("{} event: {}", *type, why));
      const int id = static_cast<int>(marks.size());
      if (*type != "run" && *type != "runtime" && *type != "sleep") {
        auto e = sync_event(m, *type, task, field);
        marks.push_back(event_mark(m, *type, task, index, id, e.has_value()));
        if (e) {
          out.push_back(std::move(*e));
          out_origins.push_back({m.line, m.col, field});
        }
        continue;
      }
      const i64 ns = usec(m.value, field);
      // MODEL: rt-app's "run" of t us is floor(t * 1000 / ns_per_loop) loops of its calibration
      // workload; here it is exactly t us of work at full speed. A zero run or sleep does
      // nothing in either.
      marks.push_back(event_mark(m, *type, task, index, id, ns != 0));
      if (ns == 0) continue;
      out.push_back(toml::table{{std::string(*type), ns}});
      out_origins.push_back({m.line, m.col, field});
      continue;
    }
    if (m.key == "loop") {
      loop = integer(m.value, field, -1, std::numeric_limits<i64>::max());
      if (loop == 0) fail(m, field, "loop 0 would run nothing (use -1 for forever, or >= 1)");
      continue;
    }
    if (task_level) continue;  // the task's own keys, read by read_task
    if (m.key == "cpus") {
      if (cpus(m.value, field) != task_cpus)
        fail(m, field,
             "changing the affinity per phase is not modelled (a task's cpus are fixed); give "
             "the phase the task's cpus or drop the key");
    } else if (m.key == "policy") {
      if (policy(m.value, field) != task_policy)
        fail(m, field, "changing the policy per phase is not modelled");
    } else if (m.key == "priority") {
      if (integer(m.value, field, -20, 19) != task_priority.value_or(0))
        fail(m, field, "changing the priority (nice) per phase is not modelled");
    } else if (m.key == "taskgroup") {
      if (m.value.type != JValue::Type::String || !m.value.s.empty())
        fail(m, field, "taskgroups (cgroups) are not modelled");
    } else if (m.key == "nodes_membind") {
      fail(m, field, "NUMA memory binding is not modelled");
    } else if (m.key == "util_min" || m.key == "util_max") {
      fail(m, field, "utilization clamping is not modelled");
    } else if (m.key == "dl-runtime" || m.key == "dl-period" || m.key == "dl-deadline") {
      fail(m, field, "SCHED_DEADLINE parameters and custom slices are not modelled");
    } else {
      fail(m, field,
           "unknown key (not an rt-app event, nor loop, cpus, policy, priority, taskgroup, "
           "nodes_membind, util_min, util_max)");
    }
  }
  if (!any_event)
    fail(obj, where, "no events (rt-app refuses a phase without events, and so does schedlab)");
  return loop;
}

// rt-app's name for an event (parse_task_event_data() in rt-app_parse_config.c): the key, or
// "key:resource" for the events that name resources. The value was checked by sync_event().
workload::RtappMark Translator::event_mark(const JMember &m, std::string_view type,
                                           const std::string &task, std::size_t index, int id,
                                           bool modelled) const {
  workload::RtappMark mk;
  mk.kind = workload::RtappMark::Kind::Event;
  mk.id = id;
  mk.modelled = modelled;
  const JValue &v = m.value;
  const auto str = [&](std::string_view key, const char *dflt) {
    if (v.type == JValue::Type::Object)
      for (const JMember &x : v.obj)
        if (x.key == key && x.value.type == JValue::Type::String) return x.value.s;
    return std::string(dflt);
  };
  bool unique = false;
  if (type == "run" || type == "runtime" || type == "sleep" || type == "yield") {
    mk.desc = rtapp_desc(m.key, 47);
    if (type != "sleep" && type != "yield") {
      mk.stat = workload::RtappMark::Stat::Run;
      mk.usec = v.i;
    }
  } else if (type == "timer") {
    std::string ref = str("ref", "unknown");
    // rt-app makes a "unique" timer's name its own by appending the address of the task's
    // data; a memory address is not reproducible, so the task's index in the file stands in.
    unique = ref.rfind("unique", 0) == 0;
    if (unique) ref = rtapp_desc(fmt::format("{}{:x}", ref, index), 63);
    mk.desc = rtapp_desc(fmt::format("{}:{}", m.key, ref), 46);
    mk.stat = workload::RtappMark::Stat::Timer;
    for (const JMember &x : v.obj)
      if (x.key == "period") mk.usec = x.value.i;
  } else if (type == "wait" || type == "sync") {
    mk.desc = rtapp_desc(fmt::format("{}:{}:{}", m.key, str("ref", ""), str("mutex", "")), 46);
  } else {
    // lock, unlock, signal, broad, barrier: "key:name"; suspend, resume: "key:name:name" (the
    // condition and its mutex share the name). A bare key names the task itself.
    const std::string name = v.type == JValue::Type::String ? v.s : task;
    mk.desc = type == "suspend" || type == "resume"
                  ? rtapp_desc(fmt::format("{}:{}:{}", m.key, name, name), 46)
                  : rtapp_desc(fmt::format("{}:{}", m.key, name), 46);
  }
  mk.type = rtapp_type(type, unique);
  return mk;
}

std::optional<toml::table> Translator::sync_event(const JMember &m, std::string_view type,
                                                  const std::string &task,
                                                  const std::string &field) const {
  const JValue &v = m.value;
  if (type == "timer") {
    if (v.type != JValue::Type::Object)
      fail(v, field,
           fmt::format("expected an object {{ \"ref\", \"period\" }}, got {}", type_name(v)));
    for (const JMember &x : v.obj)
      if (x.key != "ref" && x.key != "period" && x.key != "mode")
        fail(x, field + "." + x.key, "unknown key (a timer has ref, period and mode)");
    const i64 period = usec(member(v, "period", field), field + ".period");
    // rt-app's default ref is "unknown", a timer shared by every thread that omits it.
    std::string ref = "unknown";
    std::string mode = "relative";  // rt-app's default
    for (const JMember &x : v.obj) {
      if (x.key == "ref") ref = name_of(x.value, field + ".ref");
      if (x.key == "mode") {
        mode = name_of(x.value, field + ".mode");
        if (mode != "absolute" && mode != "relative")
          fail(x.value, field + ".mode",
               fmt::format("expected \"absolute\" or \"relative\", got \"{}\"", mode));
      }
    }
    // A period of 0 never sleeps (template.json's way of turning its timer off).
    if (period == 0) return std::nullopt;
    return toml::table{{"timer", period}, {"ref", ref}, {"mode", mode}};
  }
  if (type == "yield") return toml::table{{"yield", true}};  // rt-app ignores the value
  if (type == "wait" || type == "sync") {
    if (v.type != JValue::Type::Object)
      fail(v, field,
           fmt::format("expected an object {{ \"ref\", \"mutex\" }}, got {}", type_name(v)));
    return toml::table{{std::string(type), name_of(member(v, "ref", field), field + ".ref")},
                       {"mutex", name_of(member(v, "mutex", field), field + ".mutex")}};
  }
  // A bare key is workgen's shorthand for the thread's own name. suspend waits on the condition
  // its value names, as in rt-app 1.0 (Debian's, which its examples are written for; rt-app
  // after May 2025 ignores the value and always uses the thread's name).
  const std::string name = v.type == JValue::Type::Missing ? task : name_of(v, field);
  const std::string key = type == "broad" ? "broadcast" : std::string(type);
  return toml::table{{key, name}};
}

toml::table Translator::read_task(const Task &t, std::size_t group) {
  const JValue &obj = *t.obj;
  if (obj.type != JValue::Type::Object)
    err_.fail(t.line, t.col, t.name, fmt::format("expected an object, got {}", type_name(obj)));
  const JValue *phases = nullptr;
  for (const JMember &m : obj.obj)
    if (m.key == "phases") phases = &m.value;

  i64 instance = 1, delay_ns = 0;
  std::optional<i64> loop, priority;
  std::vector<int> task_cpus;
  RtPolicy pol = default_policy_;
  const JValue *policy_at = nullptr;
  for (const JMember &m : obj.obj) {
    const std::string field = t.name + ":" + m.key;
    if (m.key == "instance") {
      instance = integer(m.value, field, 0, 1000000);
    } else if (m.key == "loop") {
      loop = integer(m.value, field, -1, std::numeric_limits<i64>::max());
      if (*loop == 0) fail(m, field, "loop 0 would run nothing (use -1 for forever, or >= 1)");
    } else if (m.key == "delay") {
      delay_ns = usec(m.value, field);
    } else if (m.key == "cpus") {
      task_cpus = cpus(m.value, field);
    } else if (m.key == "policy") {
      pol = policy(m.value, field);
      policy_at = &m.value;
    } else if (m.key == "priority") {
      // For the fair class rt-app's priority is the nice value.
      priority = integer(m.value, field, -20, 19);
    } else if (m.key == "phases") {
      if (m.value.type != JValue::Type::Object)
        fail(m.value, field, fmt::format("expected an object, got {}", type_name(m.value)));
    } else if (m.key == "taskgroup") {
      if (m.value.type != JValue::Type::String || !m.value.s.empty())
        fail(m, field, "taskgroups (cgroups) are not modelled");
    } else if (m.key == "nodes_membind") {
      fail(m, field, "NUMA memory binding is not modelled");
    } else if (m.key == "util_min" || m.key == "util_max") {
      fail(m, field, "utilization clamping is not modelled");
    } else if (m.key == "dl-runtime" || m.key == "dl-period" || m.key == "dl-deadline" ||
               m.key == "period" || m.key == "deadline" || (phases && m.key == "runtime")) {
      // rt-app reads the old names runtime/period/deadline in a task object as dl-*.
      fail(m, field, "SCHED_DEADLINE parameters and custom slices are not modelled");
    } else if (event_type(m.key)) {
      if (phases)
        fail(m, fmt::format("{}:-:{}", t.name, m.key),
             "event outside \"phases\" in a task that has a phases object (rt-app ignores it)");
    } else {
      fail(m, field,
           "unknown key (rt-app's task keys: instance, loop, delay, cpus, policy, priority, "
           "phases, taskgroup, nodes_membind, util_min, util_max, dl-runtime, dl-period, "
           "dl-deadline, and events)");
    }
  }
  if (!policy_at && default_policy_at_) policy(*default_policy_at_, "global.default_policy");

  toml::array body;
  const std::string gpath = fmt::format("group[{}]", group);
  origins[gpath] = {t.line, t.col, t.name};
  auto body_origin = [&](const Origin &o) {
    origins[fmt::format("{}.phases[{}]", gpath, body.size())] = o;
  };
  i64 thread_loop = 0;
  std::vector<PhaseLayout> &layout = layouts.emplace_back();
  if (phases) {
    size_t nr = phases->obj.size();
    if (nr == 0) fail(*phases, t.name + ":phases", "no phases");
    for (const JMember &p : phases->obj) {
      if (p.value.type != JValue::Type::Object)
        fail(p.value, t.name + ":" + p.key,
             fmt::format("expected an object, got {}", type_name(p.value)));
      toml::array events;
      std::vector<Origin> where;
      PhaseLayout &pl = layout.emplace_back();
      const i64 l = read_phase(p.value, t.name, t.index, p.key, where, task_cpus, pol, priority,
                               false, events, pl.events);
      pl.loop = l;
      pl.flat = l == 1 || (l < 0 && nr == 1);
      if (l < 0 && nr > 1)
        fail(p, t.name + ":" + p.key + ":loop",
             "a phase that loops forever (-1) is only supported in a task with one phase");
      if (l == 1 || (l < 0 && nr == 1)) {
        for (std::size_t i = 0; i < events.size(); i++) {
          body_origin(where[i]);
          body.push_back(std::move(*events.get(i)));
        }
      } else if (!events.empty()) {
        const std::string loop_path = fmt::format("{}.phases[{}]", gpath, body.size());
        for (std::size_t i = 0; i < where.size(); i++)
          origins[fmt::format("{}.phases[{}]", loop_path, i)] = where[i];
        body_origin({p.line, p.col, t.name + ":" + p.key});
        body.push_back(toml::table{{"loop", l}, {"phases", std::move(events)}});
      }
      if (l < 0) loop = -1;
    }
    thread_loop = loop.value_or(-1);
  } else {
    // Without "phases" the task object is its one phase; its "loop" is the phase's, and then
    // the thread runs that phase once; without "loop" it repeats forever.
    std::vector<Origin> where;
    PhaseLayout &pl = layout.emplace_back();
    const i64 l = read_phase(obj, t.name, t.index, "-", where, task_cpus, pol, priority, true, body,
                             pl.events);
    // rt-app runs the task object as one phase of `loop` iterations, once.
    pl.loop = l;
    for (std::size_t i = 0; i < where.size(); i++)
      origins[fmt::format("{}.phases[{}]", gpath, i)] = where[i];
    thread_loop = loop ? (l < 0 ? -1 : l) : -1;
  }
  if (body.empty())
    err_.fail(t.line, t.col, t.name, "every event has zero duration: nothing for schedlab to run");

  toml::table g{{"name", t.name},
                {"count", instance},
                {"loops", thread_loop < 0 ? 0 : thread_loop},
                {"phases", std::move(body)}};
  if (priority) g.insert("nice", *priority);
  if (pol == RtPolicy::Batch) g.insert("policy", "batch");
  if (pol == RtPolicy::Idle) g.insert("policy", "idle");
  if (!task_cpus.empty()) {
    std::string list;
    for (int c : task_cpus) {
      if (!list.empty()) list += ',';
      list += std::to_string(c);
    }
    g.insert("cpus", list);
  }
  if (delay_ns) g.insert("start", delay_ns);
  // A group whose loops are finite ends; the scenario needs a duration if none does.
  forever_ = forever_ && thread_loop < 0;
  return g;
}

toml::table Translator::translate(const JValue &root, const std::string &stem) {
  if (root.type != JValue::Type::Object)
    fail(root, "rt-app", fmt::format("expected an object at the top, got {}", type_name(root)));
  const JValue *tasks = nullptr;
  for (const JMember &m : root.obj) {
    if (m.key == "tasks") {
      tasks = &m.value;
    } else if (m.key == "global") {
      read_global(m.value);
    } else if (m.key == "schedlab") {
      read_schedlab(m.value);
    } else if (m.key == "resources") {
      // MODEL: rt-app creates resources when events use them; declared ones change nothing.
    } else {
      fail(m, m.key,
           "unknown top-level key (rt-app's: tasks, global, resources; schedlab's own: "
           "schedlab)");
    }
  }
  if (!tasks) err_.fail(0, 0, "tasks", "missing required object \"tasks\"");
  if (tasks->type != JValue::Type::Object)
    fail(*tasks, "tasks", fmt::format("expected an object, got {}", type_name(*tasks)));
  toml::array groups;
  std::size_t index = 0;
  for (const JMember &m : tasks->obj) {
    toml::table g = read_task(Task{m.key, &m.value, m.line, m.col, index++}, groups.size());
    // instance 0: rt-app creates the task's structures but no thread (it could be forked,
    // which schedlab refuses anyway).
    if (g["count"].value_or<i64>(1) == 0) {
      layouts.pop_back();
      continue;
    }
    groups.push_back(std::move(g));
  }
  if (groups.empty())
    fail(*tasks, "tasks", "no task with at least one instance (a scenario needs a thread)");
  if (!duration_set_ && forever_)
    err_.fail(0, 0, "global.duration",
              "every task loops forever (loop -1) and no duration is set: set global.duration "
              "(seconds) or schedlab.duration");

  if (!scenario_.contains("name")) scenario_.insert("name", stem.empty() ? "rt-app" : stem);
  if (!scenario_.contains("duration")) scenario_.insert("duration", duration_ns_);
  toml::table out{{"scenario", std::move(scenario_)}, {"machine", std::move(machine_)}};
  if (have_kernel_) out.insert("kernel", std::move(kernel_));
  out.insert("group", std::move(groups));
  if (!configs_.empty()) out.insert("config", std::move(configs_));
  if (!compares_.empty()) out.insert("compare", std::move(compares_));
  return out;
}

// The TOML reader names its fields as in a TOML scenario and has no positions for a table built
// in memory; say where the value came from in the rt-app file instead.
std::string reword(const std::string &what, const std::string &file,
                   const std::map<std::string, Translator::Origin> &origins) {
  const std::string head = file + ":1:1: error: ";
  if (what.rfind(head, 0) != 0) return what;
  std::string rest = what.substr(head.size());
  auto starts = [&](std::string_view p) { return rest.rfind(p, 0) == 0; };
  const std::size_t colon = rest.find(": ");
  if (starts("group[") && colon != std::string::npos) {
    // The deepest translated group or phase the field lies in: its rt-app position and name,
    // then what is left of the field unless it only repeats the event's name. Every group
    // is in origins, so a group's field finds at least its task.
    const std::string field = rest.substr(0, colon);
    for (std::string prefix = field; !prefix.empty();) {
      if (auto it = origins.find(prefix); it != origins.end()) {
        const Translator::Origin &o = it->second;
        std::string name = o.field;
        std::string tail = field.substr(prefix.size());
        if (!tail.empty() && tail[0] == '.') tail.erase(0, 1);
        const std::size_t last = name.rfind(':');
        std::string event = last == std::string::npos ? name : name.substr(last + 1);
        while (!event.empty() && std::isdigit(static_cast<unsigned char>(event.back())))
          event.pop_back();  // rt-app's "lock1", "run2": the same event kinds
        if (!tail.empty() && tail != event && !(event == "broad" && tail == "broadcast"))
          name += (last == std::string::npos ? ":" : ".") + tail;
        return fmt::format("{}:{}:{}: error: {}{}", file, o.line, o.col, name, rest.substr(colon));
      }
      const std::size_t dot = prefix.rfind('.');
      prefix = dot == std::string::npos ? "" : prefix.substr(0, dot);
    }
  }
  if (starts("config")) {
    rest = "schedlab.configs" + rest.substr(6);
  } else if (starts("compare")) {
    rest = "schedlab.compares" + rest.substr(7);
  } else if (starts("scenario.")) {
    rest = "schedlab." + rest.substr(9);
  } else if (starts("machine") || starts("kernel")) {
    rest = "schedlab." + rest;
  }
  return file + ": error: " + rest;
}

// Puts rt-app's marks into the translated groups: each rt-app phase's instance starts with a
// LoopStart mark and ends with a LoopEnd mark, and each event, modelled or not, is preceded by
// its Event mark, where rt-app writes its lines. The translated phases keep their order and
// loops (Translator::read_task): a phase's events are either in the task's body or the body
// of one Loop phase, or absent when none is modelled.
void add_marks(Scenario &s, const std::vector<std::vector<Translator::PhaseLayout>> &layouts) {
  using workload::Phase;
  using workload::RtappMark;
  if (layouts.size() != s.groups.size()) throw std::logic_error("rt-app marks: group count");
  const auto mark = [&](RtappMark m) {
    Phase ph;
    ph.kind = Phase::Kind::Mark;
    ph.res = static_cast<std::uint32_t>(s.marks.size());
    s.marks.push_back(std::move(m));
    return ph;
  };
  for (std::size_t g = 0; g < layouts.size(); g++) {
    std::vector<Phase> old = std::move(s.groups[g].phases);
    std::vector<Phase> &body = s.groups[g].phases;
    body.clear();
    std::size_t k = 0;  // next translated phase in `old`
    const auto nr_phases = static_cast<std::uint32_t>(layouts[g].size());
    for (const Translator::PhaseLayout &pl : layouts[g]) {
      std::size_t modelled = 0;
      for (const RtappMark &e : pl.events) modelled += e.modelled ? 1 : 0;
      std::vector<Phase> events;  // the translated phases of this rt-app phase
      if (pl.flat) {
        if (k + modelled > old.size()) throw std::logic_error("rt-app marks: phases");
        for (std::size_t i = 0; i < modelled; i++) events.push_back(std::move(old[k++]));
      } else if (modelled > 0) {
        if (k >= old.size() || old[k].kind != Phase::Kind::Loop || old[k].body.size() != modelled)
          throw std::logic_error("rt-app marks: loop");
        events = std::move(old[k++].body);
      }
      std::vector<Phase> inner;
      RtappMark start;
      start.kind = RtappMark::Kind::LoopStart;
      inner.push_back(mark(start));
      std::size_t next = 0;
      for (const RtappMark &e : pl.events) {
        inner.push_back(mark(e));
        if (e.modelled) inner.push_back(std::move(events[next++]));
      }
      RtappMark end;
      end.kind = RtappMark::Kind::LoopEnd;
      end.nr_phases = nr_phases;
      end.phase_loops = pl.loop;
      inner.push_back(mark(end));
      if (pl.flat) {
        for (Phase &ph : inner) body.push_back(std::move(ph));
      } else {
        Phase loop;
        loop.kind = Phase::Kind::Loop;
        loop.count = static_cast<std::uint64_t>(pl.loop);
        loop.body = std::move(inner);
        body.push_back(std::move(loop));
      }
    }
    if (k != old.size()) throw std::logic_error("rt-app marks: leftover phases");
  }
}

}  // namespace

Scenario parse_rtapp(std::string_view text, const std::string &file_name) {
  const Error err(file_name);
  const JValue root = Parser(text, err).parse_document();
  Translator tr(err);
  const toml::table table = tr.translate(root, std::filesystem::path(file_name).stem().string());
  Scenario s;
  try {
    s = read_scenario_table(table, file_name);
  } catch (const ScenarioError &e) {
    throw ScenarioError(reword(e.what(), file_name, tr.origins));
  }
  // rt-app's ftrace log: only when the file asks for it, so that its Mark phases (which take
  // no time) are absent from every other run.
  s.rtapp_log = tr.rtapp_log;
  if (s.rtapp_log.categories) add_marks(s, tr.layouts);
  return s;
}

}  // namespace schedlab::scenario
