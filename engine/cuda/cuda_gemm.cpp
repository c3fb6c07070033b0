// GEMM through cuBLASLt: Y[m,n] = X[m,k] W[n,k]^T in row-major terms, which cuBLASLt (column-major) sees
// as D[n,m] = op(A) B with A = W transposed ("TN", the layout FP8 requires) and B = X. BF16 and FP32 in and
// out; FP8 E4M3 in with per-tensor scales (device pointers), BF16 out. FP32 accumulation throughout; the
// algorithm is cuBLASLt's first heuristic choice within a 32 MiB workspace, as a serving engine would get.

#include <cstdint>

#include "cuda_context.hpp"
#include "problems/gemm_problem.hpp"

namespace fleetcast::engine::cuda {
namespace {

cudaDataType_t data_type(Storage s) {
  switch (s) {
    case Storage::fp32: return CUDA_R_32F;
    case Storage::bf16: return CUDA_R_16BF;
    case Storage::fp8_e4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

template <class T>
void set_attribute(const LtMatmulDesc& desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), attr, &value, sizeof value));
}

class Gemm : public PreparedOp {
public:
  Gemm(Context& ctx, const Shape& shape, const std::string& dtype, std::string what)
      : ctx_(ctx),
        dtype_(dtype),
        in_(storage_of(dtype)),
        out_(in_ == Storage::fp32 ? Storage::fp32 : Storage::bf16),
        p_(shape, in_),
        x_(make_filled(ctx, p_.x, in_)),
        w_(make_filled(ctx, p_.w, in_)),
        y_(static_cast<std::size_t>(static_cast<double>(p_.m * p_.n) * storage_bytes(out_))),
        what_(std::move(what)) {
    desc_ = make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (in_ == Storage::fp8_e4m3) {
      // Dequantisation scales of A and B: the value each stored FP8 number is multiplied by.
      const float scales[2] = {kFp8Scale, kFp8Scale};
      scales_ = DeviceBuffer(sizeof scales);
      CUDA_CHECK(cudaMemcpy(scales_.get(), scales, sizeof scales, cudaMemcpyHostToDevice));
      set_attribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(scales_.as<float>()));
      set_attribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(scales_.as<float>() + 1));
    }
    const auto m = static_cast<std::uint64_t>(p_.m), n = static_cast<std::uint64_t>(p_.n);
    const auto k = static_cast<std::uint64_t>(p_.k);
    a_ = make_layout(data_type(in_), k, n, static_cast<std::int64_t>(k));
    b_ = make_layout(data_type(in_), k, m, static_cast<std::int64_t>(k));
    d_ = make_layout(data_type(out_), n, m, static_cast<std::int64_t>(n));
    LtPreference pref = make_preference();
    const std::size_t workspace = ctx_.lt_workspace.bytes();
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(ctx_.lt.get(), desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(),
                                                pref.get(), 1, &heuristic_, &found));
    if (found == 0) throw std::runtime_error("cuBLASLt offers no algorithm for " + what_ + " on this GPU");
  }

  void run() override {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(ctx_.lt.get(), desc_.get(), &alpha, w_.get(), a_.get(), x_.get(), b_.get(), &beta,
                                y_.get(), d_.get(), y_.get(), d_.get(), &heuristic_.algo, ctx_.lt_workspace.get(),
                                ctx_.lt_workspace.bytes(), ctx_.s()));
  }

  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(y_.get(), 0xff, y_.bytes(), ctx_.s()));  // NaN: a GEMM that writes nothing fails
    run();
    return p_.check(device_reader(ctx_, y_, out_), what_, tolerance_for(dtype_), full);
  }

private:
  Context& ctx_;
  std::string dtype_;
  Storage in_, out_;
  GemmProblem p_;
  DeviceBuffer x_, w_, y_, scales_;
  LtMatmulDesc desc_;
  LtLayout a_, b_, d_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  std::string what_;
};

}  // namespace

std::unique_ptr<PreparedOp> make_gemm(Context& ctx, const Shape& shape, const std::string& dtype, std::string what) {
  return std::make_unique<Gemm>(ctx, shape, dtype, std::move(what));
}

}  // namespace fleetcast::engine::cuda
