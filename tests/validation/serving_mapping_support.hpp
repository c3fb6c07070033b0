#pragma once
// Mapping-test fixtures: a measured agg row, and its mapping (a failed test where it is not mapped) or the reason it
// is not.

#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace fleetcast::test {

inline traces::MeasuredServingRun agg_run(const std::string& model_path, const std::string& system,
                                          const std::string& backend, traces::MeasuredLayout layout) {
  traces::MeasuredServingRun r;
  r.id = "row";
  r.model_path = model_path;
  r.system = system;
  r.backend = backend;
  r.mode = "agg";
  r.isl = 1024;
  r.osl = 128;
  r.concurrency = 16;
  r.agg = layout;
  r.ttft_ms = 100.0;
  r.tpot_ms = 10.0;
  return r;
}

inline validation::MappedRun mapped(const traces::MeasuredServingRun& r) {
  auto m = validation::map_serving_run(r);
  if (auto* u = std::get_if<validation::Unmapped>(&m)) FAIL("unmapped: " << u->reason);
  return std::get<validation::MappedRun>(m);
}

inline std::string unmapped(const traces::MeasuredServingRun& r) {
  auto m = validation::map_serving_run(r);
  REQUIRE(std::holds_alternative<validation::Unmapped>(m));
  return std::get<validation::Unmapped>(m).reason;
}

}  // namespace fleetcast::test
