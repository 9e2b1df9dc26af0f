// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the scenario TOML reader. Bad input must become a ScenarioError; any other
// exception, a crash, a leak or undefined behaviour is a bug (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    const auto s = schedlab::scenario::parse_scenario(text, "fuzz.toml");
    // The configurations are resolved when a run starts; resolving them must not fail either.
    for (const auto &c : s.configs) (void)schedlab::scenario::apply_config(s, &c);
    (void)schedlab::scenario::apply_config(s, nullptr);
  } catch (const schedlab::scenario::ScenarioError &) {
  }
  return 0;
}
