// The periodic rate shape of open-loop arrivals (rate_profile.hpp): its time rescaling, hand-computed, and its
// spec rules and round trip.

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/rate_profile.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;
using Catch::Detail::Approx;

namespace {

// 100 s period, two bins: 3x then 1x (normalised: 1.5x and 0.5x the mean rate).
RateProfileSpec three_to_one(double start_s = 0.0) {
  RateProfileSpec p;
  p.period_s = 100.0;
  p.multipliers = {3.0, 1.0};
  p.start_s = start_s;
  return p;
}

json arrival_with_profile(const json& profile) {
  json w = workload_json();
  w["arrival"]["rate_profile"] = profile;
  return w;
}

}  // namespace

TEST_CASE("a rate profile's operational time, by hand", "[specs][workload][rate_profile]") {
  const RateProfileSpec p = three_to_one();
  // First bin: 1.5 operational seconds per real second; second bin: 0.5.
  CHECK(operational_time_s(p, 10.0) == Approx(15.0));
  CHECK(operational_time_s(p, 50.0) == Approx(75.0));
  CHECK(operational_time_s(p, 70.0) == Approx(85.0));
  CHECK(operational_time_s(p, 100.0) == Approx(100.0));  // a whole period is a period: the mean rate is kept
  CHECK(operational_time_s(p, 250.0) == Approx(275.0));
  // Starting in the slow half (start 60 s): 40 s at 0.5, then the fast half.
  const RateProfileSpec late = three_to_one(60.0);
  CHECK(operational_time_s(late, 40.0) == Approx(20.0));
  CHECK(operational_time_s(late, 50.0) == Approx(35.0));
  CHECK(operational_time_s(late, 100.0) == Approx(100.0));
  // The inverse, everywhere.
  for (double t : {0.0, 3.0, 49.9, 50.0, 77.0, 100.0, 123.4, 1999.0}) {
    CHECK(real_time_s(p, operational_time_s(p, t)) == Approx(t).margin(1e-9));
    CHECK(real_time_s(late, operational_time_s(late, t)) == Approx(t).margin(1e-9));
  }
  // No profile: the identity.
  CHECK(operational_time_s(RateProfileSpec{}, 12.5) == 12.5);
  // A bin at zero rate holds no arrival: operational time jumps over it.
  RateProfileSpec night;
  night.period_s = 24.0;
  night.multipliers = {0.0, 1.0, 1.0, 1.0};  // mean 0.75: 6 s idle, then 18 s at 4/3
  CHECK(real_time_s(night, 0.0) == Approx(6.0));
  CHECK(real_time_s(night, 8.0) == Approx(12.0));
  CHECK(real_time_s(night, 24.0) == Approx(30.0));  // the next period's idle bin skipped too
}

TEST_CASE("rate profile spec rules and round trip", "[specs][workload][rate_profile]") {
  const json good = {{"period_s", 86400}, {"multipliers", {0.5, 1.0, 1.5}}, {"start_s", 32400}};
  const WorkloadSpec w = parse_workload(arrival_with_profile(good), "w.json");
  const RateProfileSpec& p = w.classes.at(0).arrival.rate_profile;
  CHECK(p.period_s == 86400.0);
  CHECK(p.multipliers == std::vector<double>{0.5, 1.0, 1.5});
  CHECK(p.start_s == 32400.0);
  CHECK(parse_workload(to_json(w), "echo") == w);

  CHECK_INPUT_ERROR(parse_workload(arrival_with_profile({{"period_s", 0}, {"multipliers", {1.0}}}), "w.json"),
                    "arrival.rate_profile.period_s", "0", "> 0");
  CHECK_INPUT_ERROR(parse_workload(arrival_with_profile({{"period_s", 10}, {"multipliers", {1.0, -1.0}}}), "w.json"),
                    "arrival.rate_profile.multipliers[1]", "-1", "");
  CHECK_INPUT_ERROR(parse_workload(arrival_with_profile({{"period_s", 10}, {"multipliers", {0.0, 0.0}}}), "w.json"),
                    "arrival.rate_profile.multipliers", "", "above 0");
  CHECK_INPUT_ERROR(
      parse_workload(arrival_with_profile({{"period_s", 10}, {"multipliers", {1.0}}, {"start_s", 10}}), "w.json"),
      "arrival.rate_profile.start_s", "10", "[0, period_s)");
  json closed = workload_json();
  closed["arrival"] = {{"kind", "closed_loop"}, {"clients", 4}, {"rate_profile", good}};
  CHECK_INPUT_ERROR(parse_workload(closed, "w.json"), "arrival.rate_profile", "", "");
}
