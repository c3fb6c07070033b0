#include "gemm_problem.hpp"

#include "../reference/reference.hpp"

namespace fleetcast::engine {

GemmProblem::GemmProblem(const Shape& shape, Storage in)
    : m(shape.at("m")), n(shape.at("n")), k(shape.at("k")), inputs(in) {
  x = {101, static_cast<std::size_t>(m * k)};
  w = {102, static_cast<std::size_t>(n * k)};
}

CheckResult GemmProblem::check(const ReadRange& y, const std::string& what, double tolerance, bool full) const {
  // 32 x 96 sampled outputs cost 3072 dot products of length k: milliseconds even for k = 18432.
  const auto rows = sample_indices(m, 32, full);
  const auto cols = sample_indices(n, 96, full);
  std::vector<std::vector<float>> w_rows;
  w_rows.reserve(cols.size());
  for (const auto j : cols) w_rows.push_back(w.values(inputs, static_cast<std::size_t>(j * k), k));
  Comparison cmp(what, tolerance);
  for (const auto i : rows) {
    const auto x_row = x.values(inputs, static_cast<std::size_t>(i * k), k);
    const auto y_row = y(static_cast<std::size_t>(i * n), static_cast<std::size_t>(n));
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const double expected = reference::dot(x_row.data(), w_rows[c].data(), k);
      cmp.add(y_row[cols[c]], expected, static_cast<std::size_t>(i * n + cols[c]));
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
