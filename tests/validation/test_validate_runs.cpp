// Validation end to end on a hand-made silicon CSV: predictions from worker processes equal a direct
// simulation of the mapped scenario, errors are |pred - meas| / meas, unmapped and unreadable rows count
// against coverage, and the group summaries are the order statistics of the rows' errors.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/closed_loop_replay.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "fleetcast/validation/validate_runs.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

TEST_CASE("error summary: median and 90th percentile interpolate between order statistics", "[validation]") {
  const auto s = validation::summarise_errors({0.5, 0.1, 0.4, 0.2, 0.3});
  CHECK(s.count == 5);
  CHECK(s.median == Approx(0.3));
  CHECK(s.p90 == Approx(0.46));  // position 0.9 x 4 = 3.6: 0.4 + 0.6 x (0.5 - 0.4)
  CHECK(validation::summarise_errors({}).count == 0);
}

TEST_CASE("validate: rows predicted in workers, errors, coverage and groups", "[validation]") {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  validation::ValidateOptions options;
  options.jobs = 2;
  std::size_t progress_calls = 0;
  options.progress = [&](std::size_t done, std::size_t total) {
    ++progress_calls;
    CHECK(done <= total);
  };
  const auto v = validation::validate_runs(results, options);
  REQUIRE(v.rows.size() == 5);
  CHECK(v.rows_read == 6);  // the unreadable row counts against coverage
  const auto& llama = v.rows[0];
  REQUIRE(llama.predicted);
  CHECK(llama.ttft_ape == Approx(std::abs(llama.predicted_ttft_ms - 40.0) / 40.0));
  CHECK(llama.tpot_ape == Approx(std::abs(llama.predicted_tpot_ms - 6.0) / 6.0));
  // The worker's figure is the simulation's own: the same scenario simulated here gives the same means.
  const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(llama.run));
  const auto report = simulator::simulate_in_child(specs::parse_scenario(mapped.scenario, "direct"));
  CHECK(llama.predicted_ttft_ms == report["metrics"]["ttft_ms"]["mean"].get<double>());
  CHECK(llama.predicted_tpot_ms == report["metrics"]["tpot_ms"]["mean"].get<double>());
  // A closed loop at fixed lengths: each output token after the first costs at least one decode step, and a
  // first token at least the prefill of its prompt, so neither mean can be zero.
  CHECK(llama.predicted_tpot_ms > 0.0);
  CHECK(llama.predicted_ttft_ms > 0.0);

  CHECK(v.rows[1].predicted);  // Qwen3-235B, attention DP2 x TP4, EP8
  CHECK_FALSE(v.rows[2].predicted);
  CHECK_THAT(v.rows[2].reason, Catch::Contains("moe_tp_size"));
  CHECK_FALSE(v.rows[3].predicted);
  CHECK_THAT(v.rows[3].reason, Catch::Contains("no model preset"));
  int predicted = 0;
  for (const auto& r : v.rows) predicted += r.predicted;
  CHECK(progress_calls == 3);  // one per mapped row
  CHECK(v.overall.predicted == predicted);
  CHECK(v.coverage() == Approx(predicted / 6.0));
  // Groups: sorted, each counting its rows; the overall summary is the order statistics of every row's error.
  for (std::size_t i = 1; i < v.groups.size(); ++i) CHECK(v.groups[i - 1].group < v.groups[i].group);
  std::vector<double> ttft;
  for (const auto& r : v.rows)
    if (r.predicted) ttft.push_back(r.ttft_ape);
  CHECK(v.overall.ttft.median == Approx(validation::summarise_errors(ttft).median));
  const auto j = validation::to_json(v);
  CHECK(j["rows"].size() == 5);
  CHECK(j["rows"][0]["id"] == "llama8b_h100_trtllm_agg_512x64_c4");
  CHECK(j["rows"][0]["measured_ttft_ms"] == 40.0);
  CHECK(j["rows"][2]["predicted_ttft_ms"].is_null());
}

TEST_CASE("fast replay: the same means as the SimGrid simulation of the same closed loop", "[validation][replay]") {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  for (std::size_t row : {0u, 1u}) {  // Llama-3.1-8B TP1 under TRT-LLM; Qwen3-235B DP2 x TP4, EP8 under vLLM
    const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(results.runs[row]));
    const auto s = specs::parse_scenario(mapped.scenario, "row");
    const auto fast =
        validation::replay_closed_loop(s, calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
    const auto report = simulator::simulate_in_child(s);
    INFO(results.runs[row].id);
    CHECK(fast.measured == report["metrics"]["requests_measured"].get<long>());
    // Identical scheduling and step times; the simulation's messages cross links of ~microseconds.
    CHECK(fast.ttft_ms == Approx(report["metrics"]["ttft_ms"]["mean"].get<double>()).epsilon(0.01));
    CHECK(fast.tpot_ms == Approx(report["metrics"]["tpot_ms"]["mean"].get<double>()).epsilon(0.01));
  }
}

namespace {

// The Qwen3-235B row of the small fixture (attention DP2 x TP4, EP8, 8 clients) as `engine` schedules it.
nlohmann::json two_rank_scenario(const std::string& engine) {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  auto scenario = std::get<validation::MappedRun>(validation::map_serving_run(results.runs[1])).scenario;
  REQUIRE(scenario["deployment"]["replica"]["dp"] == 2);
  scenario["deployment"]["runtime"] = engine;
  scenario["deployment"]["scheduler"]["policy"] = engine;
  return scenario;
}

// The fast replay's mean TTFT of a scenario, once its TTFT and TPOT are checked against the SimGrid simulation's.
double replayed_ttft_as_simulated(const specs::ScenarioSpec& s) {
  const auto fast =
      validation::replay_closed_loop(s, calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
  const auto report = simulator::simulate_in_child(s);
  CHECK(fast.ttft_ms == Approx(report["metrics"]["ttft_ms"]["mean"].get<double>()).epsilon(0.01));
  CHECK(fast.tpot_ms == Approx(report["metrics"]["tpot_ms"]["mean"].get<double>()).epsilon(0.01));
  return fast.ttft_ms;
}

}  // namespace

TEST_CASE("fast replay: TensorRT-LLM's attention-DP balance holds the same contexts as the simulation does",
          "[validation][replay][adp]") {
  auto scenario = two_rank_scenario("trtllm");
  // Whole 1,024-token prompts, one per step per rank: each rank's 4 prompts take 4 steps, and from the second
  // every rank also decodes, so the balance's batching wait holds them.
  scenario["deployment"]["scheduler"]["chunked_prefill"] = false;
  scenario["deployment"]["scheduler"]["max_num_batched_tokens"] = 1100;
  double held_ttft = 0.0, free_ttft = 0.0;
  for (const bool balance : {true, false}) {
    scenario["deployment"]["scheduler"]["attention_dp_balance"] =
        balance ? nlohmann::json{{"timeout_iters", 20}, {"batching_wait_iters", 2}} : nlohmann::json(nullptr);
    const auto s = specs::parse_scenario(scenario, "row");
    REQUIRE(s.deployment.scheduler.adp_balance == balance);
    INFO("balance " << balance);
    (balance ? held_ttft : free_ttft) = replayed_ttft_as_simulated(s);
  }
  CHECK(held_ttft > free_ttft);  // the held prompts wait longer for their first token
}

TEST_CASE("fast replay: SGLang's prefill delayer holds the same requests as the simulation does",
          "[validation][replay][delayer]") {
  auto scenario = two_rank_scenario("sglang");
  double held_ttft = 0.0, free_ttft = 0.0;
  for (const bool delayer : {true, false}) {
    scenario["deployment"]["scheduler"]["prefill_delayer"] =
        delayer ? nlohmann::json{{"max_delay_passes", 10}} : nlohmann::json(nullptr);
    const auto s = specs::parse_scenario(scenario, "row");
    REQUIRE(s.deployment.scheduler.prefill_delayer == delayer);
    INFO("delayer " << delayer);
    (delayer ? held_ttft : free_ttft) = replayed_ttft_as_simulated(s);
  }
  CHECK(held_ttft > free_ttft);  // 345 against 279 ms: held requests wait longer for their first token
}

TEST_CASE("fast replay: each engine's front end places requests on the DP ranks as the simulation's does",
          "[validation][replay][dp]") {
  // Output lengths drawn from 8 to 56 tokens, so the ranks' queues differ and which rank each request goes to, and
  // which request comes first among those sent at one instant, matter. vLLM's API servers (one per rank, or one)
  // draw the same servers and see the same counts published at the same times in both; SGLang takes the ranks in
  // turn. The simulation's front end passes requests on in the order the clients sent them, as the replay has them.
  auto scenario = two_rank_scenario("vllm");
  scenario["workload"]["output_tokens"] = {{"kind", "uniform"}, {"min", 8}, {"max", 56}};
  scenario["num_requests"] = 64;
  for (const int servers : {0, 1}) {
    scenario["deployment"]["scheduler"]["api_servers"] = servers;
    const auto s = specs::parse_scenario(scenario, "row");
    INFO("vllm, api_servers " << servers);
    replayed_ttft_as_simulated(s);
  }
  auto in_turn = two_rank_scenario("sglang");
  in_turn["workload"]["output_tokens"] = scenario["workload"]["output_tokens"];
  in_turn["num_requests"] = 64;
  INFO("sglang");
  replayed_ttft_as_simulated(specs::parse_scenario(in_turn, "row"));
}

TEST_CASE("fast replay: lengths drawn in a range are the simulation's own draws, so the means agree",
          "[validation][replay]") {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  auto run = results.runs[0];  // Llama-3.1-8B TP1 under TRT-LLM, 4 clients of 512 + 64 tokens
  run.length_range_ratio = 0.5;
  run.requests_per_client = 10;
  const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(run));
  const auto s = specs::parse_scenario(mapped.scenario, "row");
  REQUIRE(s.workload.classes.at(0).output_tokens.kind == specs::LengthKind::uniform);
  const auto fast =
      validation::replay_closed_loop(s, calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
  const auto report = simulator::simulate_in_child(s);
  CHECK(fast.measured == 40);
  CHECK(fast.measured == report["metrics"]["requests_measured"].get<long>());
  CHECK(fast.ttft_ms == Approx(report["metrics"]["ttft_ms"]["mean"].get<double>()).epsilon(0.01));
  CHECK(fast.tpot_ms == Approx(report["metrics"]["tpot_ms"]["mean"].get<double>()).epsilon(0.01));
}

TEST_CASE("fast replay: refuses a spread start, since it replays clients that all start at time 0",
          "[validation][replay]") {
  const auto results = traces::read_silicon_csv(FLEETCAST_TEST_FIXTURES "/silicon-small.csv");
  auto scenario = std::get<validation::MappedRun>(validation::map_serving_run(results.runs[0])).scenario;
  scenario["workload"]["arrival"]["start"] = "spread";
  const auto s = specs::parse_scenario(scenario, "row");
  CHECK_THROWS_AS(
      validation::replay_closed_loop(s, calibration::profile_for(s.deployment.hardware, s.deployment.runtime)),
      InputError);
}
