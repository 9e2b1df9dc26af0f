// SPDX-License-Identifier: GPL-2.0-only
#include "scenario/overrides.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cerrno>
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

}  // namespace

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
    return read_scenario_table(root, name);
  } catch (const ScenarioError &e) {
    throw ScenarioError(fmt::format("{} (with {})", e.what(), applied));
  }
}

}  // namespace schedlab::scenario
