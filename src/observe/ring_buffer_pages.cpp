// SPDX-License-Identifier: GPL-2.0-only
#include "observe/ring_buffer_pages.h"

#include <algorithm>
#include <cstring>

namespace schedlab::observe {

namespace {

void put_le(std::uint8_t *at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

RingBufferPages::RingBufferPages(std::size_t page_size,
                                 std::function<void(std::span<const std::uint8_t>)> full)
    : page_size_(page_size), full_(std::move(full)), page_(page_size, 0) {}

std::size_t RingBufferPages::max_payload() const {
  // The long form: header, length word, the payload rounded up to 4 bytes.
  return (page_size_ - kPageHeader - 8) & ~std::size_t{3};
}

void RingBufferPages::start_page(std::uint64_t ts) {
  put_le(page_.data(), ts, 8);
  last_ts_ = ts;
}

void RingBufferPages::put32(std::uint32_t v) {
  put_le(page_.data() + kPageHeader + used_, v, 4);
  used_ += 4;
}

bool RingBufferPages::add(std::uint64_t ts, std::span<const std::uint8_t> payload) {
  // The kernel reserves at least one byte: an empty payload would read as padding.
  const std::size_t len = std::max<std::size_t>(payload.size(), 1);
  if (len > max_payload()) return false;
  const std::size_t aligned = (len + 3) & ~std::size_t{3};
  const bool small = len <= kMaxSmallData;
  const std::size_t size = (small ? 4 : 8) + aligned;
  std::uint64_t delta = ts > last_ts_ ? ts - last_ts_ : 0;
  const std::size_t capacity = page_size_ - kPageHeader;
  if (used_ == 0) {
    start_page(ts);
    delta = 0;
  } else if (used_ + size + (delta > kMaxDelta ? 8 : 0) > capacity) {
    // The event starts a new page, whose timestamp it shares: no extend needed there.
    flush();
    start_page(ts);
    delta = 0;
  }
  if (delta > kMaxDelta) {
    put32(kTypeTimeExtend | static_cast<std::uint32_t>((delta & kMaxDelta) << 5));
    put32(static_cast<std::uint32_t>(delta >> 27));
    delta = 0;
  }
  const auto d = static_cast<std::uint32_t>(delta << 5);
  if (small) {
    put32(static_cast<std::uint32_t>(aligned / 4) | d);
  } else {
    put32(d);  // type_len 0: the length word follows, counting itself
    put32(static_cast<std::uint32_t>(aligned + 4));
  }
  std::uint8_t *at = page_.data() + kPageHeader + used_;
  if (!payload.empty()) std::memcpy(at, payload.data(), payload.size());
  std::memset(at + payload.size(), 0, aligned - payload.size());
  used_ += aligned;
  last_ts_ = ts;
  return true;
}

void RingBufferPages::flush() {
  if (used_ == 0) return;
  put_le(page_.data() + 8, used_, 8);  // commit
  full_(page_);
  std::fill(page_.begin(), page_.end(), std::uint8_t{0});
  used_ = 0;
}

}  // namespace schedlab::observe
