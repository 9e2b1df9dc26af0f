// SPDX-License-Identifier: GPL-2.0-only
// The twin's host side without a VM: the frames the guest sends, /proc/schedstat as 6.12 prints
// it, the initramfs archive, the CPU numbering QEMU gives the guest, and what is refused.
#include <gtest/gtest.h>

#include "real/measure_report.h"
#include "scenario/scenario.h"
#include "vm/initramfs.h"
#include "vm/protocol.h"
#include "vm/twin.h"

namespace schedlab::vm {
namespace {

// /proc/schedstat of a 6.12.117 guest on 1 socket x 2 cores x 2 threads (CPUs 0-1, 2-3 siblings).
constexpr const char *kSchedstat = R"(version 16
timestamp 4294669684
cpu0 0 0 1318 569 271 119 614350901 145209506 741
domain0 3 2 2 0 0 0 0 0 2 155 151 4 4 1 0 0 151 8 7 1 1 0 0 0 7 1 0 1 0 0 0 0 0 0 12 2 0
domain1 f 1 1 0 0 0 0 0 0 87 80 7 7 1 0 0 80 8 8 0 0 0 0 0 8 1 0 1 0 0 0 0 0 0 137 0 0
cpu1 0 0 443 207 154 118 750495444 470830806 235
domain0 3 9 9 0 0 0 0 0 9 162 130 31 32 2 0 0 130 5 3 0 2 2 0 0 3 1 0 1 0 0 0 0 0 0 5 1 0
domain1 f 3 3 0 0 0 0 0 0 78 78 0 0 0 0 0 20 3 3 0 0 0 0 0 3 0 0 0 0 0 0 0 0 0 29 0 0
)";

TEST(TwinFrames, RoundTripWithConsoleNoiseBetweenFrames) {
  const std::string stream = "[    0.1] booting\n" + make_frame("hello", R"({"nr_cpus":4})") +
                             "noise\r\n" + make_frame("run", std::string(5000, 'x'));
  FrameReader r;
  // Byte by byte: frames that arrive in pieces come out whole.
  for (char c : stream) r.feed(std::string_view(&c, 1));
  auto a = r.next();
  auto b = r.next();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->kind, "hello");
  EXPECT_EQ(a->payload, R"({"nr_cpus":4})");
  EXPECT_EQ(b->kind, "run");
  EXPECT_EQ(b->payload, std::string(5000, 'x'));
  EXPECT_FALSE(r.next());
  EXPECT_GE(r.noise_bytes(), std::string("[    0.1] booting\nnoise\r\n").size());
}

TEST(TwinFrames, ACorruptPayloadIsAnErrorNotNoise) {
  std::string f = make_frame("run", R"({"seed":1})");
  f[f.size() - 3] = '2';  // one byte of the payload changed on the wire
  FrameReader r;
  EXPECT_THROW(r.feed(f), ProtocolError);
  FrameReader r2;
  EXPECT_THROW(r2.feed("@SCHEDLAB run 12x 0000000000000000\n"), ProtocolError);
  FrameReader r3;
  EXPECT_THROW(r3.feed("@SCHEDLAB Run 1 0000000000000000\n"), ProtocolError);
}

TEST(TwinSchedstat, ParsesVersion16CpuAndDomainLines) {
  const Schedstat s = parse_schedstat(kSchedstat);
  EXPECT_EQ(s.version, 16);
  ASSERT_EQ(s.cpus.size(), 2u);
  EXPECT_EQ(s.cpus[1].cpu, 1);
  EXPECT_EQ(s.cpus[0].sched_count, 1318u);
  EXPECT_EQ(s.cpus[0].ttwu_count, 271u);
  EXPECT_EQ(s.cpus[0].ttwu_local, 119u);
  EXPECT_EQ(s.cpus[0].run_delay, 145209506u);
  ASSERT_EQ(s.cpus[0].domains.size(), 2u);
  const SchedstatDomain &d = s.cpus[0].domains[0];
  EXPECT_EQ(d.span, "3");
  // The idle types in enum cpu_idle_type order: not idle, idle, newly idle.
  EXPECT_EQ(d.lb[kIdleTypeNotIdle][LB_COUNT], 2u);
  EXPECT_EQ(d.lb[kIdleTypeIdle][LB_COUNT], 155u);
  EXPECT_EQ(d.lb[kIdleTypeIdle][LB_GAINED], 1u);
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_COUNT], 8u);
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_FAILED], 1u);
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_GAINED], 0u);
  EXPECT_EQ(d.other[TTWU_WAKE_REMOTE], 12u);
  EXPECT_EQ(d.other[TTWU_MOVE_AFFINE], 2u);
  const SchedstatSums x = schedstat_sums(s);
  EXPECT_EQ(x.ttwu_local, 237u);
  EXPECT_EQ(x.newidle_lb_count, 8u + 8 + 5 + 3);
  // By kernel name, summed over CPUs, domains and idle types: what the twin reports for a run
  // statistic of that name.
  const std::map<std::string, u64> m = schedstat_by_name(s);
  EXPECT_EQ(m.at("ttwu_local"), 237u);
  EXPECT_EQ(m.at("yld_count"), 0u);
  EXPECT_EQ(m.at("ttwu_move_affine"), 2u + 0 + 1 + 0);
  EXPECT_EQ(m.at("ttwu_wake_remote"), 12u + 137 + 5 + 29);
  EXPECT_EQ(m.at("lb_count"), (2u + 155 + 8) + (1 + 87 + 8) + (9 + 162 + 5) + (3 + 78 + 3));
}

TEST(TwinSchedstat, DeltaIsAfterMinusBeforeAndRefusesOtherDomains) {
  std::string after = kSchedstat;
  after.replace(after.find("1318 569 271 119"), 16, "1400 569 300 150");
  const Schedstat d = schedstat_delta(parse_schedstat(kSchedstat), parse_schedstat(after));
  EXPECT_EQ(d.cpus[0].sched_count, 82u);
  EXPECT_EQ(d.cpus[0].ttwu_count, 29u);
  EXPECT_EQ(d.cpus[0].ttwu_local, 31u);
  EXPECT_EQ(d.cpus[1].ttwu_count, 0u);
  EXPECT_EQ(d.cpus[0].domains[1].lb[kIdleTypeIdle][LB_COUNT], 0u);
  std::string other = kSchedstat;
  other.replace(other.find("domain1 f"), 9, "domain1 e");
  EXPECT_THROW(schedstat_delta(parse_schedstat(kSchedstat), parse_schedstat(other)),
               SchedstatError);
}

TEST(TwinSchedstat, Version17NamesDomainsAndSplitsTheImbalance) {
  std::string line = "domain0 SMT 3";
  for (int t = 0; t < 3; t++) line += " 5 1 1 10 20 30 40 2 0 0 0";  // 11 fields per type
  for (int k = 0; k < 12; k++) line += " 1";
  const Schedstat s = parse_schedstat("version 17\ntimestamp 1\ncpu0 0 0 1 1 1 1 1 1 1\n" + line);
  const SchedstatDomain &d = s.cpus[0].domains[0];
  EXPECT_EQ(d.name, "SMT");
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_COUNT], 5u);
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_IMBALANCE], 100u);  // load + util + task + misfit
  EXPECT_EQ(d.lb[kIdleTypeNewlyIdle][LB_GAINED], 2u);
}

TEST(TwinSchedstat, BadInputNamesTheLine) {
  try {
    parse_schedstat("version 16\ntimestamp 1\ncpu0 0 0 1 2 x 4 5 6 7\n");
    FAIL();
  } catch (const SchedstatError &e) {
    EXPECT_STREQ(e.what(), "/proc/schedstat line 3: bad ttwu_count 'x'");
  }
  EXPECT_THROW(parse_schedstat("version 14\n"), SchedstatError);
  EXPECT_THROW(parse_schedstat("version 16\ncpu0 1 2\n"), SchedstatError);
  EXPECT_THROW(parse_schedstat("cpu0 0 0 1 1 1 1 1 1 1\n"), SchedstatError);
  EXPECT_THROW(parse_schedstat(""), SchedstatError);
}

// measure on a host: the run's /proc/schedstat delta becomes the run statistics of the same
// kernel name (the experiment's keys), the per-CPU detail, and a summary line; without it, why.
TEST(MeasureSchedstat, HostRunReportsTheKernelCountsUnderTheStatisticNames) {
  std::string after = kSchedstat;
  after.replace(after.find("1318 569 271 119"), 16, "1400 569 300 150");
  real::MeasureResult r;
  r.scenario = "s";
  r.config = "c";
  r.end_ns = 1'000'000'000;
  r.schedstat = schedstat_delta(parse_schedstat(kSchedstat), parse_schedstat(after));
  real::HostInfo host;
  host.nr_cpus = 4;
  const nlohmann::ordered_json j = real::measure_to_json({r}, host);
  EXPECT_EQ(j["stats"]["ttwu_count"], 29u);
  EXPECT_EQ(j["stats"]["ttwu_local"], 31u);
  EXPECT_EQ(j["stats"]["sched_count"], 82u);
  EXPECT_FALSE(j["stats"].contains("migrations"));  // a model statistic, not a schedstat counter
  EXPECT_EQ(j["schedstat"]["cpus"][0]["ttwu_count"], 29u);
  EXPECT_EQ(j["schedstat"]["totals"]["ttwu_count"], 29u);
  EXPECT_NE(
      real::measure_summary(r, host).find("ttwu_count 29 (106.9% ttwu_local), sched_count 82"),
      std::string::npos);
  r.schedstat.reset();
  r.schedstat_unavailable = "/proc/schedstat: No such file or directory";
  const nlohmann::ordered_json k = real::measure_to_json({r}, host);
  EXPECT_TRUE(k["stats"].is_null());
  EXPECT_EQ(k["schedstat_unavailable"], "/proc/schedstat: No such file or directory");
  EXPECT_NE(real::measure_summary(r, host).find("/proc/schedstat: not counted"), std::string::npos);
}

TEST(TwinInitramfs, NewcArchiveWithParentsDeviceAndTrailer) {
  Initramfs ir;
  ir.add_char_device("/dev/console", 5, 1, 0600);
  ir.add_file("/job/job.json", "{}");
  const std::string a = ir.archive();
  EXPECT_EQ(a.size() % 4, 0u);
  EXPECT_EQ(a.substr(0, 6), "070701");
  // The parent of /dev/console comes first, as a directory (mode 040755).
  EXPECT_EQ(a.substr(6 + 8, 8), "000041ED");
  EXPECT_EQ(a.substr(110, 4), std::string("dev\0", 4));
  // /dev/console: a character device 5:1 (rdevmajor, rdevminor).
  const std::size_t con = a.find("dev/console");
  ASSERT_NE(con, std::string::npos);
  const std::string head = a.substr(con - 110, 110);
  EXPECT_EQ(head.substr(14, 8), "00002180");  // S_IFCHR | 0600
  EXPECT_EQ(head.substr(78, 8), "00000005");
  EXPECT_EQ(head.substr(86, 8), "00000001");
  EXPECT_NE(a.find("job/job.json"), std::string::npos);
  EXPECT_NE(a.find("TRAILER!!!"), std::string::npos);
}

TEST(TwinCpuMap, X86NumberingMapsSiblingsOntoQemusAdjacentOnes) {
  TopologySpec t;
  t.cores_per_llc = 4;
  t.threads_per_core = 2;
  t.numbering = CpuNumbering::X86;  // scenario CPU n and n + 4 are siblings
  EXPECT_EQ(guest_cpu_map(t), (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  t.numbering = CpuNumbering::Adjacent;
  EXPECT_EQ(guest_cpu_map(t), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TwinTrace, GuestCpuIdsBecomeTheScenarios) {
  // x86 numbering on 2 cores x 2 threads: scenario CPUs 0,1,2,3 are guest 0,2,1,3.
  TopologySpec t;
  t.cores_per_llc = 2;
  t.threads_per_core = 2;
  const std::vector<int> map = guest_cpu_map(t);
  std::vector<int> unmap(map.size());
  for (std::size_t c = 0; c < map.size(); c++)
    unmap[static_cast<std::size_t>(map[c])] = static_cast<int>(c);
  const std::string in =
      "# tracer: nop\n"
      "        worker-0-61      [002] d..2.   12.000100: sched_switch: prev_comm=worker-0 "
      "prev_pid=61 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120\n"
      "        worker-1-62      [001] d..3.   12.000200: sched_wakeup: comm=worker-0 pid=61 "
      "prio=120 target_cpu=002\n"
      "          <idle>-0       [003] d..2.   12.000300: sched_migrate_task: comm=worker-0 "
      "pid=61 prio=120 orig_cpu=2 dest_cpu=1";
  const std::string out = remap_trace_cpus(in, unmap);
  EXPECT_NE(out.find("worker-0-61      [001] d..2.   12.000100: sched_switch"), std::string::npos);
  EXPECT_NE(out.find("worker-1-62      [002] d..3."), std::string::npos);
  EXPECT_NE(out.find("target_cpu=1\n"), std::string::npos);
  EXPECT_NE(out.find("orig_cpu=1 dest_cpu=2"), std::string::npos);
  EXPECT_NE(out.find("[003]"), std::string::npos);
  EXPECT_EQ(remap_trace_cpus(in, {0, 1, 2, 3}), in);
}

scenario::Scenario scenario_of(const std::string &extra) {
  return scenario::parse_scenario(R"([scenario]
name = "t"
[machine]
cores_per_llc = 2
threads_per_core = 2
numbering = "adjacent"
[kernel]
version = "6.12"
[[group]]
name = "w"
count = 2
loops = 1
phases = [ { runtime = "1ms" } ]
)" + extra,
                                  "t.toml");
}

TEST(TwinSupported, RefusesWhatTheGuestCannotDoNamingIt) {
  TwinOptions o;
  EXPECT_NO_THROW(check_twin_supported(scenario_of(""), o));
  try {
    check_twin_supported(
        scenario_of("[[config]]\nname = \"P\"\ntunables = { core_push_forceidle_max = 4 }\n"), o);
    FAIL();
  } catch (const TwinUnsupported &e) {
    EXPECT_NE(std::string(e.what()).find("core_push_forceidle_max"), std::string::npos);
  }
  // migration_cost_ns has a file in /sys/kernel/debug/sched.
  EXPECT_NO_THROW(check_twin_supported(
      scenario_of("[[config]]\nname = \"M\"\ntunables = { migration_cost_ns = 100000 }\n"), o));
  o.configs = {"nope"};
  EXPECT_THROW(check_twin_supported(scenario_of(""), o), std::invalid_argument);
}

}  // namespace
}  // namespace schedlab::vm
