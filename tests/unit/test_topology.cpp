#include <gtest/gtest.h>

#include "kernel/kernel.h"
#include "machine/topology.h"

using namespace schedlab;

TEST(Topology, X86NumberingPutsSiblingsNCoresApart) {
  TopologySpec s;
  s.cores_per_llc = 4;
  s.threads_per_core = 2;
  Topology t(s);
  ASSERT_EQ(t.nr_cpus(), 8);
  EXPECT_EQ(t.smt_mask(1).to_list(), "1,5");
  EXPECT_EQ(t.smt_mask(6).to_list(), "2,6");
  EXPECT_EQ(t.llc_mask(3).to_list(), "0-7");
}

TEST(Topology, AdjacentNumberingKeepsSiblingsTogether) {
  TopologySpec s;
  s.cores_per_llc = 4;
  s.threads_per_core = 4;
  s.numbering = CpuNumbering::Adjacent;
  Topology t(s);
  EXPECT_EQ(t.smt_mask(5).to_list(), "4-7");
}

// The per-schedule loops walk a core's CPUs as lists; the core-wide pick's tie-breaking
// depends on their order, which must be for_each_cpu's and for_each_cpu_wrap's.
TEST(Topology, SmtListsFollowTheMaskOrders) {
  for (const auto numbering : {CpuNumbering::X86, CpuNumbering::Adjacent}) {
    TopologySpec s;
    s.cores_per_llc = 3;
    s.threads_per_core = 4;
    s.numbering = numbering;
    Topology t(s);
    for (int c = 0; c < t.nr_cpus(); c++) {
      std::vector<int> asc, wrap;
      t.smt_mask(c).for_each([&](int i) { asc.push_back(i); });
      t.smt_mask(c).for_each_wrap(c, [&](int i) {
        wrap.push_back(i);
        return true;
      });
      const auto cpus = t.smt_cpus(c), from_c = t.smt_wrap(c);
      EXPECT_EQ(std::vector<int>(cpus.begin(), cpus.end()), asc) << "cpu " << c;
      EXPECT_EQ(std::vector<int>(from_c.begin(), from_c.end()), wrap) << "cpu " << c;
      EXPECT_EQ(from_c.front(), c);
    }
  }
  TopologySpec s;  // CPU 6 of 4 cores x 2 threads (x86): its core is {2, 6}
  s.cores_per_llc = 4;
  s.threads_per_core = 2;
  Topology t(s);
  EXPECT_EQ(std::vector<int>(t.smt_wrap(6).begin(), t.smt_wrap(6).end()), (std::vector<int>{6, 2}));
  EXPECT_EQ(std::vector<int>(t.smt_cpus(6).begin(), t.smt_cpus(6).end()), (std::vector<int>{2, 6}));
}

TEST(Topology, TwoSocketsMakeTwoNodesAndLlcs) {
  TopologySpec s;
  s.sockets = 2;
  s.cores_per_llc = 2;
  s.threads_per_core = 2;
  Topology t(s);
  EXPECT_EQ(t.nr_nodes(), 2);
  EXPECT_EQ(t.llc_mask(0).to_list(), "0-1,4-5");
  EXPECT_EQ(t.node_distance(0, 1), 20);
}

TEST(Topology, ValidateRejectsImpossibleShapes) {
  TopologySpec s;
  s.threads_per_core = 3;
  EXPECT_NE(validate(s), "");
  s.threads_per_core = 2;
  s.cores_per_llc = 3;
  s.clusters_per_llc = 2;
  EXPECT_NE(validate(s), "");
}

TEST(SchedDomains, SmtMcPkgNumaLevelsAndLlcInfo) {
  TopologySpec s;
  s.sockets = 2;
  s.cores_per_llc = 4;
  s.threads_per_core = 2;
  Topology t(s);
  sim::EventQueue q;
  kernel::Kernel k(t, MachineCosts{}, kernel::KernelConfig{}, q);
  const kernel::sched_domain *sd = k.cpu_rq(0)->sd;
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->name, "SMT");
  EXPECT_EQ(sd->span.to_list(), "0,8");
  EXPECT_EQ(sd->groups.size(), 2u);
  EXPECT_EQ(sd->imbalance_pct, 110u);
  ASSERT_NE(sd->parent, nullptr);
  EXPECT_EQ(sd->parent->name, "MC");
  EXPECT_EQ(sd->parent->span.to_list(), "0-3,8-11");
  EXPECT_EQ(sd->parent->groups.size(), 4u);  // the cores
  EXPECT_EQ(sd->parent->groups[0].span.to_list(), "0,8");
  ASSERT_NE(sd->parent->parent, nullptr);
  EXPECT_EQ(sd->parent->parent->name, "NUMA");  // PKG == MC and NODE == PKG degenerate away
  EXPECT_TRUE(sd->parent->parent->flags & kernel::SD_NUMA);
  EXPECT_EQ(k.sd_llc_size(0), 8);
  EXPECT_TRUE(k.cpus_share_cache(0, 11));
  EXPECT_FALSE(k.cpus_share_cache(0, 4));
  EXPECT_EQ(k.sd_llc(0), sd->parent);
}

TEST(SchedDomains, BaseSliceScalesWithCpuCountLikeTheKernel) {
  for (auto [cores, slice] :
       {std::pair{1, 700000ull}, {2, 1400000ull}, {4, 2100000ull}, {16, 2800000ull}}) {
    TopologySpec s;
    s.cores_per_llc = cores;
    Topology t(s);
    sim::EventQueue q;
    kernel::Kernel k(t, MachineCosts{}, kernel::KernelConfig{}, q);
    EXPECT_EQ(k.sysctl_sched_base_slice(), slice) << cores << " CPUs";
  }
}

// for_each_cpu_wrap over several words: from `start` up, then from 0 up to start, stopping
// when the callback says so; next() is cpumask_next.
TEST(CpuMask, WrapVisitsEveryBitFromStartAcrossWords) {
  schedlab::CpuMask m(200);
  for (int c : {3, 64, 65, 70, 127, 130, 199}) m.set(c);
  for (int start : {0, 3, 4, 70, 71, 128, 199, 200}) {
    std::vector<int> seen, want;
    m.for_each_wrap(start, [&](int c) {
      seen.push_back(c);
      return true;
    });
    for (int c = start; c < 200; c++)
      if (m.test(c)) want.push_back(c);
    for (int c = 0; c < start && c < 200; c++)
      if (m.test(c)) want.push_back(c);
    EXPECT_EQ(seen, want) << "start " << start;
  }
  std::vector<int> two;
  m.for_each_wrap(100, [&](int c) {
    two.push_back(c);
    return two.size() < 2;
  });
  EXPECT_EQ(two, (std::vector<int>{127, 130}));
  EXPECT_EQ(m.next(66), 70);
  EXPECT_EQ(m.next(131), 199);
  EXPECT_EQ(m.next(200), 200);
  schedlab::CpuMask empty;
  empty.for_each_wrap(0, [](int) -> bool {
    ADD_FAILURE() << "empty mask visited";
    return true;
  });
}
