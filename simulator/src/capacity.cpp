#include "fleetcast/simulator/capacity.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/simulator/speculative.hpp"

namespace fleetcast::simulator {

CapacityEstimate estimate_capacity(const specs::ScenarioSpec& s, const specs::RequestClass& c,
                                   const StepTimeModel& model, const MemoryPlan& memory, double max_batch_per_replica) {
  const auto& d = s.deployment;
  const double in = c.input_tokens.mean();
  const double out = std::max(1.0, c.output_tokens.mean());
  CapacityEstimate est;

  double batch = d.scheduler.max_num_seqs;
  est.limited_by = "max_num_seqs";
  // A sequence holds its prompt and, on average over its life, half its output; TensorRT-LLM's guaranteed_no_evict
  // admits a request only when the KV every started request holds at completion fits, so there each holds its whole
  // length from the start.
  const bool reserves_whole_length = d.scheduler.policy == specs::SchedulerPolicy::trtllm &&
                                     d.scheduler.capacity == specs::CapacityPolicy::guaranteed_no_evict;
  const double kv_per_seq = kv_bytes_per_gpu(s.model, d, in + (reserves_whole_length ? out : out / 2.0));
  const double kv_batch = std::floor(memory.kv_bytes / kv_per_seq);
  if (kv_batch < batch) {
    batch = kv_batch;
    est.limited_by = "kv_cache";
  }
  // The caps above are per attention-DP rank (each has its own scheduler and KV cache); clients spread over
  // the replica's ranks.
  const double dp = d.replica.dp;
  if (max_batch_per_replica / dp < batch) {
    batch = max_batch_per_replica / dp;
    est.limited_by = "clients";
  }
  // Speculative decoding: a decode runs 1 + n tokens and produces `accept` of them on average, so requests
  // finish `accept` times sooner and the prefill that replaces them grows alike.
  const int drafts = d.speculative ? d.speculative->num_draft_tokens : 0;
  const double accept = d.speculative ? analytic_acceptance_length(*d.speculative) : 1.0;
  // Tokens per step: B decodes of 1 + n tokens + B accept in / out prefill tokens, within the token budget.
  const double budget = d.scheduler.max_num_batched_tokens;
  if (batch * (1.0 + drafts + accept * in / out) > budget) {
    batch = budget * out / ((1.0 + drafts) * out + accept * in);
    est.limited_by = "token_budget";
  }
  batch = std::max(1.0, batch);

  BatchShape shape;
  shape.draft_tokens = drafts;
  const int decodes = static_cast<int>(std::lround(batch));
  shape.decode_contexts.assign(static_cast<std::size_t>(decodes), static_cast<int>(in + out / 2.0));
  // Prefill work per decode step, as whole-prompt chunks (plus a remainder) starting from an empty cache.
  const auto add_prompts = [&](BatchShape& step, double tokens) {
    while (tokens >= 1.0) {
      const double chunk = std::min(tokens, in);
      step.prefill.push_back({static_cast<int>(std::lround(chunk)), 0, true});
      tokens -= chunk;
    }
  };
  const double prefill = batch * accept * in / out;
  // SGLang (without --enable-mixed-chunk) and ATOM never put prompts and decodes in one step: a prefill step runs
  // alone and the decodes wait for it, streaming the weights once more. A cycle is then one decode step of the batch
  // and the prefill steps, each at most the step's prompt budget, that admit its replacements.
  const bool separate_prefill = (d.scheduler.policy == specs::SchedulerPolicy::sglang && !d.scheduler.mixed_chunk) ||
                                d.scheduler.policy == specs::SchedulerPolicy::atom;
  if (separate_prefill) {
    const double per_step = d.scheduler.chunk_tokens > 0 ? std::min<double>(budget, d.scheduler.chunk_tokens) : budget;
    BatchShape prefill_step;
    add_prompts(prefill_step, std::min(prefill, per_step));
    const double prefill_s = prefill_step.prefill.empty() ? 0.0 : model.predict(prefill_step).total_s;
    est.step_s = model.predict(shape).total_s + (prefill > per_step ? prefill / per_step : 1.0) * prefill_s;
  } else {
    add_prompts(shape, prefill);
    est.step_s = model.predict(shape).total_s;  // every DP rank running `shape`
  }
  est.batch_per_replica = batch * dp;
  est.requests_per_s = d.num_replicas() * est.batch_per_replica * accept / (out * est.step_s);
  return est;
}

}  // namespace fleetcast::simulator
