// SPDX-License-Identifier: GPL-2.0-only
#include "machine/host_topology.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace schedlab {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void malformed(const fs::path &file, const std::string &why) {
  throw HostTopologyError(file.string() + ": " + why, true);
}

[[noreturn]] void inexpressible(const std::string &why) {
  throw HostTopologyError("the host's topology cannot be expressed as a machine: " + why, false);
}

std::string read_line(const fs::path &file) {
  std::ifstream in(file);
  if (!in) malformed(file, "cannot read");
  std::string line;
  std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

bool path_exists(const fs::path &p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

int read_int(const fs::path &file) {
  const std::string s = read_line(file);
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used == 0 || used != s.size()) malformed(file, "expected an integer, got '" + s + "'");
  return v;
}

// The kernel's cpulist format ("0-3,8"), as sysfs writes it; empty is an empty list.
std::vector<int> read_list(const fs::path &file) {
  const std::string s = read_line(file);
  std::set<int> out;
  std::stringstream ss(s);
  std::string item;
  while (!s.empty() && std::getline(ss, item, ',')) {
    const auto dash = item.find('-');
    try {
      std::size_t used = 0;
      const int lo = std::stoi(item.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? item.size() : dash)) throw std::exception();
      int hi = lo;
      if (dash != std::string::npos) {
        const std::string rest = item.substr(dash + 1);
        hi = std::stoi(rest, &used);
        if (used != rest.size()) throw std::exception();
      }
      if (lo < 0 || hi < lo || hi - lo > 65535) throw std::exception();
      for (int c = lo; c <= hi; c++) out.insert(c);
    } catch (const std::exception &) {
      malformed(file, "expected a cpulist such as 0-3,8, got '" + s + "'");
    }
  }
  return {out.begin(), out.end()};
}

std::string list_str(const std::vector<int> &v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) j++;
    if (!out.empty()) out += ",";
    out += std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

// Node directories ROOT/node/nodeN, by N.
std::map<int, fs::path> node_dirs(const fs::path &root) {
  std::map<int, fs::path> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(root / "node", ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.rfind("node", 0) == 0 &&
        std::all_of(name.begin() + 4, name.end(), [](char c) { return std::isdigit(c); }))
      out.emplace(std::stoi(name.substr(4)), e.path());
  }
  return out;
}

void read_cpu(const fs::path &dir, HostCpu &c) {
  c.package = read_int(dir / "topology" / "physical_package_id");
  c.core_id = read_int(dir / "topology" / "core_id");
  c.siblings = read_list(dir / "topology" / "thread_siblings_list");
  if (std::find(c.siblings.begin(), c.siblings.end(), c.cpu) == c.siblings.end())
    malformed(dir / "topology" / "thread_siblings_list",
              "does not contain cpu" + std::to_string(c.cpu) + " itself");
  // The last-level cache: the highest level that holds data (instruction caches never are).
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir / "cache", ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    if (read_line(e.path() / "type") == "Instruction") continue;
    const int level = read_int(e.path() / "level");
    if (level > c.llc_level) {
      c.llc_level = level;
      c.llc = read_list(e.path() / "shared_cpu_list");
    }
  }
}

std::vector<std::vector<int>> distance_rows(const std::vector<fs::path> &dirs) {
  std::vector<std::vector<int>> rows;
  for (const fs::path &d : dirs) {
    std::stringstream ss(read_line(d / "distance"));
    auto &row = rows.emplace_back();
    int v = 0;
    while (ss >> v) row.push_back(v);
    if (!ss.eof()) malformed(d / "distance", "expected integers separated by spaces");
  }
  return rows;
}

// Whether the machine `spec` numbers its CPUs exactly as the host does.
bool numbering_matches(const TopologySpec &spec, const HostTopology &h,
                       const std::map<int, std::vector<int>> &package_cpus) {
  const Topology t(spec);
  if (t.nr_cpus() != static_cast<int>(h.cpus.size())) return false;
  auto mask = [&](const std::vector<int> &v) {
    CpuMask m(t.nr_cpus());
    for (int c : v) m.set(c);
    return m;
  };
  for (const HostCpu &c : h.cpus) {
    if (!(t.smt_mask(c.cpu) == mask(c.siblings))) return false;
    if (!(t.llc_mask(c.cpu) == mask(c.llc))) return false;
    if (!(t.socket_mask(c.cpu) == mask(package_cpus.at(c.package)))) return false;
    if (!h.node_cpus.empty() && !(t.node_mask(t.cpu(c.cpu).node) == mask(h.node_cpus[c.node])))
      return false;
  }
  return true;
}

}  // namespace

HostTopology read_host_topology(const fs::path &root) {
  HostTopology h;
  const fs::path cpu_root = root / "cpu";
  const std::vector<int> online = read_list(cpu_root / "online");
  if (online.empty()) malformed(cpu_root / "online", "no CPU is online");
  if (path_exists(cpu_root / "present")) {
    const std::vector<int> present = read_list(cpu_root / "present");
    std::vector<int> offline;
    std::set_difference(present.begin(), present.end(), online.begin(), online.end(),
                        std::back_inserter(offline));
    if (!offline.empty())
      inexpressible("CPUs " + list_str(offline) + " are offline (online: " + list_str(online) +
                    ", present: " + list_str(present) +
                    "); the model has no offline CPUs, bring them online or describe the "
                    "machine by hand");
  }
  if (online.back() != static_cast<int>(online.size()) - 1)
    inexpressible("the online CPUs " + list_str(online) +
                  " leave holes; the model numbers its CPUs 0..N-1");

  for (int c : online) {
    HostCpu &hc = h.cpus.emplace_back();
    hc.cpu = c;
    read_cpu(cpu_root / ("cpu" + std::to_string(c)), hc);
  }

  // Packages, in id order, become sockets 0, 1, ...
  std::map<int, std::vector<int>> package_cpus;
  for (const HostCpu &c : h.cpus) package_cpus[c.package].push_back(c.cpu);
  for (HostCpu &c : h.cpus)
    if (c.llc.empty()) c.llc = package_cpus[c.package];  // no cache information: one per package

  // Every core must have the same number of threads, and siblings must agree with each other.
  const HostCpu &first = h.cpus.front();
  for (const HostCpu &c : h.cpus) {
    if (c.siblings.size() != first.siblings.size())
      inexpressible("cpu" + std::to_string(first.cpu) + " has " +
                    std::to_string(first.siblings.size()) + " SMT thread(s) (" +
                    list_str(first.siblings) + ") but cpu" + std::to_string(c.cpu) + " has " +
                    std::to_string(c.siblings.size()) + " (" + list_str(c.siblings) +
                    "); the model gives every core the same number of threads");
    for (int s : c.siblings) {
      if (s >= static_cast<int>(h.cpus.size()))
        inexpressible("cpu" + std::to_string(c.cpu) + "'s sibling cpu" + std::to_string(s) +
                      " is not online");
      const HostCpu &o = h.cpus[static_cast<std::size_t>(s)];
      if (o.siblings != c.siblings || o.package != c.package || o.llc != c.llc)
        inexpressible("cpu" + std::to_string(c.cpu) + " and its sibling cpu" + std::to_string(s) +
                      " disagree on their siblings, package or last-level cache");
    }
  }
  // LLCs: each inside one package, the same number per package, the same size each.
  std::map<std::vector<int>, int> llc_package;
  for (const HostCpu &c : h.cpus) {
    auto [it, fresh] = llc_package.emplace(c.llc, c.package);
    if (!fresh && it->second != c.package)
      inexpressible("the cache shared by CPUs " + list_str(c.llc) + " spans two packages");
    for (int s : c.llc)
      if (s >= static_cast<int>(h.cpus.size()) || h.cpus[static_cast<std::size_t>(s)].llc != c.llc)
        inexpressible("cpu" + std::to_string(c.cpu) + " and cpu" + std::to_string(s) +
                      " disagree on which CPUs share their last-level cache");
  }
  std::map<int, int> llcs_of_package;
  for (const auto &[llc, pkg] : llc_package) llcs_of_package[pkg]++;
  const int threads = static_cast<int>(first.siblings.size());
  const int llc_size = static_cast<int>(first.llc.size());
  for (const auto &[llc, pkg] : llc_package) {
    if (llcs_of_package[pkg] != llcs_of_package.begin()->second)
      inexpressible("package " + std::to_string(pkg) + " has " +
                    std::to_string(llcs_of_package[pkg]) + " last-level cache(s) and package " +
                    std::to_string(llcs_of_package.begin()->first) + " has " +
                    std::to_string(llcs_of_package.begin()->second));
    if (static_cast<int>(llc.size()) != llc_size)
      inexpressible("the last-level caches differ in size (" + list_str(first.llc) + " and " +
                    list_str(llc) + ")");
  }

  TopologySpec &spec = h.spec;
  spec.sockets = static_cast<int>(package_cpus.size());
  spec.llcs_per_socket = llcs_of_package.begin()->second;
  spec.threads_per_core = threads;
  spec.cores_per_llc = llc_size / threads;

  // NUMA: the nodes that have CPUs (memory-only nodes have no place in the model).
  std::vector<fs::path> cpu_nodes;
  for (const auto &[id, dir] : node_dirs(root)) {
    std::vector<int> cpus = read_list(dir / "cpulist");
    if (cpus.empty()) continue;
    for (int c : cpus) {
      if (c >= static_cast<int>(h.cpus.size())) continue;
      h.cpus[static_cast<std::size_t>(c)].node = static_cast<int>(h.node_cpus.size());
    }
    std::erase_if(cpus, [&](int c) { return c >= static_cast<int>(h.cpus.size()); });
    h.node_cpus.push_back(cpus);
    cpu_nodes.push_back(dir);
  }
  if (!cpu_nodes.empty()) {
    // Keep the distances between CPU nodes only: columns are indexed by node id.
    std::vector<int> ids;
    for (const auto &[id, dir] : node_dirs(root))
      if (std::find(cpu_nodes.begin(), cpu_nodes.end(), dir) != cpu_nodes.end()) ids.push_back(id);
    const auto rows = distance_rows(cpu_nodes);
    std::size_t all_nodes = node_dirs(root).size();
    for (std::size_t i = 0; i < rows.size(); i++) {
      if (rows[i].size() != all_nodes)
        malformed(cpu_nodes[i] / "distance", "expected " + std::to_string(all_nodes) +
                                                 " distances (one per node), got " +
                                                 std::to_string(rows[i].size()));
      auto &row = h.distances.emplace_back();
      std::size_t col = 0;
      for (const auto &[id, dir] : node_dirs(root)) {
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) row.push_back(rows[i][col]);
        col++;
      }
    }
    bool one_per_socket = h.node_cpus.size() == package_cpus.size();
    if (one_per_socket)
      for (const auto &n : h.node_cpus) {
        const int pkg = h.cpus[static_cast<std::size_t>(n.front())].package;
        if (n != package_cpus[pkg]) one_per_socket = false;
      }
    if (!one_per_socket) spec.numa_nodes = static_cast<int>(h.node_cpus.size());
    bool default_distances = true;
    for (std::size_t i = 0; i < h.distances.size(); i++)
      for (std::size_t j = 0; j < h.distances[i].size(); j++)
        default_distances &= h.distances[i][j] == (i == j ? 10 : 20);
    if (!default_distances && h.distances.size() >= 2) spec.numa_distances = h.distances;
  }

  if (std::string why = validate(spec); !why.empty()) inexpressible(why);
  bool numbered = false;
  for (CpuNumbering n : {CpuNumbering::X86, CpuNumbering::Adjacent}) {
    spec.numbering = n;
    if (numbering_matches(spec, h, package_cpus)) {
      numbered = true;
      break;
    }
  }
  if (!numbered)
    inexpressible("the CPU ids follow neither the x86 nor the adjacent numbering (cpu" +
                  std::to_string(first.cpu) + "'s siblings are " + list_str(first.siblings) +
                  ", its last-level cache " + list_str(first.llc) +
                  "), or NUMA nodes do not follow sockets and caches");

  h.facts = "online " + list_str(online) + "; " + std::to_string(package_cpus.size()) +
            " package(s); cpu0: core_id " + std::to_string(first.core_id) + ", thread_siblings " +
            list_str(first.siblings) + ", ";
  h.facts += first.llc_level
                 ? "L" + std::to_string(first.llc_level) + " shared by " + list_str(first.llc)
                 : std::string("no cache information (one LLC per package)");
  h.facts += h.node_cpus.empty()
                 ? std::string("; no NUMA information")
                 : "; " + std::to_string(h.node_cpus.size()) + " NUMA node(s) with CPUs";
  for (std::size_t i = 0; i < h.node_cpus.size(); i++)
    h.facts += (i ? ", " : ": ") + list_str(h.node_cpus[i]);
  return h;
}

std::string machine_toml(const HostTopology &h) {
  const TopologySpec &s = h.spec;
  std::string out = "# host: " + h.facts + "\n[machine]\n";
  out += "sockets = " + std::to_string(s.sockets) + "\n";
  out += "llcs_per_socket = " + std::to_string(s.llcs_per_socket) + "\n";
  out += "clusters_per_llc = " + std::to_string(s.clusters_per_llc) + "\n";
  out += "cores_per_llc = " + std::to_string(s.cores_per_llc) + "\n";
  out += "threads_per_core = " + std::to_string(s.threads_per_core) + "\n";
  out += std::string("numbering = \"") + (s.numbering == CpuNumbering::X86 ? "x86" : "adjacent") +
         "\"\n";
  out += "numa_nodes = " + std::to_string(s.numa_nodes) + "\n";
  if (!s.numa_distances.empty()) {
    out += "numa_distances = [";
    for (std::size_t i = 0; i < s.numa_distances.size(); i++) {
      out += i ? ", [" : "[";
      for (std::size_t j = 0; j < s.numa_distances[i].size(); j++)
        out += (j ? ", " : "") + std::to_string(s.numa_distances[i][j]);
      out += "]";
    }
    out += "]\n";
  }
  return out;
}

std::string describe(const TopologySpec &s) {
  return std::to_string(s.nr_cpus()) + " CPUs = " + std::to_string(s.sockets) + " socket(s) x " +
         std::to_string(s.llcs_per_socket) + " LLC(s) x " + std::to_string(s.cores_per_llc) +
         " cores x " + std::to_string(s.threads_per_core) + " thread(s)";
}

bool same_machine(const TopologySpec &a, const TopologySpec &b) {
  auto dist = [](const TopologySpec &s) {
    if (!s.numa_distances.empty()) return s.numa_distances;
    const int n = s.numa_nodes ? s.numa_nodes : s.sockets;
    std::vector<std::vector<int>> d(static_cast<std::size_t>(n),
                                    std::vector<int>(static_cast<std::size_t>(n), 20));
    for (std::size_t i = 0; i < d.size(); i++) d[i][i] = 10;
    return d;
  };
  const bool smt = a.threads_per_core > 1;  // without SMT the numberings coincide
  return a.sockets == b.sockets && a.llcs_per_socket == b.llcs_per_socket &&
         a.clusters_per_llc == b.clusters_per_llc && a.cores_per_llc == b.cores_per_llc &&
         a.threads_per_core == b.threads_per_core && (!smt || a.numbering == b.numbering) &&
         (a.numa_nodes ? a.numa_nodes : a.sockets) == (b.numa_nodes ? b.numa_nodes : b.sockets) &&
         dist(a) == dist(b);
}

}  // namespace schedlab
