#include "fp8_quant.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine {

float fp8_scale(const float* v, std::int64_t count) {
  float absmax = 0.0f;
  for (std::int64_t i = 0; i < count; ++i) absmax = std::max(absmax, std::fabs(v[i]));
  return absmax > 0.0f ? absmax / kE4m3Max : 1.0f;
}

void quantise_fp8(const float* v, std::int64_t count, float scale, float* out) {
  for (std::int64_t i = 0; i < count; ++i) out[i] = round_e4m3(v[i] / scale);
}

Fp8Weights quantise_fp8_weights(const std::vector<float>& w, std::int64_t blocks) {
  Fp8Weights q;
  if (w.empty()) return q;
  const auto size = static_cast<std::int64_t>(w.size());
  if (blocks <= 0 || size % blocks != 0) throw std::logic_error("quantise_fp8_weights: blocks must divide the tensor");
  const std::int64_t each = size / blocks;
  q.values.resize(w.size());
  for (std::int64_t b = 0; b < blocks; ++b) {
    const float scale = fp8_scale(w.data() + b * each, each);
    quantise_fp8(w.data() + b * each, each, scale, q.values.data() + b * each);
    q.scales.push_back(scale);
  }
  return q;
}

}  // namespace fleetcast::engine
