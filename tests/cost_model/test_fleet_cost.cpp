// fleet_cost, revenue and the tornado table: every expected figure is worked out by hand in the comments.

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <stdexcept>

#include "fleetcast/cost_model/fleet_cost.hpp"
#include "fleetcast/cost_model/sensitivity.hpp"

using namespace fleetcast::cost_model;

namespace {

Approx exact(double x) { return Approx(x).epsilon(1e-12).margin(0.0); }

// 8 owned GPUs for an hour, busy 75% of it: 28800 GPU-s = 7200 prefill + 14400 decode + 7200 idle.
ServingWork owned_hour() {
  return ServingWork{.gpus = 8,
                     .window_s = 3600.0,
                     .input_tokens = 90e6,
                     .output_tokens = 9e6,
                     .prefill_busy_gpu_s = 7200.0,
                     .decode_busy_gpu_s = 14400.0,
                     .idle_gpu_s = 7200.0,
                     .cached_input_tokens = 18e6,
                     .cache_read_busy_gpu_s = 0.0};
}

CostInputs owned_inputs() {
  CostInputs in;
  in.ownership = Ownership::own;
  // Written off over 5 years = 43800 hours: $43,800 GPU -> $1.00/h, $8,760 server share -> $0.20/h,
  // 2 ports at $2,190 -> $4,380 -> $0.10/h.
  in.own = OwnedPrice{.gpu_purchase_usd = 43800.0,
                      .server_usd_per_gpu = 8760.0,
                      .network_usd_per_port = 2190.0,
                      .network_ports_per_gpu = 2.0,
                      .depreciation_years = 5.0,
                      .idle_power_w = 200.0,
                      .peak_power_w = 1200.0,
                      .pue = 1.25,
                      .usd_per_kwh = 0.10,
                      .operations_usd_per_gpu_hour = 0.5};
  // 2 spares for 8 GPUs; 10 TB at $73/TB-month = $730/month = $1.00/h; average load 80% of the simulated.
  in.fleet = FleetTerms{.load_factor = 0.8, .spare_share = 0.25, .storage_tb = 10.0, .storage_usd_per_tb_month = 73.0};
  return in;
}

const PriceList kV41Flash{0.30, 1.20, 0.03};  // REFERENCE.md section 6

}  // namespace

TEST_CASE("owned fleet: depreciation, power by utilisation and PUE, operations, spares, storage", "[cost_model]") {
  const FleetCost c = fleet_cost(owned_inputs(), owned_hour());
  // Utilisation: busy 75% of the simulated hour, at 80% of that load on average: 0.6.
  CHECK(c.power_utilisation == exact(0.6));
  // Per serving GPU per hour: $1.00 GPU + $0.20 server + $0.10 network; power 200 + 0.6 * (1200 - 200) = 800 W,
  // * 1.25 PUE = 1 kW at $0.10 = $0.10; operations $0.50. Times 8 GPUs: 8.00, 1.60, 0.80, 0.80, 4.00.
  // Each spare: $1.30 capital + $0.50 operations + 200 W * 1.25 = 0.25 kW at $0.10 = $0.025: $1.825, times 2 = $3.65.
  // Storage $1.00. Total 8 + 1.6 + 0.8 + 0.8 + 4 + 3.65 + 1 = $19.85/h over 10 fleet GPUs: $1.985/GPU-hour.
  REQUIRE(c.breakdown.size() == 7);
  const char* items[] = {
      "gpu_depreciation", "server_depreciation", "network_depreciation", "power", "operations", "spares", "storage"};
  const double usd[] = {8.0, 1.6, 0.8, 0.8, 4.0, 3.65, 1.0};
  for (int i = 0; i < 7; ++i) {
    CHECK(c.breakdown[i].item == items[i]);
    CHECK(c.breakdown[i].usd_per_hour == exact(usd[i]));
    CHECK(c.breakdown[i].share == exact(usd[i] / 19.85));
  }
  CHECK(c.usd_per_hour == exact(19.85));
  CHECK(c.fleet_gpus == exact(10.0));
  CHECK(c.usd_per_gpu_hour == exact(1.985));
  // Tokens per hour at 80% of the simulated load: 72 M input, 7.2 M output, 14.4 M cache reads.
  // Prefill 7200 of 21600 busy GPU-s = 1/3 of $19.85 over 72 M; decode 2/3 over 7.2 M; cache reads no GPU time.
  CHECK(c.usd_per_m_input == exact(19.85 / 3.0 / 72.0));
  CHECK(c.usd_per_m_output == exact(19.85 * 2.0 / 3.0 / 7.2));
  CHECK(c.usd_per_m_cache_read == 0.0);
  CHECK(c.usd_per_m_blended == exact(19.85 / (72.0 + 7.2 + 14.4)));
}

TEST_CASE("revenue and margin at the V4.1 Flash API price list", "[cost_model]") {
  const CostInputs in = owned_inputs();
  const FleetCost c = fleet_cost(in, owned_hour());
  const Revenue r = revenue(c, owned_hour(), in.fleet, kV41Flash);
  // 72 M * $0.30 + 7.2 M * $1.20 + 14.4 M * $0.03 = 21.6 + 8.64 + 0.432 = $30.672/h, over 10 GPUs $3.0672.
  CHECK(r.usd_per_hour == exact(30.672));
  CHECK(r.usd_per_gpu_hour == exact(3.0672));
  // Margin: 30.672 - 19.85 = $10.822/h, 10.822 / 30.672 of revenue.
  CHECK(r.margin_usd_per_hour == exact(10.822));
  CHECK(r.margin_share == exact(10.822 / 30.672));
  CHECK(r.input_saving_usd_per_m == exact(0.30 - 19.85 / 3.0 / 72.0));
  CHECK(r.output_saving_usd_per_m == exact(1.20 - 19.85 * 2.0 / 3.0 / 7.2));
  CHECK(r.cache_read_saving_usd_per_m == exact(0.03));
  const nlohmann::json j = to_json(r);
  CHECK(j.at("usd_per_gpu_hour").get<double>() == exact(3.0672));
}

TEST_CASE("rented fleet: spares paid at the rent, power in the rent, cache reads with GPU time", "[cost_model]") {
  // 4 GPUs for half an hour, all busy: 7200 GPU-s = 1800 prefill + 5400 decode.
  ServingWork w{.gpus = 4,
                .window_s = 1800.0,
                .input_tokens = 3.6e6,
                .output_tokens = 0.9e6,
                .prefill_busy_gpu_s = 1800.0,
                .decode_busy_gpu_s = 5400.0,
                .idle_gpu_s = 0.0};
  CostInputs in;
  in.rent = {3.0, true, 0.5};  // $1.50/GPU-hour
  in.fleet.spare_share = 0.5;
  const FleetCost c = fleet_cost(in, w);
  // 4 * $1.50 = $6 rent, 2 spares $3: $9/h over 6 GPUs = $1.50/GPU-hour; power is no item (the rent covers it).
  REQUIRE(c.breakdown.size() == 2);
  CHECK(c.breakdown[0].item == "gpu_rental");
  CHECK(c.breakdown[0].share == exact(2.0 / 3.0));
  CHECK(c.breakdown[1].item == "spares");
  CHECK(c.usd_per_hour == exact(9.0));
  CHECK(c.usd_per_gpu_hour == exact(1.5));
  // Per hour 7.2 M input, 1.8 M output. Prefill 1/4 of $9 = $2.25 / 7.2 = $0.3125/M; decode $6.75 / 1.8 = $3.75/M.
  CHECK(c.usd_per_m_input == exact(0.3125));
  CHECK(c.usd_per_m_output == exact(3.75));
  CHECK(c.usd_per_m_blended == exact(1.0));
  // No cache reads: their $/M is infinite (null in JSON), not 0.
  CHECK(c.usd_per_m_cache_read == std::numeric_limits<double>::infinity());
  CHECK(to_json(c).at("usd_per_m_cache_read").is_null());

  SECTION("cache reads charged a quarter of the busy time") {
    w.decode_busy_gpu_s = 3600.0;
    w.cache_read_busy_gpu_s = 1800.0;
    w.cached_input_tokens = 1.8e6;
    const FleetCost k = fleet_cost(in, w);
    // 1800 of 7200 busy GPU-s: $2.25 over 3.6 M cache reads per hour = $0.625/M; decode $4.50 / 1.8 M = $2.50/M.
    CHECK(k.usd_per_m_cache_read == exact(0.625));
    CHECK(k.usd_per_m_output == exact(2.5));
    CHECK(k.usd_per_m_blended == exact(9.0 / 12.6));
  }
}

TEST_CASE("with no spares, storage or load factor, renting prices tokens as token_cost does", "[cost_model]") {
  const ServingWork w{.gpus = 16,
                      .window_s = 3600.0,
                      .input_tokens = 120e6,
                      .output_tokens = 24e6,
                      .prefill_busy_gpu_s = 9600.0,
                      .decode_busy_gpu_s = 38400.0,
                      .idle_gpu_s = 9600.0};
  CostInputs in;
  in.rent = {3.75};
  const FleetCost f = fleet_cost(in, w);
  const TokenCost t = token_cost(in.rent, w);
  CHECK(f.usd_per_hour == exact(t.usd_per_hour));
  CHECK(f.usd_per_m_input == exact(t.usd_per_m_input));
  CHECK(f.usd_per_m_output == exact(t.usd_per_m_output));
  CHECK(f.usd_per_m_blended == exact(t.usd_per_m_tokens_blended));
}

TEST_CASE("invalid owning and fleet inputs are rejected with the field named", "[cost_model]") {
  auto rejects = [](auto mutate, const char* field) {
    CostInputs in = owned_inputs();
    mutate(in);
    CHECK_THROWS_WITH(fleet_cost(in, owned_hour()), Catch::Contains(field));
  };
  rejects([](CostInputs& c) { c.own.gpu_purchase_usd = -1.0; }, "gpu_purchase_usd");
  rejects([](CostInputs& c) { c.own.depreciation_years = 0.0; }, "depreciation_years");
  rejects([](CostInputs& c) { c.own.pue = 0.9; }, "pue");
  rejects([](CostInputs& c) { c.own.peak_power_w = 100.0; }, "peak_power_w");
  rejects([](CostInputs& c) { c.fleet.load_factor = 0.0; }, "load_factor");
  rejects([](CostInputs& c) { c.fleet.load_factor = 1.5; }, "load_factor");
  rejects([](CostInputs& c) { c.fleet.spare_share = -0.1; }, "spare_share");
  ServingWork w = owned_hour();
  w.cached_input_tokens = -1.0;
  CHECK_THROWS_WITH(fleet_cost(owned_inputs(), w), Catch::Contains("cached_input_tokens"));
}

TEST_CASE("tornado: throughput and rent move $/M most, clamped inputs stay valid", "[cost_model]") {
  // 4 GPUs at $2 with 1 spare: $10/h; 10 M tokens an hour: $1.00/M blended.
  const ServingWork w{.gpus = 4,
                      .window_s = 3600.0,
                      .input_tokens = 8e6,
                      .output_tokens = 2e6,
                      .prefill_busy_gpu_s = 3600.0,
                      .decode_busy_gpu_s = 10800.0,
                      .idle_gpu_s = 0.0};
  CostInputs in;
  in.rent = {2.0};
  in.fleet.spare_share = 0.25;
  const Tornado t = tornado(in, w, 0.2);
  CHECK(t.base_usd_per_m == exact(1.0));
  // Storage is 0: nothing to move, no row.
  REQUIRE(t.rows.size() == 4);
  // Throughput x0.8: 10 / 8 = 1.25; x1.2: 10 / 12 = 0.8333: swing 0.41667.
  CHECK(t.rows[0].input == "work.throughput");
  CHECK(t.rows[0].usd_per_m_at_low == exact(1.25));
  CHECK(t.rows[0].usd_per_m_at_high == exact(10.0 / 12.0));
  // Rent $1.60 / $2.40: $8 / $12 an hour: 0.80 / 1.20, swing 0.40.
  CHECK(t.rows[1].input == "rent.usd_per_gpu_hour");
  CHECK(t.rows[1].swing == exact(0.4));
  // Load factor 0.8 -> $1.25; up is clamped at 1 (it already is): $1.00, swing 0.25.
  CHECK(t.rows[2].input == "fleet.load_factor");
  CHECK(t.rows[2].high == 1.0);
  CHECK(t.rows[2].usd_per_m_at_low == exact(1.25));
  CHECK(t.rows[2].swing == exact(0.25));
  // Spares 0.2 / 0.3: $9.60 / $10.40: swing 0.08.
  CHECK(t.rows[3].input == "fleet.spare_share");
  CHECK(t.rows[3].swing == exact(0.08));

  SECTION("owning: PUE is not moved below 1") {
    CostInputs own = owned_inputs();
    own.own.pue = 1.1;
    const Tornado o = tornado(own, owned_hour(), 0.2);
    const auto pue =
        std::find_if(o.rows.begin(), o.rows.end(), [](const TornadoRow& r) { return r.input == "own.pue"; });
    REQUIRE(pue != o.rows.end());
    CHECK(pue->low == 1.0);
    CHECK(pue->high == exact(1.32));
    // The purchase price is the largest capital item: it moves $/M more than the server share does.
    const auto at = [&](const char* name) {
      return std::find_if(o.rows.begin(), o.rows.end(), [&](const TornadoRow& r) { return r.input == name; });
    };
    CHECK(at("own.gpu_purchase_usd") < at("own.server_usd_per_gpu"));
  }
  CHECK_THROWS_AS(tornado(in, w, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(tornado(in, w, 1.0), std::invalid_argument);
}

TEST_CASE("docs/COST.md: what $38 revenue per GPU-hour depends on, worked through", "[cost_model]") {
  // One request on one GPU: 8192 computed + 24576 cached input tokens, 1024 output; prefill 8192 / 81920 = 0.1
  // GPU-s, decode 1024 / 15872 GPU-s (fleetcast's DeepInfer points); the window is that request's GPU time.
  const double decode_s = 1024.0 / 15872.0, gpu_s = 0.1 + decode_s;
  const ServingWork w{.gpus = 1,
                      .window_s = gpu_s,
                      .input_tokens = 8192,
                      .output_tokens = 1024,
                      .prefill_busy_gpu_s = 0.1,
                      .decode_busy_gpu_s = decode_s,
                      .idle_gpu_s = 0.0,
                      .cached_input_tokens = 24576};
  // $0.00442368 a request at list prices, 3600 / gpu_s = 21882.35 requests an hour at full load: $96.80.
  const double per_request = 8192 * 0.30e-6 + 24576 * 0.03e-6 + 1024 * 1.20e-6;
  CHECK(per_request == exact(0.00442368));
  CostInputs in;
  in.rent = {6.0};
  const Revenue full = revenue(fleet_cost(in, w), w, in.fleet, kV41Flash);
  CHECK(full.usd_per_gpu_hour == exact(3600.0 / gpu_s * per_request));
  CHECK(full.usd_per_gpu_hour == Approx(96.80).margin(0.005));
  // At 40% average load: $38.72; with 5% spares in the denominator: 38.72 / 1.05 = $36.88.
  in.fleet.load_factor = 0.4;
  CHECK(revenue(fleet_cost(in, w), w, in.fleet, kV41Flash).usd_per_gpu_hour == Approx(38.72).margin(0.005));
  in.fleet.spare_share = 0.05;
  const FleetCost c = fleet_cost(in, w);
  const Revenue r = revenue(c, w, in.fleet, kV41Flash);
  CHECK(r.usd_per_gpu_hour == Approx(36.88).margin(0.005));
  // Off peak at half price, the same $38 needs 38 / 48.40 = 78.5% load.
  CHECK(38.0 / (full.usd_per_gpu_hour / 2.0) == Approx(0.785).margin(0.0005));
  // Cost: $6 * 1.05 = $6.30 an hour for the serving GPU; $/M input 0.053, output 0.276, blended 0.021.
  CHECK(c.usd_per_hour == exact(6.3));
  CHECK(c.usd_per_m_input == Approx(0.0534).margin(0.00005));
  CHECK(c.usd_per_m_output == Approx(0.2756).margin(0.00005));
  CHECK(c.usd_per_m_blended == Approx(0.0213).margin(0.00005));
  CHECK(r.margin_usd_per_hour == Approx(38.72 - 6.30).margin(0.005));
}
