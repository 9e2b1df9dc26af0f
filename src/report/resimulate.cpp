// SPDX-License-Identifier: GPL-2.0-only
#include "report/resimulate.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiment/sha256.h"
#include "observe/timeline_recorder.h"

namespace schedlab::report {

namespace fs = std::filesystem;

ResultFile read_result(const std::string &path) {
  ResultFile r;
  r.path = path;
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  r.json = nlohmann::json::parse(ss.str(), nullptr, false);
  if (r.json.is_discarded()) throw InputError(path + ": not valid JSON");
  if (!r.json.is_object()) throw InputError(path + ": not a schedlab result (expected an object)");
  r.sweep = r.json.contains("params") && r.json.contains("points");
  if (r.sweep) return r;
  r.experiment = r.json.contains("configs") && r.json.contains("seeds");
  if (!r.experiment && !(r.json.contains("config") && r.json.contains("seed")))
    throw InputError(path +
                     ": not a result of 'schedlab run --json', 'schedlab experiment --json' or "
                     "'schedlab sweep --json'");
  if (const auto src = r.json.find("scenario_source"); src != r.json.end()) {
    // The copy the run was made from: the file is looked up beside the result only to say
    // whether it still holds that scenario.
    try {
      r.scenario_text = src->at("text").get<std::string>();
      const std::string sha = src->at("sha256").get<std::string>();
      const fs::path p = src->at("path").get<std::string>();
      if (experiment::sha256_hex(r.scenario_text) != sha)
        throw InputError(path +
                         ": scenario_source: the text does not match its sha256 (the result "
                         "was edited)");
      const fs::path resolved =
          (p.is_relative() ? fs::path(path).parent_path() / p : p).lexically_normal();
      r.scenario_file = resolved.string();
      r.embedded = true;
      std::ifstream disk(resolved, std::ios::binary);
      if (disk) {
        std::stringstream text;
        text << disk.rdbuf();
        if (experiment::sha256_hex(text.str()) != sha)
          r.warning = r.scenario_file + " differs from the scenario " + path +
                      " was made from (sha256); using the copy embedded in " + path;
      }
    } catch (const nlohmann::json::exception &) {
      throw InputError(path + ": malformed scenario_source (path, sha256 and text are strings)");
    }
    return r;
  }
  const auto it = r.json.find("scenario_file");
  if (it == r.json.end() || !it->is_string() || it->get<std::string>().empty())
    throw InputError(path +
                     ": no \"scenario_file\" (results written before it existed lack it: "
                     "rerun, or pass the scenario file instead)");
  const std::string file = it->get<std::string>();
  std::error_code ec;
  if (fs::exists(file, ec)) {
    r.scenario_file = file;
  } else if (const fs::path beside = fs::path(path).parent_path() / file;
             fs::path(file).is_relative() && fs::exists(beside, ec)) {
    r.scenario_file = beside.string();
  } else {
    throw InputError(path + ": scenario_file " + file + " no longer exists");
  }
  return r;
}

RunChoice choose_run(const ResultFile &r, const std::optional<std::string> &config,
                     const std::optional<u64> &seed) {
  RunChoice c;
  const auto &j = r.json;
  try {
    if (r.experiment) {
      const auto &configs = j.at("configs");
      const auto &seeds = j.at("seeds");
      if (configs.empty() || seeds.empty())
        throw InputError(r.path + ": the experiment has no runs");
      c.config = configs.at(0).at("name").get<std::string>();
      c.seed = seeds.at(0).get<u64>();
      // The kernel switches the command line set in every configuration.
      if (const auto o = j.find("options"); o != j.end() && o->is_object()) {
        for (const char *key : {"feature", "tunable"})
          if (o->contains(key))
            for (const auto &v : o->at(key))
              (key[0] == 'f' ? c.features : c.tunables).push_back(v.get<std::string>());
        if (o->contains("param"))
          for (const auto &v : o->at("param")) {
            const std::string p = v.get<std::string>();
            for (auto [prefix, out] : {std::pair{"kernel.features.", &c.features},
                                       std::pair{"kernel.tunables.", &c.tunables}})
              if (p.rfind(prefix, 0) == 0) out->push_back(p.substr(std::string(prefix).size()));
          }
      }
    } else {
      c.config = j.at("config").get<std::string>();
      c.seed = j.at("seed").get<u64>();
      // The settings the run had, whatever set them (configuration or command line).
      if (!config && j.contains("kernel")) {
        const auto &k = j.at("kernel");
        if (k.contains("features"))
          for (const auto &[name, on] : k.at("features").items())
            c.features.push_back(name + "=" + (on.get<bool>() ? "true" : "false"));
        if (k.contains("tunables"))
          for (const auto &[name, v] : k.at("tunables").items())
            c.tunables.push_back(name + "=" + std::to_string(v.get<long long>()));
      }
    }
  } catch (const nlohmann::json::exception &) {
    throw InputError(r.path + ": malformed result (config, seed or kernel fields)");
  }
  if (config) c.config = *config;
  if (seed) c.seed = *seed;
  return c;
}

namespace {

// The scenario `load` gives, with the configuration and seed chosen; bad input is InputError.
template <class Load>
Rerun prepare_with(Load load, const RunChoice &c) {
  Rerun r;
  try {
    r.scenario = load();
    r.config = scenario::choose_config(r.scenario, c.config, c.features, c.tunables);
  } catch (const scenario::ScenarioError &e) {
    throw InputError(e.what());
  } catch (const std::invalid_argument &e) {
    throw InputError(e.what());
  }
  r.seed = c.seed;
  return r;
}

}  // namespace

Rerun prepare_rerun(const std::string &scenario_file, const RunChoice &c) {
  return prepare_with([&] { return scenario::load_scenario(scenario_file); }, c);
}

Rerun prepare_rerun(const ResultFile &f, const RunChoice &c) {
  if (!f.embedded) return prepare_rerun(f.scenario_file, c);
  return prepare_with(
      [&] { return scenario::load_scenario_text(f.scenario_text, f.scenario_file); }, c);
}

observe::Timeline rerun_timeline(const Rerun &r, Time from, Time to, const std::vector<int> &cpus,
                                 std::size_t limit, bool util) {
  scenario::Scenario s = r.scenario;
  if (s.duration_ns == 0 || s.duration_ns > to) s.duration_ns = to;
  engine::Simulation sim(s, r.config.name, r.config.kernel, r.seed);
  for (int c : cpus)
    if (c < 0 || c >= sim.kernel().nr_cpu_ids())
      throw InputError("--cpus: cpu " + std::to_string(c) + " does not exist (" +
                       std::to_string(sim.kernel().nr_cpu_ids()) + " CPUs)");
  observe::TimelineRecorder rec(sim.kernel().topology(), from, to, cpus, limit, util);
  sim.add_tracer(&rec);
  const engine::RunResult res = sim.run();
  return rec.finish(res.metrics.end_ns);
}

namespace {
// Notes when forced idle first starts at or after a given time.
class ForceIdleFinder : public kernel::TraceSink {
 public:
  explicit ForceIdleFinder(Time after) : after_(after) {}
  void sched_forceidle(Time now, int, bool on) override {
    if (on && now >= after_ && first_ == kTimeNever) first_ = now;
  }
  Time first() const { return first_; }

 private:
  Time after_, first_ = kTimeNever;
};
}  // namespace

LatencyRerun rerun_latency(const Rerun &r, Time forceidle_after) {
  engine::Simulation sim(r.scenario, r.config.name, r.config.kernel, r.seed);
  ForceIdleFinder finder(forceidle_after);
  sim.add_tracer(&finder);
  const engine::RunResult res = sim.run();
  LatencyRerun out;
  out.wakeup_latency = res.metrics.wakeup_latency;
  out.first_forceidle = finder.first();
  out.end = res.metrics.end_ns;
  return out;
}

Window representative_window(Time first_forceidle, Time end, Time length) {
  Window w;
  w.from = end > kRepresentativeAfter + length ? kRepresentativeAfter : 0;
  if (first_forceidle != kTimeNever && first_forceidle + length <= end) {
    w.from = first_forceidle / NSEC_PER_MSEC * NSEC_PER_MSEC -
             (first_forceidle >= 2 * NSEC_PER_MSEC ? 2 * NSEC_PER_MSEC : 0);
    w.at_forceidle = true;
  }
  w.to = w.from + length;
  return w;
}

}  // namespace schedlab::report
