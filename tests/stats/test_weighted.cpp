// stats::WeightedSamples: hand-worked inverted-CDF percentiles, and numpy's method="inverted_cdf" (numpy 1.24) for
// unit weights, where the two must agree.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

#include "fleetcast/stats/weighted.hpp"

using fleetcast::stats::Summary;
using fleetcast::stats::WeightedSamples;

TEST_CASE("unit weights give numpy's inverted_cdf percentiles", "[stats]") {
  // {1, 2, 3, 4}: p50 needs cumulative weight >= 2 -> 2; p90 >= 3.6 -> 4. numpy inverted_cdf: 2, 4, 4, 4.
  WeightedSamples w;
  for (double x : {3.0, 1.0, 4.0, 2.0}) w.add(x, 1.0);
  Summary s = w.summary();
  CHECK(s.count == 4);
  CHECK(s.mean == 2.5);
  CHECK(s.p50 == 2.0);
  CHECK(s.p90 == 4.0);
  CHECK(s.p95 == 4.0);
  CHECK(s.p99 == 4.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 4.0);

  // 1..20: numpy inverted_cdf p50 10, p90 18, p95 19, p99 20.
  WeightedSamples twenty;
  for (int i = 20; i >= 1; --i) twenty.add(i, 1.0);
  Summary t = twenty.summary();
  CHECK(t.p50 == 10.0);
  CHECK(t.p90 == 18.0);
  CHECK(t.p95 == 19.0);
  CHECK(t.p99 == 20.0);
  CHECK(t.mean == 10.5);
}

TEST_CASE("weights act as repeat counts", "[stats]") {
  // Gaps of 10 ms seen by 5 sequences, 20 ms by 4, 30 ms by 1: total weight 10.
  // Cumulative 5, 9, 10. p50 needs 5 -> 10; p90 needs 9 -> 20; p95 needs 9.5 -> 30; p99 -> 30.
  // Mean (5 * 10 + 4 * 20 + 1 * 30) / 10 = 16.
  WeightedSamples w;
  w.add(20, 4);
  w.add(30, 1);
  w.add(10, 5);
  Summary s = w.summary();
  CHECK(s.count == 3);
  CHECK(w.total_weight() == 10.0);
  CHECK(w.distinct() == 3);
  CHECK(s.mean == 16.0);
  CHECK(s.p50 == 10.0);
  CHECK(s.p90 == 20.0);
  CHECK(s.p95 == 30.0);
  CHECK(s.p99 == 30.0);
  CHECK(s.min == 10.0);
  CHECK(s.max == 30.0);
}

TEST_CASE("equal values merge whether adjacent or not", "[stats]") {
  WeightedSamples w;
  w.add(5, 1);
  w.add(5, 1);
  w.add(5, 1);  // adjacent: one stored entry of weight 3
  w.add(7, 2);
  w.add(5, 1);  // not adjacent: merged when summarised
  CHECK(w.distinct() == 2);
  CHECK(w.total_weight() == 6.0);
  Summary s = w.summary();
  CHECK(s.count == 5);  // add() calls, not distinct values or weight
  // Weight 4 at 5, 2 at 7: p50 needs 3 -> 5; p90 needs 5.4 -> 7; mean (20 + 14) / 6.
  CHECK(s.p50 == 5.0);
  CHECK(s.p90 == 7.0);
  CHECK(s.mean == Approx(34.0 / 6.0).epsilon(1e-15));
}

TEST_CASE("fractional weights reach a threshold despite rounding", "[stats]") {
  // Fourteen values of weight 0.1: half the total is reached at the 7th value. Summed naively the 7th cumulative
  // weight is 0.7 and half the total 0.7000000000000001: compared exactly, that would wrongly give the 8th.
  WeightedSamples w;
  for (int i = 1; i <= 14; ++i) w.add(i, 0.1);
  Summary s = w.summary();
  CHECK(s.p50 == 7.0);
  CHECK(s.mean == Approx(7.5).epsilon(1e-15));
  // 0.9 * 14 = 12.6 values -> the 13th; 0.95 * 14 = 13.3 -> 14th.
  CHECK(s.p90 == 13.0);
  CHECK(s.p95 == 14.0);

  // Ten values of weight 0.3: p90 is the 9th. Even summed exactly, nine 0.3s round to 2.6999999999999997 while
  // 0.9 of the total rounds to 2.7: only the slack keeps p90 from jumping to the 10th.
  WeightedSamples ten;
  for (int i = 1; i <= 10; ++i) ten.add(i, 0.3);
  CHECK(ten.summary().p90 == 9.0);
  CHECK(ten.summary().p50 == 5.0);
}

TEST_CASE("zero weights are ignored and empty samples summarise to NaN", "[stats]") {
  WeightedSamples w;
  CHECK(w.summary().count == 0);
  CHECK(std::isnan(w.summary().p50));
  CHECK(w.distinct() == 0);
  CHECK(w.total_weight() == 0.0);

  w.add(100, 0);  // no observation: not a max, not counted
  CHECK(w.summary().count == 0);
  CHECK(std::isnan(w.summary().max));
  w.add(1, 2);
  Summary s = w.summary();
  CHECK(s.count == 1);
  CHECK(s.max == 1.0);
  CHECK(s.p99 == 1.0);
  CHECK(w.distinct() == 1);
}

TEST_CASE("bad samples are rejected", "[stats]") {
  WeightedSamples w;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(w.add(nan, 1), std::invalid_argument);
  CHECK_THROWS_AS(w.add(inf, 1), std::invalid_argument);
  CHECK_THROWS_WITH(w.add(1, -1), Catch::Contains("weight"));
  CHECK_THROWS_AS(w.add(1, nan), std::invalid_argument);
  CHECK_THROWS_AS(w.add(1, inf), std::invalid_argument);
  CHECK(w.summary().count == 0);  // nothing half-added
}

TEST_CASE("a million adds stay cheap and exact", "[stats]") {
  // A long run's ITL: 1e6 steps cycling through 1000 gap values (1..1000 us), each seen by 1..4 sequences.
  // Every value gets the same weights over the cycle, so the distribution is uniform over 1..1000:
  // p50 is the 500th value, p90 the 900th, p99 the 990th, and the mean 500.5.
  WeightedSamples w;
  constexpr int kSteps = 1'000'000;
  for (int i = 0; i < kSteps; ++i) w.add((i % 1000 + 1) * 1e-6, 1 + (i / 1000) % 4);
  CHECK(w.distinct() == 1000);
  CHECK(w.total_weight() == 2'500'000.0);
  Summary s = w.summary();
  CHECK(s.count == static_cast<std::size_t>(kSteps));
  CHECK(s.p50 == Approx(500e-6).epsilon(1e-12));
  CHECK(s.p90 == Approx(900e-6).epsilon(1e-12));
  CHECK(s.p99 == Approx(990e-6).epsilon(1e-12));
  CHECK(s.mean == Approx(500.5e-6).epsilon(1e-12));
  CHECK(s.min == 1e-6);
  CHECK(s.max == 1000e-6);
}
