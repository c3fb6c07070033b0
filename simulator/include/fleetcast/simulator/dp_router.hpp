#pragma once
// Which DP rank of a replica takes a new request, as each engine's front end decides it:
// - TensorRT-LLM (ExecutorRequestQueue._balance_requests_across_ranks, 1.1+: DefaultADPRouter): the rank with the
//   fewest active prompt tokens, then the fewest active requests, then the lowest rank, counted at once.
// - vLLM v1 with internal DP load balancing (DPLBAsyncMPClient.get_core_engine_for_request and DPCoordinator, as of
//   vllm-project/vllm #41626 and #47420, mid 2026): an API server takes the rank with the lowest 4 x waiting +
//   running in the counts the coordinator last published, scanning from a place that moves on by one rank after
//   each pick (first rank index x dp / servers; ties keep the first scanned), and adds `servers` to the waiting
//   count of the rank it took, its guess at what every server sends there, until the next publication replaces its
//   view. The ranks send their counts when they changed, once they have taken in the requests that came and again
//   after the step; the coordinator publishes 100 ms after its last publication at the earliest while they change,
//   and every 4 s regardless. `vllm serve` starts one API server per DP rank unless told otherwise (api_servers)
//   and the kernel spreads connections over them (SO_REUSEPORT): here a request reaches one drawn at random. Only
//   MoE models' ranks send counts (vLLM runs a dense model's DP ranks as independent engines), so a dense model's
//   servers go on their own guesses alone, which takes the ranks in turn.
// - SGLang and the others: the ranks in turn (SGLang's DataParallelController, load_balance_method round_robin).
// Pure bookkeeping, no SimGrid: the replica actor and the fast closed-loop replay both route through it.

#include <cstdint>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/random.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

// The random stream of a replica's choice of vLLM API server: this base plus the replica's index.
inline constexpr std::uint64_t kDpRouterStreamBase = std::uint64_t{3} << 32;

class DpRouter {
 public:
  // vLLM's coordinator's timing (DPCoordinator's min_stats_update_interval_ms and its idle publication).
  static constexpr double kPublishIntervalS = 0.100;
  static constexpr double kIdlePublishIntervalS = 4.0;

  struct Counts {
    int waiting = 0, running = 0;
    bool operator==(const Counts&) const = default;
  };

  // `ranks_send_counts`: whether the engine's ranks report their queues (vLLM: a MoE model's).
  DpRouter(const specs::SchedulerSpec& spec, int dp_ranks, bool ranks_send_counts, std::uint64_t seed,
           std::uint64_t stream);

  // The rank that takes a request arriving at `now`.
  std::size_t route(const std::vector<Batcher>& ranks, double now);
  // The ranks send their counts at `now`: once they took in the requests that came, before forming a step, and
  // after the step, before the requests that came during it join.
  void report(const std::vector<Batcher>& ranks, double now);

  // What API server `server` believes of each rank now (published counts plus its own guesses).
  const std::vector<Counts>& view(std::size_t server) const { return views_.at(server); }
  int servers() const { return static_cast<int>(views_.size()); }

 private:
  enum class Rule { in_turn, fewest_prompt_tokens, vllm_queue_score };
  void publish_until(double now);
  std::size_t vllm_pick(std::size_t server);

  Rule rule_;
  std::size_t ranks_;
  std::size_t next_in_turn_ = 0;
  bool ranks_send_counts_;
  Random random_;
  // vLLM: the counts the coordinator holds (the ranks' last sent), each server's view, the coordinator's clock.
  std::vector<Counts> sent_;
  std::vector<std::vector<Counts>> views_;
  std::vector<std::size_t> scan_start_;  // each server's
  bool changed_ = false;
  double changed_s_ = 0.0;
  double published_s_ = -kPublishIntervalS;  // so that the first change is published at once
};

}  // namespace fleetcast::simulator
