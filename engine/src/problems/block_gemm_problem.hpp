#pragma once
// The host side of a block-scaled GEMM case (dtypes fp8_block, mxfp8, nvfp4): Y[m,n] = X[m,k] W[n,k]^T
// with X and W filled as GemmProblem fills its fp32 inputs, quantised here with the format's block scales
// (reference/block_scaled.hpp) so that the device gets exactly these elements and scales, and the check
// compares Y with the product of the dequantised operands.

#include <cstdint>
#include <string>

#include "../reference/block_scaled.hpp"
#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"

namespace fleetcast::engine {

struct BlockGemmProblem {
  BlockGemmProblem(const Shape& shape, const std::string& dtype);

  std::int64_t m, n, k;
  reference::BlockFormat format;
  reference::BlockQuantized x, w;  // X in 1 x block_k blocks; W in 128 x 128 (fp8_block) or 1 x block_k

  // `y` reads the row-major [m, n] result; sampled rows and columns unless `full`.
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
