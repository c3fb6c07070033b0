// What a sweep point computes: a grid point simulated in its worker (every benchmark-record field), and
// DeepInfer's steady-state points giving what `fleetcast step` gives.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/planner/grid.hpp"
#include "fleetcast/planner/sweep_points.hpp"
#include "fleetcast/planner/sweep_runner.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/traces/benchmark_record.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
namespace fs = std::filesystem;

namespace {
specs::ScenarioSpec preset(const std::string& name) {
  return specs::parse_scenario(specs::preset_json(specs::PresetKind::scenario, name), name);
}
}  // namespace

TEST_CASE("a small grid sweep writes one line per point with every benchmark-record field, sorted", "[planner]") {
  const specs::ScenarioSpec base = test::parse(test::small_scenario());
  const auto grid = planner::expand_grid(
      {{"workload.arrival.rate_per_s", {0.5, 2.0}}, {"deployment.scheduler.max_num_seqs", {4, 64}}});
  std::vector<planner::SweepPoint> points;
  for (std::size_t i = 0; i < grid.size(); ++i) points.push_back({static_cast<int>(i), grid[i]});
  const fs::path dir = fs::temp_directory_path() / ("fleetcast-grid-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto out = planner::run_sweep(points,
                                      [&](const planner::SweepPoint& p) {
                                        return planner::grid_point(specs::to_json(base), p.parameters, "test", ".");
                                      },
                                      {.dir = dir, .jobs = 2});
  REQUIRE(out.failed == 0);
  std::ifstream in(dir / "results.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  REQUIRE(lines.size() == 4);
  const std::size_t fields = traces::to_json(traces::BenchmarkRecord{}).size();
  for (int i = 0; i < 4; ++i) {
    INFO("point " << i);
    CHECK(lines[i]["point"] == i);
    CHECK(lines[i]["parameters"] == grid[i]);
    // Every field, each of the right type (the strict reader throws on a missing or mistyped one).
    CHECK(lines[i]["benchmark_record"].size() == fields);
    const traces::BenchmarkRecord r = traces::benchmark_record_from_json(lines[i]["benchmark_record"], "line");
    CHECK(r.source == "fleetcast-simulation");
    CHECK(r.gpu_count == 1);
    CHECK(r.output_tokens_per_s_per_gpu > 0.0);
    CHECK(lines[i]["cost"]["usd_per_hour"].get<double>() > 0.0);
  }
  // The swept field took effect: 4 times the arrival rate gives about 4 times the output (the GPU keeps up with
  // both, 50 output tokens per request).
  const double low = lines[1]["benchmark_record"]["output_tokens_per_s"].get<double>();
  const double high = lines[3]["benchmark_record"]["output_tokens_per_s"].get<double>();
  CHECK(high / low == Approx(4.0).epsilon(0.25));
  fs::remove_all(dir);
}

TEST_CASE("decode and prefill points are `fleetcast step`'s steady state", "[planner]") {
  const specs::ScenarioSpec shipped = preset("deepinfer-decode-gb200");
  // The preset already runs MTP 3 at 0.75: setting the same gives the same deployment.
  const specs::ScenarioSpec s = planner::with_mtp(shipped, 3, 0.75, "test");
  CHECK(s.deployment.speculative == shipped.deployment.speculative);
  CHECK_FALSE(planner::with_mtp(shipped, 0, 0.0, "test").deployment.speculative.has_value());

  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
  const auto p = simulator::decode_point(model, s.deployment, 64, 131072);
  const nlohmann::json line = planner::decode_point_line(s, 64, 131072);
  CHECK(line["steady_state"]["tokens_per_s_per_user"].get<double>() == p.tokens_per_s_per_user);
  CHECK(line["steady_state"]["output_tokens_per_s_per_gpu"].get<double>() == p.output_tokens_per_s_per_gpu);
  const auto r = traces::benchmark_record_from_json(line["benchmark_record"], "line");
  // 64 GPUs in the replica, 64 requests on each of 64 ranks; TPOT is 1 / per-user speed.
  CHECK(r.gpu_count == 64);
  CHECK(r.concurrency == 64 * 64);
  CHECK(r.output_tokens_per_s == Approx(64 * p.output_tokens_per_s_per_gpu));
  CHECK(r.tpot_mean_ms == Approx(1e3 / p.tokens_per_s_per_user));

  const specs::ScenarioSpec pre = preset("deepinfer-prefill-gb200");
  const simulator::StepTimeModel pmodel(pre.model, pre.deployment,
                                        calibration::profile_for(pre.deployment.hardware, pre.deployment.runtime));
  const auto q = simulator::prefill_point(pmodel, pre.deployment, 16384, 131072);
  const nlohmann::json pline = planner::prefill_point_line(pre, 16384, 131072);
  CHECK(pline["steady_state"]["mean_step_s"].get<double>() == q.mean_step_s);
  CHECK(pline["steady_state"]["steps"] == 8);  // 131072 / 16384 chunks
  // No queueing: the prompt's first token comes after its 8 chunks.
  CHECK(pline["benchmark_record"]["ttft_mean_ms"].get<double>() == Approx(8e3 * q.mean_step_s));
  CHECK(pline["benchmark_record"]["tokens_per_s_per_user"].is_null());
}

TEST_CASE("a prefill step budget above the prompt packs whole prompts; one that does not divide it carries over") {
  const specs::ScenarioSpec pre = preset("deepinfer-prefill-gb200");
  const simulator::StepTimeModel model(pre.model, pre.deployment,
                                       calibration::profile_for(pre.deployment.hardware, pre.deployment.runtime));
  const auto& d = pre.deployment;
  // 16,384 tokens per step over 8,192-token prompts: every step holds two whole prompts, each from the start.
  const auto two = simulator::prefill_point(model, d, 16384, 8192);
  simulator::BatchShape both;
  both.prefill = {{8192, 0, true}, {8192, 0, true}};
  const double step_s = model.predict(both).total_s;
  CHECK(two.prompts == 2);
  CHECK(two.steps == 1);
  CHECK(two.mean_step_s == Approx(step_s));
  CHECK(two.mean_prompt_s == Approx(step_s));  // both prompts' first tokens come at the end of the one step
  CHECK(two.input_tokens_per_s_per_gpu == Approx(16384.0 * d.replica.dp / (step_s * d.replica.gpus())));
  // Twice the tokens per step is not the same point as one prompt per step (the old clamp made them equal).
  const auto one = simulator::prefill_point(model, d, 8192, 8192);
  CHECK(one.prompts == 1);
  CHECK(two.input_tokens_per_s_per_gpu != Approx(one.input_tokens_per_s_per_gpu));

  // 3,000 tokens per step over 8,192-token prompts: the schedule repeats after lcm = 375 prompts, capped at 64;
  // 64 x 8,192 tokens take ceil(524,288 / 3,000) = 175 steps, and every token is counted once.
  const auto carry = simulator::prefill_point(model, d, 3000, 8192);
  CHECK(carry.prompts == 64);
  CHECK(carry.steps == 175);
  CHECK(carry.input_tokens_per_s_per_gpu ==
        Approx(64.0 * 8192 * d.replica.dp / (carry.mean_step_s * carry.steps * d.replica.gpus())));
  // A prompt spans 3 or 4 steps (8,192 / 3,000 = 2.73 plus where it starts): its time lies between 2 and 4 steps.
  CHECK(carry.mean_prompt_s > 2 * carry.mean_step_s);
  CHECK(carry.mean_prompt_s < 4 * carry.mean_step_s);
}
