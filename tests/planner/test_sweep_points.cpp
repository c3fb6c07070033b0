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
