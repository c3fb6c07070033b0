// The analytic pruning of plan candidates (plan_bounds.hpp).
#include "fleetcast/planner/plan_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/capacity.hpp"
#include "fleetcast/simulator/disaggregation.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/simulator/workload_plan.hpp"

namespace fleetcast::planner {
namespace {

std::string fmt(const char* format, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

specs::DeploymentSpec pool_or_whole(const specs::DeploymentSpec& d, specs::Pool pool) {
  return d.disaggregation ? specs::pool_deployment(d, pool) : d;
}

std::string pool_name(const specs::DeploymentSpec& d, specs::Pool pool) {
  if (!d.disaggregation) return "";
  return pool == specs::Pool::prefill ? "prefill" : "decode";
}

// The weights must leave room for a KV cache, and that cache must hold the longest request the workload sends
// (vLLM refuses to start when max_model_len does not fit: vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory).
std::optional<Rejection> memory_rejection(const specs::ScenarioSpec& s, specs::Pool pool) {
  const specs::DeploymentSpec d = pool_or_whole(s.deployment, pool);
  const simulator::MemoryPlan m = simulator::plan_memory(s.model, d);
  if (!m.fits()) {
    const double room = m.budget_bytes - m.activation_bytes - m.runtime_reserve_bytes;
    return Rejection{"memory",
                     "weight_bytes_per_gpu",
                     "",
                     pool_name(s.deployment, pool),
                     m.weight_bytes,
                     room,
                     fmt("weights need %.3g bytes per GPU; HBM x gpu_memory_utilization (%.3g bytes) less "
                         "activations and runtime reserve leaves %.3g",
                         m.weight_bytes, m.budget_bytes, room)};
  }
  for (const specs::RequestClass& c : s.workload.classes) {
    const int longest = longest_length(c.input_tokens, s.model.max_context_tokens) +
                        longest_length(c.output_tokens, s.model.max_context_tokens);
    const double need = simulator::kv_bytes_per_gpu(s.model, d, std::min(longest, s.model.max_context_tokens));
    if (need > m.kv_bytes) {
      return Rejection{"memory",
                       "kv_bytes_per_gpu",
                       c.name,
                       pool_name(s.deployment, pool),
                       need,
                       m.kv_bytes,
                       fmt("the longest request (%.0f tokens) needs %.3g bytes of KV per GPU; %.3g are left after "
                           "the weights",
                           longest, need, m.kv_bytes)};
    }
  }
  return std::nullopt;
}

// A request alone: its prefill in chunks back to back (TTFT floor), then one decode step per accepted token
// (TPOT floor). Queueing, other requests and KV transfer only add to both.
std::optional<Rejection> slo_rejection(const specs::ScenarioSpec& s) {
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model);
  const specs::DeploymentSpec pd = pool_or_whole(s.deployment, specs::Pool::prefill);
  const specs::DeploymentSpec dd = pool_or_whole(s.deployment, specs::Pool::decode);
  const simulator::StepTimeModel prefill_model(s.model, pd, profile);
  const simulator::StepTimeModel decode_model(s.model, dd, profile);
  for (const specs::RequestClass& c : s.workload.classes) {
    const int in = median_length(c.input_tokens);
    if (c.slo.ttft_ms > 0.0) {
      // Prefix-cache hits skip the shared prefix's compute: only the rest is a floor.
      const int computed = std::max(1, in - (c.prefix && pd.scheduler.prefix_caching ? c.prefix->tokens : 0));
      const int chunk = pd.scheduler.chunked_prefill ? pd.scheduler.chunk_limit() : computed;
      const double ttft_ms = 1e3 * simulator::prompt_alone_s(prefill_model, std::max(1, chunk), computed);
      if (ttft_ms > c.slo.ttft_ms) {
        return Rejection{"slo",
                         "ttft_ms",
                         c.name,
                         pool_name(s.deployment, specs::Pool::prefill),
                         ttft_ms,
                         c.slo.ttft_ms,
                         fmt("a median prompt (%.0f tokens) alone takes %.1f ms to prefill, above the TTFT "
                             "objective %.1f ms",
                             computed, ttft_ms, c.slo.ttft_ms)};
      }
    }
    if (c.slo.tpot_ms > 0.0) {
      const simulator::DecodePoint p = simulator::decode_point(decode_model, dd, 1, in);
      const double tpot_ms = 1e3 / p.tokens_per_s_per_user;
      if (tpot_ms > c.slo.tpot_ms) {
        return Rejection{"slo",
                         "tpot_ms",
                         c.name,
                         pool_name(s.deployment, specs::Pool::decode),
                         tpot_ms,
                         c.slo.tpot_ms,
                         fmt("a decode step at batch 1 (context %.0f) gives %.2f ms per token, above the TPOT "
                             "objective %.2f ms",
                             in, tpot_ms, c.slo.tpot_ms)};
      }
    }
  }
  return std::nullopt;
}

// The mix's saturated throughput (workload_plan.hpp: batch at max_num_seqs, the KV cache or the token budget)
// against the offered rate.
std::optional<Rejection> capacity_rejection(const specs::PlanSpec& plan, const specs::ScenarioSpec& s) {
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model);
  simulator::WorkloadPlan w;
  if (s.deployment.disaggregation) {
    const simulator::DisaggregatedPlan pools = simulator::plan_pools(s, profile, "");
    w = simulator::plan_workload(s, pools.decode.replicas, [&](const specs::RequestClass& c, double max_batch) {
      return simulator::estimate_disaggregated_capacity(s, c, pools, max_batch);
    });
  } else {
    const simulator::MemoryPlan memory = simulator::plan_memory(s.model, s.deployment);
    const simulator::StepTimeModel model(s.model, s.deployment, profile);
    w = simulator::plan_workload(s, model, memory);
  }
  const double capacity = w.mix.requests_per_s;
  const double offered = w.open_rate_per_s;
  if (capacity * (1.0 + plan.capacity_slack) >= offered) return std::nullopt;
  return Rejection{"capacity",
                   "requests_per_s",
                   "",
                   "",
                   capacity,
                   offered,
                   fmt("estimated capacity %.3g requests/s (limited by ", capacity) + w.mix.limited_by +
                       fmt(") x (1 + slack %.2f) is below the offered %.3g requests/s", plan.capacity_slack, offered)};
}

}  // namespace

nlohmann::json to_json(const Rejection& r) {
  nlohmann::json j = {
      {"reason", r.reason}, {"metric", r.metric}, {"value", r.value}, {"limit", r.limit}, {"detail", r.detail}};
  if (!r.request_class.empty()) j["class"] = r.request_class;
  if (!r.pool.empty()) j["pool"] = r.pool;
  return j;
}

double usd_per_hour(const specs::ScenarioSpec& s) { return s.cost.usd_per_gpu_hour * s.deployment.total_gpus(); }

std::optional<Rejection> limit_rejection(const specs::PlanSpec& plan, const specs::ScenarioSpec& s) {
  const int gpus = s.deployment.total_gpus();
  if (plan.max_gpus > 0 && gpus > plan.max_gpus) {
    return Rejection{"gpu_limit",
                     "gpus",
                     "",
                     "",
                     static_cast<double>(gpus),
                     static_cast<double>(plan.max_gpus),
                     fmt("%.0f GPUs exceed max_gpus %.0f", gpus, plan.max_gpus)};
  }
  const double cost = usd_per_hour(s);
  if (plan.budget_usd_per_hour > 0.0 && cost > plan.budget_usd_per_hour) {
    return Rejection{"budget",
                     "usd_per_hour",
                     "",
                     "",
                     cost,
                     plan.budget_usd_per_hour,
                     fmt("%.2f $/hour exceeds the budget %.2f $/hour", cost, plan.budget_usd_per_hour)};
  }
  return std::nullopt;
}

std::optional<Rejection> bound_rejection(const specs::PlanSpec& plan, const specs::ScenarioSpec& s) {
  if (auto r = memory_rejection(s, specs::Pool::prefill)) return r;
  if (s.deployment.disaggregation) {
    if (auto r = memory_rejection(s, specs::Pool::decode)) return r;
  }
  if (auto r = slo_rejection(s)) return r;
  return capacity_rejection(plan, s);
}

int median_length(const specs::LengthDistribution& l) {
  switch (l.kind) {
    case specs::LengthKind::fixed:
      return l.value;
    case specs::LengthKind::uniform:
      return (l.min + l.max) / 2;
    case specs::LengthKind::lognormal: {
      const double m = std::clamp(l.median, static_cast<double>(l.min), l.max > 0 ? l.max : l.median);
      return std::max(1, static_cast<int>(std::floor(m)));
    }
    case specs::LengthKind::empirical: {
      std::vector<int> v = l.values;
      std::sort(v.begin(), v.end());
      return v[(v.size() - 1) / 2];
    }
  }
  return 1;
}

int longest_length(const specs::LengthDistribution& l, int context_tokens) {
  switch (l.kind) {
    case specs::LengthKind::fixed:
      return l.value;
    case specs::LengthKind::uniform:
      return l.max;
    case specs::LengthKind::lognormal:
      return l.max > 0 ? l.max : context_tokens;
    case specs::LengthKind::empirical:
      return *std::max_element(l.values.begin(), l.values.end());
  }
  return context_tokens;
}

}  // namespace fleetcast::planner
