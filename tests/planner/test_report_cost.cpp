// The scenario's optional cost terms (cost.owned, cost.fleet, cost.price_list) in the report's cost block, and
// a report without them keeping the cost block it always had.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

TEST_CASE("owned GPUs, spares and a price list reach the report's cost block", "[planner][cost]") {
  nlohmann::json j = test::small_scenario();
  // One GPU: $43,800 over 5 years = $1.00/h, operations $0.50/h; no $/kWh, so power costs nothing (peak power is
  // given: 0 would mean the hardware's board power). Spares 0.5 GPU: $0.75/h. Total $2.25/h.
  j["cost"] = {{"owned",
                {{"gpu_purchase_usd", 43800.0},
                 {"depreciation_years", 5.0},
                 {"idle_power_w", 0.0},
                 {"peak_power_w", 700.0},
                 {"operations_usd_per_gpu_hour", 0.5}}},
               {"fleet", {{"spare_share", 0.5}, {"load_factor", 0.5}}},
               {"price_list", {{"usd_per_m_input", 0.30}, {"usd_per_m_output", 1.20}}}};
  const specs::ScenarioSpec spec = test::parse(j);
  // The blocks are written back as read (peak power resolved), so a report's scenario parses to the same spec.
  CHECK(test::parse(specs::to_json(spec)).cost == spec.cost);
  CHECK(spec.cost.owned->peak_power_w == 700.0);
  const nlohmann::json report = simulator::simulate_in_child(spec);
  const auto& fleet = report["cost"]["fleet"];
  CHECK(fleet["usd_per_hour"].get<double>() == Approx(2.25).epsilon(1e-12));
  CHECK(fleet["fleet_gpus"].get<double>() == 1.5);
  CHECK(fleet["breakdown"][0]["item"] == "gpu_depreciation");
  // Revenue: the measured tokens per second, at half the load, at the price list.
  const auto& t = report["metrics"]["throughput"];
  const double usd_per_hour =
      3600 * 0.5 / 1e6 * (t["input_tokens_per_s"].get<double>() * 0.30 + t["output_tokens_per_s"].get<double>() * 1.20);
  CHECK(report["cost"]["revenue"]["usd_per_hour"].get<double>() == Approx(usd_per_hour).epsilon(1e-12));
  CHECK(report["cost"]["revenue"]["usd_per_gpu_hour"].get<double>() == Approx(usd_per_hour / 1.5).epsilon(1e-12));
  CHECK(report["cost"]["tornado"]["rows"].size() >= 4);
  // The rented figures are still there, unchanged in meaning.
  CHECK(report["cost"].contains("usd_per_m_output"));
}

TEST_CASE("without the optional terms the cost block is the rental one alone", "[planner][cost]") {
  const nlohmann::json report = simulator::simulate_in_child(test::parse(test::small_scenario()));
  CHECK(report["cost"].size() == 7);
  CHECK_FALSE(report["scenario"]["cost"].contains("fleet"));
}

TEST_CASE("cost terms are checked with the field named", "[planner][cost]") {
  nlohmann::json j = test::small_scenario();
  j["cost"] = {{"fleet", {{"load_factor", 1.5}}}};
  CHECK_THROWS_WITH(test::parse(j), Catch::Contains("cost.fleet.load_factor"));
  j["cost"] = {{"owned", {{"server_usd_per_gpu", 1.0}}}};
  CHECK_THROWS_WITH(test::parse(j), Catch::Contains("gpu_purchase_usd"));
  j["cost"] = {{"owned", {{"gpu_purchase_usd", 1.0}, {"pue", 0.9}}}};
  CHECK_THROWS_WITH(test::parse(j), Catch::Contains("cost.owned.pue"));
  j["cost"] = {{"price_list", {{"usd_per_m_input", 0.3}, {"usd_per_m_output", 1.2}, {"typo", 1}}}};
  CHECK_THROWS_AS(test::parse(j), InputError);
}
