#include "model_step_reference.hpp"

#include <cstring>

#include "moe_reference.hpp"
#include "reference.hpp"

namespace fleetcast::engine::reference {

namespace {

using Rows = std::vector<std::vector<float>>;  // one fp32 vector per token

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// y = x W^T for one token: W [n, k] row-major.
std::vector<float> linear(const std::vector<float>& x, const std::vector<float>& w, std::int64_t n, std::int64_t k,
                          std::int64_t w_offset = 0) {
  std::vector<float> y(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) y[j] = static_cast<float>(dot(x.data(), w.data() + w_offset + j * k, k));
  return y;
}

// SwiGLU MLP of one token: gate_up [2 width, hidden] at gu_offset, down [hidden, width] at down_offset.
std::vector<float> mlp(const std::vector<float>& x, const std::vector<float>& gate_up, const std::vector<float>& down,
                       std::int64_t hidden, std::int64_t width, std::int64_t gu_offset = 0,
                       std::int64_t down_offset = 0) {
  const auto gu = linear(x, gate_up, 2 * width, hidden, gu_offset);
  const auto act = to_float(swiglu_row(gu.data(), gu.data() + width, width));
  return linear(act, down, hidden, width, down_offset);
}

void add_into(std::vector<float>& x, const std::vector<float>& y) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// GQA attention of sequence b's new tokens: this sequence's new keys and values, then each new token over
// the cache and the new tokens up to itself.
void gqa_attention(const ModelStepProblem& p, const StepLayer& L, std::int64_t b, Rows& x) {
  const StepDims& d = p.dims;
  const std::int64_t H = d.hidden, dh = d.head_dim, N = p.shape.new_tokens, C = p.shape.context;
  const std::int64_t Q = d.q_heads, KV = d.kv_heads, group = Q / KV;
  Rows q(N), k_new(N), v_new(N);
  for (std::int64_t j = 0; j < N; ++j) {
    const auto h = to_float(rmsnorm_row(x[j].data(), L.attn_norm.data(), H, ModelStepProblem::kEps));
    const auto qkv = linear(h, L.qkv, d.qkv_width(), H);
    const float* table = p.cos_sin.data() + (C + j) * dh;
    for (std::int64_t head = 0; head < Q; ++head) {
      const auto r = to_float(rope_head(qkv.data() + head * dh, table, dh));
      q[j].insert(q[j].end(), r.begin(), r.end());
    }
    for (std::int64_t head = 0; head < KV; ++head) {
      const auto r = to_float(rope_head(qkv.data() + (Q + head) * dh, table, dh));
      k_new[j].insert(k_new[j].end(), r.begin(), r.end());
    }
    v_new[j].assign(qkv.begin() + (Q + KV) * dh, qkv.end());
  }
  for (std::int64_t j = 0; j < N; ++j) {
    std::vector<float> attn;
    for (std::int64_t head = 0; head < Q; ++head) {
      const std::int64_t kvh = head / group;
      auto key = [&](std::int64_t t) {
        return t < C ? L.k_cache.data() + p.cache_offset(b, t, kvh) : k_new[t - C].data() + kvh * dh;
      };
      auto value = [&](std::int64_t t) {
        return t < C ? L.v_cache.data() + p.cache_offset(b, t, kvh) : v_new[t - C].data() + kvh * dh;
      };
      const auto out = attention_head(q[j].data() + head * dh, dh, dh, C + j + 1, key, value, p.scale);
      attn.insert(attn.end(), out.begin(), out.end());
    }
    add_into(x[j], linear(attn, L.o, H, Q * dh));
  }
}

// MLA attention of sequence b's new tokens, un-absorbed (DeepSeek-V3's modeling code): each head's key is
// [W_UK c_t, k_rope_t] and its value W_UV c_t for every token t's latent c_t, cached or new; the query
// [q_nope, rope(q_rope)] per head; softmax over the 192-wide dot products; O over the heads' values.
void mla_attention(const ModelStepProblem& p, const StepLayer& L, std::int64_t b, Rows& x) {
  const StepDims& d = p.dims;
  const std::int64_t H = d.hidden, N = p.shape.new_tokens, C = p.shape.context, Q = d.q_heads;
  const std::int64_t kvl = d.kv_lora, nope = d.nope, r = d.rope_dim, v = d.v_dim, qd = d.head_dim;
  Rows q(N), latent(C + N), k_rope(C + N);
  for (std::int64_t t = 0; t < C; ++t) {
    const float* entry = L.k_cache.data() + p.cache_offset(b, t, 0);
    latent[t].assign(entry, entry + kvl);
    k_rope[t].assign(entry + kvl, entry + kvl + r);
  }
  for (std::int64_t j = 0; j < N; ++j) {
    const auto h = to_float(rmsnorm_row(x[j].data(), L.attn_norm.data(), H, ModelStepProblem::kEps));
    std::vector<float> q_full;
    if (d.q_lora > 0) {
      const auto cq = linear(h, L.q_a, d.q_lora, H);
      const auto cq_norm = to_float(rmsnorm_row(cq.data(), L.q_a_norm.data(), d.q_lora, ModelStepProblem::kEps));
      q_full = linear(cq_norm, L.q_b, Q * qd, d.q_lora);
    } else {
      q_full = linear(h, L.q_b, Q * qd, H);
    }
    const float* table = p.cos_sin.data() + (C + j) * r;
    for (std::int64_t head = 0; head < Q; ++head) {
      const float* qh = q_full.data() + head * qd;
      q[j].insert(q[j].end(), qh, qh + nope);
      const auto rotated = to_float(rope_head(qh + nope, table, r));
      q[j].insert(q[j].end(), rotated.begin(), rotated.end());
    }
    const auto kv = linear(h, L.kv_a, kvl + r, H);
    latent[C + j] = to_float(rmsnorm_row(kv.data(), L.kv_a_norm.data(), kvl, ModelStepProblem::kEps));
    k_rope[C + j] = to_float(rope_head(kv.data() + kvl, table, r));
  }
  Rows heads_out(N);
  for (std::int64_t head = 0; head < Q; ++head) {
    const std::int64_t uk = head * (nope + v) * kvl, uv = uk + nope * kvl;
    Rows keys(C + N), values(C + N);
    for (std::int64_t t = 0; t < C + N; ++t) {
      keys[t] = linear(latent[t], L.kv_b, nope, kvl, uk);
      keys[t].insert(keys[t].end(), k_rope[t].begin(), k_rope[t].end());
      values[t] = linear(latent[t], L.kv_b, v, kvl, uv);
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const auto out = attention_head(
          q[j].data() + head * qd, qd, v, C + j + 1, [&](std::int64_t t) { return keys[t].data(); },
          [&](std::int64_t t) { return values[t].data(); }, p.scale);
      heads_out[j].insert(heads_out[j].end(), out.begin(), out.end());
    }
  }
  for (std::int64_t j = 0; j < N; ++j) add_into(x[j], linear(heads_out[j], L.o, H, Q * v));
}

}  // namespace

std::vector<double> model_step_logits(const ModelStepProblem& p, std::int64_t b) {
  const StepDims& d = p.dims;
  const std::int64_t H = d.hidden, N = p.shape.new_tokens;
  Rows x;
  for (std::int64_t j = 0; j < N; ++j) {
    const float* row = p.embedding.data() + std::int64_t{p.token_ids[b * N + j]} * H;
    x.emplace_back(row, row + H);
  }
  for (std::int64_t l = 0; l < d.layers; ++l) {
    const StepLayer& L = p.layers[l];
    if (d.mla) {
      mla_attention(p, L, b, x);
    } else {
      gqa_attention(p, L, b, x);
    }
    // The FFN: dense, or the routed experts this GPU holds (and the shared ones).
    for (std::int64_t j = 0; j < N; ++j) {
      const auto h = to_float(rmsnorm_row(x[j].data(), L.mlp_norm.data(), H, ModelStepProblem::kEps));
      if (L.dense) {
        add_into(x[j], mlp(h, L.gate_up, L.down, H, d.dense_width));
        continue;
      }
      const std::int64_t W = d.expert_width;
      const auto logits = linear(h, L.router, d.experts, H);
      const auto route = moe_route(logits.data(), d.experts, d.top_k, d.n_group, d.topk_group, d.sigmoid);
      std::vector<double> routed(static_cast<std::size_t>(H), 0.0);
      for (std::size_t i = 0; i < route.ids.size(); ++i) {
        const std::int64_t e = route.ids[i];
        if (e >= d.local_experts) continue;  // on another GPU of the expert-parallel group
        const auto y = mlp(h, L.experts_gate_up, L.experts_down, H, W, e * 2 * W * H, e * H * W);
        for (std::int64_t c = 0; c < H; ++c) routed[c] += route.weights[i] * y[c];
      }
      add_into(x[j], to_float(routed));
      if (d.shared_width > 0) add_into(x[j], mlp(h, L.shared_gate_up, L.shared_down, H, d.shared_width));
    }
  }
  const auto h = to_float(rmsnorm_row(x[N - 1].data(), p.final_norm.data(), H, ModelStepProblem::kEps));
  std::vector<double> logits(static_cast<std::size_t>(d.vocab_local));
  for (std::int64_t v = 0; v < d.vocab_local; ++v) logits[v] = dot(h.data(), p.lm_head.data() + v * H, H);
  return logits;
}

}  // namespace fleetcast::engine::reference
