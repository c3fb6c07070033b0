#pragma once
// How far a feasible configuration sits below its SLOs, against how wrong its profile's forecasts were on record. A
// plan ranks the configurations that meet every SLO in simulation; one that meets its TTFT objective by 10% on a
// profile whose TTFT forecasts were off by a median 30% on measured runs has not shown that it meets it. Each
// feasible entry carries its headroom per metric and the metrics where that headroom is below the error its profile
// quotes (docs/PLANNER.md, "Headroom against the error on record").

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/specs/plan.hpp"

namespace fleetcast::planner {

// The least, over the classes with that objective, of 1 - simulated p95 / target: 0.2 is 20% below the tightest
// objective. NAN where no class sets the objective.
struct SloHeadroom {
  double ttft = NAN;
  double tpot = NAN;
};
SloHeadroom slo_headroom(const specs::PlanSpec& plan, const nlohmann::json& figures);

// The error a forecast with this profile quotes for the plan's model, by metric: for a model outside its fit's runs,
// the models left out of the fit ("unseen_model"); on a GPU without a fit, the fitted GPUs' runs given its pick
// ("unfitted_gpu"); else its held-out runs ("measured"). `figure` is "" and every figure NAN where none is on record.
struct ErrorOnRecord {
  std::string figure;
  double ttft = NAN, tpot = NAN;              // median absolute percentage error (shares)
  double ttft_ratio = NAN, tpot_ratio = NAN;  // median predicted / measured
};
// The headroom a metric needs to clear the error on record: the median error less the part of it that ran high (a
// median ratio above 1: forecasts that over-predict put the real figure further below the objective, not above it),
// in [0, 1]. 31% with a median ratio 1.13x needs 18%; 109% at 2.55x needs none; 16% at 0.94x needs 16%. NAN for NAN.
double needed_headroom(double median_ape, double median_ratio);
// From an entry of plan_json's "profiles" (measured_error, unseen_model_error, unfitted_gpu_error).
ErrorOnRecord error_on_record(const nlohmann::json& profile_entry);

// The metrics ("ttft", "tpot") with an objective whose headroom is below needed_headroom: the forecast cannot tell
// that configuration meets them. Empty where none is, or where no error is on record.
std::vector<std::string> within_error(const SloHeadroom& headroom, const ErrorOnRecord& error);

// The JSON a feasible entry carries: {"slo_headroom": {"ttft", "tpot"} (null: no objective), "error_on_record":
// {"figure", "ttft", "tpot", "ttft_ratio", "tpot_ratio", "ttft_needed", "tpot_needed"} or null, "within_error":
// [metrics]}.
nlohmann::json margin_json(const SloHeadroom& headroom, const ErrorOnRecord& error);

}  // namespace fleetcast::planner
