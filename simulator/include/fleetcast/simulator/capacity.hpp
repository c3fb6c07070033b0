#pragma once
// A steady-state estimate of how many requests per second a deployment sustains for one request class's mean
// lengths: used to turn a `load` into an arrival rate before simulating (workload_plan.hpp combines the classes
// of a mix), and later to prune plans.

#include <string>

#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator {

struct CapacityEstimate {
  double requests_per_s = 0.0;     // whole deployment
  double batch_per_replica = 0.0;  // running sequences in a saturated step
  double step_s = 0.0;             // predicted saturated step time
  std::string limited_by;          // "max_num_seqs", "kv_cache", "token_budget" or "clients"
};

// A saturated replica runs B sequences; each request needs `mean input` prefill tokens and `mean output`
// steps, so a step carries B decodes plus B x in / out prefill tokens and finishes B / out requests. With
// speculative decoding a decode runs 1 + n tokens and a request needs out / (acceptance length) steps. Where the
// policy runs prompts in steps of their own (SGLang without mixed_chunk, ATOM) the step time is that of a cycle:
// the decode step plus the prefill steps; TensorRT-LLM's guaranteed_no_evict holds in + out per sequence in the KV
// cache, the others in + out / 2 (docs/MODEL.md, Capacity estimate).
// The whole deployment serving class `c` alone, with at most `max_batch_per_replica` sequences per replica
// (closed-loop clients cap the batch at their number).
CapacityEstimate estimate_capacity(const specs::ScenarioSpec& s, const specs::RequestClass& c,
                                   const StepTimeModel& model, const MemoryPlan& memory,
                                   double max_batch_per_replica = 1e300);

}  // namespace fleetcast::simulator
