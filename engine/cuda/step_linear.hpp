#pragma once
// model_step's device helpers: uploads of the problem's host arrays, and its GEMMs through cuBLASLt in fp32
// (CUBLAS_COMPUTE_32F: no TF32, so the step matches the reference to fp32's tolerance), or on bf16 operands
// (CUDA_R_16BF A, B and D, CUBLAS_COMPUTE_32F accumulation, the output rounded to bf16), in the row-major terms of the
// step. cuBLASLt is column-major: a row-major [rows, cols] matrix with row stride ld is its cols x rows matrix with
// leading dimension ld, so Y[m, n] = X[m, k] W[n, k]^T is D[n, m] = op(A) B with A = W seen k x n and transposed ("TN",
// as cuda_gemm.cpp), B = X seen k x m. The algorithm is cuBLASLt's first heuristic choice within the context's
// workspace. Enqueue only (no host sync, no allocation): both are captured in the decode graph. An fp8 step's FP8
// linear layers: E4M3 weights with their scale, the bf16 input quantised per tensor on the device
// (fp8_quant_kernels.hpp) into a scratch E4M3 copy and its scale, then the FP8 GEMM (CUDA_R_8F_E4M3 A and B,
// CUBLASLT_MATMUL_DESC_A_SCALE_POINTER / B_SCALE_POINTER to the two device scales, bf16 D), as the `gemm` op's
// FP8 path.

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

// A linear layer's weights: stored as `s` (fp32, bf16), or (fp8) E4M3 with one fp32 scale per block (`blocks`
// equal parts: 1, or one per routed expert), quantised on the host as the CPU step quantises them (fp8_quant.hpp).
struct StepWeight {
  DeviceBuffer values, scales;  // scales: fp8 only
};
StepWeight upload_weight(const std::vector<float>& w, Storage s, bool fp8, std::int64_t blocks = 1);
// Values that are E4M3 values already (exact in fp32), stored as E4M3, one byte each (an fp8 step's KV cache).
DeviceBuffer upload_e4m3(const std::vector<float>& values);
// A layer's KV cache as the step stores it: E4M3 at kStepKvScale in an fp8 step (as the CPU step's store_cache
// rounds it), else as `s`.
DeviceBuffer upload_cache(const std::vector<float>& cache, Storage s, bool fp8);

// Where an fp8 step's FP8 GEMMs quantise their bf16 inputs, one GEMM at a time in stream order: E4M3 values of
// the largest input, its scale, the absmax word.
struct Fp8Scratch {
  explicit Fp8Scratch(std::int64_t max_elements);
  DeviceBuffer x, scale, absmax;
};

// y[m, n] = x[m, k] w[n, k]^T, contiguous row-major buffers, every one stored as `s` (fp32 or bf16); or, `fp8`,
// x and y bf16 and the GEMM on E4M3 operands.
class Linear {
 public:
  Linear(const Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, Storage s = Storage::fp32,
         bool fp8 = false);
  void operator()(const Context& ctx, const DeviceBuffer& x, const DeviceBuffer& w, DeviceBuffer& y) const;
  // A layer's weights: as above, or (fp8) x quantised into `scratch`, then the FP8 GEMM scaled by both scales.
  void operator()(const Context& ctx, const DeviceBuffer& x, const StepWeight& w, DeviceBuffer& y,
                  Fp8Scratch* scratch) const;

 private:
  std::int64_t m_, k_;
  bool fp8_;
  DeviceBuffer unit_scale_;  // FP8: the scale the algorithm was chosen with
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
