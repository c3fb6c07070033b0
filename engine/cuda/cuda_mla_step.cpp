#include "cuda_mla_step.hpp"

#include "attention_kernels.hpp"
#include "cuda_kernels.hpp"
#include "model_step_kernels.hpp"
#include "rope_sampling_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

// A GEMM only where the model has the projection (q_a: none without a q LoRA).
std::optional<Linear> linear_if(const Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, Storage s,
                                bool fp8) {
  if (n == 0 || k == 0) return std::nullopt;
  return std::optional<Linear>(std::in_place, ctx, m, n, k, s, fp8);
}

// `offset` elements past a buffer's start, as stored in `s`.
const void* at(const DeviceBuffer& b, std::int64_t offset, Storage s) {
  return static_cast<const char*>(b.get()) + offset * (s == Storage::bf16 ? 2 : 4);
}

}  // namespace

std::string mla_step_support(const Context& ctx, const StepDims& d, const StepShape& s) {
  const std::size_t need = decode_shared_bytes(d.q_heads, d.cache_entry(), d.kv_lora);
  if (need > ctx.props.sharedMemPerBlockOptin)
    return "the MLA decode kernel needs " + std::to_string(need) +
           " bytes of shared memory per block; this GPU allows " + std::to_string(ctx.props.sharedMemPerBlockOptin);
  // One grid row (blockIdx.z) per new token.
  if (s.tokens() > 65535) return "MLA steps here run at most 65535 new tokens (one attention grid row each)";
  return "";
}

MlaAttention::MlaAttention(const Context& ctx, const ModelStepProblem& p, StepTables tables, Storage st,
                           Fp8Scratch* scratch)
    : ctx_(ctx),
      p_(p),
      tables_(tables),
      st_(st),
      fp8_(p.shape.fp8()),
      scratch_(scratch),
      T_(p.shape.tokens()),
      q_a_gemm_(linear_if(ctx, T_, p.dims.q_lora, p.dims.hidden, st, fp8_)),
      q_b_gemm_(ctx, T_, p.dims.q_heads * p.dims.head_dim, p.dims.q_lora > 0 ? p.dims.q_lora : p.dims.hidden, st, fp8_),
      kv_a_gemm_(ctx, T_, p.dims.cache_entry(), p.dims.hidden, st, fp8_),
      o_gemm_(ctx, T_, p.dims.hidden, p.dims.q_heads * p.dims.v_dim, st, fp8_),
      w_uk_gemm_(ctx, w_uk_shape(p.dims, T_), st),
      w_uv_gemm_(ctx, w_uv_shape(p.dims, T_), st) {
  const StepDims& d = p.dims;
  const std::int64_t T = T_, Q = d.q_heads, entry = d.cache_entry(), r = d.rope_dim, kvl = d.kv_lora;
  for (const StepLayer& L : p.layers)
    layers_.push_back({upload_weight(L.q_a, st, fp8_), upload_weight(L.q_b, st, fp8_), upload_weight(L.kv_a, st, fp8_),
                       upload_weight(L.o, st, fp8_), upload(L.q_a_norm, st), upload(L.kv_a_norm, st),
                       upload(L.kv_b, st), upload_cache(L.k_cache, st, fp8_)});
  const auto act = [st](std::int64_t count) { return elements(count, st); };
  cq_ = act(T * d.q_lora);
  cq_norm_ = act(T * d.q_lora);
  q_full_ = act(T * Q * d.head_dim);
  kv_full_ = act(T * entry);
  latent_ = act(T * kvl);
  latent_norm_ = act(T * kvl);
  q_pe_ = act(T * Q * r);
  q_pe_rot_ = act(T * Q * r);
  k_pe_ = act(T * r);
  k_pe_rot_ = act(T * r);
  q_attn_ = act(T * Q * entry);
  attn_latent_ = act(T * Q * kvl);
  attn_ = act(T * Q * d.v_dim);
  // Every row attends at most context + new_tokens entries; the pieces are cut for the longest.
  splits_ = decode_splits(T, 1, Q, p.shape.context + p.shape.new_tokens, ctx.props.multiProcessorCount);
  if (splits_ > 1) {  // the split partials stay fp32 in either storage, as the decode kernel writes them
    partial_out_ = floats(T * Q * splits_ * kvl);
    partial_lse_ = floats(T * Q * splits_);
  }
}

void MlaAttention::forward(std::size_t layer, const DeviceBuffer& h, DeviceBuffer& proj) {
  const StepDims& d = p_.dims;
  Layer& L = layers_[layer];
  const std::int64_t T = T_, Q = d.q_heads, kvl = d.kv_lora, r = d.rope_dim, N = p_.shape.new_tokens;
  const std::int64_t C = p_.shape.context;
  const auto eps = static_cast<float>(ModelStepProblem::kEps);
  const cudaStream_t s = ctx_.s();
  if (q_a_gemm_) {
    (*q_a_gemm_)(ctx_, h, L.q_a, cq_, scratch_);
    rmsnorm(cq_.get(), L.q_a_norm.get(), cq_norm_.get(), T, d.q_lora, eps, st_, s);
    q_b_gemm_(ctx_, cq_norm_, L.q_b, q_full_, scratch_);
  } else {
    q_b_gemm_(ctx_, h, L.q_b, q_full_, scratch_);
  }
  kv_a_gemm_(ctx_, h, L.kv_a, kv_full_, scratch_);
  mla_split({q_full_.get(), kv_full_.get(), q_pe_.get(), latent_.get(), k_pe_.get(), T, Q, d.nope, r, kvl, st_}, s);
  rmsnorm(latent_.get(), L.kv_a_norm.get(), latent_norm_.get(), T, kvl, eps, st_, s);
  rope(q_pe_.get(), k_pe_.get(), tables_.positions, tables_.cos_sin, q_pe_rot_.get(), k_pe_rot_.get(), T, Q, 1, r, st_,
       s);
  w_uk_gemm_(ctx_, q_full_.get(), L.kv_b.get(), q_attn_.get());
  mla_write({latent_norm_.get(), k_pe_rot_.get(), q_pe_rot_.get(), L.cache.get(), q_attn_.get(), tables_.block_table, T,
             Q, kvl, r, N, C, kStepPageSize, p_.pages_per_seq, st_, fp8_, kStepKvScale},
            s);
  DecodeArgs a{};
  a.q = q_attn_.get();
  a.k_cache = L.cache.get();
  a.v_cache = nullptr;  // the value is each entry's first kv_lora floats
  a.block_table = tables_.block_table;
  a.out = attn_latent_.get();
  a.partial_out = partial_out_.as<float>();
  a.partial_lse = partial_lse_.as<float>();
  a.batch = T;  // a row per new token; decode: a row per sequence
  a.context = C + N;
  a.q_heads = Q;
  a.kv_heads = 1;
  a.dk = d.cache_entry();
  a.dv = kvl;
  a.page_size = kStepPageSize;
  a.pages_per_seq = p_.pages_per_seq;
  a.splits = splits_;
  a.scale = static_cast<float>(p_.scale);  // 1 / sqrt(nope + rope), the un-absorbed q.k width
  a.kv_scale = kStepKvScale;
  a.q_storage = st_;
  a.kv_storage = fp8_ ? Storage::fp8_e4m3 : st_;
  a.queries_per_seq = N;
  attention_decode(a, s);
  w_uv_gemm_(ctx_, attn_latent_.get(), at(L.kv_b, d.nope * kvl, st_), attn_.get());
  o_gemm_(ctx_, attn_, L.o, proj, scratch_);
}

}  // namespace fleetcast::engine::cuda
