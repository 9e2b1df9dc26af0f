// SPDX-License-Identifier: GPL-2.0-only
#include "cli/commands.h"

namespace schedlab::cli {

std::optional<u64> parse_u64(const std::string &s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > ~u64{0}) return std::nullopt;
  return static_cast<u64>(v);
}

}  // namespace schedlab::cli
