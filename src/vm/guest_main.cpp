// SPDX-License-Identifier: GPL-2.0-only
// schedlab-guest: the /init of the twin's virtual machine (schedlab measure --vm). It runs as
// PID 1 in an initramfs the host built: mounts proc, sysfs, debugfs and tracefs, reports the
// guest's CPUs and scheduler, measures the guest's own timing distortion, runs every
// (configuration, seed) of /job/job.json with the run loop of `schedlab measure`, setting the
// configuration's sched features and tunables in /sys/kernel/debug/sched first, and writes
// each result as a frame (vm/protocol.h) on the second serial port. Then it powers off.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel/features.h"
#include "real/calibrate.h"
#include "real/measure.h"
#include "real/measure_report.h"
#include "vm/protocol.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#endif

namespace {

using nlohmann::ordered_json;
using schedlab::vm::make_frame;

int g_out = -1;  // the result port

void send(std::string_view kind, const ordered_json &payload) {
  const std::string f = make_frame(kind, payload.dump());
  std::size_t done = 0;
  while (done < f.size()) {
    const ssize_t n = write(g_out, f.data() + done, f.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to report; the host sees the guest stop
    done += static_cast<std::size_t>(n);
  }
  tcdrain(g_out);
}

[[noreturn]] void power_off() {
  sync();
  reboot(RB_POWER_OFF);
  for (;;) pause();  // PID 1 must not exit
}

[[noreturn]] void finish(std::string_view kind, const std::string &message) {
  send(kind, {{"message", message}});
  power_off();
}

std::string read_file(const std::string &path, bool *ok = nullptr) {
  std::ifstream in(path);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  if (ok) *ok = static_cast<bool>(in);
  return ss.str();
}

std::string first_line(const std::string &path) {
  std::string s = read_file(path);
  return s.substr(0, s.find('\n'));
}

void mount_fs(const char *src, const char *dir, const char *type) {
  mkdir(dir, 0755);
  mount(src, dir, type, 0, nullptr);
}

// The write as the shell's `echo VALUE > FILE` does it; errno text on failure.
std::string write_file(const std::string &path, const std::string &value) {
  const int fd = open(path.c_str(), O_WRONLY);
  if (fd < 0) return std::strerror(errno);
  const ssize_t n = write(fd, value.data(), value.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size())) return std::strerror(err);
  return {};
}

// HZ from the jiffies of /proc/schedstat over half a second.
double measure_hz() {
  auto jiffies = [] {
    const std::string s = read_file("/proc/schedstat");
    const auto at = s.find("timestamp ");
    return at == std::string::npos ? 0ull : std::stoull(s.substr(at + 10));
  };
  const auto j0 = jiffies();
  const auto t0 = schedlab::real::monotonic_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto j1 = jiffies();
  const auto t1 = schedlab::real::monotonic_ns();
  return t1 > t0 ? static_cast<double>(j1 - j0) * 1e9 / static_cast<double>(t1 - t0) : 0;
}

ordered_json describe_guest() {
  ordered_json h;
  utsname u{};
  if (uname(&u) == 0) h["kernel_release"] = u.release;
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  h["nr_cpus"] = n;
  ordered_json cpus = ordered_json::array();
  for (long c = 0; c < n; c++) {
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(c);
    ordered_json cj;
    cj["cpu"] = c;
    cj["core_id"] = first_line(base + "/topology/core_id");
    cj["package_id"] = first_line(base + "/topology/physical_package_id");
    cj["thread_siblings"] = first_line(base + "/topology/thread_siblings_list");
    cj["core_siblings"] = first_line(base + "/topology/core_siblings_list");
    std::string llc;
    for (int i = 0; i < 8; i++) {
      const std::string idx = base + "/cache/index" + std::to_string(i);
      const std::string level = first_line(idx + "/level");
      if (level.empty()) break;
      llc = first_line(idx + "/shared_cpu_list");
    }
    cj["llc_siblings"] = llc;
    std::vector<std::string> names;
    for (int d = 0; d < 8; d++) {
      const std::string nm = first_line("/sys/kernel/debug/sched/domains/cpu" + std::to_string(c) +
                                        "/domain" + std::to_string(d) + "/name");
      if (nm.empty()) break;
      names.push_back(nm);
    }
    cj["domains"] = names;
    cpus.push_back(std::move(cj));
  }
  h["cpus"] = std::move(cpus);
  // The sched features file: "NAME NO_NAME ..." on one line.
  std::istringstream fs(first_line("/sys/kernel/debug/sched/features"));
  ordered_json feats = ordered_json::object();
  for (std::string w; fs >> w;)
    if (w.rfind("NO_", 0) == 0)
      feats[w.substr(3)] = false;
    else
      feats[w] = true;
  h["sched_features"] = std::move(feats);
  ordered_json tun = ordered_json::object();
  for (const char *t : {"base_slice_ns", "migration_cost_ns", "nr_migrate", "tunable_scaling"}) {
    const std::string v = first_line(std::string("/sys/kernel/debug/sched/") + t);
    if (!v.empty()) tun[t] = v;
  }
  h["sched_tunables"] = std::move(tun);
  h["hz_measured"] = measure_hz();
  // Core scheduling: a cookie made for a scratch thread.
  std::string core;
  std::thread([&] {
    unsigned long cookie = 0;
    if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0UL, 0UL, 0UL) != 0)
      core = std::string("PR_SCHED_CORE_CREATE: ") + std::strerror(errno);
    else if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0UL, 0UL, &cookie) != 0)
      core = std::string("PR_SCHED_CORE_GET: ") + std::strerror(errno);
    else if (cookie == 0)
      core = "PR_SCHED_CORE_GET gave cookie 0";
  }).join();
  h["core_sched"] = core.empty() ? ordered_json("ok") : ordered_json(core);
  return h;
}

// How the guest's clocks and CPUs behave: late sleeps and the wall time a spin of thread CPU
// time takes, which the simulator can be given as [machine.costs].
ordered_json measure_timing() {
  using schedlab::real::monotonic_ns;
  using schedlab::real::thread_cpu_ns;
  ordered_json t;
  const double ns_per_loop = schedlab::real::calibrate_ns_per_loop();
  t["ns_per_loop"] = ns_per_loop;
  constexpr int kSleeps = 100;
  constexpr long kSleepNs = 1'000'000;
  std::vector<double> late;
  for (int i = 0; i < kSleeps; i++) {
    const auto t0 = monotonic_ns();
    timespec ts{0, kSleepNs};
    nanosleep(&ts, nullptr);
    late.push_back(static_cast<double>(monotonic_ns() - t0 - kSleepNs));
  }
  std::sort(late.begin(), late.end());
  double sum = 0;
  for (double v : late) sum += v;
  t["sleep_ns"] = kSleepNs;
  t["sleep_overshoot_mean_ns"] = sum / kSleeps;
  t["sleep_overshoot_p50_ns"] = late[kSleeps / 2];
  t["sleep_overshoot_p99_ns"] = late[kSleeps * 99 / 100];
  constexpr int kSpins = 20;
  constexpr std::uint64_t kSpinNs = 2'000'000;
  double extra = 0;
  for (int i = 0; i < kSpins; i++) {
    const auto w0 = monotonic_ns();
    const auto until = thread_cpu_ns() + kSpinNs;
    while (thread_cpu_ns() < until) schedlab::real::burn_loops(64);
    extra += static_cast<double>(monotonic_ns() - w0) - static_cast<double>(kSpinNs);
  }
  t["spin_ns"] = kSpinNs;
  t["spin_overhead_mean_ns"] = extra / kSpins;
  return t;
}

// Each sched domain's max_newidle_lb_cost (ns; what the avg_idle gate of newidle balancing
// compares with), by CPU then domain level, from /sys/kernel/debug/sched/domains.
ordered_json newidle_costs() {
  ordered_json out = ordered_json::array();
  for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); c++) {
    ordered_json doms = ordered_json::array();
    for (int d = 0; d < 8; d++) {
      const std::string base = "/sys/kernel/debug/sched/domains/cpu" + std::to_string(c) +
                               "/domain" + std::to_string(d) + "/";
      const std::string v = first_line(base + "max_newidle_lb_cost");
      if (v.empty()) break;
      doms.push_back(
          {{"name", first_line(base + "name")}, {"max_newidle_lb_cost_ns", std::stoull(v)}});
    }
    out.push_back(std::move(doms));
  }
  return out;
}

// The scheduler's tracepoints into the ftrace ring buffer, as `trace-cmd record -e sched`
// would set them (nop tracer, no function tracing).
constexpr const char *kTracing = "/sys/kernel/tracing/";
constexpr const char *kTraceEvents[] = {
    "sched_switch",       "sched_waking",       "sched_wakeup",      "sched_wakeup_new",
    "sched_migrate_task", "sched_process_fork", "sched_process_exit"};

// 16 MiB per CPU, at most an eighth of the guest's memory over all CPUs.
std::string buffer_kb() {
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const long mem_kb = sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024);
  return std::to_string(std::clamp(mem_kb / 8 / cpus, 1024L, 16384L));
}

std::string setup_tracing() {
  const std::string t = kTracing;
  for (const auto &[file, value] :
       std::vector<std::pair<std::string, std::string>>{{"tracing_on", "0"},
                                                        {"current_tracer", "nop"},
                                                        {"trace_clock", "local"},
                                                        {"buffer_size_kb", buffer_kb()}})
    if (std::string err = write_file(t + file, value); !err.empty())
      return "writing " + value + " to " + t + file + ": " + err;
  for (const char *e : kTraceEvents)
    if (std::string err = write_file(t + "events/sched/" + e + "/enable", "1"); !err.empty())
      return std::string("enabling sched:") + e + ": " + err;
  return {};
}

// Events the ring buffer dropped, over every CPU ("overrun" of per_cpu/cpuN/stats).
std::uint64_t trace_overruns() {
  std::uint64_t sum = 0;
  for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); c++) {
    std::istringstream in(
        read_file(std::string(kTracing) + "per_cpu/cpu" + std::to_string(c) + "/stats"));
    for (std::string line; std::getline(in, line);)
      if (line.rfind("overrun: ", 0) == 0) sum += std::stoull(line.substr(9));
  }
  return sum;
}
}  // namespace

int main() {
  if (fcntl(1, F_GETFD) < 0) {
    mount_fs("devtmpfs", "/dev", "devtmpfs");
    const int fd = open("/dev/console", O_RDWR);
    if (fd >= 0) {
      dup2(fd, 0);
      dup2(fd, 1);
      dup2(fd, 2);
    }
  }
  mount_fs("devtmpfs", "/dev", "devtmpfs");
  mount_fs("proc", "/proc", "proc");
  mount_fs("sysfs", "/sys", "sysfs");
  mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
  mount_fs("tracefs", "/sys/kernel/tracing", "tracefs");
  mount_fs("tmpfs", "/tmp", "tmpfs");
  g_out = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
  if (g_out < 0) {
    std::fprintf(stderr, "schedlab-guest: cannot open /dev/ttyS1: %s\n", std::strerror(errno));
    power_off();
  }
  termios tio{};
  if (tcgetattr(g_out, &tio) == 0) {
    cfmakeraw(&tio);
    cfsetospeed(&tio, B115200);
    tcsetattr(g_out, TCSANOW, &tio);
  }

  ordered_json job;
  try {
    job = ordered_json::parse(read_file("/job/job.json"));
  } catch (const std::exception &e) {
    finish("error", std::string("the job file /job/job.json is not valid JSON: ") + e.what());
  }
  const ordered_json hello = describe_guest();
  send("hello", hello);
  const ordered_json &kernel_features = hello.at("sched_features");
  if (job.value("probe_only", false)) {
    send("done", ordered_json::object());
    power_off();
  }

  try {
    schedlab::scenario::Scenario s =
        schedlab::scenario::load_scenario(job.at("scenario").get<std::string>());
    // The scenario's CPU ids as the guest numbers them.
    const std::vector<int> cpu_map = job.at("cpu_map").get<std::vector<int>>();
    for (auto &g : s.groups)
      for (int &c : g.cpus) {
        if (c < 0 || static_cast<std::size_t>(c) >= cpu_map.size())
          finish("error", "task group " + g.name + ": cpu " + std::to_string(c) + " is not mapped");
        c = cpu_map[static_cast<std::size_t>(c)];
      }
    send("timing", measure_timing());

    schedlab::real::HostInfo host;
    host.nr_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    host.core_sched = true;
    host.ns_per_loop = schedlab::real::calibrate_ns_per_loop();
    utsname u{};
    if (uname(&u) == 0) host.kernel_release = u.release;
    const std::atomic<bool> no_interrupt{false};
    // Each configuration as the writes that make it: every model feature the kernel has is
    // set; one it lacks must be at the model's default (the kernel as released), or the
    // configuration cannot run here. Checked for all before anything runs.
    struct Config {
      std::string name;
      const schedlab::scenario::ConfigSpec *spec = nullptr;
      std::vector<std::pair<std::string, std::string>> writes;  // file, value
    };
    std::vector<Config> configs;
    for (const ordered_json &cj : job.at("configs")) {
      Config &c = configs.emplace_back();
      c.name = cj.at("name").get<std::string>();
      for (const auto &sc : s.configs)
        if (sc.name == c.name) c.spec = &sc;
      for (const auto &[feat, on] : cj.at("features").items()) {
        const std::string v = (on.get<bool>() ? "" : "NO_") + feat;
        if (!kernel_features.contains(feat)) {
          const auto id = schedlab::kernel::find_feature(feat);
          if (id && schedlab::kernel::kFeatures[*id].default_value != on.get<bool>())
            finish("unsupported", "configuration \"" + c.name + "\" sets " + v +
                                      ", a sched feature this kernel does not have");
          continue;
        }
        c.writes.emplace_back("/sys/kernel/debug/sched/features", v);
      }
      for (const auto &[tun, value] : cj.at("tunables").items())
        c.writes.emplace_back("/sys/kernel/debug/sched/" + tun,
                              std::to_string(value.get<long long>()));
    }
    const bool trace = job.value("trace", false);
    if (trace)
      if (const std::string err = setup_tracing(); !err.empty())
        finish("unsupported", "tracing: " + err);
    // Seed by seed, every configuration: a run cut short keeps whole seeds, paired.
    for (const ordered_json &seed : job.at("seeds")) {
      for (const Config &c : configs) {
        for (const auto &[file, value] : c.writes)
          if (const std::string err = write_file(file, value); !err.empty())
            finish("error", "configuration \"" + c.name + "\": writing " + value + " to " + file +
                                ": " + err);
        s.seed = seed.get<std::uint64_t>();
        if (trace) {
          write_file(std::string(kTracing) + "trace", "");  // clears the buffer
          write_file(std::string(kTracing) + "tracing_on", "1");
        }
        const std::string before = read_file("/proc/schedstat");
        const schedlab::real::MeasureResult r =
            schedlab::real::run_measure(s, c.spec, host, no_interrupt);
        const std::string after = read_file("/proc/schedstat");
        if (trace) {
          write_file(std::string(kTracing) + "tracing_on", "0");
          send("trace", {{"config", c.name},
                         {"seed", s.seed},
                         {"overruns", trace_overruns()},
                         {"text", read_file(std::string(kTracing) + "trace")}});
        }
        ordered_json out;
        out["config"] = c.name;
        out["seed"] = s.seed;
        out["result"] = schedlab::real::measure_to_json({r}, host);
        std::uint64_t expected = 0;
        ordered_json metrics = ordered_json::array();
        for (double v : schedlab::real::measure_bench_metrics(r, &expected))
          metrics.push_back(std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr));
        out["bench_metrics"] = std::move(metrics);
        out["bench_expected"] = expected;
        out["schedstat_before"] = before;
        out["schedstat_after"] = after;
        out["newidle_costs"] = newidle_costs();
        send("run", out);
      }
    }
  } catch (const schedlab::real::Unsupported &e) {
    finish("unsupported", e.what());
  } catch (const std::exception &e) {
    finish("error", e.what());
  }
  send("done", ordered_json::object());
  power_off();
}
