// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/run_codec.h"

#include <cstring>
#include <stdexcept>

namespace schedlab::experiment {

namespace {

void put(std::string &out, u64 v) {
  for (int i = 0; i < 8; i++) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put(std::string &out, double d) {
  u64 v;
  std::memcpy(&v, &d, sizeof v);
  put(out, v);
}
void put(std::string &out, const std::string &s) {
  put(out, static_cast<u64>(s.size()));
  out += s;
}

u64 get_u64(std::string_view &in) {
  if (in.size() < 8) throw std::runtime_error("truncated run record");
  u64 v = 0;
  for (int i = 0; i < 8; i++) v |= static_cast<u64>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(8);
  return v;
}
double get_double(std::string_view &in) {
  const u64 v = get_u64(in);
  double d;
  std::memcpy(&d, &v, sizeof d);
  return d;
}
std::string get_string(std::string_view &in) {
  const u64 n = get_u64(in);
  if (n > in.size()) throw std::runtime_error("truncated run record");
  std::string s(in.substr(0, n));
  in.remove_prefix(n);
  return s;
}
// A count that the remaining bytes could hold (each element takes at least 8).
u64 get_count(std::string_view &in) {
  const u64 n = get_u64(in);
  if (n > in.size() / 8) throw std::runtime_error("bad run record");
  return n;
}

}  // namespace

void encode_run(std::size_t item, const ExperimentRun &r, std::string &out) {
  put(out, static_cast<u64>(item));
  put(out, r.seed);
  put(out, r.completion_ns);
  put(out, r.forceidle_ns);
  put(out, r.events);
  put(out, r.stuck_tasks);
  put(out, static_cast<u64>(r.bench.size()));
  for (double d : r.bench) put(out, d);
  put(out, r.bench_expected);
  put(out, static_cast<u64>(r.vm_forceidle_ns.size()));
  for (const auto &[name, ns] : r.vm_forceidle_ns) {
    put(out, name);
    put(out, ns);
  }
  put(out, r.sis.calls);
  put(out, r.sis.idle_tests);
  for (u64 v : r.sis.by_step) put(out, v);
  put(out, r.sis.cookie_mismatch);
  for (u64 v : r.sis.cookie_mismatch_by_step) put(out, v);
  for (double d : r.stat) put(out, d);
  put(out, static_cast<u64>(r.check ? 1 : 0));
  if (r.check) {
    const observe::CheckReport &c = *r.check;
    put(out, c.violations);
    put(out, static_cast<u64>(c.first.size()));
    for (const auto &v : c.first) {
      put(out, static_cast<u64>(v.kind));
      put(out, v.time);
      for (int x : {v.cpu, v.core, v.pid}) put(out, static_cast<u64>(static_cast<std::int64_t>(x)));
      put(out, v.what);
    }
    put(out, c.wasted_threshold_ns);
    put(out, c.wasted_ns);
    put(out, c.wasted_pct);
    put(out, c.max_cookie_overlap_ns);
    put(out, c.cookie_tolerance_ns);
  }
  put(out, r.wall_s);
}

std::pair<std::size_t, ExperimentRun> decode_run(std::string_view &in) {
  ExperimentRun r;
  const auto item = static_cast<std::size_t>(get_u64(in));
  r.seed = get_u64(in);
  r.completion_ns = get_u64(in);
  r.forceidle_ns = get_u64(in);
  r.events = get_u64(in);
  r.stuck_tasks = get_u64(in);
  for (u64 n = get_count(in); n; n--) r.bench.push_back(get_double(in));
  r.bench_expected = get_u64(in);
  for (u64 n = get_count(in); n; n--) {
    std::string name = get_string(in);
    r.vm_forceidle_ns.emplace_back(std::move(name), get_u64(in));
  }
  r.sis.calls = get_u64(in);
  r.sis.idle_tests = get_u64(in);
  for (u64 &v : r.sis.by_step) v = get_u64(in);
  r.sis.cookie_mismatch = get_u64(in);
  for (u64 &v : r.sis.cookie_mismatch_by_step) v = get_u64(in);
  for (double &d : r.stat) d = get_double(in);
  if (get_u64(in)) {
    observe::CheckReport c;
    c.violations = get_u64(in);
    for (u64 n = get_count(in); n; n--) {
      observe::Violation v;
      const u64 kind = get_u64(in);
      if (kind > static_cast<u64>(observe::Violation::Kind::Task))
        throw std::runtime_error("bad run record");
      v.kind = static_cast<observe::Violation::Kind>(kind);
      v.time = get_u64(in);
      v.cpu = static_cast<int>(static_cast<std::int64_t>(get_u64(in)));
      v.core = static_cast<int>(static_cast<std::int64_t>(get_u64(in)));
      v.pid = static_cast<int>(static_cast<std::int64_t>(get_u64(in)));
      v.what = get_string(in);
      c.first.push_back(std::move(v));
    }
    c.wasted_threshold_ns = get_u64(in);
    c.wasted_ns = get_u64(in);
    c.wasted_pct = get_double(in);
    c.max_cookie_overlap_ns = get_u64(in);
    c.cookie_tolerance_ns = get_u64(in);
    r.check = std::move(c);
  }
  r.wall_s = get_double(in);
  return {item, std::move(r)};
}

}  // namespace schedlab::experiment
