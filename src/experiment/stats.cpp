// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/random.h"

namespace schedlab::experiment::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// t_{0.975, df}, df = 1..30 (index df - 1).
constexpr std::array<double, 30> kT975Small = {
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157,  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816,  2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
struct TPoint {
  double df, t;
};
// Beyond 30, then the normal limit (df = infinity, 1/df = 0).
constexpr std::array<TPoint, 9> kT975Large = {{{30, 2.042272},
                                               {40, 2.021075},
                                               {50, 2.008559},
                                               {60, 2.000298},
                                               {80, 1.990063},
                                               {100, 1.983972},
                                               {120, 1.979930},
                                               {200, 1.971896},
                                               {500, 1.964720}}};
constexpr TPoint kT975Last = {1000, 1.962339};
constexpr double kZ975 = 1.959964;

double sum(const std::vector<double> &x) {
  double s = 0;
  for (double v : x) s += v;
  return s;
}

}  // namespace

double mean(const std::vector<double> &x) {
  if (x.empty()) return kNaN;
  return sum(x) / static_cast<double>(x.size());
}

double stddev(const std::vector<double> &x) {
  if (x.size() < 2) return kNaN;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double median(std::vector<double> x) {
  if (x.empty()) return kNaN;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double t975(std::size_t df) {
  if (df == 0) throw std::invalid_argument("t975: df must be >= 1");
  if (df <= kT975Small.size()) return kT975Small[df - 1];
  const double inv = 1.0 / static_cast<double>(df);
  for (std::size_t i = 0; i + 1 < kT975Large.size(); i++) {
    const TPoint a = kT975Large[i], b = kT975Large[i + 1];
    if (static_cast<double>(df) <= b.df) {
      const double ia = 1.0 / a.df, ib = 1.0 / b.df;
      return a.t + (b.t - a.t) * (ia - inv) / (ia - ib);
    }
  }
  const TPoint a = kT975Large.back();
  if (static_cast<double>(df) <= kT975Last.df) {
    const double ia = 1.0 / a.df, ib = 1.0 / kT975Last.df;
    return a.t + (kT975Last.t - a.t) * (ia - inv) / (ia - ib);
  }
  // Between df = 1000 and the normal limit, still linear in 1/df (1/df = 0 at the limit).
  return kZ975 + (kT975Last.t - kZ975) * inv * kT975Last.df;
}

double ci95(const std::vector<double> &x) {
  if (x.size() < 2) return kNaN;
  return t975(x.size() - 1) * stddev(x) / std::sqrt(static_cast<double>(x.size()));
}

namespace {

// x_i - base_i, seed by seed; `who` names the caller when the samples differ in size.
std::vector<double> differences(const std::vector<double> &x, const std::vector<double> &base,
                                const char *who) {
  if (x.size() != base.size())
    throw std::invalid_argument(std::string(who) + ": samples differ in size");
  std::vector<double> d(x.size());
  for (std::size_t i = 0; i < x.size(); i++) d[i] = x[i] - base[i];
  return d;
}

}  // namespace

Paired paired(const std::vector<double> &x, const std::vector<double> &base) {
  const std::vector<double> d = differences(x, base, "paired");
  return Paired{mean(d), ci95(d)};
}

namespace {

// The continued fraction of the regularized incomplete beta function (modified Lentz).
double beta_cf(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; m++) {
    const double dm = m;
    double num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
    for (int step = 0; step < 2; step++) {
      d = 1 + num * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1 + num / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1 / d;
      const double del = d * c;
      h *= del;
      if (step == 1 && std::fabs(del - 1) < kEps) return h;
      num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
    }
  }
  return h;
}

// I_x(a, b).
double inc_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
  return 1 - front * beta_cf(b, a, 1 - x) / b;
}

}  // namespace

double t_two_sided_p(double t, double df) {
  if (!std::isfinite(t) || !(df > 0)) return kNaN;
  return inc_beta(df / 2, 0.5, df / (df + t * t));
}

TTest paired_t(const std::vector<double> &x, const std::vector<double> &base) {
  const std::vector<double> d = differences(x, base, "paired_t");
  TTest r;
  r.diff = mean(d);
  if (d.size() < 2) return {r.diff, kNaN, kNaN, kNaN};
  r.df = static_cast<double>(d.size() - 1);
  const double se = stddev(d) / std::sqrt(static_cast<double>(d.size()));
  if (se == 0) return {r.diff, kNaN, r.df, r.diff == 0 ? 1.0 : kNaN};
  r.t = r.diff / se;
  r.p = t_two_sided_p(r.t, r.df);
  return r;
}

TTest welch_t(const std::vector<double> &x, const std::vector<double> &base) {
  TTest r;
  r.diff = mean(x) - mean(base);
  if (x.size() < 2 || base.size() < 2) return {r.diff, kNaN, kNaN, kNaN};
  const double vx = stddev(x) * stddev(x) / static_cast<double>(x.size());
  const double vb = stddev(base) * stddev(base) / static_cast<double>(base.size());
  const double se2 = vx + vb;
  if (se2 == 0) return {r.diff, kNaN, kNaN, r.diff == 0 ? 1.0 : kNaN};
  r.df = se2 * se2 /
         (vx * vx / static_cast<double>(x.size() - 1) +
          vb * vb / static_cast<double>(base.size() - 1));
  r.t = r.diff / std::sqrt(se2);
  r.p = t_two_sided_p(r.t, r.df);
  return r;
}

SignTest sign_test(const std::vector<double> &x, const std::vector<double> &base) {
  if (x.size() != base.size()) throw std::invalid_argument("sign_test: samples differ in size");
  SignTest s;
  for (std::size_t i = 0; i < x.size(); i++) {
    if (x[i] < base[i])
      s.lower++;
    else if (x[i] > base[i])
      s.higher++;
    else
      s.ties++;
  }
  const std::size_t n = s.lower + s.higher, k = std::min(s.lower, s.higher);
  if (n == 0 || 2 * k == n) return s;
  // P(X <= k) for X ~ Binomial(n, 1/2). Up to n = 1000 by the recurrence C(n, i+1) / 2^n =
  // C(n, i) / 2^n * (n - i) / (i + 1), from 2^-n (exact, and small p-values come out exact);
  // beyond, where 2^-n would underflow, each term from log-gamma.
  const double nd = static_cast<double>(n);
  double tail = 0;
  if (n <= 1000) {
    double term = std::ldexp(1.0, -static_cast<int>(n));
    for (std::size_t i = 0; i <= k; i++) {
      tail += term;
      term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
  } else {
    for (std::size_t i = 0; i <= k; i++) {
      const double id = static_cast<double>(i);
      tail += std::exp(std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) -
                       nd * std::log(2.0));
    }
  }
  s.p = std::min(1.0, 2 * tail);
  return s;
}

double percentile_sorted(const std::vector<double> &sorted, double p) {
  if (sorted.empty()) return kNaN;
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Cut overhead_cut(const std::vector<double> &base, const std::vector<double> &patched,
                 const std::vector<double> &reference, int resamples, u64 bootstrap_seed) {
  const std::size_t n = base.size();
  if (patched.size() != n || reference.size() != n)
    throw std::invalid_argument("overhead_cut: samples differ in size");
  Cut c;
  c.overhead_base = mean(base) - mean(reference);
  c.overhead_patched = mean(patched) - mean(reference);
  c.resamples = resamples;
  if (n == 0 || !(c.overhead_base > 0)) {
    c.pct = c.ci_low = c.ci_high = kNaN;
    return c;
  }
  c.pct = 100.0 * (1.0 - c.overhead_patched / c.overhead_base);

  sim::Stream rng(bootstrap_seed, {static_cast<u64>(n)});
  std::vector<double> cuts;
  cuts.reserve(static_cast<std::size_t>(std::max(resamples, 0)));
  for (int b = 0; b < resamples; b++) {
    double sb = 0, sp = 0, sr = 0;
    for (std::size_t k = 0; k < n; k++) {
      const auto i = static_cast<std::size_t>(rng.uniform_u64(0, n - 1));
      sb += base[i];
      sp += patched[i];
      sr += reference[i];
    }
    // Same n in every mean: the overheads are (sum - sum_ref) / n.
    const double ob = (sb - sr) / static_cast<double>(n);
    const double op = (sp - sr) / static_cast<double>(n);
    if (!(ob > 0)) {
      c.dropped++;
      continue;
    }
    cuts.push_back(100.0 * (1.0 - op / ob));
  }
  if (cuts.empty()) {
    c.ci_low = c.ci_high = kNaN;
    return c;
  }
  std::sort(cuts.begin(), cuts.end());
  c.ci_low = percentile_sorted(cuts, 0.025);
  c.ci_high = percentile_sorted(cuts, 0.975);
  return c;
}

}  // namespace schedlab::experiment::stats
