// deployment.moe_load: expert traffic distributions and redundant experts, parsed strictly and round-tripped.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("moe_load defaults to balanced and round-trips each distribution", "[specs][moe_load]") {
  CHECK(parse_deployment(deployment_json(), "d.json").moe_load.distribution == ExpertDistribution::balanced);
  for (const json& load : {json{{"distribution", "power_law"}, {"alpha", 1.2}, {"redundant_experts", 8}},
                           json{{"distribution", "shares"}, {"shares", {3, 1, 0, 2}}, {"redundant_experts", 0}}}) {
    json j = deployment_json();
    j["moe_load"] = load;
    const DeploymentSpec d = parse_deployment(j, "d.json");
    CHECK(parse_deployment(to_json(d), "echo") == d);
    CHECK(to_json(d)["moe_load"] == load);
  }
}

TEST_CASE("bad moe_load values name the field", "[specs][moe_load]") {
  json j = deployment_json();
  j["moe_load"] = {{"distribution", "zipf"}};
  CHECK_THROWS_WITH(parse_deployment(j, "d.json"), Catch::Contains("moe_load.distribution"));
  j["moe_load"] = {{"distribution", "power_law"}};
  CHECK_THROWS_WITH(parse_deployment(j, "d.json"), Catch::Contains("moe_load.alpha"));
  j["moe_load"] = {{"distribution", "shares"}, {"shares", {0, 0}}};
  CHECK_THROWS_WITH(parse_deployment(j, "d.json"), Catch::Contains("moe_load.shares"));
  j["moe_load"] = {{"redundant_experts", -1}};
  CHECK_THROWS_WITH(parse_deployment(j, "d.json"), Catch::Contains("moe_load.redundant_experts"));
}

TEST_CASE("a scenario checks shares against the model's experts and slots against ep", "[specs][moe_load]") {
  json s = json::parse(R"({"name": "t", "model": "deepseek-v3",
    "deployment": {"hardware": "h200", "nodes": 1, "replica": {"tp": 8, "pp": 1, "ep": 8},
                   "moe_load": {"distribution": "shares", "shares": [1, 2, 3]}},
    "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1},
                 "input_tokens": {"kind": "fixed", "value": 10}, "output_tokens": {"kind": "fixed", "value": 10}},
    "num_requests": 10})");
  CHECK_THROWS_WITH(parse_scenario(s, "s.json"), Catch::Contains("deployment.moe_load.shares"));
  s["deployment"]["moe_load"] = {{"redundant_experts", 4}};  // 256 + 4 slots over 8 ranks
  CHECK_THROWS_WITH(parse_scenario(s, "s.json"), Catch::Contains("deployment.moe_load.redundant_experts"));
  s["deployment"]["moe_load"] = {{"redundant_experts", 32}};
  CHECK(parse_scenario(s, "s.json").deployment.moe_load.redundant_experts == 32);
}
