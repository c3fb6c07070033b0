#include "fleetcast/simulator/recorder.hpp"

#include <algorithm>

namespace fleetcast::simulator {

void Recorder::record_step(double start_s, double end_s, int gpus, double prefill_share, const StepOutcome& out,
                           int pool) {
  ++total_steps_;
  run_tokens_.input_tokens += out.first_token_input_tokens;
  run_tokens_.output_tokens += out.output_tokens;
  run_tokens_.prefill_tokens += out.prefill_tokens;
  const double clipped = std::min(end_s, window_end_s_) - std::max(start_s, window_start_s_);
  if (pool >= 0) {
    if (pools_.size() <= static_cast<std::size_t>(pool)) pools_.resize(static_cast<std::size_t>(pool) + 1);
    PoolTotals& p = pools_[static_cast<std::size_t>(pool)];
    ++p.steps;
    p.prefill_tokens += out.prefill_tokens;
    p.decode_tokens += out.decode_tokens;
    if (clipped > 0.0) {
      p.busy_gpu_s += clipped * gpus;
      p.prefill_busy_gpu_s += clipped * gpus * prefill_share;
      p.decode_busy_gpu_s += clipped * gpus * (1.0 - prefill_share);
    }
  }
  if (clipped > 0.0) {
    const double busy = clipped * gpus;
    window_.busy_gpu_s += busy;
    window_.prefill_busy_gpu_s += busy * prefill_share;
    window_.decode_busy_gpu_s += busy * (1.0 - prefill_share);
  }
  if (!in_window(end_s)) return;
  // Work and tokens count when the step that produced them ends.
  ++window_.steps;
  window_.prefill_tokens += out.prefill_tokens;
  window_.input_tokens += out.first_token_input_tokens;
  window_.output_tokens += out.output_tokens;
  window_.decode_sequence_steps += out.decode_sequences;
  window_.decode_output_tokens += out.decode_output_tokens;
  for (double gap : out.token_gaps_s) token_gaps_.add(gap, 1.0);
  for (const Request* r : out.first_token) {
    class_tokens_[static_cast<std::size_t>(r->class_index)].input_tokens += r->input_tokens;
  }
  for (const auto& [r, produced] : out.tokens_by_request) {
    class_tokens_[static_cast<std::size_t>(r->class_index)].output_tokens += produced;
  }
}

void Recorder::record_sample(const Sample& s) {
  // A second sample at the same instant (the one taken when the run ends) replaces the first: it saw every step
  // of that instant.
  if (!samples_.empty() && samples_.back().t_s == s.t_s) {
    samples_.pop_back();
    sample_tokens_.pop_back();
  }
  samples_.push_back(s);
  sample_tokens_.push_back(run_tokens_);
}

void Recorder::log_step(StepRecord rec, const StepTime& st) {
  const StepLogSpec& spec = *step_log_spec_;
  // Steps are logged when they end, so the measurement window is known from its start on: before it opens
  // window_start_s_ is 1e300 and nothing matches; until it closes window_end_s_ is 1e300.
  const double from = spec.measurement_window ? window_start_s_ : spec.start_s;
  const double to = spec.measurement_window ? window_end_s_ : spec.end_s;
  if (rec.end_s <= from || rec.start_s >= to) return;
  ++step_log_matching_;
  if (step_log_.size() >= spec.max_steps) return;
  for (int i = 0; i < kNumOps; ++i)
    rec.op_time_s[static_cast<std::size_t>(i)] = st.ops[static_cast<std::size_t>(i)].time_s;
  step_log_.push_back(rec);
}

}  // namespace fleetcast::simulator
