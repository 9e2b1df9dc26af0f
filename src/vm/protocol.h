// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What the twin's guest and host say to each other: the job the host puts in the initramfs,
// the framed results the guest writes on its second serial port, and /proc/schedstat as the
// guest's kernel prints it (version 15-17).
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::vm {

using u64 = std::uint64_t;

// A malformed frame, job or schedstat text; the message is one line.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

u64 fnv1a64(std::string_view bytes);

// One frame: "@SCHEDLAB <kind> <length> <fnv1a64 as 16 hex digits>\n<payload>\n". The kind is
// a word of [a-z_]; the payload is any bytes (JSON in practice).
std::string make_frame(std::string_view kind, std::string_view payload);

struct Frame {
  std::string kind, payload;
};

// Reads frames out of a byte stream that may hold other bytes between them (a console's
// noise). A header whose length or checksum does not hold is an error, not noise.
class FrameReader {
 public:
  // Appends bytes; throws ProtocolError at the first corrupt frame.
  void feed(std::string_view bytes);
  // The next complete frame, if any.
  std::optional<Frame> next();
  // Bytes that were not part of a frame so far.
  u64 noise_bytes() const { return noise_; }
  static constexpr std::size_t kMaxPayload = 256u << 20;

 private:
  void parse();
  std::string buf_;
  std::vector<Frame> ready_;
  std::size_t ready_pos_ = 0;
  u64 noise_ = 0;
};

// /proc/schedstat, as kernel/sched/stats.c prints it.
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

// Throws ProtocolError naming the line on anything it does not recognise.
Schedstat parse_schedstat(std::string_view text);
// after - before, CPU by CPU and domain by domain (counters that went back count as 0).
// Throws ProtocolError when the two do not describe the same CPUs and domains.
Schedstat schedstat_delta(const Schedstat &before, const Schedstat &after);

}  // namespace schedlab::vm
