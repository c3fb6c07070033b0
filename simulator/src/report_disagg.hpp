#pragma once
// Private to the report: what prefill/decode disaggregation adds (the pools and the KV transfers).

#include <nlohmann/json.hpp>

#include "fleetcast/simulator/report.hpp"

namespace fleetcast::simulator::detail {

// derived.pools: each pool's nodes, GPUs, replicas, layout, scheduler and memory plan.
nlohmann::json pools_derived_json(const DisaggregatedPlan& pools);

// metrics.pools: each pool's busy shares over the window and its prefill and decode tokens over the run.
nlohmann::json pools_metrics_json(const ReportInputs& in, double window_s);

// metrics.kv_transfer: the measured requests' KV transfers (count, per-GPU bytes, seconds from sent to landed).
nlohmann::json kv_transfer_json(const ReportInputs& in);

}  // namespace fleetcast::simulator::detail
