// SPDX-License-Identifier: GPL-2.0-only
#include "machine/topology.h"

#include <string>

namespace schedlab {

std::string validate(const TopologySpec &s) {
  auto pos = [](int v) { return v >= 1; };
  if (!pos(s.sockets)) return "sockets must be >= 1";
  if (!pos(s.llcs_per_socket)) return "llcs_per_socket must be >= 1";
  if (!pos(s.cores_per_llc)) return "cores_per_llc must be >= 1";
  if (!pos(s.clusters_per_llc)) return "clusters_per_llc must be >= 1";
  if (s.threads_per_core != 1 && s.threads_per_core != 2 && s.threads_per_core != 4)
    return "threads_per_core must be 1, 2 or 4";
  if (s.cores_per_llc % s.clusters_per_llc != 0)
    return "cores_per_llc must be a multiple of clusters_per_llc";
  long long cpus = 1LL * s.sockets * s.llcs_per_socket * s.cores_per_llc * s.threads_per_core;
  if (cpus > 8192) return "at most 8192 CPUs are supported";
  int nodes = s.numa_nodes == 0 ? s.sockets : s.numa_nodes;
  if (nodes < 1) return "numa_nodes must be >= 1";
  int llcs = s.sockets * s.llcs_per_socket;
  if (llcs % nodes != 0) return "numa_nodes must divide the number of LLCs";
  if (nodes < s.sockets ? s.sockets % nodes != 0 : nodes % s.sockets != 0)
    return "NUMA nodes must split sockets evenly or hold whole sockets";
  if (!s.numa_distances.empty()) {
    if (static_cast<int>(s.numa_distances.size()) != nodes)
      return "numa_distances must have one row per NUMA node";
    // Every row's length first: the symmetry check below reads row b while on row a.
    for (int a = 0; a < nodes; a++)
      if (static_cast<int>(s.numa_distances[a].size()) != nodes)
        return "numa_distances must be square";
    for (int a = 0; a < nodes; a++) {
      for (int b = 0; b < nodes; b++) {
        int d = s.numa_distances[a][b];
        if (a == b && d != 10) return "numa_distances: a node's distance to itself must be 10";
        if (a != b && (d <= 10 || d > 255))
          return "numa_distances: remote distances must be 11..255";
        if (d != s.numa_distances[b][a]) return "numa_distances must be symmetric";
      }
    }
  }
  return "";
}

Topology::Topology(const TopologySpec &spec) : spec_(spec) {
  const int t = spec.threads_per_core;
  const int llcs = spec.sockets * spec.llcs_per_socket;
  nr_cores_ = llcs * spec.cores_per_llc;
  const int n = nr_cores_ * t;
  const int nodes = spec.numa_nodes == 0 ? spec.sockets : spec.numa_nodes;
  const int llcs_per_node = llcs / nodes;
  const int cores_per_cluster = spec.cores_per_llc / spec.clusters_per_llc;
  cpus_.resize(n);
  all_ = CpuMask::all(n);
  core_masks_.assign(nr_cores_, CpuMask(n));
  cluster_masks_.assign(llcs * spec.clusters_per_llc, CpuMask(n));
  llc_masks_.assign(llcs, CpuMask(n));
  socket_masks_.assign(spec.sockets, CpuMask(n));
  node_masks_.assign(nodes, CpuMask(n));
  for (int core = 0; core < nr_cores_; core++) {
    const int llc = core / spec.cores_per_llc;
    const int cluster =
        llc * spec.clusters_per_llc + (core % spec.cores_per_llc) / cores_per_cluster;
    for (int th = 0; th < t; th++) {
      const int c = cpu_of(core, th);
      cpus_[c] = CpuInfo{llc / spec.llcs_per_socket, llc, cluster, core, th, llc / llcs_per_node};
      core_masks_[core].set(c);
      cluster_masks_[cluster].set(c);
      llc_masks_[llc].set(c);
      socket_masks_[cpus_[c].socket].set(c);
      node_masks_[cpus_[c].node].set(c);
    }
  }
  for (int core = 0; core < nr_cores_; core++)
    core_masks_[core].for_each([&](int c) { smt_cpus_.push_back(c); });
  for (int c = 0; c < n; c++)
    core_masks_[cpus_[c].core].for_each_wrap(c, [&](int s) {
      smt_wrap_.push_back(s);
      return true;
    });
  if (!spec.numa_distances.empty()) {
    distances_ = spec.numa_distances;
  } else {
    distances_.assign(nodes, std::vector<int>(nodes, 20));
    for (int i = 0; i < nodes; i++) distances_[i][i] = 10;
  }
}

int Topology::cpu_of(int core, int thread) const {
  return spec_.numbering == CpuNumbering::X86 ? thread * nr_cores_ + core
                                              : core * spec_.threads_per_core + thread;
}

}  // namespace schedlab
