#pragma once
// model_step's device helpers: uploads of the problem's host arrays, and its GEMMs through cuBLASLt in fp32
// (CUBLAS_COMPUTE_32F: no TF32, so the step matches the reference to fp32's tolerance), or on bf16 operands
// (CUDA_R_16BF A, B and D, CUBLAS_COMPUTE_32F accumulation, the output rounded to bf16), in the row-major terms of the
// step. cuBLASLt is column-major: a row-major [rows, cols] matrix with row stride ld is its cols x rows matrix with
// leading dimension ld, so Y[m, n] = X[m, k] W[n, k]^T is D[n, m] = op(A) B with A = W seen k x n and transposed ("TN",
// as cuda_gemm.cpp), B = X seen k x m. The algorithm is cuBLASLt's first heuristic choice within the context's
// workspace. Enqueue only (no host sync, no allocation): both are captured in the decode graph.

#include <cstdint>
#include <vector>

#include "cuda_context.hpp"
#include "fleetcast/engine/fill.hpp"
#include "step_gemm_layout.hpp"

namespace fleetcast::engine::cuda {

// A copy of a host array on the device (synchronous: when a step is prepared, never inside one), and an
// uninitialised buffer of `count` floats.
DeviceBuffer upload(const std::vector<float>& v);
DeviceBuffer upload(const std::vector<std::int32_t>& v);
DeviceBuffer floats(std::int64_t count);
// The same stored as `s`: bf16 values rounded to nearest even (round_bf16, as the CPU step rounds them), or fp32.
DeviceBuffer upload(const std::vector<float>& v, Storage s);
DeviceBuffer elements(std::int64_t count, Storage s);

// y[m, n] = x[m, k] w[n, k]^T, contiguous row-major buffers, every one stored as `s` (fp32 or bf16).
class Linear {
 public:
  Linear(const Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, Storage s = Storage::fp32);
  void operator()(const Context& ctx, const DeviceBuffer& x, const DeviceBuffer& w, DeviceBuffer& y) const;

 private:
  LtMatmulDesc desc_;
  LtLayout a_, b_, d_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

// `batch` GEMMs at fixed strides (step_gemm_layout.hpp's BatchedGemmShape): one cublasLtMatmul with
// CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT where cuBLASLt offers a strided-batched algorithm for the layouts;
// otherwise a loop of `batch` single GEMMs (capturable alike). x, w and y are stored as `s` (fp32 or bf16,
// fp32 accumulation as Linear); the pointers are the bases of element 0, strides count elements.
class BatchedLinear {
 public:
  BatchedLinear(const Context& ctx, const BatchedGemmShape& s, Storage st = Storage::fp32);
  void operator()(const Context& ctx, const void* x, const void* w, void* y) const;
  bool looped() const { return looped_; }

 private:
  BatchedGemmShape s_;
  std::int64_t element_bytes_;
  bool looped_ = false;
  LtMatmulDesc desc_;
  LtLayout a_, b_, d_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

}  // namespace fleetcast::engine::cuda
