// Arrival processes and length distributions: moments of what is drawn against the spec.
#include <catch2/catch.hpp>

#include <cmath>

#include "fleetcast/simulator/request_generator.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

specs::RequestClass workload(specs::ArrivalKind kind, double rate, double cv) {
  specs::RequestClass w;
  w.arrival.kind = kind;
  w.arrival.rate_per_s = rate;
  w.arrival.cv = cv;
  w.input_tokens.kind = specs::LengthKind::fixed;
  w.input_tokens.value = 10;
  w.output_tokens = w.input_tokens;
  return w;
}

// Mean and coefficient of variation of the inter-arrival times.
std::pair<double, double> gaps(const std::vector<simulator::Request>& r) {
  double sum = 0.0, sum2 = 0.0, prev = 0.0;
  for (const auto& x : r) {
    const double g = x.arrival_s - prev;
    prev = x.arrival_s;
    sum += g;
    sum2 += g * g;
  }
  const double n = static_cast<double>(r.size());
  const double mean = sum / n;
  return {mean, std::sqrt(sum2 / n - mean * mean) / mean};
}

}  // namespace

TEST_CASE("Poisson arrivals have the rate and a coefficient of variation of 1", "[workload]") {
  const auto r =
      simulator::generate_class_requests(workload(specs::ArrivalKind::poisson, 4.0, 1.0), 0, 200000, 4.0, 1, 1000);
  const auto [mean, cv] = gaps(r);
  CHECK(mean == Approx(0.25).epsilon(0.01));
  CHECK(cv == Approx(1.0).epsilon(0.02));
}

TEST_CASE("gamma arrivals keep the rate and take the burstiness asked for", "[workload]") {
  for (double want_cv : {0.5, 3.0}) {
    const auto r =
        simulator::generate_class_requests(workload(specs::ArrivalKind::gamma, 2.0, want_cv), 0, 200000, 2.0, 1, 1000);
    const auto [mean, cv] = gaps(r);
    CHECK(mean == Approx(0.5).epsilon(0.02));
    CHECK(cv == Approx(want_cv).epsilon(0.03));
  }
}

TEST_CASE("a rate profile shapes the arrivals bin by bin and keeps the mean rate", "[workload][rate_profile]") {
  // Period 100 s, bins 3:1:0:4 (x1.5, x0.5, x0, x2 the mean of 2 requests/s), starting in the third bin.
  auto c = workload(specs::ArrivalKind::poisson, 2.0, 1.0);
  c.arrival.rate_profile.period_s = 100.0;
  c.arrival.rate_profile.multipliers = {3.0, 1.0, 0.0, 4.0};
  c.arrival.rate_profile.start_s = 50.0;
  const int n = 40000;
  const auto r = simulator::generate_class_requests(c, 0, n, 2.0, 3, 1000);
  std::vector<double> in_bin(4, 0.0);
  for (const auto& x : r) in_bin[static_cast<std::size_t>(std::fmod(50.0 + x.arrival_s, 100.0) / 25.0)] += 1.0;
  // Shares 3/8, 1/8, 0, 4/8; binomial sd at n = 40,000 is at most 0.0025: 0.01 is four of them.
  CHECK(in_bin[0] / n == Approx(3.0 / 8.0).margin(0.01));
  CHECK(in_bin[1] / n == Approx(1.0 / 8.0).margin(0.01));
  CHECK(in_bin[2] == 0.0);
  CHECK(in_bin[3] / n == Approx(4.0 / 8.0).margin(0.01));
  // The long-run mean: n requests over n / 2 s of operational time, i.e. ~200 periods of real time.
  CHECK(r.back().arrival_s == Approx(n / 2.0).epsilon(0.02));
  // Within a bin the arrivals stay Poisson: gaps inside the x2 bin have mean 1 / 4 s.
  double sum = 0.0, count = 0.0;
  for (std::size_t i = 1; i < r.size(); ++i) {
    const double a = std::fmod(50.0 + r[i - 1].arrival_s, 100.0), b = std::fmod(50.0 + r[i].arrival_s, 100.0);
    if (a >= 75.0 && b >= 75.0 && b > a) {
      sum += b - a;
      count += 1.0;
    }
  }
  CHECK(sum / count == Approx(0.25).epsilon(0.03));
}

TEST_CASE("length distributions draw what they say", "[workload]") {
  auto w = workload(specs::ArrivalKind::poisson, 1.0, 1.0);
  w.input_tokens = {};
  w.input_tokens.kind = specs::LengthKind::uniform;
  w.input_tokens.min = 10;
  w.input_tokens.max = 20;
  w.output_tokens = {};
  w.output_tokens.kind = specs::LengthKind::lognormal;
  w.output_tokens.median = 200;
  w.output_tokens.sigma = 0.5;
  w.output_tokens.min = 1;
  w.output_tokens.max = 100000;
  const auto r = simulator::generate_class_requests(w, 0, 100000, 1.0, 3, 1000000);
  double in_sum = 0.0;
  int in_min = 1 << 30, in_max = 0, below_median = 0;
  for (const auto& x : r) {
    in_sum += x.input_tokens;
    in_min = std::min(in_min, x.input_tokens);
    in_max = std::max(in_max, x.input_tokens);
    below_median += x.output_tokens < 200 ? 1 : 0;
  }
  CHECK(in_min == 10);
  CHECK(in_max == 20);
  CHECK(in_sum / r.size() == Approx(15.0).epsilon(0.01));
  CHECK(below_median / static_cast<double>(r.size()) == Approx(0.5).epsilon(0.02));

  w.input_tokens = {};
  w.input_tokens.kind = specs::LengthKind::empirical;
  w.input_tokens.values = {5, 7, 7, 100};
  const auto e = simulator::generate_class_requests(w, 0, 40000, 1.0, 3, 1000000);
  int sevens = 0, outside = 0;
  for (const auto& x : e) {
    outside += (x.input_tokens == 5 || x.input_tokens == 7 || x.input_tokens == 100) ? 0 : 1;
    sevens += x.input_tokens == 7 ? 1 : 0;
  }
  CHECK(outside == 0);
  CHECK(sevens / 40000.0 == Approx(0.5).epsilon(0.03));
}

TEST_CASE("a mix: open-loop classes merged by time from their own streams, closed-loop classes after", "[workload]") {
  specs::WorkloadSpec w;
  w.classes = {workload(specs::ArrivalKind::poisson, 3.0, 1.0), workload(specs::ArrivalKind::closed_loop, 0.0, 1.0),
               workload(specs::ArrivalKind::gamma, 1.0, 2.0)};
  w.classes[2].input_tokens.value = 99;
  const auto r = simulator::generate_requests(w, {3000, 50, 1000}, {3.0, 0.0, 1.0}, 5, 1000);
  REQUIRE(r.size() == 4050);
  int counts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < r.size(); ++i) {
    CHECK(r[i].id == static_cast<std::int64_t>(i));
    ++counts[r[i].class_index];
    if (i < 4000) {
      CHECK(r[i].class_index != 1);
      if (i > 0) CHECK(r[i].arrival_s >= r[i - 1].arrival_s);
      CHECK(r[i].input_tokens == (r[i].class_index == 2 ? 99 : 10));
    } else {
      CHECK(r[i].class_index == 1);
      CHECK(r[i].arrival_s < 0.0);  // set when its client sends it
    }
  }
  CHECK(counts[0] == 3000);
  CHECK(counts[1] == 50);
  CHECK(counts[2] == 1000);

  // Each class draws from its own streams: class 0 alone arrives exactly as it does in the mix.
  const auto alone = simulator::generate_class_requests(w.classes[0], 0, 3000, 3.0, 5, 1000);
  std::size_t k = 0;
  for (const auto& x : r) {
    if (x.class_index != 0) continue;
    CHECK(x.arrival_s == alone[k].arrival_s);
    ++k;
  }
  CHECK(k == alone.size());
}

TEST_CASE("closed loop, spread start: client i's first answer is (i + 1) / C of its length, later ones whole",
          "[workload]") {
  specs::RequestClass c = workload(specs::ArrivalKind::closed_loop, 0.0, 1.0);
  c.arrival.clients = 4;
  c.output_tokens.value = 10;
  c.arrival.start = specs::ArrivalStart::spread;
  const auto r = simulator::generate_class_requests(c, 0, 12, 0.0, 5, 1000);
  REQUIRE(r.size() == 12);
  // round(10 x 1/4) = round(2.5) = 3, round(10 x 2/4) = 5, round(10 x 3/4) = round(7.5) = 8, 10: the clients
  // finish their first requests at a quarter, half, three quarters and the whole of one cycle.
  const int first[4] = {3, 5, 8, 10};
  for (std::size_t i = 0; i < r.size(); ++i) {
    INFO("request " << i);
    CHECK(r[i].output_tokens == (i < 4 ? first[i] : 10));
    CHECK(r[i].input_tokens == 10);  // prompts are not shortened
  }
  // An answer is at least one token: 1 token over 3 clients gives 1, 1, 1.
  c.arrival.clients = 3;
  c.output_tokens.value = 1;
  for (const auto& x : simulator::generate_class_requests(c, 0, 6, 0.0, 5, 1000)) CHECK(x.output_tokens == 1);
  // Together (the default) leaves every drawn length as it is.
  c.arrival.start = specs::ArrivalStart::together;
  c.arrival.clients = 4;
  c.output_tokens.value = 10;
  for (const auto& x : simulator::generate_class_requests(c, 0, 12, 0.0, 5, 1000)) CHECK(x.output_tokens == 10);
}
