#pragma once
// The average over time of a signal the simulator samples when it changes (KV cache use, running batch size,
// busy GPUs): each value holds until the next sample, so a plain mean of the samples would overweight busy
// moments, when samples come often.

#include <vector>

namespace fleetcast::stats {

// Time-weighted average over [t.front(), t_end] of the piecewise-constant signal that takes value v[i] from t[i]
// until t[i+1] (the last until t_end). Samples at or after t_end are ignored, so a run's samples can be averaged
// over a window that ends before the run does. Empty input or t_end == t.front(): NaN (no time, no average).
// Throws std::invalid_argument when sizes differ, t decreases, t_end < t.front(), or a number is not finite.
double time_average(const std::vector<double>& t, const std::vector<double>& v, double t_end);

}  // namespace fleetcast::stats
