// SPDX-License-Identifier: GPL-2.0-only
// schedlab compare: metric-by-metric differences between two JSON results.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "experiment/compare.h"

namespace schedlab::cli {
namespace {

// nullopt after printing one line naming the file.
std::optional<nlohmann::ordered_json> read_json(const std::string &file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    std::fprintf(stderr, "schedlab compare: %s: cannot read: %s\n", file.c_str(),
                 std::strerror(EISDIR));
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "schedlab compare: %s: cannot read: %s\n", file.c_str(),
                 std::strerror(errno));
    return std::nullopt;
  }
  auto j = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    std::fprintf(stderr, "schedlab compare: %s: not valid JSON\n", file.c_str());
    return std::nullopt;
  }
  return j;
}

int cmd_compare(const std::string &a_file, const std::string &b_file, const std::string &json) {
  const auto a = read_json(a_file);
  if (!a) return kExitBadInput;
  const auto b = read_json(b_file);
  if (!b) return kExitBadInput;
  experiment::Comparison c;
  try {
    c = experiment::compare_results(*a, *b);
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab compare: %s (A = %s, B = %s)\n", e.what(), a_file.c_str(),
                 b_file.c_str());
    return kExitBadInput;
  }
  Output out;
  if (!out.open("compare", "--json", json)) return kExitError;
  std::fputs(experiment::comparison_table(c, a_file, b_file).c_str(), text_stream(json == "-"));
  return out.write(experiment::comparison_to_json(c, a_file, b_file).dump(2) + "\n");
}

}  // namespace

Command add_compare_command(CLI::App &app) {
  struct Args {
    std::string a, b, json;
  };
  auto args = std::make_shared<Args>();
  CLI::App *cmd = app.add_subcommand(
      "compare",
      "Metric-by-metric differences between two results (run, measure or experiment "
      "--json)");
  cmd->add_option("A", args->a, "First result (JSON)")->required()->type_name("FILE");
  cmd->add_option("B", args->b, "Second result (JSON); differences are B - A")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--json", args->json, "Write the comparison as JSON to FILE (- for stdout)")
      ->type_name("FILE");
  cmd->allow_extras(false);
  return {cmd, [args] { return cmd_compare(args->a, args->b, args->json); }};
}

}  // namespace schedlab::cli
