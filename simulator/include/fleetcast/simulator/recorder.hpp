#pragma once
// What the simulation observes: per-request timestamps (kept on the requests), step-level work inside the
// measurement window, inter-token gaps, and periodic samples of the system's state. Actors write to it;
// it makes no decisions.

#include <cstdint>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/request.hpp"
#include "fleetcast/stats/weighted.hpp"

namespace fleetcast::simulator {

struct Sample {
  double t_s;
  int in_system;  // arrived, not finished
  int waiting;    // queued in replicas
  int running;    // in a replica's running batch
  double kv_used_share;  // KV bytes used / capacity, over all replicas
  std::vector<double> replica_kv_used_share;  // the same, replica by replica
};

// A class's tokens of the steps that ended inside the window (the same rule as WindowTotals).
struct ClassTokens {
  double input_tokens = 0.0;
  double output_tokens = 0.0;
};

struct WindowTotals {
  double prefill_tokens = 0.0;  // computed in steps that ended inside the window (recomputation included)
  double input_tokens = 0.0;    // inputs of requests whose first token came inside the window
  double output_tokens = 0.0;
  double busy_gpu_s = 0.0;      // step time x the replica's GPUs, clipped to the window
  double prefill_busy_gpu_s = 0.0;
  double decode_busy_gpu_s = 0.0;
  std::int64_t steps = 0;
  std::int64_t decode_sequence_steps = 0;  // one per decoding sequence per step
  std::int64_t decode_output_tokens = 0;   // what they produced (1 + accepted drafts each)
};

// One pool's steps with prefill/decode disaggregation: busy time clipped to the window like WindowTotals,
// tokens over the whole run (a pool that never runs a kind of work shows 0 however long it ran).
struct PoolTotals {
  double busy_gpu_s = 0.0;
  double prefill_busy_gpu_s = 0.0;
  double decode_busy_gpu_s = 0.0;
  std::int64_t steps = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_tokens = 0;
};

class Recorder {
public:
  Recorder(std::vector<Request> requests, int classes)
      : requests_(std::move(requests)), class_tokens_(static_cast<std::size_t>(classes)) {}

  std::vector<Request>& requests() { return requests_; }
  const std::vector<Request>& requests() const { return requests_; }

  // The steady-state window opens when the first measured request arrives and closes when the last does.
  void open_window(double t_s) { window_start_s_ = t_s; }
  void close_window(double t_s) { window_end_s_ = t_s; }
  double window_start_s() const { return window_start_s_; }
  double window_end_s() const { return window_end_s_; }
  bool in_window(double t_s) const { return t_s >= window_start_s_ && t_s < window_end_s_; }

  // Tokens, work, gaps and decodes of one step (decodes give speculative decoding's acceptance length).
  // `pool` >= 0 (disaggregation: 0 prefill, 1 decode) also adds the step to that pool's totals.
  void record_step(double start_s, double end_s, int gpus, double prefill_share, const StepOutcome& out,
                   int pool = -1);
  void record_sample(const Sample& s) { samples_.push_back(s); }

  const WindowTotals& window() const { return window_; }
  const std::vector<ClassTokens>& class_tokens() const { return class_tokens_; }
  const stats::WeightedSamples& token_gaps() const { return token_gaps_; }
  const std::vector<Sample>& samples() const { return samples_; }
  std::int64_t total_steps() const { return total_steps_; }
  const std::vector<PoolTotals>& pools() const { return pools_; }

private:
  std::vector<Request> requests_;
  double window_start_s_ = 1e300;
  double window_end_s_ = 1e300;
  WindowTotals window_;
  std::vector<ClassTokens> class_tokens_;
  stats::WeightedSamples token_gaps_;
  std::vector<Sample> samples_;
  std::int64_t total_steps_ = 0;
  std::vector<PoolTotals> pools_;
};

}  // namespace fleetcast::simulator
