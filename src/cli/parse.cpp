// SPDX-License-Identifier: GPL-2.0-only
#include <cstdio>

#include "cli/commands.h"
#include "scenario/limits.h"

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

int apply_max_work(const char *cmd, const std::string &text) {
  if (text.empty()) return 0;
  const auto v = parse_u64(text);
  if (!v || *v < 1) {
    std::fprintf(stderr, "schedlab %s: --max-work %s: expected an integer from 1 to 2^64-1\n", cmd,
                 text.c_str());
    return kExitBadInput;
  }
  scenario::set_max_work(*v);
  return 0;
}

void add_max_work_option(CLI::App *c, std::string &text) {
  c->add_option("--max-work", text,
                "Refuse scenarios that ask for more phase executions than this (tasks x loops x "
                "phases; default 1000000000)")
      ->type_name("N");
}

}  // namespace schedlab::cli
