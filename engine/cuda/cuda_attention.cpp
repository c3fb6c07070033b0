// The CUDA backend's attention cases: paged decode (GQA and MLA, fp32, bf16 or an FP8 E4M3 cache) and
// causal prefill over a paged cache.

#include <algorithm>

#include "attention_kernels.hpp"
#include "cuda_context.hpp"
#include "problems/attention_problem.hpp"
#include "problems/prefill_problem.hpp"

namespace fleetcast::engine::cuda {
namespace {

DeviceBuffer upload_table(const std::vector<std::int32_t>& table) {
  DeviceBuffer buf(table.size() * sizeof(std::int32_t));
  CUDA_CHECK(cudaMemcpy(buf.get(), table.data(), buf.bytes(), cudaMemcpyHostToDevice));
  return buf;
}

class Decode : public PreparedOp {
 public:
  Decode(Context& ctx, const Shape& shape, bool mla, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, mla, s),
        q_(make_filled(ctx, p_.q, p_.q_storage)),
        k_(make_filled(ctx, p_.k_cache, p_.kv_storage)),
        v_(make_filled(ctx, p_.v_cache, p_.kv_storage)),
        table_(upload_table(p_.block_table)),
        out_(
            static_cast<std::size_t>(static_cast<double>(p_.batch * p_.q_heads * p_.dv) * storage_bytes(p_.q_storage))),
        what_(std::move(what)) {
    const int splits =
        decode_splits(p_.batch, p_.kv_heads, p_.q_heads / p_.kv_heads, p_.context, ctx.props.multiProcessorCount);
    if (splits > 1) {
      partial_out_ = DeviceBuffer(static_cast<std::size_t>(p_.batch * p_.q_heads * splits * p_.dv) * 4);
      partial_lse_ = DeviceBuffer(static_cast<std::size_t>(p_.batch * p_.q_heads * splits) * 4);
    }
    args_ = {q_.get(),
             k_.get(),
             mla ? nullptr : v_.get(),
             table_.as<std::int32_t>(),
             out_.get(),
             partial_out_.as<float>(),
             partial_lse_.as<float>(),
             p_.batch,
             p_.context,
             p_.q_heads,
             p_.kv_heads,
             p_.dk,
             p_.dv,
             p_.page_size,
             p_.pages_per_seq,
             splits,
             static_cast<float>(p_.scale),
             p_.kv_storage == Storage::fp8_e4m3 ? kFp8Scale : 1.0f,
             p_.q_storage,
             p_.kv_storage,
             1};
  }
  void run() override { attention_decode(args_, ctx_.s()); }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xff, out_.bytes(), ctx_.s()));  // NaN until written
    run();
    const double tol = tolerance_for(p_.q_storage == Storage::fp32 ? "fp32" : "bf16");
    return p_.check(device_reader(ctx_, out_, p_.q_storage), what_, tol, full);
  }

 private:
  Context& ctx_;
  AttentionProblem p_;
  DeviceBuffer q_, k_, v_, table_, out_, partial_out_, partial_lse_;
  DecodeArgs args_{};
  std::string what_;
};

class Prefill : public PreparedOp {
 public:
  Prefill(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        q_(make_filled(ctx, p_.q, s)),
        k_(make_filled(ctx, p_.k_cache, s)),
        v_(make_filled(ctx, p_.v_cache, s)),
        table_(upload_table(p_.block_table)),
        out_(q_.bytes()),
        what_(std::move(what)) {
    args_ = {q_.get(),
             k_.get(),
             v_.get(),
             table_.as<std::int32_t>(),
             out_.get(),
             p_.batch,
             p_.chunk,
             p_.context,
             p_.q_heads,
             p_.kv_heads,
             p_.head_dim,
             p_.page_size,
             p_.pages_per_seq,
             static_cast<float>(p_.scale),
             s};
  }
  void run() override { attention_prefill(args_, ctx_.s()); }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xff, out_.bytes(), ctx_.s()));
    run();
    const double tol = tolerance_for(p_.storage == Storage::fp32 ? "fp32" : "bf16");
    return p_.check(device_reader(ctx_, out_, p_.storage), what_, tol, full);
  }

 private:
  Context& ctx_;
  PrefillProblem p_;
  DeviceBuffer q_, k_, v_, table_, out_;
  PrefillArgs args_{};
  std::string what_;
};

}  // namespace

std::string attention_support(const Context& ctx, const std::string& op, const Shape& shape) {
  const std::size_t limit = ctx.props.sharedMemPerBlockOptin;
  std::size_t need = 0;
  if (op == "attention_prefill") {
    // The CUDA-core kernel's: it serves every case, and the tensor-core one runs only where its own need
    // fits (prefill_tensor_cores).
    need = prefill_shared_bytes(shape.at("head_dim"), false);
  } else if (op == "attention_decode_gqa") {
    need = decode_shared_bytes(shape.at("q_heads") / shape.at("kv_heads"), shape.at("head_dim"), shape.at("head_dim"));
  } else {
    need =
        decode_shared_bytes(shape.at("q_heads"), shape.at("latent_dim") + shape.at("rope_dim"), shape.at("latent_dim"));
  }
  if (need > limit)
    return "needs " + std::to_string(need) + " bytes of shared memory per block; this GPU allows " +
           std::to_string(limit) + " (head dimensions too large for this kernel)";
  return "";
}

std::unique_ptr<PreparedOp> make_attention_decode(Context& ctx, const Shape& shape, bool mla, Storage s,
                                                  std::string what) {
  return std::make_unique<Decode>(ctx, shape, mla, s, std::move(what));
}

std::unique_ptr<PreparedOp> make_attention_prefill(Context& ctx, const Shape& shape, Storage s, std::string what) {
  return std::make_unique<Prefill>(ctx, shape, s, std::move(what));
}

}  // namespace fleetcast::engine::cuda
