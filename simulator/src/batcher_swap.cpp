// Preemption by swap, as vLLM v0 did it (vLLM v0.6 vllm/core/scheduler.py _preempt_by_swap and
// _schedule_swapped; --swap-space, default 4 GiB of host memory per GPU, vllm/engine/arg_utils.py): the
// victim's KV blocks move to host memory, it waits in a swapped queue and resumes with its KV moved back,
// without prefilling anything again. When the swap space cannot hold the victim it is recomputed instead
// (vLLM v0 raised an error there; falling back is what a capacity planner can still measure). The bytes
// moved in a step are reported to the replica, which adds their time over the host link to the step.

#include <algorithm>

#include "fleetcast/simulator/batcher.hpp"

namespace fleetcast::simulator {

bool Batcher::swap_out(Request* r) {
  if (spec_.preemption != specs::PreemptionMode::swap || r->kv_blocks == 0) return false;
  const double bytes = kv_.bytes_for_tokens(r->kv_blocks * block_tokens_);
  if (swap_used_bytes_ + bytes > spec_.swap_space_bytes()) return false;
  release(r);  // kv_tokens and prompt_target stay: the computed KV still exists, in host memory
  swap_used_bytes_ += bytes;
  step_swap_bytes_ += bytes;
  r->swapped_kv_bytes = bytes;
  r->swapped_out_bytes += bytes;
  ++r->swaps_out;
  // Victims are taken newest first; each goes to the front, so the oldest ends up first (vLLM's
  // swapped.extendleft).
  swapped_.push_front(r);
  return true;
}

void Batcher::resume_swapped(int& budget, long long preemptions_before) {
  if (preemptions_ != preemptions_before) return;
  const int verify = 1 + draft_tokens_;
  while (!swapped_.empty() && budget > 0 && static_cast<int>(running_.size()) < spec_.max_num_seqs) {
    Request* r = swapped_.front();
    const bool decode = r->prefill_done();
    const int tokens = decode ? verify : std::min({r->prompt_target - r->kv_tokens, budget, spec_.chunk_limit()});
    if (tokens > budget || !reserve(r, r->kv_tokens + tokens)) break;
    swapped_.pop_front();
    swap_used_bytes_ = swapped_.empty() ? 0.0 : swap_used_bytes_ - r->swapped_kv_bytes;  // no drift when empty
    step_swap_bytes_ += r->swapped_kv_bytes;
    r->swapped_kv_bytes = 0.0;
    ++r->swaps_in;
    running_.push_back(r);
    items_.push_back({r, tokens, decode});
    budget -= tokens;
  }
}

}  // namespace fleetcast::simulator
