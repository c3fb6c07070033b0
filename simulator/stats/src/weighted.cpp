// Weighted samples: mean and inverted-CDF percentiles over (value, weight) pairs.

#include "fleetcast/stats/weighted.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fleetcast::stats {
namespace {

using Entry = std::pair<double, double>;  // (value, weight)

// Neumaier's compensated sum. A million fractional weights summed naively drift by ~1e-10 of the total, enough
// to move a percentile threshold across an entry; compensated, the error stays within an ulp or two.
class CompensatedSum {
public:
  void add(double x) {
    double t = sum_ + x;
    compensation_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + compensation_; }

private:
  double sum_ = 0.0;
  double compensation_ = 0.0;
};

// The stored entries sorted by value with equal values merged, so that each percentile is one scan.
std::vector<Entry> sorted_merged(const std::vector<Entry>& samples) {
  std::vector<Entry> s = samples;
  std::sort(s.begin(), s.end(), [](const Entry& a, const Entry& b) { return a.first < b.first; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out > 0 && s[out - 1].first == s[i].first) {
      s[out - 1].second += s[i].second;
    } else {
      s[out++] = s[i];
    }
  }
  s.resize(out);
  return s;
}

}  // namespace

void WeightedSamples::add(double value, double weight) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("stats::WeightedSamples::add: value = " + std::to_string(value) +
                                ": must be finite");
  }
  if (!std::isfinite(weight) || weight < 0.0) {
    throw std::invalid_argument("stats::WeightedSamples::add: weight = " + std::to_string(weight) +
                                ": must be a finite number >= 0");
  }
  // A zero weight stands for no observation; storing it would let it become min or max.
  if (weight == 0.0) return;
  ++added_;
  total_weight_ += weight;
  if (!samples_.empty() && samples_.back().first == value) {
    samples_.back().second += weight;
  } else {
    samples_.emplace_back(value, weight);
  }
}

Summary WeightedSamples::summary() const {
  Summary s;
  if (samples_.empty()) return s;
  std::vector<Entry> sorted = sorted_merged(samples_);

  // The total for the thresholds is summed in the same order as the cumulative sums below, so the last entry's
  // cumulative weight equals it exactly and q = 100 always lands on the maximum.
  CompensatedSum total_sum;
  CompensatedSum weighted_sum;
  for (const Entry& e : sorted) {
    total_sum.add(e.second);
    weighted_sum.add(e.first * e.second);
  }
  const double total = total_sum.value();

  constexpr std::array<double, 4> kPercents = {50.0, 90.0, 95.0, 99.0};
  // Fractional weights (fourteen 0.1s) reach a threshold such as half the total only to rounding; without this
  // slack the percentile would jump to the next value when the cumulative weight misses by an ulp.
  const double slack = 1e-12 * total;
  std::array<double, 4> results{};
  std::size_t next = 0;  // percentiles are ascending, so one scan answers all of them
  CompensatedSum running;
  for (std::size_t i = 0; i < sorted.size() && next < kPercents.size(); ++i) {
    running.add(sorted[i].second);
    const double cumulative = running.value();
    while (next < kPercents.size() && cumulative >= kPercents[next] / 100.0 * total - slack) {
      results[next++] = sorted[i].first;
    }
  }
  // Unreachable while total is summed as above; guards the loop's invariant rather than trusting it silently.
  while (next < kPercents.size()) results[next++] = sorted.back().first;

  s.count = added_;
  s.mean = weighted_sum.value() / total;
  s.p50 = results[0];
  s.p90 = results[1];
  s.p95 = results[2];
  s.p99 = results[3];
  s.min = sorted.front().first;
  s.max = sorted.back().first;
  return s;
}

std::size_t WeightedSamples::distinct() const {
  std::vector<double> values;
  values.reserve(samples_.size());
  for (const Entry& e : samples_) values.push_back(e.first);
  std::sort(values.begin(), values.end());
  return static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

}  // namespace fleetcast::stats
