#pragma once
// Where the router places each request. Pure bookkeeping, no SimGrid: the router actor feeds it what it learns
// from messages (its own placements, completions, the replicas' load reports) and asks it for a replica.
//
// - round_robin: replicas in turn.
// - least_outstanding: the fewest requests placed and not yet completed; ties to the lowest index.
// - power_of_two: two distinct replicas drawn uniformly at random (seeded), the one with fewer outstanding
//   requests; a tie keeps the first drawn.
// - least_kv_load: the least KV share in the router's view; ties to the lowest index. The view of a replica is
//   what it last reported committed (KV held plus KV its waiting prompts will take) plus the prompts the router
//   has sent it since that the replica had not yet taken in, over its capacity. Counting those in-flight
//   prompts keeps a burst of arrivals between two reports from all landing on the same replica.

#include <cstdint>
#include <deque>
#include <vector>

#include "fleetcast/simulator/random.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

// A replica reports after a step when its committed KV moved by more than this share of its capacity since
// its last report, and on every completion: the router's view lags the replica by at most one step or this
// share, at a cost of at most one extra message per step.
inline constexpr double kLoadReportShare = 0.02;

// The random stream of power_of_two's draws (request classes use streams 1 and up: request_generator.hpp).
inline constexpr std::uint64_t kRouterRandomStream = 0;

// What a replica tells the router about its KV cache, per GPU.
struct KvLoadReport {
  double committed_bytes = 0.0;  // KV held plus KV its waiting prompts will take
  double capacity_bytes = 0.0;
  std::int64_t accepted = 0;     // requests it has taken from its mailbox so far
};

class Placement {
public:
  // `kv_capacity_bytes`: each replica's KV capacity per GPU as configured, until its reports say otherwise.
  Placement(specs::RouterPolicy policy, int replicas, std::uint64_t seed, double kv_capacity_bytes);

  // Chooses a replica for a request whose prompt takes `prompt_kv_bytes` of KV per GPU, and counts the
  // request there.
  int place(double prompt_kv_bytes);
  void done(int replica);
  void report(int replica, const KvLoadReport& load);

  int outstanding(int replica) const { return outstanding_[static_cast<std::size_t>(replica)]; }
  double kv_share(int replica) const;  // the router's view, as least_kv_load compares it

private:
  struct KvView {
    KvLoadReport last;
    std::deque<double> unreported;  // prompt bytes of placements the replica had not taken in at `last`
    double unreported_bytes = 0.0;
    std::int64_t placed = 0;
  };
  int pick();
  int pick_power_of_two();

  specs::RouterPolicy policy_;
  std::vector<int> outstanding_;
  std::vector<KvView> kv_;
  Random rng_;
  int next_ = 0;
};

}  // namespace fleetcast::simulator
