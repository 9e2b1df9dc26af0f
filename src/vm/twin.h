// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// schedlab measure --vm: a scenario's configurations run on a real kernel (the twin kernel of
// scripts/build-kernel.sh) in a QEMU machine with the scenario's topology, on the seeds an
// experiment uses, with results in the experiment's schema.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "scenario/scenario.h"
#include "vm/protocol.h"

namespace schedlab::vm {

struct TwinOptions {
  std::filesystem::path kernel;      // the bzImage
  std::filesystem::path guest;       // schedlab-guest; empty: beside this executable
  std::filesystem::path workdir;     // initramfs, console log, results stream
  std::vector<std::string> configs;  // by name; empty: all
  u64 runs = 1;
  std::optional<u64> seed_base;
  std::string accel = "auto";  // auto, kvm or tcg
  std::string qemu = "qemu-system-x86_64";
  unsigned memory_mb = 1024;
  // Seconds to reach the guest's first report (boot), and the slack of each run's timeout.
  unsigned boot_timeout_s = 180, kvm_probe_s = 30;
  // Record the sched tracepoints of every run in the guest's ftrace buffer (TwinResult::traces).
  bool trace = false;
  // Called with one line of progress ("run 3 of 18: Cookie seed 2: 24.1 s").
  std::function<void(const std::string &)> progress;
};

// Where the guest could not do what was asked (exit 3) and where it failed (exit 1).
class TwinUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class TwinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TwinRun {
  std::string config;
  u64 seed = 0;
  nlohmann::ordered_json result;  // the guest's `measure` run JSON (tasks by comm)
  Schedstat schedstat;  // the run's /proc/schedstat delta, CPUs numbered as the scenario's
  nlohmann::ordered_json newidle_costs;  // per guest CPU, per domain: max_newidle_lb_cost
};

struct TwinTrace {
  std::string config;
  u64 seed = 0;
  u64 overruns = 0;  // events the guest's ring buffer dropped
  std::string text;  // the guest's trace file, CPU ids as the scenario's
};

struct TwinResult {
  experiment::ExperimentResult experiment;  // completion, forced idle, newidle and moves
  std::vector<TwinRun> runs;                // in the order they ran
  std::vector<TwinTrace> traces;            // with TwinOptions::trace
  nlohmann::ordered_json guest;             // what the guest said of itself
  nlohmann::ordered_json timing;            // its timing distortion
  std::string accel;                        // "kvm" or "tcg"
  std::vector<std::string> qemu_command;
  std::vector<std::string> warnings;
  bool interrupted = false;  // Ctrl-C: the runs before it are kept
  std::string failure;       // set when the guest stopped early (the runs before it are kept)
  bool unsupported = false;  // the failure is an exit-3 one
  double wall_s = 0;
};

// The guest's CPU id of each scenario CPU: QEMU numbers the threads of a core adjacently, core
// by core, die by die, socket by socket.
std::vector<int> guest_cpu_map(const TopologySpec &t);

// Throws TwinUnsupported when the scenario needs what the twin cannot give (a topology QEMU
// cannot build, a benchmark model, a tunable the kernel lacks), std::invalid_argument for
// bad options (an unknown configuration).
void check_twin_supported(const scenario::Scenario &s, const TwinOptions &o);

// Boots the guest and runs everything; *interrupt is polled. Throws TwinError or
// TwinUnsupported only when nothing ran; otherwise failure/unsupported say why it stopped.
TwinResult run_twin(const scenario::Scenario &s, const TwinOptions &o,
                    const std::atomic<bool> &interrupt);

// The experiment's JSON with "measured": true, the guest, its timing and per run the tasks and
// the schedstat delta.
nlohmann::ordered_json twin_to_json(const TwinResult &r);
// The experiment's table, then the twin's own (accelerator, timing, schedstat by config).
std::string twin_table(const TwinResult &r);

// An ftrace text trace with the guest's CPU ids (the "[NNN]" column, target_cpu=, orig_cpu=,
// dest_cpu=) replaced by the scenario's: unmap[guest cpu] = scenario cpu.
std::string remap_trace_cpus(const std::string &text, const std::vector<int> &unmap);

// The schedstat figures the twin reports per run (sums over CPUs and domains).
struct SchedstatSums {
  u64 ttwu_count = 0, ttwu_local = 0, sched_count = 0, sched_goidle = 0;
  u64 newidle_lb_count = 0, newidle_lb_gained = 0, newidle_lb_failed = 0, newidle_lb_balanced = 0;
  u64 lb_count = 0, lb_gained = 0, alb_pushed = 0, ttwu_wake_remote = 0, ttwu_move_affine = 0;
};
SchedstatSums schedstat_sums(const Schedstat &s);

}  // namespace schedlab::vm
