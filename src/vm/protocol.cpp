// SPDX-License-Identifier: GPL-2.0-only
#include "vm/protocol.h"

#include <charconv>
#include <cstdio>

namespace schedlab::vm {

namespace {

constexpr std::string_view kMagic = "@SCHEDLAB ";

using real::to_u64;
using real::words;

}  // namespace

u64 fnv1a64(std::string_view bytes) {
  u64 h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string make_frame(std::string_view kind, std::string_view payload) {
  char head[96];
  std::snprintf(head, sizeof head, " %.*s %zu %016llx\n", static_cast<int>(kind.size()),
                kind.data(), payload.size(), static_cast<unsigned long long>(fnv1a64(payload)));
  // A newline first, so a frame starts a line whatever came before it.
  std::string out = "\n@SCHEDLAB";
  out.append(head).append(payload).push_back('\n');
  return out;
}

void FrameReader::feed(std::string_view bytes) {
  buf_.append(bytes);
  parse();
}

void FrameReader::parse() {
  for (;;) {
    const std::size_t at = buf_.find(kMagic);
    if (at == std::string::npos) {
      // Keep a tail that may be the start of the magic; the rest is noise.
      const std::size_t keep = std::min(buf_.size(), kMagic.size() - 1);
      noise_ += buf_.size() - keep;
      buf_.erase(0, buf_.size() - keep);
      return;
    }
    noise_ += at;
    buf_.erase(0, at);
    const std::size_t eol = buf_.find('\n');
    if (eol == std::string::npos) {
      if (buf_.size() > 200) throw ProtocolError("a frame header has no end of line");
      return;
    }
    const std::vector<std::string_view> w =
        words(std::string_view(buf_).substr(kMagic.size(), eol - kMagic.size()));
    if (w.size() != 3)
      throw ProtocolError("a frame header does not have kind, length and checksum");
    for (char c : w[0])
      if (!((c >= 'a' && c <= 'z') || c == '_'))
        throw ProtocolError("a frame header has a bad kind '" + std::string(w[0]) + "'");
    const std::optional<u64> len = to_u64(w[1]);
    const std::optional<u64> sum = w[2].size() == 16 ? to_u64(w[2], 16) : std::nullopt;
    if (!len || *len > kMaxPayload)
      throw ProtocolError("frame '" + std::string(w[0]) + "' has a bad length");
    if (!sum) throw ProtocolError("frame '" + std::string(w[0]) + "' has a bad checksum field");
    const std::size_t start = eol + 1;
    if (buf_.size() < start + *len + 1) return;  // not all here yet
    std::string payload = buf_.substr(start, *len);
    if (fnv1a64(payload) != *sum || buf_[start + *len] != '\n')
      throw ProtocolError("frame '" + std::string(w[0]) + "' of " + std::to_string(*len) +
                          " bytes is corrupt (checksum mismatch)");
    ready_.push_back({std::string(w[0]), std::move(payload)});
    buf_.erase(0, start + *len + 1);
  }
}

std::optional<Frame> FrameReader::next() {
  if (ready_pos_ >= ready_.size()) return std::nullopt;
  Frame f = std::move(ready_[ready_pos_++]);
  if (ready_pos_ == ready_.size()) {
    ready_.clear();
    ready_pos_ = 0;
  }
  return f;
}

}  // namespace schedlab::vm
