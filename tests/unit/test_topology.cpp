// SPDX-License-Identifier: GPL-2.0-only
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

// A ring of four nodes (each two hops from the one opposite): the 20-hop level of node 0 spans
// nodes 0, 1 and 3; the top level's groups are those spans, and node 0's and node 2's share
// nodes 1 and 3. The balancer must then search every group for the local CPU (groups_overlap).
TEST(SchedDomains, OnlyIrregularNumaLevelsHaveOverlappingGroups) {
  TopologySpec s;
  s.sockets = 4;
  s.cores_per_llc = 2;
  s.numa_distances = {{10, 20, 30, 20}, {20, 10, 20, 30}, {30, 20, 10, 20}, {20, 30, 20, 10}};
  ASSERT_EQ(validate(s), "");
  Topology t(s);
  sim::EventQueue q;
  kernel::Kernel k(t, MachineCosts{}, kernel::KernelConfig{}, q);
  const auto &doms = k.domains(0);
  ASSERT_GE(doms.size(), 2u);
  for (std::size_t i = 0; i + 1 < doms.size(); i++)
    EXPECT_FALSE(doms[i]->groups_overlap) << doms[i]->name << " level " << i;
  const kernel::sched_domain *top = doms.back().get();
  EXPECT_EQ(top->span_weight, 8);
  EXPECT_TRUE(top->groups_overlap);
  EXPECT_TRUE(top->groups.front().contains(0));
  int holding_cpu0 = 0;
  for (const kernel::sched_group &g : top->groups) holding_cpu0 += g.contains(0);
  EXPECT_GE(holding_cpu0, 2);  // the case is_local_group() looks beyond groups[0] for

  TopologySpec two;  // two nodes: every level's groups partition its span
  two.sockets = 2;
  two.cores_per_llc = 2;
  two.threads_per_core = 2;
  Topology t2(two);
  sim::EventQueue q2;  // a queue serves one kernel: its tick takes the queue's lane
  kernel::Kernel k2(t2, MachineCosts{}, kernel::KernelConfig{}, q2);
  for (const auto &sd : k2.domains(0)) EXPECT_FALSE(sd->groups_overlap) << sd->name;
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
  // assign(): exactly the CPUs the predicate names, in every word, old bits gone.
  schedlab::CpuMask a = m;
  a.assign([](int c) { return c % 7 == 0 || c == 199; });
  for (int c = 0; c < 200; c++) EXPECT_EQ(a.test(c), c % 7 == 0 || c == 199) << c;
  EXPECT_EQ(a.weight(), 30);
  schedlab::CpuMask empty;
  empty.for_each_wrap(0, [](int) -> bool {
    ADD_FAILURE() << "empty mask visited";
    return true;
  });
}
