// SPDX-License-Identifier: GPL-2.0-only
// schedlab measure: a scenario's workload run for real on this host.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/output.h"
#include "cli/provenance.h"
#include "experiment/experiment_report.h"
#include "machine/host_topology.h"
#include "real/calibrate.h"
#include "real/measure.h"
#include "real/measure_report.h"
#include "vm/twin.h"

namespace schedlab::cli {
namespace {

// An Unsupported message starts with "measure: " or with the scenario's file:line.
void print_unsupported(const std::string &msg) {
  std::fprintf(stderr, "schedlab %s%s\n",
               msg.rfind("measure: ", 0) == 0 ? "" : "measure: ", msg.c_str());
}

int cmd_measure(const std::string &file, const std::string &config_name,
                const std::string &runs_text, const std::string &json,
                const std::string &sysfs_root) {
  scenario::Scenario s;
  try {
    s = scenario::load_scenario(file);
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  }
  const scenario::ConfigSpec *config = nullptr;
  if (!config_name.empty() || !s.configs.empty()) {
    std::string names;
    for (const auto &c : s.configs) {
      names += (names.empty() ? "" : ", ") + c.name;
      if (c.name == config_name || (config_name.empty() && !config)) config = &c;
    }
    if (!config && !(s.configs.empty() && config_name == "default")) {
      std::fprintf(stderr, "schedlab measure: --config %s: no such configuration (%s)\n",
                   config_name.c_str(),
                   names.empty() ? "the scenario has only \"default\"" : names.c_str());
      return kExitBadInput;
    }
  }
  const std::optional<u64> runs = parse_u64(runs_text);
  if (!runs || *runs < 1 || *runs > 10000) {
    std::fprintf(stderr, "schedlab measure: --runs %s: expected an integer from 1 to 10000\n",
                 runs_text.c_str());
    return kExitBadInput;
  }

  Output json_out;
  if (!json_out.open("measure", "--json", json)) return kExitError;
  real::HostInfo host = real::probe_host(sysfs_root);
  if (!host.described)
    std::fprintf(stderr,
                 "schedlab measure: warning: this host's topology cannot be described; running "
                 "on its %d CPUs\n",
                 host.nr_cpus);
  else if (!s.host_machine && !same_machine(s.topology, host.machine))
    std::fprintf(stderr,
                 "schedlab measure: warning: the scenario's machine (%s) differs from this host "
                 "(%s); measuring on the host's\n",
                 describe(s.topology).c_str(), describe(host.machine).c_str());
  try {
    real::check_supported(s, config, host);
  } catch (const real::Unsupported &e) {
    print_unsupported(e.what());
    json_out.discard();
    return kExitUnsupported;
  }

  // From here on Ctrl-C only sets the flag: the threads stop, the partial result is printed.
  auto stop = std::make_unique<StopOnSignal>(/*sigterm=*/false);
  const std::atomic<bool> &interrupt = stop->flag();
  host.ns_per_loop = real::calibrate_ns_per_loop();
  std::vector<real::MeasureResult> results;
  int rc = 0;
  try {
    for (u64 i = 0; i < *runs && !interrupt.load(); i++) {
      results.push_back(real::run_measure(s, config, host, interrupt));
      if (*runs > 1)
        std::fprintf(text_stream(json_out.to_stdout()), "run %llu: %.3f s%s\n",
                     static_cast<unsigned long long>(i + 1),
                     static_cast<double>(results.back().completion_ns) / 1e9,
                     results.back().interrupted ? " (interrupted)" : "");
    }
  } catch (const real::Unsupported &e) {
    print_unsupported(e.what());
    rc = kExitUnsupported;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    rc = kExitError;
  }
  stop.reset();
  if (results.empty()) {
    json_out.discard();
    return rc ? rc : kExitInterrupted;
  }

  std::FILE *text = text_stream(json_out.to_stdout());
  std::fputs(real::measure_summary(results.back(), host).c_str(), text);
  for (const auto &w : results.back().warnings)
    std::fprintf(stderr, "schedlab measure: warning: %s\n", w.c_str());
  if (results.size() > 1) {
    double sum = 0;
    for (const auto &r : results) sum += static_cast<double>(r.completion_ns) / 1e9;
    std::fprintf(text, "mean completion time over %zu runs: %.3f s\n", results.size(),
                 sum / static_cast<double>(results.size()));
  }
  if (json_out.wanted()) {
    nlohmann::ordered_json j = real::measure_to_json(results, host);
    j["scenario_source"] = scenario_source_json(s.file, s.source, json);
    OptionsJson opts;
    opts.add("config", config_name).add("runs", runs_text);
    j["options"] = opts.json();
    if (int wrc = json_out.write(j.dump(2) + "\n")) return wrc;
  }
  if (rc) return rc;
  return results.back().interrupted ? kExitInterrupted : 0;
}

struct VmArgs {
  std::string kernel, accel = "auto", seed_base, csv, workdir, guest, memory = "1024";
  std::string qemu = "qemu-system-x86_64", boot_timeout = "180", trace;
};

// schedlab measure --vm: the configurations on the twin kernel in QEMU.
int cmd_measure_vm(const std::string &file, const std::vector<std::string> &configs,
                   const std::string &runs_text, const std::string &json, const VmArgs &v) {
  scenario::Scenario s;
  try {
    s = scenario::load_scenario(file);
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  }
  vm::TwinOptions o;
  o.configs = configs;
  const std::optional<u64> runs = parse_u64(runs_text);
  if (!runs || *runs < 1 || *runs > 10000) {
    std::fprintf(stderr, "schedlab measure: --runs %s: expected an integer from 1 to 10000\n",
                 runs_text.c_str());
    return kExitBadInput;
  }
  o.runs = *runs;
  if (!v.seed_base.empty()) {
    o.seed_base = parse_u64(v.seed_base);
    if (!o.seed_base) {
      std::fprintf(stderr, "schedlab measure: --seed-base %s: expected a non-negative integer\n",
                   v.seed_base.c_str());
      return kExitBadInput;
    }
  }
  if (v.kernel.empty()) {
    std::fprintf(stderr,
                 "schedlab measure: --vm needs --kernel BZIMAGE (build one with bash "
                 "scripts/build-kernel.sh)\n");
    return kExitBadInput;
  }
  if (!std::filesystem::is_regular_file(v.kernel)) {
    std::fprintf(stderr, "schedlab measure: --kernel %s: no such file\n", v.kernel.c_str());
    return kExitBadInput;
  }
  if (v.accel != "auto" && v.accel != "kvm" && v.accel != "tcg") {
    std::fprintf(stderr, "schedlab measure: --accel %s: expected auto, kvm or tcg\n",
                 v.accel.c_str());
    return kExitBadInput;
  }
  const std::optional<u64> mem = parse_u64(v.memory);
  if (!mem || *mem < 128 || *mem > 65536) {
    std::fprintf(stderr, "schedlab measure: --memory %s: expected MiB from 128 to 65536\n",
                 v.memory.c_str());
    return kExitBadInput;
  }
  const std::optional<u64> boot = parse_u64(v.boot_timeout);
  if (!boot || *boot < 1 || *boot > 86400) {
    std::fprintf(stderr, "schedlab measure: --boot-timeout %s: expected seconds from 1 to 86400\n",
                 v.boot_timeout.c_str());
    return kExitBadInput;
  }
  o.boot_timeout_s = static_cast<unsigned>(*boot);
  o.kvm_probe_s = std::min(o.kvm_probe_s, o.boot_timeout_s);
  o.qemu = v.qemu;
  o.kernel = v.kernel;
  o.accel = v.accel;
  o.guest = v.guest;
  o.memory_mb = static_cast<unsigned>(*mem);
  o.workdir = v.workdir.empty() ? std::filesystem::temp_directory_path() /
                                      ("schedlab-vm-" + std::to_string(::getpid()))
                                : std::filesystem::path(v.workdir);
  try {
    vm::check_twin_supported(s, o);
  } catch (const vm::TwinUnsupported &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    return kExitUnsupported;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    return kExitBadInput;
  }
  if (!v.trace.empty()) {
    std::set<std::string> chosen(configs.begin(), configs.end());
    const std::size_t n =
        configs.empty() ? std::max<std::size_t>(1, s.configs.size()) : chosen.size();
    if (n != 1 || o.runs != 1) {
      std::fprintf(stderr,
                   "schedlab measure: --trace records one run: choose one configuration with "
                   "--config and --runs 1\n");
      return kExitBadInput;
    }
    o.trace = true;
  }
  if (!at_most_one_stdout("measure", {{"--json", json}, {"--csv", v.csv}, {"--trace", v.trace}}))
    return kExitBadInput;
  Output json_out, csv_out, trace_out;
  if (!json_out.open("measure", "--json", json) || !csv_out.open("measure", "--csv", v.csv) ||
      !trace_out.open("measure", "--trace", v.trace))
    return kExitError;
  std::FILE *text =
      text_stream(json_out.to_stdout() || csv_out.to_stdout() || trace_out.to_stdout());
  o.progress = [](const std::string &line) {
    std::fprintf(stderr, "schedlab measure: %s\n", line.c_str());
  };

  auto stop = std::make_unique<StopOnSignal>();
  const std::atomic<bool> &interrupt = stop->flag();
  vm::TwinResult r;
  int rc = 0;
  try {
    r = vm::run_twin(s, o, interrupt);
  } catch (const vm::TwinUnsupported &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    rc = kExitUnsupported;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    rc = interrupt.load() ? kExitInterrupted : kExitError;
  }
  stop.reset();
  if (rc) {
    json_out.discard();
    csv_out.discard();
    trace_out.discard();
    std::fprintf(stderr, "schedlab measure: the guest's files are in %s\n", o.workdir.c_str());
    return rc;
  }
  std::fputs(vm::twin_table(r).c_str(), text);
  for (const std::string &w : r.warnings)
    std::fprintf(stderr, "schedlab measure: warning: %s\n", w.c_str());
  if (json_out.wanted()) {
    // What the experiment's JSON keeps of how it was made, so the twin's result reads the same.
    nlohmann::ordered_json j = vm::twin_to_json(r);
    j["scenario_source"] = scenario_source_json(s.file, s.source, json);
    OptionsJson opts;
    opts.add("config", configs)
        .add("runs", runs_text)
        .add("vm", true)
        .add("kernel", v.kernel)
        .add("accel", v.accel)
        .add("seed_base", v.seed_base)
        .add("memory", v.memory)
        .add("trace", v.trace);
    j["options"] = opts.json();
    if (int wrc = json_out.write(j.dump(2) + "\n")) return wrc;
  }
  if (csv_out.wanted())
    if (int wrc = csv_out.write(experiment::experiment_csv(r.experiment))) return wrc;
  if (trace_out.wanted()) {
    if (r.traces.empty()) {
      trace_out.discard();
    } else if (int wrc = trace_out.write(r.traces.front().text)) {
      return wrc;
    }
  }
  if (!r.failure.empty()) {
    std::fprintf(stderr, "schedlab measure: %s (the %zu complete seeds before it are kept)\n",
                 r.failure.c_str(), r.experiment.seeds.size());
    return r.unsupported ? kExitUnsupported : kExitError;
  }
  if (r.interrupted) return kExitInterrupted;
  std::error_code ec;
  if (v.workdir.empty()) std::filesystem::remove_all(o.workdir, ec);
  return 0;
}

}  // namespace

Command add_measure_command(CLI::App &app) {
  struct Args {
    std::string file, json, runs = "1", root = kDefaultSysfsRoot;
    std::vector<std::string> configs;
    bool vm = false;
    VmArgs v;
  };
  auto a = std::make_shared<Args>();
  CLI::App *cmd = app.add_subcommand(
      "measure",
      "Run a scenario's workload for real, on this host or (--vm) on the twin kernel in QEMU");
  cmd->add_option("scenario", a->file, "Scenario file (TOML)")->required()->type_name("FILE");
  cmd->add_option("--config", a->configs,
                  "Configuration to run (default: the first; with --vm: every configuration; "
                  "repeat to choose several)")
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--runs", a->runs,
                  "Repeat the run this many times (with --vm: seeds seed-base .. seed-base + N - 1 "
                  "of every configuration, as experiment runs them; default 1)")
      ->type_name("N");
  cmd->add_option("--json", a->json,
                  "Write the result as JSON to FILE, or - for stdout (the schema of run --json; "
                  "with --vm that of experiment --json)")
      ->type_name("FILE");
  cmd->add_flag("--vm", a->vm,
                "Run on a real core-scheduling kernel in QEMU with the scenario's topology "
                "(docs/vm.md)");
  cmd->add_option("--kernel", a->v.kernel,
                  "With --vm: the twin kernel's bzImage "
                  "(scripts/build-kernel.sh)")
      ->type_name("FILE");
  cmd->add_option("--accel", a->v.accel,
                  "With --vm: auto (KVM if a bounded boot shows it works, else TCG), kvm or tcg")
      ->type_name("auto|kvm|tcg");
  cmd->add_option("--seed-base", a->v.seed_base,
                  "With --vm: the first seed (default: the "
                  "scenario's)")
      ->type_name("N");
  cmd->add_option("--csv", a->v.csv, "With --vm: one row per run as CSV, to FILE or -")
      ->type_name("FILE");
  cmd->add_option("--workdir", a->v.workdir,
                  "With --vm: keep the initramfs, console log and raw results in DIR")
      ->type_name("DIR");
  cmd->add_option("--memory", a->v.memory, "With --vm: the guest's memory in MiB (default 1024)")
      ->type_name("MIB");
  cmd->add_option("--trace", a->v.trace,
                  "With --vm, one configuration and --runs 1: the guest kernel's sched events "
                  "(ftrace text, as its trace file prints them) to FILE or -")
      ->type_name("FILE");
  cmd->add_option("--qemu", a->v.qemu,
                  "With --vm: the QEMU program (default qemu-system-x86_64 on the PATH)")
      ->type_name("FILE");
  cmd->add_option("--boot-timeout", a->v.boot_timeout,
                  "With --vm: seconds the guest may take to report after QEMU starts (default "
                  "180; a KVM probe gets at most 30)")
      ->type_name("SECONDS");
  cmd->add_option("--guest", a->v.guest,
                  "With --vm: the guest program (default: schedlab-guest beside schedlab)")
      ->type_name("FILE");
  cmd->allow_extras(false);
  return {cmd, [a] {
            if (a->vm) return cmd_measure_vm(a->file, a->configs, a->runs, a->json, a->v);
            const VmArgs defaults;
            if (!a->v.kernel.empty() || a->v.accel != defaults.accel || !a->v.seed_base.empty() ||
                !a->v.csv.empty() || !a->v.workdir.empty() || a->v.memory != defaults.memory ||
                !a->v.guest.empty() || a->v.qemu != defaults.qemu ||
                a->v.boot_timeout != defaults.boot_timeout || !a->v.trace.empty()) {
              std::fprintf(stderr,
                           "schedlab measure: --kernel, --accel, --seed-base, --csv, --workdir, "
                           "--memory, --qemu, --boot-timeout, --trace and --guest need --vm\n");
              return kExitBadInput;
            }
            if (a->configs.size() > 1) {
              std::fprintf(stderr,
                           "schedlab measure: --config names one configuration on this host "
                           "(several need --vm)\n");
              return kExitBadInput;
            }
            return cmd_measure(a->file, a->configs.empty() ? "" : a->configs.front(), a->runs,
                               a->json, a->root);
          }};
}

}  // namespace schedlab::cli
