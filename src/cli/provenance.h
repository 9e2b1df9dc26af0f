// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What a result keeps of how it was made, so that it can be re-drawn and checked without the
// scenario file or the command line: the scenario's text with its sha256, and the options.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace schedlab::cli {

// {"path", "format", "sha256", "text"}: `path` is the scenario file relative to the directory
// of `result_path` (the cwd for "-"; absolute when no relative path leads there), which is
// how `report` and `timeline` look it up.
nlohmann::ordered_json scenario_source_json(const std::string &file, const std::string &text,
                                            const std::string &result_path);

// The options a command ran with, as typed: only those given.
class OptionsJson {
 public:
  OptionsJson &add(const char *name, const std::string &value) {
    if (!value.empty()) j_[name] = value;
    return *this;
  }
  OptionsJson &add(const char *name, const std::vector<std::string> &values) {
    if (!values.empty()) j_[name] = values;
    return *this;
  }
  OptionsJson &add(const char *name, bool on) {
    if (on) j_[name] = true;
    return *this;
  }
  nlohmann::ordered_json json() const {
    return j_.is_null() ? nlohmann::ordered_json::object() : j_;
  }

 private:
  nlohmann::ordered_json j_;
};

}  // namespace schedlab::cli
