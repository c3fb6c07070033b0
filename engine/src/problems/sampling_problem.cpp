#include "sampling_problem.hpp"

#include "../reference/reference.hpp"

namespace fleetcast::engine {

SamplingProblem::SamplingProblem(const Shape& shape, Storage s)
    : batch(shape.at("batch")), vocab(shape.at("vocab")), top_k(shape.at("top_k")), storage(s) {
  logits = {501, static_cast<std::size_t>(batch * vocab), 8.0f};
  draws.resize(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) draws[b] = 0.5f * (uniform_pm1(502, static_cast<std::uint64_t>(b)) + 1.0f);
}

CheckResult SamplingProblem::check(const ReadRange& tokens, const ReadRange& probs, const std::string& what,
                                   double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  const auto got_tokens = tokens(0, static_cast<std::size_t>(batch));
  const auto got_probs = probs(0, static_cast<std::size_t>(batch));
  for (const auto b : sample_indices(batch, 16, full)) {
    const auto row = logits.values(storage, static_cast<std::size_t>(b * vocab), vocab);
    const auto expected = reference::sample_row(row.data(), vocab, top_k, draws[b]);
    cmp.add_exact(got_tokens[b], static_cast<double>(expected.token), static_cast<std::size_t>(b));
    cmp.add(got_probs[b], expected.prob, static_cast<std::size_t>(b));
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
