// Prefix caching and prefix-aware routing: the router's rule on crafted placements, and whole simulations in
// which cached prefill tokens save exactly their time and prefix-aware routing keeps each group's prefix cached.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/router_policy.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Placement;
using Ids = std::vector<std::uint64_t>;

TEST_CASE("prefix aware sends a prompt where its prefix was sent, a new prefix to the smallest record",
          "[router][prefix]") {
  Placement p(specs::RouterPolicy::prefix_aware, 3, 1, 100.0);
  p.track_prefixes(4, 100);
  CHECK(p.place(0.0, Ids{1, 2, 3}, 12) == 0);  // nothing recorded: all alike, the lowest index
  CHECK(p.place(0.0, Ids{5, 6, 7}, 12) == 1);  // no match: the smallest record
  CHECK(p.place(0.0, Ids{1, 2, 9}, 12) == 0);  // 8 of 12 tokens matched on 0, busier as it is
  CHECK(p.place(0.0, Ids{5, 6}, 9) == 1);
  CHECK(p.outstanding(0) == 2);
  // A match of 4 of 16 tokens (0.25) is not above sgl-router's threshold of 0.3: the smallest record instead.
  CHECK(p.place(0.0, Ids{1, 20, 21, 22}, 16) == 2);
  // Equal matches: the fewest outstanding.
  p.place(0.0, Ids{30}, 4);  // goes to 1 (smallest record: 1 has 3 blocks, 0 has 4, 2 has 4)
  // Replicas 0 and 2 were both sent block 1: the one with fewer outstanding (2 has one, 0 two).
  CHECK(p.place(0.0, Ids{1, 40}, 8) == 2);
}

TEST_CASE("prefix aware falls back to least outstanding when the load is imbalanced", "[router][prefix]") {
  Placement p(specs::RouterPolicy::prefix_aware, 2, 1, 100.0);
  p.track_prefixes(4, 100);
  REQUIRE(p.place(0.0, Ids{1, 2}, 8) == 0);
  // Replica 0 gets 64 more outstanding than replica 1 (0): still balanced by sgl-router's rule (64 is not > 64).
  for (int i = 0; i < 63; ++i) REQUIRE(p.place(0.0, Ids{1, 2}, 8) == 0);
  CHECK(p.outstanding(0) == 64);
  CHECK(p.place(0.0, Ids{1, 2}, 8) == 0);
  // 65 > 64 and 65 > 1.5 x 0: imbalanced, so the prefix is ignored.
  CHECK(p.place(0.0, Ids{1, 2}, 8) == 1);
}

TEST_CASE("the router's record of a replica forgets a chain's tail before its head", "[router][prefix]") {
  simulator::PrefixRecord record(3);
  record.record(Ids{1, 2, 3});
  record.record(Ids{4, 5});
  CHECK(record.size() == 3);
  CHECK(record.match(Ids{1, 2, 3}) == 1);  // 3 and 2 were forgotten, 1 kept
  CHECK(record.match(Ids{4, 5}) == 2);
}

namespace {

// One class whose every prompt starts with one of `groups` prefixes of 2048 tokens (4 blocks of 512), served
// by one closed-loop client, so that each request arrives after the last one finished.
nlohmann::json prefix_scenario(int replicas, int groups, int requests, int input_tokens, const char* router) {
  auto j = test::small_scenario();
  j["deployment"]["nodes"] = replicas;  // one GPU each
  j["deployment"]["router"] = router;
  j["deployment"]["scheduler"]["max_num_batched_tokens"] = 8192;  // one prefill step per prompt
  j["num_requests"] = requests;
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  j["workload"] = {{"name", "shared"},
                   {"arrival", {{"kind", "closed_loop"}, {"clients", 1}}},
                   {"input_tokens", {{"kind", "fixed"}, {"value", input_tokens}}},
                   {"output_tokens", {{"kind", "fixed"}, {"value", 10}}},
                   {"prefix", {{"groups", groups}, {"tokens", 2048}}}};
  return j;
}

double ms(const nlohmann::json& summary) { return summary["mean"].get<double>(); }

}  // namespace

TEST_CASE("a cached prefix saves exactly its prefill time: the second request prefills only the rest",
          "[serving][prefix]") {
  const auto s = test::parse(prefix_scenario(1, 1, 2, 3000, "round_robin"));
  const auto report = simulator::simulate_in_child(s);
  const auto& pc = report["metrics"]["prefix_cache"];
  // Request 1 computes and caches its 5 full blocks: 4 of the group's prefix and 1 of its own. Request 2 finds
  // the 4 prefix blocks (2048 tokens) and prefills its other 952 tokens after them.
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  simulator::BatchShape full, rest;
  full.prefill.push_back({3000, 0, true});
  rest.prefill.push_back({3000 - 2048, 2048, true});
  REQUIRE(pc["requests_with_hit"] == 1);
  CHECK(ms(pc["ttft_ms_cache_miss"]) == Approx(1e3 * model.predict(full).total_s).epsilon(1e-9));
  CHECK(ms(pc["ttft_ms_cache_hit"]) == Approx(1e3 * model.predict(rest).total_s).epsilon(1e-9));
  CHECK(ms(pc["ttft_ms_cache_hit"]) < 0.5 * ms(pc["ttft_ms_cache_miss"]));
  CHECK(pc["prompt_tokens"] == 6000);
  CHECK(pc["hit_tokens"] == 2048);
  CHECK(pc["hit_rate"].get<double>() == Approx(2048.0 / 6000.0).epsilon(1e-12));
  CHECK(pc["evicted_blocks"] == 0);
  const auto& by_class = report["metrics"]["by_class"]["shared"]["prefix_cache"];
  CHECK(by_class["hit_tokens"] == 2048);
  CHECK(ms(by_class["ttft_ms_cache_hit"]) == ms(pc["ttft_ms_cache_hit"]));

  // With prefix caching off both pay the full prefill.
  auto off = prefix_scenario(1, 1, 2, 3000, "round_robin");
  off["deployment"]["scheduler"]["prefix_caching"] = false;
  const auto report_off = simulator::simulate_in_child(test::parse(off));
  const auto& pc_off = report_off["metrics"]["prefix_cache"];
  CHECK(pc_off["hit_tokens"] == 0);
  CHECK(pc_off["ttft_ms_cache_hit"]["mean"].is_null());
  CHECK(ms(pc_off["ttft_ms_cache_miss"]) == Approx(1e3 * model.predict(full).total_s).epsilon(1e-9));
}

TEST_CASE("prefix aware routing keeps each group on one replica: every request but each group's first hits",
          "[serving][routing][prefix]") {
  // 4 groups over 4 replicas, 200 requests of 2100 tokens: each hit finds the 2048 prefix tokens. Prefix aware
  // sends each group's first request to an empty replica and the rest after it, so only 4 requests miss.
  const int n = 200, groups = 4, input = 2100;
  const auto aware = simulator::simulate_in_child(test::parse(prefix_scenario(4, groups, n, input, "prefix_aware")));
  const auto& pa = aware["metrics"]["prefix_cache"];
  CHECK(pa["requests_with_hit"] == n - groups);
  CHECK(pa["hit_rate"].get<double>() == Approx((n - groups) * 2048.0 / (n * input)).epsilon(1e-12));
  for (const auto& replica : aware["metrics"]["by_replica"]) CHECK(replica["requests"].get<int>() > 0);

  // Round robin spreads each group over every replica, where each (group, replica) pair misses once.
  const auto rr = simulator::simulate_in_child(test::parse(prefix_scenario(4, groups, n, input, "round_robin")));
  const auto& pr = rr["metrics"]["prefix_cache"];
  // A pair fails to occur in 50 uniform draws with probability (3/4)^50 < 1e-6: all 16 miss once.
  CHECK(pr["requests_with_hit"] == n - groups * 4);
  CHECK(pr["hit_rate"].get<double>() < pa["hit_rate"].get<double>());
}
