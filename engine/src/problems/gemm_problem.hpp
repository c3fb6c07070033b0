#pragma once
// The host side of a GEMM case: Y[m,n] = X[m,k] W[n,k]^T, with X and W as every backend fills them and
// a check of Y against the reference on sampled rows and columns.

#include <cstdint>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

struct GemmProblem {
  GemmProblem(const Shape& shape, Storage inputs);

  std::int64_t m, n, k;
  Storage inputs;
  TensorInit x, w;  // row-major [m, k] and [n, k]

  // `y` reads the row-major [m, n] result; `what` names the case in messages.
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
