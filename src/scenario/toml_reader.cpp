// SPDX-License-Identifier: GPL-2.0-only
// Reads a scenario file. toml++ does the TOML; everything after that is checked here, key by
// key, so that each mistake comes back as one line naming the file position, the dotted field
// and what is wrong, which is what an editor or a CI log can point at.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/features.h"
#include "kernel/tunables.h"
#include "machine/cpumask.h"
#include "machine/host_topology.h"
#include "machine/idle_states.h"
#include "machine/topology.h"
#include "scenario/limits.h"
#include "scenario/scenario.h"
#include "scenario/table_reader.h"

namespace schedlab::scenario {

namespace {

std::atomic<std::uint64_t> g_max_work{kDefaultMaxWork};
std::atomic<std::uint64_t> g_max_duration{kDefaultMaxDurationNs};

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Phase executions of one pass over `phases`, inner loops multiplied out.
std::uint64_t phase_work(const std::vector<workload::Phase> &phases) {
  std::uint64_t n = 0;
  for (const workload::Phase &p : phases)
    n = sat_add(n, p.kind == workload::Phase::Kind::Loop
                       ? sat_add(1, sat_mul(p.count, phase_work(p.body)))
                       : 1);
  return n;
}

// What one group asks for (see limits.h); 0 for tasks bounded by the duration only.
std::uint64_t group_work(const TaskGroupSpec &g) {
  using Kind = workload::Benchmark::Kind;
  if (g.bench.kind == Kind::Hackbench) {
    const workload::HackbenchSpec &h = g.bench.hackbench;
    // every sender writes `loops` messages to each receiver of its group, and each is read
    const auto per_loop = sat_mul(
        2, sat_mul(static_cast<std::uint64_t>(h.groups),
                   sat_mul(static_cast<std::uint64_t>(h.fds), static_cast<std::uint64_t>(h.fds))));
    return sat_mul(per_loop, h.loops);
  }
  if (g.bench.kind != Kind::None || g.stress || g.loops == 0) return 0;
  return sat_mul(static_cast<std::uint64_t>(g.count),
                 sat_mul(g.loops, std::max<std::uint64_t>(1, phase_work(g.phases))));
}

using i64 = std::int64_t;
constexpr i64 kI64Max = std::numeric_limits<i64>::max();

// validate() multiplies these together; bounding each keeps that product from overflowing.
constexpr i64 kMaxTopologyCount = 8192;

struct Pos {
  toml::source_index line = 1, column = 1;
};

// toml++ leaves positions at 0 for nodes it synthesised; those take their parent's position.
Pos pos_of(const toml::source_region &r, Pos fallback = {}) {
  if (r.begin.line == 0) return fallback;
  return {r.begin.line, r.begin.column};
}

std::string join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string element(std::string_view path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

std::string_view type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Error messages quote the user's strings, which may hold newlines or control characters;
// escaping them keeps every error on one line.
std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_list(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// Names that become comms (groups, process groups): [A-Za-z0-9_.-]+.
bool valid_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// "a, b, c, d, e, f, ...": at most `max` names, so that an error about a 10000-task scenario
// still fits on a line.
template <typename Names>
std::string short_list(const Names &names, size_t max = 6) {
  std::string out;
  size_t n = 0;
  for (const auto &name : names) {
    if (n++ == max) return out + ", ...";
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// Whether `task` is one of g's tasks, without listing them (a group may have a million).
bool group_has_task(const TaskGroupSpec &g, std::string_view task) {
  if (g.count == 1 && !g.per_cpu) return task == g.name;
  const char sep = g.per_cpu ? '/' : '-';
  if (task.size() <= g.name.size() + 1 || task.substr(0, g.name.size()) != g.name ||
      task[g.name.size()] != sep)
    return false;
  const std::string_view digits = task.substr(g.name.size() + 1);
  if (digits.size() > 7 || (digits.size() > 1 && digits[0] == '0')) return false;  // count <= 1e6
  int i = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    i = i * 10 + (c - '0');
  }
  return i < g.count;
}

// The first few task names of the scenario, for error messages.
std::string some_tasks(const std::vector<TaskGroupSpec> &groups, size_t max = 6) {
  std::vector<std::string> names;
  for (const TaskGroupSpec &g : groups)
    for (int i = 0; i < g.count && names.size() <= max; ++i) names.push_back(task_name(g, i));
  return short_list(names, max);
}

struct Entry {
  const toml::key *key;
  const toml::node *value;
};

// toml++ keeps a table's keys sorted by name; checking them in file order instead makes the
// first error reported the first one in the file.
std::vector<Entry> in_file_order(const toml::table &t) {
  std::vector<Entry> out;
  for (auto &&[k, v] : t) out.push_back({&k, &v});
  std::stable_sort(out.begin(), out.end(), [](const Entry &a, const Entry &b) {
    const auto &pa = a.key->source().begin, &pb = b.key->source().begin;
    return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
  });
  return out;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(Pos where, std::string_view field, std::string_view msg) const {
    throw ScenarioError(one_line(
        fmt::format("{}:{}:{}: error: {}: {}", file_, where.line, where.column, field, msg)));
  }

  Scenario read(const toml::table &root) const;

 private:
  Pos at(const toml::node &n, Pos fallback = {}) const { return pos_of(n.source(), fallback); }
  Pos at(const toml::key &k, Pos fallback = {}) const { return pos_of(k.source(), fallback); }

  [[noreturn]] void wrong_type(const toml::node &n, std::string_view field,
                               std::string_view expected) const {
    fail(at(n), field, fmt::format("expected {}, got {}", expected, type_name(n.type())));
  }

  void check_keys(const toml::table &t, std::string_view path,
                  std::initializer_list<std::string_view> allowed) const;
  const toml::table *subtable(const toml::table &parent, std::string_view key,
                              std::string_view path) const;
  const toml::array &array(const toml::node &n, std::string_view field) const;
  std::vector<const toml::table *> tables(const toml::node &n, std::string_view field) const;
  i64 integer(const toml::node &n, std::string_view field, i64 lo, i64 hi) const;
  bool boolean(const toml::node &n, std::string_view field) const;
  std::string string(const toml::node &n, std::string_view field) const;
  Time duration(const toml::node &n, std::string_view field) const;
  Dist dist(const toml::node &n, std::string_view field) const;
  // A kernel cpulist string ("0-3,8") of CPUs the machine has.
  std::vector<int> cpulist(const toml::node &n, std::string_view field, int nr_cpus) const;
  std::vector<int> nohz_full(const toml::node &n, std::string_view field, int nr_cpus) const;

  void read_scenario(const toml::table &t, Scenario &s) const;
  void read_machine(const toml::table &t, Scenario &s) const;
  void read_costs(const toml::table &t, MachineCosts &c) const;
  void read_idle(const toml::table &t, Scenario &s) const;
  void read_kernel(const toml::table &t, kernel::KernelConfig &k, int nr_cpus) const;
  void read_features(const toml::table &t, std::string_view path,
                     std::vector<std::pair<kernel::sched_feat_id, bool>> &out) const;
  void read_tunables(const toml::table &t, std::string_view path,
                     std::vector<std::pair<kernel::sched_tunable_id, i64>> &out) const;
  TaskGroupSpec read_group(const toml::table &t, const std::string &path, int nr_cpus,
                           const MachineCosts &costs) const;
  // hackbench / schbench / fork = { ... }: returns false if the group has none of them.
  bool read_benchmark(const toml::table &t, const std::string &path, int nr_cpus,
                      TaskGroupSpec &g) const;
  std::vector<Phase> read_phases(const toml::node &n, const std::string &path) const;
  Phase read_phase(const toml::node &n, const std::string &path) const;
  // The index of a named timer, barrier, condition or mutex, added on first use.
  std::uint32_t resource(workload::Resource::Kind kind, const std::string &name) const;
  void check_locks(const toml::node &n, const std::string &path, const Phase &p) const;
  ConfigSpec read_config(const toml::table &t, const std::string &path, const Scenario &s) const;
  CookieShorthand read_cookie(const toml::node &n, const std::string &path,
                              const Scenario &s) const;
  PrctlOp read_prctl(const toml::node &n, const std::string &path, const Scenario &s) const;
  void check_task(const toml::node &n, std::string_view field, const std::string &task,
                  const Scenario &s) const;
  void read_compare(const toml::table &t, const std::string &path, Scenario &s,
                    const std::map<std::string, size_t> &config_index) const;

  std::string file_;
  mutable std::vector<workload::Resource> resources_;  // read() hands them to the Scenario
  // The mutexes a group's task holds at the phase being read (check_locks()).
  mutable std::vector<std::uint32_t> held_;
};

void Reader::check_keys(const toml::table &t, std::string_view path,
                        std::initializer_list<std::string_view> allowed) const {
  for (const Entry &e : in_file_order(t)) {
    if (std::find(allowed.begin(), allowed.end(), e.key->str()) != allowed.end()) continue;
    // A [header] table's own position is its '[', which reads better than the key inside.
    Pos where = at(*e.key, at(t));
    const Pos value = at(*e.value, where);
    if (std::pair(value.line, value.column) < std::pair(where.line, where.column)) where = value;
    fail(where, join(path, e.key->str()),
         fmt::format("unknown key (expected one of: {})", format_list(allowed)));
  }
}

const toml::table *Reader::subtable(const toml::table &parent, std::string_view key,
                                    std::string_view path) const {
  const toml::node *n = parent.get(key);
  if (!n) return nullptr;
  if (!n->is_table()) wrong_type(*n, join(path, key), "a table");
  return n->as_table();
}

const toml::array &Reader::array(const toml::node &n, std::string_view field) const {
  if (!n.is_array()) wrong_type(n, field, "an array");
  return *n.as_array();
}

// [[name]] sections; an inline array of inline tables is the same thing in TOML.
std::vector<const toml::table *> Reader::tables(const toml::node &n, std::string_view field) const {
  if (!n.is_array()) wrong_type(n, field, fmt::format("an array of tables ([[{}]])", field));
  std::vector<const toml::table *> out;
  for (const toml::node &e : *n.as_array()) {
    if (!e.is_table()) wrong_type(e, element(field, out.size()), "a table");
    out.push_back(e.as_table());
  }
  return out;
}

i64 Reader::integer(const toml::node &n, std::string_view field, i64 lo, i64 hi) const {
  if (!n.is_integer()) wrong_type(n, field, "an integer");
  const i64 v = n.as_integer()->get();
  if (v >= lo && v <= hi) return v;
  if (hi == kI64Max) fail(at(n), field, fmt::format("must be at least {}, got {}", lo, v));
  fail(at(n), field, fmt::format("must be between {} and {}, got {}", lo, hi, v));
}

bool Reader::boolean(const toml::node &n, std::string_view field) const {
  if (!n.is_boolean()) wrong_type(n, field, "a boolean (true or false)");
  return n.as_boolean()->get();
}

std::string Reader::string(const toml::node &n, std::string_view field) const {
  if (!n.is_string()) wrong_type(n, field, "a string");
  return n.as_string()->get();
}

// A duration is written as a string with a unit, or as a plain integer number of ns (handy for
// generated files).
Time Reader::duration(const toml::node &n, std::string_view field) const {
  if (n.is_integer()) return static_cast<Time>(integer(n, field, 0, kI64Max));
  if (!n.is_string()) wrong_type(n, field, "a duration (a string such as \"10ms\", or ns)");
  std::string why;
  auto t = parse_duration(n.as_string()->get(), &why);
  if (!t) fail(at(n), field, why);
  return *t;
}

Dist Reader::dist(const toml::node &n, std::string_view field) const {
  if (n.is_integer()) return Dist{Dist::Kind::Const, duration(n, field), 0};
  if (!n.is_string())
    wrong_type(n, field, "a distribution (a string such as \"uniform(1ms, 5ms)\" or \"10ms\")");
  std::string why;
  auto d = parse_dist(n.as_string()->get(), &why);
  if (!d) fail(at(n), field, why);
  return *d;
}

std::vector<int> Reader::cpulist(const toml::node &n, std::string_view field, int nr_cpus) const {
  std::string why;
  auto cpus = parse_cpulist(string(n, field), &why);
  if (!cpus) fail(at(n), field, why);
  for (int c : *cpus)
    if (c >= nr_cpus)
      fail(at(n), field,
           nr_cpus == 1 ? fmt::format("cpu {} does not exist (the machine has 1 CPU: 0)", c)
                        : fmt::format("cpu {} does not exist (the machine has {} CPUs: 0-{})", c,
                                      nr_cpus, nr_cpus - 1));
  return std::move(*cpus);
}

// nohz_full = "1-7": "" for none (so that a [[config]] can turn it off again).
std::vector<int> Reader::nohz_full(const toml::node &n, std::string_view field, int nr_cpus) const {
  if (n.is_string() && n.as_string()->get().empty()) return {};
  std::vector<int> cpus = cpulist(n, field, nr_cpus);
  // The kernel keeps the boot CPU for housekeeping (with a warning) rather than boot without
  // one; a scenario says what it means instead.
  if (CpuMask::of(nr_cpus, cpus).weight() == nr_cpus)
    fail(at(n), field,
         fmt::format("names every CPU of the machine (0-{}): leave at least one out, for "
                     "housekeeping (timers, the idle load balancer, the remote tick)",
                     nr_cpus - 1));
  return cpus;
}

Scenario Reader::read(const toml::table &root) const {
  Scenario s;
  s.file = file_;
  check_keys(root, "", {"scenario", "machine", "kernel", "group", "config", "compare"});

  const toml::table *scen = subtable(root, "scenario", "");
  if (!scen) fail(Pos{}, "scenario", "missing required table [scenario]");
  read_scenario(*scen, s);

  const toml::table *machine = subtable(root, "machine", "");
  if (!machine) fail(Pos{}, "machine", "missing required table [machine]");
  read_machine(*machine, s);
  const int nr_cpus = s.topology.nr_cpus();

  if (const toml::table *k = subtable(root, "kernel", "")) read_kernel(*k, s.kernel, nr_cpus);

  const toml::node *groups = root.get("group");
  if (!groups)
    fail(Pos{}, "group", "missing required table [[group]] (a scenario needs at least one)");
  const std::vector<const toml::table *> group_tables = tables(*groups, "group");
  if (group_tables.empty())
    fail(at(*groups), "group", "must not be empty (a scenario needs at least one group)");
  std::map<std::string, size_t> group_index;
  std::uint64_t work = 0;
  for (const toml::table *g : group_tables) {
    const std::string path = element("group", s.groups.size());
    TaskGroupSpec spec = read_group(*g, path, nr_cpus, s.costs);
    work = sat_add(work, group_work(spec));
    if (work > max_work()) {
      const toml::node *loops = g->get("loops");
      if (const toml::node *h = g->get("hackbench");
          h && h->is_table() && h->as_table()->get("loops"))
        loops = h->as_table()->get("loops");
      fail(at(loops ? *loops : static_cast<const toml::node &>(*g)),
           join(path, spec.bench.kind == workload::Benchmark::Kind::Hackbench ? "hackbench.loops"
                                                                              : "loops"),
           fmt::format("the scenario asks for {} phase executions (tasks x loops x phases), "
                       "more than the limit of {}; raise it with --max-work N",
                       work == UINT64_MAX ? std::string("over 2^64") : std::to_string(work),
                       max_work()));
    }
    if (auto [it, fresh] = group_index.emplace(spec.name, s.groups.size()); !fresh)
      fail(at(*g->get("name")), join(path, "name"),
           fmt::format("duplicate group name '{}' (also group[{}] at line {})", spec.name,
                       it->second, s.groups[it->second].line));
    s.groups.push_back(std::move(spec));
  }

  std::map<std::string, size_t> config_index;
  if (const toml::node *configs = root.get("config")) {
    for (const toml::table *c : tables(*configs, "config")) {
      const std::string path = element("config", s.configs.size());
      ConfigSpec spec = read_config(*c, path, s);
      if (auto [it, fresh] = config_index.emplace(spec.name, s.configs.size()); !fresh)
        fail(at(*c->get("name")), join(path, "name"),
             fmt::format("duplicate config name '{}' (also config[{}] at line {})", spec.name,
                         it->second, s.configs[it->second].line));
      s.configs.push_back(std::move(spec));
    }
  }

  if (const toml::node *compares = root.get("compare"))
    for (const toml::table *c : tables(*compares, "compare"))
      read_compare(*c, element("compare", s.compares.size()), s, config_index);

  // With no duration the run ends when the last finite task exits; if there is none, it would
  // never end.
  for (const TaskGroupSpec &g : s.groups)
    if (g.bench.kind == workload::Benchmark::Kind::Vm && s.duration_ns == 0) {
      const toml::node *d = scen->get("duration");
      fail(d ? at(*d) : at(*scen), "scenario.duration",
           fmt::format("must be set and non-zero: group '{}' is a vm, and a VM runs until the "
                       "run's duration ends",
                       g.name));
    }
  const bool any_finite = std::any_of(s.groups.begin(), s.groups.end(), [](const TaskGroupSpec &g) {
    return !g.stress && g.loops && g.bench.kind != workload::Benchmark::Kind::Vm;
  });
  if (s.duration_ns == 0 && !any_finite) {
    const toml::node *d = scen->get("duration");
    fail(d ? at(*d) : at(*scen), "scenario.duration",
         "must be set and non-zero: every group runs forever (stress = true or loops = 0)");
  }
  s.resources = std::move(resources_);
  return s;
}

void Reader::read_scenario(const toml::table &t, Scenario &s) const {
  check_keys(t, "scenario", {"name", "description", "seed", "duration"});
  const toml::node *name = t.get("name");
  if (!name) fail(at(t), "scenario.name", "missing required key");
  s.name = string(*name, "scenario.name");
  if (s.name.empty()) fail(at(*name), "scenario.name", "must not be empty");
  if (const toml::node *n = t.get("description"))
    s.description = string(*n, "scenario.description");
  if (const toml::node *n = t.get("seed"))
    s.seed = static_cast<std::uint64_t>(integer(*n, "scenario.seed", 0, kI64Max));
  if (const toml::node *n = t.get("duration")) {
    s.duration_ns = duration(*n, "scenario.duration");
    if (s.duration_ns > max_duration_ns())
      fail(at(*n), "scenario.duration",
           fmt::format("{:g}s of simulated time is more than the limit of {:g}s; raise it with "
                       "--max-duration DURATION",
                       static_cast<double>(s.duration_ns) / 1e9,
                       static_cast<double>(max_duration_ns()) / 1e9));
  }
}

void Reader::read_machine(const toml::table &t, Scenario &s) const {
  check_keys(t, "machine",
             {"sockets", "llcs_per_socket", "clusters_per_llc", "cores_per_llc", "threads_per_core",
              "numbering", "numa_nodes", "numa_distances", "costs", "idle", "host"});
  TopologySpec &m = s.topology;
  if (const toml::node *h = t.get("host"); h && boolean(*h, "machine.host")) {
    // The machine is this host's, read from sysfs at load time; a shape key would contradict
    // it. SCHEDLAB_SYSFS_ROOT points the reader at another tree (tests).
    for (std::string_view key : {"sockets", "llcs_per_socket", "clusters_per_llc", "cores_per_llc",
                                 "threads_per_core", "numbering", "numa_nodes", "numa_distances"})
      if (const toml::node *n = t.get(key))
        fail(at(*n), join("machine", key),
             "not allowed with host = true (the host's topology decides it)");
    const char *root = std::getenv("SCHEDLAB_SYSFS_ROOT");
    try {
      m = read_host_topology(root && *root ? root : kDefaultSysfsRoot).spec;
    } catch (const HostTopologyError &e) {
      fail(at(*h), "machine.host", e.what());
    }
    s.host_machine = true;
    if (const toml::table *c = subtable(t, "costs", "machine")) read_costs(*c, s.costs);
    if (const toml::table *c = subtable(t, "idle", "machine")) read_idle(*c, s);
    return;
  }
  auto count = [&](std::string_view key, int &out, i64 lo) {
    if (const toml::node *n = t.get(key))
      out = static_cast<int>(integer(*n, join("machine", key), lo, kMaxTopologyCount));
  };
  count("sockets", m.sockets, 1);
  count("llcs_per_socket", m.llcs_per_socket, 1);
  count("clusters_per_llc", m.clusters_per_llc, 1);
  count("cores_per_llc", m.cores_per_llc, 1);
  count("threads_per_core", m.threads_per_core, 1);
  count("numa_nodes", m.numa_nodes, 0);
  if (const toml::node *n = t.get("numbering")) {
    const std::string v = string(*n, "machine.numbering");
    if (v == "x86") {
      m.numbering = CpuNumbering::X86;
    } else if (v == "adjacent") {
      m.numbering = CpuNumbering::Adjacent;
    } else {
      fail(at(*n), "machine.numbering",
           fmt::format("unknown numbering '{}' (expected one of: x86, adjacent)", v));
    }
  }
  if (const toml::node *n = t.get("numa_distances")) {
    const std::string path = "machine.numa_distances";
    for (const toml::node &row : array(*n, path)) {
      const std::string row_path = element(path, m.numa_distances.size());
      auto &out = m.numa_distances.emplace_back();
      for (const toml::node &d : array(row, row_path))
        out.push_back(static_cast<int>(integer(d, element(row_path, out.size()), 10, 255)));
    }
  }
  if (const toml::table *c = subtable(t, "costs", "machine")) read_costs(*c, s.costs);
  if (const toml::table *c = subtable(t, "idle", "machine")) read_idle(*c, s);

  // The cross-key rules (divisibility, NUMA shape) live with the topology itself.
  if (std::string why = validate(m); !why.empty()) fail(at(t), "machine", why);
}

// [machine.idle] states = "icx" (a table of machine/idle_states.h) or a list of
// { name, exit_latency, target_residency }, shallowest first, as cpuidle orders them.
void Reader::read_idle(const toml::table &t, Scenario &s) const {
  check_keys(t, "machine.idle", {"states"});
  const toml::node *n = t.get("states");
  if (!n) fail(at(t), "machine.idle.states", "missing (a preset name or a list of states)");
  std::vector<IdleStateSpec> states;
  std::vector<std::string> names;
  std::vector<Pos> where;
  if (n->is_string()) {
    const std::string name = string(*n, "machine.idle.states");
    const IdlePreset *p = find_idle_preset(name);
    if (!p) {
      std::string known;
      for (const IdlePreset &q : idle_presets())
        known += std::string(known.empty() ? "" : ", ") + q.name;
      fail(at(*n), "machine.idle.states",
           fmt::format("unknown preset '{}' (expected one of: {}, or a list of states)", name,
                       known));
    }
    s.idle_preset = name;
    for (const IdleStateSpec &st : p->states) {
      states.push_back(st);
      names.emplace_back(st.name);
    }
  } else {
    for (const toml::table *e : tables(*n, "machine.idle.states")) {
      const std::string path = element("machine.idle.states", states.size());
      check_keys(*e, path, {"name", "exit_latency", "target_residency"});
      auto need = [&](std::string_view key) -> const toml::node & {
        const toml::node *v = e->get(key);
        if (!v) fail(at(*e), join(path, key), "missing");
        return *v;
      };
      names.push_back(string(need("name"), join(path, "name")));
      if (names.back().empty() || names.back().size() > 15)
        fail(at(need("name")), join(path, "name"), "must be 1 to 15 characters (CPUIDLE_NAME_LEN)");
      states.push_back({nullptr, duration(need("exit_latency"), join(path, "exit_latency")),
                        duration(need("target_residency"), join(path, "target_residency"))});
      where.push_back(at(*e));
    }
    if (states.empty())
      fail(at(*n), "machine.idle.states", "empty (leave [machine.idle] out for none)");
  }
  if (states.size() > static_cast<std::size_t>(MachineCosts::kMaxIdleStates))
    fail(at(*n), "machine.idle.states",
         fmt::format("{} states; at most {}", states.size(), MachineCosts::kMaxIdleStates));
  for (std::size_t i = 1; i < states.size(); i++)
    if (states[i].exit_latency_ns < states[i - 1].exit_latency_ns ||
        states[i].target_residency_ns < states[i - 1].target_residency_ns)
      fail(where.empty() ? at(*n) : where[i], element("machine.idle.states", i),
           "states go from shallow to deep: exit_latency and target_residency may not decrease");
  s.costs.nr_idle_states = static_cast<int>(states.size());
  for (std::size_t i = 0; i < states.size(); i++) {
    s.costs.idle_exit_latency_ns[i] = states[i].exit_latency_ns;
    s.costs.idle_target_residency_ns[i] = states[i].target_residency_ns;
  }
  s.idle_state_names = std::move(names);
}

void Reader::read_costs(const toml::table &t, MachineCosts &c) const {
  check_keys(t, "machine.costs",
             {"context_switch", "wakeup_ipi", "migration_penalty", "cross_llc_migration_penalty",
              "smt_corun_speed", "newidle_balance_base", "newidle_balance_per_cpu"});
  auto cost = [&](std::string_view key, Time &out) {
    if (const toml::node *n = t.get(key)) out = duration(*n, join("machine.costs", key));
  };
  cost("context_switch", c.context_switch_ns);
  cost("wakeup_ipi", c.wakeup_ipi_ns);
  cost("migration_penalty", c.migration_penalty_ns);
  cost("cross_llc_migration_penalty", c.cross_llc_migration_penalty_ns);
  cost("newidle_balance_base", c.newidle_balance_base_ns);
  cost("newidle_balance_per_cpu", c.newidle_balance_per_cpu_ns);
  if (const toml::node *n = t.get("smt_corun_speed")) {
    const std::string_view field = "machine.costs.smt_corun_speed";
    double v = 0;
    if (n->is_floating_point()) {
      v = n->as_floating_point()->get();
    } else if (n->is_integer()) {
      v = static_cast<double>(n->as_integer()->get());
    } else {
      wrong_type(*n, field, "a number");
    }
    if (!(v > 0 && v <= 2))  // also rejects nan
      fail(at(*n), field, fmt::format("must be greater than 0 and at most 2, got {}", v));
    c.smt_corun_speed = static_cast<u32>(std::lround(v * kSpeedOne));
    if (c.smt_corun_speed == 0) c.smt_corun_speed = 1;  // > 0 must stay > 0 after rounding
  }
}

void Reader::read_kernel(const toml::table &t, kernel::KernelConfig &k, int nr_cpus) const {
  check_keys(t, "kernel", {"version", "features", "tunables", "nohz_full", "kthreads"});
  if (const toml::node *n = t.get("nohz_full"))
    k.nohz_full = nohz_full(*n, "kernel.nohz_full", nr_cpus);
  if (const toml::node *n = t.get("kthreads")) k.kthreads = boolean(*n, "kernel.kthreads");
  if (const toml::node *n = t.get("version")) {
    if (n->is_floating_point())
      fail(at(*n), "kernel.version", "expected a string such as \"6.18\", got a float");
    const std::string v = string(*n, "kernel.version");
    if (v == "6.12") {
      k.version = kernel::KernelVersion::V6_12;
    } else if (v == "6.18") {
      k.version = kernel::KernelVersion::V6_18;
    } else {
      fail(at(*n), "kernel.version",
           fmt::format("unknown kernel version '{}' (expected one of: 6.12, 6.18)", v));
    }
  }
  std::vector<std::pair<kernel::sched_feat_id, bool>> features;
  std::vector<std::pair<kernel::sched_tunable_id, i64>> tunables;
  if (const toml::table *f = subtable(t, "features", "kernel"))
    read_features(*f, "kernel.features", features);
  if (const toml::table *tu = subtable(t, "tunables", "kernel"))
    read_tunables(*tu, "kernel.tunables", tunables);
  for (auto [id, on] : features) k.features.on[id] = on;
  for (auto [id, v] : tunables) k.tunables.v[id] = v;
}

void Reader::read_features(const toml::table &t, std::string_view path,
                           std::vector<std::pair<kernel::sched_feat_id, bool>> &out) const {
  for (const Entry &e : in_file_order(t)) {
    const std::string field = join(path, e.key->str());
    auto id = kernel::find_feature(e.key->str());
    if (!id)
      fail(at(*e.key, at(t)), field,
           fmt::format("unknown feature '{}' (see `schedlab help features`)", e.key->str()));
    out.emplace_back(*id, boolean(*e.value, field));
  }
}

void Reader::read_tunables(const toml::table &t, std::string_view path,
                           std::vector<std::pair<kernel::sched_tunable_id, i64>> &out) const {
  for (const Entry &e : in_file_order(t)) {
    const std::string field = join(path, e.key->str());
    auto id = kernel::find_tunable(e.key->str());
    if (!id)
      fail(at(*e.key, at(t)), field,
           fmt::format("unknown tunable '{}' (see `schedlab help tunables`)", e.key->str()));
    if (!e.value->is_integer()) wrong_type(*e.value, field, "an integer");
    const i64 v = e.value->as_integer()->get();
    const std::string why = kernel::check_tunable(*id, v);
    if (!why.empty()) fail(at(*e.value), field, why);
    out.emplace_back(*id, v);
  }
}

// Whether one pass of the phases can take simulated time: CPU time, a sleep, or a wait for
// another task. (resume, signal, broadcast, lock and unlock alone cost nothing in the model.)
// A yield takes time only through the context switch it costs, so not with a free switch.
static bool takes_time(const std::vector<Phase> &phases, bool yield_takes_time) {
  for (const Phase &p : phases) {
    switch (p.kind) {
      case Phase::Kind::Run:
      case Phase::Kind::Runtime:
      case Phase::Kind::Sleep:
        if (p.dist.kind != Dist::Kind::Const || p.dist.a > 0) return true;
        break;
      case Phase::Kind::Loop:
        if (takes_time(p.body, yield_takes_time)) return true;
        break;
      case Phase::Kind::Yield:
        if (yield_takes_time) return true;
        break;
      case Phase::Kind::Timer:
      case Phase::Kind::Barrier:
      case Phase::Kind::Suspend:
      case Phase::Kind::Wait:
      case Phase::Kind::Sync:
        return true;
      case Phase::Kind::Resume:
      case Phase::Kind::Lock:
      case Phase::Kind::Unlock:
      case Phase::Kind::Signal:
      case Phase::Kind::Broadcast:
      case Phase::Kind::Mark:
        break;
    }
  }
  return false;
}

TaskGroupSpec Reader::read_group(const toml::table &t, const std::string &path, int nr_cpus,
                                 const MachineCosts &costs) const {
  check_keys(
      t, path,
      {"name", "count", "nice", "policy", "cpus", "start", "stress", "loops", "phases",
       "threads_per_process", "pgrp", "hackbench", "schbench", "fork", "vm", "kthread", "per_cpu"});
  TaskGroupSpec g;
  g.line = static_cast<int>(at(t).line);

  const toml::node *name = t.get("name");
  if (!name) fail(at(t), join(path, "name"), "missing required key");
  g.name = string(*name, join(path, "name"));
  if (!valid_name(g.name))
    fail(at(*name), join(path, "name"),
         fmt::format("'{}' is not a valid name: use letters, digits, '_', '.' and '-' "
                     "(it becomes the tasks' comm)",
                     g.name));

  if (const toml::node *n = t.get("count"))
    g.count = static_cast<int>(integer(*n, join(path, "count"), 1, 1000000));
  if (const toml::node *n = t.get("threads_per_process")) {
    const std::string field = join(path, "threads_per_process");
    const i64 v = integer(*n, field, 0, kI64Max);
    if (v > g.count)
      fail(at(*n), field,
           fmt::format("must be at most count ({}), got {} (0 = the whole group is one process)",
                       g.count, v));
    g.threads_per_process = static_cast<int>(v);
  }
  g.pgrp = g.name;
  if (const toml::node *n = t.get("pgrp")) {
    const std::string field = join(path, "pgrp");
    g.pgrp = string(*n, field);
    if (!valid_name(g.pgrp))
      fail(at(*n), field,
           fmt::format("'{}' is not a valid process group name: use letters, digits, '_', '.' "
                       "and '-'",
                       g.pgrp));
  }
  if (const toml::node *n = t.get("nice"))
    g.nice = static_cast<int>(integer(*n, join(path, "nice"), -20, 19));
  if (const toml::node *n = t.get("policy")) {
    const std::string v = string(*n, join(path, "policy"));
    if (v == "normal") {
      g.policy = Policy::Normal;
    } else if (v == "batch") {
      g.policy = Policy::Batch;
    } else if (v == "idle") {
      g.policy = Policy::Idle;
    } else {
      fail(at(*n), join(path, "policy"),
           fmt::format("unknown policy '{}' (expected one of: normal, batch, idle)", v));
    }
  }
  if (const toml::node *n = t.get("cpus")) g.cpus = cpulist(*n, join(path, "cpus"), nr_cpus);
  if (const toml::node *n = t.get("start")) g.start = dist(*n, join(path, "start"));
  if (const toml::node *n = t.get("stress")) g.stress = boolean(*n, join(path, "stress"));
  if (const toml::node *n = t.get("kthread")) g.kthread = boolean(*n, join(path, "kthread"));
  if (const toml::node *n = t.get("per_cpu")) {
    g.per_cpu = boolean(*n, join(path, "per_cpu"));
    // One task per CPU, each bound to its CPU: the count and the affinity follow.
    if (g.per_cpu && !g.kthread)
      fail(at(*n), join(path, "per_cpu"),
           "only for kernel threads (kthread = true): it models the kernel's per-CPU threads; "
           "bind a workload's tasks with cpus");
    if (g.per_cpu) {
      for (std::string_view k : {"count", "cpus", "threads_per_process"})
        if (const toml::node *c = t.get(k))
          fail(at(*c, at(t)), join(path, k),
               "not allowed with per_cpu = true (one task per CPU, each bound to its CPU)");
      g.count = nr_cpus;
    }
  }
  if (g.kthread || g.per_cpu)
    for (std::string_view k : {"hackbench", "schbench", "fork", "vm"})
      if (const toml::node *b = t.get(k))
        fail(at(*b, at(t)), join(path, k),
             fmt::format("not allowed with {} = true (a benchmark is a workload of its own)",
                         g.kthread ? "kthread" : "per_cpu"));
  if (read_benchmark(t, path, nr_cpus, g)) return g;

  const toml::node *loops = t.get("loops");
  const toml::node *phases = t.get("phases");
  if (g.stress) {
    // A stress task is a pure CPU hog; phases or a loop count would silently mean nothing.
    if (phases)
      fail(at(*phases), join(path, "phases"),
           "not allowed with stress = true (a stress task only runs)");
    if (loops)
      fail(at(*loops), join(path, "loops"),
           "not allowed with stress = true (a stress task never exits)");
    return g;
  }
  if (loops) g.loops = static_cast<std::uint64_t>(integer(*loops, join(path, "loops"), 0, kI64Max));
  if (!phases)
    fail(at(t), join(path, "phases"),
         "missing required key (a group needs phases unless stress = true)");
  held_.clear();
  g.phases = read_phases(*phases, join(path, "phases"));
  if (!held_.empty())
    fail(at(*phases), join(path, "phases"),
         fmt::format("mutex '{}' is still locked when the phases end: {}",
                     resources_[held_.front()].name,
                     g.loops == 1 ? "the task would exit holding it and its other users wait "
                                    "forever (unlock it before the end)"
                                  : "the next loop would lock it again and deadlock (unlock "
                                    "it before the end)"));
  if (g.loops == 0 && !takes_time(g.phases, costs.context_switch_ns > 0))
    fail(at(*phases), join(path, "phases"),
         "the task loops forever and none of its phases takes time or waits (a run, runtime or "
         "sleep above 0, a timer, yield, barrier, suspend, wait or sync; a yield only with a "
         "context_switch cost above 0): it would spin at one instant");
  return g;
}

bool Reader::read_benchmark(const toml::table &t, const std::string &path, int nr_cpus,
                            TaskGroupSpec &g) const {
  using workload::Benchmark;
  const toml::node *bench = nullptr;
  std::string_view kind;
  for (const Entry &e : in_file_order(t)) {
    const std::string_view k = e.key->str();
    if (k != "hackbench" && k != "schbench" && k != "fork" && k != "vm") continue;
    if (bench)
      fail(at(*e.key, at(t)), join(path, k),
           fmt::format("a group has at most one of hackbench, schbench, fork or vm, and this one "
                       "already has '{}'",
                       kind));
    bench = e.value;
    kind = k;
  }
  if (!bench) return false;
  const std::string field = join(path, kind);
  // What a benchmark decides itself.
  for (std::string_view k : {"phases", "loops", "stress"})
    if (const toml::node *n = t.get(k))
      fail(at(*n, at(t)), join(path, k), fmt::format("not allowed with {}", kind));
  if (kind != "fork")
    for (std::string_view k : {"count", "threads_per_process"})
      if (const toml::node *n = t.get(k))
        fail(at(*n, at(t)), join(path, k),
             fmt::format("not allowed with {} (it sets the number of tasks itself)", kind));
  if (!bench->is_table()) wrong_type(*bench, field, "a table such as { groups = 10 }");
  const toml::table &b = *bench->as_table();
  auto get = [&](std::string_view k) { return b.get(k); };
  auto sub = [&](std::string_view k) { return join(field, k); };
  auto choice = [&](std::string_view k, std::string_view yes, std::string_view no, bool dflt) {
    const toml::node *n = get(k);
    if (!n) return dflt;
    const std::string v = string(*n, sub(k));
    if (v == yes) return true;
    if (v != no)
      fail(at(*n), sub(k), fmt::format("unknown {} '{}' (expected {} or {})", k, v, no, yes));
    return false;
  };
  if (kind == "hackbench") {
    check_keys(b, field,
               {"groups", "fds", "loops", "mode", "transport", "datasize", "buffer", "write_cost",
                "read_cost"});
    g.bench.kind = Benchmark::Kind::Hackbench;
    workload::HackbenchSpec &h = g.bench.hackbench;
    if (const toml::node *n = get("groups"))
      h.groups = static_cast<int>(integer(*n, sub("groups"), 1, 100000));
    if (const toml::node *n = get("fds"))
      h.fds = static_cast<int>(integer(*n, sub("fds"), 1, 1000));
    if (const toml::node *n = get("loops"))
      h.loops = static_cast<std::uint64_t>(integer(*n, sub("loops"), 1, kI64Max));
    h.threads = choice("mode", "thread", "process", false);
    h.socket = choice("transport", "socket", "pipe", true);
    if (const toml::node *n = get("datasize"))
      h.datasize = static_cast<int>(integer(*n, sub("datasize"), 1, 4096));
    if (const toml::node *n = get("buffer"))
      h.buffer = static_cast<std::uint64_t>(integer(*n, sub("buffer"), 1, kI64Max));
    if (const toml::node *n = get("write_cost")) h.write_cost = duration(*n, sub("write_cost"));
    if (const toml::node *n = get("read_cost")) h.read_cost = duration(*n, sub("read_cost"));
    if (static_cast<i64>(h.groups) * 2 * h.fds > 1000000)
      fail(at(*bench), field,
           fmt::format("2 * groups * fds tasks must be at most 1000000, got {}",
                       static_cast<i64>(h.groups) * 2 * h.fds));
    g.count = h.tasks();
    g.threads_per_process = h.threads ? 0 : 1;
  } else if (kind == "schbench") {
    check_keys(b, field,
               {"message_threads", "workers", "runtime", "warmup", "sleep", "work", "rps"});
    g.bench.kind = Benchmark::Kind::Schbench;
    workload::SchbenchSpec &sb = g.bench.schbench;
    if (const toml::node *n = get("message_threads"))
      sb.message_threads = static_cast<int>(integer(*n, sub("message_threads"), 1, 1024));
    sb.workers = nr_cpus;
    if (const toml::node *n = get("workers"))
      sb.workers = static_cast<int>(integer(*n, sub("workers"), 1, 100000));
    if (const toml::node *n = get("runtime")) {
      sb.runtime = duration(*n, sub("runtime"));
      if (sb.runtime == 0) fail(at(*n), sub("runtime"), "must be greater than 0");
    }
    if (const toml::node *n = get("warmup")) {
      sb.warmup = duration(*n, sub("warmup"));
      if (sb.warmup >= sb.runtime)
        fail(at(*n), sub("warmup"), "must be shorter than runtime (nothing would be measured)");
    }
    if (const toml::node *n = get("sleep")) sb.sleep = dist(*n, sub("sleep"));
    if (const toml::node *n = get("work")) sb.work = dist(*n, sub("work"));
    if (const toml::node *n = get("rps"))
      sb.rps = static_cast<std::uint64_t>(integer(*n, sub("rps"), 0, 100000000));
    if (static_cast<i64>(sb.message_threads) * (1 + sb.workers) > 1000000)
      fail(at(*bench), field, "message_threads * (1 + workers) must be at most 1000000");
    g.count = sb.tasks(nr_cpus);
    g.threads_per_process = 0;
  } else if (kind == "vm") {
    check_keys(b, field,
               {"vcpus", "guest", "width", "window", "threshold", "vmm_threads", "vmm_burst",
                "vmm_period"});
    g.bench.kind = Benchmark::Kind::Vm;
    workload::VmSpec &v = g.bench.vm;
    if (const toml::node *n = get("vcpus"))
      v.vcpus = static_cast<int>(integer(*n, sub("vcpus"), 1, 4096));
    if (const toml::node *n = get("guest")) {
      const std::string gs = string(*n, sub("guest"));
      if (gs == "stress")
        v.guest = workload::VmSpec::Guest::Stress;
      else if (gs == "hwlat")
        v.guest = workload::VmSpec::Guest::Hwlat;
      else if (gs == "idle")
        v.guest = workload::VmSpec::Guest::Idle;
      else
        fail(at(*n), sub("guest"),
             fmt::format("unknown guest '{}' (expected stress, hwlat or idle)", gs));
    }
    auto positive = [&](std::string_view k, Time &out) {
      if (const toml::node *n = get(k)) {
        out = duration(*n, sub(k));
        if (out == 0) fail(at(*n), sub(k), "must be greater than 0");
      }
    };
    positive("width", v.width);
    positive("window", v.window);
    if (const toml::node *n = get("threshold")) v.threshold = duration(*n, sub("threshold"));
    if (v.width > v.window)
      fail(at(get("width") ? *get("width") : *bench), sub("width"),
           fmt::format("must be at most window ({} ns), got {} ns", v.window, v.width));
    if (const toml::node *n = get("vmm_threads"))
      v.vmm_threads = static_cast<int>(integer(*n, sub("vmm_threads"), 0, 4096));
    if (const toml::node *n = get("vmm_burst")) v.vmm_burst = duration(*n, sub("vmm_burst"));
    positive("vmm_period", v.vmm_period);
    g.count = v.tasks();
    g.threads_per_process = 0;  // one process: the VM
  } else {
    check_keys(b, field, {"children", "child_run", "interval", "fork_cost", "wait"});
    g.bench.kind = Benchmark::Kind::Fork;
    workload::ForkSpec &f = g.bench.fork;
    if (const toml::node *n = get("children"))
      f.children = static_cast<std::uint64_t>(integer(*n, sub("children"), 1, 10000000));
    if (const toml::node *n = get("child_run")) f.child_run = dist(*n, sub("child_run"));
    if (const toml::node *n = get("interval")) f.interval = dist(*n, sub("interval"));
    if (const toml::node *n = get("fork_cost")) f.fork_cost = duration(*n, sub("fork_cost"));
    if (const toml::node *n = get("wait")) f.wait = boolean(*n, sub("wait"));
  }
  return true;
}

std::vector<Phase> Reader::read_phases(const toml::node &n, const std::string &path) const {
  const toml::array &a = array(n, path);
  if (a.empty()) fail(at(n), path, "must not be empty (list at least one phase)");
  std::vector<Phase> out;
  for (const toml::node &p : a) {
    const std::string field = element(path, out.size());
    out.push_back(read_phase(p, field));
    check_locks(p, field, out.back());
  }
  return out;
}

// A task uses its mutexes as pthread code must: rt-app's are plain, non-recursive mutexes, so
// locking one twice deadlocks, unlocking one not held is undefined, and a condition wait
// needs its mutex held. The phases are checked in the order the task runs them.
void Reader::check_locks(const toml::node &n, const std::string &path, const Phase &p) const {
  const auto held = [&](std::uint32_t r) {
    return std::find(held_.begin(), held_.end(), r) != held_.end();
  };
  const auto name = [&](std::uint32_t r) { return resources_[r].name; };
  switch (p.kind) {
    case Phase::Kind::Lock:
      if (held(p.res))
        fail(at(n), join(path, "lock"),
             fmt::format("the task already holds mutex '{}' here: locking it again would "
                         "deadlock (mutexes are not recursive)",
                         name(p.res)));
      held_.push_back(p.res);
      break;
    case Phase::Kind::Unlock:
      if (!held(p.res))
        fail(at(n), join(path, "unlock"),
             fmt::format("the task does not hold mutex '{}' here (lock it first)", name(p.res)));
      held_.erase(std::find(held_.begin(), held_.end(), p.res));
      break;
    case Phase::Kind::Wait:
    case Phase::Kind::Sync:
      if (!held(p.res2))
        fail(at(n), join(path, "mutex"),
             fmt::format("waiting on '{}' needs mutex '{}' held, and the task does not hold it "
                         "here (lock it first)",
                         name(p.res), name(p.res2)));
      break;
    default:  // loops: read_phase() checked their body
      break;
  }
}

Phase Reader::read_phase(const toml::node &n, const std::string &path) const {
  if (!n.is_table()) wrong_type(n, path, "a table such as { run = \"1ms\" }");
  const toml::table &t = *n.as_table();
  check_keys(
      t, path,
      {"run", "runtime", "sleep", "loop", "phases", "timer", "ref", "mode", "yield", "barrier",
       "suspend", "resume", "lock", "unlock", "wait", "mutex", "signal", "broadcast", "sync"});

  // Keys that qualify the phase's kind rather than name one.
  auto modifier = [](std::string_view key) {
    return key == "phases" || key == "ref" || key == "mode" || key == "mutex";
  };
  const Entry *kind = nullptr;
  const std::vector<Entry> entries = in_file_order(t);
  for (const Entry &e : entries) {
    if (modifier(e.key->str())) continue;
    if (kind)
      fail(at(*e.key, at(t)), join(path, e.key->str()),
           fmt::format("a phase has exactly one of run, runtime, sleep, loop, timer, yield, "
                       "barrier, suspend, resume, lock, unlock, wait, signal, broadcast or sync, "
                       "and this one already has '{}'",
                       kind->key->str()));
    kind = &e;
  }
  if (!kind)
    fail(at(t), path,
         "a phase needs one of run, runtime, sleep, loop, timer, yield, barrier, suspend, "
         "resume, lock, unlock, wait, signal, broadcast or sync");

  Phase p;
  const std::string_view k = kind->key->str();
  const std::string field = join(path, k);
  auto only_with = [&](std::string_view key, std::initializer_list<std::string_view> kinds) {
    auto it = t.find(key);
    if (it == t.end()) return;
    for (std::string_view x : kinds)
      if (x == k) return;
    fail(at(it->first, at(t)), join(path, key), fmt::format("not allowed in a '{}' phase", k));
  };
  only_with("phases", {"loop"});
  only_with("ref", {"timer"});
  only_with("mode", {"timer"});
  only_with("mutex", {"wait", "sync"});
  if (k == "loop") {
    p.kind = Phase::Kind::Loop;
    p.count = static_cast<std::uint64_t>(integer(*kind->value, field, 1, kI64Max));
    auto body = t.find("phases");
    if (body == t.end())
      fail(at(t), join(path, "phases"), "missing required key (a loop needs phases = [...])");
    std::vector<std::uint32_t> before = held_;
    p.body = read_phases(body->second, join(path, "phases"));
    // Each pass must leave the task's mutexes as it found them, or the next pass would lock
    // one twice or unlock one it no longer holds.
    std::vector<std::uint32_t> after = held_;
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    if (p.count > 1 && before != after)
      fail(at(body->second), join(path, "phases"),
           "a pass of the loop locks or unlocks a mutex without the reverse, so its next pass "
           "would deadlock or unlock a mutex it does not hold (balance lock and unlock within "
           "the loop)");
    return p;
  }
  if (k == "run" || k == "runtime" || k == "sleep") {
    p.kind = k == "run"       ? Phase::Kind::Run
             : k == "runtime" ? Phase::Kind::Runtime
                              : Phase::Kind::Sleep;
    p.dist = dist(*kind->value, field);
    return p;
  }
  using RK = workload::Resource::Kind;
  auto name = [&](const toml::node &v, const std::string &f) {
    std::string s = string(v, f);
    if (s.empty()) fail(at(v), f, "must not be empty");
    return s;
  };
  if (k == "timer") {
    p.kind = Phase::Kind::Timer;
    p.dist = Dist{Dist::Kind::Const, duration(*kind->value, field), 0};
    if (p.dist.a == 0) fail(at(*kind->value), field, "the period must be > 0");
    const toml::node *ref = t.get("ref");
    const std::string r = ref ? name(*ref, join(path, "ref")) : std::string("unique");
    p.res = resource(RK::Timer, r);
    if (const toml::node *m = t.get("mode")) {
      const std::string mode = string(*m, join(path, "mode"));
      if (mode != "absolute" && mode != "relative")
        fail(at(*m), join(path, "mode"),
             fmt::format("expected \"absolute\" or \"relative\", got \"{}\"", mode));
      p.absolute = mode == "absolute";
    }
    return p;
  }
  if (k == "yield") {
    if (!boolean(*kind->value, field))
      fail(at(*kind->value), field, "only `yield = true` is meaningful");
    p.kind = Phase::Kind::Yield;
    return p;
  }
  const std::string r = name(*kind->value, field);
  if (k == "barrier") {
    p.kind = Phase::Kind::Barrier;
    p.res = resource(RK::Barrier, r);
  } else if (k == "lock" || k == "unlock") {
    p.kind = k == "lock" ? Phase::Kind::Lock : Phase::Kind::Unlock;
    p.res = resource(RK::Mutex, r);
  } else {
    p.kind = k == "suspend"     ? Phase::Kind::Suspend
             : k == "resume"    ? Phase::Kind::Resume
             : k == "wait"      ? Phase::Kind::Wait
             : k == "signal"    ? Phase::Kind::Signal
             : k == "broadcast" ? Phase::Kind::Broadcast
                                : Phase::Kind::Sync;
    p.res = resource(RK::Cond, r);
    if (k == "wait" || k == "sync") {
      const toml::node *m = t.get("mutex");
      if (!m)
        fail(at(t), join(path, "mutex"),
             fmt::format("missing required key (a {} names the mutex it releases while waiting)",
                         k));
      p.res2 = resource(RK::Mutex, name(*m, join(path, "mutex")));
    }
  }
  return p;
}

std::uint32_t Reader::resource(workload::Resource::Kind kind, const std::string &name) const {
  for (std::size_t i = 0; i < resources_.size(); i++)
    if (resources_[i].kind == kind && resources_[i].name == name)
      return static_cast<std::uint32_t>(i);
  workload::Resource r;
  r.kind = kind;
  r.name = name;
  // rt-app: a timer named "unique..." is one timer per thread; any other is shared by every
  // thread that names it.
  r.per_task = kind == workload::Resource::Kind::Timer && name.rfind("unique", 0) == 0;
  resources_.push_back(std::move(r));
  return static_cast<std::uint32_t>(resources_.size() - 1);
}

ConfigSpec Reader::read_config(const toml::table &t, const std::string &path,
                               const Scenario &s) const {
  check_keys(t, path,
             {"name", "features", "tunables", "nohz_full", "kthreads", "cookies", "prctl"});
  ConfigSpec c;
  c.line = static_cast<int>(at(t).line);
  const toml::node *name = t.get("name");
  if (!name) fail(at(t), join(path, "name"), "missing required key");
  c.name = string(*name, join(path, "name"));
  if (c.name.empty()) fail(at(*name), join(path, "name"), "must not be empty");
  if (const toml::table *f = subtable(t, "features", path))
    read_features(*f, join(path, "features"), c.features);
  if (const toml::table *tu = subtable(t, "tunables", path))
    read_tunables(*tu, join(path, "tunables"), c.tunables);
  if (const toml::node *n = t.get("nohz_full"))
    c.nohz_full = nohz_full(*n, join(path, "nohz_full"), s.topology.nr_cpus());
  if (const toml::node *n = t.get("kthreads")) c.kthreads = boolean(*n, join(path, "kthreads"));

  const toml::node *cookies = t.get("cookies");
  const toml::node *prctl = t.get("prctl");
  if (cookies) array(*cookies, join(path, "cookies"));
  if (prctl) array(*prctl, join(path, "prctl"));
  // sched_core_share_pid() refuses everything, before even looking at its arguments, on a
  // machine without SMT: core scheduling only exists to keep siblings apart.
  // With host = true the file must load on any host: a configuration that needs SMT fails
  // only when it is run (measure skips it, run reports the ENODEV).
  if (s.topology.threads_per_core == 1 && !s.host_machine) {
    std::optional<std::pair<Pos, std::string_view>> first;  // the one earlier in the file
    for (auto [n, key] : {std::pair(cookies, "cookies"), std::pair(prctl, "prctl")}) {
      if (!n || n->as_array()->empty()) continue;
      const Pos p = at(*n, at(t));
      if (!first || std::pair(p.line, p.column) < std::pair(first->first.line, first->first.column))
        first.emplace(p, key);
    }
    if (first)
      fail(first->first, join(path, first->second),
           "ENODEV: core scheduling needs SMT, and the machine has threads_per_core = 1");
  }
  if (cookies)
    for (const toml::node &n : *cookies->as_array())
      c.cookies.push_back(read_cookie(n, element(join(path, "cookies"), c.cookies.size()), s));
  if (prctl)
    for (const toml::node &n : *prctl->as_array())
      c.prctl.push_back(read_prctl(n, element(join(path, "prctl"), c.prctl.size()), s));
  return c;
}

CookieShorthand Reader::read_cookie(const toml::node &n, const std::string &path,
                                    const Scenario &s) const {
  if (!n.is_table()) wrong_type(n, path, "a table such as { group = \"worker\", per = 2 }");
  const toml::table &t = *n.as_table();
  check_keys(t, path, {"group", "per"});
  CookieShorthand c;
  c.line = static_cast<int>(at(t).line);

  const std::string group_field = join(path, "group");
  const toml::node *group = t.get("group");
  if (!group) fail(at(t), group_field, "missing required key");
  c.group = string(*group, group_field);
  auto g = std::find_if(s.groups.begin(), s.groups.end(),
                        [&](const TaskGroupSpec &x) { return x.name == c.group; });
  if (g == s.groups.end()) {
    std::vector<std::string_view> names;
    for (const TaskGroupSpec &x : s.groups) names.push_back(x.name);
    fail(at(*group), group_field,
         fmt::format("no group named '{}' (groups: {})", c.group, short_list(names)));
  }
  if (g->kthread)
    fail(at(*group), group_field,
         fmt::format("group '{}' is a kernel thread group (kthread = true): kernel threads take "
                     "no cookie",
                     c.group));

  const toml::node *per = t.get("per");
  if (!per) return c;  // one cookie for the whole group
  const std::string per_field = join(path, "per");
  if (per->is_string()) {
    const std::string v = per->as_string()->get();
    if (v == "group") {
      c.per = 0;
    } else if (v == "task") {
      c.per = 1;
    } else {
      fail(at(*per), per_field,
           fmt::format("unknown per '{}' (expected an integer >= 1, \"group\" or \"task\")", v));
    }
    return c;
  }
  if (!per->is_integer()) wrong_type(*per, per_field, "an integer >= 1, \"group\" or \"task\"");
  const i64 v = per->as_integer()->get();
  if (v < 1)
    fail(at(*per), per_field,
         fmt::format("must be at least 1 (or \"group\" for one cookie for the whole group), got {}",
                     v));
  if (v > g->count)
    fail(at(*per), per_field,
         fmt::format("must be at most the count of group '{}' ({}), got {}", g->name, g->count, v));
  c.per = static_cast<int>(v);
  return c;
}

// A prctl names tasks as the kernel finds pids: an unknown one is ESRCH.
void Reader::check_task(const toml::node &n, std::string_view field, const std::string &task,
                        const Scenario &s) const {
  const TaskGroupSpec *owner = nullptr;
  for (const TaskGroupSpec &g : s.groups) {
    if (!group_has_task(g, task)) continue;
    if (owner)
      fail(at(n), field,
           fmt::format("'{}' names a task of group '{}' and one of group '{}'; rename a group",
                       task, owner->name, g.name));
    owner = &g;
  }
  if (owner && owner->kthread)
    fail(at(n), field,
         fmt::format("'{}' is a kernel thread (group '{}' has kthread = true): kernel threads "
                     "take no cookie",
                     task, owner->name));
  if (owner) return;
  for (const TaskGroupSpec &g : s.groups)
    if (g.count > 1 && g.name == task)
      fail(at(n), field,
           fmt::format("ESRCH: no task named '{}' (the group's tasks are {} to {})", task,
                       task_name(g, 0), task_name(g, g.count - 1)));
  fail(at(n), field,
       fmt::format("ESRCH: no task named '{}' (tasks: {})", task, some_tasks(s.groups)));
}

PrctlOp Reader::read_prctl(const toml::node &n, const std::string &path, const Scenario &s) const {
  if (!n.is_table()) wrong_type(n, path, "a table such as { cmd = \"create\", by = \"worker-0\" }");
  const toml::table &t = *n.as_table();
  check_keys(t, path, {"cmd", "by", "pid", "scope"});
  PrctlOp op;
  op.line = static_cast<int>(at(t).line);

  const std::string cmd_field = join(path, "cmd");
  const toml::node *cmd = t.get("cmd");
  if (!cmd) fail(at(t), cmd_field, "missing required key");
  const std::string c = string(*cmd, cmd_field);
  if (c == "create") {
    op.cmd = PrctlOp::Cmd::Create;
  } else if (c == "share_to") {
    op.cmd = PrctlOp::Cmd::ShareTo;
  } else if (c == "share_from") {
    op.cmd = PrctlOp::Cmd::ShareFrom;
  } else if (c == "get") {
    fail(at(*cmd), cmd_field,
         "'get' only reads a cookie, which a scenario has no use for (expected one of: create, "
         "share_to, share_from)");
  } else {
    fail(at(*cmd), cmd_field,
         fmt::format("unknown cmd '{}' (expected one of: create, share_to, share_from)", c));
  }

  const toml::node *scope = t.get("scope");
  const std::string scope_field = join(path, "scope");
  if (scope) {
    const std::string v = string(*scope, scope_field);
    if (v == "thread") {
      op.scope = CookieScope::Thread;
    } else if (v == "thread_group") {
      op.scope = CookieScope::ThreadGroup;
    } else if (v == "process_group") {
      op.scope = CookieScope::ProcessGroup;
    } else {
      fail(at(*scope), scope_field,
           fmt::format("unknown scope '{}' (expected one of: thread, thread_group, process_group)",
                       v));
    }
  }

  const std::string by_field = join(path, "by");
  const toml::node *by = t.get("by");
  if (!by) fail(at(t), by_field, "missing required key");
  op.by = string(*by, by_field);
  check_task(*by, by_field, op.by, s);

  if (const toml::node *pid = t.get("pid")) {
    const std::string pid_field = join(path, "pid");
    if (pid->is_integer()) {
      // pid 0 is the caller itself, as in the kernel; any other number means nothing here.
      if (pid->as_integer()->get() != 0)
        fail(at(*pid), pid_field,
             fmt::format("expected a task name, or 0 for the caller, got {}",
                         pid->as_integer()->get()));
    } else {
      op.pid = string(*pid, pid_field);
      check_task(*pid, pid_field, op.pid, s);
    }
  }

  // The kernel copies a cookie *from* one task only: PR_SCHED_CORE_SHARE_FROM with any other
  // type fails with EINVAL.
  if (op.cmd == PrctlOp::Cmd::ShareFrom && op.scope != CookieScope::Thread)
    fail(at(*scope), scope_field,
         fmt::format("EINVAL: share_from takes scope = \"thread\" (it copies the cookie of one "
                     "task to the caller), got \"{}\"",
                     scope->as_string()->get()));
  return op;
}

void Reader::read_compare(const toml::table &t, const std::string &path, Scenario &s,
                          const std::map<std::string, size_t> &config_index) const {
  check_keys(t, path, {"base", "patched", "reference"});
  CompareSpec c;
  c.line = static_cast<int>(at(t).line);
  auto config_name = [&](std::string_view key, std::string &out) -> const toml::node & {
    const std::string field = join(path, key);
    const toml::node *n = t.get(key);
    if (!n) fail(at(t), field, "missing required key (it names a [[config]])");
    out = string(*n, field);
    if (config_index.count(out)) return *n;
    if (s.configs.empty())
      fail(at(*n), field,
           fmt::format("no config named '{}' (the scenario has no [[config]])", out));
    std::vector<std::string_view> names;
    for (const ConfigSpec &x : s.configs) names.push_back(x.name);
    fail(at(*n), field, fmt::format("no config named '{}' (configs: {})", out, short_list(names)));
  };
  config_name("base", c.base);
  const toml::node &patched = config_name("patched", c.patched);
  const toml::node &reference = config_name("reference", c.reference);
  if (c.patched == c.base)
    fail(at(patched), join(path, "patched"),
         fmt::format("must differ from base (both are '{}')", c.base));
  if (c.reference == c.base || c.reference == c.patched)
    fail(at(reference), join(path, "reference"),
         fmt::format("must differ from base and patched (it is '{}'; the overheads are measured "
                     "from it)",
                     c.reference));
  s.compares.push_back(std::move(c));
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string &file_name) {
  Reader reader(file_name);
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(file_name));
  } catch (const toml::parse_error &e) {
    reader.fail(pos_of(e.source()), "invalid TOML", e.description());
  }
  return reader.read(root);
}

Scenario read_scenario_table(const toml::table &root, const std::string &file_name) {
  return Reader(file_name).read(root);
}

std::uint64_t max_work() {
  return g_max_work.load(std::memory_order_relaxed);
}

void set_max_work(std::uint64_t n) {
  g_max_work.store(n, std::memory_order_relaxed);
}

std::uint64_t max_duration_ns() {
  return g_max_duration.load(std::memory_order_relaxed);
}

void set_max_duration_ns(std::uint64_t ns) {
  g_max_duration.store(ns, std::memory_order_relaxed);
}

}  // namespace schedlab::scenario
