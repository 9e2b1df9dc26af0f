// SPDX-License-Identifier: GPL-2.0-only
// Fuzzing the kernel model: small random scenarios (machines with and without SMT, SMT4,
// clusters, NUMA; random phases, benchmarks, cookies from the shorthand and from prctl calls,
// affinities, nice levels, policies, features and tunables) run under the invariant checker.
// Each scenario is TOML text, read by the same reader as a user's file, and every configuration
// of it is run on the scenario's seed. A violation, a task left asleep for good, an exception
// or a crash writes the scenario to the output directory and ends the run with a non-zero
// status; the file is then a regression test (--replay). docs/fuzzing.md, "The model".
//
//   modelfuzz [--seeds A-B] [--seconds S] [--out DIR] [--quiet]
//   modelfuzz --print SEED        the scenario of one seed, as TOML
//   modelfuzz --replay FILE...    run files (e.g. earlier findings) with the same checks
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "scenario/config.h"
#include "kernel/features.h"
#include "scenario/scenario.h"

namespace {

using schedlab::u64;
namespace scenario = schedlab::scenario;
namespace engine = schedlab::engine;
namespace kernel = schedlab::kernel;

// splitmix64: a fixed generator, so a seed names the same scenario on every platform and
// library (std::uniform_int_distribution is not specified bit for bit).
class Rng {
 public:
  explicit Rng(u64 seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  u64 next() {
    u64 z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  long in(long lo, long hi) {
    return lo + static_cast<long>(next() % static_cast<u64>(hi - lo + 1));
  }
  bool chance(int percent) { return in(0, 99) < percent; }
  template <class T>
  const T &pick(const std::vector<T> &v) {
    return v[static_cast<std::size_t>(in(0, static_cast<long>(v.size()) - 1))];
  }

 private:
  u64 s_;
};

struct Group {
  std::string name;
  int tasks = 1;          // how many tasks it makes (for task names)
  bool counted = true;    // names are name-N when tasks > 1
  bool infinite = false;  // needs a duration
};

// Text is built with fmt::format: GCC 12 reports a false -Wrestrict on "literal" + std::string.
std::string us(long n) {
  return fmt::format("\"{}us\"", n);
}

std::string dist(Rng &r, long max_us) {
  const long a = r.in(0, max_us), b = r.in(0, max_us);
  switch (r.in(0, 4)) {
    case 0:
      return us(a);
    case 1:
    case 2:
      return fmt::format("\"uniform({}us, {}us)\"", std::min(a, b), std::max(a, b));
    case 3:
      return fmt::format("\"exp({}us)\"", a + 1);
    default:
      return fmt::format("\"normal({}us, {}us)\"", a, b / 3);
  }
}

// A list of phases that holds no mutex across its end; `depth` bounds nested loops.
std::string phases(Rng &r, int depth, bool *takes_time) {
  std::string out = "[";
  const int n = static_cast<int>(r.in(1, 4));
  for (int i = 0; i < n; i++) {
    if (i) out += ", ";
    const long kind = r.in(0, 99);
    if (kind < 35) {
      out += fmt::format("{{ run = {} }}", dist(r, 3000));
      *takes_time = true;
    } else if (kind < 45) {
      out += fmt::format("{{ runtime = {} }}", dist(r, 2000));
      *takes_time = true;
    } else if (kind < 75) {
      out += fmt::format("{{ sleep = {} }}", dist(r, 5000));
      *takes_time = true;
    } else if (kind < 80) {
      out += "{ yield = true }";
      *takes_time = true;
    } else if (kind < 85) {
      out += fmt::format("{{ timer = {} }}", us(r.in(500, 5000)));
      *takes_time = true;
    } else if (kind < 93) {
      const long m = r.in(0, 1);
      out += fmt::format("{{ lock = \"m{}\" }}, {{ run = {} }}, {{ unlock = \"m{}\" }}", m,
                         dist(r, 500), m);
      *takes_time = true;
    } else if (depth < 2) {
      const long n_loop = r.in(1, 4);
      out += fmt::format("{{ loop = {}, phases = {} }}", n_loop, phases(r, depth + 1, takes_time));
    } else {
      out += fmt::format("{{ run = {} }}", dist(r, 1000));
      *takes_time = true;
    }
  }
  return out + "]";
}

std::string cpulist(Rng &r, int nr_cpus) {
  // A random non-empty subset, written as single CPUs and ranges.
  std::vector<bool> in(static_cast<std::size_t>(nr_cpus));
  bool any = false;
  const int keep = static_cast<int>(r.in(20, 90));
  for (int c = 0; c < nr_cpus; c++) any |= (in[static_cast<std::size_t>(c)] = r.chance(keep));
  if (!any) in[static_cast<std::size_t>(r.in(0, nr_cpus - 1))] = true;
  std::string out;
  for (int c = 0; c < nr_cpus;) {
    if (!in[static_cast<std::size_t>(c)]) {
      c++;
      continue;
    }
    int e = c;
    while (e + 1 < nr_cpus && in[static_cast<std::size_t>(e + 1)]) e++;
    if (!out.empty()) out += ",";
    out += e == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, e);
    c = e + 1;
  }
  return fmt::format("\"{}\"", out);
}

std::string features(Rng &r, int percent) {
  std::string out;
  for (const auto &f : kernel::kFeatures) {
    if (!r.chance(percent)) continue;
    const std::string name(f.name);
    const bool on = !f.default_value;
    // The patch's alternative versions: at most one, chosen per configuration (below).
    if (name.rfind("CORE_COOKIE_FASTPATH", 0) == 0) continue;
    out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", name, on);
  }
  return fmt::format("{{ {} }}", out);
}

std::string tunables(Rng &r) {
  std::string out;
  auto add = [&](const std::string &k, long v) {
    out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", k, v);
  };
  if (r.chance(40)) add("hz", r.pick(std::vector<long>{100, 250, 300, 1000}));
  if (r.chance(20)) add("base_slice_ns", r.chance(30) ? 0 : r.in(100000, 6000000));
  if (r.chance(20)) add("migration_cost_ns", r.in(0, 2000000));
  if (r.chance(15)) add("nr_migrate", r.in(1, 32));
  if (r.chance(15)) add("tunable_scaling", r.in(0, 2));
  if (r.chance(15)) add("timer_slack_ns", r.in(0, 200000));
  return fmt::format("{{ {} }}", out);
}

// Task `i` of group `g` by its comm.
std::string task_name(const Group &g, int i) {
  return g.counted && g.tasks > 1 ? fmt::format("{}-{}", g.name, i) : g.name;
}

// The scenario of one seed, as a user would write it.
std::string generate(u64 seed) {
  Rng r(seed);
  std::ostringstream t;
  const int sockets = r.chance(80) ? 1 : 2;
  const int llcs = r.chance(75) ? 1 : 2;
  const int smt = static_cast<int>(r.pick(std::vector<long>{1, 2, 2, 2, 4, 4}));
  int cores = static_cast<int>(r.in(1, smt == 4 ? 3 : 4));
  int clusters = 1;
  if (cores >= 2 && r.chance(20)) {
    cores = cores % 2 ? cores + 1 : cores;
    clusters = 2;
  }
  const int nr_cpus = sockets * llcs * cores * smt;
  t << "# modelfuzz seed " << seed << "\n[scenario]\nname = \"modelfuzz-" << seed
    << "\"\nseed = " << seed << "\n";
  std::string duration;
  t << "\n[machine]\nsockets = " << sockets << "\nllcs_per_socket = " << llcs
    << "\nclusters_per_llc = " << clusters << "\ncores_per_llc = " << cores
    << "\nthreads_per_core = " << smt << "\nnumbering = \"" << (r.chance(60) ? "x86" : "adjacent")
    << "\"\n";
  if (sockets == 1 && llcs == 2 && r.chance(30)) t << "numa_nodes = 2\n";
  if (r.chance(40)) {
    t << "\n[machine.costs]\n";
    if (r.chance(60))
      t << "smt_corun_speed = " << r.pick(std::vector<std::string>{"0.6", "0.8", "1.0", "1.3"})
        << "\n";
    if (r.chance(50)) t << "wakeup_ipi = " << us(r.in(0, 20)) << "\n";
    if (r.chance(40)) t << "context_switch = " << us(r.in(0, 10)) << "\n";
    if (r.chance(30)) t << "migration_penalty = " << us(r.in(0, 50)) << "\n";
  }
  if (r.chance(25))
    t << "\n[machine.idle]\nstates = \""
      << r.pick(std::vector<std::string>{"skx", "icx", "spr"}) << "\"\n";
  t << "\n[kernel]\nversion = \"" << (r.chance(50) ? "6.12" : "6.18") << "\"\n";
  if (nr_cpus > 1 && r.chance(10)) t << "nohz_full = \"1-" << nr_cpus - 1 << "\"\n";
  t << "features = " << features(r, 12) << "\ntunables = " << tunables(r) << "\n";

  std::vector<Group> groups;
  bool infinite = false;
  const int nr_groups = static_cast<int>(r.in(1, 4));
  for (int gi = 0; gi < nr_groups; gi++) {
    Group g;
    g.name = fmt::format("g{}", gi);
    t << "\n[[group]]\nname = \"" << g.name << "\"\n";
    const long kind = r.in(0, 99);
    if (kind < 8) {
      const int hg = static_cast<int>(r.in(1, 2)), fds = static_cast<int>(r.in(1, 4));
      g.tasks = 2 * hg * fds;
      t << "hackbench = { groups = " << hg << ", fds = " << fds << ", loops = " << r.in(1, 50)
        << ", mode = \"" << (r.chance(50) ? "process" : "thread") << "\", transport = \""
        << (r.chance(50) ? "pipe" : "socket") << "\" }\n";
    } else if (kind < 14) {
      const int m = static_cast<int>(r.in(1, 2)), w = static_cast<int>(r.in(1, 4));
      g.tasks = m * (1 + w);
      t << "schbench = { message_threads = " << m << ", workers = " << w
        << ", runtime = " << us(r.in(20000, 100000)) << ", sleep = " << dist(r, 200)
        << ", work = " << dist(r, 3000) << ", rps = " << (r.chance(50) ? 0 : r.in(50, 2000))
        << " }\n";
    } else if (kind < 19) {
      g.tasks = static_cast<int>(r.in(1, 3));
      t << "count = " << g.tasks << "\nfork = { children = " << r.in(1, 8)
        << ", child_run = " << dist(r, 2000) << ", interval = " << dist(r, 2000)
        << ", wait = " << (r.chance(70) ? "true" : "false") << " }\n";
    } else if (kind < 23) {
      const int vcpus = static_cast<int>(r.in(1, 4)), vmm = static_cast<int>(r.in(0, 2));
      g.tasks = vcpus + vmm;
      g.infinite = true;
      t << "vm = { vcpus = " << vcpus << ", guest = \""
        << r.pick(std::vector<std::string>{"stress", "hwlat", "idle"})
        << "\", width = \"5ms\", window = \"15ms\", vmm_threads = " << vmm
        << ", vmm_burst = " << us(r.in(10, 200)) << ", vmm_period = " << us(r.in(1000, 10000))
        << " }\n";
    } else {
      g.tasks = static_cast<int>(r.in(1, 8));
      t << "count = " << g.tasks << "\n";
      if (g.tasks > 1 && r.chance(40)) t << "threads_per_process = " << r.in(0, g.tasks) << "\n";
      if (r.chance(25)) {
        t << "stress = true\n";
        g.infinite = true;
      } else {
        bool takes_time = false;
        const std::string ph = phases(r, 0, &takes_time);
        long loops = r.chance(30) ? r.in(25, 200) : r.in(1, 25);
        if (takes_time && r.chance(8)) {
          loops = 0;
          g.infinite = true;
        }
        t << "loops = " << loops << "\nphases = " << ph << "\n";
      }
    }
    if (r.chance(25)) t << "nice = " << r.in(-20, 19) << "\n";
    if (r.chance(15)) t << "policy = \"" << (r.chance(50) ? "batch" : "idle") << "\"\n";
    if (r.chance(30)) t << "cpus = " << cpulist(r, nr_cpus) << "\n";
    if (r.chance(30)) t << "start = " << dist(r, 3000) << "\n";
    if (gi > 0 && r.chance(15)) t << "pgrp = \"g0\"\n";
    infinite |= g.infinite;
    groups.push_back(g);
  }
  // A duration is required with a VM or a task that never ends, and cuts the others short.
  if (infinite || r.chance(30)) duration = us(r.in(20000, 1000000));

  const int nr_configs = static_cast<int>(r.in(1, 3));
  for (int ci = 0; ci < nr_configs; ci++) {
    t << "\n[[config]]\nname = \"c" << ci << "\"\n";
    if (r.chance(60)) {
      std::string f = features(r, 15);
      if (r.chance(40)) {
        const std::string v = r.pick(std::vector<std::string>{"", "_CPU_MATCH", "_IDLE_CORES"});
        f.insert(f.size() - 2,
                 fmt::format("{}CORE_COOKIE_FASTPATH{} = true", f.size() > 4 ? ", " : "", v));
      }
      t << "features = " << f << "\n";
    }
    if (r.chance(25)) t << "tunables = " << tunables(r) << "\n";
    if (smt == 1 || ci == 0) continue;  // c0 runs without cookies; no SMT: ENODEV
    std::string cookies, prctl;
    for (const auto &g : groups) {
      if (!r.chance(50)) continue;
      std::string per = r.chance(30) ? "\"group\"" : r.chance(40) ? "\"task\"" : "";
      if (per.empty()) per = std::to_string(r.in(1, g.counted && g.tasks > 1 ? g.tasks : 1));
      cookies +=
          fmt::format("{}{{ group = \"{}\", per = {} }}", cookies.empty() ? "" : ", ", g.name, per);
    }
    const int nr_prctl = r.chance(40) ? static_cast<int>(r.in(1, 4)) : 0;
    for (int k = 0; k < nr_prctl; k++) {
      const Group &a = r.pick(groups), &b = r.pick(groups);
      const std::string by = task_name(a, static_cast<int>(r.in(0, a.tasks - 1)));
      const std::string pid = task_name(b, static_cast<int>(r.in(0, b.tasks - 1)));
      const long cmd = r.in(0, 2);
      std::string scope;
      if (cmd != 2 && r.chance(40))
        scope = fmt::format(", scope = \"{}\"", r.chance(50) ? "thread_group" : "process_group");
      prctl += fmt::format("{}{{ cmd = \"{}\", by = \"{}\", pid = \"{}\"{} }}",
                           prctl.empty() ? "" : ", ",
                           cmd == 0   ? "create"
                           : cmd == 1 ? "share_to"
                                      : "share_from",
                           by, pid, scope);
    }
    if (!cookies.empty()) t << "cookies = [ " << cookies << " ]\n";
    if (!prctl.empty()) t << "prctl = [ " << prctl << " ]\n";
  }
  std::string text = t.str();
  if (!duration.empty()) {
    const auto at = text.find("\n\n[machine]");
    text.insert(at, fmt::format("\nduration = {}", duration));
  }
  return text;
}

std::string g_current;         // the file being run, for the crash handler
u64 g_runs = 0, g_events = 0;  // simulated runs and their events, for the summary
u64 g_stranded = 0;            // runs that ended with a runnable task stranded (below)

extern "C" void on_fatal(int sig) {
  const char *what = sig == SIGALRM ? "timed out" : "crashed";
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "modelfuzz: %s (signal %d) running %s\n", what, sig,
                              g_current.c_str());
  if (n > 0) (void)!write(2, buf, static_cast<std::size_t>(n));
  signal(sig, SIG_DFL);
  signal(SIGABRT, SIG_DFL);
  raise(sig == SIGALRM ? SIGABRT : sig);
}

// One line per problem of one scenario, or none.
std::vector<std::string> check_scenario(const std::string &text, const std::string &file,
                                        bool *rejected) {
  std::vector<std::string> problems;
  *rejected = false;
  scenario::Scenario s;
  try {
    s = scenario::parse_scenario(text, file);
  } catch (const scenario::ScenarioError &e) {
    *rejected = true;
    problems.push_back(std::string("rejected: ") + e.what());
    return problems;
  }
  std::vector<std::string> names;
  for (const auto &c : s.configs) names.push_back(c.name);
  if (names.empty()) names.push_back("");
  for (const auto &name : names) {
    const std::string where =
        fmt::format("config \"{}\", seed {}: ", name.empty() ? "default" : name, s.seed);
    scenario::ConfigChoice c;
    try {
      c = scenario::choose_config(s, name, {}, {});
    } catch (const std::invalid_argument &e) {  // a combination the kernel cannot be built with
      *rejected = true;
      problems.push_back(where + "rejected: " + e.what());
      return problems;
    }
    try {
      engine::Simulation sim(s, c.name, c.kernel, s.seed);
      sim.enable_check();
      const engine::RunResult r = sim.run();
      g_runs++;
      g_events += r.events;
      if (r.check && r.check->violations) {
        for (const auto &v : r.check->first)
          problems.push_back(where + "invariant violated at " +
                             schedlab::observe::format_violation(v));
        if (r.check->violations > r.check->first.size())
          problems.push_back(where + std::to_string(r.check->violations) + " violations in all");
      }
      // A finite task that never finished: asleep with nothing left to wake it (a lost
      // wakeup), or runnable on a CPU that never picks it again. The second is the kernel's
      // own behaviour in one corner of core scheduling: a CPU forced idle beside an untagged
      // task keeps its compatible untagged task queued (sched_core_find() finds no untagged
      // task), nothing reschedules it while the sibling's tick is stopped (nohz_full), and
      // __sched_core_flip() turns core scheduling off without a reschedule. Such a run counts
      // as stranded; without cookies a stranded task is a failure.
      const bool cookies = [&] {
        for (const auto &cs : s.configs)
          if (cs.name == c.name) return !cs.cookies.empty() || !cs.prctl.empty();
        return false;
      }();
      std::string asleep, runnable;
      for (const auto &comm : r.stuck_tasks) {
        bool queued = false;
        for (const auto &t : sim.kernel().tasks())
          if (t && t->comm == comm && t->on_rq) queued = true;
        (queued ? runnable : asleep) +=
            fmt::format("{}{}", (queued ? runnable : asleep).empty() ? "" : ", ", comm);
      }
      if (!asleep.empty())
        problems.push_back(where + "tasks asleep for good (a lost wakeup): " + asleep);
      if (!runnable.empty() && !cookies)
        problems.push_back(where + "runnable tasks never run again: " + runnable);
      else if (!runnable.empty())
        g_stranded++;
    } catch (const std::exception &e) {
      problems.push_back(where + "exception: " + e.what());
    }
  }
  return problems;
}

bool write_file(const std::filesystem::path &p, const std::string &text) {
  std::ofstream f(p);
  f << text;
  return static_cast<bool>(f);
}

int usage() {
  std::fprintf(stderr,
               "usage: modelfuzz [--seeds A-B] [--seconds S] [--out DIR] [--quiet]\n"
               "       modelfuzz --print SEED\n"
               "       modelfuzz --replay FILE...\n");
  return 2;
}

bool parse_u64(const std::string &s, u64 *v) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    return false;
  *v = std::stoull(s);
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  u64 first = 1, last = ~0ull, seconds = 0;
  bool ranged = false, quiet = false;
  std::filesystem::path out = ".";
  std::signal(SIGSEGV, on_fatal);
  std::signal(SIGABRT, on_fatal);
  std::signal(SIGFPE, on_fatal);
  std::signal(SIGALRM, on_fatal);

  if (!args.empty() && args[0] == "--print") {
    u64 seed;
    if (args.size() != 2 || !parse_u64(args[1], &seed)) return usage();
    std::fputs(generate(seed).c_str(), stdout);
    return 0;
  }
  if (!args.empty() && args[0] == "--replay") {
    if (args.size() < 2) return usage();
    int bad = 0;
    for (std::size_t i = 1; i < args.size(); i++) {
      std::ifstream f(args[i]);
      if (!f) {
        std::fprintf(stderr, "modelfuzz: %s: cannot read\n", args[i].c_str());
        return 2;
      }
      std::stringstream ss;
      ss << f.rdbuf();
      g_current = args[i];
      bool rejected;
      alarm(120);
      const auto problems = check_scenario(ss.str(), args[i], &rejected);
      alarm(0);
      for (const auto &p : problems) std::fprintf(stderr, "%s: %s\n", args[i].c_str(), p.c_str());
      bad += !problems.empty();
    }
    std::printf("%zu scenario file(s), %d failed\n", args.size() - 1, bad);
    return bad ? 1 : 0;
  }
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    const bool has = i + 1 < args.size();
    if (a == "--seeds" && has) {
      const std::string v = args[++i];
      const auto dash = v.find('-');
      if (dash == std::string::npos) {
        if (!parse_u64(v, &first)) return usage();
        last = first;
      } else if (!parse_u64(v.substr(0, dash), &first) ||
                 !(dash + 1 == v.size() || parse_u64(v.substr(dash + 1), &last)) || last < first) {
        std::fprintf(stderr, "modelfuzz: --seeds: expected A-B with A <= B, or A-, got '%s'\n",
                     v.c_str());
        return 2;
      }
      ranged = true;
    } else if (a == "--seconds" && has) {
      if (!parse_u64(args[++i], &seconds)) {
        std::fprintf(stderr, "modelfuzz: --seconds: expected a whole number, got '%s'\n",
                     args[i].c_str());
        return 2;
      }
    } else if (a == "--out" && has) {
      out = args[++i];
    } else if (a == "--quiet") {
      quiet = true;
    } else {
      return usage();
    }
  }
  if (!ranged && !seconds) {
    std::fprintf(stderr, "modelfuzz: give --seeds A-B, --seconds S, or both\n");
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec || !std::filesystem::is_directory(out)) {
    std::fprintf(stderr, "modelfuzz: --out %s: cannot make a directory there%s%s\n", out.c_str(),
                 ec ? ": " : " (a file of that name exists)", ec ? ec.message().c_str() : "");
    return 2;
  }
  const auto current = out / "modelfuzz-current.toml";
  const auto t0 = std::chrono::steady_clock::now();
  u64 tried = 0, rejected_n = 0;
  for (u64 seed = first;; seed++) {
    if (seconds && std::chrono::steady_clock::now() - t0 >= std::chrono::seconds(seconds)) break;
    const std::string text = generate(seed);
    // On disk before it runs: a crash or a hang leaves it there.
    if (!write_file(current, text)) {
      std::fprintf(stderr, "modelfuzz: cannot write %s\n", current.c_str());
      return 2;
    }
    g_current = fmt::format("{} (seed {})", current.string(), seed);
    alarm(120);
    bool rejected;
    const auto problems = check_scenario(text, current.string(), &rejected);
    alarm(0);
    tried++;
    if (rejected) {
      // The generator's fault, not the model's: count it, and fail if it becomes common.
      rejected_n++;
      if (!quiet)
        std::fprintf(stderr, "seed %llu: %s\n", static_cast<unsigned long long>(seed),
                     problems[0].c_str());
    } else if (!problems.empty()) {
      const auto found = out / fmt::format("modelfuzz-{}.toml", seed);
      std::string head;
      for (const auto &p : problems) head += fmt::format("# found: {}\n", p);
      write_file(found, head + text);
      for (const auto &p : problems)
        std::fprintf(stderr, "seed %llu: %s\n", static_cast<unsigned long long>(seed), p.c_str());
      std::fprintf(stderr, "modelfuzz: wrote %s; replay with: modelfuzz --replay %s\n",
                   found.c_str(), found.c_str());
      std::filesystem::remove(current, ec);
      return 1;
    }
    if (seed == last) break;
  }
  std::filesystem::remove(current, ec);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "modelfuzz: seeds %llu-%llu: %llu scenarios (%llu runs, %llu events), %llu "
      "rejected by the reader, 0 failures, %llu runs with a stranded task under core "
      "scheduling, %.1f s\n",
      static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + tried - 1),
      static_cast<unsigned long long>(tried), static_cast<unsigned long long>(g_runs),
      static_cast<unsigned long long>(g_events), static_cast<unsigned long long>(rejected_n),
      static_cast<unsigned long long>(g_stranded), wall);
  // The generator must make valid scenarios: more than 1 in 20 refused means it drifted from
  // the format.
  if (rejected_n * 20 > tried) {
    std::fprintf(stderr, "modelfuzz: the reader refused %llu of %llu scenarios\n",
                 static_cast<unsigned long long>(rejected_n),
                 static_cast<unsigned long long>(tried));
    return 1;
  }
  return 0;
}
