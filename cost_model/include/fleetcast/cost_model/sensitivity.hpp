#pragma once
// Which input moves $/M tokens most: a tornado table. Each input is moved down and up by the same share, alone,
// and the blended $/M recomputed; rows are sorted by how far the figure swings.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/cost_model/fleet_cost.hpp"

namespace fleetcast::cost_model {

struct TornadoRow {
  std::string input;               // "own.gpu_purchase_usd", "fleet.load_factor", "work.throughput", ...
  double base = 0.0;               // the input's value as given
  double low = 0.0;                // base * (1 - change), clamped to the input's valid range
  double high = 0.0;               // base * (1 + change), clamped likewise (load_factor <= 1, pue >= 1, peak >= idle)
  double usd_per_m_at_low = 0.0;   // blended $/M with the input at `low`
  double usd_per_m_at_high = 0.0;  // ... at `high`
  double swing = 0.0;              // |at_high - at_low|
};

struct Tornado {
  double change = 0.0;           // the share every input moved by (0.2: -20% and +20%)
  double base_usd_per_m = 0.0;   // blended $/M with every input as given
  std::vector<TornadoRow> rows;  // largest swing first; inputs that are 0 (nothing to move) are left out
};

// Inputs varied: the effective rental price (renting) or every OwnedPrice field (owning); load_factor,
// spare_share and storage price; and work.throughput, every token count of the window scaled together (the
// simulator's tokens per GPU-second). Throws std::invalid_argument for change outside (0, 1) or inputs
// fleet_cost() rejects.
Tornado tornado(const CostInputs& in, const ServingWork& work, double change);

nlohmann::json to_json(const Tornado& t);

}  // namespace fleetcast::cost_model
