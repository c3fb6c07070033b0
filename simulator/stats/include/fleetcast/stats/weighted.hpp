#pragma once
// Samples that each stand for several observations. One decode step's gap between tokens is the inter-token
// latency of every sequence in that step's batch: recording (gap, batch size) once instead of batch-size copies
// keeps a long simulation's ITL distribution to one entry per step.

#include <cstddef>
#include <utility>
#include <vector>

#include "fleetcast/stats/summary.hpp"

namespace fleetcast::stats {

class WeightedSamples {
public:
  // Records value with the given weight (e.g. the number of sequences that saw this gap). Weight 0 is accepted
  // and ignored. Throws std::invalid_argument for a non-finite value or a negative or non-finite weight.
  // Amortised O(1); a value equal to the previous one only adds to its weight (steady decode repeats gaps).
  void add(double value, double weight);

  // Weighted mean; percentiles by the weighted empirical CDF with no interpolation: the smallest value whose
  // cumulative weight is >= q/100 of the total, to a relative 1e-12 so that rounding in fractional weights does
  // not move it (numpy's "inverted_cdf" when all weights are 1). min and max are over values of positive weight.
  // count is the number of add() calls with positive weight, not the weight total (see total_weight()).
  // O(n log n) in the entries stored; works on a copy, so the samples are unchanged and const calls are safe.
  Summary summary() const;

  // Number of distinct values of positive weight. O(n log n).
  std::size_t distinct() const;

  // Sum of all weights added.
  double total_weight() const { return total_weight_; }

private:
  std::vector<std::pair<double, double>> samples_;  // (value, weight), in the order added
  std::size_t added_ = 0;
  double total_weight_ = 0.0;
};

}  // namespace fleetcast::stats
