#include "fleetcast/simulator/expert_placement.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetcast::simulator {

std::vector<double> expert_shares(const specs::MoeSpec& moe, const specs::MoeLoadSpec& load) {
  const int experts = moe.num_routed_experts;
  std::vector<double> shares(static_cast<std::size_t>(experts), 1.0);
  if (load.distribution == specs::ExpertDistribution::power_law) {
    for (int i = 0; i < experts; ++i) shares[static_cast<std::size_t>(i)] = std::pow(i + 1.0, -load.alpha);
  } else if (load.distribution == specs::ExpertDistribution::shares) {
    shares = load.shares;
  }
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (double& s : shares) s /= total;
  return shares;
}

ExpertPlacement place_experts(const specs::MoeSpec& moe, const specs::MoeLoadSpec& load, int ep) {
  const std::vector<double> shares = expert_shares(moe, load);
  const int experts = static_cast<int>(shares.size());

  // Each redundant copy goes to the expert whose copies carry the most traffic each.
  std::vector<int> copies(static_cast<std::size_t>(experts), 1);
  for (int r = 0; r < load.redundant_experts; ++r) {
    int hottest = 0;
    for (int e = 1; e < experts; ++e) {
      if (shares[e] / copies[e] > shares[hottest] / copies[hottest]) hottest = e;
    }
    ++copies[hottest];
  }
  std::vector<double> copy_loads;
  for (int e = 0; e < experts; ++e) {
    for (int c = 0; c < copies[e]; ++c) copy_loads.push_back(shares[e] / copies[e]);
  }
  std::stable_sort(copy_loads.begin(), copy_loads.end(), std::greater<>());

  // Largest first onto the least loaded rank that still has a slot (ties to the lowest rank).
  const std::size_t slots = copy_loads.size() / static_cast<std::size_t>(ep);
  std::vector<double> rank_load(static_cast<std::size_t>(ep), 0.0);
  std::vector<std::vector<double>> rank_copies(static_cast<std::size_t>(ep));
  for (double q : copy_loads) {
    std::size_t best = rank_load.size();
    for (std::size_t r = 0; r < rank_load.size(); ++r) {
      if (rank_copies[r].size() >= slots) continue;
      if (best == rank_load.size() || rank_load[r] < rank_load[best]) best = r;
    }
    rank_load[best] += q;
    rank_copies[best].push_back(q);
  }
  const auto busiest =
      static_cast<std::size_t>(std::max_element(rank_load.begin(), rank_load.end()) - rank_load.begin());
  ExpertPlacement p;
  p.ep = ep;
  p.load_factor = rank_load[busiest] * ep;
  p.hottest_copies = rank_copies[busiest];
  return p;
}

double copies_touched_on_busiest(const ExpertPlacement& p, int top_k, double tokens) {
  double touched = 0.0;
  for (double q : p.hottest_copies) touched += 1.0 - std::pow(1.0 - std::min(1.0, top_k * q), tokens);
  return touched;
}

namespace {
template <class PerExpert>
double mean_over_layers(const MeasuredExpertRows& m, PerExpert per_expert) {
  if (m.layers.empty()) return 0.0;
  double sum = 0.0;
  for (const auto& layer : m.layers)
    for (std::int64_t rows : layer) sum += per_expert(static_cast<double>(rows));
  return sum / static_cast<double>(m.layers.size());
}
}  // namespace

double MeasuredExpertRows::rows() const {
  return mean_over_layers(*this, [](double r) { return r; });
}
double MeasuredExpertRows::experts_used() const {
  return mean_over_layers(*this, [](double r) { return r > 0.0 ? 1.0 : 0.0; });
}
double MeasuredExpertRows::padded_rows(int tile) const {
  return mean_over_layers(*this, [tile](double r) { return tile * std::ceil(r / tile); });
}

int grouped_gemm_row_tile(double tokens, int top_k, int experts) {
  const double per_expert = std::max(1.0, std::floor(tokens * top_k / std::max(experts, 1)));
  int tile = 16;
  while (tile < 128 && tile < per_expert) tile *= 2;
  return tile;
}

double padded_rows_on_busiest(const ExpertPlacement& p, int top_k, double tokens, int tile) {
  // E[ceil(x / tile)] = P(x >= 1) + sum over j >= 1 of P(x > j tile): the first exactly, the others from the
  // normal approximation (x is a sum of many rare hits there). Copies of equal share sit next to each other
  // (placement goes largest first), so each share's figure is worked out once.
  double rows = 0.0, last_q = -1.0, last_rows = 0.0;
  for (double q : p.hottest_copies) {
    if (q != last_q) {
      const double hit = std::min(1.0, top_k * q), mean = tokens * hit;
      const double sd = std::sqrt(std::max(tokens * hit * (1.0 - hit), 1e-12));
      double tiles = 1.0 - std::pow(1.0 - hit, tokens);
      for (double edge = tile; edge < mean + 8.0 * sd + 1.0; edge += tile) {
        tiles += 0.5 * std::erfc((edge + 0.5 - mean) / (sd * std::sqrt(2.0)));
      }
      last_q = q;
      last_rows = tile * tiles;
    }
    rows += last_rows;
  }
  return rows;
}

}  // namespace fleetcast::simulator
