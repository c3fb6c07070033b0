// The plan search end to end on a toy workload: its answer against exhaustive simulation, and its output bytes.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/planner/plan_report.hpp"
#include "fleetcast/planner/plan_search.hpp"
#include "fleetcast/planner/slo_margin.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/plan.hpp"

using namespace fleetcast;

namespace {

const char* const kToy = FLEETCAST_PLANNER_DATA "/plan-toy.json";

planner::PlanOptions options(int jobs, bool prune) {
  planner::PlanOptions o;
  o.jobs = jobs;
  o.prune = prune;
  o.file = kToy;
  return o;
}

bool pruned_by_bounds(const planner::PlanEntry& e) {
  return !e.simulated && e.rejection && e.rejection->reason != "budget" && e.rejection->reason != "gpu_limit";
}

}  // namespace

TEST_CASE("the plan for a toy workload picks the configuration exhaustive simulation says is cheapest",
          "[planner][plan]") {
  const specs::PlanSpec p = specs::load_plan(kToy);
  const planner::PlanResult pruned = planner::run_plan(p, options(2, true));
  const planner::PlanResult all = planner::run_plan(p, options(2, false));
  REQUIRE(pruned.entries.size() == all.entries.size());

  // The exhaustive answer, found here by scanning every simulated candidate (not through the ranking code).
  int cheapest = -1;
  double best = std::numeric_limits<double>::infinity();
  for (const planner::PlanEntry& e : all.entries) {
    if (!e.simulated || e.rejection) continue;
    const double usd_per_m = e.figures["usd_per_m_blended"].get<double>();
    if (usd_per_m < best) {
      best = usd_per_m;
      cheapest = e.candidate.index;
    }
  }
  REQUIRE(cheapest >= 0);
  REQUIRE_FALSE(pruned.ranking.empty());
  CHECK(pruned.ranking.front() == cheapest);
  CHECK(all.ranking.front() == cheapest);

  // The toy is built so that every stage matters: the budget rejects some, the bounds prune some, the simulation
  // rejects some, and some are feasible.
  int by_limit = 0, by_bounds = 0, after_simulation = 0;
  for (const planner::PlanEntry& e : pruned.entries) {
    if (e.rejection && !e.simulated) (pruned_by_bounds(e) ? by_bounds : by_limit) += 1;
    if (e.rejection && e.simulated) ++after_simulation;
  }
  CHECK(by_limit > 0);
  CHECK(by_bounds > 0);
  CHECK(after_simulation > 0);
  CHECK(pruned.simulated < all.simulated);

  // Sound on this space: everything the bounds pruned fails when simulated, and the feasible sets agree.
  for (std::size_t i = 0; i < pruned.entries.size(); ++i) {
    if (!pruned_by_bounds(pruned.entries[i])) continue;
    INFO("config " << i << " pruned for " << pruned.entries[i].rejection->reason);
    CHECK(all.entries[i].simulated);
    CHECK(all.entries[i].rejection.has_value());
  }
  CHECK(pruned.ranking == all.ranking);
  // Same scenario and seed, same figures, whichever run simulated it.
  for (std::size_t i = 0; i < pruned.entries.size(); ++i) {
    if (pruned.entries[i].simulated) CHECK(pruned.entries[i].figures == all.entries[i].figures);
  }
}

TEST_CASE("a simulated configuration missing an SLO is rejected with the metric, its value and the target",
          "[planner][plan]") {
  const specs::PlanSpec p = specs::load_plan(kToy);
  const nlohmann::json f = {
      {"requests_per_s", 12.0},
      {"offered_requests_per_s", 12.0},
      {"arrival_rate_per_s", 12.0},
      {"classes", {{"chat", {{"success_rate", 1.0}, {"ttft_p95_ms", 120.0}, {"tpot_p95_ms", 31.5}}}}}};
  const auto r = planner::simulated_rejection(p, f);
  REQUIRE(r);
  CHECK(r->reason == "slo");
  CHECK(r->metric == "tpot_ms");
  CHECK(r->request_class == "chat");
  CHECK(r->value == 31.5);
  CHECK(r->limit == 30.0);

  nlohmann::json slow = f;
  slow["classes"]["chat"]["tpot_p95_ms"] = 20.0;
  slow["requests_per_s"] = 9.0;  // below 90% of the 12/s that arrived in the window: the queue grows
  const auto c = planner::simulated_rejection(p, slow);
  REQUIRE(c);
  CHECK(c->reason == "capacity");

  slow["requests_per_s"] = 11.5;
  CHECK_FALSE(planner::simulated_rejection(p, slow));
}

TEST_CASE("the plan's JSON is the same bytes whatever the number of workers", "[planner][plan]") {
  const specs::PlanSpec p = specs::load_plan(kToy);
  const std::string one = planner::plan_json(p, planner::run_plan(p, options(1, true))).dump(2);
  const std::string two = planner::plan_json(p, planner::run_plan(p, options(2, true))).dump(2);
  CHECK(one == two);
  const nlohmann::json out = nlohmann::json::parse(one);
  CHECK(out["schema"] == "fleetcast.plan/1");
  CHECK(out["best"] == out["feasible"][0]);
  // Every candidate is either feasible or rejected with a reason.
  CHECK(out["feasible"].size() + out["rejected"].size() == out["summary"]["candidates"].get<std::size_t>());
  for (const auto& r : out["rejected"]) CHECK(r["rejection"]["reason"].is_string());
  // Each feasible entry says its headroom below the objectives and where it is below the error on record; the
  // cheapest beyond that error is the first such entry of the ranking.
  nlohmann::json first_beyond = nullptr;
  for (const auto& e : out["feasible"]) {
    CHECK(e["slo_headroom"]["ttft"].get<double>() >= 0.0);  // feasible: under every objective
    CHECK(e["within_error"].is_array());
    if (first_beyond.is_null() && !e["error_on_record"].is_null() && e["within_error"].empty()) first_beyond = e;
  }
  CHECK(out["best_beyond_error"] == first_beyond);
  // One profile per hardware of the plan, in its order, each the one its candidates were simulated with.
  REQUIRE(p.runtimes.size() == 1);
  REQUIRE(out["profiles"].size() == p.hardware.size());
  for (std::size_t i = 0; i < p.hardware.size(); ++i) {
    CHECK(out["profiles"][i]["hardware"] == p.hardware[i]);
    CHECK(out["profiles"][i]["runtime"] == p.runtimes[0]);
    CHECK(out["profiles"][i]["kernel_caveats"].is_array());
  }
  for (const auto& e : out["feasible"]) CHECK(e["runtime"] == p.runtimes[0]);
  CHECK(out["summary"]["engines_not_searched"].empty());
}

TEST_CASE("the plan's text names the profiles with figures outside the kernel-level ones, and only those",
          "[planner][plan]") {
  nlohmann::json out = {{"summary",
                         {{"candidates", 0},
                          {"invalid_combinations", 0},
                          {"pruned", 0},
                          {"simulated", 0},
                          {"feasible", 0},
                          {"pruned_by_reason", nlohmann::json::object()},
                          {"rejected_after_simulation_by_reason", nlohmann::json::object()}}},
                        {"feasible", nlohmann::json::array()},
                        {"rejected", nlohmann::json::array()}};
  const nlohmann::json clean = {
      {"hardware", "h200"}, {"runtime", "vllm"}, {"kind", "datasheet"}, {"kernel_caveats", nlohmann::json::array()}};
  out["profiles"] = {clean};
  CHECK(planner::plan_text(out, 5).find("outside the kernel-level figures") == std::string::npos);
  CHECK(planner::plan_text(out, 5).find("\n  h200 vllm (datasheet): no measured error on record\n") !=
        std::string::npos);
  out["profiles"].push_back(
      {{"hardware", "h100"},
       {"runtime", "vllm"},
       {"kind", "fitted"},
       {"kernel_caveats",
        {{{"field", "matmul_efficiency.bf16"}, {"value", 1.0}, {"kernel_level", 0.8}, {"above", true}}}}});
  const std::string text = planner::plan_text(out, 5);
  CHECK(text.find("\n  h100 vllm (fitted): no measured error on record\n    outside the kernel-level figures: "
                  "matmul_efficiency.bf16 1.00 > 0.80\n") != std::string::npos);
  CHECK(text.find("h200 vllm (datasheet): no measured error on record\n  h100") != std::string::npos);

  // A profile with a measured error on record says it, with the models it was measured on.
  calibration::PairAccuracy a{"h200",           "vllm",          "datasheet", "0123456789abcdef", 12, {"qwen3-32b"},
                              {0.25, 0.5, 1.2}, {0.1, 0.2, 0.9}, ""};
  out["profiles"][0]["measured_error"] = calibration::to_json(a);
  CHECK(planner::plan_text(out, 5).find("  h200 vllm (datasheet): TTFT off by a median 25% (p90 50%, "
                                        "predicted/measured 1.20x), TPOT 10% (p90 20%, 0.90x) on 12 held-out "
                                        "measured runs of qwen3-32b\n") != std::string::npos);

  // A GPU without a fit says how its pick did on the fitted GPUs' runs, under its profile line.
  const calibration::UnfittedGpuError u{
      "gb200", "vllm", {"b200", "h100"}, 40, {0.3, 0.2, 0.4, 0.9}, {0.1, 0.05, 0.15, 1.0}, "dense", "", ""};
  out["profiles"][0]["unfitted_gpu_error"] = calibration::to_json(u);
  CHECK(planner::plan_text(out, 5).find("measured runs of qwen3-32b\n    as a GPU without a fit: TTFT off by a median "
                                        "30% (20-40% by GPU, predicted/measured 0.90x), TPOT 10% (5-15%, 1.00x) on "
                                        "the measured runs of dense models on b200, h100 vllm, each given this pick "
                                        "instead of its own fit (40 runs)\n") != std::string::npos);
}

TEST_CASE("a plan over a recorded trace offers the trace's rate and agrees with exhaustive simulation",
          "[planner][plan]") {
  const char* const trace_plan = FLEETCAST_PLANNER_DATA "/plan-trace.json";
  const specs::PlanSpec p = specs::load_plan(trace_plan);
  planner::PlanOptions o = options(2, true);
  o.file = trace_plan;
  o.base_dir = FLEETCAST_PLANNER_DATA;  // the trace file is named relative to the plan
  const planner::PlanResult pruned = planner::run_plan(p, o);
  o.prune = false;
  const planner::PlanResult all = planner::run_plan(p, o);

  // 48 requests from 0 to 11.75 s: 47 gaps, 4 requests/s; rate_scale 2 halves every gap.
  const double offered_per_s = 2.0 * 47.0 / 11.75;
  int simulated = 0;
  for (const planner::PlanEntry& e : all.entries) {
    if (!e.simulated) continue;
    ++simulated;
    INFO("config " << e.candidate.index);
    REQUIRE_FALSE(e.figures.contains("error"));
    CHECK(e.figures["offered_requests_per_s"].get<double>() == Catch::Detail::Approx(offered_per_s));
  }
  CHECK(simulated == static_cast<int>(all.entries.size()));  // no budget, no limit: everything was simulated
  REQUIRE_FALSE(all.ranking.empty());
  CHECK(pruned.ranking == all.ranking);
}

// A plan over several engines: each (hardware, runtime) pair has its own profile, and each configuration is judged
// by the error on record of the pair it ran.
TEST_CASE("a plan over engines judges each configuration by its own engine's profile", "[planner][plan]") {
  nlohmann::json j = specs::read_json_file(kToy);
  j["runtime"] = {"vllm", "sglang", "trtllm"};
  j["search"] = {{"gpu_counts", {1}}, {"tp", {1}}, {"max_num_seqs", {128}}};
  const specs::PlanSpec p = specs::parse_plan(j, kToy);
  const nlohmann::json out = planner::plan_json(p, planner::run_plan(p, options(2, true)));
  REQUIRE(out["profiles"].size() == 6);  // h100 and h200, three engines each, hardware first
  std::map<std::string, nlohmann::json> record_of;
  for (std::size_t i = 0; i < 6; ++i) {
    const nlohmann::json& profile = out["profiles"][i];
    CHECK(profile["hardware"] == p.hardware[i / 3]);
    CHECK(profile["runtime"] == p.runtimes[i % 3]);
    const std::string key = profile["hardware"].get<std::string>() + " " + profile["runtime"].get<std::string>();
    record_of[key] = planner::margin_json({}, planner::error_on_record(profile))["error_on_record"];
  }
  // The check below can tell the pairs apart: the engines' profiles on one GPU do not all have the same error.
  REQUIRE(record_of["h100 vllm"] != record_of["h100 trtllm"]);
  REQUIRE(out["feasible"].size() + out["rejected"].size() == 6);
  for (const nlohmann::json& e : out["feasible"]) {
    const std::string key = e["hardware"].get<std::string>() + " " + e["runtime"].get<std::string>();
    CAPTURE(key);
    CHECK(e["error_on_record"] == record_of.at(key));
    CHECK(e["description"].get<std::string>().starts_with(key + " x1 tp1"));
  }
  CHECK(out["summary"]["engines_not_searched"].empty());
}

TEST_CASE("a plan says which engine it did not search on which GPU, and why", "[planner][plan]") {
  nlohmann::json j = specs::read_json_file(kToy);
  j["hardware"] = {"h100", "mi300x"};
  j["runtime"] = {"vllm", "trtllm"};
  j["search"] = {{"gpu_counts", {1}}, {"tp", {1}}, {"max_num_seqs", {128}}};
  const specs::PlanSpec p = specs::parse_plan(j, kToy);
  const nlohmann::json out = planner::plan_json(p, planner::run_plan(p, options(2, true)));
  CHECK(out["summary"]["candidates"] == 3);  // h100 vllm, h100 trtllm, mi300x vllm
  CHECK(out["summary"]["engines_not_searched"] == nlohmann::json::parse(R"([{"hardware": "mi300x", "runtime": "trtllm",
                                   "reason": "TensorRT-LLM (CUDA) runs on NVIDIA GPUs only; gfx942 is AMD's"}])"));
  CHECK(out["profiles"].size() == 3);
  CHECK(planner::plan_text(out, 5).find("not searched: trtllm on mi300x (TensorRT-LLM (CUDA) runs on NVIDIA GPUs "
                                        "only; gfx942 is AMD's)\n") != std::string::npos);
}
