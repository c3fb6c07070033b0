#pragma once
// Small Batcher fixtures: a KV budget of one byte per token, a scheduler spec, a request.

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::test {

inline simulator::KvBudget kv(double capacity_tokens) {
  return {capacity_tokens, [](double tokens) { return tokens; }};  // one byte per token
}

inline specs::SchedulerSpec sched(int seqs, int budget, int block = 1,
                                  specs::SchedulerPolicy policy = specs::SchedulerPolicy::vllm) {
  specs::SchedulerSpec s;
  s.policy = policy;
  s.max_num_seqs = seqs;
  s.max_num_batched_tokens = budget;
  s.kv_block_tokens = block;
  return s;
}

inline specs::SchedulerSpec sched(specs::SchedulerPolicy policy, int seqs, int budget, int block = 1) {
  return sched(seqs, budget, block, policy);
}

inline simulator::Request req(int in, int out) {
  simulator::Request r;
  r.input_tokens = in;
  r.output_tokens = out;
  return r;
}

}  // namespace fleetcast::test
