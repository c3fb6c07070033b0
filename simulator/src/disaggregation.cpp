#include "fleetcast/simulator/disaggregation.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/simulator/speculative.hpp"

namespace fleetcast::simulator {
namespace {

PoolPlan plan_pool(const specs::ScenarioSpec& s, specs::Pool pool, const calibration::Profile& profile,
                   const std::string& file) {
  PoolPlan p;
  p.deployment = specs::pool_deployment(s.deployment, pool);
  p.memory = plan_memory(s.model, p.deployment);
  require_fits(p.memory, s.model, p.deployment, file);
  p.step_model = std::make_unique<StepTimeModel>(s.model, p.deployment, profile);
  p.replicas = p.deployment.num_replicas();
  return p;
}

CapacityEstimate prefill_capacity(const specs::RequestClass& c, const PoolPlan& pool) {
  const auto& sched = pool.deployment.scheduler;
  const double in = std::max(1.0, c.input_tokens.mean());
  CapacityEstimate est;
  est.limited_by = "token_budget";
  double tokens = sched.max_num_batched_tokens;
  if (!sched.chunked_prefill) tokens = std::max(1.0, std::floor(tokens / in)) * in;
  if (sched.max_num_seqs * in < tokens) {
    tokens = sched.max_num_seqs * in;
    est.limited_by = "max_num_seqs";
  }
  BatchShape shape;
  for (double left = tokens; left >= 1.0; left -= in) {
    shape.prefill.push_back({static_cast<int>(std::lround(std::min(left, in))), 0, true});
  }
  const double dp = pool.deployment.replica.dp;
  est.step_s = pool.step_model->predict(shape).total_s;
  est.batch_per_replica = dp * static_cast<double>(shape.prefill.size());
  est.requests_per_s = pool.replicas * dp * tokens / (est.step_s * in);
  return est;
}

CapacityEstimate decode_capacity(const specs::ScenarioSpec& s, const specs::RequestClass& c, const PoolPlan& pool,
                                 double max_batch_per_replica) {
  const auto& d = pool.deployment;
  const double in = c.input_tokens.mean();
  const double out = std::max(1.0, c.output_tokens.mean());
  const int drafts = d.speculative ? d.speculative->num_draft_tokens : 0;
  const double accept = d.speculative ? analytic_acceptance_length(*d.speculative) : 1.0;
  const double dp = d.replica.dp;
  CapacityEstimate est;
  double batch = d.scheduler.max_num_seqs;
  est.limited_by = "max_num_seqs";
  const auto limit = [&](double cap, const char* why) {
    if (cap < batch) {
      batch = cap;
      est.limited_by = why;
    }
  };
  limit(std::floor(pool.memory.kv_bytes / kv_bytes_per_gpu(s.model, d, in + out / 2.0)), "kv_cache");
  limit(std::floor(d.scheduler.max_num_batched_tokens / (1.0 + drafts)), "token_budget");
  limit(max_batch_per_replica / dp, "clients");
  batch = std::max(1.0, batch);
  BatchShape shape;
  shape.draft_tokens = drafts;
  shape.decode_contexts.assign(static_cast<std::size_t>(std::lround(batch)), static_cast<int>(in + out / 2.0));
  est.step_s = pool.step_model->predict(shape).total_s;
  est.batch_per_replica = batch * dp;
  est.requests_per_s = pool.replicas * est.batch_per_replica * accept / (std::max(1.0, out - 1.0) * est.step_s);
  return est;
}

}  // namespace

DisaggregatedPlan plan_pools(const specs::ScenarioSpec& s, const calibration::Profile& profile,
                             const std::string& file) {
  return {plan_pool(s, specs::Pool::prefill, profile, file), plan_pool(s, specs::Pool::decode, profile, file)};
}

CapacityEstimate estimate_disaggregated_capacity(const specs::ScenarioSpec& s, const specs::RequestClass& c,
                                                 const DisaggregatedPlan& pools, double max_batch_per_decode_replica) {
  CapacityEstimate prefill = prefill_capacity(c, pools.prefill);
  CapacityEstimate decode = decode_capacity(s, c, pools.decode, max_batch_per_decode_replica);
  prefill.limited_by = "prefill_pool:" + prefill.limited_by;
  decode.limited_by = "decode_pool:" + decode.limited_by;
  return prefill.requests_per_s < decode.requests_per_s ? prefill : decode;
}

}  // namespace fleetcast::simulator
