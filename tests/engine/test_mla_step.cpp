// model_step for MLA models on the CPU backend: the absorbed CPU step against the un-absorbed reference
// step on a small DeepSeek-like model (decode and prefill, with and without a q LoRA, dense-first and
// group-routed MoE layers), a changed kv_b caught, the routing rules by model, the hand count of one
// DeepSeek-V3 step, and a DeepSeek-V3 layer at its real per-GPU widths ([.slow]: 11 s on two cores, most
// of it filling the 0.9 GB of fp32 embedding and LM-head rows and the reference).

#include <catch2/catch.hpp>

#include "cpu/cpu_model_step.hpp"
#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/specs/presets.hpp"
#include "problems/model_step_problem.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;

using fleetcast::engine::test::reader;
using fleetcast::engine::test::tiny_mla_model;

TEST_CASE("model_step MLA: the absorbed CPU step matches the un-absorbed reference", "[engine][cpu][model_step]") {
  for (const int q_lora : {24, 0}) {
    const auto model = tiny_mla_model(q_lora);
    // tp 2 / ep 2 decode and prefill after a context, tp 1 prefill of a first chunk: 3 layers reach MoE.
    for (const StepShape& s : {StepShape{"deepseek-v3", 2, 2, 3, 3, 21, 1}, StepShape{"deepseek-v3", 2, 2, 2, 2, 13, 5},
                               StepShape{"deepseek-v3", 1, 1, 3, 2, 0, 4}}) {
      INFO("q_lora " << q_lora << " tp " << s.tp << " ep " << s.ep << " layers " << s.layers << " context " << s.context
                     << " new " << s.new_tokens);
      ModelStepProblem p(model, s);
      REQUIRE(p.dims.mla);
      CHECK(p.dims.q_heads == 4 / s.tp);
      CHECK(p.dims.cache_entry() == 40);  // latent 32 + rope 8, one entry per token
      CHECK(p.dims.n_group == 8);
      CHECK(p.dims.topk_group == 4);
      cpu::ModelStepRunner runner(p);
      runner.run();
      const auto r = p.check(reader(runner.logits()), "step", tolerance_for("fp32"), true);
      CHECK(r.compared == static_cast<std::size_t>(s.batch * p.dims.vocab_local));
      CHECK(r.max_rel_error < tolerance_for("fp32"));
      // The new entries went into the latent cache: a second run rewrites them with the same values.
      const auto first = runner.logits();
      runner.run();
      CHECK(runner.logits() == first);
    }
  }
}

TEST_CASE("model_step MLA: a changed kv_b is caught by the reference step", "[engine][cpu][model_step]") {
  ModelStepProblem p(tiny_mla_model(24), {"deepseek-v3", 2, 1, 1, 2, 9, 1});
  cpu::ModelStepRunner runner(p);  // W_UK and W_UV are split out of kv_b here
  runner.run();
  // One head's W_UV rows scaled after the split: the reference's values differ, the CPU step's do not.
  const std::int64_t nope = p.dims.nope, v = p.dims.v_dim, kvl = p.dims.kv_lora;
  for (std::int64_t i = nope * kvl; i < (nope + v) * kvl; ++i) p.layers[0].kv_b[i] *= 2.0f;
  CHECK_THROWS_AS(p.check(reader(runner.logits()), "step", tolerance_for("fp32"), true), CheckFailed);
}

TEST_CASE("model_step MLA: routing and dimensions from the presets", "[engine][model_step]") {
  using fleetcast::specs::model_preset;
  const StepDims v3 = step_dims(model_preset("deepseek-v3"), {"deepseek-v3", 8, 8, 4, 1, 0, 1});
  CHECK(v3.mla);
  CHECK(v3.q_heads == 16);  // 128 heads over tp 8
  CHECK(v3.cache_entry() == 576);
  CHECK(v3.head_dim == 192);  // q.k width un-absorbed: the softmax scale is 1 / sqrt(192)
  CHECK(v3.local_experts == 32);
  CHECK((v3.n_group == 8 && v3.topk_group == 4 && v3.sigmoid));
  CHECK(v3.dense_layers == 3);
  const StepDims kimi = step_dims(model_preset("kimi-k2.5"), {"kimi-k2.5", 8, 8, 2, 1, 0, 1});
  CHECK((kimi.n_group == 1 && kimi.sigmoid));
  const StepDims qwen = step_dims(model_preset("qwen3-235b-a22b"), {"qwen3-235b-a22b", 8, 8, 1, 1, 0, 1});
  CHECK((qwen.n_group == 1 && !qwen.sigmoid && !qwen.mla));
  CHECK_THROWS_WITH(step_dims(model_preset("deepseek-v4.1-flash"), {"deepseek-v4.1-flash", 8, 8, 1, 1, 0, 1}),
                    Catch::Contains("compressed sparse attention"));
}

TEST_CASE("model_step MLA: FLOPs counted by hand for one DeepSeek-V3 step", "[engine][cost][model_step]") {
  // deepseek-v3 on one GPU of 8, layer 0 (dense), decode of 2 sequences with 100 cached tokens: H 7168,
  // 16 heads, q LoRA 1536, latent 512, rope 64, nope 128, v 128, FFN 18432 / 8 = 2304, vocabulary
  // 129280 / 8 = 16160 rows; T = B = 2.
  //   attention and MLP RMSNorm   2 (4 T H + T)                  =    114692
  //   q_a, its norm, q_b          2T 1536 H + 4T 1536 + T + 2T 16 192 1536 = 62926850
  //   kv_a, latent norm           2T 576 H + 4T 512 + T           =  16519170
  //   RoPE                        3 T (16 + 1) 64                 =      6528
  //   W_UK, W_UV per head         2T 16 512 128 x 2               =   8388608
  //   attention                   2 B 16 (576 + 512) (100 + 1)    =   7032832
  //   O                           2T H 16 128                     =  58720256
  //   two residual adds           2 T H                           =     28672
  //   gate/up, SwiGLU, down       2T H 4608 + 5T 2304 + 2T 2304 H = 198203904
  //   final RMSNorm, LM head      4 B H + B + 2 B H 16160         = 463396866
  //   total                                                       = 815338378
  const StepShape s{"deepseek-v3", 8, 1, 1, 2, 100, 1};
  const Cost c = model_step_cost(fleetcast::specs::model_preset("deepseek-v3"), s, 2.0);
  CHECK(c.flops == 815338378.0);
  // The latent cache is read once per sequence: 576 values per token, not 16 heads' keys and values.
  const StepShape longer{"deepseek-v3", 8, 1, 1, 2, 100 + 1000, 1};
  const Cost c2 = model_step_cost(fleetcast::specs::model_preset("deepseek-v3"), longer, 2.0);
  CHECK(c2.bytes - c.bytes == Catch::Detail::Approx(2.0 * 1000 * 576 * 2.0 + 2.0 * (69 - 7) * 4.0));
}

TEST_CASE("model_step MLA: a DeepSeek-V3 layer at its per-GPU widths matches the reference",
          "[engine][cpu][model_step][.slow]") {
  // One GPU of TP 8: 16 heads, the real q LoRA, latent and rope widths, the first (dense) layer; a decode
  // step of 2 sequences over 40 cached tokens, checked on both sequences.
  ModelStepProblem p(fleetcast::specs::model_preset("deepseek-v3"), {"deepseek-v3", 8, 1, 1, 2, 40, 1});
  cpu::ModelStepRunner runner(p);
  runner.run();
  const auto r = p.check(reader(runner.logits()), "step", tolerance_for("fp32"), true);
  CHECK(r.compared == 2u * 16160u);
}
