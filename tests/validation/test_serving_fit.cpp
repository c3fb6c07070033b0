// The serving fit recovers a profile from measurements that profile produced, and the bounded fit never
// returns an efficiency above the best kernel-level figure, whatever the rows ask for.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <variant>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/closed_loop_replay.hpp"
#include "fleetcast/validation/serving_fit.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace {

using namespace fleetcast;

traces::MeasuredServingRun llama_h200_vllm(const std::string& model_path, int isl, int osl, int clients, int tp) {
  traces::MeasuredServingRun run;
  run.id = model_path + "_h200_vllm_" + std::to_string(isl) + "x" + std::to_string(osl) + "_c" +
           std::to_string(clients) + "_tp" + std::to_string(tp);
  run.backend = "vllm";
  run.model_path = model_path;
  run.system = "h200_sxm";
  run.precision = "fp8";
  run.gemm_quant_mode = "fp8";
  run.moe_quant_mode = "fp8";
  run.mode = "agg";
  run.isl = isl;
  run.osl = osl;
  run.concurrency = clients;
  run.agg.tp = tp;
  run.agg.batch_size = clients;
  return run;
}

// Rows whose measured TTFT and TPOT are the fast replay's under `truth`: a fit that works recovers `truth`. Two
// model sizes, so that HBM efficiency (time per weight byte) and step overhead (time per step) part ways, and long
// prompts, so that the GEMMs set the TTFT.
traces::MeasuredServingResults measured_under(const calibration::Profile& truth) {
  traces::MeasuredServingResults results;
  results.file = "synthetic.csv";
  for (const char* model : {"nvidia/Llama-3.1-8B-Instruct-FP8", "meta-llama/Llama-3.1-70B"})
    for (int tp : {1, 2})
      for (int isl : {1024, 8192})
        for (int clients : {2, 16}) {
          traces::MeasuredServingRun run = llama_h200_vllm(model, isl, 64, clients, tp);
          const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(run));
          const validation::ReplayMeans m =
              validation::replay_closed_loop(specs::parse_scenario(mapped.scenario, results.file), truth);
          run.ttft_ms = m.ttft_ms;
          run.tpot_ms = m.tpot_ms;
          results.runs.push_back(run);
        }
  return results;
}

calibration::Profile truth_profile(double gemm_factor) {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  for (auto& [cls, eff] : p.matmul_efficiency) eff *= gemm_factor;
  p.memory_efficiency = 0.70;
  p.step_overhead_s = 1e-3;
  p.request_overhead_s = 5e-3;
  return p;
}

}  // namespace

TEST_CASE("the unbounded serving fit recovers the profile that produced the measurements", "[fit]") {
  const calibration::Profile truth = truth_profile(0.8);
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  const validation::ServingFit fit = validation::fit_serving_profile(measured_under(truth), "h200", "vllm", options);
  CHECK(fit.profile.memory_efficiency == Approx(0.70).epsilon(0.05));
  CHECK(fit.profile.matmul_efficiency.at("fp8") == Approx(truth.matmul_efficiency.at("fp8")).epsilon(0.10));
  CHECK(fit.after_train.tpot.median_ape < 0.02);
}

TEST_CASE("the bounded serving fit keeps GEMMs at or below the best measured matmul, the unbounded one does not",
          "[fit]") {
  // Measurements of GEMMs 30% faster than the best FP8 matmul measured on an H200 (datasheet: 73% of peak).
  const calibration::Profile truth = truth_profile(1.3);
  const auto results = measured_under(truth);
  const double best_fp8 =
      calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm").matmul_efficiency.at("fp8");
  validation::ServingFitOptions options;
  options.max_iterations = 8;
  options.bounded = true;
  const validation::ServingFit bounded = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(bounded.profile.matmul_efficiency.at("fp8") <= best_fp8 + 1e-12);
  CHECK(bounded.profile.attention_compute_efficiency <= 0.80 + 1e-12);
  CHECK(bounded.profile.memory_efficiency <= 0.95 + 1e-12);
  for (const auto& c : bounded.caveats) CHECK_FALSE(c.above);  // the bounded fit keeps to the kernels' ceilings
  options.bounded = false;
  const validation::ServingFit free = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(free.profile.matmul_efficiency.at("fp8") > 1.1 * best_fp8);
  // ...and the free fit says where it left them, in its caveats and in the source a reader of the profile sees.
  bool flagged = false;
  for (const auto& c : free.caveats) flagged = flagged || (c.field == "matmul_efficiency.fp8" && c.above);
  CHECK(flagged);
  CHECK_THAT(free.profile.sources.at("matmul_efficiency.fp8"),
             Catch::Contains("above the best kernel-level 0.73") && Catch::Contains("faster than any kernel measured"));
}

TEST_CASE("a cap on the host time per step holds, and without one the fit takes the slow steps as host time", "[fit]") {
  // Every step 4 ms longer than the model makes it. Left free, the fit charges that to the host, and a host cost
  // fitted to one model's slow steps is paid by every model on the GPU (docs/ACCURACY.md, "five recipes").
  calibration::Profile truth = truth_profile(0.8);
  truth.step_overhead_s = 4e-3;
  const auto results = measured_under(truth);
  validation::ServingFitOptions options;
  options.max_iterations = 8;
  CHECK(validation::fit_serving_profile(results, "h200", "vllm", options).profile.step_overhead_s > 2.5e-3);
  options.max_step_overhead_s = 1e-3;
  const validation::ServingFit capped = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(capped.profile.step_overhead_s <= 1e-3 + 1e-12);
  CHECK_THAT(capped.profile.sources.at("step_overhead_s"), Catch::Contains("host time per step at most 1 ms"));
}

TEST_CASE("the bounded serving fit brings a GEMM factor down from its ceiling", "[fit]") {
  // GEMMs at 60% of the best FP8 matmul measured on an H200. The bounded fit starts at that ceiling, where a
  // forward difference only steps into the clamp (a zero derivative): it must look the other way to move at all.
  const calibration::Profile truth = truth_profile(0.6);
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  options.bounded = true;
  const validation::ServingFit fit = validation::fit_serving_profile(measured_under(truth), "h200", "vllm", options);
  // The prior (a factor 1.5 per standard deviation around the ceiling) keeps it above the truth: 0.54 for 0.44.
  const double fitted = fit.profile.matmul_efficiency.at("fp8"), ceiling = truth.matmul_efficiency.at("fp8") / 0.6;
  CHECK(fitted < 0.8 * ceiling);
  CHECK(fitted > 0.95 * truth.matmul_efficiency.at("fp8"));
}

TEST_CASE("MoE rows fit the experts' kernel efficiency per weight format, a dense model's fit none", "[fit]") {
  // gpt-oss-120b (MXFP4 experts, "fp4") and MiniMax-M2.5 (FP8 experts) with 8,192-token prompts, whose prefill the
  // experts' GEMMs set, beside the Llama rows; the MXFP4 experts multiply at 30% of the dense rate, the FP8 ones at
  // 70%. One efficiency for both could not give back either.
  calibration::Profile truth = truth_profile(0.8);
  truth.expert_kernel_efficiency = {{"fp4", 0.3}, {"fp8", 0.7}};
  auto results = measured_under(truth);
  const auto add = [&](traces::MeasuredServingRun run) {
    const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(run));
    const auto m = validation::replay_closed_loop(specs::parse_scenario(mapped.scenario, results.file), truth);
    run.ttft_ms = m.ttft_ms;
    run.tpot_ms = m.tpot_ms;
    results.runs.push_back(run);
  };
  for (int tp : {1, 2, 4})
    for (int clients : {2, 16}) {
      traces::MeasuredServingRun run = llama_h200_vllm("openai/gpt-oss-120b", 8192, 64, clients, tp);
      run.precision = "fp4";
      run.gemm_quant_mode = run.moe_quant_mode = "nvfp4";
      add(run);
    }
  for (int tp : {2, 4})
    for (int clients : {2, 16}) add(llama_h200_vllm("MiniMaxAI/MiniMax-M2.5", 8192, 64, clients, tp));
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  const validation::ServingFit moe = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(moe.profile.expert_kernel_efficiency.size() == 2);
  CHECK(moe.profile.expert_kernel_efficiency_for("fp4") == Approx(0.3).epsilon(0.15));
  CHECK(moe.profile.expert_kernel_efficiency_for("fp8") == Approx(0.7).epsilon(0.15));
  // Each names the one model whose training rows set it.
  const std::string fp4 = moe.profile.sources.at("expert_kernel_efficiency.fp4");
  const std::string fp8 = moe.profile.sources.at("expert_kernel_efficiency.fp8");
  CHECK_THAT(fp4, Catch::Contains("; set by the training rows of gpt-oss-120b ("));
  CHECK_THAT(fp8, Catch::Contains("; set by the training rows of minimax-m2.5 ("));
  CHECK_THAT(fp4, !Catch::Contains("minimax") && !Catch::Contains("llama"));
  CHECK_THAT(fp8, !Catch::Contains("gpt-oss-120b (") && !Catch::Contains("llama"));
  // The fitted profile names the models of its training rows (model_scope.hpp reads them).
  std::vector<std::string> trained_on;
  for (const auto& [model, rows] : moe.train_rows_by_model) trained_on.push_back(model);
  CHECK(moe.profile.fitted_models == trained_on);
  CHECK(std::find(trained_on.begin(), trained_on.end(), "minimax-m2.5") != trained_on.end());
  // --no-experts: the same rows fit none, and one set of GEMM parameters cannot give back two experts' rates.
  options.fit_experts = false;
  const validation::ServingFit none = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(none.profile.expert_kernel_efficiency.empty());
  CHECK(none.profile.sources.count("expert_kernel_efficiency.fp8") == 0);
  CHECK(none.after_train.ttft.median_ape > moe.after_train.ttft.median_ape);
  options.fit_experts = true;
  const validation::ServingFit dense = validation::fit_serving_profile(measured_under(truth), "h200", "vllm", options);
  CHECK(dense.profile.expert_kernel_efficiency.empty());
  CHECK(dense.profile.expert_kernel_efficiency_for("fp8") == 1.0);
}

TEST_CASE("dense and MoE rows together fit the experts' weight streaming apart from the dense weights'", "[fit]") {
  // The Llama rows beside MiniMax-M2.5's at 64 output tokens and few clients, whose decode steps stream the experts'
  // weights; the experts stream at 40% of the dense weights' rate. One HBM efficiency for both could not give back
  // either kind's decode.
  calibration::Profile truth = truth_profile(0.8);
  truth.expert_memory_efficiency = 0.4;
  auto results = measured_under(truth);
  for (int tp : {2, 4})
    for (int clients : {2, 8, 32}) {
      traces::MeasuredServingRun run = llama_h200_vllm("MiniMaxAI/MiniMax-M2.5", 1024, 64, clients, tp);
      const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(run));
      const auto m = validation::replay_closed_loop(specs::parse_scenario(mapped.scenario, results.file), truth);
      run.ttft_ms = m.ttft_ms;
      run.tpot_ms = m.tpot_ms;
      results.runs.push_back(run);
    }
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  options.fit_experts = false;  // the shipped recipe's
  options.fit_expert_memory = true;
  const validation::ServingFit both = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(both.profile.expert_memory_efficiency == Approx(0.4).epsilon(0.15));
  CHECK(both.profile.memory_efficiency == Approx(truth.memory_efficiency).epsilon(0.15));
  CHECK_THAT(both.profile.sources.at("expert_memory_efficiency"),
             Catch::Contains("MoE models' (minimax-m2.5)") && Catch::Contains("dense models' (llama-3.1-70b"));
  // Without --expert-memory: one HBM efficiency for both kinds, a worse fit of the decode steps.
  options.fit_expert_memory = false;
  const validation::ServingFit one = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(one.profile.expert_memory_efficiency == 1.0);
  CHECK(one.profile.sources.count("expert_memory_efficiency") == 0);
  CHECK(one.after_train.tpot.median_ape > both.after_train.tpot.median_ape);
  // --models dense: the MiniMax rows are not fitted, and the profile is for dense models.
  options.fit_expert_memory = false;
  options.model_kind = "dense";
  const validation::ServingFit dense_only = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(dense_only.train_rows_by_model.count("minimax-m2.5") == 0);
  CHECK(dense_only.train_rows_by_model.count("llama-3.1-70b") == 1);
  CHECK(dense_only.profile.model_kind == "dense");
  CHECK(std::find(dense_only.profile.fitted_models.begin(), dense_only.profile.fitted_models.end(), "minimax-m2.5") ==
        dense_only.profile.fitted_models.end());
  CHECK_THAT(dense_only.profile.sources.at("memory_efficiency"), Catch::Contains("--models dense"));
  // The dense rows were made at the truth's HBM efficiency: the dense-only fit gives it back.
  CHECK(dense_only.profile.memory_efficiency == Approx(truth.memory_efficiency).epsilon(0.15));
  options.model_kind = "";
  // Dense rows alone cannot tell it: not fitted, 1.
  options.fit_expert_memory = true;
  const validation::ServingFit dense = validation::fit_serving_profile(measured_under(truth), "h200", "vllm", options);
  CHECK(dense.profile.expert_memory_efficiency == 1.0);
}

TEST_CASE("leaving a model out scores every one of its rows and trains on none", "[fit]") {
  auto results = measured_under(truth_profile(1.0));
  traces::MeasuredServingRun other = llama_h200_vllm("Qwen/Qwen3-32B", 1024, 64, 4, 1);
  other.model_path = "Qwen/Qwen3-32B";
  other.id = "qwen32b_h200_vllm_1024x64_c4";
  other.ttft_ms = 100.0;
  other.tpot_ms = 20.0;
  results.runs.push_back(other);
  validation::ServingFitOptions options;
  options.max_iterations = 0;
  options.leave_out_model = "qwen3-32b";
  const validation::ServingFit fit = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(fit.after_held_out.rows == 1);
  CHECK(fit.after_train.rows == 16);
  // The training rows by model: not the one left out.
  CHECK(fit.train_rows_by_model == std::map<std::string, int>{{"llama-3.1-70b", 8}, {"llama-3.1-8b", 8}});
  options.leave_out_model = "llama-3.1-8b";
  const validation::ServingFit without_8b = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(without_8b.after_held_out.rows == 8);
  CHECK(without_8b.after_train.rows == 9);
  CHECK(without_8b.train_rows_by_model == std::map<std::string, int>{{"llama-3.1-70b", 8}, {"qwen3-32b", 1}});
}

TEST_CASE("the robust serving fit is not pulled off by a few rows the model does not describe", "[fit]") {
  // Three of the sixteen rows measured 6x slower to the first token than the profile that made the others says
  // (a KV-capacity cliff, say): the robust fit keeps the GEMMs and HBM near the truth, the plain one is pulled.
  const calibration::Profile truth = truth_profile(0.8);
  auto results = measured_under(truth);
  for (int i : {1, 6, 11}) results.runs[static_cast<std::size_t>(i)].ttft_ms *= 6.0;
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  options.robust = true;
  const validation::ServingFit robust = validation::fit_serving_profile(results, "h200", "vllm", options);
  options.robust = false;
  const validation::ServingFit plain = validation::fit_serving_profile(results, "h200", "vllm", options);
  const double want = truth.matmul_efficiency.at("fp8");
  const auto off = [&](const validation::ServingFit& f) {
    return std::abs(std::log(f.profile.matmul_efficiency.at("fp8") / want)) +
           std::abs(std::log(f.profile.memory_efficiency / truth.memory_efficiency));
  };
  INFO("robust off by " << off(robust) << ", plain by " << off(plain));  // 0.09 and 0.29 (log units)
  CHECK(off(robust) < 0.5 * off(plain));
  CHECK(robust.after_train.tpot.median_ape < 0.05);
}

TEST_CASE("a fit that leans on TPOT keeps the decode figures when every TTFT holds time the model does not", "[fit]") {
  // Every TTFT 2x to 3x the profile's, more with more clients (closed-loop clients that wait for each other's
  // prompts as no step model says), every TPOT as the profile makes it. Weighed alike, the TTFTs pull the fit off
  // the HBM efficiency and host time the TPOTs set; at a tenth of the weight they pull far less.
  const calibration::Profile truth = truth_profile(0.8);
  auto results = measured_under(truth);
  for (auto& run : results.runs) run.ttft_ms *= run.concurrency > 8 ? 3.0 : 2.0;
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  options.from_datasheet = true;  // whichever fit of the pair ships
  const validation::ServingFit alike = validation::fit_serving_profile(results, "h200", "vllm", options);
  options.ttft_weight = 0.1;
  const validation::ServingFit leaning = validation::fit_serving_profile(results, "h200", "vllm", options);
  const auto off = [&](const validation::ServingFit& f) {
    return std::abs(std::log(f.profile.memory_efficiency / truth.memory_efficiency)) +
           std::abs(std::log(f.profile.step_overhead_s / truth.step_overhead_s));
  };
  INFO("leaning off by " << off(leaning) << ", alike by " << off(alike));
  CHECK(off(leaning) < 0.5 * off(alike));
  CHECK(leaning.after_train.tpot.median_ape < alike.after_train.tpot.median_ape);
  CHECK_THAT(leaning.profile.sources.at("memory_efficiency"), Catch::Contains("TTFT residuals weighed 0.1 x TPOT's"));
}

TEST_CASE("with a fit in use the descent also starts from it, and the lower training cost wins", "[fit]") {
  // Rows made by the profile in use (the shipped h200-vllm fit): one iteration from the datasheet profile cannot
  // reach it, the descent from the fit itself starts at zero error and stays.
  const calibration::Profile in_use = calibration::profile_for(specs::hardware_preset("h200"), "vllm");
  if (in_use.kind == "datasheet") {
    WARN("no fit in use for h200 vllm (FLEETCAST_PROFILES=datasheet?): nothing to start from");
    return;
  }
  const auto results = measured_under(in_use);
  validation::ServingFitOptions options;
  options.max_iterations = 1;
  // The fit in use keeps its prompts' measured slowdown fixed: a refit that keeps it can reproduce it.
  options.prompt_slowdown = !in_use.prompt_slowdown.empty();
  const validation::ServingFit fit = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(fit.started_from == "profile in use");
  CHECK(fit.after_train.ttft.median_ape < 1e-9);
  CHECK(fit.after_train.tpot.median_ape < 1e-9);
  CHECK(fit.profile.memory_efficiency == Approx(in_use.memory_efficiency).epsilon(1e-9));
  CHECK(fit.profile.matmul_efficiency.at("fp8") == Approx(in_use.matmul_efficiency.at("fp8")).epsilon(1e-9));
  CHECK(fit.profile.sources.at("memory_efficiency").find("from the fit in use") != std::string::npos);
  // Rows made by where the descent from the datasheet profile starts (its host costs at least 20 us a sequence and
  // 5 ms a request): that descent starts at zero error, so it wins, unless told to refine the fit in use alone.
  calibration::Profile datasheet = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  datasheet.sequence_overhead_s = std::max(datasheet.sequence_overhead_s, 2e-5);
  datasheet.request_overhead_s = std::max(datasheet.request_overhead_s, 5e-3);
  const auto datasheet_rows = measured_under(datasheet);
  options.prompt_slowdown = false;
  const validation::ServingFit from_datasheet =
      validation::fit_serving_profile(datasheet_rows, "h200", "vllm", options);
  CHECK(from_datasheet.started_from == "datasheet");
  CHECK(from_datasheet.after_train.ttft.median_ape < 1e-9);
  options.refine = true;
  const validation::ServingFit refined = validation::fit_serving_profile(datasheet_rows, "h200", "vllm", options);
  CHECK(refined.started_from == "profile in use");
  CHECK(refined.profile.sources.at("memory_efficiency").find("fit in use alone (--refine)") != std::string::npos);
}

TEST_CASE("a dense model left out of a fit made on MoE models alone is scored as a forecast of it runs", "[fit]") {
  // MoE rows (gpt-oss-120b, MiniMax-M2.5) whose prefill runs at 0.3 of the dense GEMM rate, and Llama rows measured
  // at the kernel-level rates with the same memory and host figures: what calibration::scope_to_model gives a dense
  // model on such a fit. Left out, the Llama rows are scored with that, not with the MoE rows' slow GEMMs.
  calibration::Profile truth = truth_profile(0.3);
  traces::MeasuredServingResults results;
  results.file = "synthetic.csv";
  const calibration::Profile datasheet = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  calibration::Profile dense_truth = truth;
  dense_truth.matmul_efficiency = datasheet.matmul_efficiency;
  dense_truth.attention_compute_efficiency = datasheet.attention_compute_efficiency;
  const auto add = [&](traces::MeasuredServingRun run, const calibration::Profile& under) {
    const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(run));
    const auto m = validation::replay_closed_loop(specs::parse_scenario(mapped.scenario, results.file), under);
    run.ttft_ms = m.ttft_ms;
    run.tpot_ms = m.tpot_ms;
    results.runs.push_back(run);
  };
  for (int tp : {2, 4})
    for (int clients : {2, 16})
      for (int isl : {1024, 8192}) {
        traces::MeasuredServingRun oss = llama_h200_vllm("openai/gpt-oss-120b", isl, 64, clients, tp);
        oss.precision = "fp4";
        oss.gemm_quant_mode = oss.moe_quant_mode = "nvfp4";
        add(oss, truth);
        add(llama_h200_vllm("MiniMaxAI/MiniMax-M2.5", isl, 64, clients, tp), truth);
      }
  for (int clients : {2, 16}) add(llama_h200_vllm("meta-llama/Llama-3.1-70B", 8192, 64, clients, 2), dense_truth);
  validation::ServingFitOptions options;
  options.max_iterations = 10;
  options.fit_experts = false;
  options.leave_out_model = "llama-3.1-70b";
  const validation::ServingFit fit = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(fit.profile.fitted_models == std::vector<std::string>{"gpt-oss-120b", "minimax-m2.5"});
  CHECK(fit.profile.matmul_efficiency.at("bf16") < 0.5 * datasheet.matmul_efficiency.at("bf16"));
  REQUIRE(fit.after_held_out.rows == 2);
  CHECK(fit.after_held_out.ttft.median_ape < 0.05);
  CHECK(fit.after_held_out.ttft.median_ratio == Approx(1.0).epsilon(0.05));
  CHECK(fit.after_held_out.ttft.p90_ape >= fit.after_held_out.ttft.median_ape);
  // The same fit taken as it is (every GEMM at the MoE rows' rate) would have had the Llama prompts far too slow.
  const auto mapped = std::get<validation::MappedRun>(validation::map_serving_run(results.runs.back()));
  const auto as_is = validation::replay_closed_loop(specs::parse_scenario(mapped.scenario, results.file), fit.profile);
  CHECK(as_is.ttft_ms > 1.5 * results.runs.back().ttft_ms);
}

TEST_CASE("a fold's own measured prompt ratio slows the prompts, not the pair's", "[fit]") {
  // Rows made where the descent from the datasheet profile starts, with dense prompts 1.6 times slower: a fit told
  // that ratio (not the shipped h200-vllm fit's 1.32) starts at zero error and keeps it; a fold whose ratio has no
  // entry for the kind slows nothing.
  calibration::Profile truth = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  truth.sequence_overhead_s = std::max(truth.sequence_overhead_s, 2e-5);
  truth.request_overhead_s = std::max(truth.request_overhead_s, 5e-3);
  truth.prompt_slowdown = {{"dense", 1.6}};
  const auto results = measured_under(truth);
  validation::ServingFitOptions options;
  options.max_iterations = 1;
  options.from_datasheet = true;
  options.prompt_slowdown = true;
  options.measured_prompt_ratio = std::map<std::string, double>{{"dense", 1.6}};
  const validation::ServingFit fit = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(fit.after_train.ttft.median_ape < 1e-9);
  CHECK(fit.profile.prompt_slowdown == std::map<std::string, double>{{"dense", 1.6}});
  CHECK(fit.profile.marginal_prompt_ratio == std::map<std::string, double>{{"dense", 1.6}});
  CHECK(fit.profile.sources.at("prompt_slowdown").find("without the left-out model") != std::string::npos);
  options.measured_prompt_ratio = std::map<std::string, double>{};  // a fold with no split of the kind left
  const validation::ServingFit unslowed = validation::fit_serving_profile(results, "h200", "vllm", options);
  CHECK(unslowed.profile.prompt_slowdown.empty());
}
