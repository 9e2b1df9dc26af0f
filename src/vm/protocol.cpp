// SPDX-License-Identifier: GPL-2.0-only
#include "vm/protocol.h"

#include <charconv>
#include <cstdio>

namespace schedlab::vm {

namespace {

constexpr std::string_view kMagic = "@SCHEDLAB ";

std::optional<u64> to_u64(std::string_view s, int base = 10) {
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

}  // namespace

u64 fnv1a64(std::string_view bytes) {
  u64 h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string make_frame(std::string_view kind, std::string_view payload) {
  char head[96];
  std::snprintf(head, sizeof head, " %.*s %zu %016llx\n", static_cast<int>(kind.size()),
                kind.data(), payload.size(), static_cast<unsigned long long>(fnv1a64(payload)));
  // A newline first, so a frame starts a line whatever came before it.
  std::string out = "\n@SCHEDLAB";
  out.append(head).append(payload).push_back('\n');
  return out;
}

void FrameReader::feed(std::string_view bytes) {
  buf_.append(bytes);
  parse();
}

void FrameReader::parse() {
  for (;;) {
    const std::size_t at = buf_.find(kMagic);
    if (at == std::string::npos) {
      // Keep a tail that may be the start of the magic; the rest is noise.
      const std::size_t keep = std::min(buf_.size(), kMagic.size() - 1);
      noise_ += buf_.size() - keep;
      buf_.erase(0, buf_.size() - keep);
      return;
    }
    noise_ += at;
    buf_.erase(0, at);
    const std::size_t eol = buf_.find('\n');
    if (eol == std::string::npos) {
      if (buf_.size() > 200) throw ProtocolError("a frame header has no end of line");
      return;
    }
    const std::vector<std::string_view> w =
        words(std::string_view(buf_).substr(kMagic.size(), eol - kMagic.size()));
    if (w.size() != 3)
      throw ProtocolError("a frame header does not have kind, length and checksum");
    for (char c : w[0])
      if (!((c >= 'a' && c <= 'z') || c == '_'))
        throw ProtocolError("a frame header has a bad kind '" + std::string(w[0]) + "'");
    const std::optional<u64> len = to_u64(w[1]);
    const std::optional<u64> sum = w[2].size() == 16 ? to_u64(w[2], 16) : std::nullopt;
    if (!len || *len > kMaxPayload)
      throw ProtocolError("frame '" + std::string(w[0]) + "' has a bad length");
    if (!sum) throw ProtocolError("frame '" + std::string(w[0]) + "' has a bad checksum field");
    const std::size_t start = eol + 1;
    if (buf_.size() < start + *len + 1) return;  // not all here yet
    std::string payload = buf_.substr(start, *len);
    if (fnv1a64(payload) != *sum || buf_[start + *len] != '\n')
      throw ProtocolError("frame '" + std::string(w[0]) + "' of " + std::to_string(*len) +
                          " bytes is corrupt (checksum mismatch)");
    ready_.push_back({std::string(w[0]), std::move(payload)});
    buf_.erase(0, start + *len + 1);
  }
}

std::optional<Frame> FrameReader::next() {
  if (ready_pos_ >= ready_.size()) return std::nullopt;
  Frame f = std::move(ready_[ready_pos_++]);
  if (ready_pos_ == ready_.size()) {
    ready_.clear();
    ready_pos_ = 0;
  }
  return f;
}

Schedstat parse_schedstat(std::string_view text) {
  Schedstat s;
  int lineno = 0;
  auto fail = [&](const std::string &what) {
    throw ProtocolError("/proc/schedstat line " + std::to_string(lineno) + ": " + what);
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
  if (!s.version) throw ProtocolError("/proc/schedstat: no version line");
  return s;
}

Schedstat schedstat_delta(const Schedstat &before, const Schedstat &after) {
  auto d = [](u64 a, u64 b) { return b >= a ? b - a : 0; };
  if (before.cpus.size() != after.cpus.size())
    throw ProtocolError("/proc/schedstat: the CPUs changed during the run");
  Schedstat out = after;
  out.timestamp = d(before.timestamp, after.timestamp);
  for (std::size_t i = 0; i < out.cpus.size(); i++) {
    const SchedstatCpu &b = before.cpus[i];
    SchedstatCpu &o = out.cpus[i];
    if (b.cpu != o.cpu || b.domains.size() != o.domains.size())
      throw ProtocolError("/proc/schedstat: the sched domains of cpu" + std::to_string(o.cpu) +
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
        throw ProtocolError("/proc/schedstat: the sched domains of cpu" + std::to_string(o.cpu) +
                            " changed during the run");
      for (int t = 0; t < kNrIdleTypes; t++)
        for (std::size_t f = 0; f < 8; f++) od.lb[t][f] = d(bd.lb[t][f], od.lb[t][f]);
      for (std::size_t f = 0; f < 12; f++) od.other[f] = d(bd.other[f], od.other[f]);
    }
  }
  return out;
}

}  // namespace schedlab::vm
