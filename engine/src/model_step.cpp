// model_step's shape contract, per-GPU dimensions and hand-counted cost.

#include "fleetcast/engine/model_step.hpp"

#include <cmath>
#include <stdexcept>

#include "fleetcast/engine/check.hpp"

namespace fleetcast::engine {

Shape model_step_shape(const StepShape& s) {
  Shape shape;
  shape.set_text("model", s.model);
  shape.set("tp", s.tp);
  shape.set("ep", s.ep);
  shape.set("layers", s.layers);
  shape.set_text("phase", s.decode() ? "decode" : "prefill");
  shape.set("batch", s.batch);
  shape.set("context", s.context);
  shape.set("new_tokens", s.new_tokens);
  if (s.precision != "fp32") shape.set_text("precision", s.precision);
  return shape;
}

StepShape step_shape_of(const Shape& shape) {
  StepShape s;
  s.model = shape.text_at("model");
  s.tp = shape.at("tp");
  s.ep = shape.at("ep");
  s.layers = shape.at("layers");
  s.batch = shape.at("batch");
  s.context = shape.at("context");
  s.new_tokens = shape.at("new_tokens");
  if (shape.has_text("precision")) s.precision = shape.text_at("precision");
  return s;
}

RoutingRule routing_rule(const std::string& name) {
  // deepseek-ai/DeepSeek-V3 config.json: "scoring_func": "sigmoid", "n_group": 8, "topk_group": 4
  // (R1 shares it); moonshotai/Kimi-K2 config.json: "scoring_func": "sigmoid", "n_group": 1, "topk_group": 1.
  if (name == "deepseek-v3" || name == "deepseek-r1") return {8, 4, true};
  if (name == "kimi-k2.5") return {1, 1, true};
  return {};
}

StepDims step_dims(const specs::ModelSpec& m, const StepShape& s) {
  auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  const auto& a = m.attention;
  if (a.type == specs::AttentionType::csa)
    fail(
        "model_step runs grouped-query and MLA models only (compressed sparse attention, DeepSeek-V4: its "
        "compressed global cache, indexer and window are not run yet)");
  if (a.type == specs::AttentionType::mla && a.sparse())
    fail(
        "model_step runs dense MLA only (DeepSeek Sparse Attention, DeepSeek-V3.2 and GLM-5: its indexer and "
        "top-k gather are not run yet)");
  if (m.moe && m.moe->latent_width > 0)
    fail(
        "model_step runs experts on the hidden state only (a latent MoE, Kimi-K3: its latent projections are not run "
        "yet)");
  if (m.attention_free_layers > 0 || m.ffn_free_layers > 0 || !m.ffn_gated)
    fail(
        "model_step runs models whose every layer has attention and a gated FFN only (DeciLM and Nemotron-H blocks "
        "without one, and squared-ReLU FFNs, are not run yet)");
  if (a.type == specs::AttentionType::mla && a.output_gate)
    fail("model_step runs MLA without an output gate only (Kimi-K3's g_proj is not run yet)");
  if (a.type == specs::AttentionType::gqa && a.sparse())
    fail(
        "model_step runs dense grouped-query attention only (MiniMax Sparse Attention, MiniMax-M3: its indexer and "
        "block gather are not run yet)");
  if (s.layers > m.num_layers) fail("more layers than the model's " + std::to_string(m.num_layers));
  if (a.num_query_heads % s.tp != 0)
    fail("tp " + std::to_string(s.tp) + " does not divide the " + std::to_string(a.num_query_heads) + " query heads");
  StepDims d{};
  d.hidden = m.hidden_size;
  d.vocab_local = (m.vocab_size + s.tp - 1) / s.tp;
  d.q_heads = a.num_query_heads / s.tp;
  if (a.type == specs::AttentionType::mla) {
    if (a.kv_lora_rank <= 0 || a.qk_rope_head_dim <= 0 || a.qk_nope_head_dim <= 0 || a.v_head_dim <= 0)
      fail("an MLA model needs kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
    if (a.qk_rope_head_dim % 2 != 0) fail("qk_rope_head_dim must be even (RoPE rotates pairs)");
    d.mla = true;
    d.q_lora = a.q_lora_rank;
    d.kv_lora = a.kv_lora_rank;
    d.nope = a.qk_nope_head_dim;
    d.rope_dim = a.qk_rope_head_dim;
    d.v_dim = a.v_head_dim;
    d.kv_heads = 1;
    d.head_dim = d.nope + d.rope_dim;
  } else {
    d.kv_heads = std::max<std::int64_t>(1, a.num_kv_heads / s.tp);
    d.head_dim = a.head_dim;
  }
  d.layers = s.layers;
  d.dense_layers = m.moe ? m.dense_layers : m.num_layers;
  if (d.dense_layers > 0 && std::min(d.dense_layers, s.layers) > 0) {
    if (m.dense_ffn_width % s.tp != 0) fail("tp does not divide the dense FFN width");
    d.dense_width = m.dense_ffn_width / s.tp;
  }
  if (!m.moe) {
    if (s.ep != 1) fail("ep must be 1 for a dense model");
    return d;
  }
  const auto& moe = *m.moe;
  if (moe.num_routed_experts % s.ep != 0)
    fail("ep " + std::to_string(s.ep) + " does not divide the " + std::to_string(moe.num_routed_experts) + " experts");
  d.experts = moe.num_routed_experts;
  d.local_experts = moe.num_routed_experts / s.ep;
  d.top_k = moe.top_k;
  const RoutingRule rule = routing_rule(m.name);
  if (d.experts % rule.n_group != 0 || rule.topk_group * (d.experts / rule.n_group) < d.top_k)
    fail("the routing groups (" + std::to_string(rule.n_group) + " groups, best " + std::to_string(rule.topk_group) +
         ") do not fit " + std::to_string(d.experts) + " experts top-" + std::to_string(d.top_k));
  d.n_group = rule.n_group;
  d.topk_group = rule.topk_group;
  d.sigmoid = rule.sigmoid;
  if (s.ep == 1 && moe.expert_width % s.tp != 0) fail("tp does not divide the expert width (ep 1 splits experts)");
  d.expert_width = s.ep == 1 ? moe.expert_width / s.tp : moe.expert_width;
  if (moe.num_shared_experts > 0) {
    const std::int64_t width =
        std::int64_t{moe.shared_expert_width > 0 ? moe.shared_expert_width : moe.expert_width} * moe.num_shared_experts;
    if (width % s.tp != 0) fail("tp does not divide the shared experts' width");
    d.shared_width = width / s.tp;
  }
  return d;
}

namespace {

// Every place a narrow step rounds, once each: weights when uploaded, activations as each op stores them.
// `fp8`: the linear layers' GEMMs are FP8 (weights and input activations rounded to E4M3) and so is the KV
// cache; otherwise every rounding is to bf16.
RoundingStages rounding_stages(const StepDims& d, bool fp8) {
  RoundingStages s;
  // A GEMM: its output (bf16), and its weights (bf16), or its weights and input activations (FP8).
  auto gemm = [&](bool fp8_capable) {
    s.bf16 += 1;
    if (fp8 && fp8_capable) {
      s.fp8 += 2;
    } else {
      s.bf16 += 1;
    }
  };
  auto cache = [&] { (fp8 ? s.fp8 : s.bf16) += 1; };  // each cache entry is rounded once, context or new
  auto norm = [&] { s.bf16 += 2; };                   // RMSNorm's gain and output
  // An MLP: gate/up, SwiGLU's output, down, the residual add.
  auto mlp = [&] {
    gemm(true);
    s.bf16 += 1;
    gemm(true);
    s.bf16 += 1;
  };
  // The embedding rows, the final norm, the LM head (bf16 in either step, as engines keep it).
  s.bf16 += 1;
  norm();
  gemm(false);
  for (std::int64_t l = 0; l < d.layers; ++l) {
    norm();
    if (d.mla) {
      // The q path (q_a, its norm, q_b; q_b alone without a q LoRA), kv_a and the latent norm, RoPE's output,
      // the latent cache, W_UK (kv_b's rows, bf16 in either step, as vLLM absorbs it) and its output, the
      // latent queries; attention's output; W_UV (kv_b's other rows: a rounding of its own on another path)
      // and its output; O. The splits and cache writes only move stored values. A logit sees each of these
      // roundings through one path, as a GQA layer's. 22 stages in bf16 (18 without a q LoRA).
      if (d.q_lora > 0) {
        gemm(true);
        norm();
      }
      gemm(true);
      gemm(true);
      norm();
      s.bf16 += 1;
      cache();
      gemm(false);
      s.bf16 += 1;
      gemm(false);
      gemm(true);
    } else {
      // QKV, RoPE's output, the cache, attention's output, O: 10 stages in bf16 with the norm and residual.
      gemm(true);
      s.bf16 += 1;
      cache();
      s.bf16 += 1;
      gemm(true);
    }
    s.bf16 += 1;  // the residual add
    norm();       // the MLP's
    if (d.is_dense(l)) {
      mlp();
    } else {
      gemm(false);  // the router (bf16 in either step: DeepSeek's and vLLM's gate is not quantised)
      mlp();        // the routed experts
      s.bf16 += 1;  // the weighted unpermute
      if (d.shared_width > 0) mlp();
    }
  }
  return s;
}

}  // namespace

int bf16_rounding_stages(const StepDims& d) { return rounding_stages(d, false).bf16; }

double bf16_step_tolerance(const StepDims& d) { return bf16_rounding_stages(d) * std::ldexp(1.0, -8); }

RoundingStages fp8_rounding_stages(const StepDims& d) { return rounding_stages(d, true); }

double fp8_step_tolerance(const StepDims& d) {
  const RoundingStages s = fp8_rounding_stages(d);
  return s.fp8 * std::ldexp(1.0, -4) + s.bf16 * std::ldexp(1.0, -8);
}

double step_tolerance(const StepShape& s, const StepDims& d) {
  if (s.fp8()) return fp8_step_tolerance(d);
  if (s.bf16()) return bf16_step_tolerance(d);
  return tolerance_for("fp32");
}

Cost model_step_cost(const specs::ModelSpec& m, const StepShape& s, double element_bytes) {
  const StepDims d = step_dims(m, s);
  // An fp8 step recorded at one byte per FP8 element (the CUDA step, dtype fp8): the FP8 GEMMs' weights and
  // quantised inputs and the KV cache at one byte (e8), every other tensor bf16 (e). Any other record (the
  // CPU's fp8 emulation is recorded as the fp32 it moves): every element at `element_bytes`.
  const bool fp8 = s.fp8() && element_bytes == 1.0;
  const double e = fp8 ? 2.0 : element_bytes, e8 = element_bytes;
  const double T = static_cast<double>(s.tokens()), B = static_cast<double>(s.batch);
  const double C = static_cast<double>(s.context), N = static_cast<double>(s.new_tokens);
  const double H = static_cast<double>(d.hidden), dh = static_cast<double>(d.head_dim);
  const double Q = static_cast<double>(d.q_heads), KV = static_cast<double>(d.kv_heads);
  Cost c;
  // A GEMM of `rows` over weights [n, k] read once (`used` of `experts` such stacks for the routed experts). An
  // FP8 one first quantises its input (bf16 read, FP8 written; the absmax pass is not counted), then reads the
  // FP8 input and weights and writes bf16.
  auto linear = [&](double rows, double n, double k, bool fp8_capable, double used) {
    c.flops += 2.0 * rows * n * k;
    if (fp8 && fp8_capable) {
      c.bytes += rows * k * (e + e8) + (rows * k + used * n * k) * e8 + rows * n * e;
    } else {
      c.bytes += (rows * k + used * n * k + rows * n) * e;
    }
  };
  auto gemm = [&](double rows, double n, double k) { linear(rows, n, k, false, 1.0); };  // bf16 in an fp8 step
  auto gemm8 = [&](double rows, double n, double k) { linear(rows, n, k, true, 1.0); };  // FP8 in an fp8 step
  auto rmsnorm = [&](double rows) {
    c.flops += 4.0 * rows * H + rows;
    c.bytes += (2.0 * rows * H + H) * e;
  };
  auto swiglu = [&](double rows, double width) {
    c.flops += 5.0 * rows * width;
    c.bytes += 3.0 * rows * width * e;
  };
  auto residual_add = [&] {
    c.flops += T * H;
    c.bytes += 3.0 * T * H * e;
  };
  auto norm = [&](double rows, double width) {  // RMSNorm of another width (MLA's q and kv latents)
    c.flops += 4.0 * rows * width + rows;
    c.bytes += (2.0 * rows * width + width) * e;
  };
  // MLA, absorbed (as decode_attention_mla runs it): the q path (LoRA down, norm, up) and the kv latent
  // (down, norm), RoPE on the rope parts, the new entries (latent + rope key) into the cache, each head's
  // q_nope through its W_UK into the latent space (a GEMM per head), attention of Q heads over one
  // 576-wide entry per token (values its first kv_lora), each head's latent output through its W_UV, then O.
  auto mla_attention = [&] {
    const double ql = static_cast<double>(d.q_lora), kvl = static_cast<double>(d.kv_lora);
    const double nope = static_cast<double>(d.nope), r = static_cast<double>(d.rope_dim);
    const double v = static_cast<double>(d.v_dim), entry = kvl + r;
    if (d.q_lora > 0) {
      gemm8(T, ql, H);
      norm(T, ql);
      gemm8(T, Q * (nope + r), ql);
    } else {
      gemm8(T, Q * (nope + r), H);
    }
    gemm8(T, entry, H);
    norm(T, kvl);
    c.flops += 3.0 * T * (Q + 1.0) * r;  // RoPE
    c.bytes += 2.0 * T * (Q + 1.0) * r * e + T * (4.0 + 4.0 * r);
    c.bytes += T * entry * e8;                        // the new entries written to the cache
    for (const double n_k : {kvl * nope, v * kvl}) {  // W_UK absorption, then W_UV: Q GEMMs of T rows
      c.flops += 2.0 * T * Q * n_k;
      c.bytes += Q * n_k * e;
    }
    c.bytes += (T * Q * nope + 2.0 * T * Q * kvl + T * Q * v) * e;  // their inputs and outputs
    c.flops += 2.0 * B * Q * (entry + kvl) * (N * C + N * (N + 1.0) / 2.0);
    const double seq = C + N;
    c.bytes += B * seq * entry * e8 + T * Q * (entry + kvl) * e +
               B * std::ceil(seq / static_cast<double>(kStepPageSize)) * 4.0;
    gemm8(T, H, Q * v);
  };
  auto mlp = [&](double width) {
    gemm8(T, 2.0 * width, H);
    swiglu(T, width);
    gemm8(T, H, width);
  };
  // Embedding rows of the step's tokens, and the token ids.
  c.bytes += T * H * e + T * 4.0;
  for (std::int64_t layer = 0; layer < d.layers; ++layer) {
    rmsnorm(T);
    if (d.mla) {
      mla_attention();
    } else {
      gemm8(T, static_cast<double>(d.qkv_width()), H);
      c.flops += 3.0 * T * (Q + KV) * dh;  // RoPE
      c.bytes += 2.0 * T * (Q + KV) * dh * e + T * (4.0 + 4.0 * dh);
      c.bytes += 2.0 * T * KV * dh * e8;  // the new tokens' K and V written to the cache
      // Attention: token j of a sequence (0-based) attends to context + j + 1 tokens; each sequence's cache
      // (context + new_tokens tokens, K and V) is read once; q in, out written; one block-table entry per page.
      c.flops += 4.0 * B * Q * dh * (N * C + N * (N + 1.0) / 2.0);
      const double seq = C + N;
      c.bytes += 2.0 * B * seq * KV * dh * e8 + 2.0 * T * Q * dh * e +
                 B * std::ceil(seq / static_cast<double>(kStepPageSize)) * 4.0;
      gemm8(T, H, Q * dh);
    }
    residual_add();
    rmsnorm(T);
    if (d.is_dense(layer)) {
      mlp(static_cast<double>(d.dense_width));
    } else {
      const double E = static_cast<double>(d.experts), El = static_cast<double>(d.local_experts);
      const double k = static_cast<double>(d.top_k), W = static_cast<double>(d.expert_width);
      gemm(T, E, H);                       // router
      c.flops += T * (4.0 * E + 2.0 * k);  // routing, as the moe_routing op counts it
      c.bytes += T * E * e + T * k * 8.0;
      const double rows = T * k * El / E;
      const double used = El * (1.0 - std::pow(1.0 - k / E, T));
      c.bytes += (T * H + rows * H) * e + T * k * 4.0 + (rows + T * k) * 4.0 + (El + 1.0) * 4.0;  // permute
      linear(rows, 2.0 * W, H, true, used);  // grouped gate/up: only the experts with rows are read
      swiglu(rows, W);
      linear(rows, H, W, true, used);  // grouped down
      c.flops += 2.0 * rows * H;       // unpermute: weighted sum into each token
      c.bytes += (rows * H + T * H) * e + T * k * 8.0;
      if (d.shared_width > 0) {
        mlp(static_cast<double>(d.shared_width));
        residual_add();
      }
    }
    residual_add();
  }
  // The last token of each sequence: final norm and the LM head's share of the vocabulary.
  rmsnorm(B);
  gemm(B, static_cast<double>(d.vocab_local), H);
  return c;
}

}  // namespace fleetcast::engine
