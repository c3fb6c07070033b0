#pragma once
// The host side of the row-wise elementwise ops (RMSNorm, SwiGLU, RoPE): inputs as every backend fills
// them, auxiliary tables, and checks against the reference on sampled tokens.

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

struct RmsNormProblem {
  RmsNormProblem(const Shape& shape, Storage storage);
  static constexpr double kEps = 1e-6;
  std::int64_t tokens, hidden;
  Storage storage;
  TensorInit x, weight;  // [tokens, hidden], [hidden]
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

struct SwigluProblem {
  SwigluProblem(const Shape& shape, Storage storage);
  std::int64_t tokens, width;
  Storage storage;
  TensorInit gate_up;  // [tokens, 2 x width]: gate then up, as a merged projection writes them
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

struct RopeProblem {
  RopeProblem(const Shape& shape, Storage storage);
  static constexpr std::int64_t kMaxPosition = 8192;
  static constexpr double kTheta = 10000.0;
  std::int64_t tokens, q_heads, kv_heads, head_dim;
  Storage storage;
  TensorInit q, k;                  // [tokens, q_heads, head_dim], [tokens, kv_heads, head_dim]
  std::vector<std::int32_t> positions;  // [tokens]
  std::vector<float> cos_sin;           // [kMaxPosition, head_dim]: cosines, then sines, per position
  CheckResult check(const ReadRange& q_out, const ReadRange& k_out, const std::string& what, double tolerance,
                    bool full) const;
};

}  // namespace fleetcast::engine
