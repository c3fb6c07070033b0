// Whole simulations, each in a forked child (SimGrid runs one simulation per process).
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

TEST_CASE("one request on an idle replica: TTFT is its prefill chunk steps, TPOT its decode steps", "[serving]") {
  auto j = test::small_scenario();
  j["num_requests"] = 1;
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  j["workload"]["input_tokens"]["value"] = 5000;  // three chunks of the 2,048-token budget
  j["workload"]["output_tokens"]["value"] = 20;
  const auto s = test::parse(j);
  const auto report = simulator::simulate_in_child(s);

  // The same steps predicted by hand: chunks 2048, 2048, 904, then 19 decodes with growing context.
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  double ttft = 0.0;
  int done = 0;
  for (int chunk : {2048, 2048, 904}) {
    simulator::BatchShape b;
    b.prefill.push_back({chunk, done, done + chunk == 5000});
    ttft += model.predict(b).total_s;
    done += chunk;
  }
  double decode = 0.0;
  for (int ctx = 5000; ctx < 5000 + 19; ++ctx) {
    simulator::BatchShape b;
    b.decode_contexts = {ctx};
    decode += model.predict(b).total_s;
  }
  const auto& m = report["metrics"];
  REQUIRE(m["requests_succeeded"] == 1);
  CHECK(m["ttft_ms"]["mean"].get<double>() == Approx(1e3 * ttft).epsilon(1e-9));
  CHECK(m["tpot_ms"]["mean"].get<double>() == Approx(1e3 * decode / 19).epsilon(1e-9));
  CHECK(m["queue_time_ms"]["mean"].get<double>() == 0.0);
  CHECK(m["e2e_latency_ms"]["mean"].get<double>() == Approx(1e3 * (ttft + decode)).epsilon(1e-9));
}

TEST_CASE("the same scenario and seed give byte-identical reports; another seed does not", "[serving]") {
  const auto s = test::parse(test::small_scenario());
  const std::string a = simulator::simulate_in_child(s).dump();
  const std::string b = simulator::simulate_in_child(s).dump();
  CHECK(a == b);
  auto j = test::small_scenario();
  j["seed"] = 8;
  CHECK(simulator::simulate_in_child(test::parse(j)).dump() != a);
}

TEST_CASE("a deployment the model does not fit on is bad input naming the replica layout", "[serving]") {
  auto j = test::small_scenario();
  j["model"] = "llama-3.1-405b";  // 405B parameters are far more than one 80 GB H100 holds
  try {
    simulator::simulate_in_child(test::parse(j));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "deployment.replica");
  }
}

TEST_CASE("check_only makes the pre-simulation checks in this process, as often as asked, without an engine",
          "[serving]") {
  simulator::RunOptions check;
  check.check_only = true;
  const auto a = simulator::run_simulation(test::parse(test::small_scenario()), check).report.at("check");
  const auto b = simulator::run_simulation(test::parse(test::small_scenario()), check).report.at("check");
  CHECK(a == b);  // a second SimGrid engine in one process would have carried the clock over; none was made
  CHECK(a["gpus"] == 1);
  CHECK(a["replicas"] == 1);
  CHECK(a["requests"] == 100);
  // Llama-3.1-8B: 8.03e9 parameters in BF16 on one GPU.
  CHECK(a["weight_bytes_per_gpu"].get<double>() == Approx(16.06e9).epsilon(0.01));
  auto j = test::small_scenario();
  j["model"] = "llama-3.1-405b";
  REQUIRE_THROWS_AS(simulator::run_simulation(test::parse(j), check), InputError);
}

TEST_CASE("round robin spreads requests evenly; least outstanding avoids a busy replica", "[serving]") {
  auto j = test::small_scenario();
  j["deployment"]["nodes"] = 2;  // two replicas
  j["num_requests"] = 400;
  j["workload"]["arrival"]["rate_per_s"] = 20.0;
  for (const char* policy : {"round_robin", "least_outstanding"}) {
    j["deployment"]["router"] = policy;
    const auto r = simulator::simulate_in_child(test::parse(j));
    CHECK(r["metrics"]["success_rate"] == 1.0);
    CHECK(r["derived"]["replicas"] == 2);
  }
}
