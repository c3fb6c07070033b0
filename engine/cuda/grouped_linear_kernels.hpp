#pragma once
// The routed experts' GEMM inside model_step (grouped_linear_kernels.cu): each expert's rows of the
// permuted activations times that expert's weight, with the rows per expert read from the device (the
// offsets moe_permute wrote), so the step needs no host sync and decode can be captured in a CUDA graph.
// fp32 or bf16 x, w and y, or E4M3 x and w with bf16 y (fp32 accumulation, y rounded once); enqueued on
// `stream`, launch errors thrown as CudaError.

#include <cuda_runtime.h>

#include <cstdint>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine::cuda {

// y[r, :] = x[r, :] w[e]^T for the rows r in [offsets[e], offsets[e + 1]) of each expert e < experts:
// x [rows, k], w [experts, n, k], y [rows, n], all row-major. `max_rows_per_expert` bounds any expert's
// rows (a token picks an expert at most once: the step's token count); rows past offsets[experts] are left.
void grouped_linear(const void* x, const void* w, const std::int32_t* offsets, void* y, std::int64_t experts,
                    std::int64_t max_rows_per_expert, std::int64_t n, std::int64_t k, Storage s, cudaStream_t stream);

// The same over FP8 operands (an fp8 step's routed experts): x E4M3 [rows, k] with its per-tensor scale
// *x_scale, w E4M3 [experts, n, k] with one scale per expert (w_scales[e]), both on the device; y bf16, each
// expert's fp32 sums times *x_scale x w_scales[e] (the weights dequantised inside the tiles' arithmetic).
void grouped_linear_fp8(const void* x, const float* x_scale, const void* w, const float* w_scales,
                        const std::int32_t* offsets, void* y, std::int64_t experts, std::int64_t max_rows_per_expert,
                        std::int64_t n, std::int64_t k, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
