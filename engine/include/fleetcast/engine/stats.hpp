#pragma once
// Percentiles of timed repetitions.

#include <vector>

namespace fleetcast::engine {

struct Percentiles {
  double p10 = 0.0, median = 0.0, p90 = 0.0;
};

// Linear interpolation between order statistics (numpy's default), so that p10 <= median <= p90 always.
// Throws std::invalid_argument on an empty list.
Percentiles percentiles(std::vector<double> samples);
double percentile(const std::vector<double>& sorted, double q);

}  // namespace fleetcast::engine
