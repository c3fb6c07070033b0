#include "cpu_model_step.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu_kernels.hpp"
#include "cpu_moe.hpp"
#include "fleetcast/engine/fill.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

namespace {

void add_into(float* x, const float* y, std::int64_t count) {
  parallel_for(count, 1, [&](std::int64_t i) { x[i] += y[i]; });
}

std::vector<float> buffer(std::int64_t count) { return std::vector<float>(static_cast<std::size_t>(count)); }

void round_all(std::vector<float>& v) {
  parallel_for(static_cast<std::int64_t>(v.size()), 1, [&](std::int64_t i) { v[i] = round_bf16(v[i]); });
}

}  // namespace

void ModelStepRunner::store(float* v, std::int64_t count) const {
  if (bf16_) parallel_for(count, 1, [&](std::int64_t i) { v[i] = round_bf16(v[i]); });
}

ModelStepRunner::ModelStepRunner(ModelStepProblem& p)
    : p_(p), tokens_(p.shape.tokens()), bf16_(p.shape.bf16_activations()), fp8_(p.shape.fp8()) {
  const StepDims& d = p.dims;
  fp8_scales_.resize(p.layers.size());
  expert_rows_.resize(p.layers.size());
  if (bf16_) {
    bf16_layers_ = p.layers;
    if (fp8_) prepare_fp8();
    for (StepLayer& L : bf16_layers_)
      for (std::vector<float>* v : {&L.attn_norm, &L.qkv, &L.o, &L.mlp_norm, &L.gate_up, &L.down, &L.router,
                                    &L.experts_gate_up, &L.experts_down, &L.shared_gate_up, &L.shared_down, &L.q_a,
                                    &L.q_a_norm, &L.q_b, &L.kv_a, &L.kv_a_norm, &L.kv_b, &L.k_cache, &L.v_cache})
        round_all(*v);
    bf16_final_norm_ = p.final_norm;
    round_all(bf16_final_norm_);
    bf16_lm_head_ = p.lm_head;
    round_all(bf16_lm_head_);
  }
  const std::int64_t T = tokens_, H = d.hidden, dh = d.head_dim;
  x_ = buffer(T * H);
  h_ = buffer(T * H);
  proj_ = buffer(T * H);
  if (d.mla) {
    prepare_mla();
  } else {
    qkv_ = buffer(T * d.qkv_width());
    q_ = buffer(T * d.q_heads * dh);
    q_rot_ = buffer(T * d.q_heads * dh);
    k_ = buffer(T * d.kv_heads * dh);
    k_rot_ = buffer(T * d.kv_heads * dh);
    attn_ = buffer(T * d.q_heads * dh);
  }
  const std::int64_t width = std::max(d.dense_width, d.shared_width);
  gu_ = buffer(T * 2 * width);
  act_ = buffer(T * width);
  if (d.experts > 0) {
    const std::int64_t slots = T * d.top_k;
    router_logits_ = buffer(T * d.experts);
    route_weights_ = buffer(slots);
    route_ids_.resize(static_cast<std::size_t>(slots));
    offsets_.resize(static_cast<std::size_t>(d.local_experts + 1));
    source_slot_.resize(static_cast<std::size_t>(slots));
    dest_row_.resize(static_cast<std::size_t>(slots));
    permuted_ = buffer(slots * H);
    expert_gu_ = buffer(slots * 2 * d.expert_width);
    expert_act_ = buffer(slots * d.expert_width);
    expert_out_ = buffer(slots * H);
  }
  last_ = buffer(p.shape.batch * H);
  last_norm_ = buffer(p.shape.batch * H);
  logits_ = buffer(p.shape.batch * d.vocab_local);
}

void ModelStepRunner::paged_attention(const float* q, const float* k_cache, const float* v_cache, float* out,
                                      std::int64_t dk, std::int64_t dv) {
  const StepDims& d = p_.dims;
  const std::int64_t Q = d.q_heads, KV = d.kv_heads, N = p_.shape.new_tokens, C = p_.shape.context;
  const auto scale = static_cast<float>(p_.scale);
  if (N == 1) {
    attention_decode({q, k_cache, v_cache, p_.block_table.data(), out, p_.shape.batch, C + 1, Q, KV, dk, dv,
                      kStepPageSize, p_.pages_per_seq, scale});
    return;
  }
  // Causal prefill with the decode kernel: new token j of a sequence is one query over the first
  // context + j + 1 tokens of its cache, the new tokens' entries written before.
  parallel_for(tokens_, (C + N) * KV * (dk + dv), [&](std::int64_t t) {
    const std::int64_t b = t / N, j = t % N;
    attention_decode({q + t * Q * dk, k_cache, v_cache, p_.block_table.data() + b * p_.pages_per_seq, out + t * Q * dv,
                      1, C + j + 1, Q, KV, dk, dv, kStepPageSize, p_.pages_per_seq, scale});
  });
}

void ModelStepRunner::attention(std::int64_t layer) {
  const StepDims& d = p_.dims;
  StepLayer& L = this->layer(layer);
  const std::int64_t T = tokens_, H = d.hidden, dh = d.head_dim, Q = d.q_heads, KV = d.kv_heads;
  const std::int64_t N = p_.shape.new_tokens, C = p_.shape.context;
  const Fp8Scales& S = scales(layer);
  rmsnorm(x_.data(), L.attn_norm.data(), h_.data(), T, H, static_cast<float>(ModelStepProblem::kEps));
  store(h_, T * H);
  linear(h_.data(), L.qkv, S.qkv, qkv_.data(), T, d.qkv_width(), H);
  store(qkv_, T * d.qkv_width());
  // The fused projection's q and k parts into their own arrays for RoPE; v goes straight to the cache.
  parallel_for(T, d.qkv_width(), [&](std::int64_t t) {
    const float* row = qkv_.data() + t * d.qkv_width();
    std::memcpy(q_.data() + t * Q * dh, row, static_cast<std::size_t>(Q * dh) * sizeof(float));
    std::memcpy(k_.data() + t * KV * dh, row + Q * dh, static_cast<std::size_t>(KV * dh) * sizeof(float));
  });
  rope(q_.data(), k_.data(), p_.positions.data(), p_.cos_sin.data(), q_rot_.data(), k_rot_.data(), T, Q, KV, dh);
  store(q_rot_, T * Q * dh);
  store(k_rot_, T * KV * dh);
  parallel_for(T, 2 * KV * dh, [&](std::int64_t t) {
    const std::int64_t b = t / N, pos = C + t % N;
    const std::int64_t at = p_.cache_offset(b, pos, 0);  // the kv heads of one token are contiguous
    std::memcpy(L.k_cache.data() + at, k_rot_.data() + t * KV * dh, static_cast<std::size_t>(KV * dh) * sizeof(float));
    std::memcpy(L.v_cache.data() + at, qkv_.data() + t * d.qkv_width() + (Q + KV) * dh,
                static_cast<std::size_t>(KV * dh) * sizeof(float));
    store_cache(L.k_cache.data() + at, KV * dh);
    store_cache(L.v_cache.data() + at, KV * dh);
  });
  paged_attention(q_rot_.data(), L.k_cache.data(), L.v_cache.data(), attn_.data(), dh, dh);
  store(attn_, T * Q * dh);
  linear(attn_.data(), L.o, S.o, proj_.data(), T, H, Q * dh);
  store(proj_, T * H);
  add_into(x_.data(), proj_.data(), T * H);
  store(x_, T * H);
}

void ModelStepRunner::dense_mlp(const std::vector<float>& gate_up, float gate_up_scale, const std::vector<float>& down,
                                float down_scale, std::int64_t width) {
  const std::int64_t T = tokens_, H = p_.dims.hidden;
  linear(h_.data(), gate_up, gate_up_scale, gu_.data(), T, 2 * width, H);
  store(gu_, T * 2 * width);
  swiglu(gu_.data(), act_.data(), T, width);
  store(act_, T * width);
  linear(act_.data(), down, down_scale, proj_.data(), T, H, width);
  store(proj_, T * H);
  add_into(x_.data(), proj_.data(), T * H);
  store(x_, T * H);
}

void ModelStepRunner::moe(std::int64_t layer) {
  const StepDims& d = p_.dims;
  const StepLayer& L = this->layer(layer);
  const Fp8Scales& S = scales(layer);
  const std::int64_t T = tokens_, H = d.hidden, W = d.expert_width;
  gemm(h_.data(), L.router.data(), router_logits_.data(), T, d.experts, H);
  store(router_logits_, T * d.experts);
  moe_routing(router_logits_.data(), route_ids_.data(), route_weights_.data(), T,
              {d.experts, d.top_k, d.n_group, d.topk_group, d.sigmoid});
  const std::int64_t rows = moe_permute(h_.data(), route_ids_.data(), permuted_.data(), offsets_.data(),
                                        source_slot_.data(), dest_row_.data(), T, H, d.top_k, 0, d.local_experts);
  auto& routed = expert_rows_[static_cast<std::size_t>(layer)];
  routed.resize(static_cast<std::size_t>(d.local_experts));
  for (std::int64_t e = 0; e < d.local_experts; ++e) routed[e] = offsets_[e + 1] - offsets_[e];
  grouped(permuted_.data(), L.experts_gate_up, S.experts_gate_up, expert_gu_.data(), rows, 2 * W, H);
  store(expert_gu_, rows * 2 * W);
  swiglu(expert_gu_.data(), expert_act_.data(), rows, W);
  store(expert_act_, rows * W);
  grouped(expert_act_.data(), L.experts_down, S.experts_down, expert_out_.data(), rows, H, W);
  store(expert_out_, rows * H);
  moe_unpermute(expert_out_.data(), route_weights_.data(), dest_row_.data(), proj_.data(), T, H, d.top_k);
  store(proj_, T * H);
  add_into(x_.data(), proj_.data(), T * H);
  store(x_, T * H);
  if (d.shared_width > 0) dense_mlp(L.shared_gate_up, S.shared_gate_up, L.shared_down, S.shared_down, d.shared_width);
}

std::vector<std::vector<std::int64_t>> ModelStepRunner::expert_rows() const {
  std::vector<std::vector<std::int64_t>> moe_layers;
  for (const auto& routed : expert_rows_)
    if (!routed.empty()) moe_layers.push_back(routed);
  return moe_layers;
}

void ModelStepRunner::run() {
  const StepDims& d = p_.dims;
  const std::int64_t T = tokens_, H = d.hidden, N = p_.shape.new_tokens, B = p_.shape.batch;
  parallel_for(T, H, [&](std::int64_t t) {
    std::memcpy(x_.data() + t * H, p_.embedding.data() + std::int64_t{p_.token_ids[t]} * H,
                static_cast<std::size_t>(H) * sizeof(float));
  });
  store(x_, T * H);  // the embedding rows, as a bf16 table holds them
  for (std::int64_t l = 0; l < d.layers; ++l) {
    if (d.mla) {
      mla_attention(l);
    } else {
      attention(l);
    }
    StepLayer& L = layer(l);
    rmsnorm(x_.data(), L.mlp_norm.data(), h_.data(), T, H, static_cast<float>(ModelStepProblem::kEps));
    store(h_, T * H);
    if (L.dense) {
      dense_mlp(L.gate_up, scales(l).gate_up, L.down, scales(l).down, d.dense_width);
    } else {
      moe(l);
    }
  }
  for (std::int64_t b = 0; b < B; ++b)
    std::memcpy(last_.data() + b * H, x_.data() + (b * N + N - 1) * H, static_cast<std::size_t>(H) * sizeof(float));
  const std::vector<float>& final_norm = bf16_ ? bf16_final_norm_ : p_.final_norm;
  const std::vector<float>& lm_head = bf16_ ? bf16_lm_head_ : p_.lm_head;
  rmsnorm(last_.data(), final_norm.data(), last_norm_.data(), B, H, static_cast<float>(ModelStepProblem::kEps));
  store(last_norm_, B * H);
  gemm(last_norm_.data(), lm_head.data(), logits_.data(), B, d.vocab_local, H);
  store(logits_, B * d.vocab_local);
}

}  // namespace fleetcast::engine::cpu
