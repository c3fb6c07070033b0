#pragma once
// Step-time test fixtures: one Llama-3.1-70B layer and a batch of one prompt.

#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::test {

// One Llama-3.1-70B layer (hidden 8192, GQA 64 / 8 x 128, FFN 28,672) in BF16.
inline specs::ModelSpec dense_layer() {
  auto m = specs::model_preset("llama-3.1-70b");
  m.num_layers = 1;
  m.dense_layers = 1;
  m.precision = {};  // BF16 throughout
  return m;
}

// One whole prompt of `tokens` tokens, nothing before it.
inline simulator::BatchShape prefill(int tokens) {
  simulator::BatchShape b;
  b.prefill.push_back({tokens, 0, true});
  return b;
}

}  // namespace fleetcast::test
