#include "fleetcast/simulator/recorder.hpp"

#include <algorithm>

namespace fleetcast::simulator {

void Recorder::record_step(double start_s, double end_s, int gpus, double prefill_share, int prefill_tokens,
                           int input_tokens, int output_tokens, const std::vector<double>& token_gaps_s) {
  ++total_steps_;
  const double clipped = std::min(end_s, window_end_s_) - std::max(start_s, window_start_s_);
  if (clipped > 0.0) {
    const double busy = clipped * gpus;
    window_.busy_gpu_s += busy;
    window_.prefill_busy_gpu_s += busy * prefill_share;
    window_.decode_busy_gpu_s += busy * (1.0 - prefill_share);
  }
  if (!in_window(end_s)) return;
  // Work and tokens count when the step that produced them ends.
  ++window_.steps;
  window_.prefill_tokens += prefill_tokens;
  window_.input_tokens += input_tokens;
  window_.output_tokens += output_tokens;
  for (double gap : token_gaps_s) token_gaps_.add(gap, 1.0);
}

}  // namespace fleetcast::simulator
