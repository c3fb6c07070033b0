// Whole model steps on the CUDA backend against the reference step: fp32 (GQA dense, MLA, MoE), bf16 and fp8.
// Tagged [.gpu] (hidden), run by the engine_gpu ctest entry, skipped with a message where there is no GPU.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "cuda_backend.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/specs/presets.hpp"
#include "gpu_support.hpp"

using namespace fleetcast::engine;
using fleetcast::engine::test::have_gpu;

namespace {

// The step's check, then a replay and the check again, which must agree exactly (replays are deterministic
// and rewrite the same cache entries). Returns the first check.
CheckResult check_and_replay(PreparedOp& prepared) {
  const CheckResult first = prepared.check(true);
  prepared.run();
  CHECK(prepared.check(true).max_rel_error == first.max_rel_error);
  return first;
}

}  // namespace

TEST_CASE("cuda: model_step decode under a CUDA graph matches the reference step", "[.gpu][engine][model_step]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("model_step");
  // llama-3.1-8b on one GPU of 8, two layers, 3 sequences decoding after 40 cached tokens; every logit.
  const Shape shape = model_step_shape({"llama-3.1-8b", 8, 1, 2, 3, 40, 1});
  const Support s = backend->support(op, "bf16", shape);
  REQUIRE(s.supported);
  CHECK(s.dtype == "fp32");
  auto prepared = backend->prepare(op, s.dtype, shape);
  CHECK(prepared->check(true).compared == 3u * 16032u);  // the first run captures the graph
  for (int i = 0; i < 3; ++i) prepared->run();           // replays rewrite the same cache entries
  CHECK(prepared->check(true).compared == 3u * 16032u);
}

TEST_CASE("cuda: a DeepSeek-V3 (MLA) model_step matches the reference step, decode and prefill",
          "[.gpu][engine][model_step]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("model_step");
  // deepseek-v3 on one GPU of TP 8: 16 heads, q LoRA 1536, latent 512 + rope 64, 16160 vocabulary rows.
  // Layer 0 (dense): 3 sequences decoding after 40 tokens under the CUDA graph; one sequence after 520
  // (the decode kernel splits its context in two pieces, merged by the combine kernel); a prefill of 24
  // tokens after 8 (a causal row of the decode kernel per new token) and of 4 tokens after 520 (causal rows
  // and split pieces together). Then four layers at EP 64: three dense, then a MoE layer routed as
  // DeepSeek-V3 (sigmoid, 8 groups, best 4) to this GPU's 4 experts and the shared expert. Every logit,
  // before and after a replay (which rewrites the same cache entries).
  for (const StepShape& step :
       {StepShape{"deepseek-v3", 8, 8, 1, 3, 40, 1}, StepShape{"deepseek-v3", 8, 8, 1, 1, 520, 1},
        StepShape{"deepseek-v3", 8, 8, 1, 2, 8, 24}, StepShape{"deepseek-v3", 8, 8, 1, 2, 520, 4},
        StepShape{"deepseek-v3", 8, 64, 4, 2, 20, 1}}) {
    const Shape shape = model_step_shape(step);
    INFO(shape.text());
    const Support s = backend->support(op, "bf16", shape);
    REQUIRE(s.supported);
    CHECK(s.dtype == "fp32");
    const auto vocab_local = step_dims(fleetcast::specs::model_preset("deepseek-v3"), step).vocab_local;
    CHECK(vocab_local == 16160);
    auto prepared = backend->prepare(op, s.dtype, shape);
    CHECK(prepared->check(true).compared == static_cast<std::size_t>(step.batch * vocab_local));
    prepared->run();
    CHECK(prepared->check(true).compared == static_cast<std::size_t>(step.batch * vocab_local));
  }
}

TEST_CASE("cuda: a MoE model_step matches the reference step, decode and prefill", "[.gpu][engine][model_step]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("model_step");
  // qwen3-235b-a22b on one GPU of TP 8 / EP 8 (16 of its 128 experts here, top 8 of 128 routed: most
  // tokens' experts are elsewhere), one layer; 3 sequences decoding after 40 tokens under the CUDA graph,
  // and a prefill of 24 tokens after 8 (more rows per expert). Every logit, before and after a replay; the rows
  // its experts got (recorded with the measurement) are the CPU step's on the same weights and tokens.
  for (const auto& step : {std::vector<std::int64_t>{3, 40, 1}, std::vector<std::int64_t>{2, 8, 24}}) {
    const Shape shape = model_step_shape({"qwen3-235b-a22b", 8, 8, 1, step[0], step[1], step[2]});
    INFO(shape.text());
    const Support s = backend->support(op, "bf16", shape);
    REQUIRE(s.supported);
    const auto vocab_local =
        step_dims(fleetcast::specs::model_preset("qwen3-235b-a22b"), step_shape_of(shape)).vocab_local;
    auto prepared = backend->prepare(op, s.dtype, shape);
    CHECK(prepared->check(true).compared == static_cast<std::size_t>(step[0] * vocab_local));
    prepared->run();
    CHECK(prepared->check(true).compared == static_cast<std::size_t>(step[0] * vocab_local));
    const auto cpu = make_cpu_backend()->prepare(op, "fp32", shape);
    cpu->check(false);
    CHECK(prepared->expert_rows().size() == 1u);
    CHECK(prepared->expert_rows() == cpu->expert_rows());
  }
}

TEST_CASE("cuda: a bf16 model_step (GQA and MLA, dense and MoE) matches the reference step within its rounding bound",
          "[.gpu][engine][model_step]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("model_step");
  // bf16 weights, caches and activations, cuBLASLt bf16 GEMMs with fp32 accumulation, against the fp32
  // reference at bf16_step_tolerance (the CPU bf16 step's test measures how close it comes). llama-3.1-8b at
  // TP 8, two layers: decode of 3 after 40 under the CUDA graph, prefill of 24 after 8; qwen3-235b-a22b at
  // TP 8 / EP 8, one MoE layer, the same two steps; deepseek-v3 (MLA) at TP 8, layer 0, the same two steps,
  // and four layers at EP 64 (three dense, then a MoE layer with 4 local experts) in decode. Every logit,
  // before and after a replay.
  for (StepShape step : {StepShape{"llama-3.1-8b", 8, 1, 2, 3, 40, 1}, StepShape{"llama-3.1-8b", 8, 1, 2, 2, 8, 24},
                         StepShape{"qwen3-235b-a22b", 8, 8, 1, 3, 40, 1},
                         StepShape{"qwen3-235b-a22b", 8, 8, 1, 2, 8, 24}, StepShape{"deepseek-v3", 8, 1, 1, 3, 40, 1},
                         StepShape{"deepseek-v3", 8, 1, 1, 2, 8, 24}, StepShape{"deepseek-v3", 8, 64, 4, 3, 40, 1}}) {
    step.precision = "bf16";
    const Shape shape = model_step_shape(step);
    INFO(shape.text());
    const Support s = backend->support(op, "bf16", shape);
    REQUIRE(s.supported);
    CHECK(s.dtype == "bf16");
    const StepDims d = step_dims(fleetcast::specs::model_preset(step.model), step);
    const CheckResult first = check_and_replay(*backend->prepare(op, s.dtype, shape));
    CHECK(first.compared == static_cast<std::size_t>(step.batch * d.vocab_local));
    CAPTURE(first.max_rel_error, bf16_step_tolerance(d));
    CHECK(first.max_rel_error < bf16_step_tolerance(d));
    CHECK(first.max_rel_error > std::ldexp(1.0, -8));  // the roundings happened: not an fp32 step
  }
  // The small-shape check the harness runs for a bf16 request: the op's small shape, dtype bf16.
  const Support small = backend->support(op, "bf16", op.small_check);
  REQUIRE(small.supported);
  CHECK(backend->prepare(op, "bf16", op.small_check)->check(true).compared > 0);
}

TEST_CASE("cuda: an fp8 model_step (GQA and MLA, dense and MoE) matches the reference step within its rounding bound",
          "[.gpu][engine][model_step]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("model_step");
  // FP8 E4M3 linear layers (cuBLASLt FP8 GEMMs with device-side per-tensor scales; the routed experts through
  // the grouped kernel's FP8 variant), an FP8 KV cache, bf16 elsewhere, against the fp32 reference at
  // fp8_step_tolerance, and above twice the bf16 step's error at the same shape (the FP8 roundings happened),
  // as the CPU emulation's test requires (test_fp8_step.cpp). One layer each: llama-3.1-8b at TP 8, decode of 3
  // after 40 under the CUDA graph and a prefill of 24 after 8; qwen3-235b-a22b at TP 8 / EP 8, decode of 2 after
  // 40; deepseek-v3 at TP 8, layer 0, decode and prefill. Every logit, before and after a replay.
  for (StepShape step : {StepShape{"llama-3.1-8b", 8, 1, 1, 3, 40, 1}, StepShape{"llama-3.1-8b", 8, 1, 1, 2, 8, 24},
                         StepShape{"qwen3-235b-a22b", 8, 8, 1, 2, 40, 1}, StepShape{"deepseek-v3", 8, 1, 1, 3, 40, 1},
                         StepShape{"deepseek-v3", 8, 1, 1, 2, 8, 24}}) {
    step.precision = "bf16";
    const double bf16_error = backend->prepare(op, "bf16", model_step_shape(step))->check(true).max_rel_error;
    step.precision = "fp8";
    const Shape shape = model_step_shape(step);
    INFO(shape.text());
    const Support s = backend->support(op, "fp8", shape);
    REQUIRE(s.supported);
    CHECK(s.dtype == "fp8");
    const StepDims d = step_dims(fleetcast::specs::model_preset(step.model), step);
    const CheckResult first = check_and_replay(*backend->prepare(op, s.dtype, shape));
    CHECK(first.compared == static_cast<std::size_t>(step.batch * d.vocab_local));
    CAPTURE(first.max_rel_error, bf16_error, fp8_step_tolerance(d));
    CHECK(first.max_rel_error < fp8_step_tolerance(d));
    CHECK(first.max_rel_error > 2.0 * bf16_error);
  }
  // The small-shape check the harness runs for an fp8 request: the op's small shape, dtype fp8.
  REQUIRE(backend->support(op, "fp8", op.small_check).supported);
  CHECK(backend->prepare(op, "fp8", op.small_check)->check(true).compared > 0);
}
