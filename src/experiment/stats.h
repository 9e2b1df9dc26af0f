// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Small-sample statistics for experiments: mean, sample standard deviation, median, Student's t
// confidence intervals, paired differences and a deterministic paired bootstrap for the "patch
// cuts the overhead by P %" ratio. Every function is a pure function of its inputs (no global
// random state), so results never depend on thread count or run order.
//
// Undefined values (a standard deviation or interval from fewer than two samples, a ratio
// whose denominator is not positive) are NaN; callers print them as "n/a" and write JSON null.
#include <cstddef>
#include <vector>

#include "sim/time.h"

namespace schedlab::experiment::stats {

double mean(const std::vector<double> &x);    // NaN when empty
double stddev(const std::vector<double> &x);  // sample (n - 1); NaN when n < 2
double median(std::vector<double> x);         // mean of the middle two when n is even

// t_{0.975, df}: the two-sided 95 % quantile of Student's t with df >= 1 degrees of freedom.
// Exact table (6 decimals) for df 1..30, 40, 50, 60, 80, 100, 120, 200, 500, 1000; linear in 1/df
// between them; the normal limit 1.959964 as df -> infinity.
double t975(std::size_t df);

// Half-width of the 95 % confidence interval of the mean: t975(n-1) * sd / sqrt(n).
double ci95(const std::vector<double> &x);

// Paired differences d_i = x_i - base_i (same seed i): their mean and 95 % CI half-width.
struct Paired {
  double mean_diff = 0;
  double ci95 = 0;
};
Paired paired(const std::vector<double> &x, const std::vector<double> &base);

// The sign test of paired samples: in how many pairs x_i is below or above base_i (ties
// dropped), and the exact two-sided binomial p-value of so many on one side if either were as
// likely (1 when no pair differs). Distribution-free, so it holds for heavy tails (a p99.9 set
// by a few seeds) where the t interval of `paired` is only approximate.
struct SignTest {
  std::size_t lower = 0, higher = 0, ties = 0;
  double p = 1;
};
SignTest sign_test(const std::vector<double> &x, const std::vector<double> &base);

// Student's t tests of a difference in means, two-sided. `diff` is mean(x) - mean(base); p is
// NaN where the test is undefined (fewer than two samples a side, or no variance at all; with
// no variance and no difference p is 1).
struct TTest {
  double diff = 0, t = 0, df = 0, p = 0;
};
// Paired (x_i and base_i share seed i): the one-sample t test of the differences, df = n - 1.
TTest paired_t(const std::vector<double> &x, const std::vector<double> &base);
// Welch's unequal-variance test, with the Welch-Satterthwaite degrees of freedom.
TTest welch_t(const std::vector<double> &x, const std::vector<double> &base);
// P(|T| >= |t|) for Student's t with df > 0 degrees of freedom (df need not be whole).
double t_two_sided_p(double t, double df);

// Percentile (0..1) of sorted values, linear interpolation between order statistics (R type 7).
double percentile_sorted(const std::vector<double> &sorted, double p);

// "patched cuts the overhead of base by P %", overhead_X = mean(X) - mean(reference), over the
// same seeds; P = 100 * (1 - overhead_patched / overhead_base), NaN when overhead_base <= 0.
// The 95 % interval is a paired percentile bootstrap: each resample draws n seed indices with
// replacement (the same indices for all three configurations) from
// sim::Stream(bootstrap_seed, {n}); resamples whose base overhead is <= 0 are dropped (counted
// in `dropped`). Deterministic: the same inputs give the same interval.
struct Cut {
  double overhead_base = 0, overhead_patched = 0;
  double pct = 0;                  // NaN when overhead_base <= 0
  double ci_low = 0, ci_high = 0;  // NaN when pct is, or when every resample was dropped
  int resamples = 0, dropped = 0;
};
constexpr int kBootstrapResamples = 2000;
constexpr u64 kBootstrapSeed = 12345;
Cut overhead_cut(const std::vector<double> &base, const std::vector<double> &patched,
                 const std::vector<double> &reference, int resamples = kBootstrapResamples,
                 u64 bootstrap_seed = kBootstrapSeed);

}  // namespace schedlab::experiment::stats
