// The prompt compute a measured closed-loop rate needs, against the GPUs' best GEMM (prompt_compute.hpp):
// Llama-3.1-8B's matmul parameters counted by hand, the share a hand-made H100 row implies, the line past which a run
// cannot have prefilled its prompts in full, and validate's note and JSON field.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/prompt_compute.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "fleetcast/validation/validate_runs.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// The fixture's Llama-3.1-8B row: TensorRT-LLM on one H100, BF16, 512 tokens in and 64 out, 4 clients, TTFT 40 ms
// and TPOT 6 ms measured.
traces::MeasuredServingRun llama_row() {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  return results.runs.at(0);
}

specs::ScenarioSpec scenario_of(const traces::MeasuredServingRun& run) {
  return specs::parse_scenario(std::get<validation::MappedRun>(validation::map_serving_run(run)).scenario, run.id);
}

// Llama-3.1-8B per layer: Q and O 4,096 x 4,096 each, K and V 4,096 x 1,024 each (8 KV heads of 128), gate, up and
// down 3 x 4,096 x 14,336; 32 layers. The LM head runs for one token of a prompt and is left out.
constexpr double kLlama8bMatmulParams = 32.0 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336);

}  // namespace

TEST_CASE("prompt compute: the share a measured rate needs, counted by hand", "[validation][prompt_compute]") {
  const auto run = llama_row();
  const specs::ScenarioSpec s = scenario_of(run);
  const auto need = validation::prompt_compute_need(s, run.ttft_ms, run.tpot_ms);
  REQUIRE(need.has_value());
  CHECK(kLlama8bMatmulParams == 6'979'321'856.0);
  // 4 clients each finish one request per 40 + 63 x 6 = 418 ms.
  CHECK(need->requests_per_s == Approx(4.0 / 0.418));
  CHECK(need->gpus == 1);
  CHECK(need->format == "bf16");
  const simulator::RateTable best(s.deployment.hardware,
                                  calibration::datasheet_profile_for(s.deployment.hardware, s.deployment.runtime));
  const double prompt_flops = 2.0 * kLlama8bMatmulParams * 512;
  CHECK(need->share == Approx(need->requests_per_s * prompt_flops / best.matmul_flops(specs::Precision::bf16)));
  CHECK_FALSE(need->impossible());  // 9.6 prompts of 512 tokens a second is a few percent of an H100
}

TEST_CASE("prompt compute: a rate past the best GEMM cannot have prefilled its prompts",
          "[validation][prompt_compute]") {
  const auto run = llama_row();
  const specs::ScenarioSpec s = scenario_of(run);
  const double share = validation::prompt_compute_need(s, run.ttft_ms, run.tpot_ms)->share;
  // The share goes as 1 / (TTFT + 63 x TPOT): a run 1.1 / share times as fast needs 1.1 of the best GEMM rate.
  const double faster = share / 1.1;
  const auto beyond = validation::prompt_compute_need(s, run.ttft_ms * faster, run.tpot_ms * faster);
  REQUIRE(beyond.has_value());
  CHECK(beyond->share == Approx(1.1));
  CHECK(beyond->impossible());
  CHECK_THAT(validation::describe(*beyond),
             Catch::StartsWith("its measured rate needs 1.10x the best BF16 GEMM rate of its 1 GPU for the prompts "
                               "alone") &&
                 Catch::Contains("prefix cache"));
  const auto within = validation::prompt_compute_need(s, run.ttft_ms * share / 0.9, run.tpot_ms * share / 0.9);
  CHECK_FALSE(within->impossible());
  // Means that are not positive say nothing.
  CHECK_FALSE(validation::prompt_compute_need(s, 0.0, run.tpot_ms).has_value());
}

TEST_CASE("prompt compute: validate notes a run past the best GEMM and writes every mapped row's share",
          "[validation][prompt_compute]") {
  auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  traces::MeasuredServingRun& llama = results.runs.at(0);
  const double share = validation::prompt_compute_need(scenario_of(llama), llama.ttft_ms, llama.tpot_ms)->share;
  llama.ttft_ms *= share / 1.5;  // 1.5x the best GEMM rate
  llama.tpot_ms *= share / 1.5;
  validation::ValidateOptions options;
  options.select = [](const traces::MeasuredServingRun& r) {
    return r.id.rfind("llama8b", 0) == 0 || r.id.rfind("unknown", 0) == 0;
  };
  const auto v = validation::validate_runs(results, options);
  REQUIRE(v.rows.size() == 2);
  REQUIRE(v.rows[0].prompt_compute_share.has_value());
  CHECK(*v.rows[0].prompt_compute_share == Approx(1.5));
  CHECK_THAT(v.rows[0].notes, Catch::Contains("1.50x the best BF16 GEMM rate"));
  CHECK_FALSE(v.rows[1].prompt_compute_share.has_value());  // not mapped: no model preset
  const auto json = validation::to_json(v);
  CHECK(json["rows"][0]["prompt_compute_share"].get<double>() == Approx(1.5));
  CHECK(json["rows"][1]["prompt_compute_share"].is_null());
}

TEST_CASE("decoding clients: Little's law on a closed loop's means", "[validation][decoding_clients]") {
  // 8 clients, 101 output tokens at 10 ms: 1 s decoding after a 250 ms TTFT, so 8 x 1 / 1.25 = 6.4 decode at a time.
  CHECK(validation::decoding_clients(8, 101, 250.0, 10.0) == Approx(6.4));
  CHECK(validation::decoding_clients(8, 101, 0.0, 10.0) == Approx(8.0));  // no wait: every client decodes
  CHECK(validation::decoding_clients(8, 1, 250.0, 10.0) == 0.0);          // one token: nothing to decode
  CHECK(validation::decoding_clients(0, 101, 250.0, 10.0) == 0.0);
}

TEST_CASE("decoding clients: validate notes a run that held requests back", "[validation][decoding_clients]") {
  auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  validation::ValidateOptions options;
  options.select = [](const traces::MeasuredServingRun& r) { return r.id.rfind("llama8b", 0) == 0; };
  const auto as_measured = validation::validate_runs(results, options);
  REQUIRE(as_measured.rows.at(0).predicted);
  const auto& row = as_measured.rows[0];
  // The fixture's 4 clients: 40 ms TTFT, 63 x 6 ms decoding.
  CHECK(row.measured_decoding_clients == Approx(4.0 * 378.0 / 418.0));
  CHECK(row.predicted_decoding_clients ==
        Approx(validation::decoding_clients(4, 64, row.predicted_ttft_ms, row.predicted_tpot_ms)));
  CHECK_FALSE(row.held_back());
  CHECK(row.notes.find("held requests back") == std::string::npos);
  // The same run measured with each request waiting 20 decodes' time for its first token: under a fifth of the
  // clients decode at once, where the simulation keeps them all busy.
  results.runs.at(0).ttft_ms = 20.0 * 378.0;
  const auto held = validation::validate_runs(results, options);
  CHECK(held.rows.at(0).measured_decoding_clients == Approx(4.0 / 21.0));
  CHECK(held.rows[0].held_back());
  CHECK_THAT(held.rows[0].notes, Catch::Contains("held requests back") && Catch::Contains("of 4 clients"));
  CHECK(validation::to_json(held)["rows"][0]["measured_decoding_clients"].get<double>() == Approx(4.0 / 21.0));
}
