// A measured run's speculative decoding as the scenario's: MTP drafts per step from the launch, acceptance rates from
// what the benchmark measured, and the methods that are not modelled left unmapped.
#include <catch2/catch.hpp>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/speculative_run.hpp"
#include "serving_mapping_support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using test::agg_run;
using test::mapped;
using test::unmapped;

namespace {

// DeepSeek-R1 on 8 B200 under TensorRT-LLM with MTP, as a launch with speculative_config says it.
traces::MeasuredServingRun mtp_run(int drafts, double accept_length) {
  auto r = agg_run("deepseek-ai/DeepSeek-R1-0528", "b200_sxm", "trtllm", {64, 0, 8, 1, 1, 8, 1});
  r.spec_method = "mtp";
  r.spec_draft_tokens = drafts;
  r.spec_accept_length = accept_length;
  return r;
}

}  // namespace

TEST_CASE("acceptance: per-position shares become conditional rates; one length gives one rate",
          "[validation][speculative]") {
  // 90% of steps accept draft 1, 54% drafts 1 and 2, 16.2% all three: 0.9, then 0.54 / 0.9, then 0.162 / 0.54.
  const auto rates = validation::conditional_acceptance({0.9, 0.54, 0.162});
  REQUIRE(rates.size() == 3);
  CHECK(rates[0] == Approx(0.9));
  CHECK(rates[1] == Approx(0.6));
  CHECK(rates[2] == Approx(0.3));
  // After a position no step reached, nothing is accepted.
  CHECK(validation::conditional_acceptance({0.5, 0.0, 0.0})[2] == 0.0);
  // DeepInfer's MTP (next-n 3, rate 0.75): 1 + .75 + .5625 + .421875 = 2.734375 tokens per step.
  CHECK(validation::uniform_acceptance_rate(2.734375, 3) == Approx(0.75).epsilon(1e-9));
  CHECK(validation::uniform_acceptance_rate(1.0, 3) == Approx(0.0).margin(1e-9));
  CHECK(validation::uniform_acceptance_rate(4.0, 3) == Approx(1.0).epsilon(1e-9));
  CHECK(validation::uniform_acceptance_rate(1.5, 1) == Approx(0.5).epsilon(1e-9));
}

TEST_CASE("mapping: an MTP run is simulated with its drafts per step and the acceptance it measured",
          "[validation][speculative]") {
  const auto m = mapped(mtp_run(3, 3.41));
  const auto s = specs::parse_scenario(m.scenario, "row");
  REQUIRE(s.deployment.speculative.has_value());
  CHECK(s.deployment.speculative->num_draft_tokens == 3);
  REQUIRE(s.deployment.speculative->acceptance_rates.size() == 1);
  const double r = s.deployment.speculative->acceptance_rates[0];
  CHECK(1.0 + r + r * r + r * r * r == Approx(3.41).epsilon(1e-6));
  CHECK(m.notes.find("accepted length 3.41") != std::string::npos);

  // vLLM's per-position shares, where the file has them, give one rate per position.
  auto per_position = mtp_run(3, 2.602);
  per_position.spec_position_acceptance = {0.9, 0.54, 0.162};
  const auto ps = specs::parse_scenario(mapped(per_position).scenario, "row");
  REQUIRE(ps.deployment.speculative->acceptance_rates.size() == 3);
  CHECK(ps.deployment.speculative->acceptance_rates[1] == Approx(0.6));

  // A file with an accepted length and no method: the model's own MTP layers where it has them.
  auto unsaid = mtp_run(2, 2.5);
  unsaid.spec_method.clear();
  CHECK(mapped(unsaid).notes.find("the file and launch do not say the method") != std::string::npos);
  // No speculation at all: no speculative block.
  auto plain = mtp_run(0, 0.0);
  plain.spec_method.clear();
  CHECK(!specs::parse_scenario(mapped(plain).scenario, "row").deployment.speculative.has_value());
}

TEST_CASE("mapping: speculative runs that cannot be simulated as run are unmapped with the reason",
          "[validation][speculative]") {
  auto eagle = mtp_run(3, 2.8);
  eagle.spec_method = "Eagle3";
  CHECK(unmapped(eagle) == "speculative decoding by Eagle3: only drafts from the model's own MTP layers are modelled");
  auto llama = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  llama.spec_method = "mtp";
  llama.spec_draft_tokens = 3;
  llama.spec_accept_length = 2.0;
  CHECK(unmapped(llama).find("has no MTP layers") != std::string::npos);
  CHECK(unmapped(mtp_run(0, 3.0)).find("the drafts per step are not given") != std::string::npos);
  CHECK(unmapped(mtp_run(3, 0.0)).find("--acceptance-length") != std::string::npos);
  CHECK(unmapped(mtp_run(3, 4.5)).find("above 1 + 3 drafts") != std::string::npos);
}
