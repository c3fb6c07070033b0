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
// - prefix_aware: SGLang's cache-aware router (sgl-router, SGLang v0.5 src/policies/cache_aware.rs, with its
//   CLI defaults). The router keeps, per replica, an approximate record of the prefix blocks it sent there (it
//   does not ask the replicas), least recently sent forgotten first beyond a bound. When the load is imbalanced
//   (most outstanding - fewest > kBalanceAbsThreshold and most > kBalanceRelThreshold x fewest) it sends to the
//   least outstanding replica. Otherwise to the replica whose record matches the longest run of the prompt's
//   leading blocks, if that run covers more than kCacheThreshold of the prompt; if not, to the replica with the
//   smallest record (the most room for a new prefix). Ties go to the fewest outstanding, then the lowest index.
//   The chosen replica's record then takes the prompt's blocks.

#include <cstdint>
#include <deque>
#include <list>
#include <span>
#include <unordered_map>
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

// prefix_aware's thresholds: sgl-router's defaults (cache_threshold 0.3, balance_abs_threshold 64,
// balance_rel_threshold 1.5); the load is requests outstanding, as sgl-router counts them.
inline constexpr double kCacheThreshold = 0.3;
inline constexpr int kBalanceAbsThreshold = 64;
inline constexpr double kBalanceRelThreshold = 1.5;

// The prefix blocks the router sent to one replica, at most `capacity`, least recently sent forgotten first.
class PrefixRecord {
public:
  using Id = std::uint64_t;
  explicit PrefixRecord(std::size_t capacity) : capacity_(capacity) {}
  int match(std::span<const Id> ids) const;  // leading blocks of `ids` in the record, in a row
  // Records a prompt's blocks, its first block as the most recently sent: a chain's tail is forgotten before
  // its head (sgl-router evicts the least recently used leaves of its tree).
  void record(std::span<const Id> ids);
  std::size_t size() const { return order_.size(); }

private:
  std::size_t capacity_;
  std::list<Id> order_;  // front: forgotten first
  std::unordered_map<Id, std::list<Id>::iterator> where_;
};

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

  // prefix_aware: prompts' blocks are `block_tokens` long; each replica's record keeps at most
  // `blocks_per_replica` of them.
  void track_prefixes(int block_tokens, std::size_t blocks_per_replica);

  // Chooses a replica for a request whose prompt takes `prompt_kv_bytes` of KV per GPU (and, for prefix_aware,
  // has `prompt_tokens` tokens whose full blocks are `prefix_blocks`), and counts the request there.
  int place(double prompt_kv_bytes, std::span<const std::uint64_t> prefix_blocks = {}, int prompt_tokens = 0);
  void done(int replica);
  void report(int replica, const KvLoadReport& load);

  int outstanding(int replica) const { return outstanding_[static_cast<std::size_t>(replica)]; }
  double kv_share(int replica) const;  // the router's view, as least_kv_load compares it
  const PrefixRecord& prefix_record(int replica) const { return records_[static_cast<std::size_t>(replica)]; }

private:
  struct KvView {
    KvLoadReport last;
    std::deque<double> unreported;  // prompt bytes of placements the replica had not taken in at `last`
    double unreported_bytes = 0.0;
    std::int64_t placed = 0;
  };
  int pick(std::span<const std::uint64_t> prefix_blocks, int prompt_tokens);
  int pick_power_of_two();
  int pick_prefix_aware(std::span<const std::uint64_t> prefix_blocks, int prompt_tokens) const;
  int least_outstanding() const;

  specs::RouterPolicy policy_;
  std::vector<int> outstanding_;
  std::vector<KvView> kv_;
  Random rng_;
  int next_ = 0;
  std::vector<PrefixRecord> records_;
  int prefix_block_tokens_ = 0;
};

}  // namespace fleetcast::simulator
