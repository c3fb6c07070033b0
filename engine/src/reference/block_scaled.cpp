#include "block_scaled.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetcast::engine::reference {

namespace {

// Round |x| to the nearest multiple of `step` (ties to even: on these grids an even multiple is an even
// mantissa), restoring the sign.
double round_to_step(double x, double step) { return std::copysign(std::nearbyint(std::fabs(x) / step) * step, x); }

// E4M3: normal exponents -6 .. 8, 3 mantissa bits (step 2^(e - 3)); subnormals in steps of 2^-9.
double e4m3_step(double a) {
  return a < std::ldexp(1.0, -6) ? std::ldexp(1.0, -9) : std::ldexp(1.0, std::ilogb(a) - 3);
}

}  // namespace

BlockFormat block_format(const std::string& dtype) {
  if (dtype == "fp8_block") return BlockFormat::fp8_block;
  if (dtype == "mxfp8") return BlockFormat::mxfp8;
  if (dtype == "nvfp4") return BlockFormat::nvfp4;
  throw std::invalid_argument("not a block-scaled dtype: " + dtype);
}

bool is_block_scaled(const std::string& dtype) { return dtype == "fp8_block" || dtype == "mxfp8" || dtype == "nvfp4"; }

double round_e4m3(double x) {
  const double a = std::fabs(x);
  return std::copysign(a >= 448.0 ? 448.0 : std::min(448.0, round_to_step(a, e4m3_step(a))), x);
}

double round_e2m1(double x) {
  const double a = std::fabs(x);
  if (a >= 6.0) return std::copysign(6.0, x);
  const double step = a < 2.0 ? 0.5 : (a < 4.0 ? 1.0 : 2.0);  // 0, 0.5, 1, 1.5, 2, 3, 4, 6
  return std::copysign(std::min(6.0, std::nearbyint(a / step) * step), x);
}

double ceil_e4m3(double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 448.0) return 448.0;
  const double r = round_e4m3(x);
  return r >= x ? r : r + e4m3_step(r);
}

std::int64_t block_k(BlockFormat f) {
  switch (f) {
    case BlockFormat::fp8_block:
      return 128;
    case BlockFormat::mxfp8:
      return 32;
    case BlockFormat::nvfp4:
      return 16;
  }
  return 0;
}

double element_max(BlockFormat f) { return f == BlockFormat::nvfp4 ? 6.0 : 448.0; }

double BlockQuantized::scale_of(std::int64_t r, std::int64_t c) const {
  const std::int64_t blocks_per_row = (cols + block_cols - 1) / block_cols;
  return scales[static_cast<std::size_t>((r / block_rows) * blocks_per_row + c / block_cols)];
}

double BlockQuantized::value(std::int64_t r, std::int64_t c) const {
  return tensor_scale * scale_of(r, c) * elements[static_cast<std::size_t>(r * cols + c)];
}

BlockQuantized quantize_blocks(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t block_rows,
                               BlockFormat f) {
  BlockQuantized q;
  q.rows = rows;
  q.cols = cols;
  q.block_rows = block_rows;
  q.block_cols = block_k(f);
  const double top = element_max(f);
  if (f == BlockFormat::nvfp4) {
    double amax = 0.0;
    for (std::int64_t i = 0; i < rows * cols; ++i) amax = std::max(amax, std::fabs(double{x[i]}));
    // Rounded up to a power of two (NVIDIA's recipe takes amax / 2688 itself): the block scales still fit
    // E4M3, and a tensor's representable values survive the round trip exactly.
    q.tensor_scale = amax > 0.0 ? std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(amax / (448.0 * 6.0))))) : 1.0;
  }
  const std::int64_t br = (rows + block_rows - 1) / block_rows, bc = (cols + q.block_cols - 1) / q.block_cols;
  q.scales.assign(static_cast<std::size_t>(br * bc), 1.0f);
  q.elements.assign(static_cast<std::size_t>(rows * cols), 0.0f);
  for (std::int64_t i = 0; i < br; ++i) {
    for (std::int64_t j = 0; j < bc; ++j) {
      const std::int64_t r_end = std::min(rows, (i + 1) * block_rows), c_end = std::min(cols, (j + 1) * q.block_cols);
      double amax = 0.0;
      for (std::int64_t r = i * block_rows; r < r_end; ++r)
        for (std::int64_t c = j * q.block_cols; c < c_end; ++c)
          amax = std::max(amax, std::fabs(double{x[r * cols + c]}));
      double scale = 1.0;
      if (amax > 0.0) {
        switch (f) {
          case BlockFormat::fp8_block:
            scale = static_cast<float>(amax / top);
            break;
          case BlockFormat::mxfp8:
            scale = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(amax / top))));
            break;
          case BlockFormat::nvfp4:
            scale = ceil_e4m3(amax / top / q.tensor_scale);
            break;
        }
      }
      q.scales[static_cast<std::size_t>(i * bc + j)] = static_cast<float>(scale);
      const double effective = q.tensor_scale * scale;
      for (std::int64_t r = i * block_rows; r < r_end; ++r) {
        for (std::int64_t c = j * q.block_cols; c < c_end; ++c) {
          const double v = x[r * cols + c] / effective;
          q.elements[static_cast<std::size_t>(r * cols + c)] =
              static_cast<float>(f == BlockFormat::nvfp4 ? round_e2m1(v) : round_e4m3(v));
        }
      }
    }
  }
  return q;
}

double element_error_bound(BlockFormat f, double x, double s) {
  return f == BlockFormat::nvfp4 ? 0.25 * std::fabs(x) + 0.25 * s : std::ldexp(std::fabs(x), -4) + std::ldexp(s, -10);
}

BlockScaledGemm block_scaled_gemm(const float* x, const float* w, std::int64_t m, std::int64_t n, std::int64_t k,
                                  BlockFormat f) {
  BlockScaledGemm g{quantize_blocks(x, m, k, 1, f), quantize_blocks(w, n, k, f == BlockFormat::fp8_block ? 128 : 1, f),
                    std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t c = 0; c < k; ++c) sum += g.x.value(i, c) * g.w.value(j, c);
      g.y[static_cast<std::size_t>(i * n + j)] = sum;
    }
  }
  return g;
}

}  // namespace fleetcast::engine::reference
