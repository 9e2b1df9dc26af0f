// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// /proc/schedstat as kernel/sched/stats.c prints it (versions 15 to 17): parsed, subtracted
// (the counters a run added) and named as the kernel names them. measure reads the host's,
// measure --vm the twin guest's.
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::real {

using u64 = std::uint64_t;

// A text that is not /proc/schedstat, or two that do not describe the same CPUs; one line.
class SchedstatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kNrIdleTypes =
    3;  // enum cpu_idle_type: __CPU_NOT_IDLE, CPU_IDLE, CPU_NEWLY_IDLE
inline constexpr int kIdleTypeNotIdle = 0, kIdleTypeIdle = 1, kIdleTypeNewlyIdle = 2;

struct SchedstatDomain {
  int level = 0;     // domainN
  std::string span;  // the CPU mask as printed (hex, comma groups)
  // Per idle type: lb_count, lb_balanced, lb_failed, lb_imbalance, lb_gained, lb_hot_gained,
  // lb_nobusyq, lb_nobusyg (version 15-16; version 17 prints four imbalance fields, summed here).
  std::array<std::array<u64, 8>, kNrIdleTypes> lb{};
  // alb_count, alb_failed, alb_pushed, sbe_count, sbe_balanced, sbe_pushed, sbf_count,
  // sbf_balanced, sbf_pushed, ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance.
  std::array<u64, 12> other{};
  std::string name;  // version 17 prints the domain's name; empty before
};
enum LbField {
  LB_COUNT,
  LB_BALANCED,
  LB_FAILED,
  LB_IMBALANCE,
  LB_GAINED,
  LB_HOT_GAINED,
  LB_NOBUSYQ,
  LB_NOBUSYG
};
enum OtherField {
  ALB_COUNT,
  ALB_FAILED,
  ALB_PUSHED,
  SBE_COUNT,
  SBE_BALANCED,
  SBE_PUSHED,
  SBF_COUNT,
  SBF_BALANCED,
  SBF_PUSHED,
  TTWU_WAKE_REMOTE,
  TTWU_MOVE_AFFINE,
  TTWU_MOVE_BALANCE
};

struct SchedstatCpu {
  int cpu = 0;
  // yld_count, (legacy 0), sched_count, sched_goidle, ttwu_count, ttwu_local, rq_cpu_time,
  // run_delay, pcount.
  u64 yld_count = 0, sched_count = 0, sched_goidle = 0, ttwu_count = 0, ttwu_local = 0;
  u64 rq_cpu_time = 0, run_delay = 0, pcount = 0;
  std::vector<SchedstatDomain> domains;
};

struct Schedstat {
  int version = 0;
  u64 timestamp = 0;  // jiffies
  std::vector<SchedstatCpu> cpus;
};

// Throws SchedstatError naming the line on anything it does not recognise.
Schedstat parse_schedstat(std::string_view text);
// after - before, CPU by CPU and domain by domain (counters that went back count as 0).
// Throws SchedstatError when the two do not describe the same CPUs and domains.
Schedstat schedstat_delta(const Schedstat &before, const Schedstat &after);

// For the readers of the kernel's text files: the words of a line (split at spaces, tabs and
// carriage returns) and an unsigned number in `base` with nothing around it.
std::vector<std::string_view> words(std::string_view line);
std::optional<u64> to_u64(std::string_view s, int base = 10);

// Every counter under its kernel name, summed over CPUs (and domains and idle types):
// ttwu_count, sched_count, lb_count, alb_pushed, ttwu_move_affine, ...
std::map<std::string, u64> schedstat_by_name(const Schedstat &s);
// The per-CPU detail as JSON: one object per CPU with its counters (times in ns) and its
// domains, each with the balance counters per idle type (busy, idle, newidle).
nlohmann::ordered_json schedstat_cpus_json(const Schedstat &s);

}  // namespace schedlab::real
