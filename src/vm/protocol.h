// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What the twin's guest and host say to each other: the job the host puts in the initramfs,
// and the framed results the guest writes on its second serial port.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "real/schedstat.h"

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

// /proc/schedstat: parsed and subtracted in real/schedstat.h, shared with the host's measure.
using real::kIdleTypeIdle;
using real::kIdleTypeNewlyIdle;
using real::kIdleTypeNotIdle;
using real::kNrIdleTypes;
using real::LbField;
using real::OtherField;
using enum real::LbField;
using enum real::OtherField;
using real::parse_schedstat;
using real::Schedstat;
using real::schedstat_by_name;
using real::schedstat_delta;
using real::SchedstatCpu;
using real::SchedstatDomain;
using real::SchedstatError;

}  // namespace schedlab::vm
