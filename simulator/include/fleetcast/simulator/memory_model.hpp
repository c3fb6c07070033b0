#pragma once
// HBM per GPU = weights (by precision, sharded by the layout) + activations + runtime reserve + KV cache.
// What remains for the KV cache, in tokens, bounds the batch.

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::simulator {

struct MemoryPlan {
  double hbm_bytes = 0.0;              // per GPU, usable
  double budget_bytes = 0.0;           // hbm x gpu_memory_utilization; hbm with free_gpu_memory_fraction
  double weight_bytes = 0.0;           // per GPU, the heaviest pipeline stage
  double activation_bytes = 0.0;       // peak activations of a full token budget (SGLang: outside the budget, 0)
  double runtime_reserve_bytes = 0.0;  // CUDA context, NCCL buffers, CUDA graphs (SGLang: the context's share)
  double kv_bytes = 0.0;               // per GPU, for the KV cache (negative: the model does not fit)
  double kv_bytes_per_token = 0.0;     // per GPU, for long contexts
  double kv_capacity_tokens = 0.0;     // per replica: kv_bytes / kv_bytes_per_token
  bool fits() const { return kv_bytes > 0.0; }
};

MemoryPlan plan_memory(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment);

// KV bytes per GPU one sequence holds at `context_tokens` (rounded up to whole KV blocks).
double kv_bytes_per_gpu(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment, double context_tokens);

// Throws InputError naming deployment.replica when the weights leave no room for a KV cache.
void require_fits(const MemoryPlan& plan, const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                  const std::string& file);

}  // namespace fleetcast::simulator
