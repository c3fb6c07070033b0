#include "moe_problems.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../reference/moe_reference.hpp"
#include "../reference/reference.hpp"

namespace fleetcast::engine {

namespace {
constexpr std::int64_t kSampledTokens = 16;
}

MoeRoutingProblem::MoeRoutingProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")),
      experts(shape.at("experts")),
      top_k(shape.at("top_k")),
      n_group(shape.at("n_group")),
      topk_group(shape.at("topk_group")),
      sigmoid(shape.at("sigmoid") != 0),
      storage(s) {
  logits = {801, static_cast<std::size_t>(tokens * experts), 4.0f};
}

CheckResult MoeRoutingProblem::check(const ReadRange& ids, const ReadRange& weights, const std::string& what,
                                     double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  for (const auto t : sample_indices(tokens, kSampledTokens, full)) {
    const auto l = logits.values(storage, static_cast<std::size_t>(t * experts), experts);
    const auto expected = reference::moe_route(l.data(), experts, top_k, n_group, topk_group, sigmoid);
    const auto offset = static_cast<std::size_t>(t * top_k);
    const auto got_ids = ids(offset, top_k);
    const auto got_weights = weights(offset, top_k);
    for (std::int64_t i = 0; i < top_k; ++i) {
      cmp.add_exact(got_ids[i], static_cast<double>(expected.ids[i]), offset + i);
      cmp.add(got_weights[i], expected.weights[i], offset + i);
    }
  }
  return cmp.finish();
}

std::vector<std::int32_t> seeded_expert_ids(std::uint64_t seed, std::int64_t tokens, std::int64_t top_k,
                                            std::int64_t experts) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(tokens * top_k));
  std::uint64_t draw = 0;
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (std::int64_t s = 0; s < top_k; ++s) {
      std::int32_t e;
      do {  // top_k <= experts (validated), so a distinct one turns up
        e = static_cast<std::int32_t>(mix64(seed * 0x9e3779b97f4a7c15ULL + draw++) % experts);
      } while (std::find(ids.begin() + t * top_k, ids.begin() + t * top_k + s, e) != ids.begin() + t * top_k + s);
      ids[t * top_k + s] = e;
    }
  }
  return ids;
}

MoePermuteProblem::MoePermuteProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")),
      hidden(shape.at("hidden")),
      experts(shape.at("experts")),
      top_k(shape.at("top_k")),
      storage(s) {
  x = {811, static_cast<std::size_t>(tokens * hidden)};
  ids = seeded_expert_ids(812, tokens, top_k, experts);
}

CheckResult MoePermuteProblem::check(const ReadRange& permuted, const ReadRange& offsets, const ReadRange& source_slot,
                                     const std::string& what, bool full) const {
  Comparison cmp(what, 0.0);
  const auto order = reference::moe_slot_order(ids.data(), tokens, top_k, experts);
  const auto rows = static_cast<std::int64_t>(order.size());
  // Offsets: how many slots went to the experts before each one.
  const auto got_offsets = offsets(0, static_cast<std::size_t>(experts + 1));
  std::int64_t before = 0;
  for (std::int64_t e = 0; e <= experts; ++e) {
    cmp.add_exact(got_offsets[e], static_cast<double>(before), static_cast<std::size_t>(e));
    if (e < experts) before += std::count(ids.begin(), ids.end(), static_cast<std::int32_t>(e));
  }
  const auto got_slots = source_slot(0, static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) cmp.add_exact(got_slots[r], static_cast<double>(order[r]), r);
  for (const auto r : sample_indices(rows, 4 * kSampledTokens, full)) {
    const auto expected = x.values(storage, static_cast<std::size_t>(order[r] / top_k * hidden), hidden);
    const auto got = permuted(static_cast<std::size_t>(r * hidden), hidden);
    for (std::int64_t i = 0; i < hidden; ++i) cmp.add_exact(got[i], expected[i], r * hidden + i);
  }
  return cmp.finish();
}

MoeUnpermuteProblem::MoeUnpermuteProblem(const Shape& shape, Storage s)
    : tokens(shape.at("tokens")),
      hidden(shape.at("hidden")),
      experts(shape.at("experts")),
      top_k(shape.at("top_k")),
      storage(s) {
  expert_out = {821, static_cast<std::size_t>(tokens * top_k * hidden)};
  weights = {822, static_cast<std::size_t>(tokens * top_k), 0.5f, 0.5f};
  const auto ids = seeded_expert_ids(823, tokens, top_k, experts);
  const auto order = reference::moe_slot_order(ids.data(), tokens, top_k, experts);
  dest_row.resize(order.size());
  for (std::size_t r = 0; r < order.size(); ++r) dest_row[order[r]] = static_cast<std::int32_t>(r);
}

CheckResult MoeUnpermuteProblem::check(const ReadRange& y, const std::string& what, double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  for (const auto t : sample_indices(tokens, kSampledTokens, full)) {
    std::vector<double> expected(static_cast<std::size_t>(hidden), 0.0);
    for (std::int64_t s = 0; s < top_k; ++s) {
      const double w = weights.value(Storage::fp32, static_cast<std::size_t>(t * top_k + s));
      const auto row = expert_out.values(storage, static_cast<std::size_t>(dest_row[t * top_k + s] * hidden), hidden);
      for (std::int64_t i = 0; i < hidden; ++i) expected[i] += w * row[i];
    }
    const auto got = y(static_cast<std::size_t>(t * hidden), hidden);
    for (std::int64_t i = 0; i < hidden; ++i) cmp.add(got[i], expected[i], t * hidden + i);
  }
  return cmp.finish();
}

std::vector<std::int64_t> expert_row_counts(std::int64_t rows, std::int64_t experts, std::int64_t zipf_milli,
                                            std::int64_t seed) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(experts), rows / experts);
  if (zipf_milli == 0) {
    for (std::int64_t e = 0; e < rows % experts; ++e) ++counts[e];
    return counts;
  }
  // Expert rank[i] is the i-th most popular: a seeded shuffle, so the hot experts are not always the first.
  std::vector<std::int64_t> rank(static_cast<std::size_t>(experts));
  std::iota(rank.begin(), rank.end(), 0);
  const auto useed = static_cast<std::uint64_t>(seed);
  for (std::int64_t i = experts - 1; i > 0; --i)
    std::swap(rank[i],
              rank[static_cast<std::int64_t>(mix64(useed * 31 + 7 + static_cast<std::uint64_t>(i)) % (i + 1))]);
  std::vector<double> cdf(static_cast<std::size_t>(experts));
  double total = 0.0;
  for (std::int64_t i = 0; i < experts; ++i)
    cdf[i] = total += std::pow(static_cast<double>(i + 1), -zipf_milli / 1000.0);
  std::fill(counts.begin(), counts.end(), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const double u =
        0.5 * (uniform_pm1(useed * 0x9e3779b97f4a7c15ULL + 11, static_cast<std::uint64_t>(r)) + 1.0) * total;
    const auto i = std::min<std::int64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin(), experts - 1);
    ++counts[rank[i]];
  }
  return counts;
}

MoeGroupedGemmProblem::MoeGroupedGemmProblem(const Shape& shape, Storage s)
    : MoeGroupedGemmProblem(
          shape.at("n"), shape.at("k"),
          expert_row_counts(shape.at("rows"), shape.at("experts"), shape.at("zipf_milli"), shape.at("seed")), s) {}

MoeGroupedGemmProblem::MoeGroupedGemmProblem(std::int64_t n_, std::int64_t k_, std::vector<std::int64_t> counts,
                                             Storage s)
    : rows(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})),
      experts(static_cast<std::int64_t>(counts.size())),
      n(n_),
      k(k_),
      storage(s) {
  offsets.assign(counts.size() + 1, 0);
  for (std::size_t e = 0; e < counts.size(); ++e) offsets[e + 1] = offsets[e] + static_cast<std::int32_t>(counts[e]);
  x = {831, static_cast<std::size_t>(rows * k)};
  w = {832, static_cast<std::size_t>(experts * n * k)};
}

CheckResult MoeGroupedGemmProblem::check(const ReadRange& y, const std::string& what, double tolerance,
                                         bool full) const {
  Comparison cmp(what, tolerance);
  const auto cols = sample_indices(n, 48, full);
  for (const auto r : sample_indices(rows, 32, full)) {
    const auto e = static_cast<std::int64_t>(std::upper_bound(offsets.begin(), offsets.end(), r) - offsets.begin()) - 1;
    const auto x_row = x.values(storage, static_cast<std::size_t>(r * k), k);
    const auto got = y(static_cast<std::size_t>(r * n), n);
    for (const auto c : cols) {
      const auto w_row = w.values(storage, static_cast<std::size_t>((e * n + c) * k), k);
      cmp.add(got[c], reference::dot(x_row.data(), w_row.data(), k), r * n + c);
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
