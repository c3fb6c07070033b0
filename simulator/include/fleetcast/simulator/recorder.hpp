#pragma once
// What the simulation observes: per-request timestamps (kept on the requests), step-level work inside the
// measurement window, inter-token gaps, and periodic samples of the system's state. Actors write to it;
// it makes no decisions.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/request.hpp"
#include "fleetcast/simulator/step_time.hpp"
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

// Tokens of every step that ended so far: the recorder keeps them running and notes them with each sample, so
// differences between samples give the timeline's tokens per second.
struct TokenTotals {
  double input_tokens = 0.0;    // inputs of requests whose first token came (the report's input tokens)
  double output_tokens = 0.0;   // first tokens included
  double prefill_tokens = 0.0;  // prompt tokens computed, recomputation included
};

// One engine iteration of one replica, kept for a Chrome trace (chrome_trace.hpp).
struct StepRecord {
  int replica = 0;
  double start_s = 0.0;
  double end_s = 0.0;
  int decode_sequences = 0;
  int prefill_chunks = 0;
  int prefill_tokens = 0;
  int decode_tokens = 0;  // drafts included
  int output_tokens = 0;
  int waiting = 0;                          // the replica's queue after the step
  double kv_used_share = 0.0;               // the replica's KV used / capacity after the step
  std::array<double, kNumOps> op_time_s{};  // StepTime.ops
};

// Which steps a step log keeps: those overlapping [start_s, end_s), or the measurement window's when
// `measurement_window`, at most `max_steps` of them (the first ones; the rest are only counted).
struct StepLogSpec {
  bool measurement_window = true;
  double start_s = 0.0;
  double end_s = 0.0;
  std::size_t max_steps = 100000;
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
  void record_sample(const Sample& s);
  // The step log is off unless asked for (a Chrome trace): a 1M-request run takes millions of steps.
  void keep_step_log(const StepLogSpec& spec) { step_log_spec_ = spec; }
  bool keeps_step_log() const { return step_log_spec_.has_value(); }
  // `rec`: the step's work and the replica's state after it (all its attention-DP ranks together); the op
  // times are taken from `st`.
  void log_step(StepRecord rec, const StepTime& st);
  const std::vector<StepRecord>& step_log() const { return step_log_; }
  std::int64_t step_log_matching() const { return step_log_matching_; }  // kept or not (max_steps)

  const WindowTotals& window() const { return window_; }
  const std::vector<ClassTokens>& class_tokens() const { return class_tokens_; }
  const stats::WeightedSamples& token_gaps() const { return token_gaps_; }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<TokenTotals>& sample_tokens() const { return sample_tokens_; }  // one per sample
  const TokenTotals& run_tokens() const { return run_tokens_; }
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
  std::vector<TokenTotals> sample_tokens_;
  TokenTotals run_tokens_;
  std::optional<StepLogSpec> step_log_spec_;
  std::vector<StepRecord> step_log_;
  std::int64_t step_log_matching_ = 0;
  std::vector<PoolTotals> pools_;
};

}  // namespace fleetcast::simulator
