// DeepInfer's launch charts (REFERENCE.md section 1) from the shipped scenarios deepinfer-{prefill,decode}-gb200:
// decode has one fitted parameter (scheduler.step_overhead_s, fitted on the chart's middle point only), the outer
// points are predictions; prefill has none (with two-batch overlap the fit would be negative, so the profile's
// overhead stands). docs/ACCURACY.md has the table; this test keeps it true.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

constexpr int kContext = 131072;

specs::ScenarioSpec scenario(const std::string& name) {
  return specs::parse_scenario(specs::preset_json(specs::PresetKind::scenario, name), name);
}

double error(double predicted, double read_off) { return std::abs(predicted - read_off) / read_off; }

}  // namespace

TEST_CASE("DeepInfer decode chart: 64 GB200, DP64/EP64, MTP 3 at 0.75, 131k context", "[deepinfer]") {
  const auto s = scenario("deepinfer-decode-gb200");
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
  // Read off the chart: requests per DP rank -> output tokens/s per GPU, tokens/s per user.
  const struct {
    int requests;
    double per_gpu, per_user;
  } chart[] = {{8, 2600, 325}, {64, 15500, 248}, {256, 26000, 103}};
  double last_gpu = 0.0, last_user = 1e300;
  for (const auto& point : chart) {
    const auto p = simulator::decode_point(model, s.deployment, point.requests, kContext);
    INFO(point.requests << " requests per rank: " << p.output_tokens_per_s_per_gpu << " tok/s/GPU, "
                        << p.tokens_per_s_per_user << " tok/s/user");
    // The fitted point matches its per-user speed; every point's figures are within 15%.
    if (point.requests == 64) CHECK(error(p.tokens_per_s_per_user, point.per_user) < 0.005);
    CHECK(error(p.tokens_per_s_per_user, point.per_user) < 0.15);
    CHECK(error(p.output_tokens_per_s_per_gpu, point.per_gpu) < 0.15);
    // The shape: throughput rises and per-user speed falls with the batch.
    CHECK(p.output_tokens_per_s_per_gpu > last_gpu);
    CHECK(p.tokens_per_s_per_user < last_user);
    last_gpu = p.output_tokens_per_s_per_gpu;
    last_user = p.tokens_per_s_per_user;
  }
}

TEST_CASE("DeepInfer prefill chart: 4 GB200, DP4/EP4, two-batch overlap, 131k-token prompts", "[deepinfer]") {
  const auto s = scenario("deepinfer-prefill-gb200");
  // Nothing fitted: the step overhead is the profile's.
  CHECK(s.deployment.scheduler.step_overhead_s < 0.0);
  CHECK(s.deployment.two_batch_overlap);
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
  // Read off the chart: tokens per GPU per step -> input tokens/s per GPU, ms per step.
  const struct {
    int tokens;
    double per_gpu, step_ms;
  } chart[] = {{4096, 60000, 68}, {16384, 81000, 200}, {65536, 89000, 730}};
  double last_gpu = 0.0, last_ms = 0.0;
  for (const auto& point : chart) {
    const auto p = simulator::prefill_point(model, s.deployment, point.tokens, kContext);
    INFO(point.tokens << " tokens per GPU: " << p.input_tokens_per_s_per_gpu << " tok/s/GPU, " << 1e3 * p.mean_step_s
                      << " ms per step");
    CHECK(error(1e3 * p.mean_step_s, point.step_ms) < 0.15);
    CHECK(error(p.input_tokens_per_s_per_gpu, point.per_gpu) < 0.15);
    CHECK(p.input_tokens_per_s_per_gpu > last_gpu);
    CHECK(1e3 * p.mean_step_s > last_ms);
    last_gpu = p.input_tokens_per_s_per_gpu;
    last_ms = 1e3 * p.mean_step_s;
  }
}
