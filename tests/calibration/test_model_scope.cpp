// A serving fit's figures by the kind of model that uses them (calibration/model_scope.hpp): a fit made on MoE
// models alone gives a dense model the kernel-level GEMM and attention rates and keeps the rest; any other fit, or a
// MoE model, takes the fit as it is. And the fitted_models field's JSON.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/model_scope.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;

namespace {

calibration::Profile fit_on(std::vector<std::string> models) {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset("b300"), "vllm");
  p.kind = "fitted";
  p.runtime = "vllm";
  p.matmul_efficiency = {{"bf16", 0.29}, {"fp8", 0.28}, {"fp4", 0.28}};
  p.attention_compute_efficiency = 1.0;
  p.memory_efficiency = 0.94;
  p.step_overhead_s = 1.3e-3;
  p.sequence_overhead_s = 39e-6;
  p.sources["matmul_efficiency.bf16"] = "fitted";
  p.fitted_models = std::move(models);
  return p;
}

}  // namespace

TEST_CASE("a fit made on MoE models alone: a dense model takes the kernel-level GEMM and attention rates",
          "[calibration][scope]") {
  const auto datasheet = calibration::datasheet_profile(specs::hardware_preset("b300"), "vllm");
  const auto fit = fit_on({"minimax-m2.5"});
  REQUIRE(calibration::fitted_on_moe_models_only(fit));
  const auto dense = calibration::scope_to_model(fit, specs::model_preset("qwen3-32b"), datasheet);
  CHECK(dense.matmul_efficiency == datasheet.matmul_efficiency);
  CHECK(dense.attention_compute_efficiency == datasheet.attention_compute_efficiency);
  CHECK_THAT(dense.sources.at("matmul_efficiency.bf16"), Catch::Contains("MoE models only (minimax-m2.5)"));
  // What does not depend on the kind of FFN stays the fit's.
  CHECK(dense.memory_efficiency == fit.memory_efficiency);
  CHECK(dense.step_overhead_s == fit.step_overhead_s);
  CHECK(dense.sequence_overhead_s == fit.sequence_overhead_s);
  CHECK(dense.kind == "fitted");
  // A MoE model, even one the fit never saw, takes the fit as it is.
  const auto moe = calibration::scope_to_model(fit, specs::model_preset("qwen3.5-35b-a3b"), datasheet);
  CHECK(moe.matmul_efficiency == fit.matmul_efficiency);
  CHECK(moe.attention_compute_efficiency == 1.0);
}

TEST_CASE("a fit that saw a dense model, or whose models are not known, is every model's as it is",
          "[calibration][scope]") {
  const auto datasheet = calibration::datasheet_profile(specs::hardware_preset("b300"), "vllm");
  const auto dense_model = specs::model_preset("llama-3.1-70b");
  for (const auto& models :
       std::vector<std::vector<std::string>>{{"llama-3.1-70b", "minimax-m2.5"}, {}, {"minimax-m2.5", "my-own-moe"}}) {
    const auto fit = fit_on(models);
    CHECK_FALSE(calibration::fitted_on_moe_models_only(fit));
    CHECK(calibration::scope_to_model(fit, dense_model, datasheet).matmul_efficiency == fit.matmul_efficiency);
  }
}

TEST_CASE("fitted_models: written sorted when set, read back, refused when not a sorted list of names",
          "[calibration][scope]") {
  const auto fit = fit_on({"gpt-oss-120b", "minimax-m2.5"});
  const auto j = calibration::to_json(fit);
  CHECK(j.at("fitted_models") == nlohmann::json({"gpt-oss-120b", "minimax-m2.5"}));
  CHECK(calibration::parse_profile(j, "p.json").fitted_models == fit.fitted_models);
  CHECK_FALSE(calibration::to_json(fit_on({})).contains("fitted_models"));
  for (const nlohmann::json& bad : {nlohmann::json::array(), nlohmann::json({"b", "a"}), nlohmann::json({"a", "a"}),
                                    nlohmann::json({""}), nlohmann::json("minimax-m2.5")}) {
    auto k = j;
    k["fitted_models"] = bad;
    CHECK_THROWS_AS(calibration::parse_profile(k, "p.json"), InputError);
  }
}

TEST_CASE(
    "the shipped B300 vLLM fit was made on MiniMax-M2.5 alone: Qwen3-32B gets the datasheet GEMM rate from "
    "it",
    "[calibration][scope]") {
  const auto hw = specs::hardware_preset("b300");
  const auto shipped = calibration::profile_for(hw, "vllm");
  REQUIRE(shipped.kind == "fitted");
  CHECK(shipped.fitted_models == std::vector<std::string>{"minimax-m2.5"});
  const auto dense = calibration::profile_for(hw, "vllm", specs::model_preset("qwen3-32b"));
  CHECK(dense.matmul_efficiency == calibration::datasheet_profile_for(hw, "vllm").matmul_efficiency);
  CHECK(calibration::profile_for(hw, "vllm", specs::model_preset("minimax-m2.5")).matmul_efficiency ==
        shipped.matmul_efficiency);
}
