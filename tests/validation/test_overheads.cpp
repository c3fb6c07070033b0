// The two host-side terms a serving fit adds to a profile: time per sequence in every step, and the front
// end's time per request, which a benchmark client's TTFT includes.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/closed_loop_replay.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

specs::ScenarioSpec one_client(int clients) {
  const nlohmann::json j = {
      {"name", "overheads"},
      {"model", "llama-3.1-8b"},
      {"deployment",
       {{"hardware", "h100"}, {"nodes", 1}, {"gpus_per_node", 1}, {"replica", {{"tp", 1}}}, {"runtime", "vllm"}}},
      {"workload",
       {{"arrival", {{"kind", "closed_loop"}, {"clients", clients}}},
        {"input_tokens", {{"kind", "fixed"}, {"value", 300}}},
        {"output_tokens", {{"kind", "fixed"}, {"value", 20}}}}},
      {"seed", 1},
      {"num_requests", 20}};
  return specs::parse_scenario(j, "overheads");
}

}  // namespace

TEST_CASE("sequence overhead: a step with k sequences costs k times it more", "[validation][overheads]") {
  const auto s = one_client(1);
  calibration::Profile p = calibration::datasheet_profile(s.deployment.hardware, "vllm");
  const simulator::StepTimeModel plain(s.model, s.deployment, p);
  p.sequence_overhead_s = 50e-6;
  const simulator::StepTimeModel loaded(s.model, s.deployment, p);
  simulator::BatchShape b;
  b.decode_contexts.assign(10, 1000);
  b.prefill.push_back({200, 0});
  // 10 decodes and 1 prefill chunk: 11 sequences.
  CHECK(loaded.predict(b).total_s - plain.predict(b).total_s == Approx(11 * 50e-6));
}

TEST_CASE("request overhead: one client's TTFT grows by exactly the front end's time", "[validation][overheads]") {
  const auto s = one_client(1);
  calibration::Profile p = calibration::datasheet_profile(s.deployment.hardware, "vllm");
  const auto before = validation::replay_closed_loop(s, p);
  p.request_overhead_s = 0.012;
  const auto after = validation::replay_closed_loop(s, p);
  // Alone, the request meets an idle engine either way: only the front end lies between.
  CHECK(after.ttft_ms - before.ttft_ms == Approx(12.0));
  CHECK(after.tpot_ms == Approx(before.tpot_ms));
  CHECK(after.measured == before.measured);
}

TEST_CASE("profiles: the overhead fields round-trip and default to 0 when absent", "[validation][overheads]") {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset("h100"), "vllm");
  auto j = calibration::to_json(p);
  CHECK_FALSE(j.contains("sequence_overhead_s"));  // datasheet profiles keep their bytes
  CHECK(calibration::parse_profile(j, "p.json").sequence_overhead_s == 0.0);
  p.sequence_overhead_s = 3e-5;
  p.request_overhead_s = 0.008;
  const auto back = calibration::parse_profile(calibration::to_json(p), "p.json");
  CHECK(back.sequence_overhead_s == 3e-5);
  CHECK(back.request_overhead_s == 0.008);
  j["request_overhead_s"] = -1;
  CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"), Catch::Contains("request_overhead_s"));
}

TEST_CASE("profiles: the experts' memory efficiency round-trips, defaults to 1 and rejects values outside (0, 1]",
          "[validation][overheads]") {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  auto j = calibration::to_json(p);
  CHECK_FALSE(j.contains("expert_memory_efficiency"));  // datasheet profiles keep their bytes
  CHECK(calibration::parse_profile(j, "p.json").expert_memory_efficiency == 1.0);
  p.expert_memory_efficiency = 0.62;
  CHECK(calibration::parse_profile(calibration::to_json(p), "p.json").expert_memory_efficiency == 0.62);
  for (const double bad : {0.0, 1.5}) {
    j["expert_memory_efficiency"] = bad;
    CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"),
                      Catch::Contains("expert_memory_efficiency") && Catch::Contains("p.json"));
  }
}

TEST_CASE("profiles: the experts' kernel efficiency round-trips by format, defaults to 1 and rejects bad entries",
          "[validation][overheads]") {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  auto j = calibration::to_json(p);
  CHECK_FALSE(j.contains("expert_kernel_efficiency"));  // datasheet profiles keep their bytes
  CHECK(calibration::parse_profile(j, "p.json").expert_kernel_efficiency_for("fp8") == 1.0);
  // One number: every format, written back as the number it was.
  j["expert_kernel_efficiency"] = 0.3;
  const calibration::Profile every = calibration::parse_profile(j, "p.json");
  CHECK(every.expert_kernel_efficiency_for("fp8") == 0.3);
  CHECK(every.expert_kernel_efficiency_for("nvfp4") == 0.3);
  CHECK(calibration::to_json(every)["expert_kernel_efficiency"] == 0.3);
  // By format: a format not named runs at 1.
  p.expert_kernel_efficiency = {{"fp8", 0.23}, {"fp4", 0.8}};
  const calibration::Profile back = calibration::parse_profile(calibration::to_json(p), "p.json");
  CHECK(back.expert_kernel_efficiency == p.expert_kernel_efficiency);
  CHECK(back.expert_kernel_efficiency_for("nvfp4") == 1.0);
  for (const double bad : {0.0, 1.5}) {
    j["expert_kernel_efficiency"] = bad;
    CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"), Catch::Contains("expert_kernel_efficiency"));
    j["expert_kernel_efficiency"] = {{"fp8", bad}};
    CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"), Catch::Contains("expert_kernel_efficiency.fp8"));
  }
  j["expert_kernel_efficiency"] = {{"fp9", 0.5}};
  CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"), Catch::Contains("expert_kernel_efficiency.fp9"));
  j["expert_kernel_efficiency"] = nlohmann::json::object();
  CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"), Catch::Contains("expert_kernel_efficiency"));
}
