#pragma once
// One forecast: a model on a deployment under a workload, for a number of requests, with a seed.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::specs {

enum class PricingKind { on_demand, reserved };

struct CostSpec {
  double usd_per_gpu_hour = 0.0;  // 0: the hardware preset's reference price
  PricingKind pricing = PricingKind::on_demand;
  double reserved_discount = 0.0;  // share off the hourly price when reserved (0.2 to 0.5 is typical)
  bool operator==(const CostSpec&) const = default;
};

// Steady state: requests that arrive during warm-up (the first `warmup_fraction` of the arrivals)
// and cool-down (the last `cooldown_fraction`) are simulated but left out of the figures.
struct MeasurementSpec {
  double warmup_fraction = 0.1;
  double cooldown_fraction = 0.1;
  double sample_interval_s = 1.0;  // time-series sampler period (number in system, KV use, queue)
  bool operator==(const MeasurementSpec&) const = default;
};

struct ScenarioSpec {
  std::string name;
  ModelSpec model;
  DeploymentSpec deployment;
  WorkloadSpec workload;
  std::uint64_t seed = 1;
  std::int64_t num_requests = 0;
  MeasurementSpec measurement;
  CostSpec cost;
  // The scenario as given, with presets resolved into full objects: echoed in the report.
  nlohmann::json resolved;
  bool operator==(const ScenarioSpec&) const = default;
};

std::string_view to_string(PricingKind k);

}  // namespace fleetcast::specs
