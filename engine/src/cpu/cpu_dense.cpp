// GEMM and the row-wise elementwise ops on the CPU.

#include "eigen.hpp"

#include "cpu_kernels.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;
using Array = Eigen::Map<Eigen::ArrayXf>;

void gemm(const float* x, const float* w, float* y, std::int64_t m, std::int64_t n, std::int64_t k) {
  Eigen::Map<const RowMajor> X(x, m, k), W(w, n, k);
  Eigen::Map<RowMajor> Y(y, m, n);
  Y.noalias() = X * W.transpose();  // Eigen's blocked GEMM, threaded with OpenMP where the build has it
}

void rmsnorm(const float* x, const float* weight, float* y, std::int64_t tokens, std::int64_t hidden, float eps) {
  const ConstArray w(weight, hidden);
  parallel_for(tokens, hidden, [&](std::int64_t t) {
    const ConstArray row(x + t * hidden, hidden);
    const float inv_rms = 1.0f / std::sqrt(row.square().sum() / static_cast<float>(hidden) + eps);
    Array(y + t * hidden, hidden) = row * inv_rms * w;
  });
}

void swiglu(const float* gate_up, float* y, std::int64_t tokens, std::int64_t width) {
  parallel_for(tokens, 3 * width, [&](std::int64_t t) {
    const ConstArray gate(gate_up + t * 2 * width, width), up(gate_up + t * 2 * width + width, width);
    Array(y + t * width, width) = gate / (1.0f + (-gate).exp()) * up;
  });
}

void rope(const float* q, const float* k, const std::int32_t* positions, const float* cos_sin, float* q_out,
          float* k_out, std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim) {
  const std::int64_t half = head_dim / 2;
  parallel_for(tokens, 2 * (q_heads + kv_heads) * head_dim, [&](std::int64_t t) {
    const ConstArray c(cos_sin + positions[t] * head_dim, half), s(cos_sin + positions[t] * head_dim + half, half);
    auto rotate = [&](const float* in, float* out, std::int64_t heads) {
      for (std::int64_t h = 0; h < heads; ++h) {
        const ConstArray x1(in + h * head_dim, half), x2(in + h * head_dim + half, half);
        Array(out + h * head_dim, half) = x1 * c - x2 * s;
        Array(out + h * head_dim + half, half) = x2 * c + x1 * s;
      }
    };
    rotate(q + t * q_heads * head_dim, q_out + t * q_heads * head_dim, q_heads);
    rotate(k + t * kv_heads * head_dim, k_out + t * kv_heads * head_dim, kv_heads);
  });
}

}  // namespace fleetcast::engine::cpu
