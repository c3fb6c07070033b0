#pragma once
// The model_step op: one forward step of the first `layers` layers of a model preset, as one GPU of a
// tp-way tensor-parallel (and ep-way expert-parallel) group runs it. This header holds what every backend
// agrees on: the step's shape (the trace record's contract), the per-GPU dimensions a preset gives, and
// the hand-counted FLOPs and bytes.
//
// The record's shape, in this order (read by the calibration compose check; keep it exactly):
//   {"model": "llama-3.1-8b", "tp": 4, "ep": 1, "layers": 2, "phase": "decode", "batch": 8,
//    "context": 2048, "new_tokens": 1}
// phase is "decode" when new_tokens is 1 and "prefill" otherwise: each of `batch` sequences has `context`
// tokens in its KV cache already and runs `new_tokens` new ones (causal among themselves). A step in another
// precision than fp32 (the plan entry's "precision") appends it as a last text field, "precision": "bf16" (or "fp8");
// an fp32 step's shape has none, so fp32 records are as they were before the field existed.

#include <cstdint>
#include <string>

#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/shape.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::engine {

struct StepShape {
  std::string model;
  std::int64_t tp = 1, ep = 1, layers = 1, batch = 1, context = 0, new_tokens = 1;
  // What the step stores weights, caches and activations in: "fp32"; "bf16" (fp32 accumulation, each op's
  // output rounded to bf16, as the CUDA bf16 step stores it and the CPU step emulates it); or "fp8" (an FP8
  // checkpoint as engines serve it: the linear layers' weights FP8 E4M3 with a per-tensor scale, activations
  // quantised per tensor before each FP8 GEMM, an FP8 E4M3 KV cache, bf16 everywhere else).
  std::string precision = "fp32";
  bool decode() const { return new_tokens == 1; }
  bool bf16() const { return precision == "bf16"; }
  bool fp8() const { return precision == "fp8"; }
  // Whether activations are stored in bf16 between ops: the bf16 and the fp8 step alike.
  bool bf16_activations() const { return bf16() || fp8(); }
  std::int64_t tokens() const { return batch * new_tokens; }
};

// The contract-ordered Shape of a step, and back.
Shape model_step_shape(const StepShape& s);
StepShape step_shape_of(const Shape& shape);

// What one GPU of the group holds and computes. Attention heads, the dense FFN and the shared experts are
// split over tp (kv heads replicated below tp), the LM head and embedding by vocabulary rows (padded).
// Routed experts: with ep == 1 every expert is on every GPU, its width split over tp; with ep > 1 each GPU
// holds num_routed_experts / ep whole experts (this one the first share: experts 0 .. local_experts - 1).
struct StepDims {
  std::int64_t hidden, vocab_local, q_heads, kv_heads, head_dim, dense_layers, layers;
  std::int64_t dense_width;                                                  // per GPU; 0 without dense layers
  std::int64_t experts = 0, local_experts = 0, top_k = 0, expert_width = 0;  // per GPU
  std::int64_t shared_width = 0;                                             // all shared experts together, per GPU
  // Routing (moe_routing's fields): softmax top-k unless the model is one routing_rule() knows.
  std::int64_t n_group = 1, topk_group = 1;
  bool sigmoid = false;
  // MLA (DeepSeek-V3 style): head_dim is nope + rope (q.k width), kv_heads 1 (one latent entry per token).
  bool mla = false;
  std::int64_t q_lora = 0, kv_lora = 0, nope = 0, rope_dim = 0, v_dim = 0;
  bool is_dense(std::int64_t layer) const { return experts == 0 || layer < dense_layers; }
  std::int64_t qkv_width() const { return (q_heads + 2 * kv_heads) * head_dim; }
  // Floats per token and kv head in the cache: GQA one head's key (values in their own cache); MLA the
  // latent then the rotated rope key (the value is the latent part).
  std::int64_t cache_entry() const { return mla ? kv_lora + rope_dim : head_dim; }
  std::int64_t rotated_dim() const { return mla ? rope_dim : head_dim; }  // RoPE's width per head
};

// How a model's router picks experts, from its published config.json (the presets do not record it):
// DeepSeek-V3 and R1 (scoring_func "sigmoid", n_group 8, topk_group 4), Kimi-K2.5 (DeepSeek-V3
// architecture, "sigmoid", n_group 1, topk_group 1); every other model softmax top-k (Qwen3, gpt-oss,
// MiniMax). The score-correction bias and routed scaling factor change no cost and are left out.
struct RoutingRule {
  std::int64_t n_group = 1, topk_group = 1;
  bool sigmoid = false;
};
RoutingRule routing_rule(const std::string& model_name);

// Throws std::invalid_argument saying which field cannot be (an attention type the step does not run,
// heads or experts that do not divide, more layers than the model has).
StepDims step_dims(const specs::ModelSpec& model, const StepShape& s);

// The precisions a step runs in (plans' "precision"), the default first.
inline constexpr const char* kStepPrecisions[] = {"fp32", "bf16", "fp8"};

// A bf16 step's logits against the fp32 reference step. Each rounding to bf16 (round to nearest, 8
// significant bits) perturbs a value by at most u = 2^-8 relative. The step's random weights keep every
// op's output at unit size (1/sqrt(fan-in) scaling, RMSNorm before each block), so a relative error of u at
// one stage reaches the logits as about u relative to their RMS, no larger. Summing the stages linearly (as
// if every rounding landed on the same logit with the same sign) bounds the error, to first order, by
// S x u, S the number of rounding stages in the step (bf16_rounding_stages). Independent roundings add in
// quadrature instead: sqrt(S) x u / sqrt(3) RMS, about 5 of those at the largest of ~10^4 logits, under
// half of S x u for S >= 20; S x u leaves that margin. (Routing is discrete: a bf16 router score that
// reorders a near tie picks another expert and fails the check outright, a mismatch, never a wrong time.)
int bf16_rounding_stages(const StepDims& d);
double bf16_step_tolerance(const StepDims& d);

// An fp8 step's logits against the fp32 reference step, bounded the same way. FP8 E4M3 keeps 4 significant
// bits (3 stored): rounding to nearest perturbs a normal value by at most u = 2^-4 relative. Per-tensor
// scaling (absmax / 448) puts a tensor's largest magnitude at E4M3's largest value, so only values below
// 2^-6 / 448 of it (the subnormals, 2^-15 of the absmax) round more coarsely, and those weigh nothing in a sum
// of unit-size terms. Each FP8 GEMM rounds its weights and its input activations (2 stages of u = 2^-4),
// the KV cache rounds each entry once (1 stage); every other rounding is a bf16 one (2^-8). The first-order
// bound is then S8 x 2^-4 + S16 x 2^-8 (fp8_rounding_stages: S8 and S16). The GEMMs that stay bf16 (router,
// LM head, MLA's W_UK and W_UV) round their weights to bf16, as vLLM holds them.
struct RoundingStages {
  int fp8 = 0, bf16 = 0;
};
RoundingStages fp8_rounding_stages(const StepDims& d);
double fp8_step_tolerance(const StepDims& d);

// The tolerance of a step's logits against the fp32 reference: fp32's own, or one of the two above.
double step_tolerance(const StepShape& s, const StepDims& d);

// The KV cache scale of an fp8 step: stored = e4m3(value / scale). 1, vLLM's k_scale and v_scale when the
// checkpoint carries none (the step's cached keys, values and latents are of unit size, well inside E4M3's
// +-448 and above its 2^-6 smallest normal for nearly all entries).
inline constexpr float kStepKvScale = 1.0f;

// The step's KV cache pages hold this many tokens (vLLM's default block size).
inline constexpr std::int64_t kStepPageSize = 16;

// Sum over the step's ops of their hand-counted FLOPs and bytes (ops.hpp's rules: each input read once,
// each output written once): weights read once per step, the KV cache read once per sequence and layer,
// activations in and out of every op. The routed experts' rows and the experts that get any are the
// expected values under uniform routing (tokens x top_k x local / experts rows; local x (1 - (1 - top_k /
// experts)^tokens) experts): the count cannot depend on the data. Elements count `element_bytes` each, except in
// an fp8 step recorded at one byte per element (dtype fp8): there the FP8 GEMMs' weights and quantised inputs and
// the KV cache count one byte, every other tensor two (bf16), and each FP8 GEMM's input quantisation reads its
// bf16 input and writes the FP8 copy.
Cost model_step_cost(const specs::ModelSpec& model, const StepShape& s, double element_bytes);

}  // namespace fleetcast::engine
