// The bf16 model step for MLA models on the CPU backend: the rounding stages an MLA layer adds, the step's
// logits against the fp32 (un-absorbed) reference step within the bound those stages give and clearly away
// from it, on the small DeepSeek-like model (with and without a q LoRA) and ([.slow]) on DeepSeek-V3 at its
// TP-8 widths; and the plan that asks for it.

#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>

#include "cpu/cpu_model_step.hpp"
#include "fleetcast/engine/fill.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/presets.hpp"
#include "problems/model_step_problem.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;
using fleetcast::engine::test::reader;
using fleetcast::engine::test::tiny_mla_model;
using nlohmann::json;

namespace {

struct Measured {
  double error, tolerance;
  int stages;
};

// Runs the bf16 step of `s` on `model` and measures its logits against the reference step, every sequence;
// checks what every bf16 step must show: below the tolerance, above one rounding unit (the roundings
// happened), every logit a bf16 value, and the same logits from a second run.
Measured bf16_step_against_reference(const fleetcast::specs::ModelSpec& model, StepShape s) {
  s.precision = "bf16";
  ModelStepProblem p(model, s);
  REQUIRE(p.dims.mla);
  cpu::ModelStepRunner runner(p);
  runner.run();
  const Measured m{p.check(reader(runner.logits()), "step", 1.0, true).max_rel_error, bf16_step_tolerance(p.dims),
                   bf16_rounding_stages(p.dims)};
  std::cout << "bf16 MLA step " << s.model << " tp " << s.tp << " ep " << s.ep << " layers " << s.layers << " batch "
            << s.batch << " context " << s.context << " new " << s.new_tokens << ": error " << m.error << ", tolerance "
            << m.tolerance << " (" << m.stages << " stages)\n";
  CAPTURE(m.error, m.tolerance, m.stages);
  CHECK(m.error < m.tolerance);
  CHECK(m.error > std::ldexp(1.0, -8));
  bool all_bf16 = true;
  for (const float v : runner.logits()) all_bf16 = all_bf16 && round_bf16(v) == v;
  CHECK(all_bf16);
  const auto first = runner.logits();
  runner.run();  // rewrites the same new cache entries
  const bool same = runner.logits() == first;
  CHECK(same);
  return m;
}

}  // namespace

TEST_CASE("model_step bf16 MLA: the stages an MLA layer rounds at", "[engine][model_step]") {
  // DeepSeek-V3 layer 0 (dense) at TP 8: attention 22 (norm 2, q LoRA path 6, kv_a and latent norm 4,
  // RoPE 1, cache 1, W_UK 2, attention 1, W_UV 2, O 2, residual 1), the MLP's norm 2 and MLP 6, and the 5 of
  // the embedding and LM head.
  const auto v3 = fleetcast::specs::model_preset("deepseek-v3");
  const StepDims dense = step_dims(v3, {"deepseek-v3", 8, 1, 1, 1, 0, 1});
  CHECK(bf16_rounding_stages(dense) == 5 + 22 + 2 + 6);
  // Layer 3 is the first MoE layer (a shared expert): 22 + 2 + router 2 + routed MLP 6 + unpermute 1 + shared 6.
  const StepDims four = step_dims(v3, {"deepseek-v3", 8, 8, 4, 1, 0, 1});
  CHECK(bf16_rounding_stages(four) == 5 + 3 * 30 + 22 + 2 + 2 + 6 + 1 + 6);
  // Without a q LoRA, q_b alone: 4 stages fewer.
  const StepDims no_lora = step_dims(tiny_mla_model(0), {"deepseek-v3", 1, 1, 1, 1, 0, 1});
  CHECK(bf16_rounding_stages(no_lora) == 5 + 18 + 2 + 6);
  CHECK(bf16_step_tolerance(no_lora) == 31.0 / 256.0);
}

TEST_CASE("model_step bf16 MLA: the small DeepSeek-like model against the fp32 reference",
          "[engine][cpu][model_step]") {
  for (const int q_lora : {24, 0}) {
    INFO("q_lora " << q_lora);
    const auto model = tiny_mla_model(q_lora);
    // tp 2 / ep 2 decode and prefill after a context, tp 1 prefill of a first chunk: 3 layers reach MoE.
    for (const StepShape& s : {StepShape{"deepseek-v3", 2, 2, 3, 3, 21, 1}, StepShape{"deepseek-v3", 2, 2, 2, 2, 13, 5},
                               StepShape{"deepseek-v3", 1, 1, 3, 2, 0, 4}}) {
      // Far from the fp32 step's own error (the fp32 tolerance, 2e-4): the roundings are the bf16 step's.
      const Measured m = bf16_step_against_reference(model, s);
      CHECK(m.error > 20.0 * 2e-4);
    }
  }
}

TEST_CASE("model_step bf16 MLA: DeepSeek-V3 at its TP-8 widths against the fp32 reference",
          "[engine][cpu][model_step][.slow]") {
  const auto v3 = fleetcast::specs::model_preset("deepseek-v3");
  // Layer 0 (dense): a decode of 2 sequences after 40 tokens, and a prefill of 3 after 8.
  bf16_step_against_reference(v3, {"deepseek-v3", 8, 1, 1, 2, 40, 1});
  bf16_step_against_reference(v3, {"deepseek-v3", 8, 1, 1, 2, 8, 3});
  // A dense then a MoE layer: DeepSeek-V3 with one dense layer instead of three (same widths and routing), at
  // EP 32, so this GPU holds 8 of the 256 experts; a decode of 16 sequences routes 4 rows to them on average.
  auto pair = v3;
  pair.dense_layers = 1;
  bf16_step_against_reference(pair, {"deepseek-v3", 8, 32, 2, 16, 20, 1});
}

TEST_CASE("model_step bf16 MLA: a plan asks for it", "[engine][model_step][plan]") {
  const Plan plan = parse_plan(json::parse(R"({"name": "t", "ops": [
      {"op": "model_step", "dtypes": ["bf16"], "models": ["deepseek-v3"], "tp": 8, "precision": "bf16",
       "sweep": {"ep": [8], "layers": [4], "batch": [1], "context": [1024], "new_tokens": [1]}}]})"),
                               "plan.json");
  const auto cases = expand_plan(plan);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].op_case.shape.to_json().dump() ==
        R"({"model":"deepseek-v3","tp":8,"ep":8,"layers":4,"phase":"decode","batch":1,"context":1024,)"
        R"("new_tokens":1,"precision":"bf16"})");
}
