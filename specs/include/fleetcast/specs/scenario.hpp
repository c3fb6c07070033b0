#pragma once
// One forecast: a model on a deployment under a workload, for a number of requests, with a seed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::specs {

enum class PricingKind { on_demand, reserved };

// Owning instead of renting (docs/COST.md): capital written off over the years, power, operations.
struct OwnedCostSpec {
  double gpu_purchase_usd = 0.0;
  double server_usd_per_gpu = 0.0;
  double network_usd_per_port = 0.0;
  double network_ports_per_gpu = 1.0;
  double depreciation_years = 4.0;
  double idle_power_w = 0.0;
  double peak_power_w = 0.0;  // 0: the hardware's power_w
  double pue = 1.0;
  double usd_per_kwh = 0.0;
  double operations_usd_per_gpu_hour = 0.0;
  bool operator==(const OwnedCostSpec&) const = default;
};

// Terms owners and renters both pay (docs/COST.md): provisioning for peak, spares, storage.
struct FleetTermsSpec {
  double load_factor = 1.0;  // average load / the simulated load, in (0, 1]
  double spare_share = 0.0;
  double storage_tb = 0.0;
  double storage_usd_per_tb_month = 0.0;
  bool operator==(const FleetTermsSpec&) const = default;
};

// A price list the tokens are sold at (revenue, margin), e.g. a managed API's.
struct PriceListSpec {
  double usd_per_m_input = 0.0;
  double usd_per_m_output = 0.0;
  double usd_per_m_cache_read = 0.0;
  bool operator==(const PriceListSpec&) const = default;
};

struct CostSpec {
  double usd_per_gpu_hour = 0.0;  // 0: the hardware preset's reference price
  PricingKind pricing = PricingKind::on_demand;
  double reserved_discount = 0.0;  // share off the hourly price when reserved (0.2 to 0.5 is typical)
  // Optional: any of them adds the whole-fleet cost (owned when `owned` is given), revenue and a tornado table to
  // the report's cost block; none of them leaves the report as it was.
  std::optional<OwnedCostSpec> owned;
  std::optional<FleetTermsSpec> fleet;
  std::optional<PriceListSpec> price_list;
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
