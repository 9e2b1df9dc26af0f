// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the rt-app JSON reader (docs/rt-app.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    const auto s = schedlab::scenario::parse_rtapp(text, "fuzz.json");
    for (const auto &c : s.configs) (void)schedlab::scenario::apply_config(s, &c);
  } catch (const schedlab::scenario::ScenarioError &) {
  }
  return 0;
}
