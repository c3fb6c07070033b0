// stats::time_average: hand-integrated piecewise-constant signals.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "fleetcast/stats/time_average.hpp"

using fleetcast::stats::time_average;

TEST_CASE("each value holds until the next sample", "[stats]") {
  // 2 on [0, 1), 4 on [1, 3), 1 on [3, 6): (2 * 1 + 4 * 2 + 1 * 3) / 6 = 13 / 6.
  CHECK(time_average({0, 1, 3}, {2, 4, 1}, 6) == Approx(13.0 / 6.0).epsilon(1e-15));
  // A plain mean of the samples would say 7 / 3: the time weighting is the point.
  // Ending at the last sample: (2 + 8) / 3.
  CHECK(time_average({0, 1, 3}, {2, 4, 1}, 3) == Approx(10.0 / 3.0).epsilon(1e-15));
  // The span starts at the first sample, not at 0: 1 on [10, 12), 3 on [12, 20): (2 + 24) / 10.
  CHECK(time_average({10, 12}, {1, 3}, 20) == Approx(2.6).epsilon(1e-15));
  // One sample: its value.
  CHECK(time_average({5}, {0.75}, 9) == 0.75);
}

TEST_CASE("samples at or after t_end are cut off", "[stats]") {
  // Up to 2: 2 on [0, 1), 4 on [1, 2): (2 + 4) / 2 = 3; the sample at 3 is past the window.
  CHECK(time_average({0, 1, 3}, {2, 4, 1}, 2) == 3.0);
  // A sample exactly at t_end holds for no time.
  CHECK(time_average({0, 1, 2}, {2, 4, 100}, 2) == 3.0);
}

TEST_CASE("repeated times hold for no time", "[stats]") {
  // Two samples at t = 1: the second replaces the first. 0 on [0, 1), 8 on [1, 2).
  CHECK(time_average({0, 1, 1}, {0, 5, 8}, 2) == 4.0);
}

TEST_CASE("no time, no average", "[stats]") {
  CHECK(std::isnan(time_average({}, {}, 10)));
  CHECK(std::isnan(time_average({4}, {1}, 4)));
}

TEST_CASE("bad series are rejected", "[stats]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(time_average({0, 1}, {1}, 2), Catch::Contains("one value per time"));
  CHECK_THROWS_WITH(time_average({0, 2, 1}, {1, 1, 1}, 3), Catch::Contains("must not decrease"));
  CHECK_THROWS_AS(time_average({1, 2}, {1, 1}, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(time_average({0, 1}, {1, nan}, 2), std::invalid_argument);
  CHECK_THROWS_AS(time_average({0, 1}, {1, 1}, nan), std::invalid_argument);
}
