// Routing policies through whole simulations, on traffic that alternates very long and very short requests:
// two near-deterministic arrival streams (gamma, cv 1e-4) at the same rate, the long one 0.1% faster so that it
// always arrives a hair first, give long, short, long, short, ... for the 800 requests of these runs.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/simulation.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

constexpr int kLongInput = 8000, kShortInput = 100;

nlohmann::json alternating(int replicas, double pairs_per_s, const char* router) {
  auto j = test::small_scenario();
  j["deployment"]["nodes"] = replicas;  // one GPU each
  j["deployment"]["router"] = router;
  j["deployment"]["scheduler"]["gpu_memory_utilization"] = 0.3;  // a small KV cache, so its use shows
  j["num_requests"] = 800;
  j["workload"] = {
      {"name", "alternating"},
      {"classes",
       {{{"name", "long"},
         {"arrival", {{"kind", "gamma"}, {"rate_per_s", pairs_per_s * 1.001}, {"cv", 1e-4}}},
         {"input_tokens", {{"kind", "fixed"}, {"value", kLongInput}}},
         {"output_tokens", {{"kind", "fixed"}, {"value", 200}}}},
        {{"name", "short"},
         {"arrival", {{"kind", "gamma"}, {"rate_per_s", pairs_per_s}, {"cv", 1e-4}}},
         {"input_tokens", {{"kind", "fixed"}, {"value", kShortInput}}},
         {"output_tokens", {{"kind", "fixed"}, {"value", 10}}}}}}};
  return j;
}

nlohmann::json by_replica(const nlohmann::json& scenario) {
  return simulator::simulate_in_child(test::parse(scenario))["metrics"]["by_replica"];
}

double input_of(const nlohmann::json& replicas, std::size_t r) { return replicas[r]["input_tokens"].get<double>(); }
double kv_of(const nlohmann::json& replicas, std::size_t r) {
  return replicas[r]["kv_cache_used_share_mean"].get<double>();
}

}  // namespace

TEST_CASE("round robin puts every long request on one replica; least KV load balances the KV", "[routing]") {
  // Round robin: long requests take turns 0, 2, 4, ... of the arrivals, so all go to replica 0.
  const auto rr = by_replica(alternating(2, 1.0, "round_robin"));
  REQUIRE(rr.size() == 2);
  CHECK(rr[0]["requests"] == 400);
  CHECK(rr[1]["requests"] == 400);
  CHECK(input_of(rr, 0) == 400 * kLongInput);
  CHECK(input_of(rr, 1) == 400 * kShortInput);
  CHECK(kv_of(rr, 1) < 0.05 * kv_of(rr, 0));

  // Least KV load: a long request lands where the other long one is not, so each replica holds half of them.
  const auto kv = by_replica(alternating(2, 1.0, "least_kv_load"));
  const double total = 400.0 * (kLongInput + kShortInput);
  CHECK(input_of(kv, 0) == Approx(total / 2).epsilon(0.02));
  CHECK(input_of(kv, 1) == Approx(total / 2).epsilon(0.02));
  CHECK(kv_of(kv, 0) == Approx(kv_of(kv, 1)).epsilon(0.1));
  CHECK(kv_of(kv, 0) == Approx(kv_of(rr, 0) / 2).epsilon(0.15));  // the same KV, spread over both
}

TEST_CASE("power of two spreads the long requests that round robin piles up, with seeded draws", "[routing]") {
  // Four replicas: round robin sends every long request to replicas 0 and 2.
  const auto rr = by_replica(alternating(4, 2.0, "round_robin"));
  CHECK(input_of(rr, 1) == 200 * kShortInput);
  CHECK(input_of(rr, 3) == 200 * kShortInput);

  auto j = alternating(4, 2.0, "power_of_two");
  const auto p2 = by_replica(j);
  const double mean_input = 400.0 * (kLongInput + kShortInput) / 4;
  for (std::size_t r = 0; r < 4; ++r) {
    INFO("replica " << r);
    CHECK(input_of(p2, r) == Approx(mean_input).epsilon(0.25));  // round robin: off by ~100%
    CHECK(p2[r]["requests"].get<double>() == Approx(200).epsilon(0.15));
  }
  // The draws come from the scenario's seed: the same seed places alike, another seed differently.
  CHECK(by_replica(j) == p2);
  j["seed"] = 8;
  CHECK(by_replica(j) != p2);
}
