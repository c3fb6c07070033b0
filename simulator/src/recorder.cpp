#include "fleetcast/simulator/recorder.hpp"

#include <algorithm>

namespace fleetcast::simulator {

void Recorder::record_step(double start_s, double end_s, int gpus, double prefill_share, const StepOutcome& out,
                           int pool) {
  ++total_steps_;
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

}  // namespace fleetcast::simulator
