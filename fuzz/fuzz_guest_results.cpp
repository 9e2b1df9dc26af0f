// SPDX-License-Identifier: GPL-2.0-only
// The host's reader of what a twin guest sends (schedlab measure --vm): the frame stream of
// the result port, fed in pieces, and the /proc/schedstat texts inside a run's frame, parsed
// and subtracted. Anything may come out of a broken guest; only ProtocolError, SchedstatError
// and JSON errors may.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "vm/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char *>(data), size);
  using namespace schedlab::vm;
  try {
    (void)parse_schedstat(in);
  } catch (const SchedstatError &) {
  }
  FrameReader r;
  try {
    // Pieces of 7 bytes, as a serial port hands them over.
    for (std::size_t i = 0; i < in.size(); i += 7) r.feed(in.substr(i, 7));
    while (auto f = r.next()) {
      const auto j = nlohmann::json::parse(f->payload, nullptr, false);
      if (!j.is_object() || !j.contains("schedstat_before") || !j.contains("schedstat_after"))
        continue;
      const auto &b = j["schedstat_before"], &a = j["schedstat_after"];
      if (!b.is_string() || !a.is_string()) continue;
      try {
        (void)schedstat_delta(parse_schedstat(b.get<std::string>()),
                              parse_schedstat(a.get<std::string>()));
      } catch (const SchedstatError &) {
      }
    }
  } catch (const ProtocolError &) {
  }
  return 0;
}
