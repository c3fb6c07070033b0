#pragma once
// How model_step's strided-batched GEMMs (step_linear.hpp's BatchedLinear) are described to cuBLASLt, as
// plain numbers, so that a host test can replay cuBLASLt's column-major definition on them without a GPU:
//   D_h = op(A_h) B_h, for h < batch, D_h n x m, op(A_h) n x k, B_h k x m, all column-major;
//   element (i, j) of an operand of leading dimension ld in batch h is at h stride + j ld + i.
// Header-only and free of CUDA types.

#include <cstdint>

#include "fleetcast/engine/model_step.hpp"

namespace fleetcast::engine::cuda {

// `batch` GEMMs of equal shape at fixed strides, e.g. one per attention head (MLA's W_UK and W_UV), in the
// step's row-major terms:
//   y_h[m, n] = x_h[m, k] W_h, for h < batch,
// where x_h starts at x + h x_stride with rows ld_x apart, y_h at y + h y_stride with rows ld_y apart,
// and W_h at w + h w_stride, rows ld_w apart, stored row-major either [n, k] (w_is_nk: W_h is its
// transpose, as Linear's weights) or [k, n]. Offsets and strides are in elements. The batches may
// interleave (a head's columns inside each token's row): a strided batch only adds h x stride to each base.
struct BatchedGemmShape {
  std::int64_t batch, m, n, k;
  bool w_is_nk;
  std::int64_t ld_w, w_stride, ld_x, x_stride, ld_y, y_stride;
};

struct LtOperand {
  std::int64_t rows, cols, ld, stride;  // column-major rows x cols, leading dimension, batch stride
};

struct BatchedGemmLayouts {
  bool transpose_a;   // CUBLASLT_MATMUL_DESC_TRANSA: CUBLAS_OP_T, else CUBLAS_OP_N
  LtOperand a, b, d;  // A = the weights, B = x, D (and C) = y; TRANSB is always CUBLAS_OP_N
};

// A row-major [r, c] matrix with row stride ld is cuBLASLt's column-major c x r with leading dimension ld.
// W [n, k] is then k x n, transposed to op(A) n x k; W [k, n] is n x k as it is. x [m, k] is B k x m and
// y [m, n] is D n x m.
inline BatchedGemmLayouts batched_gemm_layouts(const BatchedGemmShape& s) {
  BatchedGemmLayouts l{};
  l.transpose_a = s.w_is_nk;
  l.a = s.w_is_nk ? LtOperand{s.k, s.n, s.ld_w, s.w_stride} : LtOperand{s.n, s.k, s.ld_w, s.w_stride};
  l.b = {s.k, s.m, s.ld_x, s.x_stride};
  l.d = {s.n, s.m, s.ld_y, s.y_stride};
  return l;
}

// MLA's W_UK over the heads: q_nope_h [T, nope] (in q_b's output [T, Q, nope + rope], each head's nope part
// first) times W_UK_h [nope, kv_lora] (kv_b [Q (nope + v), kv_lora]: head h's first nope rows, row-major
// [k, n]) into the first kv_lora elements of head h's query in q_attn [T, Q, kv_lora + rope].
inline BatchedGemmShape w_uk_shape(const StepDims& d, std::int64_t tokens) {
  const std::int64_t qd = d.nope + d.rope_dim, entry = d.cache_entry();
  return {d.q_heads,      tokens, d.kv_lora,         d.nope, false, d.kv_lora, (d.nope + d.v_dim) * d.kv_lora,
          d.q_heads * qd, qd,     d.q_heads * entry, entry};
}

// MLA's W_UV over the heads: each head's latent output [T, kv_lora] (attention's out [T, Q, kv_lora]) times
// W_UV_h^T (kv_b's next v rows of head h, row-major [n, k]; its base is kv_b + nope kv_lora) into head h's
// v columns of the O GEMM's input [T, Q v].
inline BatchedGemmShape w_uv_shape(const StepDims& d, std::int64_t tokens) {
  return {d.q_heads,
          tokens,
          d.v_dim,
          d.kv_lora,
          true,
          d.kv_lora,
          (d.nope + d.v_dim) * d.kv_lora,
          d.q_heads * d.kv_lora,
          d.kv_lora,
          d.q_heads * d.v_dim,
          d.v_dim};
}

}  // namespace fleetcast::engine::cuda
