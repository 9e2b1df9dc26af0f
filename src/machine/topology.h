// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The machine as hardware: packages, last-level caches, optional clusters, cores and SMT
// threads, NUMA nodes. No scheduling knowledge here: kernel/topology.cpp turns this into
// sched domains.
#include <span>
#include <string>
#include <vector>

#include "machine/cpumask.h"

namespace schedlab {

enum class CpuNumbering {
  X86,       // sibling of CPU n is n + nr_cores: all first threads, then all second threads
  Adjacent,  // siblings are consecutive: core c owns CPUs c*threads .. c*threads+threads-1
};

struct TopologySpec {
  int sockets = 1;
  int llcs_per_socket = 1;
  int clusters_per_llc = 1;  // 1 = no cluster level
  int cores_per_llc = 1;
  int threads_per_core = 1;                      // SMT1, SMT2 or SMT4
  int numa_nodes = 0;                            // 0 = one per socket
  std::vector<std::vector<int>> numa_distances;  // empty = 10 local, 20 remote
  CpuNumbering numbering = CpuNumbering::X86;
  // CPUs in all (validate() checks that the product fits).
  int nr_cpus() const { return sockets * llcs_per_socket * cores_per_llc * threads_per_core; }
};

// Returns an empty string if the spec is buildable, else what is wrong with it.
std::string validate(const TopologySpec &spec);

struct CpuInfo {
  int socket, llc, cluster, core, thread, node;  // llc, cluster, core are machine-wide indices
};

class Topology {
 public:
  explicit Topology(const TopologySpec &spec);  // precondition: validate(spec) is empty

  int nr_cpus() const { return static_cast<int>(cpus_.size()); }
  int nr_cores() const { return nr_cores_; }
  int threads_per_core() const { return spec_.threads_per_core; }
  const TopologySpec &spec() const { return spec_; }
  const CpuInfo &cpu(int c) const { return cpus_[c]; }
  const CpuMask &smt_mask(int c) const { return core_masks_[cpus_[c].core]; }
  // The CPUs of c's core as lists, for the loops that run per schedule: ascending (the order
  // of for_each_cpu over smt_mask(c)), and starting at c and wrapping round (the order of
  // for_each_cpu_wrap(i, smt_mask(c), c)). A bitmap walk costs more than the two bits it finds.
  std::span<const int> smt_cpus(int c) const {
    return {&smt_cpus_[static_cast<std::size_t>(cpus_[c].core * spec_.threads_per_core)],
            static_cast<std::size_t>(spec_.threads_per_core)};
  }
  std::span<const int> smt_wrap(int c) const {
    return {&smt_wrap_[static_cast<std::size_t>(c * spec_.threads_per_core)],
            static_cast<std::size_t>(spec_.threads_per_core)};
  }
  const CpuMask &cluster_mask(int c) const { return cluster_masks_[cpus_[c].cluster]; }
  const CpuMask &llc_mask(int c) const { return llc_masks_[cpus_[c].llc]; }
  const CpuMask &socket_mask(int c) const { return socket_masks_[cpus_[c].socket]; }
  const CpuMask &node_mask(int node) const { return node_masks_[node]; }
  int nr_nodes() const { return static_cast<int>(node_masks_.size()); }
  int node_distance(int a, int b) const { return distances_[a][b]; }
  const CpuMask &all() const { return all_; }
  // The CPU id of thread `thread` of core `core`.
  int cpu_of(int core, int thread) const;

 private:
  TopologySpec spec_;
  int nr_cores_ = 0;
  std::vector<CpuInfo> cpus_;
  std::vector<CpuMask> core_masks_, cluster_masks_, llc_masks_, socket_masks_, node_masks_;
  std::vector<std::vector<int>> distances_;
  CpuMask all_;
  std::vector<int> smt_cpus_;  // core k's CPUs at [k * threads, (k + 1) * threads)
  std::vector<int> smt_wrap_;  // CPU c's core, from c round: at [c * threads, (c + 1) * threads)
};

}  // namespace schedlab
