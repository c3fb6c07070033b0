// model_step's MLA attention on the CPU, absorbed (cpu_model_step.hpp says why): q LoRA and the kv latent,
// RoPE on the rope parts, the new entries into the latent cache, W_UK into the latent space per head,
// paged attention over one latent + rope entry per token, W_UV per head, then O.

#include <cstring>

#include "cpu_kernels.hpp"
#include "cpu_model_step.hpp"
#include "cpu_moe.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

namespace {

std::vector<float> buffer(std::int64_t count) { return std::vector<float>(static_cast<std::size_t>(count)); }

void copy(float* to, const float* from, std::int64_t count) {
  std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(float));
}

}  // namespace

void ModelStepRunner::prepare_mla() {
  const StepDims& d = p_.dims;
  const std::int64_t T = tokens_, Q = d.q_heads, kvl = d.kv_lora, nope = d.nope, v = d.v_dim, r = d.rope_dim;
  for (std::int64_t l = 0; l < d.layers; ++l) {
    const StepLayer& L = layer(l);  // a bf16 step splits its rounded kv_b: W_UK and W_UV as the GPU reads them
    // kv_b [Q, nope + v, kvl]: W_UK[h] is its first nope rows, W_UV[h] the next v.
    std::vector<float> uk_t = buffer(Q * kvl * nope), uv = buffer(Q * v * kvl);
    for (std::int64_t h = 0; h < Q; ++h) {
      const float* head = L.kv_b.data() + h * (nope + v) * kvl;
      for (std::int64_t i = 0; i < nope; ++i)
        for (std::int64_t c = 0; c < kvl; ++c) uk_t[(h * kvl + c) * nope + i] = head[i * kvl + c];
      copy(uv.data() + h * v * kvl, head + nope * kvl, v * kvl);
    }
    w_uk_t_.push_back(std::move(uk_t));
    w_uv_.push_back(std::move(uv));
  }
  cq_ = buffer(T * d.q_lora);
  cq_norm_ = buffer(T * d.q_lora);
  q_full_ = buffer(T * Q * d.head_dim);
  kv_full_ = buffer(T * d.cache_entry());
  latent_ = buffer(T * kvl);
  latent_norm_ = buffer(T * kvl);
  q_pe_ = buffer(T * Q * r);
  q_pe_rot_ = buffer(T * Q * r);
  k_pe_ = buffer(T * r);
  k_pe_rot_ = buffer(T * r);
  q_nope_by_head_ = buffer(Q * T * nope);
  q_latent_by_head_ = buffer(Q * T * kvl);
  q_attn_ = buffer(T * Q * d.cache_entry());
  attn_latent_ = buffer(T * Q * kvl);
  latent_by_head_ = buffer(Q * T * kvl);
  v_by_head_ = buffer(Q * T * v);
  attn_ = buffer(T * Q * v);
  head_offsets_.resize(static_cast<std::size_t>(Q + 1));
  for (std::int64_t h = 0; h <= Q; ++h) head_offsets_[h] = static_cast<std::int32_t>(h * T);
}

void ModelStepRunner::mla_attention(std::int64_t layer) {
  const StepDims& d = p_.dims;
  StepLayer& L = this->layer(layer);
  const Fp8Scales& S = scales(layer);
  const std::int64_t T = tokens_, H = d.hidden, Q = d.q_heads, kvl = d.kv_lora, nope = d.nope, r = d.rope_dim;
  const std::int64_t v = d.v_dim, qd = d.head_dim, entry = d.cache_entry(), N = p_.shape.new_tokens;
  const std::int64_t C = p_.shape.context;
  const auto eps = static_cast<float>(ModelStepProblem::kEps);
  // A bf16 step stores (rounds) every output below where the CUDA step writes a bf16 buffer; the splits and
  // cache writes only move stored values.
  rmsnorm(x_.data(), L.attn_norm.data(), h_.data(), T, H, eps);
  store(h_, T * H);
  if (d.q_lora > 0) {
    linear(h_.data(), L.q_a, S.q_a, cq_.data(), T, d.q_lora, H);
    store(cq_, T * d.q_lora);
    rmsnorm(cq_.data(), L.q_a_norm.data(), cq_norm_.data(), T, d.q_lora, eps);
    store(cq_norm_, T * d.q_lora);
    linear(cq_norm_.data(), L.q_b, S.q_b, q_full_.data(), T, Q * qd, d.q_lora);
  } else {
    linear(h_.data(), L.q_b, S.q_b, q_full_.data(), T, Q * qd, H);
  }
  store(q_full_, T * Q * qd);
  linear(h_.data(), L.kv_a, S.kv_a, kv_full_.data(), T, entry, H);
  store(kv_full_, T * entry);
  // Split: the latent to its norm, the rope parts to RoPE, q_nope head-major for the per-head GEMMs.
  parallel_for(T, Q * qd + entry, [&](std::int64_t t) {
    const float* kv = kv_full_.data() + t * entry;
    copy(latent_.data() + t * kvl, kv, kvl);
    copy(k_pe_.data() + t * r, kv + kvl, r);
    for (std::int64_t h = 0; h < Q; ++h) {
      const float* q = q_full_.data() + (t * Q + h) * qd;
      copy(q_nope_by_head_.data() + (h * T + t) * nope, q, nope);
      copy(q_pe_.data() + (t * Q + h) * r, q + nope, r);
    }
  });
  rmsnorm(latent_.data(), L.kv_a_norm.data(), latent_norm_.data(), T, kvl, eps);
  store(latent_norm_, T * kvl);
  rope(q_pe_.data(), k_pe_.data(), p_.positions.data(), p_.cos_sin.data(), q_pe_rot_.data(), k_pe_rot_.data(), T, Q, 1,
       r);
  store(q_pe_rot_, T * Q * r);
  store(k_pe_rot_, T * r);
  // Each head's q_nope through its W_UK: a GEMM per head of T rows, the grouped GEMM with equal groups.
  moe_grouped_gemm(q_nope_by_head_.data(), w_uk_t_[layer].data(), head_offsets_.data(), q_latent_by_head_.data(), Q,
                   kvl, nope);
  store(q_latent_by_head_, Q * T * kvl);
  parallel_for(T, Q * entry, [&](std::int64_t t) {
    const std::int64_t b = t / N, pos = C + t % N;
    float* cache = L.k_cache.data() + p_.cache_offset(b, pos, 0);
    copy(cache, latent_norm_.data() + t * kvl, kvl);
    copy(cache + kvl, k_pe_rot_.data() + t * r, r);
    store_cache(cache, entry);
    for (std::int64_t h = 0; h < Q; ++h) {
      float* q = q_attn_.data() + (t * Q + h) * entry;
      copy(q, q_latent_by_head_.data() + (h * T + t) * kvl, kvl);
      copy(q + kvl, q_pe_rot_.data() + (t * Q + h) * r, r);
    }
  });
  // One entry per token, its first kv_lora values the value: v_cache nullptr.
  paged_attention(q_attn_.data(), L.k_cache.data(), nullptr, attn_latent_.data(), entry, kvl);
  store(attn_latent_, T * Q * kvl);
  parallel_for(T, Q * kvl, [&](std::int64_t t) {
    for (std::int64_t h = 0; h < Q; ++h)
      copy(latent_by_head_.data() + (h * T + t) * kvl, attn_latent_.data() + (t * Q + h) * kvl, kvl);
  });
  moe_grouped_gemm(latent_by_head_.data(), w_uv_[layer].data(), head_offsets_.data(), v_by_head_.data(), Q, v, kvl);
  store(v_by_head_, Q * T * v);
  parallel_for(T, Q * v, [&](std::int64_t t) {
    for (std::int64_t h = 0; h < Q; ++h) copy(attn_.data() + (t * Q + h) * v, v_by_head_.data() + (h * T + t) * v, v);
  });
  linear(attn_.data(), L.o, S.o, proj_.data(), T, H, Q * v);
  store(proj_, T * H);
  parallel_for(T * H, 1, [&](std::int64_t i) { x_[i] += proj_[i]; });
  store(x_, T * H);
}

}  // namespace fleetcast::engine::cpu
