#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetcast::engine::reference {

double dot(const float* a, const float* b, std::int64_t n) {
  double s = 0.0;
  for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return s;
}

std::vector<double> rmsnorm_row(const float* x, const float* w, std::int64_t hidden, double eps) {
  double sum_sq = 0.0;
  for (std::int64_t i = 0; i < hidden; ++i) sum_sq += static_cast<double>(x[i]) * x[i];
  const double inv_rms = 1.0 / std::sqrt(sum_sq / static_cast<double>(hidden) + eps);
  std::vector<double> out(static_cast<std::size_t>(hidden));
  for (std::int64_t i = 0; i < hidden; ++i) out[i] = x[i] * inv_rms * w[i];
  return out;
}

std::vector<double> swiglu_row(const float* gate, const float* up, std::int64_t width) {
  std::vector<double> out(static_cast<std::size_t>(width));
  for (std::int64_t i = 0; i < width; ++i) {
    const double g = gate[i];
    out[i] = g / (1.0 + std::exp(-g)) * up[i];
  }
  return out;
}

std::vector<double> rope_head(const float* x, const float* cos_sin, std::int64_t head_dim) {
  const std::int64_t half = head_dim / 2;
  std::vector<double> out(static_cast<std::size_t>(head_dim));
  for (std::int64_t i = 0; i < half; ++i) {
    const double c = cos_sin[i], s = cos_sin[half + i];
    const double x1 = x[i], x2 = x[half + i];
    out[i] = x1 * c - x2 * s;
    out[half + i] = x2 * c + x1 * s;
  }
  return out;
}

Sample sample_row(const float* logits, std::int64_t vocab, std::int64_t top_k, double u) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return logits[a] > logits[b]; });
  const double max_logit = logits[order[0]];
  double total = 0.0;
  for (std::int64_t i = 0; i < vocab; ++i) total += std::exp(static_cast<double>(logits[i]) - max_logit);
  Sample s;
  s.token = order[0];
  if (top_k > 1) {
    double top_total = 0.0;
    for (std::int64_t i = 0; i < top_k; ++i) top_total += std::exp(static_cast<double>(logits[order[i]]) - max_logit);
    double cumulative = 0.0;
    for (std::int64_t i = 0; i < top_k; ++i) {
      cumulative += std::exp(static_cast<double>(logits[order[i]]) - max_logit) / top_total;
      s.token = order[i];
      if (u < cumulative) break;
    }
  }
  s.prob = std::exp(static_cast<double>(logits[s.token]) - max_logit) / total;
  return s;
}

std::vector<double> attention_head(const float* q, std::int64_t dk, std::int64_t dv, std::int64_t context,
                                   const std::function<const float*(std::int64_t)>& k,
                                   const std::function<const float*(std::int64_t)>& v, double scale) {
  std::vector<double> scores(static_cast<std::size_t>(context));
  for (std::int64_t t = 0; t < context; ++t) scores[t] = dot(q, k(t), dk) * scale;
  const double max_score = *std::max_element(scores.begin(), scores.end());
  double total = 0.0;
  for (auto& s : scores) total += (s = std::exp(s - max_score));
  std::vector<double> out(static_cast<std::size_t>(dv), 0.0);
  for (std::int64_t t = 0; t < context; ++t) {
    const float* vt = v(t);
    for (std::int64_t i = 0; i < dv; ++i) out[i] += scores[t] / total * vt[i];
  }
  return out;
}

}  // namespace fleetcast::engine::reference
