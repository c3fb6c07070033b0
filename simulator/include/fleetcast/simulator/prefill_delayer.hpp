#pragma once
// SGLang's prefill delayer (--enable-prefill-delayer; python/sglang/srt/managers/prefill_delayer.py as of
// sgl-project/sglang #32880 and #34284, August 2026), for attention data parallelism. Before every step the DP ranks
// all-gather whether each would start a new request (Batcher::sglang_prefillable), its running batch and the largest
// of its recent prefill batches, and take one decision for all:
// - no rank would: nothing to hold; the wait count restarts.
// - some would and some would not ("mixed"): the ranks that would, wait.
// - every rank would ("all"): they wait while max_num_seqs minus the largest running batch is below the largest
//   recent prefill batch (the slot condition: admitting now would leave a later decode batch short of full), except
//   the first time that holds in the engine's life (skip_first_delayer); otherwise they go.
// A wait lasts at most max_delay_passes - 1 steps in a row: the next step goes and the count restarts. A rank's
// recent prefill batch is the largest of its last 16 prefill attempts: the requests it started, or, when held, as
// many as its queue and free slots would have let it start (#34284's sliding window).
// When no rank runs anything, the engine's passes cost no GPU time and a wait times out at once: they go.
// Not modelled: the KV token-usage low watermark and the queue trigger (both off by default). Releases before
// #32880 (July 2026) had no bound on the "all" wait and kept the largest prefill batch ever seen.
// Pure bookkeeping, no SimGrid: DpStepFormer (dp_step_former.hpp) drives it.

#include <deque>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

class PrefillDelayer {
 public:
  // Does nothing unless the scheduler is SGLang's with prefill_delayer and there are several ranks.
  PrefillDelayer(const specs::SchedulerSpec& spec, int dp_ranks);

  // Before the ranks form their steps: asks each, decides, and holds every rank's new requests for this step if
  // they wait.
  void negotiate(std::vector<Batcher>& ranks);
  // After the ranks formed their steps: each rank that could start a request records its prefill batch.
  void record(const std::vector<Batcher>& ranks);

  static constexpr std::size_t kRecentPrefillWindow = 16;  // SGLANG_PREFILL_DELAYER_MAX_PREFILL_BS_WINDOW_SIZE

 private:
  bool on_;
  int max_delay_passes_;
  int delayed_count_ = 0;   // _State.delayed_count
  bool skip_first_ = true;  // skip_first_delayer
  bool waited_ = false;     // this step's decision
  std::vector<char> prefillable_;
  std::vector<std::deque<int>> recent_prefill_bs_;  // per rank, newest last
};

}  // namespace fleetcast::simulator
