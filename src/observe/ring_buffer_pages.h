// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// One CPU's events as pages of the Linux ring buffer (what trace_pipe_raw hands to trace-cmd,
// and what a trace.dat file holds per CPU), for a 64-bit little-endian kernel:
//   page:  u64 timestamp (of the page's first event), u64 commit (bytes of event data that
//          follow), then the events, each 4-byte aligned;
//   event: a 32-bit header, type_len in its low 5 bits and time_delta (ns since the previous
//          event on the page, or since the page's timestamp) in its high 27 bits. type_len
//          1..28 says the payload is type_len * 4 bytes; 0 says the length comes next in a
//          32-bit word (payloads over 112 bytes); 30 is a time extend, which carries a delta
//          too large for 27 bits (its low 27 bits in the header, the rest in the next word)
//          and applies to the event after it.
// These are the layouts that events/header_page and events/header_event describe.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace schedlab::observe {

class RingBufferPages {
 public:
  static constexpr std::size_t kPageHeader = 16;  // timestamp + commit
  static constexpr std::uint32_t kTypeTimeExtend = 30;
  static constexpr std::uint32_t kMaxSmallData = 28 * 4;  // payloads with the length in type_len
  static constexpr std::uint64_t kMaxDelta = (1ULL << 27) - 1;

  // `full` receives each page once it is full, page_size bytes.
  RingBufferPages(std::size_t page_size, std::function<void(std::span<const std::uint8_t>)> full);
  // The largest payload a page can take.
  std::size_t max_payload() const;
  // Appends an event at time `ts` (ns; not before the previous one) with `payload`. False,
  // with nothing written, when the payload is larger than max_payload().
  bool add(std::uint64_t ts, std::span<const std::uint8_t> payload);
  // Hands the page being filled to `full`, if it holds an event; the rest of it is zeros.
  void flush();

 private:
  void start_page(std::uint64_t ts);
  void put32(std::uint32_t v);
  std::size_t page_size_;
  std::function<void(std::span<const std::uint8_t>)> full_;
  std::vector<std::uint8_t> page_;
  std::size_t used_ = 0;  // bytes of events on the page
  std::uint64_t last_ts_ = 0;
};

}  // namespace schedlab::observe
