// stats::summarize and percentile_sorted against numpy: the expected values below were produced by numpy 1.24's
// np.percentile (default method "linear") and are written as hex floats, so "same statistic as vllm bench serve"
// is checked to the last bit, not to a tolerance.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "fleetcast/stats/summary.hpp"

using fleetcast::stats::percentile_sorted;
using fleetcast::stats::Summary;
using fleetcast::stats::summarize;

TEST_CASE("percentiles of {1, 2, 3, 4} match np.percentile bit for bit", "[stats]") {
  // Index h = 3 * q / 100: p50 -> 1.5 -> 2 + 0.5 * 1 = 2.5; p90 -> 2.7 -> 3 + 0.7 = 3.7; p25 -> 0.75 -> 1.75.
  std::vector<double> s = {1, 2, 3, 4};
  CHECK(percentile_sorted(s, 25) == 1.75);
  CHECK(percentile_sorted(s, 50) == 2.5);
  CHECK(percentile_sorted(s, 90) == 0x1.d99999999999ap+1);  // 3.7
  CHECK(percentile_sorted(s, 95) == 0x1.eccccccccccccp+1);  // 3.8499999999999996: numpy's rounding, kept
  CHECK(percentile_sorted(s, 99) == 0x1.fc28f5c28f5c2p+1);  // 3.9699999999999998
  CHECK(percentile_sorted(s, 0) == 1.0);
  CHECK(percentile_sorted(s, 100) == 4.0);
}

TEST_CASE("percentiles of other samples match np.percentile bit for bit", "[stats]") {
  // {15, 20, 35, 40, 50}: h = 4 * q / 100; p90 -> 3.6 -> 40 + 0.6 * 10 = 46; p99 -> 3.96 -> 49.6.
  std::vector<double> b = {15, 20, 35, 40, 50};
  CHECK(percentile_sorted(b, 25) == 20.0);
  CHECK(percentile_sorted(b, 50) == 35.0);
  CHECK(percentile_sorted(b, 90) == 46.0);
  CHECK(percentile_sorted(b, 95) == 48.0);
  CHECK(percentile_sorted(b, 99) == 0x1.8cccccccccccdp+5);  // 49.6

  std::vector<double> c = {0.1, 0.2, 0.3};
  CHECK(percentile_sorted(c, 25) == 0x1.3333333333334p-3);  // 0.15000000000000002
  CHECK(percentile_sorted(c, 50) == 0x1.999999999999ap-3);  // 0.2
  CHECK(percentile_sorted(c, 90) == 0x1.1eb851eb851ecp-2);  // 0.28
  CHECK(percentile_sorted(c, 95) == 0x1.28f5c28f5c28fp-2);  // 0.29
  CHECK(percentile_sorted(c, 99) == 0x1.3126e978d4fdfp-2);  // 0.298

  // Where numpy's b - (b - a) * (1 - t) for t >= 0.5 and the textbook a + (b - a) * t round differently: the
  // textbook form gives 0.7305250000000001, 0.7410650000000001 and 0.7943200000000001 here.
  CHECK(percentile_sorted({0.4802, 0.7437}, 95) == 0x1.76075f6fd21ffp-1);  // 0.730525
  CHECK(percentile_sorted({0.4802, 0.7437}, 99) == 0x1.7b6cdf266ba49p-1);  // 0.741065
  CHECK(percentile_sorted({0.3085, 0.8483}, 90) == 0x1.96b11c6d1e109p-1);  // 0.79432
}

TEST_CASE("summarize sorts its input and fills every field", "[stats]") {
  // Seven TTFTs in seconds, unsorted as requests finish; numpy: mean 0.023671428571428572,
  // p50 0.021, p90 0.03710000000000001, p95 0.04204999999999999, p99 0.046009999999999995.
  Summary s = summarize({0.013, 0.021, 0.0305, 0.047, 0.011, 0.0199, 0.0233});
  CHECK(s.count == 7);
  CHECK(s.mean == Approx(0.023671428571428572).epsilon(1e-15));  // summed in sorted order: equal to rounding
  CHECK(s.p50 == 0x1.5810624dd2f1bp-6);
  CHECK(s.p90 == 0x1.2fec56d5cfaaep-5);
  CHECK(s.p95 == 0x1.58793dd97f62ap-5);
  CHECK(s.p99 == 0x1.78e9f6a93f290p-5);
  CHECK(s.min == 0.011);
  CHECK(s.max == 0.047);

  Summary t = summarize({4, 1, 3, 2});
  CHECK(t.count == 4);
  CHECK(t.mean == 2.5);
  CHECK(t.p50 == 2.5);
  CHECK(t.p90 == 0x1.d99999999999ap+1);
  CHECK(t.min == 1.0);
  CHECK(t.max == 4.0);
}

TEST_CASE("a single value is every statistic", "[stats]") {
  Summary s = summarize({7.5});
  CHECK(s.count == 1);
  CHECK(s.mean == 7.5);
  CHECK(s.p50 == 7.5);
  CHECK(s.p90 == 7.5);
  CHECK(s.p95 == 7.5);
  CHECK(s.p99 == 7.5);
  CHECK(s.min == 7.5);
  CHECK(s.max == 7.5);
  CHECK(percentile_sorted({7.5}, 0) == 7.5);
  CHECK(percentile_sorted({7.5}, 100) == 7.5);
}

TEST_CASE("equal values interpolate to themselves", "[stats]") {
  Summary s = summarize({2, 2, 2, 2, 2});
  CHECK(s.p50 == 2.0);
  CHECK(s.p99 == 2.0);
  CHECK(s.mean == 2.0);
}

TEST_CASE("no values: count 0 and NaN everywhere", "[stats]") {
  Summary s = summarize({});
  CHECK(s.count == 0);
  CHECK(std::isnan(s.mean));
  CHECK(std::isnan(s.p50));
  CHECK(std::isnan(s.p90));
  CHECK(std::isnan(s.p95));
  CHECK(std::isnan(s.p99));
  CHECK(std::isnan(s.min));
  CHECK(std::isnan(s.max));
  CHECK(std::isnan(percentile_sorted({}, 50)));
  CHECK(std::isnan(Summary{}.mean));  // the default is "no value" too
}

TEST_CASE("bad input is rejected", "[stats]") {
  CHECK_THROWS_AS(percentile_sorted({1, 2}, -1), std::invalid_argument);
  CHECK_THROWS_AS(percentile_sorted({1, 2}, 100.5), std::invalid_argument);
  CHECK_THROWS_AS(percentile_sorted({1, 2}, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  CHECK_THROWS_WITH(summarize({1, std::numeric_limits<double>::quiet_NaN()}), Catch::Contains("value [1]"));
  CHECK_THROWS_AS(summarize({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

TEST_CASE("to_json scales every figure but the count and writes NaN as null", "[stats]") {
  // {1, 2, 3, 4} seconds written in milliseconds.
  nlohmann::json j = fleetcast::stats::to_json(summarize({1, 2, 3, 4}), 1000.0);
  CHECK(j.size() == 8);
  CHECK(j.at("count").get<std::size_t>() == 4);
  CHECK(j.at("mean").get<double>() == 2500.0);
  CHECK(j.at("p50").get<double>() == 2500.0);
  CHECK(j.at("p90").get<double>() == Approx(3700.0).epsilon(1e-12));
  CHECK(j.at("p95").get<double>() == Approx(3850.0).epsilon(1e-12));
  CHECK(j.at("p99").get<double>() == Approx(3970.0).epsilon(1e-12));
  CHECK(j.at("min").get<double>() == 1000.0);
  CHECK(j.at("max").get<double>() == 4000.0);

  nlohmann::json unscaled = fleetcast::stats::to_json(summarize({1, 2, 3, 4}));
  CHECK(unscaled.at("max").get<double>() == 4.0);

  nlohmann::json empty = fleetcast::stats::to_json(Summary{}, 1000.0);
  CHECK(empty.at("count").get<std::size_t>() == 0);
  for (const char* key : {"mean", "p50", "p90", "p95", "p99", "min", "max"}) {
    INFO(key);
    CHECK(empty.at(key).is_null());
  }
  CHECK(empty.dump() ==
        R"({"count":0,"max":null,"mean":null,"min":null,"p50":null,"p90":null,"p95":null,"p99":null})");
}
