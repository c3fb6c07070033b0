#include "fleetcast/simulator/prefill_delayer.hpp"

#include <algorithm>

namespace fleetcast::simulator {

PrefillDelayer::PrefillDelayer(const specs::SchedulerSpec& spec, int dp_ranks)
    : on_(spec.policy == specs::SchedulerPolicy::sglang && spec.prefill_delayer && dp_ranks > 1),
      max_delay_passes_(spec.prefill_delayer_max_delay_passes),
      prefillable_(static_cast<std::size_t>(dp_ranks), 0),
      recent_prefill_bs_(static_cast<std::size_t>(dp_ranks)) {}

void PrefillDelayer::negotiate(std::vector<Batcher>& ranks) {
  waited_ = false;
  if (!on_) return;
  int prefillable = 0, most_running = 0, largest_recent = 0;
  bool anything_runs = false;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    prefillable_[k] = ranks[k].sglang_prefillable();
    prefillable += prefillable_[k];
    const int running = static_cast<int>(ranks[k].running());
    most_running = std::max(most_running, running);
    anything_runs = anything_runs || running > 0;
    for (int bs : recent_prefill_bs_[k]) largest_recent = std::max(largest_recent, bs);
  }
  bool wait = false;
  if (prefillable > 0 && prefillable < static_cast<int>(ranks.size())) {
    wait = true;  // mixed
  } else if (prefillable > 0) {
    const bool slot_condition = ranks.front().max_num_seqs() - most_running < largest_recent;
    wait = slot_condition && !skip_first_;
    if (slot_condition) skip_first_ = false;
  }
  if (wait && (!anything_runs || delayed_count_ >= max_delay_passes_ - 1)) wait = false;  // wait_timeout
  if (!wait) {
    delayed_count_ = 0;
    return;
  }
  ++delayed_count_;
  waited_ = true;
  for (Batcher& b : ranks) b.sglang_delay_admissions();
}

void PrefillDelayer::record(const std::vector<Batcher>& ranks) {
  if (!on_) return;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (!prefillable_[k]) continue;  // idle and decode-only passes leave the window as it is
    const Batcher& b = ranks[k];
    const int free_slots = b.max_num_seqs() - static_cast<int>(b.running());
    const int bs = waited_ ? std::min(static_cast<int>(b.waiting()), std::max(free_slots, 0)) : b.step_contexts();
    std::deque<int>& window = recent_prefill_bs_[k];
    window.push_back(bs);
    if (window.size() > kRecentPrefillWindow) window.pop_front();
  }
}

}  // namespace fleetcast::simulator
