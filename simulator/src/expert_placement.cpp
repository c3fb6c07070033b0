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
  const auto busiest = static_cast<std::size_t>(std::max_element(rank_load.begin(), rank_load.end()) -
                                                rank_load.begin());
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

}  // namespace fleetcast::simulator
