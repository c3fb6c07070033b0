// The analytic pruning of plan candidates: each rejection names its reason and the figure that decided it.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/planner/plan_bounds.hpp"
#include "fleetcast/planner/plan_space.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/specs/load.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

nlohmann::json plan_json(const std::string& model, double rate, double ttft_ms, double tpot_ms) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "t",
    "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1.0},
                 "input_tokens": {"kind": "fixed", "value": 1000},
                 "output_tokens": {"kind": "fixed", "value": 100}},
    "hardware": ["h100"],
    "max_gpus": 8
  })");
  j["model"] = model;
  j["workload"]["arrival"]["rate_per_s"] = rate;
  if (ttft_ms > 0.0) j["workload"]["slo"]["ttft_ms"] = ttft_ms;
  if (tpot_ms > 0.0) j["workload"]["slo"]["tpot_ms"] = tpot_ms;
  return j;
}

planner::PlanCandidate candidate(int gpus, int tp) {
  planner::PlanCandidate c;
  c.hardware = "h100";
  c.runtime = "vllm";
  c.gpus = gpus;
  c.layout = {tp, 1, 1, 1};
  c.max_num_seqs = 64;
  c.max_num_batched_tokens = 8192;
  return c;
}

specs::ScenarioSpec scenario(const specs::PlanSpec& p, const planner::PlanCandidate& c) {
  return specs::parse_scenario(planner::candidate_scenario(p, c), "plan.json");
}

}  // namespace

TEST_CASE("a configuration whose weights exceed the HBM is rejected for memory, naming the bytes", "[planner][plan]") {
  // Qwen3-235B-A22B in FP8 holds ~235 GB of weights: three times one H100's 80 GB. At TP4 a GPU holds a quarter
  // (~59 GB) and the rest of the 72 GB budget holds the KV cache.
  const specs::PlanSpec p = specs::parse_plan(plan_json("qwen3-235b-a22b", 0.1, 0, 1000), "plan.json");
  const specs::ScenarioSpec one = scenario(p, candidate(1, 1));
  const auto r = planner::bound_rejection(p, one);
  REQUIRE(r);
  CHECK(r->reason == "memory");
  CHECK(r->metric == "weight_bytes_per_gpu");
  const simulator::MemoryPlan m = simulator::plan_memory(one.model, one.deployment);
  CHECK(r->value == m.weight_bytes);
  CHECK(r->value > one.deployment.hardware.hbm_bytes());
  CHECK(r->limit < r->value);
  CHECK(r->detail.find("bytes") != std::string::npos);

  const auto tp4 = planner::bound_rejection(p, scenario(p, candidate(4, 4)));
  CHECK((!tp4 || tp4->reason != "memory"));
}

TEST_CASE("a configuration whose KV cache cannot hold the longest request is rejected for memory", "[planner][plan]") {
  // Qwen3-32B in BF16 on one H100: ~65.5 GB of weights leave a few GB of the 72 GB budget for KV, at 256 KiB per
  // token (64 layers x 8 KV heads x 128 x K and V x 2 bytes); a 40,000-token request needs ~10.5 GB.
  nlohmann::json j = plan_json("qwen3-32b", 0.1, 0, 1000);
  j["workload"]["input_tokens"] = {{"kind", "fixed"}, {"value", 39900}};
  const specs::PlanSpec p = specs::parse_plan(j, "plan.json");
  const specs::ScenarioSpec s = scenario(p, candidate(1, 1));
  const simulator::MemoryPlan m = simulator::plan_memory(s.model, s.deployment);
  REQUIRE(m.fits());
  const auto r = planner::bound_rejection(p, s);
  REQUIRE(r);
  CHECK(r->reason == "memory");
  CHECK(r->metric == "kv_bytes_per_gpu");
  CHECK(r->value == simulator::kv_bytes_per_gpu(s.model, s.deployment, 40000));
  CHECK(r->value > 40000 * 262144.0 * 0.99);
  CHECK(r->limit == m.kv_bytes);
  // Four GPUs at TP4 hold a quarter of the weights and of each token's KV: the request fits.
  const auto tp4 = planner::bound_rejection(p, scenario(p, candidate(4, 4)));
  CHECK((!tp4 || tp4->reason != "memory"));
}

TEST_CASE("a TPOT objective below the batch-1 step time is rejected for slo with the floor", "[planner][plan]") {
  // One decode token of an 8B model reads its ~16 GB of weights: over 4 ms on an H100's 3.35 TB/s.
  const specs::PlanSpec p = specs::parse_plan(plan_json("llama-3.1-8b", 0.1, 0, 2.0), "plan.json");
  const specs::ScenarioSpec s = scenario(p, candidate(1, 1));
  const auto r = planner::bound_rejection(p, s);
  REQUIRE(r);
  CHECK(r->reason == "slo");
  CHECK(r->metric == "tpot_ms");
  CHECK(r->request_class == s.workload.classes[0].name);
  CHECK(r->limit == 2.0);
  // The profile the model takes (on H100 under vLLM, the dense models' own fit).
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model));
  CHECK(r->value == Approx(1e3 / simulator::decode_point(model, s.deployment, 1, 1000).tokens_per_s_per_user));
  CHECK(r->value > 4.0);
}

TEST_CASE("a TTFT objective below a lone prompt's prefill time is rejected for slo", "[planner][plan]") {
  const specs::PlanSpec p = specs::parse_plan(plan_json("llama-3.1-8b", 0.1, 1.0, 0), "plan.json");
  const auto r = planner::bound_rejection(p, scenario(p, candidate(1, 1)));
  REQUIRE(r);
  CHECK(r->reason == "slo");
  CHECK(r->metric == "ttft_ms");
  CHECK(r->value > 1.0);
}

TEST_CASE("an offered rate above the estimated capacity is rejected for capacity; more GPUs lift it",
          "[planner][plan]") {
  const specs::PlanSpec p = specs::parse_plan(plan_json("llama-3.1-8b", 200.0, 0, 1000), "plan.json");
  const auto one = planner::bound_rejection(p, scenario(p, candidate(1, 1)));
  REQUIRE(one);
  CHECK(one->reason == "capacity");
  CHECK(one->limit == 200.0);
  CHECK(one->value * (1.0 + p.capacity_slack) < 200.0);
  // Eight replicas carry about eight times one replica's rate.
  const auto eight = planner::bound_rejection(p, scenario(p, candidate(8, 1)));
  if (eight) {
    REQUIRE(eight->reason == "capacity");
    CHECK(eight->value == Approx(8.0 * one->value).epsilon(0.01));
  }
}

TEST_CASE("the plan's limits reject by GPUs and by $/hour at the hardware's price", "[planner][plan]") {
  nlohmann::json j = plan_json("llama-3.1-8b", 1.0, 0, 1000);
  j["max_gpus"] = 2;
  j["budget_usd_per_hour"] = 5.0;  // an H100 is $3.00/hour (specs/presets/hardware/h100.json)
  const specs::PlanSpec p = specs::parse_plan(j, "plan.json");
  const auto four = planner::limit_rejection(p, scenario(p, candidate(4, 1)));
  REQUIRE(four);
  CHECK(four->reason == "gpu_limit");
  CHECK(four->value == 4.0);
  CHECK(four->limit == 2.0);
  const auto two = planner::limit_rejection(p, scenario(p, candidate(2, 1)));
  REQUIRE(two);
  CHECK(two->reason == "budget");
  CHECK(two->value == Approx(6.0));
  CHECK_FALSE(planner::limit_rejection(p, scenario(p, candidate(1, 1))));
}

TEST_CASE("the plan space holds only valid deployments, in a fixed order", "[planner][plan]") {
  nlohmann::json j = plan_json("llama-3.1-8b", 1.0, 0, 1000);
  j["search"] = {{"gpu_counts", {1, 2, 12}},          {"tp", {1, 2, 16}},
                 {"max_num_seqs", {8, 64}},           {"disaggregated", {false, true}},
                 {"prefill_decode_ratios", {{1, 1}}}, {"mtp", {false, true}}};
  const specs::PlanSpec p = specs::parse_plan(j, "plan.json");
  const planner::PlanSpace space = planner::enumerate_plan_space(p);
  // Valid: 1 GPU tp1 (aggregated only: 1 replica cannot split 1:1); 2 GPUs tp1 (agg, disagg 1P:1D), tp2 (agg);
  // each with 2 batch caps; MTP skipped (Llama-3.1-8B has no MTP layers); 12 GPUs is not whole H100 servers.
  CHECK(space.candidates.size() == 4 * 2);
  for (std::size_t i = 0; i < space.candidates.size(); ++i) {
    const auto& c = space.candidates[i];
    CHECK(c.index == static_cast<int>(i));
    CHECK_FALSE(c.mtp);
    CHECK_NOTHROW(specs::parse_scenario(planner::candidate_scenario(p, c), "plan.json"));
  }
  CHECK(space.candidates[0].gpus == 1);
  CHECK(space.candidates.back().gpus == 2);
}

TEST_CASE("a plan searches each engine it lists on each GPU the engine runs on, with its scheduler",
          "[planner][plan]") {
  nlohmann::json j = plan_json("llama-3.1-8b", 1.0, 0, 1000);
  j["hardware"] = {"h100", "mi300x"};
  j["runtime"] = {"vllm", "sglang", "trtllm", "atom", "deepinfer"};
  j["search"] = {{"gpu_counts", {1}}, {"tp", {1}}};
  const specs::PlanSpec p = specs::parse_plan(j, "plan.json");
  std::vector<std::string> order;
  for (const auto& c : planner::enumerate_plan_space(p).candidates) {
    order.push_back(c.hardware + " " + c.runtime);
    const specs::SchedulerSpec s = scenario(p, c).deployment.scheduler;
    CAPTURE(c.hardware, c.runtime);
    CHECK(scenario(p, c).deployment.runtime == c.runtime);
    const auto expected = c.runtime == "sglang"   ? specs::SchedulerPolicy::sglang
                          : c.runtime == "trtllm" ? specs::SchedulerPolicy::trtllm
                          : c.runtime == "atom"   ? specs::SchedulerPolicy::atom
                                                  : specs::SchedulerPolicy::vllm;  // vllm, and deepinfer's vLLM step
    CHECK(s.policy == expected);
    if (c.runtime == "atom") CHECK_FALSE(s.chunked_prefill);  // ATOM prefills each prompt whole
    CHECK(planner::candidate_text(c).starts_with(c.hardware + " " + c.runtime + " x1 "));
  }
  // Hardware as listed, then the engines as listed; TensorRT-LLM is NVIDIA's, ATOM AMD's.
  CHECK(order == std::vector<std::string>{"h100 vllm", "h100 sglang", "h100 trtllm", "h100 deepinfer", "mi300x vllm",
                                          "mi300x sglang", "mi300x atom", "mi300x deepinfer"});
  const auto skipped = planner::plan_unsupported_pairs(p);
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].hardware == "h100");
  CHECK(skipped[0].runtime == "atom");
  CHECK(skipped[0].reason == "ATOM (ROCm) runs on AMD GPUs only; sm_90 is NVIDIA's");
  CHECK(skipped[1].hardware == "mi300x");
  CHECK(skipped[1].runtime == "trtllm");
  CHECK(skipped[1].reason == "TensorRT-LLM (CUDA) runs on NVIDIA GPUs only; gfx942 is AMD's");
}

// A plan that gives no batch caps or token budgets searches each GPU at its runtime's engine's own, as a deployment
// leaving them out runs (tests/specs/test_deployment.cpp has the table).
TEST_CASE("a plan without batch caps searches the engine's defaults on each GPU", "[planner][plan]") {
  nlohmann::json j = plan_json("llama-3.1-8b", 1.0, 0, 1000);
  j["hardware"] = {"h100", "b200", "a100"};
  j["search"] = {{"gpu_counts", {1}}, {"tp", {1}}};
  const auto values = [&](const char* runtime) {
    j["runtime"] = runtime;
    std::vector<std::pair<int, int>> out;
    for (const auto& c : planner::enumerate_plan_space(specs::parse_plan(j, "plan.json")).candidates)
      out.emplace_back(c.max_num_seqs, c.max_num_batched_tokens);
    return out;
  };
  // vLLM's API server: 1,024 / 8,192 on an H100, 16,384 tokens on a B200 (178 GiB), 256 / 2,048 on an A100.
  CHECK(values("vllm") == std::vector<std::pair<int, int>>{{1024, 8192}, {1024, 16384}, {256, 2048}});
  CHECK(values("trtllm") == std::vector<std::pair<int, int>>{{2048, 8192}, {2048, 8192}, {2048, 8192}});
  j["search"]["max_num_seqs"] = {64};  // given: the same on every GPU
  CHECK(values("vllm") == std::vector<std::pair<int, int>>{{64, 8192}, {64, 16384}, {64, 2048}});
}
