#pragma once
// Small scenarios for simulator tests, built from presets with the fields a test cares about overridden.

#include <nlohmann/json.hpp>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::test {

// Llama-3.1-8B on one H100 per replica: small and fast to simulate.
inline nlohmann::json small_scenario() {
  return nlohmann::json::parse(R"({
    "name": "test",
    "model": "llama-3.1-8b",
    "deployment": {"hardware": "h100", "nodes": 1, "gpus_per_node": 1, "replica": {"tp": 1, "pp": 1, "ep": 1},
                   "scheduler": {"max_num_seqs": 64, "max_num_batched_tokens": 2048}},
    "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1.0},
                 "input_tokens": {"kind": "fixed", "value": 500},
                 "output_tokens": {"kind": "fixed", "value": 50}},
    "seed": 7,
    "num_requests": 100
  })");
}

inline specs::ScenarioSpec parse(const nlohmann::json& j) { return specs::parse_scenario(j, "test"); }

}  // namespace fleetcast::test
