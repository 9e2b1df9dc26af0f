// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the command-line parser (CLI11 set up as in main), without running a
// command. The input is argv after the program name, one argument per NUL-separated piece.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/app.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::vector<std::string> args{"schedlab"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;  // argv of that length tells the parser nothing new
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Building the CLI11 tree costs far more than parsing (about 10 ms under ASan): build it once
  // and clear the parse state of the previous input, as a second App::parse would.
  static schedlab::cli::Cli cli;
  cli.app.clear();
  (void)schedlab::cli::parse_args(cli, static_cast<int>(args.size()), argv.data());
  return 0;
}
