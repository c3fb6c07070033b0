// AMD ATOM's step, as its scheduler forms it (ROCm/ATOM atom/model_engine/scheduler.py Scheduler.schedule, a
// nano-vllm-style engine built on AITER; docs/scheduling_kv_cache_guide.md):
// - prefill first: waiting requests are taken first come first served, each whole prompt at once, while the
//   step's prompt tokens stay within max_num_batched_tokens and the KV cache can hold the prompt's blocks; the
//   first that does not fit ends the step. A step with any prompt in it is a prefill step and runs no decode.
// - otherwise every running request decodes one token (1 + drafts). A request whose next token needs a KV block
//   that is not free preempts the latest running request (recompute: its KV is dropped and it goes back to the
//   front of the queue), or itself when it is the latest.
// - no admission reserve for the output (SGLang's new_token_ratio), no chunking (chunked_prefill is false by
//   parse), no prefix cache (ATOM's enable_prefix_caching is off by default) and no scheduler delay factor.
// One deviation, which this model does not take: ATOM caps the prompts of one step at max_num_seqs but not the
// running batch, so more than max_num_seqs requests may run and the newest of them wait for a decode slot; here,
// as in the other engines, max_num_seqs caps the running batch (a benchmark's clients stay at or below it).

#include "fleetcast/simulator/batcher.hpp"

namespace fleetcast::simulator {

void Batcher::schedule_atom(double now) {
  items_.clear();
  int budget = spec_.max_num_batched_tokens;
  while (!waiting_.empty() && static_cast<int>(running_.size()) < spec_.max_num_seqs) {
    Request* r = waiting_.front();
    const int prompt = r->prompt_target - r->kv_tokens;
    if (prompt > budget || !admit(r, 0, r->prompt_target)) break;
    start_running(r, now);
    items_.push_back({r, prompt, false});
    budget -= prompt;
  }
  if (!items_.empty()) return;

  const int verify = 1 + draft_tokens_;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Request* r = running_[i];
    bool ok = reserve(r, r->kv_tokens + verify);
    while (!ok && running_.back() != r) {
      preempt(running_.back(), true);
      ok = reserve(r, r->kv_tokens + verify);
    }
    if (!ok) {
      preempt(r, true);
      break;
    }
    items_.push_back({r, verify, true});
  }
}

}  // namespace fleetcast::simulator
