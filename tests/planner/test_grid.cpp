// Grid sweeps: --set parsing, the Cartesian product's order, and setting fields by path.
#include <catch2/catch.hpp>

#include "fleetcast/planner/grid.hpp"
#include "fleetcast/specs/error.hpp"

using namespace fleetcast;
using nlohmann::json;

TEST_CASE("--set reads numbers, words and JSON lists", "[planner]") {
  const planner::GridAxis a = planner::parse_axis("deployment.replica.tp=1,2,4");
  CHECK(a.path == "deployment.replica.tp");
  CHECK(a.values == std::vector<json>{1, 2, 4});
  // Words need no quotes; a list keeps its commas.
  CHECK(planner::parse_axis("deployment.router=round_robin,least_kv").values ==
        std::vector<json>{"round_robin", "least_kv"});
  CHECK(planner::parse_axis("x.rates=[0.7,0.8],[0.9]").values == std::vector<json>{json{0.7, 0.8}, json{0.9}});
  CHECK(planner::parse_axis("x.on=true,0.5").values == std::vector<json>{true, 0.5});
  CHECK_THROWS_AS(planner::parse_axis("deployment.replica.tp"), InputError);
  CHECK_THROWS_AS(planner::parse_axis("=1,2"), InputError);
  CHECK_THROWS_AS(planner::parse_axis("a=1,,2"), InputError);
}

TEST_CASE("a grid is the Cartesian product, last axis fastest", "[planner]") {
  const auto points = planner::expand_grid({{"a", {1, 2}}, {"b", {"x", "y", "z"}}});
  // 2 x 3 = 6 points: (1,x) (1,y) (1,z) (2,x) (2,y) (2,z).
  REQUIRE(points.size() == 6);
  CHECK(points[0] == json{{"a", 1}, {"b", "x"}});
  CHECK(points[2] == json{{"a", 1}, {"b", "z"}});
  CHECK(points[3] == json{{"a", 2}, {"b", "x"}});
  CHECK(points[5] == json{{"a", 2}, {"b", "z"}});
  CHECK_THROWS_AS(planner::expand_grid({}), InputError);
  CHECK_THROWS_AS(planner::expand_grid({{"a", {1}}, {"a", {2}}}), InputError);
}

TEST_CASE("a sweep file lists axes as {PATH: [values]}", "[planner]") {
  const auto axes =
      planner::parse_axes_json(json::parse(R"({"workload.seed": [1, 2], "deployment.nodes": [1]})"), "s.json");
  REQUIRE(axes.size() == 2);
  CHECK_THROWS_WITH(planner::parse_axes_json(json::parse(R"({"a": 3})"), "s.json"), Catch::Contains("s.json"));
  CHECK_THROWS_AS(planner::parse_axes_json(json::array(), "s.json"), InputError);
}

TEST_CASE("parameters set fields by path; a path through nothing is an error", "[planner]") {
  const json base = json::parse(R"({"deployment": {"replica": {"tp": 1, "dp": 1}}, "seed": 1})");
  const json j = planner::apply_parameters(base, {{"deployment.replica.tp", 4}, {"seed", 9}}, "f");
  CHECK(j["deployment"]["replica"]["tp"] == 4);
  CHECK(j["deployment"]["replica"]["dp"] == 1);
  CHECK(j["seed"] == 9);
  // A new last key is allowed (an optional block); a missing object on the way is a typo.
  CHECK(planner::apply_parameters(base, {{"deployment.speculative", {{"method", "mtp"}}}}, "f")["deployment"].contains(
      "speculative"));
  CHECK_THROWS_WITH(planner::apply_parameters(base, {{"deploymnet.replica.tp", 2}}, "f"),
                    Catch::Contains("deploymnet"));
  CHECK_THROWS_AS(planner::apply_parameters(base, {{"seed.x", 2}}, "f"), InputError);
}
