#include "fleetcast/simulator/router_policy.hpp"

namespace fleetcast::simulator {

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

int Placement::pick() {
  const int n = static_cast<int>(outstanding_.size());
  int chosen = 0;
  switch (policy_) {
    case specs::RouterPolicy::round_robin:
      chosen = next_;
      next_ = (next_ + 1) % n;
      break;
    case specs::RouterPolicy::least_outstanding:
      for (int r = 1; r < n; ++r)
        if (outstanding(r) < outstanding(chosen)) chosen = r;
      break;
    case specs::RouterPolicy::least_kv_load:
      for (int r = 1; r < n; ++r)
        if (kv_share(r) < kv_share(chosen)) chosen = r;
      break;
    case specs::RouterPolicy::power_of_two:
      chosen = pick_power_of_two();
      break;
  }
  return chosen;
}

int Placement::place(double prompt_kv_bytes) {
  const int chosen = pick();
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
