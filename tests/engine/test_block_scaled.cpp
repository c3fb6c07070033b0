// The block-scaled formats' CPU reference (fp8_block, mxfp8, nvfp4): the element grids, the scale a block
// gets from its absolute maximum, the exact round trip of representable values, and the block-scaled GEMM
// against a plain product within the bound the quantisation allows (and not within fp32's).

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/fill.hpp"
#include "problems/block_gemm_problem.hpp"
#include "problems/gemm_problem.hpp"
#include "reference/block_scaled.hpp"
#include "reference/reference.hpp"

using namespace fleetcast::engine::reference;

namespace {

std::vector<float> random_matrix(std::uint64_t seed, std::int64_t count) {
  std::vector<float> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    v[i] = fleetcast::engine::stored_value(fleetcast::engine::Storage::fp32, seed, static_cast<std::uint64_t>(i), 1.0f,
                                           0.0f);
  return v;
}

}  // namespace

TEST_CASE("block-scaled: the E4M3 and E2M1 grids round to nearest even and saturate", "[engine][block_scaled]") {
  // E2M1 holds 0, 0.5, 1, 1.5, 2, 3, 4, 6; halfway cases go to the even code.
  CHECK(round_e2m1(0.25) == 0.0);
  CHECK(round_e2m1(0.75) == 1.0);
  CHECK(round_e2m1(1.75) == 2.0);
  CHECK(round_e2m1(2.5) == 2.0);
  CHECK(round_e2m1(3.5) == 4.0);
  CHECK(round_e2m1(5.0) == 4.0);
  CHECK(round_e2m1(5.1) == 6.0);
  CHECK(round_e2m1(-100.0) == -6.0);
  // E4M3 (fn): 3 mantissa bits, largest 448, smallest subnormal 2^-9.
  CHECK(round_e4m3(1.0 + 1.0 / 16) == 1.0);  // halfway between 1 and 1.125: even
  CHECK(round_e4m3(1.0 + 3.0 / 16) == 1.25);
  CHECK(round_e4m3(300.0) == 288.0);  // step 32 in [256, 448]
  CHECK(round_e4m3(1000.0) == 448.0);
  CHECK(round_e4m3(std::ldexp(3.0, -10)) == std::ldexp(2.0, -9));  // 1.5 subnormal steps: even, 2
  CHECK(round_e4m3(std::ldexp(1.0, -11)) == 0.0);
  CHECK(ceil_e4m3(1.01) == 1.125);
  CHECK(ceil_e4m3(1.125) == 1.125);
}

TEST_CASE("block-scaled: each format's block scale follows the block's absolute maximum", "[engine][block_scaled]") {
  // One row of 128: every block's largest element is 3, except the second 16 (7.5) and the second 32 (0.1).
  std::vector<float> x(128, 1.0f);
  x[5] = -3.0f;
  x[20] = 7.5f;
  for (int i = 32; i < 64; ++i) x[i] = 0.05f;
  x[40] = 0.1f;
  x[100] = 3.0f;
  const auto fp8 = quantize_blocks(x.data(), 1, 128, 1, BlockFormat::fp8_block);
  REQUIRE(fp8.scales.size() == 1);
  CHECK(fp8.scales[0] == static_cast<float>(7.5 / 448.0));  // absmax / 448, one block of 128
  const auto mx = quantize_blocks(x.data(), 1, 128, 1, BlockFormat::mxfp8);
  REQUIRE(mx.scales.size() == 4);
  CHECK(mx.scales[0] == std::ldexp(1.0f, -5));   // 7.5 / 448 = 0.0167 -> up to 2^-5
  CHECK(mx.scales[1] == std::ldexp(1.0f, -12));  // 0.1 / 448 = 2.2e-4 -> 2^-12
  CHECK(mx.scales[3] == std::ldexp(1.0f, -7));   // 3 / 448 = 0.0067 -> 2^-7
  const auto fp4 = quantize_blocks(x.data(), 1, 128, 1, BlockFormat::nvfp4);
  REQUIRE(fp4.scales.size() == 8);
  CHECK(fp4.tensor_scale == std::ldexp(1.0, -8));  // 7.5 / 2688 = 0.0028 -> up to 2^-8
  // Block scales in units of the tensor scale: 7.5 / 6 / 2^-8 = 320 (on the E4M3 grid); 3 / 6 / 2^-8 = 128;
  // 0.1 / 6 / 2^-8 = 4.27, rounded up to E4M3's 4.5.
  CHECK(fp4.scales[1] == 320.0f);
  CHECK(fp4.scales[0] == 128.0f);
  CHECK(fp4.scales[2] == 4.5f);
  // No element saturates: every block's largest element lands at most on the grid's top.
  for (const auto* q : {&fp8, &mx, &fp4}) {
    const double top = q == &fp4 ? 6.0 : 448.0;
    for (const float e : q->elements) CHECK(std::fabs(e) <= top);
  }
  CHECK(std::fabs(fp8.elements[20]) == 448.0f);
}

TEST_CASE("block-scaled: representable values survive the round trip exactly", "[engine][block_scaled]") {
  // Values that are a power-of-two scale times grid points, each block's largest at the grid's top:
  // quantise then dequantise gives them back bit for bit.
  const std::vector<double> e2m1 = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const std::vector<double> e4m3 = {0.0, 0.015625, 0.5, 1.125, 3.25, 14.0, 96.0, 448.0};
  for (const auto f : {BlockFormat::mxfp8, BlockFormat::nvfp4, BlockFormat::fp8_block}) {
    const auto& grid = f == BlockFormat::nvfp4 ? e2m1 : e4m3;
    const std::int64_t cols = 256;
    std::vector<float> x(static_cast<std::size_t>(2 * cols));
    for (std::int64_t i = 0; i < 2 * cols; ++i) {
      const double scale = std::ldexp(1.0, static_cast<int>(i / block_k(f) % 5) - 9);  // 2^-9 .. 2^-5 per block
      const double sign = i % 3 == 0 ? -1.0 : 1.0;
      // Each block's first element is the top of the grid, so the block's scale is exactly `scale`.
      x[i] = static_cast<float>(sign * scale * (i % block_k(f) == 0 ? grid.back() : grid[i % grid.size()]));
    }
    const auto q = quantize_blocks(x.data(), 2, cols, 1, f);
    INFO("format " << static_cast<int>(f));
    for (std::int64_t i = 0; i < 2 * cols; ++i) CHECK(q.value(i / cols, i % cols) == x[i]);
  }
}

TEST_CASE("block-scaled: the GEMM is within the quantisation bound of the fp32 product", "[engine][block_scaled]") {
  const std::int64_t m = 5, n = 7, k = 256;
  const auto x = random_matrix(11, m * k), w = random_matrix(12, n * k);
  for (const auto f : {BlockFormat::fp8_block, BlockFormat::mxfp8, BlockFormat::nvfp4}) {
    INFO("format " << static_cast<int>(f));
    const auto g = block_scaled_gemm(x.data(), w.data(), m, n, k, f);
    double largest_error = 0.0;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double exact = 0.0, bound = 0.0;
        for (std::int64_t c = 0; c < k; ++c) {
          const double a = x[i * k + c], b = w[j * k + c];
          const double ea = element_error_bound(f, a, g.x.tensor_scale * g.x.scale_of(i, c));
          const double eb = element_error_bound(f, b, g.w.tensor_scale * g.w.scale_of(j, c));
          exact += a * b;
          bound += ea * std::fabs(b) + std::fabs(a) * eb + ea * eb;
        }
        const double error = std::fabs(g.y[i * n + j] - exact);
        CHECK(error <= bound);
        largest_error = std::max(largest_error, error);
      }
    }
    // The quantisation is real: far past what fp32 rounding of a 256-term sum could do (about 1e-5 here).
    CHECK(largest_error > 1e-3);
  }
  // Weights in 128 x 128 blocks for fp8_block: 7 rows share one scale per 128 columns.
  const auto g = block_scaled_gemm(x.data(), w.data(), m, n, k, BlockFormat::fp8_block);
  CHECK(g.w.scales.size() == 2);
  CHECK(g.x.scales.size() == static_cast<std::size_t>(m * 2));
}

TEST_CASE("block-scaled: the GEMM case checks against the dequantised product, not the fp32 one",
          "[engine][block_scaled]") {
  fleetcast::engine::Shape shape;
  shape.set("m", 33);
  shape.set("n", 80);
  shape.set("k", 128);
  const fleetcast::engine::GemmProblem plain(shape, fleetcast::engine::Storage::fp32);
  const auto xs = plain.x.values(fleetcast::engine::Storage::fp32, 0, plain.x.count);
  const auto ws = plain.w.values(fleetcast::engine::Storage::fp32, 0, plain.w.count);
  for (const std::string dtype : {"fp8_block", "mxfp8", "nvfp4"}) {
    INFO(dtype);
    const fleetcast::engine::BlockGemmProblem p(shape, dtype);
    const auto g = block_scaled_gemm(xs.data(), ws.data(), 33, 80, 128, block_format(dtype));
    std::vector<float> quantised(g.y.begin(), g.y.end()), exact(33 * 80);
    for (int i = 0; i < 33; ++i)
      for (int j = 0; j < 80; ++j)
        exact[i * 80 + j] =
            static_cast<float>(fleetcast::engine::reference::dot(xs.data() + i * 128, ws.data() + j * 128, 128));
    auto reader = [](const std::vector<float>& v) {
      return [&v](std::size_t offset, std::size_t count) {
        return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(offset),
                                  v.begin() + static_cast<std::ptrdiff_t>(offset + count));
      };
    };
    const double tolerance = fleetcast::engine::tolerance_for(dtype);
    CHECK(p.check(reader(quantised), "block gemm", tolerance, true).compared == 33u * 80u);
    // FP4's quantisation error is far past bf16's tolerance: the unquantised product fails its check.
    if (dtype == "nvfp4")
      CHECK_THROWS_AS(p.check(reader(exact), "block gemm", tolerance, true), fleetcast::engine::CheckFailed);
  }
}
