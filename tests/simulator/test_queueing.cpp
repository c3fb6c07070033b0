// Queueing laws the serving simulation must obey.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// Service time of one request alone on a replica: one prefill step plus (out - 1) decode steps.
double service_time_s(const specs::ScenarioSpec& s, int in, int out) {
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  simulator::BatchShape p;
  p.prefill.push_back({in, 0, true});
  double t = model.predict(p).total_s;
  for (int ctx = in; ctx < in + out - 1; ++ctx) {
    simulator::BatchShape d;
    d.decode_contexts = {ctx};
    t += model.predict(d).total_s;
  }
  return t;
}

}  // namespace

TEST_CASE("one sequence at a time and fixed lengths make an M/D/1 queue (Pollaczek-Khinchine)", "[.slow][queueing]") {
  auto j = test::small_scenario();
  j["deployment"]["scheduler"]["max_num_seqs"] = 1;
  j["workload"]["input_tokens"]["value"] = 200;
  j["workload"]["output_tokens"]["value"] = 3;
  j["num_requests"] = 200000;
  const double service = service_time_s(test::parse(j), 200, 3);
  const double rho = 0.5;
  j["workload"]["arrival"]["rate_per_s"] = rho / service;
  const auto report = simulator::simulate_in_child(test::parse(j));
  // Mean wait in queue of M/D/1: rho D / (2 (1 - rho)).
  const double expected_ms = 1e3 * rho * service / (2.0 * (1.0 - rho));
  CHECK(report["metrics"]["queue_time_ms"]["mean"].get<double>() == Approx(expected_ms).epsilon(0.05));
  CHECK(report["metrics"]["gpu_busy_share"].get<double>() == Approx(rho).epsilon(0.02));
}

TEST_CASE("Little's law: mean number in system = arrival rate x mean time in system", "[queueing]") {
  auto j = test::small_scenario();
  j["num_requests"] = 20000;
  j["workload"]["arrival"]["rate_per_s"] = 6.0;
  j["workload"]["input_tokens"] = {{"kind", "uniform"}, {"min", 100}, {"max", 2000}};
  j["workload"]["output_tokens"] = {{"kind", "uniform"}, {"min", 10}, {"max", 300}};
  j["measurement"] = {{"sample_interval_s", 0.05}};
  const auto m = simulator::simulate_in_child(test::parse(j))["metrics"];
  const double lambda = m["arrival_rate_per_s"].get<double>();
  const double w = m["e2e_latency_ms"]["mean"].get<double>() / 1e3;
  // L from the sampler's time series, not from the request timestamps.
  CHECK(m["mean_in_system"].get<double>() == Approx(lambda * w).epsilon(0.02));
  CHECK(m["mean_in_system"].get<double>() > 5.0);  // a loaded system, not a trivial one
}

TEST_CASE("past capacity, throughput stays at the closed-loop maximum and queues grow", "[queueing]") {
  auto j = test::small_scenario();
  j["deployment"]["scheduler"]["max_num_seqs"] = 16;
  j["num_requests"] = 6000;
  // Varied lengths: with fixed ones, closed-loop clients finish and resend in lockstep waves, a batch pattern
  // of their own that open-loop arrivals do not reproduce.
  j["workload"]["input_tokens"] = {{"kind", "uniform"}, {"min", 200}, {"max", 800}};
  j["workload"]["output_tokens"] = {{"kind", "uniform"}, {"min", 20}, {"max", 80}};
  j["workload"]["arrival"] = {{"kind", "closed_loop"}, {"clients", 64}};
  const auto closed = simulator::simulate_in_child(test::parse(j))["metrics"];
  const double max_rate = closed["throughput"]["requests_per_s"].get<double>();
  REQUIRE(max_rate > 0.0);

  j["workload"]["arrival"] = {{"kind", "poisson"}, {"rate_per_s", 1.5 * max_rate}};
  const auto open = simulator::simulate_in_child(test::parse(j))["metrics"];
  CHECK(open["throughput"]["requests_per_s"].get<double>() == Approx(max_rate).epsilon(0.05));
  const auto& windows = open["queue_time_ms_by_arrival_window"];
  for (std::size_t i = 1; i < windows.size(); ++i) CHECK(windows[i].get<double>() > windows[i - 1].get<double>());
}

TEST_CASE("closed-loop clients started out of phase wait less for their first token than clients in lockstep",
          "[queueing]") {
  // 16 clients of 1000 + 64 tokens: started together they arrive together every cycle and each prompt waits
  // behind the others' prefills (8 steps of 2048 tokens); spread over one cycle they arrive one or two per
  // cycle-sixteenth, and a prompt waits for at most the step in flight.
  auto j = test::small_scenario();
  const int clients = 16;
  j["workload"]["input_tokens"]["value"] = 1000;
  j["workload"]["output_tokens"]["value"] = 64;
  j["num_requests"] = 5 * clients;
  j["workload"]["arrival"] = {{"kind", "closed_loop"}, {"clients", clients}};
  const auto together = simulator::simulate_in_child(test::parse(j));
  j["workload"]["arrival"]["start"] = "spread";
  // The first request of every client (arrival ranks 0..15) is warm-up: the window leaves exactly those out.
  j["measurement"] = {{"warmup_fraction", (clients + 0.5) / (5 * clients)}, {"cooldown_fraction", 0.1}};
  const auto spread = simulator::simulate_in_child(test::parse(j));
  CHECK(spread["measurement"]["warmup_requests"] == clients);
  // The same 80 requests served, every measured one answered: 80 - 16 warm-up - 8 cool-down.
  CHECK(spread["metrics"]["requests_measured"] == 5 * clients - clients - clients / 2);
  CHECK(spread["metrics"]["requests_succeeded"] == spread["metrics"]["requests_measured"]);
  CHECK(together["metrics"]["requests_succeeded"] == together["metrics"]["requests_measured"]);
  const double spread_ms = spread["metrics"]["ttft_ms"]["mean"].get<double>();
  const double together_ms = together["metrics"]["ttft_ms"]["mean"].get<double>();
  INFO("mean TTFT together " << together_ms << " ms, spread " << spread_ms << " ms");
  CHECK(spread_ms < 0.5 * together_ms);
}
