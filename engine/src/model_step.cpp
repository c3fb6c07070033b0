// model_step's shape contract, per-GPU dimensions and hand-counted cost.

#include "fleetcast/engine/model_step.hpp"

#include <cmath>
#include <stdexcept>

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

int bf16_rounding_stages(const StepDims& d) {
  // Every place the bf16 step rounds, once each: weights when uploaded, activations as each op stores them.
  // The embedding rows, the final norm's gain, its output, the LM head's weights and the logits.
  int stages = 5;
  for (std::int64_t l = 0; l < d.layers; ++l) {
    if (d.mla) {
      // MLA attention: norm gain and output; the q path's weights and outputs (q_a, its norm's gain and
      // output, q_b: 6 with a q LoRA, q_b's 2 without); kv_a's weights and output, the latent norm's gain and
      // output (4); RoPE's output; the cached context; W_UK's weights (kv_b's rows) and its output, the latent
      // queries; attention's output; W_UV's weights (kv_b's other rows: a rounding of its own on another
      // path) and output; O's weights and output; the residual add. The splits and cache writes only move
      // stored values. A logit sees each of these roundings through one path, as a GQA layer's.
      stages += 2 + (d.q_lora > 0 ? 6 : 2) + 4 + 1 + 1 + 2 + 1 + 2 + 2 + 1;
    } else {
      // Attention: norm gain and output, QKV weights and output, RoPE's output, the cached context (rounded
      // once), attention's output, O weights and output, the residual add.
      stages += 10;
    }
    stages += 2;        // the MLP's norm gain and output
    const int mlp = 6;  // gate/up weights and output, SwiGLU's output, down weights and output, residual
    if (d.experts == 0 || l < d.dense_layers) {
      stages += mlp;
    } else {
      // Router weights and logits, the routed experts' MLP (the weighted unpermute a rounding of its own),
      // and the shared experts' MLP when there are any.
      stages += 2 + mlp + 1 + (d.shared_width > 0 ? mlp : 0);
    }
  }
  return stages;
}

double bf16_step_tolerance(const StepDims& d) { return bf16_rounding_stages(d) * std::ldexp(1.0, -8); }

Cost model_step_cost(const specs::ModelSpec& m, const StepShape& s, double e) {
  const StepDims d = step_dims(m, s);
  const double T = static_cast<double>(s.tokens()), B = static_cast<double>(s.batch);
  const double C = static_cast<double>(s.context), N = static_cast<double>(s.new_tokens);
  const double H = static_cast<double>(d.hidden), dh = static_cast<double>(d.head_dim);
  const double Q = static_cast<double>(d.q_heads), KV = static_cast<double>(d.kv_heads);
  Cost c;
  auto gemm = [&](double rows, double n, double k) {  // weights [n, k] read once
    c.flops += 2.0 * rows * n * k;
    c.bytes += (rows * k + n * k + rows * n) * e;
  };
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
      gemm(T, ql, H);
      norm(T, ql);
      gemm(T, Q * (nope + r), ql);
    } else {
      gemm(T, Q * (nope + r), H);
    }
    gemm(T, entry, H);
    norm(T, kvl);
    c.flops += 3.0 * T * (Q + 1.0) * r;  // RoPE
    c.bytes += 2.0 * T * (Q + 1.0) * r * e + T * (4.0 + 4.0 * r);
    c.bytes += T * entry * e;                         // the new entries written to the cache
    for (const double n_k : {kvl * nope, v * kvl}) {  // W_UK absorption, then W_UV: Q GEMMs of T rows
      c.flops += 2.0 * T * Q * n_k;
      c.bytes += Q * n_k * e;
    }
    c.bytes += (T * Q * nope + 2.0 * T * Q * kvl + T * Q * v) * e;  // their inputs and outputs
    c.flops += 2.0 * B * Q * (entry + kvl) * (N * C + N * (N + 1.0) / 2.0);
    const double seq = C + N;
    c.bytes +=
        B * seq * entry * e + T * Q * (entry + kvl) * e + B * std::ceil(seq / static_cast<double>(kStepPageSize)) * 4.0;
    gemm(T, H, Q * v);
  };
  auto mlp = [&](double width) {
    gemm(T, 2.0 * width, H);
    swiglu(T, width);
    gemm(T, H, width);
  };
  // Embedding rows of the step's tokens, and the token ids.
  c.bytes += T * H * e + T * 4.0;
  for (std::int64_t layer = 0; layer < d.layers; ++layer) {
    rmsnorm(T);
    if (d.mla) {
      mla_attention();
    } else {
      gemm(T, static_cast<double>(d.qkv_width()), H);
      c.flops += 3.0 * T * (Q + KV) * dh;  // RoPE
      c.bytes += 2.0 * T * (Q + KV) * dh * e + T * (4.0 + 4.0 * dh);
      c.bytes += 2.0 * T * KV * dh * e;  // the new tokens' K and V written to the cache
      // Attention: token j of a sequence (0-based) attends to context + j + 1 tokens; each sequence's cache
      // (context + new_tokens tokens, K and V) is read once; q in, out written; one block-table entry per page.
      c.flops += 4.0 * B * Q * dh * (N * C + N * (N + 1.0) / 2.0);
      const double seq = C + N;
      c.bytes += 2.0 * B * seq * KV * dh * e + 2.0 * T * Q * dh * e +
                 B * std::ceil(seq / static_cast<double>(kStepPageSize)) * 4.0;
      gemm(T, H, Q * dh);
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
      c.flops += 2.0 * rows * H * 2.0 * W;  // grouped gate/up: only the experts with rows are read
      c.bytes += (rows * H + used * 2.0 * W * H + rows * 2.0 * W) * e;
      swiglu(rows, W);
      c.flops += 2.0 * rows * W * H;  // grouped down
      c.bytes += (rows * W + used * H * W + rows * H) * e;
      c.flops += 2.0 * rows * H;  // unpermute: weighted sum into each token
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
