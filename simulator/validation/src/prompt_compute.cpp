// The prompt compute a measured closed-loop rate needs, against the best GEMM rate (prompt_compute.hpp).
#include "fleetcast/validation/prompt_compute.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"

namespace fleetcast::validation {

std::optional<PromptComputeNeed> prompt_compute_need(const specs::ScenarioSpec& s, double ttft_ms, double tpot_ms) {
  const specs::DeploymentSpec& d = s.deployment;
  if (d.disaggregation || s.workload.classes.size() != 1) return std::nullopt;
  const specs::RequestClass& c = s.workload.classes[0];
  if (c.arrival.kind != specs::ArrivalKind::closed_loop || c.arrival.clients <= 0) return std::nullopt;
  const double output_tokens = c.output_tokens.mean(), input_tokens = c.input_tokens.mean();
  // A client's cycle: its request's latency, then the pause it takes before the next (none in a benchmark).
  const double cycle_s =
      1e-3 * (ttft_ms + std::max(0.0, output_tokens - 1.0) * tpot_ms) + std::max(0.0, c.arrival.think_time_s);
  if (!(ttft_ms > 0.0) || !(tpot_ms > 0.0) || !(cycle_s > 0.0) || !(input_tokens > 0.0)) return std::nullopt;

  const simulator::ParameterCounts p = simulator::count_parameters(s.model);
  const double head = p.lm_head > 0.0 ? p.lm_head : p.embedding;
  const double prompt_flops = 2.0 * (p.active_per_token() - head) * input_tokens;
  // The fastest GEMM any of the model's weights can run at: a bound must not charge a format the run did not use.
  const simulator::RateTable best(d.hardware, calibration::datasheet_profile_for(d.hardware, d.runtime));
  specs::Precision format = s.model.precision.weights;
  if (s.model.moe && best.matmul_flops(s.model.precision.experts) > best.matmul_flops(format)) {
    format = s.model.precision.experts;
  }
  PromptComputeNeed need;
  need.gpus = d.replica.gpus() * d.num_replicas();
  need.requests_per_s = c.arrival.clients / cycle_s;
  need.share = need.requests_per_s * prompt_flops / (need.gpus * best.matmul_flops(format));
  need.format = std::string(specs::to_string(format));
  return need;
}

std::string describe(const PromptComputeNeed& n) {
  std::string format = n.format;
  for (char& ch : format) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "its measured rate needs %.2fx the best %s GEMM rate of its %d GPU%s for the prompts alone: prompts "
                "served from a prefix cache or shorter than stated",
                n.share, format.c_str(), n.gpus, n.gpus == 1 ? "" : "s");
  return buf;
}

}  // namespace fleetcast::validation
