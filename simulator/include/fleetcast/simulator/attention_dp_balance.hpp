#pragma once
// TensorRT-LLM's attention-DP balance (attention_dp_config.enable_balance; PyExecutor._balance_adp_requests,
// TensorRT-LLM 1.0 to 1.2). Each step, once every DP rank has formed its batch, the ranks gather how many contexts
// and generation requests each scheduled and take one decision for all:
// - every rank has a context and room for one (fewer generation requests than max_num_seqs): the wait is over; if
//   every rank also decodes, the contexts still wait while the batching count is below batching_wait_iters;
// - else the waiting count rises and the contexts are held, unless it reached timeout_iters or some rank has no
//   generation request (a context never waits for an engine that would otherwise idle).
// The waiting count rises on every step that is not a balanced one, decode-only steps included, and restarts at
// the timeout: a context that arrives during a long decode phase waits whatever is left of the current count.
// A rank with no request at all runs a dummy generation request (PyExecutor._pad_attention_dp_dummy_request) and
// counts as decoding. Held contexts keep their place and their KV blocks (Batcher::hold_contexts).
// Pure bookkeeping, no SimGrid: the replica actor and the fast closed-loop replay drive it between their ranks'
// schedule() and the step.

#include <vector>

#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

class AttentionDpBalance {
 public:
  // Does nothing unless the scheduler is TensorRT-LLM's with attention_dp_balance and there are several ranks.
  AttentionDpBalance(const specs::SchedulerSpec& spec, int dp_ranks);

  // Holds the step's contexts on every rank where TensorRT-LLM would; batches[k] (rank k's step) is reshaped.
  // Returns whether it held them.
  bool apply(std::vector<Batcher>& ranks, std::vector<BatchShape>& batches);

 private:
  bool on_;
  int timeout_iters_, batching_wait_iters_, max_batch_;
  int waiting_iters_ = 0;   // adp_ctx_waiting_iters_count
  int batching_iters_ = 0;  // adp_ctx_batching_wait_iters_count
};

}  // namespace fleetcast::simulator
