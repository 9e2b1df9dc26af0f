// SPDX-License-Identifier: GPL-2.0-only
#include "cli/provenance.h"

#include <filesystem>

#include "experiment/sha256.h"
#include "scenario/scenario.h"

namespace schedlab::cli {

namespace fs = std::filesystem;

nlohmann::ordered_json scenario_source_json(const std::string &file, const std::string &text,
                                            const std::string &result_path) {
  std::error_code ec;
  fs::path path = file;
  const fs::path scen = fs::absolute(file, ec).lexically_normal();
  const fs::path dir =
      result_path.empty() || result_path == "-"
          ? fs::current_path(ec)
          : fs::absolute(fs::path(result_path), ec).parent_path().lexically_normal();
  if (!ec) {
    const fs::path rel = scen.lexically_relative(dir);
    path = rel.empty() ? scen : rel;
  }
  nlohmann::ordered_json j;
  j["path"] = path.generic_string();
  j["format"] = scenario::is_rtapp_json(file, text) ? "rt-app" : "toml";
  j["sha256"] = experiment::sha256_hex(text);
  j["text"] = text;
  return j;
}

}  // namespace schedlab::cli
