// cost_model: every expected figure is worked out by hand in the comments, so a failure points at the rule, not at
// a number copied from the code's own output.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "fleetcast/cost_model/cost.hpp"

using fleetcast::cost_model::effective_usd_per_gpu_hour;
using fleetcast::cost_model::RentalPrice;
using fleetcast::cost_model::ServingWork;
using fleetcast::cost_model::token_cost;
using fleetcast::cost_model::TokenCost;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Approx exact(double x) { return Approx(x).epsilon(1e-12).margin(0.0); }

// 16 GPUs for one hour: 57600 GPU-s, of which 9600 prefill, 38400 decode, 9600 idle.
ServingWork one_hour_on_16() {
  return ServingWork{.gpus = 16,
                     .window_s = 3600.0,
                     .input_tokens = 120e6,
                     .output_tokens = 24e6,
                     .prefill_busy_gpu_s = 9600.0,
                     .decode_busy_gpu_s = 38400.0,
                     .idle_gpu_s = 9600.0};
}

}  // namespace

TEST_CASE("effective price: on demand is the list price, reserved takes the discount off", "[cost_model]") {
  CHECK(effective_usd_per_gpu_hour({3.75}) == 3.75);
  // On demand ignores a (valid) discount: the flag, not the number, says which contract applies.
  CHECK(effective_usd_per_gpu_hour({3.75, false, 0.3}) == 3.75);
  // $3.00 reserved at 20% off: 3.00 * 0.8 = $2.40.
  CHECK(effective_usd_per_gpu_hour({3.0, true, 0.2}) == exact(2.40));
  // $8.00 at 50% off: $4.00; at 0% off: the list price.
  CHECK(effective_usd_per_gpu_hour({8.0, true, 0.5}) == 4.0);
  CHECK(effective_usd_per_gpu_hour({8.0, true, 0.0}) == 8.0);
}

TEST_CASE("on demand: 16 GPUs at $3.75 for an hour", "[cost_model]") {
  TokenCost c = token_cost({3.75}, one_hour_on_16());
  // 16 * 3.75 = $60/hour; the window is one hour, so C = $60.
  CHECK(c.usd_per_hour == exact(60.0));
  // Busy 9600 + 38400 = 48000 GPU-s: prefill 20% -> $12, decode 80% -> $48.
  // $12 / 120 M input = $0.10/M; $48 / 24 M output = $2.00/M.
  CHECK(c.usd_per_m_input == exact(0.10));
  CHECK(c.usd_per_m_output == exact(2.00));
  // $60 / (120 + 24) M tokens = $0.41666.../M blended; $60 / 24 M output = $2.50/M all in.
  CHECK(c.usd_per_m_tokens_blended == exact(60.0 / 144.0));
  CHECK(c.usd_per_m_output_all_in == exact(2.50));
  // 9600 / 57600 = 1/6 idle.
  CHECK(c.idle_share == exact(1.0 / 6.0));
  CHECK(c.included ==
        "GPU rental at $3.75/GPU-hour (on demand) for all 16 GPUs over the window, idle time charged to work in "
        "proportion; excludes power, networking, storage, staff and failure spares");
}

TEST_CASE("reserved: 8 GPUs at $3.00 with 20% off over half an hour", "[cost_model]") {
  // 8 GPUs * 1800 s = 14400 GPU-s: 2000 prefill, 6000 decode, 6400 idle.
  ServingWork w{.gpus = 8,
                .window_s = 1800.0,
                .input_tokens = 4.8e6,
                .output_tokens = 1.8e6,
                .prefill_busy_gpu_s = 2000.0,
                .decode_busy_gpu_s = 6000.0,
                .idle_gpu_s = 6400.0};
  TokenCost c = token_cost({3.0, true, 0.2}, w);
  // $2.40/GPU-hour * 8 = $19.20/hour; half an hour: C = $9.60.
  CHECK(c.usd_per_hour == exact(19.20));
  // Prefill 2000 / 8000 = 25% -> $2.40 / 4.8 M = $0.50/M; decode 75% -> $7.20 / 1.8 M = $4.00/M.
  CHECK(c.usd_per_m_input == exact(0.50));
  CHECK(c.usd_per_m_output == exact(4.00));
  // $9.60 / 6.6 M = $1.4545.../M blended; $9.60 / 1.8 M = $5.333.../M all in.
  CHECK(c.usd_per_m_tokens_blended == exact(9.6 / 6.6));
  CHECK(c.usd_per_m_output_all_in == exact(9.6 / 1.8));
  // 6400 / 14400 = 4/9 idle.
  CHECK(c.idle_share == exact(4.0 / 9.0));
  CHECK(c.included ==
        "GPU rental at $2.40/GPU-hour (reserved, 20% off $3.00) for all 8 GPUs over the window, idle time charged "
        "to work in proportion; excludes power, networking, storage, staff and failure spares");
}

TEST_CASE("idle capacity is charged to prefill and decode in proportion to their busy time", "[cost_model]") {
  // The same work on twice the GPUs: 57600 more idle GPU-s. The cost doubles and the split stays 20/80.
  ServingWork w = one_hour_on_16();
  w.gpus = 32;
  w.idle_gpu_s += 57600.0;
  TokenCost c = token_cost({3.75}, w);
  // $120/hour: prefill $24 / 120 M = $0.20/M, decode $96 / 24 M = $4.00/M, all in $120 / 24 M = $5.00/M.
  CHECK(c.usd_per_hour == exact(120.0));
  CHECK(c.usd_per_m_input == exact(0.20));
  CHECK(c.usd_per_m_output == exact(4.00));
  CHECK(c.usd_per_m_output_all_in == exact(5.00));
  // (9600 + 57600) / 115200 = 7/12 idle.
  CHECK(c.idle_share == exact(7.0 / 12.0));

  // Input and output shares always add up to the whole window's cost, whatever the idle time.
  double window_usd = c.usd_per_hour * w.window_s / 3600.0;
  double split_usd = c.usd_per_m_input * w.input_tokens / 1e6 + c.usd_per_m_output * w.output_tokens / 1e6;
  CHECK(split_usd == exact(window_usd));
}

TEST_CASE("a class with no tokens costs +infinity per million, written as null", "[cost_model]") {
  SECTION("no output completed in the window") {
    ServingWork w = one_hour_on_16();
    w.output_tokens = 0.0;
    TokenCost c = token_cost({3.75}, w);
    CHECK(c.usd_per_m_input == exact(0.10));
    CHECK(c.usd_per_m_output == kInf);
    CHECK(c.usd_per_m_output_all_in == kInf);
    CHECK(c.usd_per_m_tokens_blended == exact(60.0 / 120.0));  // $60 / 120 M input tokens
    nlohmann::json j = fleetcast::cost_model::to_json(c);
    CHECK(j.at("usd_per_m_output").is_null());
    CHECK(j.at("usd_per_m_output_all_in").is_null());
    CHECK(j.at("usd_per_m_input").get<double>() == exact(0.10));
  }
  SECTION("an idle window: no busy time, no tokens") {
    ServingWork w{.gpus = 4, .window_s = 600.0, .input_tokens = 0.0, .output_tokens = 0.0,
                  .prefill_busy_gpu_s = 0.0, .decode_busy_gpu_s = 0.0, .idle_gpu_s = 2400.0};
    TokenCost c = token_cost({2.0}, w);
    CHECK(c.usd_per_hour == exact(8.0));
    CHECK(c.usd_per_m_input == kInf);
    CHECK(c.usd_per_m_output == kInf);
    CHECK(c.usd_per_m_tokens_blended == kInf);
    CHECK(c.idle_share == exact(1.0));
    CHECK(fleetcast::cost_model::to_json(c).dump().find("null") != std::string::npos);
  }
  SECTION("free GPUs and no tokens still say infinity, not NaN") {
    ServingWork w = one_hour_on_16();
    w.input_tokens = 0.0;
    TokenCost c = token_cost({0.0}, w);
    CHECK(c.usd_per_m_input == kInf);
    CHECK(c.usd_per_m_output == 0.0);
  }
}

TEST_CASE("to_json writes every field under its own name", "[cost_model]") {
  TokenCost c = token_cost({3.75}, one_hour_on_16());
  nlohmann::json j = fleetcast::cost_model::to_json(c);
  CHECK(j.size() == 7);
  CHECK(j.at("usd_per_hour").get<double>() == exact(60.0));
  CHECK(j.at("usd_per_m_input").get<double>() == exact(0.10));
  CHECK(j.at("usd_per_m_output").get<double>() == exact(2.00));
  CHECK(j.at("usd_per_m_tokens_blended").get<double>() == exact(60.0 / 144.0));
  CHECK(j.at("usd_per_m_output_all_in").get<double>() == exact(2.50));
  CHECK(j.at("idle_share").get<double>() == exact(1.0 / 6.0));
  CHECK(j.at("included").get<std::string>() == c.included);
}

TEST_CASE("the sentence names one GPU in the singular and odd prices as they are", "[cost_model]") {
  ServingWork w{.gpus = 1, .window_s = 3600.0, .input_tokens = 1e6, .output_tokens = 1e6,
                .prefill_busy_gpu_s = 1800.0, .decode_busy_gpu_s = 1800.0, .idle_gpu_s = 0.0};
  TokenCost c = token_cost({2.125, true, 0.35}, w);
  // 2.125 * 0.65 = $1.38125/GPU-hour: not whole cents, so written in full.
  CHECK(c.usd_per_hour == exact(1.38125));
  CHECK(c.included ==
        "GPU rental at $1.38125/GPU-hour (reserved, 35% off $2.125) for the 1 GPU over the window, idle time "
        "charged to work in proportion; excludes power, networking, storage, staff and failure spares");
}

TEST_CASE("invalid prices and work are rejected with the field named", "[cost_model]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(effective_usd_per_gpu_hour({-1.0}), std::invalid_argument);
  CHECK_THROWS_AS(effective_usd_per_gpu_hour({nan}), std::invalid_argument);
  CHECK_THROWS_AS(effective_usd_per_gpu_hour({kInf}), std::invalid_argument);
  CHECK_THROWS_WITH(effective_usd_per_gpu_hour({3.0, true, 1.0}), Catch::Contains("reserved_discount"));
  CHECK_THROWS_AS(effective_usd_per_gpu_hour({3.0, true, -0.1}), std::invalid_argument);
  CHECK_THROWS_AS(effective_usd_per_gpu_hour({3.0, false, 1.5}), std::invalid_argument);
  CHECK_THROWS_AS(token_cost({-3.0}, one_hour_on_16()), std::invalid_argument);

  auto rejects = [](auto mutate, const char* field) {
    ServingWork w = one_hour_on_16();
    mutate(w);
    CHECK_THROWS_AS(token_cost({3.75}, w), std::invalid_argument);
    CHECK_THROWS_WITH(token_cost({3.75}, w), Catch::Contains(field));
  };
  rejects([](ServingWork& w) { w.gpus = 0; }, "gpus");
  rejects([](ServingWork& w) { w.gpus = -8; }, "gpus");
  rejects([](ServingWork& w) { w.window_s = 0.0; }, "window_s");
  rejects([](ServingWork& w) { w.window_s = -60.0; }, "window_s");
  rejects([&](ServingWork& w) { w.window_s = nan; }, "window_s");
  rejects([](ServingWork& w) { w.input_tokens = -1.0; }, "input_tokens");
  rejects([](ServingWork& w) { w.output_tokens = -1.0; }, "output_tokens");
  rejects([&](ServingWork& w) { w.output_tokens = nan; }, "output_tokens");
  rejects([](ServingWork& w) { w.prefill_busy_gpu_s = -1.0; }, "prefill_busy_gpu_s");
  rejects([](ServingWork& w) { w.decode_busy_gpu_s = -1.0; }, "decode_busy_gpu_s");
  rejects([](ServingWork& w) { w.idle_gpu_s = -1.0; }, "idle_gpu_s");
  // More idle time than 16 GPUs * 3600 s = 57600 GPU-s: wrong units somewhere.
  rejects([](ServingWork& w) { w.idle_gpu_s = 57601.0; }, "idle_gpu_s");
  // Tokens with no busy time to charge them to.
  rejects([](ServingWork& w) { w.prefill_busy_gpu_s = w.decode_busy_gpu_s = 0.0; }, "busy");
}
