// The CUDA backend's RoPE and sampling cases.

#include "cuda_context.hpp"
#include "problems/rowwise_problems.hpp"
#include "problems/sampling_problem.hpp"
#include "rope_sampling_kernels.hpp"

namespace fleetcast::engine::cuda {
namespace {

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
  DeviceBuffer buf(v.size() * sizeof(T));
  CUDA_CHECK(cudaMemcpy(buf.get(), v.data(), buf.bytes(), cudaMemcpyHostToDevice));
  return buf;
}

double tolerance(Storage s) { return tolerance_for(s == Storage::bf16 ? "bf16" : "fp32"); }

class Rope : public PreparedOp {
 public:
  Rope(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        q_(make_filled(ctx, p_.q, s)),
        k_(make_filled(ctx, p_.k, s)),
        positions_(upload(p_.positions)),
        cos_sin_(upload(p_.cos_sin)),
        q_out_(q_.bytes()),
        k_out_(k_.bytes()),
        what_(std::move(what)) {}
  void run() override {
    rope(q_.get(), k_.get(), positions_.as<std::int32_t>(), cos_sin_.as<float>(), q_out_.get(), k_out_.get(), p_.tokens,
         p_.q_heads, p_.kv_heads, p_.head_dim, p_.storage, ctx_.s());
  }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(q_out_.get(), 0xff, q_out_.bytes(), ctx_.s()));
    CUDA_CHECK(cudaMemsetAsync(k_out_.get(), 0xff, k_out_.bytes(), ctx_.s()));
    run();
    return p_.check(device_reader(ctx_, q_out_, p_.storage), device_reader(ctx_, k_out_, p_.storage), what_,
                    tolerance(p_.storage), full);
  }

 private:
  Context& ctx_;
  RopeProblem p_;
  DeviceBuffer q_, k_, positions_, cos_sin_, q_out_, k_out_;
  std::string what_;
};

class Sampling : public PreparedOp {
 public:
  Sampling(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        logits_(make_filled(ctx, p_.logits, s)),
        draws_(upload(p_.draws)),
        tokens_(static_cast<std::size_t>(p_.batch) * 4),
        probs_(static_cast<std::size_t>(p_.batch) * 4),
        what_(std::move(what)) {}
  void run() override {
    sampling(logits_.get(), draws_.as<float>(), tokens_.as<std::int32_t>(), probs_.as<float>(), p_.batch, p_.vocab,
             p_.top_k, p_.storage, ctx_.s());
  }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(tokens_.get(), 0xff, tokens_.bytes(), ctx_.s()));  // -1: no token
    CUDA_CHECK(cudaMemsetAsync(probs_.get(), 0xff, probs_.bytes(), ctx_.s()));
    run();
    const ReadRange tokens = [this](std::size_t offset, std::size_t count) {
      CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
      std::vector<std::int32_t> ids(count);
      CUDA_CHECK(cudaMemcpy(ids.data(), tokens_.as<std::int32_t>() + offset, count * 4, cudaMemcpyDeviceToHost));
      return std::vector<float>(ids.begin(), ids.end());  // ids below 2^24 are exact as floats
    };
    // The probabilities are computed in fp32 whatever the logits' storage.
    return p_.check(tokens, device_reader(ctx_, probs_, Storage::fp32), what_, tolerance(Storage::fp32), full);
  }

 private:
  Context& ctx_;
  SamplingProblem p_;
  DeviceBuffer logits_, draws_, tokens_, probs_;
  std::string what_;
};

}  // namespace

std::unique_ptr<PreparedOp> make_rope(Context& ctx, const Shape& shape, Storage s, std::string what) {
  return std::make_unique<Rope>(ctx, shape, s, std::move(what));
}

std::unique_ptr<PreparedOp> make_sampling(Context& ctx, const Shape& shape, Storage s, std::string what) {
  return std::make_unique<Sampling>(ctx, shape, s, std::move(what));
}

}  // namespace fleetcast::engine::cuda
