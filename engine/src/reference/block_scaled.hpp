#pragma once
// Block-scaled low-precision formats, as the SM100 tensor cores and cuBLASLt (CUDA 13) take them, in the
// plainest code: element grids, the scale each block gets from its absolute maximum, quantise and
// dequantise, and the GEMM of the dequantised operands in double. The CUDA block-scaled GEMM is checked
// against this; its tests check the formats themselves.
//
//   fp8_block  E4M3 elements; one fp32 scale per 1 x 128 (activations, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F)
//              or 128 x 128 block (weights, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F): DeepSeek-V3's
//              recipe. scale = absmax / 448.
//   mxfp8      E4M3 elements; one UE8M0 (power of two) scale per 32 along k
//              (CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0, OCP MX v1.0). scale = 2^ceil(log2(absmax / 448)),
//              rounded up as Transformer Engine does so that no element saturates.
//   nvfp4      E2M1 elements; one UE4M3 scale per 16 along k (CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3) times
//              one fp32 scale per tensor (absmax / (448 x 6) rounded up to a power of two), so the block
//              scales use the E4M3 range. The block scale is absmax / 6 / tensor scale rounded up to E4M3:
//              again no element saturates.

#include <cstdint>
#include <string>
#include <vector>

namespace fleetcast::engine::reference {

enum class BlockFormat { fp8_block, mxfp8, nvfp4 };

// "fp8_block", "mxfp8", "nvfp4"; throws std::invalid_argument otherwise.
BlockFormat block_format(const std::string& dtype);
bool is_block_scaled(const std::string& dtype);

// Round to nearest even on the element grids, saturating at the largest finite value (E4M3 448, E2M1 6).
double round_e4m3(double x);
double round_e2m1(double x);
// The smallest E4M3 value >= x (x >= 0): a block scale rounded up.
double ceil_e4m3(double x);

// Elements along k in one scale block (16, 32 or 128), and the largest element value (448 or 6).
std::int64_t block_k(BlockFormat f);
double element_max(BlockFormat f);

// A [rows, cols] matrix quantised with one scale per block_rows x block_cols block (cols is k).
struct BlockQuantized {
  std::int64_t rows = 0, cols = 0, block_rows = 1, block_cols = 1;
  double tensor_scale = 1.0;    // nvfp4's per-tensor fp32 scale; 1 for the others
  std::vector<float> elements;  // [rows, cols]: the element values, on the format's grid
  std::vector<float> scales;    // [ceil(rows / block_rows), ceil(cols / block_cols)]: each block's scale
  double scale_of(std::int64_t r, std::int64_t c) const;
  double value(std::int64_t r, std::int64_t c) const;  // tensor_scale x block scale x element
};

// Each block's scale from its absolute maximum (the rules above), then every element divided by it and
// rounded to the grid.
BlockQuantized quantize_blocks(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t block_rows,
                               BlockFormat f);

// The largest |dequantised - x| for an element x in a block of effective scale s (tensor x block scale):
// half a grid step, u |x| + a s with u = 2^-4, a = 2^-10 (E4M3: 3 mantissa bits, subnormal step 2^-9) or
// u = 2^-2, a = 2^-2 (E2M1: 1 mantissa bit, subnormal step 0.5). No element saturates (scales round up).
double element_error_bound(BlockFormat f, double x, double s);

// y[m, n] = dequantised x[m, k] . dequantised w[n, k], in double: x in 1 x block_k blocks; w in 128 x 128
// blocks for fp8_block, 1 x block_k otherwise.
struct BlockScaledGemm {
  BlockQuantized x, w;
  std::vector<double> y;
};
BlockScaledGemm block_scaled_gemm(const float* x, const float* w, std::int64_t m, std::int64_t n, std::int64_t k,
                                  BlockFormat f);

}  // namespace fleetcast::engine::reference
