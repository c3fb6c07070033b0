#pragma once
// The report: the scenario echoed in full, what was derived from it (rate, memory, capacity, profile),
// how steady state was measured, the metrics as DESIGN.md defines them (for all requests, per request class
// with its goodput against its SLOs, and per replica), the cost, and a benchmark record.

#include <string>

#include <nlohmann/json.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/disaggregation.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/recorder.hpp"
#include "fleetcast/simulator/workload_plan.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator {

struct ReportInputs {
  const specs::ScenarioSpec* scenario;
  const calibration::Profile* profile;
  const MemoryPlan* memory;
  const WorkloadPlan* plan;  // rates, request split and capacity estimates
  const Recorder* recorder;
  std::int64_t warmup_requests;
  std::int64_t cooldown_requests;
  long long preemptions;
  long long prefix_evicted_blocks;  // blocks the replicas' prefix caches evicted over the run
  double wall_s;  // not written into the report (it would break byte-identical output): progress only
  const DisaggregatedPlan* pools = nullptr;  // disaggregation: the pools (`memory` is then the decode pool's)
};

nlohmann::json build_report(const ReportInputs& in);

// The readable summary for stdout.
std::string format_summary(const nlohmann::json& report);

std::string version_string();  // "fleetcast 0.1.0 (commit)"

}  // namespace fleetcast::simulator
