// SLO headroom against the error on record (slo_margin.hpp).
#include "fleetcast/planner/slo_margin.hpp"

#include <algorithm>

namespace fleetcast::planner {
namespace {

double num(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : NAN; }

// 1 - p95 / target, lowered to the least so far (NAN: none yet).
void lower(double& least, double p95_ms, double target_ms) {
  if (!(target_ms > 0.0)) return;
  const double h = 1.0 - p95_ms / target_ms;
  if (std::isnan(least) || h < least) least = h;
}

nlohmann::json or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

SloHeadroom slo_headroom(const specs::PlanSpec& plan, const nlohmann::json& figures) {
  SloHeadroom h;
  for (const specs::RequestClass& c : plan.workload_spec.classes) {
    const nlohmann::json& m = figures["classes"][c.name];
    lower(h.ttft, num(m["ttft_p95_ms"]), c.slo.ttft_ms);
    lower(h.tpot, num(m["tpot_p95_ms"]), c.slo.tpot_ms);
  }
  return h;
}

ErrorOnRecord error_on_record(const nlohmann::json& p) {
  // The figure of forecasts like this one: a model outside the fit is judged by the models left out of it, and a GPU
  // without a fit by the fitted GPUs given its pick, before the held-out runs of the models the profile saw.
  for (const auto& [field, figure] :
       {std::pair{"unseen_model_error", "unseen_model"}, std::pair{"unfitted_gpu_error", "unfitted_gpu"},
        std::pair{"measured_error", "measured"}}) {
    const nlohmann::json e = p.value(field, nlohmann::json());
    if (!e.is_object()) continue;
    return {figure, num(e["ttft"]["median_ape"]), num(e["tpot"]["median_ape"]), num(e["ttft"]["median_ratio"]),
            num(e["tpot"]["median_ratio"])};
  }
  return {};
}

double needed_headroom(double median_ape, double median_ratio) {
  if (std::isnan(median_ape) || std::isnan(median_ratio)) return NAN;
  return std::clamp(median_ape - std::max(0.0, median_ratio - 1.0), 0.0, 1.0);
}

std::vector<std::string> within_error(const SloHeadroom& headroom, const ErrorOnRecord& error) {
  std::vector<std::string> out;
  // False for NAN on either side: no objective, or no error on record.
  if (headroom.ttft < needed_headroom(error.ttft, error.ttft_ratio)) out.push_back("ttft");
  if (headroom.tpot < needed_headroom(error.tpot, error.tpot_ratio)) out.push_back("tpot");
  return out;
}

nlohmann::json margin_json(const SloHeadroom& headroom, const ErrorOnRecord& error) {
  nlohmann::json record = nullptr;
  if (!error.figure.empty()) {
    record = {{"figure", error.figure},
              {"ttft", or_null(error.ttft)},
              {"tpot", or_null(error.tpot)},
              {"ttft_ratio", or_null(error.ttft_ratio)},
              {"tpot_ratio", or_null(error.tpot_ratio)},
              {"ttft_needed", or_null(needed_headroom(error.ttft, error.ttft_ratio))},
              {"tpot_needed", or_null(needed_headroom(error.tpot, error.tpot_ratio))}};
  }
  return {{"slo_headroom", {{"ttft", or_null(headroom.ttft)}, {"tpot", or_null(headroom.tpot)}}},
          {"error_on_record", record},
          {"within_error", within_error(headroom, error)}};
}

}  // namespace fleetcast::planner
