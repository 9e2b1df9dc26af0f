// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the ftrace text reader and what replay derives from a trace.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario/ftrace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    const auto trace = schedlab::scenario::parse_ftrace(text, "fuzz.trace");
    const auto spec = schedlab::scenario::derive_replay(trace);
    (void)schedlab::scenario::replay_scenario(spec, nullptr, {});
  } catch (const schedlab::scenario::ScenarioError &) {
  }
  return 0;
}
