#pragma once
// Private to the simulation: the report's optional "timeline", the sampler's series as columns (one array per
// figure, one entry per sample), and the tokens per second between consecutive samples.

#include <nlohmann/json.hpp>

#include "fleetcast/simulator/recorder.hpp"

namespace fleetcast::simulator::detail {

nlohmann::json timeline_json(const Recorder& recorder, int replicas, double sample_interval_s);

}  // namespace fleetcast::simulator::detail
