// SPDX-License-Identifier: GPL-2.0-only
// Every file in tests/scenarios/bad has one defect and starts with the error it must produce:
//   # expect: FILE:LINE:COL: error: FIELD: MESSAGE
// with FILE standing for the path the file is loaded under. Adding a case is adding a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scenario/scenario.h"

#ifndef SCHEDLAB_BAD_SCENARIO_DIR
#error "define SCHEDLAB_BAD_SCENARIO_DIR as the path of tests/scenarios/bad"
#endif

namespace schedlab::scenario {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> bad_files() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(SCHEDLAB_BAD_SCENARIO_DIR, ec))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

class BadScenario : public testing::TestWithParam<fs::path> {};

TEST_P(BadScenario, FailsWithTheExpectedMessage) {
  const fs::path &file = GetParam();
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "cannot open " << file;
  std::string first;
  std::getline(in, first);
  const std::string prefix = "# expect: FILE";
  ASSERT_EQ(first.rfind(prefix, 0), 0u)
      << file << ": the first line must be '# expect: FILE:LINE:COL: error: ...'";
  const std::string expected = file.string() + first.substr(prefix.size());

  try {
    load_scenario(file);
    ADD_FAILURE() << file << " loaded without error; expected: " << expected;
  } catch (const ScenarioError &e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

std::string case_name(const testing::TestParamInfo<fs::path> &info) {
  std::string name = info.param.stem().string();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, BadScenario, testing::ValuesIn(bad_files()), case_name);

// An unset or mistyped directory would otherwise make the suite above silently empty.
TEST(BadScenarioFiles, DirectoryHasCases) {
  EXPECT_GE(bad_files().size(), 20u) << "in " << SCHEDLAB_BAD_SCENARIO_DIR;
}

}  // namespace
}  // namespace schedlab::scenario
