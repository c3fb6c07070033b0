// Enumerates a plan's search space into candidate deployments and writes each as a scenario.
#include "fleetcast/planner/plan_space.hpp"

#include <cstdio>

#include "fleetcast/specs/engine_defaults.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/vendor.hpp"

namespace fleetcast::planner {
namespace {

// The layout must tile the fleet's GPUs with whole replicas, keep tp inside the NVLink domain or span whole ones,
// and spread the experts evenly (the deployment parser's rules, checked here so that invalid combinations are never
// built).
bool valid_layout(const specs::ReplicaLayout& l, int gpus, const specs::HardwareSpec& hw, bool moe) {
  if (l.tp > hw.scale_up_domain_gpus && l.tp % hw.scale_up_domain_gpus != 0) return false;
  if (gpus % l.gpus() != 0) return false;
  if (l.stage_gpus() % l.ep != 0) return false;
  return moe || l.ep == 1;
}

// The batch caps and token budgets to search on one GPU under one engine: the plan's, or where it gives none the
// engine's own there (the deployment parser's defaults: a candidate and a hand-written deployment agree).
std::pair<std::vector<int>, std::vector<int>> scheduler_values(const specs::PlanSpec& plan, const std::string& hw,
                                                               const std::string& runtime) {
  const specs::SchedulerSpec engine = specs::engine_scheduler_defaults(runtime, hw);
  const auto& s = plan.search;
  return {
      s.max_num_seqs.empty() ? std::vector<int>{engine.max_num_seqs} : s.max_num_seqs,
      s.max_num_batched_tokens.empty() ? std::vector<int>{engine.max_num_batched_tokens} : s.max_num_batched_tokens};
}

// Every combination of the search space on one GPU under one engine, appended to `space` in enumeration order.
void enumerate_engine(const specs::PlanSpec& plan, const std::string& hw_name, const specs::HardwareSpec& hw,
                      const std::string& runtime, PlanSpace& space) {
  const auto& s = plan.search;
  const bool moe = plan.model_spec.moe.has_value();
  const auto [seqs_values, tokens_values] = scheduler_values(plan, hw_name, runtime);
  for (int gpus : s.gpu_counts) {
    // A fleet bigger than a server fills whole servers.
    if (gpus > hw.gpus_per_node && gpus % hw.gpus_per_node != 0) {
      ++space.invalid_combinations;
      continue;
    }
    for (bool disagg : s.disaggregated) {
      const std::vector<std::pair<int, int>> ratios =
          disagg ? s.prefill_decode_ratios : std::vector<std::pair<int, int>>{{0, 0}};
      for (const auto& [p, d] : ratios) {
        for (int tp : s.tp) {
          for (int dp : s.dp) {
            for (int ep : s.ep) {
              const specs::ReplicaLayout layout{tp, 1, ep, dp};
              if (!valid_layout(layout, gpus, hw, moe)) {
                ++space.invalid_combinations;
                continue;
              }
              const int replicas = gpus / layout.gpus();
              // A disaggregated pool's "node" is one replica (candidate_scenario): it must fit one server.
              if (disagg && (replicas % (p + d) != 0 || layout.gpus() > hw.gpus_per_node)) {
                ++space.invalid_combinations;
                continue;
              }
              for (int seqs : seqs_values) {
                for (int tokens : tokens_values) {
                  for (bool mtp : s.mtp) {
                    if (mtp && plan.model_spec.mtp_layers == 0) continue;  // nothing to draft with: not a choice
                    // The scheduler must fit one decode with its drafts in a step.
                    if (tokens < 1 + (mtp ? s.mtp_draft_tokens : 0)) {
                      ++space.invalid_combinations;
                      continue;
                    }
                    PlanCandidate c;
                    c.index = static_cast<int>(space.candidates.size());
                    c.hardware = hw_name;
                    c.runtime = runtime;
                    c.gpus = gpus;
                    c.layout = layout;
                    c.disaggregated = disagg;
                    c.prefill_replicas = disagg ? replicas / (p + d) * p : 0;
                    c.decode_replicas = disagg ? replicas / (p + d) * d : 0;
                    c.max_num_seqs = seqs;
                    c.max_num_batched_tokens = tokens;
                    c.mtp = mtp;
                    space.candidates.push_back(c);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

PlanSpace enumerate_plan_space(const specs::PlanSpec& plan) {
  PlanSpace space;
  for (const EnginePair& pair : plan_engine_pairs(plan))
    enumerate_engine(plan, pair.hardware, specs::hardware_preset(pair.hardware), pair.runtime, space);
  return space;
}

std::vector<EnginePair> plan_engine_pairs(const specs::PlanSpec& plan) {
  std::vector<EnginePair> out;
  for (const std::string& hw : plan.hardware) {
    for (const std::string& runtime : plan.runtimes)
      if (specs::runtime_vendor_mismatch(runtime, specs::hardware_preset(hw).arch).empty())
        out.push_back({hw, runtime});
  }
  return out;
}

std::vector<UnsupportedPair> plan_unsupported_pairs(const specs::PlanSpec& plan) {
  std::vector<UnsupportedPair> out;
  for (const std::string& hw : plan.hardware) {
    for (const std::string& runtime : plan.runtimes) {
      std::string reason = specs::runtime_vendor_mismatch(runtime, specs::hardware_preset(hw).arch);
      if (!reason.empty()) out.push_back({hw, runtime, std::move(reason)});
    }
  }
  return out;
}

nlohmann::json candidate_scenario(const specs::PlanSpec& plan, const PlanCandidate& c) {
  const nlohmann::json layout = {{"tp", c.layout.tp}, {"pp", 1}, {"ep", c.layout.ep}, {"dp", c.layout.dp}};
  // No policy here: the deployment's runtime gives its engine's scheduler (specs' scheduler_defaults_for).
  const nlohmann::json scheduler = {{"max_num_seqs", c.max_num_seqs},
                                    {"max_num_batched_tokens", c.max_num_batched_tokens}};
  const specs::HardwareSpec hw = specs::hardware_preset(c.hardware);
  nlohmann::json d = {{"name", candidate_text(c)}, {"hardware", c.hardware}, {"runtime", c.runtime}};
  if (c.disaggregated) {
    d["gpus_per_node"] = c.layout.gpus();
    d["nodes"] = c.prefill_replicas + c.decode_replicas;
    d["disaggregation"] = {{"prefill", {{"nodes", c.prefill_replicas}, {"replica", layout}, {"scheduler", scheduler}}},
                           {"decode", {{"nodes", c.decode_replicas}, {"replica", layout}, {"scheduler", scheduler}}}};
  } else {
    d["gpus_per_node"] = std::min(c.gpus, hw.gpus_per_node);
    d["nodes"] = c.gpus / std::min(c.gpus, hw.gpus_per_node);
    d["replica"] = layout;
    d["scheduler"] = scheduler;
    d["router"] = "least_outstanding";
  }
  if (c.mtp) {
    d["speculative"] = {{"method", "mtp"},
                        {"num_draft_tokens", plan.search.mtp_draft_tokens},
                        {"acceptance_rates", {plan.search.mtp_acceptance}}};
  }
  return {{"name", plan.name + ": " + candidate_text(c)},
          {"model", plan.model},
          {"deployment", d},
          {"workload", plan.workload},
          {"seed", plan.simulation.seed},
          {"num_requests", plan.simulation.num_requests},
          {"measurement",
           {{"warmup_fraction", plan.simulation.warmup_fraction},
            {"cooldown_fraction", plan.simulation.cooldown_fraction}}}};
}

nlohmann::json candidate_json(const PlanCandidate& c) {
  nlohmann::json j = {{"config", c.index},
                      {"hardware", c.hardware},
                      {"runtime", c.runtime},
                      {"gpus", c.gpus},
                      {"tp", c.layout.tp},
                      {"dp", c.layout.dp},
                      {"ep", c.layout.ep},
                      {"disaggregated", c.disaggregated},
                      {"max_num_seqs", c.max_num_seqs},
                      {"max_num_batched_tokens", c.max_num_batched_tokens},
                      {"mtp", c.mtp}};
  if (c.disaggregated) {
    j["prefill_replicas"] = c.prefill_replicas;
    j["decode_replicas"] = c.decode_replicas;
  }
  return j;
}

std::string candidate_text(const PlanCandidate& c) {
  char buf[160];
  const std::string pools =
      c.disaggregated ? "disagg " + std::to_string(c.prefill_replicas) + "P:" + std::to_string(c.decode_replicas) + "D"
                      : "agg";
  std::snprintf(buf, sizeof buf, "%s %s x%d tp%d dp%d ep%d %s seqs%d tok%d mtp-%s", c.hardware.c_str(),
                c.runtime.c_str(), c.gpus, c.layout.tp, c.layout.dp, c.layout.ep, pools.c_str(), c.max_num_seqs,
                c.max_num_batched_tokens, c.mtp ? "on" : "off");
  return buf;
}

}  // namespace fleetcast::planner
