// TensorRT-LLM's in-flight batching step (TensorRT-LLM v0.20: cpp/tensorrt_llm/batch_manager/
// capacityScheduler.cpp and microBatchScheduler.cpp; the "Useful Runtime Options" guide for the capacity
// policies), at this simulator's level:
// - capacity scheduler. GUARANTEED_NO_EVICT (TensorRT-LLM's default) counts for every started request the KV
//   blocks it holds at completion (prompt + whole output) and admits a new request, first come first served,
//   only when its own completion fits in what is left: nothing is ever paused, and a request that does not
//   fit stops admission. MAX_UTILIZATION reserves only the blocks of the next step and pauses the latest
//   started request when a running one cannot grow (its KV is freed: recompute, or swap when set).
// - micro-batch scheduler: generation requests (one token, plus drafts) first, oldest first, then context
//   chunks first come first served (started contexts, then new ones) in the tokens max_num_batched_tokens
//   (max_num_tokens) leaves, up to max_num_seqs (max_batch_size) requests. A context chunk that does not end
//   the prompt is a whole number of KV blocks (the chunk unit is tokens_per_block) and at most chunk_tokens.
// - batch waiting (PyExecutor._waiting_requests, TensorRT-LLM 1.1+: batch_wait_timeout_iters and
//   batch_wait_max_tokens_ratio): in a step that has both contexts and generation requests, the contexts are
//   held back until they have waited batch_wait_iters steps or the step's tokens (each context's whole prompt,
//   each generation request's one token) reach the ratio x max_num_tokens; a step without generation requests
//   never waits. Held-back contexts keep their place and their blocks.
// The CUDA-graph decode (a decode-only step's smaller host overhead) is in the step time
// (SchedulerSpec::decode_overhead_share).

#include <algorithm>

#include "fleetcast/simulator/batcher.hpp"

namespace fleetcast::simulator {

void Batcher::schedule_trtllm(double now) {
  items_.clear();
  const bool no_evict = spec_.capacity == specs::CapacityPolicy::guaranteed_no_evict;
  const long long preemptions_before = preemptions_;
  const int verify = 1 + draft_tokens_;
  int budget = spec_.max_num_batched_tokens;
  // The prompt tokens r computes in this step from `start` (its KV so far, or a new request's reused blocks): 0 when
  // none fit.
  const auto context_chunk = [&](const Request* r, int start) {
    const int remaining = r->prompt_target - start;
    if (!spec_.chunked_prefill) return remaining <= budget ? remaining : 0;
    const int limit = std::min(budget, spec_.chunk_limit());
    return remaining <= limit ? remaining : limit / block_tokens_ * block_tokens_;
  };

  // 1. Generation requests, oldest first. Under MAX_UTILIZATION one that cannot grow pauses the newest.
  for (std::size_t i = 0; i < running_.size() && budget >= verify; ++i) {
    Request* r = running_[i];
    if (!r->prefill_done()) continue;
    bool ok = reserve(r, r->kv_tokens + verify);
    while (!ok && !no_evict && running_.back() != r) {
      preempt(running_.back());
      ok = reserve(r, r->kv_tokens + verify);
    }
    if (!ok) {
      if (no_evict) continue;  // cannot happen: its completion was reserved at admission
      preempt(r);
      break;
    }
    items_.push_back({r, verify, true});
    budget -= verify;
  }

  // 2. Started contexts, oldest first; a chunk that finds no free blocks waits for the next step.
  for (Request* r : running_) {
    if (r->prefill_done() || budget <= 0) continue;
    const int tokens = context_chunk(r, r->kv_tokens);
    if (tokens <= 0 || !reserve(r, r->kv_tokens + tokens)) continue;
    items_.push_back({r, tokens, false});
    budget -= tokens;
  }

  // 3. Paused requests whose KV is in host memory, then new requests.
  resume_swapped(budget, preemptions_before);
  double committed = 0.0;  // GUARANTEED_NO_EVICT: KV the started requests hold at completion
  if (no_evict)
    for (const Request* r : running_) committed += kv_bytes(r->input_tokens + r->output_tokens + draft_tokens_);
  while (swapped_.empty() && !waiting_.empty() && budget > 0 &&
         static_cast<int>(running_.size()) < spec_.max_num_seqs) {
    Request* r = waiting_.front();
    const double completion = no_evict ? kv_bytes(r->input_tokens + r->output_tokens + draft_tokens_) : 0.0;
    if (committed + completion > kv_.capacity_bytes) break;
    // Block reuse: the prompt's cached leading blocks are not computed again.
    const int hit = prefix_hit_blocks(r);
    const int start = hit * prefix_tokens_;
    const int tokens = context_chunk(r, start);
    if (tokens <= 0 || !admit(r, hit, start + tokens)) break;
    start_running(r, now);
    items_.push_back({r, tokens, false});
    budget -= tokens;
    committed += completion;
  }
  trtllm_batch_wait();
}

void Batcher::trtllm_batch_wait() {
  if (spec_.batch_wait_iters == 0 && spec_.batch_wait_tokens_ratio == 0.0) return;
  const auto is_decode = [](const Item& it) { return it.decode; };
  const bool any_decode = std::any_of(items_.begin(), items_.end(), is_decode);
  if (!any_decode || std::all_of(items_.begin(), items_.end(), is_decode)) return;
  double tokens = 0.0;
  for (const Item& it : items_) tokens += it.decode ? it.tokens : it.req->prompt_target;
  const bool go = trtllm_batch_wait_count_ >= spec_.batch_wait_iters ||
                  tokens >= spec_.batch_wait_tokens_ratio * spec_.max_num_batched_tokens;
  if (go) {
    trtllm_batch_wait_count_ = 0;
    return;
  }
  ++trtllm_batch_wait_count_;
  drop_contexts();  // schedule() shapes the batch after
}

int Batcher::step_decodes() const {
  return static_cast<int>(std::count_if(items_.begin(), items_.end(), [](const Item& it) { return it.decode; }));
}

void Batcher::drop_contexts() {
  items_.erase(std::remove_if(items_.begin(), items_.end(), [](const Item& it) { return !it.decode; }), items_.end());
}

const BatchShape& Batcher::hold_contexts() {
  drop_contexts();
  return shape_batch();
}

}  // namespace fleetcast::simulator
