// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The host's CPU topology, read from sysfs (/sys/devices/system/cpu and .../node), turned into
// the scenario's machine description. The sysfs root is a parameter so tests can point it at
// a fake tree.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "machine/topology.h"

namespace schedlab {

inline const char *const kDefaultSysfsRoot = "/sys/devices/system";

// What sysfs says, before any interpretation.
struct HostCpu {
  int cpu = 0;
  int package = 0;
  int core_id = 0;
  int node = 0;               // the NUMA node whose cpulist holds the CPU (0 without nodes)
  std::vector<int> siblings;  // topology/thread_siblings_list
  std::vector<int> llc;       // shared_cpu_list of the highest-level data/unified cache
  int llc_level = 0;          // 0: no cache information
};

struct HostTopology {
  std::vector<HostCpu> cpus;                // the online CPUs, in id order
  std::vector<std::vector<int>> node_cpus;  // per NUMA node with CPUs
  std::vector<std::vector<int>> distances;  // between those nodes
  TopologySpec spec;                        // the machine that describes them
  std::string facts;                        // one line: the raw facts
};

// Why the host cannot be described: `malformed` is a tree that is not sysfs as the kernel
// writes it (a missing or unparsable file); otherwise the host is real but irregular in a way
// the model cannot express (different SMT widths, offline CPUs, ...).
class HostTopologyError : public std::runtime_error {
 public:
  HostTopologyError(const std::string &what, bool malformed)
      : std::runtime_error(what), malformed_(malformed) {}
  bool malformed() const { return malformed_; }

 private:
  bool malformed_;
};

// Reads ROOT/cpu and ROOT/node. Throws HostTopologyError.
HostTopology read_host_topology(const std::filesystem::path &root = kDefaultSysfsRoot);

// The [machine] TOML section (after a "# host: ..." comment line with the facts).
std::string machine_toml(const HostTopology &h);

// "1 socket x 1 LLC x 2 cores x 1 thread (2 CPUs, x86 numbering)".
std::string describe(const TopologySpec &spec);

// Whether two machine descriptions name the same machine (clusters, NUMA and numbering too).
bool same_machine(const TopologySpec &a, const TopologySpec &b);

}  // namespace schedlab
