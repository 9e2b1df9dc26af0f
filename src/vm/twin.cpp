// SPDX-License-Identifier: GPL-2.0-only
#include "vm/twin.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "experiment/experiment_report.h"
#include "machine/topology.h"
#include "real/measure.h"
#include "schedlab/version.h"
#include "vm/initramfs.h"

extern char **environ;

namespace schedlab::vm {

using nlohmann::ordered_json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// "0-1,4" -> {0, 1, 4}; nullopt if it is not a CPU list.
std::optional<std::set<int>> cpu_list(const std::string &s) {
  std::set<int> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int a = 0, b = 0;
    char dash = 0;
    std::stringstream ps(part);
    if (!(ps >> a)) return std::nullopt;
    b = a;
    if (ps >> dash) {
      if (dash != '-' || !(ps >> b) || b < a || b - a > 4096) return std::nullopt;
    }
    for (int c = a; c <= b; c++) out.insert(c);
  }
  return out;
}

std::string set_text(const std::set<int> &s) {
  std::string out;
  for (int c : s) {
    if (!out.empty()) out.push_back(',');
    out.append(std::to_string(c));
  }
  return fmt::format("{{{}}}", out);
}

// The tunables with a file in /sys/kernel/debug/sched/ (6.12).
bool debugfs_tunable(kernel::sched_tunable_id id) {
  return id == kernel::TUNABLE_base_slice_ns || id == kernel::TUNABLE_migration_cost_ns ||
         id == kernel::TUNABLE_nr_migrate || id == kernel::TUNABLE_tunable_scaling;
}

std::string read_all(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string last_lines(const std::filesystem::path &p, std::size_t n) {
  std::string s = read_all(p);
  std::vector<std::string> lines;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) {
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
    if (!l.empty()) lines.push_back(l);
  }
  std::string out;
  for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); i++)
    out.append(out.empty() ? "" : " | ").append(lines[i]);
  return out;
}

std::string panic_line(const std::filesystem::path &console) {
  const std::string s = read_all(console);
  const auto at = s.find("Kernel panic");
  if (at == std::string::npos) return {};
  return s.substr(at, s.find_first_of("\r\n", at) - at);
}

bool kvm_usable() {
  return access("/dev/kvm", R_OK | W_OK) == 0;
}

std::string qemu_path_arg(const std::filesystem::path &p) {
  std::string out;
  for (char c : p.string()) {
    out.push_back(c);
    if (c == ',') out.push_back(',');  // QEMU's option syntax doubles a comma in a value
  }
  return out;
}

class Qemu {
 public:
  Qemu(std::vector<std::string> argv, const std::filesystem::path &log) : argv_(std::move(argv)) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    // Its own process group, so the terminal's Ctrl-C reaches schedlab only, which then stops it.
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    std::vector<char *> args;
    for (auto &a : argv_) args.push_back(a.data());
    args.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, argv_[0].c_str(), &fa, &at, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0)
      throw TwinError(
          fmt::format("cannot start {}: {} (bash scripts/install-deps.sh --twin "
                      "installs QEMU)",
                      argv_[0], std::strerror(rc)));
  }
  ~Qemu() { stop(); }
  // The exit status once it has exited.
  std::optional<int> poll() {
    if (pid_ <= 0) return status_;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = 0;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return status_;
  }
  void stop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGTERM);  // its process group: QEMU and anything it started
    for (int i = 0; i < 40 && !poll(); i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      int st = 0;
      waitpid(pid_, &st, 0);
      pid_ = 0;
      status_ = 128 + SIGKILL;
    }
  }

 private:
  std::vector<std::string> argv_;
  pid_t pid_ = 0;
  std::optional<int> status_;
};

// What one boot gave: frames and how it ended.
struct Boot {
  ordered_json hello, timing;
  std::vector<ordered_json> runs, traces;
  bool done = false, reached_guest = false;
  std::string failure;
  bool unsupported = false, interrupted = false;
};

}  // namespace

std::vector<int> guest_cpu_map(const TopologySpec &t) {
  const Topology topo(t);
  std::vector<int> map(static_cast<std::size_t>(topo.nr_cpus()));
  for (int c = 0; c < topo.nr_cpus(); c++)
    map[static_cast<std::size_t>(c)] = topo.cpu(c).core * t.threads_per_core + topo.cpu(c).thread;
  return map;
}

void check_twin_supported(const scenario::Scenario &s, const TwinOptions &o) {
  const TopologySpec &t = s.topology;
  if (t.clusters_per_llc > 1)
    throw TwinUnsupported(
        "the scenario's machine has clusters, which QEMU's x86 machine cannot give a guest");
  if (t.sockets > 1 || t.numa_nodes > 1)
    throw TwinUnsupported(
        "the scenario's machine has more than one socket or NUMA node; the twin builds "
        "one-socket machines for now");
  // CONFIG_NR_CPUS of kernel/config/twin-6.12.fragment.
  constexpr int kTwinNrCpus = 64;
  if (t.nr_cpus() > kTwinNrCpus)
    throw TwinUnsupported(
        fmt::format("the scenario's machine has {} CPUs; the twin kernel is "
                    "built for at most {} (CONFIG_NR_CPUS)",
                    t.nr_cpus(), kTwinNrCpus));
  real::HostInfo guest;
  guest.nr_cpus = t.nr_cpus();
  guest.core_sched = true;
  guest.described = true;
  guest.machine = t;
  experiment::ExperimentOptions eo;
  eo.configs = o.configs;
  eo.runs = o.runs;
  eo.seed_base = o.seed_base;
  const std::vector<scenario::ConfigChoice> chosen = experiment::experiment_configs(s, eo);
  for (const auto &c : chosen) {
    const scenario::ConfigSpec *spec = nullptr;
    for (const auto &cs : s.configs)
      if (cs.name == c.name) spec = &cs;
    try {
      real::check_supported(s, spec, guest);
    } catch (const real::Unsupported &e) {
      std::string m = e.what();
      if (m.rfind("measure: ", 0) == 0) m = m.substr(9);
      throw TwinUnsupported(m);
    }
    for (int i = 0; i < kernel::__SCHED_TUNABLE_NR; i++) {
      const auto id = static_cast<kernel::sched_tunable_id>(i);
      const std::int64_t v = c.kernel.tunables.v[i];
      if (debugfs_tunable(id) || id == kernel::TUNABLE_hz) continue;
      if (v != kernel::kTunables[i].default_value)
        throw TwinUnsupported(fmt::format(
            "configuration \"{}\" sets tunable {} = {}, which the twin kernel cannot set (it "
            "has /sys/kernel/debug/sched/{{base_slice_ns,migration_cost_ns,nr_migrate,"
            "tunable_scaling}})",
            c.name, kernel::kTunables[i].name, v));
    }
    if (!c.kernel.nohz_full.empty())
      throw TwinUnsupported(fmt::format(
          "configuration \"{}\" uses nohz_full, which the twin kernel is not built with", c.name));
  }
}

std::string remap_trace_cpus(const std::string &text, const std::vector<int> &unmap) {
  bool identity = true;
  for (std::size_t i = 0; i < unmap.size(); i++) identity &= unmap[i] == static_cast<int>(i);
  if (identity) return text;
  auto mapped = [&](const std::string &digits) {
    const int g = std::stoi(digits);
    return g >= 0 && static_cast<std::size_t>(g) < unmap.size()
               ? std::to_string(unmap[static_cast<std::size_t>(g)])
               : digits;
  };
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line[0] != '#') {
      // The CPU column: the first "[digits]" of the line.
      const std::size_t lb = line.find('[');
      const std::size_t rb = lb == std::string::npos ? lb : line.find(']', lb);
      if (rb != std::string::npos && rb > lb + 1 &&
          line.find_first_not_of("0123456789", lb + 1) == rb) {
        std::string d = mapped(line.substr(lb + 1, rb - lb - 1));
        while (d.size() < rb - lb - 1) d.insert(d.begin(), '0');
        line.replace(lb + 1, rb - lb - 1, d);
      }
      for (const char *key : {"target_cpu=", "orig_cpu=", "dest_cpu="}) {
        const std::size_t at = line.find(key);
        if (at == std::string::npos) continue;
        const std::size_t v = at + std::strlen(key);
        const std::size_t end = line.find_first_not_of("0123456789", v);
        const std::size_t n = (end == std::string::npos ? line.size() : end) - v;
        if (n) line.replace(v, n, mapped(line.substr(v, n)));
      }
    }
    out += line;
    if (eol < text.size()) out += '\n';
  }
  return out;
}

SchedstatSums schedstat_sums(const Schedstat &s) {
  SchedstatSums x;
  for (const SchedstatCpu &c : s.cpus) {
    x.ttwu_count += c.ttwu_count;
    x.ttwu_local += c.ttwu_local;
    x.sched_count += c.sched_count;
    x.sched_goidle += c.sched_goidle;
    for (const SchedstatDomain &d : c.domains) {
      const auto &ni = d.lb[kIdleTypeNewlyIdle];
      x.newidle_lb_count += ni[LB_COUNT];
      x.newidle_lb_gained += ni[LB_GAINED];
      x.newidle_lb_failed += ni[LB_FAILED];
      x.newidle_lb_balanced += ni[LB_BALANCED];
      for (int t = 0; t < kNrIdleTypes; t++) {
        x.lb_count += d.lb[t][LB_COUNT];
        x.lb_gained += d.lb[t][LB_GAINED];
      }
      x.alb_pushed += d.other[ALB_PUSHED];
      x.ttwu_wake_remote += d.other[TTWU_WAKE_REMOTE];
      x.ttwu_move_affine += d.other[TTWU_MOVE_AFFINE];
    }
  }
  return x;
}

namespace {

ordered_json job_json(const scenario::Scenario &s, const std::vector<scenario::ConfigChoice> &cs,
                      const std::vector<u64> &seeds, const std::string &scenario_path, bool trace) {
  ordered_json job;
  job["schedlab_version"] = kVersion;
  job["scenario"] = scenario_path;
  job["cpu_map"] = guest_cpu_map(s.topology);
  job["seeds"] = seeds;
  job["trace"] = trace;
  ordered_json configs = ordered_json::array();
  for (const auto &c : cs) {
    ordered_json jc;
    jc["name"] = c.name;
    ordered_json f = ordered_json::object();
    for (int i = 0; i < kernel::__SCHED_FEAT_NR; i++)
      f[std::string(kernel::kFeatures[i].name)] =
          static_cast<bool>(c.kernel.features.on[static_cast<std::size_t>(i)]);
    jc["features"] = std::move(f);
    ordered_json t = ordered_json::object();
    for (int i = 0; i < kernel::__SCHED_TUNABLE_NR; i++) {
      const auto id = static_cast<kernel::sched_tunable_id>(i);
      const std::int64_t v = c.kernel.tunables.v[i];
      if (!debugfs_tunable(id) || (id == kernel::TUNABLE_base_slice_ns && v == 0)) continue;
      t[std::string(kernel::kTunables[i].name)] = v;
    }
    jc["tunables"] = std::move(t);
    configs.push_back(std::move(jc));
  }
  job["configs"] = std::move(configs);
  return job;
}

// Checks the guest's CPUs against the scenario's machine; empty when they match.
std::string topology_mismatch(const TopologySpec &spec, const ordered_json &hello) {
  const Topology topo(spec);
  const std::vector<int> map = guest_cpu_map(spec);
  if (hello.value("nr_cpus", 0) != topo.nr_cpus())
    return fmt::format("the guest has {} CPUs, the scenario {}", hello.value("nr_cpus", 0),
                       topo.nr_cpus());
  const ordered_json &cpus = hello.at("cpus");
  auto mapped = [&](const CpuMask &m) {
    std::set<int> out;
    for (int c = 0; c < topo.nr_cpus(); c++)
      if (m.test(c)) out.insert(map[static_cast<std::size_t>(c)]);
    return out;
  };
  for (int c = 0; c < topo.nr_cpus(); c++) {
    const int g = map[static_cast<std::size_t>(c)];
    const ordered_json &gc = cpus.at(static_cast<std::size_t>(g));
    const auto smt = cpu_list(gc.value("thread_siblings", ""));
    if (!smt || *smt != mapped(topo.smt_mask(c)))
      return fmt::format("guest CPU {} (scenario CPU {}) has SMT siblings {}, expected {}", g, c,
                         gc.value("thread_siblings", "?"), set_text(mapped(topo.smt_mask(c))));
    const std::string llc_text = gc.value("llc_siblings", "");
    if (!llc_text.empty()) {
      const auto llc = cpu_list(llc_text);
      if (!llc || *llc != mapped(topo.llc_mask(c)))
        return fmt::format(
            "guest CPU {} (scenario CPU {}) shares its last-level cache with {}, "
            "expected {}",
            g, c, llc_text, set_text(mapped(topo.llc_mask(c))));
    }
  }
  return {};
}

Boot boot_once(const scenario::Scenario &s, const TwinOptions &o, const std::string &accel,
               unsigned hello_timeout_s, double run_timeout_s, std::size_t total_runs,
               const std::atomic<bool> &interrupt, std::vector<std::string> *command) {
  const std::filesystem::path console = o.workdir / "console.log",
                              results = o.workdir / "results.bin", qlog = o.workdir / "qemu.log";
  std::filesystem::remove(results);
  { std::ofstream touch(results); }
  const TopologySpec &t = s.topology;
  std::vector<std::string> argv = {
      o.qemu,
      "-kernel",
      o.kernel.string(),
      "-initrd",
      (o.workdir / "initramfs.cpio").string(),
      "-m",
      std::to_string(o.memory_mb) + "M",
      "-smp",
      fmt::format("{},sockets={},dies={},cores={},threads={}", t.nr_cpus(), t.sockets,
                  t.llcs_per_socket, t.cores_per_llc, t.threads_per_core),
      "-nographic",
      "-no-reboot",
      "-nodefaults",
      "-display",
      "none",
      "-serial",
      "file:" + qemu_path_arg(console),
      "-serial",
      "file:" + qemu_path_arg(results),
      "-append",
      "console=ttyS0 random.trust_cpu=on schedstats=enable panic=-1 quiet loglevel=4 sched_verbose",
  };
  if (accel == "kvm") {
    argv.insert(argv.end(), {"-cpu", "host", "-accel", "kvm"});
  } else {
    // Under TCG, -cpu max alone shows an AMD vendor and the guest sees no SMT siblings.
    argv.insert(argv.end(), {"-cpu", "max,vendor=GenuineIntel", "-accel", "tcg,thread=multi"});
  }
  *command = argv;
  Boot b;
  Qemu q(argv, qlog);
  FrameReader reader;
  std::streamoff offset = 0;
  double deadline = now_s() + hello_timeout_s;
  for (;;) {
    if (interrupt.load()) {
      b.interrupted = true;
      q.stop();
      return b;
    }
    const std::optional<int> exited = q.poll();
    // New bytes of the result port.
    {
      std::ifstream f(results, std::ios::binary);
      f.seekg(offset);
      std::string chunk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      offset += static_cast<std::streamoff>(chunk.size());
      try {
        reader.feed(chunk);
      } catch (const ProtocolError &e) {
        b.failure = std::string("the guest's results are corrupt: ") + e.what();
        q.stop();
        return b;
      }
    }
    while (std::optional<Frame> f = reader.next()) {
      ordered_json p;
      try {
        p = ordered_json::parse(f->payload);
      } catch (const std::exception &) {
        b.failure = "the guest sent a '" + f->kind + "' frame that is not JSON";
        q.stop();
        return b;
      }
      deadline = now_s() + run_timeout_s;
      if (f->kind == "hello") {
        b.reached_guest = true;
        b.hello = std::move(p);
        // A guest that is not the scenario's machine, or has no working core scheduling,
        // must not run the scenario at all.
        std::string wrong;
        try {
          wrong = topology_mismatch(s.topology, b.hello);
          if (wrong.empty() && b.hello.value("core_sched", "") != "ok")
            wrong = "core scheduling does not work in the guest: " +
                    b.hello.value("core_sched", std::string("no report"));
          else if (!wrong.empty())
            wrong = "the guest's machine is not the scenario's: " + wrong;
        } catch (const std::exception &) {
          wrong = "the guest's report of its CPUs is malformed";
        }
        if (!wrong.empty()) {
          b.failure = wrong;
          q.stop();
          return b;
        }
      } else if (f->kind == "timing") {
        b.timing = std::move(p);
      } else if (f->kind == "run") {
        b.runs.push_back(std::move(p));
        if (o.progress) {
          const ordered_json &r = b.runs.back();
          const ordered_json &res = r.contains("result") ? r["result"] : ordered_json::object();
          const double done = res.value("completion_time_s", 0.0);
          o.progress(fmt::format(
              "run {} of {}: {} seed {}: {}", b.runs.size(), total_runs, r.value("config", "?"),
              r.value("seed", 0),
              done > 0 ? fmt::format("{:.3f} s", done)
                       : fmt::format("ran {:.3f} s", res.value("end_time_ns", 0.0) / 1e9)));
        }
      } else if (f->kind == "trace") {
        b.traces.push_back(std::move(p));
      } else if (f->kind == "done") {
        b.done = true;
      } else if (f->kind == "unsupported" || f->kind == "error") {
        b.unsupported = f->kind == "unsupported";
        b.failure = p.value("message", "the guest failed");
      }
      if (b.done || !b.failure.empty()) {
        // The guest powers off by itself; give it a moment, then stop QEMU.
        for (int i = 0; i < 100 && !q.poll(); i++)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        q.stop();
        return b;
      }
    }
    if (exited) {
      const std::string panic = panic_line(console);
      if (!panic.empty())
        b.failure = "the guest kernel panicked: " + panic + " (console: " + console.string() + ")";
      else if (!b.reached_guest)
        b.failure = fmt::format(
            "QEMU exited with status {} before the guest reported anything: {} (log: {})", *exited,
            last_lines(qlog, 2), qlog.string());
      else
        b.failure = fmt::format(
            "the guest stopped (QEMU status {}) before it finished; last "
            "console lines: {} (console: {})",
            *exited, last_lines(console, 2), console.string());
      return b;
    }
    if (now_s() > deadline) {
      q.stop();
      b.failure = b.reached_guest
                      ? fmt::format(
                            "no report from the guest for {:.0f} s (a hang?); last "
                            "console lines: {} (console: {})",
                            run_timeout_s, last_lines(console, 2), console.string())
                      : fmt::format(
                            "the guest did not start within {} s ({}); last console "
                            "lines: {} (console: {})",
                            hello_timeout_s, accel, last_lines(console, 2), console.string());
      return b;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

TwinResult run_twin(const scenario::Scenario &s, const TwinOptions &o,
                    const std::atomic<bool> &interrupt) {
  const double t0 = now_s();
  check_twin_supported(s, o);
  experiment::ExperimentOptions eo;
  eo.configs = o.configs;
  eo.runs = o.runs;
  eo.seed_base = o.seed_base;
  const std::vector<scenario::ConfigChoice> chosen = experiment::experiment_configs(s, eo);
  std::vector<u64> seeds;
  for (u64 i = 0; i < o.runs; i++) seeds.push_back(o.seed_base.value_or(s.seed) + i);

  TwinResult r;
  if (chosen.front().kernel.version != kernel::KernelVersion::V6_12)
    r.warnings.push_back(
        "the scenario models kernel 6.18; the twin kernel is 6.12 (set [kernel] version = "
        "\"6.12\" for a like-for-like simulation)");

  // The timeout of one run: the simulator's prediction of the longest configuration, times
  // ten (an emulated guest is slow), plus a minute.
  double sim_s = static_cast<double>(s.duration_ns) / 1e9;
  if (!s.duration_ns) {
    experiment::ExperimentOptions one = eo;
    one.runs = 1;
    try {
      const experiment::ExperimentResult sim = experiment::run_experiment(s, one);
      for (const auto &c : sim.configs)
        for (const auto &run : c.runs)
          sim_s = std::max(sim_s, static_cast<double>(run.completion_ns) / 1e9);
    } catch (const std::exception &) {
      sim_s = 60;
    }
  }
  const double run_timeout_s = 60 + 10 * sim_s;

  // The initramfs: the guest program and its libraries, the scenario and the job.
  std::filesystem::path guest = o.guest;
  if (guest.empty()) {
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    for (const auto &cand : {self.parent_path() / "schedlab-guest",
                             self.parent_path().parent_path() / "libexec/schedlab/schedlab-guest"})
      if (std::filesystem::exists(cand)) {
        guest = cand;
        break;
      }
    if (guest.empty())
      throw TwinError("cannot find schedlab-guest beside " + self.string() +
                      " or in ../libexec/schedlab (build it with the schedlab target's build)");
  }
  std::filesystem::create_directories(o.workdir);
  {
    Initramfs ir;
    ir.add_dir("/dev");
    ir.add_char_device("/dev/console", 5, 1, 0600);
    ir.add_dir("/proc");
    ir.add_dir("/sys");
    ir.add_dir("/tmp");
    ir.copy_file("/init", guest, 0755);
    for (const auto &lib : shared_libraries(guest)) ir.copy_file(lib.string(), lib, 0755);
    const std::string scenario_name = std::filesystem::path(s.file).filename().string();
    ir.copy_file("/job/" + scenario_name, s.file, 0644);
    ir.add_file("/job/job.json",
                job_json(s, chosen, seeds, "/job/" + scenario_name, o.trace).dump(2));
    std::ofstream out(o.workdir / "initramfs.cpio", std::ios::binary);
    const std::string a = ir.archive();
    out.write(a.data(), static_cast<std::streamsize>(a.size()));
    if (!out) throw TwinError("cannot write " + (o.workdir / "initramfs.cpio").string());
  }

  std::string accel = o.accel;
  if (accel == "kvm" && !kvm_usable())
    throw TwinUnsupported("--accel kvm: /dev/kvm is not usable here");
  if (accel == "auto") accel = kvm_usable() ? "kvm" : "tcg";
  const std::size_t total = chosen.size() * seeds.size();
  Boot b =
      boot_once(s, o, accel, accel == "kvm" && o.accel == "auto" ? o.kvm_probe_s : o.boot_timeout_s,
                run_timeout_s, total, interrupt, &r.qemu_command);
  if (accel == "kvm" && o.accel == "auto" && !b.reached_guest && !b.interrupted) {
    r.warnings.push_back(fmt::format(
        "KVM is present but the guest did not start within {} s; using TCG", o.kvm_probe_s));
    accel = "tcg";
    b = boot_once(s, o, accel, o.boot_timeout_s, run_timeout_s, total, interrupt, &r.qemu_command);
  }
  r.accel = accel;
  r.guest = b.hello;
  r.timing = b.timing;
  r.interrupted = b.interrupted;
  r.failure = b.failure;
  r.unsupported = b.unsupported;

  if (!b.hello.is_null()) {
    const double hz = b.hello.value("hz_measured", 0.0);
    const double want = static_cast<double>(chosen.front().kernel.tunables.v[kernel::TUNABLE_hz]);
    if (hz > 0 && std::fabs(hz - want) > 0.25 * want)
      r.warnings.push_back(fmt::format(
          "the guest kernel ticks at about {:.0f} Hz, the scenario's HZ is {:.0f} (build the "
          "kernel with scripts/build-kernel.sh --hz {:.0f})",
          hz, want, want));
  }

  // Guest CPU -> scenario CPU.
  const std::vector<int> map = guest_cpu_map(s.topology);
  std::vector<int> unmap(map.size(), -1);
  for (std::size_t c = 0; c < map.size(); c++)
    unmap[static_cast<std::size_t>(map[c])] = static_cast<int>(c);

  experiment::ExperimentResult &e = r.experiment;
  e.scenario = s.name;
  e.scenario_file = s.file;
  for (const auto &c : chosen) e.configs.push_back({c.name, c.kernel, {}});
  for (const auto &cmp : s.compares) {
    bool all = true;
    for (const std::string *n : {&cmp.base, &cmp.patched, &cmp.reference}) {
      bool found = false;
      for (const auto &c : chosen) found |= c.name == *n;
      all &= found;
    }
    if (all) e.comparisons.push_back(cmp);
  }
  // Seed-major: a seed counts when every configuration ran it.
  std::vector<std::vector<const ordered_json *>> by_seed(
      seeds.size(), std::vector<const ordered_json *>(chosen.size()));
  for (const ordered_json &run : b.runs) {
    const u64 seed = run.value("seed", u64{0});
    const std::string name = run.value("config", "");
    for (std::size_t i = 0; i < seeds.size(); i++)
      if (seeds[i] == seed)
        for (std::size_t c = 0; c < chosen.size(); c++)
          if (chosen[c].name == name) by_seed[i][c] = &run;
  }
  for (std::size_t i = 0; i < seeds.size(); i++) {
    bool complete = true;
    for (std::size_t c = 0; c < chosen.size(); c++) {
      complete &= by_seed[i][c] != nullptr;
      // A guest that says it finished owes every run it was given.
      if (!by_seed[i][c] && b.done && r.failure.empty())
        r.failure = fmt::format(
            "the guest finished without a result for configuration \"{}\", "
            "seed {}",
            chosen[c].name, seeds[i]);
    }
    if (!complete) continue;
    e.seeds.push_back(seeds[i]);
    for (std::size_t c = 0; c < chosen.size(); c++) {
      const ordered_json &run = *by_seed[i][c];
      TwinRun tr;
      tr.config = chosen[c].name;
      tr.seed = seeds[i];
      tr.result = run.at("result");
      if (run.contains("newidle_costs")) tr.newidle_costs = run["newidle_costs"];
      try {
        tr.schedstat = schedstat_delta(parse_schedstat(run.value("schedstat_before", "")),
                                       parse_schedstat(run.value("schedstat_after", "")));
      } catch (const SchedstatError &err) {
        if (r.failure.empty()) r.failure = std::string("the guest's ") + err.what();
      }
      for (SchedstatCpu &sc : tr.schedstat.cpus)
        if (sc.cpu >= 0 && static_cast<std::size_t>(sc.cpu) < unmap.size())
          sc.cpu = unmap[static_cast<std::size_t>(sc.cpu)];
      std::sort(tr.schedstat.cpus.begin(), tr.schedstat.cpus.end(),
                [](const SchedstatCpu &a, const SchedstatCpu &b) { return a.cpu < b.cpu; });
      const SchedstatSums sums = schedstat_sums(tr.schedstat);
      experiment::ExperimentRun er;
      er.seed = seeds[i];
      er.completion_ns = tr.result.value("completion_time_ns", u64{0});
      er.forceidle_ns =
          tr.result["forceidle_ns"].is_number() ? tr.result["forceidle_ns"].get<u64>() : 0;
      er.bench.assign(experiment::kNrBenchMetrics, kNaN);
      if (run.contains("bench_metrics") && run["bench_metrics"].is_array())
        for (std::size_t m = 0; m < er.bench.size() && m < run["bench_metrics"].size(); m++)
          if (run["bench_metrics"][m].is_number())
            er.bench[m] = run["bench_metrics"][m].get<double>();
      er.bench_expected = run.value("bench_expected", u64{0});
      for (const scenario::TaskGroupSpec &g : s.groups) {
        if (g.bench.kind != workload::Benchmark::Kind::Vm) continue;
        Time fi = 0;
        for (const ordered_json &t : tr.result.at("tasks")) {
          const std::string comm = t.value("comm", "");
          if ((comm == g.name || comm.rfind(g.name + "-", 0) == 0) &&
              t["core_forceidle_sum_ns"].is_number())
            fi += t["core_forceidle_sum_ns"].get<Time>();
        }
        er.vm_forceidle_ns.emplace_back(g.name, fi);
      }
      u64 migrations = 0;
      for (const ordered_json &t : tr.result.at("tasks"))
        if (t["nr_migrations"].is_number()) migrations += t["nr_migrations"].get<u64>();
      // What the kernel reports of the run statistics (kernel/stats.h): a CPU statistic named
      // as a /proc/schedstat counter is that counter summed over CPUs and domains; the rest are
      // the model's own (NaN) but for the few the kernel counts under another name.
      er.stat.fill(kNaN);
      const std::map<std::string, u64> kernel_counts = schedstat_by_name(tr.schedstat);
      for (std::size_t i = 0; i < experiment::NR_RUN_STATS; i++)
        if (const auto it = kernel_counts.find(experiment::kStatistics[i].name);
            experiment::kStatistics[i].over == experiment::StatOver::CPU &&
            it != kernel_counts.end())
          er.stat[i] = static_cast<double>(it->second);
      auto set = [&](experiment::run_stat_id id, u64 v) { er.stat[id] = static_cast<double>(v); };
      set(experiment::STAT_newidle_lb_count, sums.newidle_lb_count);
      set(experiment::STAT_newidle_lb_gained, sums.newidle_lb_gained);
      set(experiment::STAT_migrations, migrations);
      set(experiment::STAT_lb_moved, sums.lb_gained);
      set(experiment::STAT_lb_active, sums.alb_pushed);
      e.configs[c].runs.push_back(std::move(er));
      r.runs.push_back(std::move(tr));
    }
  }
  for (const ordered_json &t : b.traces) {
    TwinTrace tt;
    tt.config = t.value("config", "");
    tt.seed = t.value("seed", u64{0});
    tt.overruns = t.value("overruns", u64{0});
    tt.text = remap_trace_cpus(t.value("text", ""), unmap);
    if (tt.overruns)
      r.warnings.push_back(fmt::format("the guest's trace buffer dropped {} events ({} seed {})",
                                       tt.overruns, tt.config, tt.seed));
    r.traces.push_back(std::move(tt));
  }
  if (e.seeds.empty() && !r.failure.empty()) {
    if (r.unsupported) throw TwinUnsupported(r.failure);
    throw TwinError(r.failure);
  }
  if (e.seeds.empty() && r.interrupted) throw TwinError("interrupted before any run finished");
  if (e.seeds.empty()) throw TwinError("the guest returned no complete seed");
  e.wall_s = now_s() - t0;
  r.wall_s = e.wall_s;
  return r;
}

namespace {

experiment::ExperimentStats twin_stats(const TwinResult &r) {
  experiment::ExperimentStats st = experiment::experiment_stats(r.experiment, {true, true});
  st.placement.reset();  // select_idle_sibling()'s choices are the simulator's alone
  return st;
}

const TwinRun *find_run(const TwinResult &r, const std::string &config, u64 seed) {
  for (const TwinRun &t : r.runs)
    if (t.config == config && t.seed == seed) return &t;
  return nullptr;
}

// The schedstat figures of a configuration's runs, summed, and how many runs there were.
struct ConfigSchedstat {
  double ttwu_count = 0, ttwu_local = 0, newidle_lb_count = 0, newidle_lb_gained = 0;
  double alb_pushed = 0;
  std::size_t runs = 0;
  double local_pct() const { return ttwu_count > 0 ? 100.0 * ttwu_local / ttwu_count : 0.0; }
};

ConfigSchedstat config_schedstat(const TwinResult &r, const std::string &config) {
  ConfigSchedstat c;
  for (const TwinRun &t : r.runs) {
    if (t.config != config) continue;
    const SchedstatSums x = schedstat_sums(t.schedstat);
    c.ttwu_count += static_cast<double>(x.ttwu_count);
    c.ttwu_local += static_cast<double>(x.ttwu_local);
    c.newidle_lb_count += static_cast<double>(x.newidle_lb_count);
    c.newidle_lb_gained += static_cast<double>(x.newidle_lb_gained);
    c.alb_pushed += static_cast<double>(x.alb_pushed);
    c.runs++;
  }
  return c;
}

ordered_json schedstat_json(const Schedstat &s) {
  ordered_json j;
  const SchedstatSums x = schedstat_sums(s);
  j["ttwu_count"] = x.ttwu_count;
  j["ttwu_local"] = x.ttwu_local;
  j["sched_count"] = x.sched_count;
  j["sched_goidle"] = x.sched_goidle;
  j["lb_count"] = x.lb_count;
  j["lb_gained"] = x.lb_gained;
  j["newidle_lb_count"] = x.newidle_lb_count;
  j["newidle_lb_balanced"] = x.newidle_lb_balanced;
  j["newidle_lb_failed"] = x.newidle_lb_failed;
  j["newidle_lb_gained"] = x.newidle_lb_gained;
  j["alb_pushed"] = x.alb_pushed;
  j["ttwu_wake_remote"] = x.ttwu_wake_remote;
  j["ttwu_move_affine"] = x.ttwu_move_affine;
  j["cpus"] = real::schedstat_cpus_json(s);
  return j;
}

// Suggested simulator inputs from the guest's timing.
ordered_json suggested_costs(const ordered_json &timing) {
  ordered_json s = ordered_json::object();
  if (timing.is_object() && timing.contains("sleep_overshoot_mean_ns"))
    s["kernel.timer_slack_ns"] =
        static_cast<long long>(std::llround(timing["sleep_overshoot_mean_ns"].get<double>()));
  return s;
}

}  // namespace

ordered_json twin_to_json(const TwinResult &r) {
  const experiment::ExperimentStats st = twin_stats(r);
  ordered_json j = experiment::experiment_to_json(r.experiment, st);
  ordered_json out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out[it.key()] = it.value();
    if (it.key() == "scenario_file") out["measured"] = true;
  }
  for (ordered_json &jc : out["configs"]) {
    const std::string name = jc.value("name", "");
    for (ordered_json &jr : jc["runs"]) {
      const TwinRun *tr = find_run(r, name, jr.value("seed", u64{0}));
      if (!tr) continue;
      jr.erase("select_idle_sibling");
      jr.erase("events");
      jr["tasks"] = tr->result.at("tasks");
      jr["schedstat"] = schedstat_json(tr->schedstat);
      if (tr->newidle_costs.is_array()) {
        // Mean over the CPUs of each domain level's max_newidle_lb_cost at the run's end.
        ordered_json costs = ordered_json::object();
        std::map<std::string, std::pair<double, int>> acc;
        std::vector<std::string> order;
        for (const ordered_json &cpu : tr->newidle_costs)
          for (const ordered_json &d : cpu) {
            const std::string level = d.value("name", "?");
            if (!acc.count(level)) order.push_back(level);
            acc[level].first += d.value("max_newidle_lb_cost_ns", 0.0);
            acc[level].second++;
          }
        for (const std::string &level : order) costs[level] = acc[level].first / acc[level].second;
        jr["max_newidle_lb_cost_ns"] = std::move(costs);
      }
    }
    if (const ConfigSchedstat c = config_schedstat(r, name); c.runs) {
      jc["mean_ttwu_count"] = c.ttwu_count / static_cast<double>(c.runs);
      jc["mean_ttwu_local"] = c.ttwu_local / static_cast<double>(c.runs);
      jc["mean_ttwu_local_pct"] = c.local_pct();
    }
  }
  ordered_json tw;
  tw["accel"] = r.accel;
  tw["kernel_release"] = r.guest.is_object() ? r.guest.value("kernel_release", "") : "";
  tw["qemu_command"] = r.qemu_command;
  tw["guest"] = r.guest;
  tw["timing"] = r.timing;
  tw["suggested"] = suggested_costs(r.timing);
  tw["warnings"] = r.warnings;
  tw["interrupted"] = r.interrupted;
  tw["failure"] = r.failure.empty() ? ordered_json(nullptr) : ordered_json(r.failure);
  out["twin"] = std::move(tw);
  return out;
}

std::string twin_table(const TwinResult &r) {
  const experiment::ExperimentStats st = twin_stats(r);
  std::string out = fmt::format("Measured on the twin kernel {} ({}; {} CPUs as the scenario's)\n",
                                r.guest.is_object() ? r.guest.value("kernel_release", "?") : "?",
                                r.accel, r.guest.is_object() ? r.guest.value("nr_cpus", 0) : 0);
  if (r.timing.is_object())
    out += fmt::format(
        "Guest timing: a 1 ms sleep ends {:.0f} us late on average (p50 {:.0f} us); a 2 ms spin "
        "of thread CPU time takes {:.0f} us more wall time\n",
        r.timing.value("sleep_overshoot_mean_ns", 0.0) / 1e3,
        r.timing.value("sleep_overshoot_p50_ns", 0.0) / 1e3,
        r.timing.value("spin_overhead_mean_ns", 0.0) / 1e3);
  out += "\n" + experiment::experiment_table(r.experiment, st);
  out += "\n/proc/schedstat, mean per run:\n";
  out += fmt::format("{:<24} {:>12} {:>12} {:>8} {:>14} {:>14} {:>10}\n", "config", "ttwu_count",
                     "ttwu_local", "local %", "newidle lb", "newidle pulled", "alb_pushed");
  for (const auto &c : r.experiment.configs) {
    const ConfigSchedstat cs = config_schedstat(r, c.name);
    if (!cs.runs) continue;
    const double k = 1.0 / static_cast<double>(cs.runs);
    out += fmt::format("{:<24} {:>12.0f} {:>12.0f} {:>8.1f} {:>14.0f} {:>14.0f} {:>10.1f}\n",
                       c.name, cs.ttwu_count * k, cs.ttwu_local * k, cs.local_pct(),
                       cs.newidle_lb_count * k, cs.newidle_lb_gained * k, cs.alb_pushed * k);
  }
  for (const std::string &w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace schedlab::vm
