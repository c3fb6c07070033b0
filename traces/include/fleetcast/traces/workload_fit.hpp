#pragma once
// From a request trace to a workload the simulator takes: length distributions (the trace's own, as quantiles,
// and a fitted lognormal), the arrival process (rate and burstiness as the inter-arrival CV), an hourly rate
// profile when the trace is long enough, and how much of the prompts' prefix blocks repeat.

#include <vector>

#include "fleetcast/specs/workload.hpp"
#include "fleetcast/traces/request_trace.hpp"

namespace fleetcast::traces {

struct LengthFit {
  double mean = 0.0;
  int min = 0, max = 0;
  specs::LengthDistribution lognormal;  // maximum likelihood (mean and sd of the logs), clamped to [min, max]
  specs::LengthDistribution empirical;  // `points` evenly spaced quantiles of the trace's values
};

struct WorkloadFit {
  long requests = 0;
  double duration_s = 0.0;
  double rate_per_s = 0.0;           // requests / duration (the gaps' mean rate)
  double interarrival_cv = 0.0;      // sd / mean of the gaps: 1 for Poisson, > 1 bursty (in operational time: the
                                     // rate profile's swings taken out, so that they are not counted twice)
  double interarrival_cv_raw = 0.0;  // the same over the trace's own gaps
  // The rate's periodic shape: a diurnal cycle (24 hourly bins by time of day, the trace's clock when it has one,
  // averaged over the days it covers) when the trace spans a day or more; its own hour-by-hour shape, repeating
  // after its whole hours, from 2 to 24 hours; none below. rate_per_s is then the operational-time rate.
  specs::RateProfileSpec rate_profile;
  LengthFit input, output;
  std::vector<double> hourly_rate_per_s;  // one per whole hour, when the trace spans at least two
  // Share of prefix blocks already seen earlier in the trace (an unbounded cache's block hit rate), and of
  // input tokens they cover; negative without hash ids.
  double prefix_block_reuse = -1.0;
  double prefix_token_reuse = -1.0;

  // One request class named `name`: `empirical` lengths (the trace's quantiles) or the lognormal fits;
  // Poisson arrivals when the CV is within 0.1 of 1, else gamma with the measured CV; the rate profile.
  specs::WorkloadSpec workload(const std::string& name, bool empirical) const;
};

// `points`: quantiles kept for the empirical length distributions (>= 2).
WorkloadFit fit_workload(const RequestTrace& trace, int points = 1000);

}  // namespace fleetcast::traces
