// Measured engine iterations against the step model (validation/step_check.hpp): how a step's sums become a batch,
// that the check reports the ratio it was given, and that a step fit (validation/step_fit.hpp) gives back the profile
// that made the steps. The steps are made up; their layout is Dynamo's forward-pass
// metrics as aiconfigurator's collector writes them.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/step_check.hpp"
#include "fleetcast/validation/step_fit.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

specs::ScenarioSpec qwen3_32b_tp2() {
  const nlohmann::json j = {
      {"name", "steps"},
      {"model", "qwen3-32b"},
      {"deployment",
       {{"hardware", "b300"}, {"nodes", 1}, {"gpus_per_node", 8}, {"replica", {{"tp", 2}}}, {"runtime", "vllm"}}},
      {"workload",
       {{"arrival", {{"kind", "poisson"}, {"rate_per_s", 1.0}}},
        {"input_tokens", {{"kind", "fixed"}, {"value", 1000}}},
        {"output_tokens", {{"kind", "fixed"}, {"value", 10}}}}},
      {"seed", 1},
      {"num_requests", 10}};
  return specs::parse_scenario(j, "steps");
}

traces::MeasuredStep step(int prefill_tokens, int prefill_requests, long long prefill_kv, int decode_requests,
                          long long decode_kv, double latency_s) {
  traces::MeasuredStep s;
  s.prefill_tokens = prefill_tokens;
  s.prefill_requests = prefill_requests;
  s.prefill_kv_tokens = prefill_kv;
  s.decode_tokens = decode_requests;
  s.decode_requests = decode_requests;
  s.decode_kv_tokens = decode_kv;
  s.latency_s = latency_s;
  s.phase = decode_requests == 0 ? "context" : prefill_requests == 0 ? "decode" : "mixed";
  return s;
}

}  // namespace

TEST_CASE("a measured step's sums spread evenly over its requests, and sum back exactly", "[validation][steps]") {
  // 8,189 prompt tokens of 3 requests with 4,094 cached before them; 3 decodes at 12,291 tokens of context in all.
  const auto b = validation::batch_of(step(8189, 3, 4094, 3, 12291, 0.4), false);
  REQUIRE(b.prefill.size() == 3);
  CHECK(b.prefill[0].tokens == 2730);
  CHECK(b.prefill[1].tokens == 2730);
  CHECK(b.prefill[2].tokens == 2729);
  CHECK(b.prefill[0].context_before == 1365);
  CHECK(b.prefill[2].context_before == 1364);
  CHECK(b.prefill_tokens() == 8189);
  CHECK(b.decode_contexts == std::vector<int>{4097, 4097, 4097});
  CHECK(b.draft_tokens == 0);
  // Drafts: 3 requests running 9 tokens verify 2 drafts each, where the scenario runs drafts.
  auto spec = step(0, 0, 0, 3, 12291, 0.02);
  spec.decode_tokens = 9;
  CHECK(validation::batch_of(spec, true).draft_tokens == 2);
  CHECK(validation::batch_of(spec, false).draft_tokens == 0);
}

TEST_CASE("the check gives back the ratio the measured steps were made with, per phase", "[validation][steps]") {
  const auto s = qwen3_32b_tp2();
  const auto profile = calibration::datasheet_profile(s.deployment.hardware, "vllm");
  const simulator::StepTimeModel model(s.model, s.deployment, profile);
  traces::ForwardPassMetrics fpm;
  fpm.empty_steps = 2;
  // Each step measured 1.25 times what the model predicts for its batch: the model reads 0.8 of every one.
  for (auto st : {step(4096, 1, 0, 0, 0, 0), step(1024, 1, 0, 0, 0, 0), step(0, 0, 0, 1, 4096, 0),
                  step(0, 0, 0, 16, 16 * 4100, 0), step(8189, 3, 4094, 3, 12291, 0)}) {
    st.latency_s = 1.25 * model.predict(validation::batch_of(st, false)).total_s;
    fpm.steps.push_back(st);
  }
  fpm.steps[2].decode_tokens = 3;  // drafts the scenario does not run
  const auto check = validation::check_steps(model, fpm, false);
  REQUIRE(check.rows.size() == 5);
  CHECK(check.empty_steps == 2);
  CHECK(check.steps_with_uncosted_drafts == 1);
  for (const auto& r : check.rows) {
    CHECK(r.ratio == Approx(0.8));
    CHECK(r.ape == Approx(0.2));
  }
  REQUIRE(check.groups.size() == 4);  // context, decode, mixed, all
  CHECK(check.groups[0].key == "context");
  CHECK(check.groups[0].steps == 2);
  CHECK(check.groups[1].key == "decode");
  CHECK(check.groups[2].key == "mixed");
  CHECK(check.groups[3].key == "all");
  CHECK(check.groups[3].steps == 5);
  CHECK(check.groups[3].median_ratio == Approx(0.8));
  // The 4,096-token prompt costs about four 1,024-token ones (linear layers), so the context medians sit between.
  CHECK(check.groups[0].measured_median_ms == Approx(0.5 * 1e3 * (fpm.steps[0].latency_s + fpm.steps[1].latency_s)));
}

TEST_CASE("a longer prompt, more cached context or more decodes never make a measured step cheaper to the model",
          "[validation][steps]") {
  const auto s = qwen3_32b_tp2();
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  auto cost = [&](const traces::MeasuredStep& st) { return model.predict(validation::batch_of(st, false)).total_s; };
  CHECK(cost(step(2048, 1, 0, 0, 0, 1)) > cost(step(1024, 1, 0, 0, 0, 1)));
  CHECK(cost(step(1024, 1, 8192, 0, 0, 1)) > cost(step(1024, 1, 0, 0, 0, 1)));
  CHECK(cost(step(0, 0, 0, 32, 32 * 8192, 1)) > cost(step(0, 0, 0, 32, 32 * 1024, 1)));
  CHECK(cost(step(0, 0, 0, 32, 32 * 1024, 1)) > cost(step(0, 0, 0, 1, 1024, 1)));
}

TEST_CASE("a step fit gives back the profile the measured steps were made with, and scores the held-out fifth",
          "[validation][steps]") {
  const auto s = qwen3_32b_tp2();
  const auto datasheet = calibration::datasheet_profile(s.deployment.hardware, "vllm");
  // The truth: GEMMs at 0.8 of the datasheet rates, slower attention and HBM, host time per step and per sequence.
  calibration::Profile truth = datasheet;
  for (auto& [cls, eff] : truth.matmul_efficiency) eff *= 0.8;
  truth.attention_compute_efficiency = 0.5;
  truth.memory_efficiency = 0.75;
  truth.step_overhead_s = 0.8e-3;
  truth.sequence_overhead_s = 60e-6;
  truth.nvlink_efficiency = 0.6;
  const simulator::StepTimeModel made(s.model, s.deployment, truth);
  traces::ForwardPassMetrics fpm;
  // Prompts alone and after cached context, decodes of 1-48 requests at short and long contexts, mixed steps.
  for (int tokens : {128, 512, 2048, 8192})
    for (long long cached : {0LL, 4096LL}) fpm.steps.push_back(step(tokens, 1, cached, 0, 0, 0));
  for (int n : {1, 4, 16, 48})
    for (long long context : {1024LL, 16384LL}) fpm.steps.push_back(step(0, 0, 0, n, n * context, 0));
  for (int n : {4, 32}) fpm.steps.push_back(step(2048, 2, 1024, n, n * 3000LL, 0));
  for (auto& st : fpm.steps) st.latency_s = made.predict(validation::batch_of(st, false)).total_s;
  const auto fit = validation::fit_step_profile(s.model, s.deployment, datasheet, datasheet, fpm, "made.csv", 30);
  CHECK(fit.after_train.steps == 15);  // of 18: every fifth held out
  CHECK(fit.after_held_out.steps == 3);
  CHECK(fit.before_train.median_ape > 0.1);
  CHECK(fit.after_train.median_ape < 0.01);
  CHECK(fit.after_held_out.median_ape < 0.01);
  CHECK(fit.profile.matmul_efficiency.at("bf16") == Approx(truth.matmul_efficiency.at("bf16")).epsilon(0.05));
  CHECK(fit.profile.memory_efficiency == Approx(0.75).epsilon(0.05));
  CHECK(fit.profile.step_overhead_s == Approx(0.8e-3).epsilon(0.15));
  CHECK(fit.profile.kind == "measured");
  CHECK(fit.profile.fitted_models == std::vector<std::string>{"qwen3-32b"});
  CHECK_THAT(fit.profile.sources.at("memory_efficiency"), Catch::Contains("made.csv"));
}

TEST_CASE("a step fit keeps its efficiencies at the kernel-level ceilings and wants enough steps",
          "[validation][steps]") {
  const auto s = qwen3_32b_tp2();
  const auto datasheet = calibration::datasheet_profile(s.deployment.hardware, "vllm");
  const simulator::StepTimeModel made(s.model, s.deployment, datasheet);
  traces::ForwardPassMetrics fpm;
  for (int tokens : {256, 1024, 4096})
    for (int n : {1, 8, 32, 64}) fpm.steps.push_back(step(tokens, 1, 0, n, n * 2048LL, 0));
  // Steps twice as fast as the datasheet model: no efficiency may rise past the best kernel-level figure for them.
  for (auto& st : fpm.steps) st.latency_s = 0.5 * made.predict(validation::batch_of(st, false)).total_s;
  const auto fit = validation::fit_step_profile(s.model, s.deployment, datasheet, datasheet, fpm, "fast.csv");
  CHECK(fit.profile.matmul_efficiency.at("bf16") <= datasheet.matmul_efficiency.at("bf16") + 1e-9);
  CHECK(fit.profile.attention_compute_efficiency <= calibration::kMaxAttentionEfficiency + 1e-9);
  CHECK(fit.profile.memory_efficiency <= calibration::kMaxMemoryEfficiency + 1e-9);
  fpm.steps.resize(11);  // 9 to train on
  CHECK_THROWS_AS(validation::fit_step_profile(s.model, s.deployment, datasheet, datasheet, fpm, "few.csv"),
                  InputError);
}

TEST_CASE("steps of two layouts fitted together part the GEMMs and weight reads from the all-reduces",
          "[validation][steps]") {
  auto tp1 = qwen3_32b_tp2();
  tp1.deployment.replica.tp = 1;
  const auto tp2 = qwen3_32b_tp2();
  const auto datasheet = calibration::datasheet_profile(tp2.deployment.hardware, "vllm");
  calibration::Profile truth = datasheet;
  for (auto& [cls, eff] : truth.matmul_efficiency) eff *= 0.8;
  truth.memory_efficiency = 0.7;
  truth.nvlink_efficiency = 0.4;
  truth.collective_latency_s = 8e-6;
  std::vector<validation::StepCase> cases;
  for (const specs::ScenarioSpec* s : std::vector<const specs::ScenarioSpec*>{&tp1, &tp2}) {
    const simulator::StepTimeModel made(s->model, s->deployment, truth);
    traces::ForwardPassMetrics fpm;
    for (int tokens : {256, 1024, 4096, 8192}) fpm.steps.push_back(step(tokens, 1, 0, 0, 0, 0));
    for (int n : {1, 4, 16, 32, 64, 128})
      for (long long context : {1024LL, 8192LL}) fpm.steps.push_back(step(0, 0, 0, n, n * context, 0));
    for (auto& st : fpm.steps) st.latency_s = made.predict(validation::batch_of(st, false)).total_s;
    cases.push_back(validation::StepCase{s->model, s->deployment, fpm, s == &tp1 ? "tp1.csv" : "tp2.csv"});
  }
  const auto joint = validation::fit_step_profile(cases, datasheet, datasheet, 40);
  CHECK(joint.after_held_out.median_ape < 0.02);
  CHECK(joint.profile.memory_efficiency == Approx(0.7).epsilon(0.1));
  CHECK(joint.profile.nvlink_efficiency == Approx(0.4).epsilon(0.25));
  CHECK_THAT(joint.profile.sources.at("nvlink_efficiency"), Catch::Contains("tp1.csv, tp2.csv"));
  // One GPU's steps alone leave NVLink and the call latency at the start's figures, sources and all.
  const auto alone = validation::fit_step_profile({cases[0]}, datasheet, datasheet, 40);
  CHECK(alone.profile.nvlink_efficiency == Approx(datasheet.nvlink_efficiency));
  CHECK(alone.profile.collective_latency_s == Approx(datasheet.collective_latency_s));
  CHECK(alone.profile.sources.at("nvlink_efficiency") == datasheet.sources.at("nvlink_efficiency"));
  // One profile is one hardware's.
  auto other = cases[1];
  other.deployment.hardware = specs::hardware_preset("h200");
  CHECK_THROWS_AS(validation::fit_step_profile({cases[0], other}, datasheet, datasheet), InputError);
}
