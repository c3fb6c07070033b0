#pragma once
// A fast evaluation of one aggregated replica serving closed-loop clients, for fitting
// profile parameters to measured runs: the same Batcher (scheduler, KV cache) and step-time model as the
// SimGrid simulation, driven by a plain loop instead of actors. A client's next request arrives when its last
// one finishes and joins the next step, as in the simulation, where the router and the links add no delay;
// DP ranks take arrivals in turn. No SimGrid engine: any number of replays may run in one process.

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::validation {

struct ReplayMeans {
  double ttft_ms = 0.0;  // mean over the measured requests (the middle arrivals, as the simulation measures)
  double tpot_ms = 0.0;
  long measured = 0;
};

// `s` must be aggregated with one closed-loop class on one replica, its lengths drawn as the simulation draws them
// (what map_serving_run writes for agg rows); throws InputError otherwise, or when the model does not fit.
ReplayMeans replay_closed_loop(const specs::ScenarioSpec& s, const calibration::Profile& profile);

}  // namespace fleetcast::validation
