// The statistics of repeated measurements against values worked out from their definitions: t
// quantiles from tables, order-statistic coverage from binomial sums, Welch's test on samples whose
// logarithms are integers, and the calibration of both tests over many simulated A/A samples.
#include "core/repeat_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/split_mix.hpp"

namespace infermark {
namespace {

TEST(StudentT, CdfAndQuantileMatchTheTables) {
  EXPECT_DOUBLE_EQ(StudentTCdf(0, 3), 0.5);
  EXPECT_NEAR(StudentTCdf(1, 1), 0.75, 1e-12);  // Cauchy: 1/2 + atan(1)/pi
  // df = 2 has a closed form: 1/2 + t / (2 sqrt(2 + t^2)).
  EXPECT_NEAR(StudentTCdf(2.5, 2), 0.5 + 2.5 / (2 * std::sqrt(2 + 6.25)), 1e-12);
  EXPECT_NEAR(StudentTCdf(-2.5, 2), 0.5 - 2.5 / (2 * std::sqrt(2 + 6.25)), 1e-12);
  EXPECT_NEAR(StudentTCdf(1.5, 7.3), 0.91221845, 1e-7);  // fractional df (Welch), by numerical integration
  // Two-sided 95 % critical values.
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.7062047, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 4.30265273, 1e-7);
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.77644511, 1e-7);
  EXPECT_NEAR(StudentTQuantile(0.975, 10), 2.22813885, 1e-7);
  EXPECT_NEAR(StudentTQuantile(0.025, 30), -2.04227246, 1e-7);
  EXPECT_NEAR(StudentTQuantile(0.975, 1e6), 1.95996398, 1e-5);
  EXPECT_TRUE(std::isnan(StudentTQuantile(1.0, 3)));
}

TEST(MedianInterval, OrderStatisticsCoverAsTheBinomialSays) {
  EXPECT_DOUBLE_EQ(OrderStatisticCoverage(3, 1), 0.75);
  EXPECT_DOUBLE_EQ(OrderStatisticCoverage(5, 1), 0.9375);
  EXPECT_DOUBLE_EQ(OrderStatisticCoverage(6, 1), 1 - 2.0 / 64);
  EXPECT_NEAR(OrderStatisticCoverage(10, 2), 1 - 2.0 * 11 / 1024, 1e-12);
  EXPECT_NEAR(OrderStatisticCoverage(10, 3), 1 - 2.0 * 56 / 1024, 1e-12);
  EXPECT_EQ(OrderStatisticCoverage(4, 3), 0);

  const MedianInterval three = MedianWithInterval(std::vector<double>{5, 1, 3});
  EXPECT_EQ(three.n, 3u);
  EXPECT_EQ(three.median, 3);
  EXPECT_EQ(three.low, 1);
  EXPECT_EQ(three.high, 5);
  EXPECT_EQ(three.confidence, 0.75);  // below 6 values [min, max] is all there is
  // Ten values: [X(2), X(9)] covers 97.9 %, [X(3), X(8)] only 89.1 %.
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  const MedianInterval t = MedianWithInterval(ten);
  EXPECT_EQ(t.median, 5.5);
  EXPECT_EQ(t.low, 2);
  EXPECT_EQ(t.high, 9);
  EXPECT_EQ(t.min, 1);
  EXPECT_EQ(t.max, 10);
  EXPECT_NEAR(t.confidence, 0.978515625, 1e-12);
  const MedianInterval one = MedianWithInterval(std::vector<double>{7});
  EXPECT_EQ(one.low, 7);
  EXPECT_EQ(one.high, 7);
  EXPECT_EQ(one.confidence, 0);
  EXPECT_EQ(MedianWithInterval(std::vector<double>{}).n, 0u);
}

TEST(MedianInterval, BootstrapIsDeterministicForASeed) {
  const std::vector<double> v{10, 12, 11, 13, 30, 9, 10.5};
  const MedianInterval a = BootstrapMedianInterval(v, 0.95, 2000, 42);
  const MedianInterval b = BootstrapMedianInterval(v, 0.95, 2000, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_EQ(a.median, 11);
  EXPECT_LE(a.low, a.median);
  EXPECT_GE(a.high, a.median);
  EXPECT_GE(a.low, 9);
  EXPECT_LE(a.high, 30);
  EXPECT_EQ(a.confidence, 0.95);
}

TEST(RatioTests, WelchOnLogarithms) {
  // Logs {0, 1, 2} against {1, 2, 3}: means 1 and 2, variances 1, se sqrt(2/3), df 4.
  const std::vector<double> base{1, std::exp(1.0), std::exp(2.0)};
  const std::vector<double> cand{std::exp(1.0), std::exp(2.0), std::exp(3.0)};
  const auto w = WelchRatioTest(base, cand);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->method, "welch-log");
  EXPECT_NEAR(w->df, 4, 1e-9);
  EXPECT_NEAR(w->ratio, std::exp(1.0), 1e-9);
  EXPECT_NEAR(w->p_value, 0.28786413, 1e-6);
  EXPECT_NEAR(w->ratio_low, 0.28168723, 1e-6);
  EXPECT_NEAR(w->ratio_high, 26.2314202, 1e-5);
  // Too few values on a side: no test.
  EXPECT_FALSE(WelchRatioTest(std::vector<double>{1}, cand));
  // No spread: an exact difference is certain, an equality is no change.
  const auto exact = WelchRatioTest(std::vector<double>{2, 2}, std::vector<double>{3, 3});
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->p_value, 0);
  EXPECT_DOUBLE_EQ(exact->ratio, 1.5);
  EXPECT_EQ(WelchRatioTest(std::vector<double>{2, 2}, std::vector<double>{2, 2})->p_value, 1);
  // A value at or below zero: the test runs on the values themselves.
  const auto raw = WelchRatioTest(std::vector<double>{0, 2, 4}, std::vector<double>{2, 4, 6});
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->method, "welch");
  EXPECT_DOUBLE_EQ(raw->ratio, 2);  // means 2 and 4
}

TEST(RatioTests, PredictionOfOneValue) {
  // Reference logs {0, 1, 2} (mean 1, s 1), the value's log 4: t = 3 / sqrt(4/3) on 2 df.
  const std::vector<double> reference{1, std::exp(1.0), std::exp(2.0)};
  const auto p = PredictionRatioTest(reference, std::exp(4.0));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->method, "prediction-log");
  EXPECT_EQ(p->df, 2);
  EXPECT_NEAR(p->ratio, std::exp(3.0), 1e-9);
  const double t = 3 / std::sqrt(4.0 / 3);
  EXPECT_NEAR(p->p_value, 2 * (0.5 - t / (2 * std::sqrt(2 + t * t))), 1e-12);
  EXPECT_FALSE(PredictionRatioTest(std::vector<double>{1}, 2));
}

// Samples from a log-normal with 5 % spread: at alpha 0.05 each test rejects a true "no change" in
// about 5 % of 4,000 simulated comparisons (binomial sd 0.34 %), so its p-values are calibrated.
TEST(RatioTests, FalsePositiveRateHoldsAtAlpha) {
  std::uint64_t state = 7;
  const auto normal = [&] {
    state = SplitMix64(state);
    const double u1 = (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
    state = SplitMix64(state);
    const double u2 = (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  };
  const auto sample = [&](int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(1000 * std::exp(0.05 * normal()));
    return v;
  };
  constexpr int kTrials = 4000;
  int welch = 0;
  int prediction = 0;
  for (int i = 0; i < kTrials; ++i) {
    welch += WelchRatioTest(sample(3), sample(3))->p_value < 0.05 ? 1 : 0;
    prediction += PredictionRatioTest(sample(5), sample(1)[0])->p_value < 0.05 ? 1 : 0;
  }
  // Welch's df approximation is conservative at n = 3: below alpha, never above it by more than noise.
  EXPECT_LT(welch, kTrials * 0.06);
  EXPECT_GT(welch, kTrials * 0.02);
  EXPECT_NEAR(prediction, kTrials * 0.05, kTrials * 0.012);
}

}  // namespace
}  // namespace infermark
