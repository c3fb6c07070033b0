#include "rowwise_problems.hpp"

#include <cmath>

#include "../reference/reference.hpp"

namespace fleetcast::engine {

namespace {
constexpr std::int64_t kSampledTokens = 16;
}

RmsNormProblem::RmsNormProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")), hidden(shape.at("hidden")), storage(s) {
  x = {201, static_cast<std::size_t>(tokens * hidden)};
  weight = {202, static_cast<std::size_t>(hidden), 0.5f, 1.0f};
}

CheckResult RmsNormProblem::check(const ReadRange& y, const std::string& what, double tolerance, bool full) const {
  const auto w = weight.values(storage, 0, hidden);
  Comparison cmp(what, tolerance);
  for (const auto t : sample_indices(tokens, kSampledTokens, full)) {
    const auto offset = static_cast<std::size_t>(t * hidden);
    const auto expected = reference::rmsnorm_row(x.values(storage, offset, hidden).data(), w.data(), hidden, kEps);
    const auto got = y(offset, hidden);
    for (std::int64_t i = 0; i < hidden; ++i) cmp.add(got[i], expected[i], offset + i);
  }
  return cmp.finish();
}

SwigluProblem::SwigluProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")), width(shape.at("width")), storage(s) {
  gate_up = {301, static_cast<std::size_t>(tokens * 2 * width), 4.0f};
}

CheckResult SwigluProblem::check(const ReadRange& y, const std::string& what, double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  for (const auto t : sample_indices(tokens, kSampledTokens, full)) {
    const auto in = gate_up.values(storage, static_cast<std::size_t>(t * 2 * width), 2 * width);
    const auto expected = reference::swiglu_row(in.data(), in.data() + width, width);
    const auto offset = static_cast<std::size_t>(t * width);
    const auto got = y(offset, width);
    for (std::int64_t i = 0; i < width; ++i) cmp.add(got[i], expected[i], offset + i);
  }
  return cmp.finish();
}

RopeProblem::RopeProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")),
      q_heads(shape.at("q_heads")),
      kv_heads(shape.at("kv_heads")),
      head_dim(shape.at("head_dim")),
      storage(s) {
  q = {401, static_cast<std::size_t>(tokens * q_heads * head_dim)};
  k = {402, static_cast<std::size_t>(tokens * kv_heads * head_dim)};
  // Decode batches hold tokens of many sequences at scattered positions.
  positions.resize(static_cast<std::size_t>(tokens));
  for (std::int64_t t = 0; t < tokens; ++t)
    positions[t] = static_cast<std::int32_t>(mix64(403 + static_cast<std::uint64_t>(t)) % kMaxPosition);
  const std::int64_t half = head_dim / 2;
  cos_sin.resize(static_cast<std::size_t>(kMaxPosition * head_dim));
  for (std::int64_t p = 0; p < kMaxPosition; ++p) {
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * std::pow(kTheta, -2.0 * static_cast<double>(i) / head_dim);
      cos_sin[p * head_dim + i] = static_cast<float>(std::cos(angle));
      cos_sin[p * head_dim + half + i] = static_cast<float>(std::sin(angle));
    }
  }
}

CheckResult RopeProblem::check(const ReadRange& q_out, const ReadRange& k_out, const std::string& what,
                               double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  auto check_tensor = [&](const TensorInit& in, const ReadRange& out, std::int64_t heads, std::size_t base) {
    for (const auto t : sample_indices(tokens, kSampledTokens, full)) {
      const auto offset = static_cast<std::size_t>(t * heads * head_dim);
      const auto x = in.values(storage, offset, heads * head_dim);
      const auto got = out(offset, heads * head_dim);
      const float* table = cos_sin.data() + positions[t] * head_dim;
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto expected = reference::rope_head(x.data() + h * head_dim, table, head_dim);
        for (std::int64_t i = 0; i < head_dim; ++i)
          cmp.add(got[h * head_dim + i], expected[i], base + offset + h * head_dim + i);
      }
    }
  };
  check_tensor(q, q_out, q_heads, 0);
  // k's indices follow q's in messages: one flat numbering over both outputs.
  check_tensor(k, k_out, kv_heads, static_cast<std::size_t>(tokens * q_heads * head_dim));
  return cmp.finish();
}

}  // namespace fleetcast::engine
