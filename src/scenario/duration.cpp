// SPDX-License-Identifier: GPL-2.0-only
// The small string languages inside scenario values: durations, distributions, cpulists.
// Everything is parsed by hand into integers so that "1.5us" is exactly 1500 ns, with no
// floating-point rounding that could differ between machines.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace schedlab::scenario {

namespace {

// Durations stay within s64 so the kernel model can take differences of times without care.
constexpr Time kMaxDuration = static_cast<Time>(std::numeric_limits<std::int64_t>::max());

// Far above any machine topology::validate() accepts, low enough that a typo such as
// "0-4000000000" cannot make us allocate gigabytes before the machine check rejects it.
constexpr int kMaxCpuNumber = 1 << 20;
// The limit, named so that a user knows how far a duration may go (docs/limits.md).
constexpr const char *kTooLarge =
    "too large (at most 9223372036.854775807s, 2^63-1 ns: about 292 years)";

bool is_space(char c) {
  return c == ' ' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view take_digits(std::string_view &s) {
  size_t n = 0;
  while (n < s.size() && is_digit(s[n])) n++;
  std::string_view digits = s.substr(0, n);
  s.remove_prefix(n);
  return digits;
}

void set(std::string *why, std::string msg) {
  if (why) *why = std::move(msg);
}

}  // namespace

std::optional<Time> parse_duration(std::string_view text, std::string *why) {
  const std::string_view s0 = trim(text);
  auto bad = [&](std::string_view reason) -> std::optional<Time> {
    set(why, fmt::format("bad duration '{}': {}", text, reason));
    return std::nullopt;
  };
  constexpr std::string_view kExpected = "expected a number and a unit (ns, us, ms, s)";
  if (!s0.empty() && s0.front() == '-') return bad("must not be negative");

  std::string_view s = s0;
  const std::string_view whole = take_digits(s);
  if (whole.empty()) return bad(kExpected);
  std::string_view frac;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    frac = take_digits(s);
    if (frac.empty()) return bad(kExpected);
  }
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);

  const bool zero = whole.find_first_not_of('0') == std::string_view::npos &&
                    frac.find_first_not_of('0') == std::string_view::npos;
  Time unit = 0;
  int unit_digits = 0;  // log10(unit): how many fraction digits stay whole nanoseconds
  if (s == "ns") {
    unit = 1, unit_digits = 0;
  } else if (s == "us") {
    unit = NSEC_PER_USEC, unit_digits = 3;
  } else if (s == "ms") {
    unit = NSEC_PER_MSEC, unit_digits = 6;
  } else if (s == "s") {
    unit = NSEC_PER_SEC, unit_digits = 9;
  } else if (s.empty() && zero) {
    return 0;  // a bare zero is unambiguous in every unit
  } else {
    return bad(kExpected);
  }

  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  if (static_cast<int>(frac.size()) > unit_digits) return bad("not a whole number of nanoseconds");

  // 128-bit arithmetic: the whole part is bounded by its digit count first, so no step can
  // overflow before the final range check.
  if (whole.find_first_not_of('0') != std::string_view::npos &&
      whole.size() - whole.find_first_not_of('0') > 20)
    return bad(kTooLarge);
  unsigned __int128 ns = 0;
  for (char c : whole) ns = ns * 10 + static_cast<unsigned>(c - '0');
  ns *= unit;
  Time frac_ns = 0, scale = unit;
  for (char c : frac) {
    scale /= 10;
    frac_ns += static_cast<Time>(c - '0') * scale;
  }
  ns += frac_ns;
  if (ns > kMaxDuration) return bad(kTooLarge);
  return static_cast<Time>(ns);
}

std::optional<Time> parse_duration(std::string_view s) {
  return parse_duration(s, nullptr);
}

std::optional<Dist> parse_dist(std::string_view text, std::string *why) {
  const std::string_view s = trim(text);
  const size_t open = s.find('(');
  if (open == std::string_view::npos) {
    // Something that starts like a number is most likely a duration with a typo, and the
    // duration message says more about it than the list of distribution forms.
    if (!s.empty() && (is_digit(s.front()) || s.front() == '-')) {
      std::string dwhy;
      auto t = parse_duration(s, &dwhy);
      if (!t) {
        set(why, dwhy);
        return std::nullopt;
      }
      return Dist{Dist::Kind::Const, *t, 0};
    }
    set(why, fmt::format("bad distribution '{}': expected a duration, uniform(LOW, HIGH), "
                         "exp(MEAN) or normal(MEAN, SD)",
                         text));
    return std::nullopt;
  }

  const std::string_view name = trim(s.substr(0, open));
  if (s.back() != ')') {
    set(why, fmt::format("bad distribution '{}': expected ')' at the end", text));
    return std::nullopt;
  }
  std::string_view inner = s.substr(open + 1, s.size() - open - 2);
  std::vector<std::string_view> args;
  for (;;) {
    const size_t comma = inner.find(',');
    args.push_back(trim(inner.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }

  Dist d;
  size_t want = 0;
  std::string_view signature;
  if (name == "uniform") {
    d.kind = Dist::Kind::Uniform, want = 2, signature = "uniform(LOW, HIGH)";
  } else if (name == "exp" || name == "exponential") {
    d.kind = Dist::Kind::Exponential, want = 1, signature = "exp(MEAN)";
  } else if (name == "normal") {
    d.kind = Dist::Kind::Normal, want = 2, signature = "normal(MEAN, SD)";
  } else {
    set(why, fmt::format("bad distribution '{}': unknown distribution '{}' (expected uniform, "
                         "exp, exponential or normal)",
                         text, name));
    return std::nullopt;
  }
  if (args.size() != want) {
    set(why, fmt::format("bad distribution '{}': expected {}", text, signature));
    return std::nullopt;
  }
  Time v[2] = {0, 0};
  for (size_t i = 0; i < want; i++) {
    std::string dwhy;
    auto t = parse_duration(args[i], &dwhy);
    if (!t) {
      set(why, fmt::format("bad distribution '{}': {}", text, dwhy));
      return std::nullopt;
    }
    v[i] = *t;
  }
  d.a = v[0];
  d.b = v[1];
  if (d.kind == Dist::Kind::Uniform && d.a > d.b) {
    set(why, fmt::format("bad distribution '{}': LOW is greater than HIGH", text));
    return std::nullopt;
  }
  return d;
}

std::optional<std::vector<int>> parse_cpulist(std::string_view text, std::string *why) {
  auto bad = [&](std::string_view reason) -> std::optional<std::vector<int>> {
    set(why, fmt::format("bad cpu list '{}': {}", text, reason));
    return std::nullopt;
  };
  constexpr std::string_view kExpected = "expected CPU numbers and ranges such as 0-3,8";
  std::string_view s = trim(text);
  if (s.empty()) return bad("empty");

  auto number = [](std::string_view &item) -> std::optional<int> {
    const std::string_view digits = take_digits(item);
    if (digits.empty()) return std::nullopt;
    long long v = 0;
    for (char c : digits) {
      v = v * 10 + (c - '0');
      if (v > kMaxCpuNumber) return kMaxCpuNumber + 1;
    }
    return static_cast<int>(v);
  };

  // Ranges first, expanded once at the end, so that a list repeating a huge range costs
  // nothing more than the string it came from.
  std::vector<std::pair<int, int>> ranges;
  for (;;) {
    const size_t comma = s.find(',');
    std::string_view item = trim(s.substr(0, comma));
    if (item.empty()) return bad("empty item");
    auto lo = number(item);
    if (!lo) return bad(kExpected);
    auto hi = lo;
    item = trim(item);
    if (!item.empty() && item.front() == '-') {
      item.remove_prefix(1);
      item = trim(item);
      hi = number(item);
      if (!hi) return bad(kExpected);
    }
    if (!trim(item).empty()) return bad(kExpected);
    if (*lo > kMaxCpuNumber || *hi > kMaxCpuNumber)
      return bad(fmt::format("CPU number too large (at most {})", kMaxCpuNumber));
    if (*lo > *hi) return bad(fmt::format("range {}-{} is reversed", *lo, *hi));
    ranges.emplace_back(*lo, *hi);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<int> cpus;
  int next = 0;  // the lowest CPU not yet emitted
  for (auto [lo, hi] : ranges)
    for (int c = std::max(lo, next); c <= hi; c++) cpus.push_back(c), next = c + 1;
  return cpus;
}

}  // namespace schedlab::scenario
