#include "block_gemm_problem.hpp"

#include <vector>

#include "gemm_problem.hpp"

namespace fleetcast::engine {

BlockGemmProblem::BlockGemmProblem(const Shape& shape, const std::string& dtype)
    : m(shape.at("m")), n(shape.at("n")), k(shape.at("k")), format(reference::block_format(dtype)) {
  const GemmProblem plain(shape, Storage::fp32);  // the same fp32 inputs every GEMM case starts from
  const auto xs = plain.x.values(Storage::fp32, 0, plain.x.count);
  const auto ws = plain.w.values(Storage::fp32, 0, plain.w.count);
  x = reference::quantize_blocks(xs.data(), m, k, 1, format);
  w = reference::quantize_blocks(ws.data(), n, k, format == reference::BlockFormat::fp8_block ? 128 : 1, format);
}

CheckResult BlockGemmProblem::check(const ReadRange& y, const std::string& what, double tolerance, bool full) const {
  const auto rows = sample_indices(m, 32, full);
  const auto cols = sample_indices(n, 96, full);
  Comparison cmp(what, tolerance);
  for (const auto i : rows) {
    const auto y_row = y(static_cast<std::size_t>(i * n), static_cast<std::size_t>(n));
    for (const auto j : cols) {
      double expected = 0.0;
      for (std::int64_t c = 0; c < k; ++c) expected += x.value(i, c) * w.value(j, c);
      cmp.add(y_row[j], expected, static_cast<std::size_t>(i * n + j));
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
