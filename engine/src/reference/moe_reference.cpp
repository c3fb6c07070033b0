#include "moe_reference.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetcast::engine::reference {

namespace {

// Indices of the `k` largest values, largest first, equal values by lower index.
std::vector<std::int64_t> top_indices(const std::vector<double>& v, std::int64_t k) {
  std::vector<std::int64_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return v[a] > v[b]; });
  order.resize(static_cast<std::size_t>(k));
  return order;
}

}  // namespace

MoeRoute moe_route(const float* logits, std::int64_t experts, std::int64_t top_k, std::int64_t n_group,
                   std::int64_t topk_group, bool sigmoid) {
  std::vector<double> scores(static_cast<std::size_t>(experts));
  if (sigmoid) {
    for (std::int64_t e = 0; e < experts; ++e) scores[e] = 1.0 / (1.0 + std::exp(-static_cast<double>(logits[e])));
  } else {
    const double max_logit = *std::max_element(logits, logits + experts);
    double total = 0.0;
    for (std::int64_t e = 0; e < experts; ++e) total += scores[e] = std::exp(logits[e] - max_logit);
    for (auto& s : scores) s /= total;
  }
  // Experts outside the chosen groups get -infinity: they can never be picked.
  std::vector<double> allowed = scores;
  if (n_group > 1) {
    const std::int64_t size = experts / n_group;
    std::vector<double> group_score(static_cast<std::size_t>(n_group));
    for (std::int64_t g = 0; g < n_group; ++g) {
      std::vector<double> members(scores.begin() + g * size, scores.begin() + (g + 1) * size);
      std::sort(members.rbegin(), members.rend());
      group_score[g] = sigmoid ? members[0] + (size > 1 ? members[1] : 0.0) : members[0];
    }
    std::vector<bool> chosen(static_cast<std::size_t>(n_group), false);
    for (const auto g : top_indices(group_score, topk_group)) chosen[g] = true;
    for (std::int64_t e = 0; e < experts; ++e)
      if (!chosen[e / size]) allowed[e] = -INFINITY;
  }
  MoeRoute r;
  r.ids = top_indices(allowed, top_k);
  double sum = 0.0;
  for (const auto e : r.ids) sum += scores[e];
  for (const auto e : r.ids) r.weights.push_back(scores[e] / sum);
  return r;
}

std::vector<std::int64_t> moe_slot_order(const std::int32_t* ids, std::int64_t tokens, std::int64_t top_k,
                                         std::int64_t experts) {
  std::vector<std::int64_t> order;
  for (std::int64_t e = 0; e < experts; ++e)
    for (std::int64_t s = 0; s < tokens * top_k; ++s)
      if (ids[s] == e) order.push_back(s);
  return order;
}

}  // namespace fleetcast::engine::reference
