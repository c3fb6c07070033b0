#include "fleetcast/simulator/router_policy.hpp"

#include <algorithm>

namespace fleetcast::simulator {

int PrefixRecord::match(std::span<const Id> ids) const {
  int n = 0;
  for (Id id : ids) {
    if (!where_.contains(id)) break;
    ++n;
  }
  return n;
}

void PrefixRecord::record(std::span<const Id> ids) {
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    const auto found = where_.find(*it);
    if (found != where_.end()) {
      order_.splice(order_.end(), order_, found->second);
    } else {
      where_.emplace(*it, order_.insert(order_.end(), *it));
    }
  }
  while (order_.size() > capacity_) {
    where_.erase(order_.front());
    order_.pop_front();
  }
}

Placement::Placement(specs::RouterPolicy policy, int replicas, std::uint64_t seed, double kv_capacity_bytes)
    : policy_(policy),
      outstanding_(static_cast<std::size_t>(replicas), 0),
      kv_(static_cast<std::size_t>(replicas)),
      rng_(seed, kRouterRandomStream) {
  for (KvView& v : kv_) v.last.capacity_bytes = kv_capacity_bytes;
}

double Placement::kv_share(int replica) const {
  const KvView& v = kv_[static_cast<std::size_t>(replica)];
  const double bytes = v.last.committed_bytes + v.unreported_bytes;
  return v.last.capacity_bytes > 0.0 ? bytes / v.last.capacity_bytes : bytes;
}

int Placement::pick_power_of_two() {
  const auto n = static_cast<std::uint64_t>(outstanding_.size());
  if (n == 1) return 0;
  const int a = static_cast<int>(rng_.below(n));
  int b = static_cast<int>(rng_.below(n - 1));
  if (b >= a) ++b;  // uniform over the others
  return outstanding(b) < outstanding(a) ? b : a;
}

void Placement::track_prefixes(int block_tokens, std::size_t blocks_per_replica) {
  prefix_block_tokens_ = block_tokens;
  records_.assign(outstanding_.size(), PrefixRecord(blocks_per_replica));
}

int Placement::least_outstanding() const {
  int chosen = 0;
  for (int r = 1; r < static_cast<int>(outstanding_.size()); ++r)
    if (outstanding(r) < outstanding(chosen)) chosen = r;
  return chosen;
}

int Placement::pick_prefix_aware(std::span<const std::uint64_t> prefix_blocks, int prompt_tokens) const {
  const auto [fewest, most] = std::minmax_element(outstanding_.begin(), outstanding_.end());
  if (*most - *fewest > kBalanceAbsThreshold && *most > kBalanceRelThreshold * *fewest) return least_outstanding();
  const int n = static_cast<int>(outstanding_.size());
  int best = 0, best_match = -1;
  for (int r = 0; r < n; ++r) {
    const int m = records_.empty() ? 0 : prefix_record(r).match(prefix_blocks);
    if (m > best_match || (m == best_match && outstanding(r) < outstanding(best))) {
      best = r;
      best_match = m;
    }
  }
  const double rate = prompt_tokens > 0 ? static_cast<double>(best_match) * prefix_block_tokens_ / prompt_tokens : 0.0;
  if (rate > kCacheThreshold) return best;
  int roomiest = 0;  // the smallest record
  for (int r = 1; r < n && !records_.empty(); ++r) {
    const std::size_t size = prefix_record(r).size(), least = prefix_record(roomiest).size();
    if (size < least || (size == least && outstanding(r) < outstanding(roomiest))) roomiest = r;
  }
  return records_.empty() ? least_outstanding() : roomiest;
}

int Placement::pick(std::span<const std::uint64_t> prefix_blocks, int prompt_tokens) {
  const int n = static_cast<int>(outstanding_.size());
  int chosen = 0;
  switch (policy_) {
    case specs::RouterPolicy::round_robin:
      chosen = next_;
      next_ = (next_ + 1) % n;
      break;
    case specs::RouterPolicy::least_outstanding:
      chosen = least_outstanding();
      break;
    case specs::RouterPolicy::least_kv_load:
      for (int r = 1; r < n; ++r)
        if (kv_share(r) < kv_share(chosen)) chosen = r;
      break;
    case specs::RouterPolicy::power_of_two:
      chosen = pick_power_of_two();
      break;
    case specs::RouterPolicy::prefix_aware:
      chosen = pick_prefix_aware(prefix_blocks, prompt_tokens);
      if (!records_.empty()) records_[static_cast<std::size_t>(chosen)].record(prefix_blocks);
      break;
  }
  return chosen;
}

int Placement::place(double prompt_kv_bytes, std::span<const std::uint64_t> prefix_blocks, int prompt_tokens) {
  const int chosen = pick(prefix_blocks, prompt_tokens);
  ++outstanding_[static_cast<std::size_t>(chosen)];
  KvView& v = kv_[static_cast<std::size_t>(chosen)];
  v.unreported.push_back(prompt_kv_bytes);
  v.unreported_bytes += prompt_kv_bytes;
  ++v.placed;
  return chosen;
}

void Placement::done(int replica) { --outstanding_[static_cast<std::size_t>(replica)]; }

void Placement::report(int replica, const KvLoadReport& load) {
  KvView& v = kv_[static_cast<std::size_t>(replica)];
  if (load.accepted < v.last.accepted) return;  // older than what the router already knows
  v.last = load;
  // The replica's figure now includes every placement it had taken in: drop those from the unreported ones.
  auto confirmed = v.placed - static_cast<std::int64_t>(v.unreported.size());
  while (confirmed < load.accepted && !v.unreported.empty()) {
    v.unreported_bytes -= v.unreported.front();
    v.unreported.pop_front();
    ++confirmed;
  }
  if (v.unreported.empty()) v.unreported_bytes = 0.0;  // no drift from adding and removing doubles
}

}  // namespace fleetcast::simulator
