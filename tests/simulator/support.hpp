#pragma once
// Small scenarios for simulator tests, built from presets with the fields a test cares about overridden.

#include <vector>

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

// small_scenario() with speculative decoding: Llama-3.1-8B given one (hypothetical) MTP layer to draft with,
// n drafts at the given conditional acceptance rates.
inline nlohmann::json small_mtp_scenario(int drafts, const std::vector<double>& rates) {
  auto j = small_scenario();
  j["model"] = specs::preset_json(specs::PresetKind::model, "llama-3.1-8b");
  j["model"]["mtp_layers"] = 1;
  j["deployment"]["speculative"] = {{"method", "mtp"}, {"num_draft_tokens", drafts}, {"acceptance_rates", rates}};
  return j;
}

inline specs::ScenarioSpec parse(const nlohmann::json& j) { return specs::parse_scenario(j, "test"); }

// One node of `tp` GPUs of `hw` running one replica at tensor parallelism tp (experts over the same GPUs).
inline specs::DeploymentSpec one_gpu(const std::string& hw, int tp = 1) {
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset(hw);
  d.nodes = 1;
  d.gpus_per_node = tp;
  d.replica = {tp, 1, tp};
  return d;
}

}  // namespace fleetcast::test
