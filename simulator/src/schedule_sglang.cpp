// SGLang's step, as its scheduler forms it (SGLang v0.4.6: python/sglang/srt/managers/scheduler.py
// get_next_batch_to_run, get_new_batch_prefill and update_running_batch; schedule_policy.py PrefillAdder;
// schedule_batch.py retract_decode; global_config.py for the token ratios), without the radix prefix cache
// (prefix reuse is modelled apart):
// - a step is either a prefill (extend) batch or a decode batch, never both (with mixed_chunk, SGLang's
//   --enable-mixed-chunk, a prefill batch also decodes every running request one token). A prefill batch is formed
//   whenever a chunked prompt is unfinished or a waiting request can be admitted: new requests go first
//   and the running requests' decodes wait for that step.
// - the prefill batch continues the one chunked request, then admits waiting requests first come first
//   served while max_num_seqs (max_running_requests), max_num_batched_tokens (max_prefill_tokens) and
//   chunk_tokens (chunked_prefill_size) allow; a prompt longer than what is left of the chunk is cut there
//   and becomes the chunked request, which ends the batch.
// - admission is conservative: a request needs its prompt + min(output, 4096) tokens of KV to be free after
//   every running request's remaining output (capped at 4096) x new_token_ratio is set aside. The ratio
//   starts at 0.7, decays by (0.7 - 0.098) / 600 per decode step to 0.098 and is reset when the engine idles.
// - a decode batch runs every running request one token (1 + drafts) with no token budget. When the KV cache
//   cannot hold the step, requests are retracted (preempted: recompute, or swap when set) one at a time,
//   the one with the fewest output tokens first and the longest prompt among equals; retracted requests
//   wait at the back of the queue, and new_token_ratio becomes min(1, (output so far + 20 x requests) /
//   max output) over the requests kept.

#include <algorithm>
#include <climits>

#include "fleetcast/simulator/batcher.hpp"

namespace fleetcast::simulator {
namespace {

constexpr int kClipMaxNewTokens = 4096;             // CLIP_MAX_NEW_TOKENS_ESTIMATION
constexpr double kMinNewTokenRatioFactor = 0.14;    // default_min_new_token_ratio_factor
constexpr double kNewTokenRatioDecaySteps = 600.0;  // default_new_token_ratio_decay_steps
constexpr int kRetractDecodeSteps = 20;             // retract_decode_steps

int clipped_new_tokens(const Request* r) { return std::min(r->output_tokens - r->generated, kClipMaxNewTokens); }

}  // namespace

// --scheduler-recv-interval N (SGLang's SchedulerRecvSkipper): before forming a batch the scheduler adds the last
// batch's weight to a counter, 1 for a decode batch and 1000 for any other (prefill, mixed), and takes in the
// requests sent since it last did once the counter reaches N. So after a prefill it receives at once, while
// decoding every N steps; an idle engine (no last batch) spins its loop and receives at once too.
void Batcher::sglang_receive() {
  const bool idle = running_.empty() && waiting_.empty() && swapped_.empty();
  sglang_recv_counter_ += (sglang_last_decode_ && !idle) ? 1 : spec_.recv_interval;
  if (sglang_recv_counter_ < spec_.recv_interval) return;
  sglang_recv_counter_ = 0;
  for (Request* r : sglang_inbox_) enqueue(r, false);
  sglang_inbox_.clear();
}

void Batcher::sglang_begin_step() {
  if (sglang_step_begun_) return;
  sglang_step_begun_ = true;
  if (spec_.recv_interval > 1) sglang_receive();
  if (running_.empty()) new_token_ratio_ = kSglangInitNewTokenRatio;
}

void Batcher::schedule_sglang(double now) {
  items_.clear();
  sglang_begin_step();
  sglang_step_begun_ = false;
  sglang_last_decode_ = false;
  const bool prefill = sglang_prefill(now);
  sglang_admissions_delayed_ = false;
  if (prefill) return;
  sglang_decode();
  sglang_last_decode_ = !items_.empty();
}

// KV left once each running request keeps room for new_token_ratio of its remaining output.
double Batcher::sglang_rem_total() const {
  double rem_total = kv_.capacity_bytes - kv_used_bytes_;
  for (const Request* r : running_) {
    if (r == sglang_chunked_) continue;
    rem_total -= kv_.bytes_for_tokens(r->kv_tokens + clipped_new_tokens(r) * new_token_ratio_) -
                 kv_.bytes_for_tokens(r->kv_tokens);
  }
  return rem_total;
}

// The first admission check of sglang_prefill's loop, on the head of the queue.
bool Batcher::sglang_prefillable() {
  sglang_begin_step();
  if (sglang_chunked_ != nullptr || waiting_.empty() || static_cast<int>(running_.size()) >= spec_.max_num_seqs)
    return false;
  if (running_.empty()) return true;  // an idle engine starts the head request, which fits the cache alone
  const Request* r = waiting_.front();
  const double rem_total = sglang_rem_total();
  const int input = r->prompt_target - prefix_hit_blocks(r) * prefix_tokens_;  // its extend_input_len
  return rem_total > 0.0 && kv_.bytes_for_tokens(input + clipped_new_tokens(r)) < rem_total;
}

bool Batcher::sglang_prefill(double now) {
  const auto full = [&] { return static_cast<int>(running_.size()) >= spec_.max_num_seqs; };
  if (sglang_chunked_ == nullptr && (waiting_.empty() || full() || sglang_admissions_delayed_)) return false;

  double rem_total = sglang_rem_total();
  int rem_input = spec_.max_num_batched_tokens;
  int rem_chunk = spec_.chunked_prefill ? spec_.chunk_limit() : INT_MAX;
  // --enable-mixed-chunk: the running requests decode inside the prefill step, and their tokens come off both
  // budgets first (PrefillAdder's mixed_with_decode_tokens).
  std::vector<Request*> decodes;
  if (spec_.mixed_chunk) {
    for (Request* r : running_)
      if (r->prefill_done()) decodes.push_back(r);
    const int verify_tokens = static_cast<int>(decodes.size()) * (1 + draft_tokens_);
    rem_input -= verify_tokens;
    if (rem_chunk != INT_MAX) rem_chunk -= verify_tokens;
  }

  if (Request* r = sglang_chunked_) {
    const int tokens = std::min(r->prompt_target - r->kv_tokens, rem_chunk);
    if (reserve(r, r->kv_tokens + tokens)) {
      const bool last = r->kv_tokens + tokens >= r->prompt_target;
      items_.push_back({r, tokens, false});
      rem_total -= kv_.bytes_for_tokens(tokens + (last ? clipped_new_tokens(r) : 0));
      rem_input -= tokens;
      rem_chunk -= tokens;
      if (last) sglang_chunked_ = nullptr;
    }
  }

  while (!sglang_admissions_delayed_ && sglang_chunked_ == nullptr && !waiting_.empty() && !full() && rem_input > 0 &&
         rem_chunk > 0 && rem_total > 0.0) {
    Request* r = waiting_.front();
    // The radix cache's match: the prompt's cached leading blocks are not computed again (extend_input_len).
    const int hit = prefix_hit_blocks(r);
    const int start = hit * prefix_tokens_;
    const int input = r->prompt_target - start;
    // NO_TOKEN; an idle engine still starts the head request, which fits the cache alone (add()).
    const bool idle = running_.empty() && items_.empty();
    if (!idle && kv_.bytes_for_tokens(input + clipped_new_tokens(r)) >= rem_total) break;
    if (input > rem_input && !items_.empty()) break;
    const bool cut = input > rem_chunk;
    const int tokens = cut ? rem_chunk : input;
    const double used_before = kv_used_bytes_;
    if (!admit(r, hit, start + tokens)) break;
    start_running(r, now);
    items_.push_back({r, tokens, false});
    rem_total -= kv_.bytes_for_tokens(tokens + (cut ? 0 : clipped_new_tokens(r)));
    // Matched nodes no running request held leave the evictable pool (inc_lock_ref): what admit pinned beyond
    // the request's own new blocks.
    if (hit > 0)
      rem_total -= (kv_used_bytes_ - used_before) - (kv_bytes(r->kv_blocks * block_tokens_) - prefix_bytes(hit));
    rem_input -= tokens;
    rem_chunk -= tokens;
    if (cut) sglang_chunked_ = r;
  }
  if (items_.empty()) return false;
  // mix_with_running: each running request decodes one token (1 + drafts) in this step.
  for (Request* r : decodes)
    if (reserve(r, r->kv_tokens + 1 + draft_tokens_)) items_.push_back({r, 1 + draft_tokens_, true});
  return true;
}

void Batcher::sglang_decode() {
  const int verify = 1 + draft_tokens_;
  const long long preemptions_before = preemptions_;
  std::vector<Request*> decodes;
  for (Request* r : running_)
    if (r->prefill_done()) decodes.push_back(r);
  const auto step_bytes = [&] {
    double bytes = 0.0;
    for (const Request* r : decodes) bytes += kv_bytes(r->kv_tokens + verify) - kv_bytes(r->kv_blocks * block_tokens_);
    return bytes;
  };
  while (decodes.size() > 1 && step_bytes() > kv_.capacity_bytes - kv_used_bytes_) {
    const auto victim = std::min_element(decodes.begin(), decodes.end(), [](const Request* a, const Request* b) {
      return a->generated != b->generated ? a->generated < b->generated : a->input_tokens > b->input_tokens;
    });
    preempt(*victim, false);
    decodes.erase(victim);
  }
  if (preemptions_ != preemptions_before) {
    double decoded = 0.0, wanted = 0.0;
    for (const Request* r : decodes) {
      decoded += r->generated;
      wanted += r->output_tokens;
    }
    new_token_ratio_ = std::min(1.0, (decoded + kRetractDecodeSteps * static_cast<double>(decodes.size())) / wanted);
  } else {
    const double min_ratio = kSglangInitNewTokenRatio * kMinNewTokenRatioFactor;
    new_token_ratio_ =
        std::max(new_token_ratio_ - (kSglangInitNewTokenRatio - min_ratio) / kNewTokenRatioDecaySteps, min_ratio);
  }
  for (Request* r : decodes)
    if (reserve(r, r->kv_tokens + verify)) items_.push_back({r, verify, true});
  int budget = INT_MAX;  // a decode batch has no token budget: max_num_seqs bounds it
  resume_swapped(budget, preemptions_before);
}

}  // namespace fleetcast::simulator
