#include "fleetcast/simulator/batcher.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fleetcast::simulator {

Batcher::Batcher(const specs::SchedulerSpec& spec, KvBudget kv, std::optional<DraftAcceptance> drafts,
                 int prefix_block_tokens)
    : spec_(spec),
      kv_(std::move(kv)),
      drafts_(std::move(drafts)),
      draft_tokens_(drafts_ ? drafts_->num_draft_tokens() : 0),
      block_tokens_(std::max(1, spec.kv_block_tokens)),
      prefix_tokens_(prefix_block_tokens) {
  // Prefix caching follows vLLM v1's allocator; SGLang's radix cache and TensorRT-LLM's block reuse (both on by
  // default) share its bookkeeping, matched in the workload's prefix blocks. ATOM's is not modelled.
  if (!spec.prefix_caching || spec.policy == specs::SchedulerPolicy::atom) return;
  if (prefix_tokens_ < 1 || prefix_tokens_ % block_tokens_ != 0)
    throw std::invalid_argument("prefix_block_tokens " + std::to_string(prefix_tokens_) +
                                " is not a multiple of kv_block_tokens " + std::to_string(block_tokens_));
  prefix_cache_.emplace();
}

bool Batcher::add(Request* r) {
  r->prompt_target = r->input_tokens;
  // The last decode step also holds KV for its drafts.
  const int longest = r->input_tokens + r->output_tokens + draft_tokens_;
  const bool fits_kv = kv_.bytes_for_tokens(blocks_for(longest) * block_tokens_) <= kv_.capacity_bytes;
  const bool fits_budget = spec_.chunked_prefill || r->input_tokens <= spec_.max_num_batched_tokens;
  if (!fits_kv || !fits_budget) {
    r->failed = true;
    return false;
  }
  if (spec_.policy == specs::SchedulerPolicy::sglang && spec_.recv_interval > 1) {
    sglang_inbox_.push_back(r);  // the scheduler takes it in at its next receive (schedule_sglang.cpp)
    return true;
  }
  enqueue(r, false);
  return true;
}

Batcher::Prefilled Batcher::add_prefilled(Request* r) {
  r->prompt_target = r->input_tokens;
  const int longest = r->input_tokens + r->output_tokens + draft_tokens_;
  if (kv_.bytes_for_tokens(blocks_for(longest) * block_tokens_) > kv_.capacity_bytes) {
    r->failed = true;
    return Prefilled::never_fits;
  }
  if (static_cast<int>(running_.size()) >= spec_.max_num_seqs || !reserve(r, r->kv_tokens)) return Prefilled::no_room;
  running_.push_back(r);
  return Prefilled::admitted;
}

void Batcher::enqueue(Request* r, bool front) {
  kv_waiting_bytes_ += prompt_bytes(r);
  if (front) {
    waiting_.push_front(r);
  } else {
    waiting_.push_back(r);
  }
}

bool Batcher::reserve(Request* r, int new_kv_tokens) {
  const int blocks = blocks_for(new_kv_tokens);
  if (blocks <= r->kv_blocks) return true;
  const double now_bytes = r->kv_blocks > 0 ? kv_.bytes_for_tokens(r->kv_blocks * block_tokens_) : 0.0;
  const double new_bytes = kv_.bytes_for_tokens(blocks * block_tokens_);
  // Cached blocks no request references are free memory: counted out here, evicted if the room is needed.
  if (kv_used_bytes_ + (new_bytes - now_bytes) > kv_.capacity_bytes) return false;
  make_room(new_bytes - now_bytes);
  kv_used_bytes_ += new_bytes - now_bytes;
  r->kv_blocks = blocks;
  return true;
}

void Batcher::release(Request* r) {
  const double cached = release_prefix(r);  // its cached prefix blocks stay in the cache
  if (r->kv_blocks > 0) kv_used_bytes_ -= kv_.bytes_for_tokens(r->kv_blocks * block_tokens_) - cached;
  if (kv_used_bytes_ < 1e-6) kv_used_bytes_ = 0.0;  // no drift from adding and removing doubles
  r->kv_blocks = 0;
}

// Swap when allowed (batcher_swap.cpp), else recompute: drop the KV and queue the request again; it
// prefills input plus output so far again.
void Batcher::preempt(Request* r, bool requeue_front) {
  ++r->preemptions;
  ++preemptions_;
  running_.erase(std::find(running_.begin(), running_.end(), r));
  if (swap_out(r)) return;
  release(r);
  r->kv_tokens = 0;
  r->prompt_target = r->input_tokens + r->generated;
  ++r->recomputes;
  enqueue(r, requeue_front);
}

const BatchShape& Batcher::schedule(double now) {
  step_swap_bytes_ = 0.0;
  if (spec_.policy == specs::SchedulerPolicy::sglang) {
    schedule_sglang(now);
    return shape_batch();
  }
  if (spec_.policy == specs::SchedulerPolicy::trtllm) {
    schedule_trtllm(now);
    return shape_batch();
  }
  if (spec_.policy == specs::SchedulerPolicy::atom) {
    schedule_atom(now);
    return shape_batch();
  }
  items_.clear();
  const long long preemptions_before = preemptions_;
  int budget = spec_.max_num_batched_tokens;
  const int verify = 1 + draft_tokens_;  // a decode's tokens: its last sampled token and its drafts

  // 1. Running requests, oldest first. A request that cannot grow its KV preempts the newest ones.
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Request* r = running_[i];
    const bool decode = r->prefill_done();
    // Every decode of a step verifies the same number of drafts (BatchShape has one draft count), so one that
    // the rest of the budget cannot hold waits for the next step rather than verify fewer (vLLM would trim).
    if (decode && verify > budget) continue;
    const int tokens = decode ? verify : std::min({r->prompt_target - r->kv_tokens, budget, spec_.chunk_limit()});
    bool ok = reserve(r, r->kv_tokens + tokens);
    while (!ok && running_.back() != r) {
      preempt(running_.back());
      ok = reserve(r, r->kv_tokens + tokens);
    }
    if (!ok) {
      preempt(r);
      break;
    }
    items_.push_back({r, tokens, decode});
    budget -= tokens;
  }

  // 2. Swapped-out requests (preemption by swap only), then waiting requests, first come first served, while
  // sequences, budget and KV allow. A chunk is capped at chunk_tokens (vLLM's long_prefill_token_threshold).
  resume_swapped(budget, preemptions_before);
  while (swapped_.empty() && !waiting_.empty() && budget > 0 &&
         static_cast<int>(running_.size()) < spec_.max_num_seqs) {
    Request* r = waiting_.front();
    const int hit = prefix_hit_blocks(r);  // a waiting request holds no KV: it starts after its cached blocks
    const int start = hit * prefix_tokens_;
    const int remaining = r->prompt_target - start;
    if (!spec_.chunked_prefill && remaining > budget) break;
    const int tokens = std::min({remaining, budget, spec_.chunk_limit()});
    if (!admit(r, hit, start + tokens)) break;
    start_running(r, now);
    items_.push_back({r, tokens, false});
    budget -= tokens;
  }
  return shape_batch();
}

void Batcher::start_running(Request* r, double now) {
  waiting_.pop_front();
  kv_waiting_bytes_ = waiting_.empty() ? 0.0 : kv_waiting_bytes_ - prompt_bytes(r);  // no drift when empty
  running_.push_back(r);
  if (r->scheduled_s < 0.0) r->scheduled_s = now;
}

long long Batcher::active_prompt_tokens() const {
  long long tokens = 0;
  for (const auto* queue : {&waiting_, &swapped_, &sglang_inbox_})
    for (const Request* r : *queue) tokens += r->input_tokens;
  for (const Request* r : running_) tokens += r->input_tokens;
  return tokens;
}

const BatchShape& Batcher::shape_batch() {
  batch_.decode_contexts.clear();
  batch_.prefill.clear();
  batch_.draft_tokens = draft_tokens_;
  for (const Item& it : items_) {
    if (it.decode) {
      batch_.decode_contexts.push_back(it.req->kv_tokens);
    } else {
      batch_.prefill.push_back({it.tokens, it.req->kv_tokens, it.req->kv_tokens + it.tokens >= it.req->prompt_target});
    }
  }
  return batch_;
}

StepOutcome Batcher::complete(double now) {
  StepOutcome out;
  for (const Item& it : items_) {
    Request* r = it.req;
    int produced = 1;
    if (it.decode) {
      // The last token and the accepted drafts are kept, plus the one token the verification samples after
      // them; never more than the request still wants.
      const int accepted = drafts_ ? drafts_->draw() : 0;
      produced = std::min(1 + accepted, r->output_tokens - r->generated);
      // Rejected drafts' KV is discarded: kv_tokens advances by what was kept. Their blocks stay reserved,
      // as in vLLM, where the next step's drafts write into them.
      r->kv_tokens += produced;
      out.decode_tokens += it.tokens;
      ++out.decode_sequences;
      out.decode_output_tokens += produced;
    } else {
      r->kv_tokens += it.tokens;
      out.prefill_tokens += it.tokens;
      cache_computed_blocks(r);
      if (!r->prefill_done()) continue;  // a prompt chunk that did not finish the prompt samples nothing
    }
    const bool first = r->generated == 0;
    r->generated += produced;
    out.output_tokens += produced;
    out.tokens_by_request.emplace_back(r, produced);
    if (first) {
      r->first_token_s = now;
      ++out.first_tokens;
      out.first_token_input_tokens += r->input_tokens;
      out.first_token.push_back(r);
    } else {
      out.token_gaps_s.push_back(now - r->last_token_s);
    }
    r->last_token_s = now;
    if (r->generated >= r->output_tokens) {
      r->finish_s = now;
      release(r);
      out.finished.push_back(r);
    }
  }
  if (!out.finished.empty()) {
    std::erase_if(running_, [](const Request* r) { return r->finish_s >= 0.0; });
  }
  items_.clear();
  return out;
}

}  // namespace fleetcast::simulator
