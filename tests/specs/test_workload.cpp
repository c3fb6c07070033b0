// parse_workload / to_json(WorkloadSpec) and LengthDistribution::mean.

#include <cmath>

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

json with_input(const json& input) {
  json w = workload_json();
  w["input_tokens"] = input;
  return w;
}

json with_arrival(const json& arrival) {
  json w = workload_json();
  w["arrival"] = arrival;
  return w;
}

}  // namespace

TEST_CASE("LengthDistribution::mean for each kind", "[specs][workload]") {
  LengthDistribution fixed;
  fixed.kind = LengthKind::fixed;
  fixed.value = 128;
  CHECK(fixed.mean() == 128.0);

  LengthDistribution uniform;
  uniform.kind = LengthKind::uniform;
  uniform.min = 10;
  uniform.max = 21;
  CHECK(uniform.mean() == 15.5);

  LengthDistribution lognormal;
  lognormal.kind = LengthKind::lognormal;
  lognormal.median = 1000.0;
  lognormal.sigma = 0.5;
  CHECK(lognormal.mean() == Approx(1133.1484530668263).epsilon(1e-12));  // 1000 * e^0.125
  lognormal.sigma = 0.0;
  CHECK(lognormal.mean() == Approx(1000.0));

  LengthDistribution empirical;
  empirical.kind = LengthKind::empirical;
  empirical.values = {1, 2, 6};
  CHECK(empirical.mean() == 3.0);
}

TEST_CASE("workload parses each arrival and length kind and round-trips", "[specs][workload][roundtrip]") {
  const std::vector<json> arrivals = {
      {{"kind", "poisson"}, {"rate_per_s", 4}},
      {{"kind", "poisson"}, {"load", 0.75}},
      {{"kind", "gamma"}, {"rate_per_s", 2.5}, {"cv", 3}},
      {{"kind", "gamma"}, {"load", 10}, {"cv", 0.5}},
      {{"kind", "closed_loop"}, {"clients", 32}, {"think_time_s", 1.5}},
      {{"kind", "closed_loop"}, {"clients", 1}},
      {{"kind", "closed_loop"}, {"clients", 6}, {"start", "spread"}},
  };
  const std::vector<json> lengths = {
      {{"kind", "fixed"}, {"value", 1}},
      {{"kind", "uniform"}, {"min", 5}, {"max", 5}},
      {{"kind", "lognormal"}, {"median", 800}, {"sigma", 1.2}},
      {{"kind", "lognormal"}, {"median", 800.5}, {"sigma", 0}, {"min", 10}, {"max", 9000}},
      {{"kind", "empirical"}, {"values", {3, 1, 4, 1, 5}}},
  };
  for (const json& a : arrivals) {
    for (const json& l : lengths) {
      json j = workload_json();
      j["arrival"] = a;
      j["input_tokens"] = l;
      j["output_tokens"] = l;
      const WorkloadSpec w = parse_workload(j, "w.json");
      const WorkloadSpec back = parse_workload(to_json(w), "echo");
      INFO(j.dump());
      CHECK(back == w);
      CHECK(to_json(back) == to_json(w));
    }
  }
}

TEST_CASE("workload values and defaults", "[specs][workload]") {
  const WorkloadSpec w = parse_workload(workload_json(), "w.json");
  CHECK(w.name == "chat");
  REQUIRE(w.classes.size() == 1);  // the single-class form: one class named after the workload, no SLO
  CHECK(w.classes[0].name == "chat");
  CHECK_FALSE(w.classes[0].slo.any());
  CHECK(to_json(w) == workload_json());  // echoed as written
  CHECK(w.classes[0].arrival.kind == ArrivalKind::poisson);
  CHECK(w.classes[0].arrival.rate_per_s == 12.5);
  CHECK(w.classes[0].arrival.load == 0.0);
  CHECK(w.classes[0].input_tokens.kind == LengthKind::uniform);
  CHECK(w.classes[0].input_tokens.min == 100);
  CHECK(w.classes[0].input_tokens.max == 3000);
  CHECK(w.classes[0].output_tokens.value == 256);

  const WorkloadSpec closed = parse_workload(with_arrival({{"kind", "closed_loop"}, {"clients", 8}}), "w.json");
  CHECK(closed.classes[0].arrival.clients == 8);
  CHECK(closed.classes[0].arrival.think_time_s == 0.0);
  CHECK(closed.classes[0].arrival.start == ArrivalStart::together);  // the default: every client at time 0
  CHECK_FALSE(to_json(closed)["arrival"].contains("start"));         // so files without it echo unchanged
  const WorkloadSpec spread =
      parse_workload(with_arrival({{"kind", "closed_loop"}, {"clients", 8}, {"start", "spread"}}), "w.json");
  CHECK(spread.classes[0].arrival.start == ArrivalStart::spread);
  CHECK(to_json(spread)["arrival"]["start"] == "spread");

  const WorkloadSpec gamma = parse_workload(with_arrival({{"kind", "gamma"}, {"load", 1}, {"cv", 2}}), "w.json");
  CHECK(gamma.classes[0].arrival.load == 1.0);  // an int for a double field
  CHECK(gamma.classes[0].arrival.cv == 2.0);

  const WorkloadSpec logn =
      parse_workload(with_input({{"kind", "lognormal"}, {"median", 1000}, {"sigma", 0.5}}), "w.json");
  CHECK(logn.classes[0].input_tokens.min == 1);
  CHECK(logn.classes[0].input_tokens.max == 0);  // the model's context

  json unnamed = workload_json();
  unnamed.erase("name");
  const WorkloadSpec anonymous = parse_workload(unnamed, "w.json");
  CHECK(anonymous.name.empty());
  CHECK(anonymous.classes[0].name == "default");
  CHECK(to_json(anonymous)["arrival"] == unnamed["arrival"]);
}

TEST_CASE("workload errors", "[specs][workload][errors]") {
  SECTION("negative rate") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "poisson"}, {"rate_per_s", -2}}), "s.json", "workload"),
                      "workload.arrival.rate_per_s", "-2", "> 0");
  }
  SECTION("load and rate both given") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "poisson"}, {"rate_per_s", 2}, {"load", 0.5}}), "w.json"),
                      "arrival.load", "0.5", "not both");
  }
  SECTION("neither load nor rate") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "gamma"}, {"cv", 2}}), "w.json"), "arrival.rate_per_s", "",
                      "rate_per_s");
  }
  SECTION("load out of range") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "poisson"}, {"load", 10.5}}), "w.json"), "arrival.load",
                      "10.5", "(0, 10]");
  }
  SECTION("closed loop with a rate") {
    CHECK_INPUT_ERROR(
        parse_workload(with_arrival({{"kind", "closed_loop"}, {"clients", 4}, {"rate_per_s", 3}}), "w.json"),
        "arrival.rate_per_s", "3", "closed_loop");
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "closed_loop"}, {"clients", 0}}), "w.json"),
                      "arrival.clients", "0", ">= 1");
  }
  SECTION("start: a known value, closed loop only") {
    CHECK_INPUT_ERROR(
        parse_workload(with_arrival({{"kind", "closed_loop"}, {"clients", 4}, {"start", "staggered"}}), "w.json"),
        "arrival.start", "\"staggered\"", "together, spread");
    CHECK_INPUT_ERROR(
        parse_workload(with_arrival({{"kind", "poisson"}, {"rate_per_s", 1}, {"start", "spread"}}), "w.json"),
        "arrival.start", "\"spread\"", "only to closed_loop");
  }
  SECTION("cv only for gamma, and > 0") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "poisson"}, {"rate_per_s", 1}, {"cv", 2}}), "w.json"),
                      "arrival.cv", "2", "valid keys: kind, rate_per_s, load");
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "gamma"}, {"rate_per_s", 1}, {"cv", 0}}), "w.json"),
                      "arrival.cv", "0", "> 0");
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "gamma"}, {"rate_per_s", 1}}), "w.json"), "arrival.cv", "",
                      "missing");
  }
  SECTION("unknown arrival kind") {
    CHECK_INPUT_ERROR(parse_workload(with_arrival({{"kind", "burst"}}), "w.json"), "arrival.kind", "\"burst\"",
                      "poisson, gamma, closed_loop");
  }
  SECTION("uniform min > max") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "uniform"}, {"min", 20}, {"max", 10}}), "s.json", "workload"),
                      "workload.input_tokens.min", "20", "max (10)");
  }
  SECTION("lognormal sigma < 0 and median <= 0") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "lognormal"}, {"median", 100}, {"sigma", -0.5}}), "w.json"),
                      "input_tokens.sigma", "-0.5", ">= 0");
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "lognormal"}, {"median", 0}, {"sigma", 1}}), "w.json"),
                      "input_tokens.median", "0", "> 0");
  }
  SECTION("empirical lists") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "empirical"}, {"values", json::array()}}), "w.json"),
                      "input_tokens.values", "[]", "empty");
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "empirical"}, {"values", {5, 0}}}), "w.json"),
                      "input_tokens.values[1]", "0", ">= 1");
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "empirical"}, {"values", {5, 2.5}}}), "w.json"),
                      "input_tokens.values[1]", "2.5", "expected an integer");
  }
  SECTION("fixed value: an int, >= 1") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "fixed"}, {"value", 1.5}}), "s.json", "workload"),
                      "workload.input_tokens.value", "1.5", "expected an integer");
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "fixed"}, {"value", 0}}), "w.json"), "input_tokens.value",
                      "0", ">= 1");
  }
  SECTION("keys of another length kind") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "fixed"}, {"value", 10}, {"max", 20}}), "w.json"),
                      "input_tokens.max", "20", "valid keys: kind, value");
  }
  SECTION("unknown length kind") {
    CHECK_INPUT_ERROR(parse_workload(with_input({{"kind", "normal"}}), "w.json"), "input_tokens.kind", "\"normal\"",
                      "fixed, uniform, lognormal, empirical");
  }
}
