// SPDX-License-Identifier: GPL-2.0-only
// The host topology reader: fake sysfs trees (tests/data/sysfs-*) give the expected machine,
// irregular hosts and malformed trees give clear errors, and `[machine] host = true` resolves
// the machine at load time.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "machine/host_topology.h"
#include "scenario/scenario.h"

namespace schedlab {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(SCHEDLAB_SOURCE_DIR) / "tests" / "data";

// A throwaway sysfs tree: file name (relative to the root) -> first line.
class FakeTree {
 public:
  explicit FakeTree(const std::map<std::string, std::string> &files) {
    root_ = fs::temp_directory_path() /
            ("schedlab-sysfs-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    for (const auto &[name, text] : files) {
      fs::create_directories((root_ / name).parent_path());
      std::ofstream(root_ / name) << text << "\n";
    }
  }
  ~FakeTree() { fs::remove_all(root_); }
  FakeTree(const FakeTree &) = delete;
  FakeTree &operator=(const FakeTree &) = delete;
  const fs::path &root() const { return root_; }

 private:
  fs::path root_;
  static inline int counter_ = 0;
};

// One package, one LLC over every CPU; `siblings` per CPU.
std::map<std::string, std::string> simple_tree(const std::vector<std::string> &siblings,
                                               const std::string &online) {
  std::map<std::string, std::string> f{{"cpu/online", online}};
  const std::string all = "0-" + std::to_string(siblings.size() - 1);
  for (std::size_t c = 0; c < siblings.size(); c++) {
    const std::string d = "cpu/cpu" + std::to_string(c) + "/";
    f[d + "topology/physical_package_id"] = "0";
    f[d + "topology/core_id"] = std::to_string(c);
    f[d + "topology/thread_siblings_list"] = siblings[c];
    f[d + "cache/index3/level"] = "3";
    f[d + "cache/index3/type"] = "Unified";
    f[d + "cache/index3/shared_cpu_list"] = all;
  }
  return f;
}

std::string error_of(const fs::path &root, bool *malformed = nullptr) {
  try {
    read_host_topology(root);
  } catch (const HostTopologyError &e) {
    if (malformed) *malformed = e.malformed();
    return e.what();
  }
  return "";
}

TEST(HostTopology, TwoSocketsTwoCoresSmt2) {
  const HostTopology h = read_host_topology(kData / "sysfs-2s2c-smt2");
  EXPECT_EQ(h.cpus.size(), 8u);
  EXPECT_EQ(h.spec.sockets, 2);
  EXPECT_EQ(h.spec.llcs_per_socket, 1);
  EXPECT_EQ(h.spec.cores_per_llc, 2);
  EXPECT_EQ(h.spec.threads_per_core, 2);
  EXPECT_EQ(h.spec.numbering, CpuNumbering::X86);
  EXPECT_EQ(h.spec.numa_nodes, 0);  // one node per socket
  EXPECT_EQ(h.spec.numa_distances, (std::vector<std::vector<int>>{{10, 21}, {21, 10}}));
  // The model built from it puts cpu 4 on cpu 0's core and cpu 2 on the other socket.
  const Topology t(h.spec);
  EXPECT_TRUE(t.smt_mask(0).test(4));
  EXPECT_FALSE(t.socket_mask(0).test(2));
  const std::string toml = machine_toml(h);
  EXPECT_NE(toml.find("# host: online 0-7; 2 package(s)"), std::string::npos) << toml;
  EXPECT_NE(toml.find("threads_per_core = 2\n"), std::string::npos);
  EXPECT_NE(toml.find("numa_distances = [[10, 21], [21, 10]]\n"), std::string::npos);
}

TEST(HostTopology, TwoCpuVmWithoutSmtOrCaches) {
  const HostTopology h = read_host_topology(kData / "sysfs-vm2");
  EXPECT_EQ(h.spec.sockets, 1);
  EXPECT_EQ(h.spec.cores_per_llc, 2);
  EXPECT_EQ(h.spec.threads_per_core, 1);
  EXPECT_TRUE(h.spec.numa_distances.empty());
  EXPECT_NE(h.facts.find("no cache information"), std::string::npos) << h.facts;
}

TEST(HostTopology, AdjacentSiblingsGiveAdjacentNumbering) {
  const FakeTree t(simple_tree({"0-1", "0-1", "2-3", "2-3"}, "0-3"));
  const HostTopology h = read_host_topology(t.root());
  EXPECT_EQ(h.spec.numbering, CpuNumbering::Adjacent);
  EXPECT_EQ(h.spec.cores_per_llc, 2);
  EXPECT_EQ(h.spec.threads_per_core, 2);
}

TEST(HostTopology, DifferentSmtWidthsCannotBeExpressed) {
  const FakeTree t(simple_tree({"0,2", "1", "0,2"}, "0-2"));
  bool malformed = true;
  const std::string e = error_of(t.root(), &malformed);
  EXPECT_FALSE(malformed);
  EXPECT_NE(e.find("cannot be expressed"), std::string::npos) << e;
  EXPECT_NE(e.find("cpu0 has 2 SMT thread(s) (0,2) but cpu1 has 1 (1)"), std::string::npos) << e;
}

TEST(HostTopology, OfflineCpusCannotBeExpressed) {
  auto files = simple_tree({"0", "1"}, "0-1");
  files["cpu/present"] = "0-3";
  const FakeTree t(files);
  const std::string e = error_of(t.root());
  EXPECT_NE(e.find("CPUs 2-3 are offline (online: 0-1, present: 0-3)"), std::string::npos) << e;
}

TEST(HostTopology, HoleInOnlineCpusCannotBeExpressed) {
  auto files = simple_tree({"0", "1", "2"}, "0,2");
  const FakeTree t(files);
  const std::string e = error_of(t.root());
  EXPECT_NE(e.find("the online CPUs 0,2 leave holes"), std::string::npos) << e;
}

TEST(HostTopology, MalformedTreesNameTheFile) {
  bool malformed = false;
  const FakeTree empty(std::map<std::string, std::string>{{"cpu/README", "nothing"}});
  std::string e = error_of(empty.root(), &malformed);
  EXPECT_TRUE(malformed);
  EXPECT_NE(e.find("cpu/online: cannot read"), std::string::npos) << e;

  auto files = simple_tree({"0", "1"}, "0-1");
  files["cpu/cpu1/topology/thread_siblings_list"] = "1-x";
  const FakeTree bad_list(files);
  e = error_of(bad_list.root(), &malformed);
  EXPECT_TRUE(malformed);
  EXPECT_NE(e.find("cpu1/topology/thread_siblings_list: expected a cpulist such as 0-3,8, got "
                   "'1-x'"),
            std::string::npos)
      << e;

  files = simple_tree({"0", "1"}, "0-1");
  files.erase("cpu/cpu0/topology/core_id");
  const FakeTree missing(files);
  e = error_of(missing.root(), &malformed);
  EXPECT_TRUE(malformed);
  EXPECT_NE(e.find("cpu0/topology/core_id: cannot read"), std::string::npos) << e;
}

TEST(HostTopology, SameMachineIgnoresNumberingWithoutSmt) {
  TopologySpec a, b;
  a.cores_per_llc = b.cores_per_llc = 2;
  b.numbering = CpuNumbering::Adjacent;
  EXPECT_TRUE(same_machine(a, b));
  a.threads_per_core = b.threads_per_core = 2;
  EXPECT_FALSE(same_machine(a, b));
}

// `[machine] host = true` reads the tree named by SCHEDLAB_SYSFS_ROOT at load time.
class HostScenario : public testing::Test {
 protected:
  void TearDown() override { unsetenv("SCHEDLAB_SYSFS_ROOT"); }
  static constexpr const char *kText = R"(
[scenario]
name = "h"
[machine]
host = true
[machine.costs]
context_switch = "3us"
[[group]]
name = "w"
count = 4
phases = [ { run = "1ms" } ]
[[config]]
name = "Cookie"
cookies = [ { group = "w" } ]
)";
};

TEST_F(HostScenario, ResolvesTheMachineFromTheHost) {
  setenv("SCHEDLAB_SYSFS_ROOT", (kData / "sysfs-2s2c-smt2").c_str(), 1);
  const scenario::Scenario s = scenario::parse_scenario(kText, "h.toml");
  EXPECT_TRUE(s.host_machine);
  EXPECT_EQ(s.topology.sockets, 2);
  EXPECT_EQ(s.topology.threads_per_core, 2);
  EXPECT_EQ(s.costs.context_switch_ns, 3000u);  // the scenario's costs still apply
}

TEST_F(HostScenario, CookieConfigLoadsOnAHostWithoutSmt) {
  // The file must load anywhere; the configuration fails only when it is run.
  setenv("SCHEDLAB_SYSFS_ROOT", (kData / "sysfs-vm2").c_str(), 1);
  const scenario::Scenario s = scenario::parse_scenario(kText, "h.toml");
  EXPECT_EQ(s.topology.threads_per_core, 1);
  ASSERT_EQ(s.configs.size(), 1u);
  EXPECT_EQ(s.configs[0].cookies.size(), 1u);
}

TEST_F(HostScenario, AnIrregularHostIsALoadError) {
  const FakeTree t(simple_tree({"0,2", "1", "0,2"}, "0-2"));
  setenv("SCHEDLAB_SYSFS_ROOT", t.root().c_str(), 1);
  try {
    scenario::parse_scenario(kText, "h.toml");
    ADD_FAILURE() << "loaded";
  } catch (const scenario::ScenarioError &e) {
    EXPECT_NE(std::string(e.what()).find("h.toml:5:8: error: machine.host: the host's topology "
                                         "cannot be expressed"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace schedlab
