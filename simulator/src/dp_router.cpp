#include "fleetcast/simulator/dp_router.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fleetcast::simulator {

DpRouter::DpRouter(const specs::SchedulerSpec& spec, int dp_ranks, bool ranks_send_counts, std::uint64_t seed,
                   std::uint64_t stream)
    : rule_(spec.policy == specs::SchedulerPolicy::trtllm ? Rule::fewest_prompt_tokens
            : spec.policy == specs::SchedulerPolicy::vllm ? Rule::vllm_queue_score
                                                          : Rule::in_turn),
      ranks_(static_cast<std::size_t>(dp_ranks)),
      ranks_send_counts_(ranks_send_counts),
      random_(seed, stream),
      sent_(ranks_) {
  if (rule_ == Rule::vllm_queue_score) {
    const auto servers = static_cast<std::size_t>(spec.api_servers > 0 ? spec.api_servers : dp_ranks);
    views_.assign(servers, sent_);
    for (std::size_t server = 0; server < servers; ++server) scan_start_.push_back(server * ranks_ / servers);
  }
}

std::size_t DpRouter::route(const std::vector<Batcher>& ranks, double now) {
  if (ranks.size() < 2) return 0;
  switch (rule_) {
    case Rule::in_turn: {
      const std::size_t k = next_in_turn_;
      next_in_turn_ = (next_in_turn_ + 1) % ranks.size();
      return k;
    }
    case Rule::fewest_prompt_tokens: {
      // (active prompt tokens, active requests) of each rank, compared in that order; the first lowest wins.
      const auto load = [&](std::size_t k) {
        return std::pair{ranks[k].active_prompt_tokens(), ranks[k].waiting() + ranks[k].running()};
      };
      std::size_t best = 0;
      auto best_load = load(0);
      for (std::size_t k = 1; k < ranks.size(); ++k) {
        if (const auto l = load(k); l < best_load) {
          best = k;
          best_load = l;
        }
      }
      return best;
    }
    case Rule::vllm_queue_score:
      publish_until(now);
      return vllm_pick(views_.size() > 1 ? static_cast<std::size_t>(random_.below(views_.size())) : 0);
  }
  return 0;
}

std::size_t DpRouter::vllm_pick(std::size_t server) {
  std::vector<Counts>& view = views_[server];
  const std::size_t start = scan_start_[server];
  scan_start_[server] = (start + 1) % ranks_;  // ties go to each rank in turn (vllm-project/vllm #47420)
  std::size_t best = start;
  long best_score = -1;
  for (std::size_t i = 0; i < ranks_; ++i) {
    const std::size_t k = (start + i) % ranks_;
    const long score = 4L * view[k].waiting + view[k].running;
    if (best_score < 0 || score < best_score) {
      best = k;
      best_score = score;
    }
  }
  view[best].waiting += static_cast<int>(views_.size());
  return best;
}

void DpRouter::report(const std::vector<Batcher>& ranks, double now) {
  if (rule_ != Rule::vllm_queue_score || !ranks_send_counts_) return;
  publish_until(now);  // what was due before these counts went out carries the older ones
  bool any = false;
  for (std::size_t k = 0; k < ranks.size() && k < ranks_; ++k) {
    const Counts c{static_cast<int>(ranks[k].waiting()), static_cast<int>(ranks[k].running())};
    if (c != sent_[k]) {
      sent_[k] = c;
      any = true;
    }
  }
  if (any && !changed_) {
    changed_ = true;
    changed_s_ = now;
  }
  publish_until(now);  // a coordinator idle for 100 ms passes them on at once
}

void DpRouter::publish_until(double now) {
  if (!ranks_send_counts_) return;
  for (;;) {
    double due =
        changed_ ? std::max(published_s_ + kPublishIntervalS, changed_s_) : published_s_ + kIdlePublishIntervalS;
    if (due > now) return;
    // Unchanged counts still go out every 4 s, replacing each server's guesses; the last such publication counts.
    if (!changed_) due += kIdlePublishIntervalS * std::floor((now - due) / kIdlePublishIntervalS);
    published_s_ = due;
    changed_ = false;
    for (auto& view : views_) view = sent_;
  }
}

}  // namespace fleetcast::simulator
