// Block-scaled GEMMs through cuBLASLt (CUDA 13, SM100 tensor cores): Y[m,n] = X[m,k] W[n,k]^T, seen by
// cuBLASLt (column-major) as D[n,m] = A^T B with A = W and B = X ("TN"), BF16 out, FP32 accumulation.
//   fp8_block  CUDA_R_8F_E4M3; A (weights) CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, B (activations)
//              CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F: DeepSeek-V3's 128 x 128 / 1 x 128 recipe
//   mxfp8      CUDA_R_8F_E4M3; A and B CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
//   nvfp4      CUDA_R_4F_E2M1 (two per byte, the first element in the low nibble); A and B
//              CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3; the two per-tensor scales go into alpha
// The operands are quantised on the host (problems/block_gemm_problem.hpp) and the result is checked
// against the product of the same dequantised operands before anything is timed.
//
// Scale layouts (cuBLAS documentation, "Block Scaling Factors Layout"; not yet run on a GPU: a wrong layout
// fails the check, it cannot reach a trace): the VEC16 / VEC32 scales of a [outer, k] operand in tiles of
// 128 outer rows x 4 scale columns (512 bytes each, tiles in row-major order, k tiles innermost), inside a
// tile (r, c) at (r % 32) * 16 + (r / 32) * 4 + c; the fp32 VEC128 and BLK128x128 scales with the outer
// dimension contiguous, one column of them per 128 k.

#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuda_context.hpp"
#include "problems/block_gemm_problem.hpp"

namespace fleetcast::engine::cuda {
namespace {

using reference::BlockFormat;
using reference::BlockQuantized;

std::uint8_t e4m3_byte(double v) {
  return static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(static_cast<float>(v), __NV_SATFINITE, __NV_E4M3));
}

// E2M1 code of a value on its grid: sign, then 0, 0.5, 1, 1.5, 2, 3, 4, 6 as 0 .. 7.
std::uint8_t e2m1_code(float v) {
  static constexpr float kGrid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float a = std::fabs(v);
  std::uint8_t code = 0;
  for (std::uint8_t i = 0; i < 8; ++i)
    if (kGrid[i] == a) code = i;
  return static_cast<std::uint8_t>(code | (v < 0.0f ? 8u : 0u));
}

std::vector<std::uint8_t> element_bytes(const BlockQuantized& q, BlockFormat f) {
  const std::size_t count = q.elements.size();
  if (f != BlockFormat::nvfp4) {
    std::vector<std::uint8_t> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = e4m3_byte(q.elements[i]);
    return out;
  }
  std::vector<std::uint8_t> out((count + 1) / 2, 0);
  for (std::size_t i = 0; i < count; ++i)
    out[i / 2] = static_cast<std::uint8_t>(out[i / 2] | (e2m1_code(q.elements[i]) << (4 * (i % 2))));
  return out;
}

std::vector<std::uint8_t> scale_bytes(const BlockQuantized& q, BlockFormat f) {
  const std::int64_t outer_blocks = (q.rows + q.block_rows - 1) / q.block_rows;
  const std::int64_t k_blocks = (q.cols + q.block_cols - 1) / q.block_cols;
  if (f == BlockFormat::fp8_block) {  // fp32, outer dimension contiguous
    std::vector<float> s(static_cast<std::size_t>(outer_blocks * k_blocks));
    for (std::int64_t r = 0; r < outer_blocks; ++r)
      for (std::int64_t c = 0; c < k_blocks; ++c) s[c * outer_blocks + r] = q.scales[r * k_blocks + c];
    std::vector<std::uint8_t> out(s.size() * sizeof(float));
    std::memcpy(out.data(), s.data(), out.size());
    return out;
  }
  // 128 x 4 tiles, padded.
  const std::int64_t row_tiles = (outer_blocks + 127) / 128, col_tiles = (k_blocks + 3) / 4;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(row_tiles * col_tiles * 512), 0);
  for (std::int64_t r = 0; r < outer_blocks; ++r) {
    for (std::int64_t c = 0; c < k_blocks; ++c) {
      const double s = q.scales[r * k_blocks + c];
      const std::uint8_t byte = f == BlockFormat::mxfp8 ? static_cast<std::uint8_t>(std::ilogb(s) + 127)  // UE8M0
                                                        : e4m3_byte(s);                                   // UE4M3
      const std::int64_t tile = (r / 128) * col_tiles + c / 4, rr = r % 128;
      out[tile * 512 + (rr % 32) * 16 + (rr / 32) * 4 + c % 4] = byte;
    }
  }
  return out;
}

DeviceBuffer upload(const std::vector<std::uint8_t>& bytes) {
  DeviceBuffer b(bytes.size());
  CUDA_CHECK(cudaMemcpy(b.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  return b;
}

template <class T>
void set_attribute(const LtMatmulDesc& desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), attr, &value, sizeof value));
}

class BlockGemm : public PreparedOp {
public:
  BlockGemm(Context& ctx, const Shape& shape, const std::string& dtype, std::string what)
      : ctx_(ctx), dtype_(dtype), p_(shape, dtype), what_(std::move(what)) {
    const BlockFormat f = p_.format;
    w_ = upload(element_bytes(p_.w, f));
    x_ = upload(element_bytes(p_.x, f));
    w_scales_ = upload(scale_bytes(p_.w, f));
    x_scales_ = upload(scale_bytes(p_.x, f));
    y_ = DeviceBuffer(static_cast<std::size_t>(p_.m * p_.n) * 2);
    alpha_ = static_cast<float>(p_.x.tensor_scale * p_.w.tensor_scale);  // nvfp4's tensor scales; 1 otherwise
    desc_ = make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    cublasLtMatmulMatrixScale_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3, b_mode = a_mode;
    if (f == BlockFormat::mxfp8) a_mode = b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    if (f == BlockFormat::fp8_block) {
      a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    }
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, a_mode);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, b_mode);
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(w_scales_.get()));
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(x_scales_.get()));
    const cudaDataType_t in = f == BlockFormat::nvfp4 ? CUDA_R_4F_E2M1 : CUDA_R_8F_E4M3;
    const auto m = static_cast<std::uint64_t>(p_.m), n = static_cast<std::uint64_t>(p_.n);
    const auto k = static_cast<std::uint64_t>(p_.k);
    a_ = make_layout(in, k, n, static_cast<std::int64_t>(k));
    b_ = make_layout(in, k, m, static_cast<std::int64_t>(k));
    d_ = make_layout(CUDA_R_16BF, n, m, static_cast<std::int64_t>(n));
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
    const float beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(ctx_.lt.get(), desc_.get(), &alpha_, w_.get(), a_.get(), x_.get(), b_.get(), &beta,
                                y_.get(), d_.get(), y_.get(), d_.get(), &heuristic_.algo, ctx_.lt_workspace.get(),
                                ctx_.lt_workspace.bytes(), ctx_.s()));
  }

  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(y_.get(), 0xff, y_.bytes(), ctx_.s()));  // NaN: a GEMM that writes nothing fails
    run();
    return p_.check(device_reader(ctx_, y_, Storage::bf16), what_, tolerance_for(dtype_), full);
  }

private:
  Context& ctx_;
  std::string dtype_;
  BlockGemmProblem p_;
  std::string what_;
  DeviceBuffer x_, w_, x_scales_, w_scales_, y_;
  float alpha_ = 1.0f;
  LtMatmulDesc desc_;
  LtLayout a_, b_, d_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

}  // namespace

std::unique_ptr<PreparedOp> make_block_scaled_gemm(Context& ctx, const Shape& shape, const std::string& dtype,
                                                   std::string what) {
  return std::make_unique<BlockGemm>(ctx, shape, dtype, std::move(what));
}

}  // namespace fleetcast::engine::cuda
