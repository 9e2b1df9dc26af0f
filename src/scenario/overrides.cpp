// SPDX-License-Identifier: GPL-2.0-only
#include "scenario/overrides.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "scenario/table_reader.h"

namespace schedlab::scenario {

namespace {

std::vector<std::string> split(const std::string &path) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    const auto dot = path.find('.', pos);
    out.push_back(path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return out;
}

// The value as TOML would read it after "key = "; text that is not a TOML value is a string.
toml::node_view<toml::node> parsed_value(const std::string &text, toml::table &holder) {
  try {
    holder = toml::parse("v = " + text);
  } catch (const toml::parse_error &) {
    holder = toml::table{{"v", text}};
  }
  return holder["v"];
}

// Sets `value` at `segs[i..]` below `t`; the arrays of tables [[group]] and [[config]] take a
// name (or "*") as their next segment.
void set(toml::table &t, const std::vector<std::string> &segs, std::size_t i,
         const toml::node &value, const std::string &where) {
  const std::string &key = segs[i];
  if (key.empty()) throw std::invalid_argument("empty key in the path");
  if (i + 1 == segs.size()) {
    t.insert_or_assign(key, value);
    return;
  }
  toml::node *n = t.get(key);
  if (n && n->is_array_of_tables()) {
    if (i + 2 >= segs.size())
      throw std::invalid_argument(fmt::format(
          "{} is a list of tables: name one by its name or '*', e.g. {}.NAME.count", where, key));
    const std::string &name = segs[i + 1];
    bool found = false;
    for (toml::node &e : *n->as_array()) {
      toml::table &et = *e.as_table();
      if (name == "*" || et["name"].value_or(std::string()) == name) {
        set(et, segs, i + 2, value, where);
        found = true;
      }
    }
    if (!found) throw std::invalid_argument(fmt::format("no [[{}]] named '{}'", key, name));
    return;
  }
  if (!n) n = &t.insert_or_assign(key, toml::table{}).first->second;
  if (!n->is_table()) throw std::invalid_argument(fmt::format("'{}' is a value, not a table", key));
  set(*n->as_table(), segs, i + 1, value, where);
}

constexpr std::string_view kFeaturesPrefix = "kernel.features.";
constexpr std::string_view kTunablesPrefix = "kernel.tunables.";

std::optional<bool> parse_bool(const std::string &v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  return std::nullopt;
}

}  // namespace

KeyOverride parse_param(std::string_view option, const std::string &text) {
  const auto eq = text.find('=');
  std::string prefix, form = "PATH=VALUE";
  if (option == "--feature") {
    prefix = kFeaturesPrefix;
    form = "NAME=true|false";
  } else if (option == "--tunable") {
    prefix = kTunablesPrefix;
    form = "NAME=INTEGER";
  }
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument(fmt::format("{} {}: expected {}", option, text, form));
  return {prefix + text.substr(0, eq), text.substr(eq + 1), fmt::format("{} {}", option, text)};
}

bool is_kernel_param(const std::string &path) {
  return path.starts_with(kFeaturesPrefix) || path.starts_with(kTunablesPrefix);
}

void apply_kernel_param(kernel::KernelConfig &k, const KeyOverride &o) {
  const std::string given = o.given.empty() ? o.path + "=" + o.value : o.given;
  const bool feature = o.path.starts_with(kFeaturesPrefix);
  const std::string name = o.path.substr((feature ? kFeaturesPrefix : kTunablesPrefix).size());
  if (!is_kernel_param(o.path) || name.empty() || name.find('.') != std::string::npos)
    throw std::invalid_argument(
        fmt::format("{}: expected kernel.features.NAME or kernel.tunables.NAME", given));
  if (feature) {
    const auto id = kernel::find_feature(name);
    if (!id)
      throw std::invalid_argument(
          fmt::format("{}: unknown feature '{}' (see `schedlab help features`)", given, name));
    const auto on = parse_bool(o.value);
    if (!on)
      throw std::invalid_argument(fmt::format("{}: '{}' is not true or false", given, o.value));
    k.features.on[*id] = *on;
    return;
  }
  const auto id = kernel::find_tunable(name);
  if (!id)
    throw std::invalid_argument(
        fmt::format("{}: unknown tunable '{}' (see `schedlab help tunables`)", given, name));
  std::int64_t v = 0;
  const char *end = o.value.data() + o.value.size();
  const auto [ptr, ec] = std::from_chars(o.value.data(), end, v);
  if (o.value.empty() || ec != std::errc() || ptr != end)
    throw std::invalid_argument(fmt::format("{}: '{}' is not an integer", given, o.value));
  const std::string why = kernel::check_tunable(*id, v);
  if (!why.empty()) throw std::invalid_argument(fmt::format("{}: {}", given, why));
  k.tunables.v[*id] = v;
}

Scenario load_scenario_with(const std::filesystem::path &file,
                            const std::vector<KeyOverride> &overrides) {
  if (overrides.empty()) return load_scenario(file);
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ScenarioError(fmt::format("{}: error: cannot read: {}", name, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (is_rtapp_json(file, text.str()))
    throw ScenarioError(fmt::format(
        "{}: error: keys can be overridden in TOML scenarios only (this is rt-app JSON)", name));
  toml::table root;
  try {
    root = toml::parse(text.str(), std::string_view(name));
  } catch (const toml::parse_error &) {
    return parse_scenario(text.str(), name);  // the reader's own message for invalid TOML
  }
  std::string applied;
  for (const KeyOverride &o : overrides) {
    const std::string what = fmt::format("{}={}", o.path, o.value);
    toml::table holder;
    try {
      set(root, split(o.path), 0, *parsed_value(o.value, holder).node(), o.path);
    } catch (const std::invalid_argument &e) {
      throw ScenarioError(fmt::format("{}: error: {}: {}", name, what, e.what()));
    }
    applied += (applied.empty() ? "" : ", ") + what;
  }
  try {
    Scenario s = read_scenario_table(root, name);
    s.source = text.str();
    return s;
  } catch (const ScenarioError &e) {
    throw ScenarioError(fmt::format("{} (with {})", e.what(), applied));
  }
}

}  // namespace schedlab::scenario
