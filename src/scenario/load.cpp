// SPDX-License-Identifier: GPL-2.0-only
// Reads a scenario file and hands its text to the reader of its format: rt-app's JSON
// (rtapp_reader.cpp) or the TOML format (toml_reader.cpp). The readers know nothing of each
// other's formats; the rt-app reader only builds the table the TOML reader checks.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "scenario/scenario.h"

namespace schedlab::scenario {

bool is_rtapp_json(const std::filesystem::path &file, std::string_view text) {
  if (file.extension() == ".json") return true;
  const size_t p = text.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos) return false;
  // A TOML file cannot start with any of these.
  return text[p] == '{' || text.substr(p, 2) == "/*" || text.substr(p, 2) == "//";
}

Scenario load_scenario(const std::filesystem::path &file) {
  const std::string name = file.string();
  std::error_code ec;
  // An ifstream opens a directory without complaint and then reads nothing.
  if (std::filesystem::is_directory(file, ec))
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", name, std::strerror(EISDIR)));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", name, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", name, std::strerror(errno)));
  return load_scenario_text(text.str(), file);
}

Scenario load_scenario_text(std::string_view text, const std::filesystem::path &file) {
  const std::string name = file.string();
  Scenario s = is_rtapp_json(file, text) ? parse_rtapp(text, name) : parse_scenario(text, name);
  s.source = std::string(text);
  return s;
}

}  // namespace schedlab::scenario
