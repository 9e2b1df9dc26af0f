// SPDX-License-Identifier: GPL-2.0-only
#include "real/schedstat.h"

#include <charconv>

namespace schedlab::real {

std::optional<u64> to_u64(std::string_view s, int base) {
  u64 v = 0;
  if (s.empty()) return std::nullopt;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') i++;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

namespace {

// /proc/schedstat's domain fields, by their kernel names: per idle type, then the others.
constexpr const char *kLb[] = {"lb_count",  "lb_balanced",   "lb_failed",  "lb_imbalance",
                               "lb_gained", "lb_hot_gained", "lb_nobusyq", "lb_nobusyg"};
constexpr const char *kOther[] = {"alb_count",        "alb_failed",       "alb_pushed",
                                  "sbe_count",        "sbe_balanced",     "sbe_pushed",
                                  "sbf_count",        "sbf_balanced",     "sbf_pushed",
                                  "ttwu_wake_remote", "ttwu_move_affine", "ttwu_move_balance"};

}  // namespace

std::map<std::string, u64> schedstat_by_name(const Schedstat &s) {
  std::map<std::string, u64> m;
  for (const SchedstatCpu &c : s.cpus) {
    m["yld_count"] += c.yld_count;
    m["sched_count"] += c.sched_count;
    m["sched_goidle"] += c.sched_goidle;
    m["ttwu_count"] += c.ttwu_count;
    m["ttwu_local"] += c.ttwu_local;
    for (const SchedstatDomain &d : c.domains) {
      for (int t = 0; t < kNrIdleTypes; t++)
        for (std::size_t f = 0; f < std::size(kLb); f++) m[kLb[f]] += d.lb[t][f];
      for (std::size_t f = 0; f < std::size(kOther); f++) m[kOther[f]] += d.other[f];
    }
  }
  return m;
}

Schedstat parse_schedstat(std::string_view text) {
  Schedstat s;
  int lineno = 0;
  auto fail = [&](const std::string &what) {
    throw SchedstatError("/proc/schedstat line " + std::to_string(lineno) + ": " + what);
  };
  auto num = [&](std::string_view w, const char *field) {
    const std::optional<u64> v = to_u64(w);
    if (!v) fail(std::string("bad ") + field + " '" + std::string(w.substr(0, 40)) + "'");
    return *v;
  };
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    lineno++;
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "version") {
      if (w.size() != 2) fail("version line");
      s.version = static_cast<int>(num(w[1], "version"));
      if (s.version < 15 || s.version > 17)
        fail("schedstat version " + std::to_string(s.version) + " is not 15, 16 or 17");
    } else if (w[0] == "timestamp") {
      if (w.size() != 2) fail("timestamp line");
      s.timestamp = num(w[1], "timestamp");
    } else if (w[0].substr(0, 3) == "cpu") {
      if (!s.version) fail("a cpu line before the version line");
      if (w.size() != 10) fail("a cpu line has " + std::to_string(w.size()) + " fields, not 10");
      SchedstatCpu c;
      c.cpu = static_cast<int>(num(w[0].substr(3), "cpu number"));
      if (c.cpu > 65535) fail("cpu number out of range");
      c.yld_count = num(w[1], "yld_count");
      c.sched_count = num(w[3], "sched_count");
      c.sched_goidle = num(w[4], "sched_goidle");
      c.ttwu_count = num(w[5], "ttwu_count");
      c.ttwu_local = num(w[6], "ttwu_local");
      c.rq_cpu_time = num(w[7], "rq_cpu_time");
      c.run_delay = num(w[8], "run_delay");
      c.pcount = num(w[9], "pcount");
      s.cpus.push_back(std::move(c));
    } else if (w[0].substr(0, 6) == "domain") {
      if (s.cpus.empty()) fail("a domain line before any cpu line");
      SchedstatDomain d;
      d.level = static_cast<int>(num(w[0].substr(6), "domain number"));
      const bool named = s.version >= 17;
      const std::size_t per_type = named ? 11 : 8;
      const std::size_t want = 2 + (named ? 1 : 0) + kNrIdleTypes * per_type + 12;
      if (w.size() != want)
        fail("a domain line has " + std::to_string(w.size()) + " fields, not " +
             std::to_string(want));
      std::size_t i = 1;
      if (named) d.name = std::string(w[i++]);
      d.span = std::string(w[i++]);
      for (int t = 0; t < kNrIdleTypes; t++) {
        std::array<u64, 11> f{};
        for (std::size_t k = 0; k < per_type; k++) f[k] = num(w[i++], "balance counter");
        if (named) {  // count, balanced, failed, 4 x imbalance, gained, hot, nobusyq, nobusyg
          d.lb[t] = {f[0], f[1], f[2], f[3] + f[4] + f[5] + f[6], f[7], f[8], f[9], f[10]};
        } else {
          for (std::size_t k = 0; k < 8; k++) d.lb[t][k] = f[k];
        }
      }
      for (std::size_t k = 0; k < 12; k++) d.other[k] = num(w[i++], "balance counter");
      s.cpus.back().domains.push_back(std::move(d));
    } else {
      fail("unknown line '" + std::string(line.substr(0, 40)) + "'");
    }
  }
  if (!s.version) throw SchedstatError("/proc/schedstat: no version line");
  return s;
}

Schedstat schedstat_delta(const Schedstat &before, const Schedstat &after) {
  auto d = [](u64 a, u64 b) { return b >= a ? b - a : 0; };
  if (before.cpus.size() != after.cpus.size())
    throw SchedstatError("/proc/schedstat: the CPUs changed during the run");
  Schedstat out = after;
  out.timestamp = d(before.timestamp, after.timestamp);
  for (std::size_t i = 0; i < out.cpus.size(); i++) {
    const SchedstatCpu &b = before.cpus[i];
    SchedstatCpu &o = out.cpus[i];
    if (b.cpu != o.cpu || b.domains.size() != o.domains.size())
      throw SchedstatError("/proc/schedstat: the sched domains of cpu" + std::to_string(o.cpu) +
                           " changed during the run");
    o.yld_count = d(b.yld_count, o.yld_count);
    o.sched_count = d(b.sched_count, o.sched_count);
    o.sched_goidle = d(b.sched_goidle, o.sched_goidle);
    o.ttwu_count = d(b.ttwu_count, o.ttwu_count);
    o.ttwu_local = d(b.ttwu_local, o.ttwu_local);
    o.rq_cpu_time = d(b.rq_cpu_time, o.rq_cpu_time);
    o.run_delay = d(b.run_delay, o.run_delay);
    o.pcount = d(b.pcount, o.pcount);
    for (std::size_t k = 0; k < o.domains.size(); k++) {
      SchedstatDomain &od = o.domains[k];
      const SchedstatDomain &bd = b.domains[k];
      if (bd.span != od.span)
        throw SchedstatError("/proc/schedstat: the sched domains of cpu" + std::to_string(o.cpu) +
                             " changed during the run");
      for (int t = 0; t < kNrIdleTypes; t++)
        for (std::size_t f = 0; f < 8; f++) od.lb[t][f] = d(bd.lb[t][f], od.lb[t][f]);
      for (std::size_t f = 0; f < 12; f++) od.other[f] = d(bd.other[f], od.other[f]);
    }
  }
  return out;
}

nlohmann::ordered_json schedstat_cpus_json(const Schedstat &s) {
  using nlohmann::ordered_json;
  ordered_json cpus = ordered_json::array();
  static const char *const kTypes[] = {"busy", "idle", "newidle"};
  for (const SchedstatCpu &c : s.cpus) {
    ordered_json jc;
    jc["cpu"] = c.cpu;
    jc["yld_count"] = c.yld_count;
    jc["sched_count"] = c.sched_count;
    jc["sched_goidle"] = c.sched_goidle;
    jc["ttwu_count"] = c.ttwu_count;
    jc["ttwu_local"] = c.ttwu_local;
    jc["rq_cpu_time_ns"] = c.rq_cpu_time;
    jc["run_delay_ns"] = c.run_delay;
    jc["pcount"] = c.pcount;
    ordered_json doms = ordered_json::array();
    for (const SchedstatDomain &d : c.domains) {
      ordered_json jd;
      jd["level"] = d.level;
      for (int t = 0; t < kNrIdleTypes; t++) {
        ordered_json lt;
        for (int f = 0; f < 8; f++) lt[kLb[f]] = d.lb[t][f];
        jd[kTypes[t]] = std::move(lt);
      }
      for (int f = 0; f < 12; f++) jd[kOther[f]] = d.other[f];
      doms.push_back(std::move(jd));
    }
    jc["domains"] = std::move(doms);
    cpus.push_back(std::move(jc));
  }
  return cpus;
}

}  // namespace schedlab::real
