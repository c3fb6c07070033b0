// The plan search (plan_search.hpp): prune in this process, simulate the survivors in worker processes.
#include "fleetcast/planner/plan_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "fleetcast/planner/pareto.hpp"
#include "fleetcast/simulator/process_pool.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/trace_classes.hpp"
#include "fleetcast/specs/load.hpp"

namespace fleetcast::planner {
namespace {

// A simulated run keeps up when it finishes requests at 90% or more of the rate they arrived at in the measurement
// window (the drawn arrivals, not the nominal rate: a short run's Poisson count is off by a few percent): a fleet
// that falls behind builds a queue whose TTFT a short run may not yet show.
constexpr double kKeepUpShare = 0.9;

void report_progress(bool on, const char* phase, std::size_t done, std::size_t total) {
  if (!on) return;
  std::fprintf(stderr, "{\"phase\": \"%s\", \"done\": %zu, \"total\": %zu}\n", phase, done, total);
  std::fflush(stderr);
}

nlohmann::json number_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at->is_number() ? *at : nlohmann::json(nullptr);
}

// What the plan needs of a report: cost, throughput, and each class's p95 latencies.
nlohmann::json figures_of(const nlohmann::json& report) {
  nlohmann::json classes = nlohmann::json::object();
  double arrived = 0.0;
  for (const auto& [name, c] : report.at("metrics").at("by_class").items())
    if (c.contains("arrival_rate_per_s") && c["arrival_rate_per_s"].is_number())
      arrived += c["arrival_rate_per_s"].get<double>();
  for (const auto& [name, c] : report.at("metrics").at("by_class").items()) {
    classes[name] = {{"ttft_p95_ms", number_at(c, {"ttft_ms", "p95"})},
                     {"tpot_p95_ms", number_at(c, {"tpot_ms", "p95"})},
                     {"success_rate", number_at(c, {"success_rate"})},
                     {"requests_per_s", number_at(c, {"throughput", "requests_per_s"})},
                     {"arrival_rate_per_s", number_at(c, {"arrival_rate_per_s"})}};
  }
  return {{"usd_per_m_blended", number_at(report, {"cost", "usd_per_m_tokens_blended"})},
          {"offered_requests_per_s", number_at(report, {"derived", "arrival_rate_per_s"})},
          {"arrival_rate_per_s", arrived},
          {"requests_per_s", number_at(report, {"metrics", "throughput", "requests_per_s"})},
          {"output_tokens_per_s_per_gpu", number_at(report, {"benchmark_record", "output_tokens_per_s_per_gpu"})},
          {"tokens_per_s_per_user", number_at(report, {"benchmark_record", "tokens_per_s_per_user"})},
          {"classes", classes}};
}

double num(const nlohmann::json& j, double fallback = NAN) { return j.is_number() ? j.get<double>() : fallback; }

}  // namespace

std::optional<Rejection> simulated_rejection(const specs::PlanSpec& plan, const nlohmann::json& f) {
  if (f.contains("error")) {
    return Rejection{"failed", "error", "", "", NAN, NAN, f["error"].get<std::string>()};
  }
  for (const specs::RequestClass& c : plan.workload_spec.classes) {
    const nlohmann::json& m = f["classes"][c.name];
    const double success = num(m["success_rate"], 0.0);
    if (success < 1.0) {
      return Rejection{"failed",
                       "success_rate",
                       c.name,
                       "",
                       success,
                       1.0,
                       "some measured requests failed (never fit the KV cache or the token budget)"};
    }
    const double ttft = num(m["ttft_p95_ms"], INFINITY);
    if (c.slo.ttft_ms > 0.0 && !(ttft <= c.slo.ttft_ms)) {
      return Rejection{"slo", "ttft_ms", c.name, "", ttft, c.slo.ttft_ms, "simulated TTFT p95 above the objective"};
    }
    const double tpot = num(m["tpot_p95_ms"], INFINITY);
    if (c.slo.tpot_ms > 0.0 && !(tpot <= c.slo.tpot_ms)) {
      return Rejection{"slo", "tpot_ms", c.name, "", tpot, c.slo.tpot_ms, "simulated TPOT p95 above the objective"};
    }
  }
  const double served = num(f["requests_per_s"], 0.0);
  const double arrived = num(f["arrival_rate_per_s"], 0.0);
  if (served < kKeepUpShare * arrived) {
    return Rejection{"capacity",
                     "requests_per_s",
                     "",
                     "",
                     served,
                     arrived,
                     "simulated throughput below 90% of the rate requests arrived at in the window: the queue grows"};
  }
  return std::nullopt;
}

PlanResult run_plan(const specs::PlanSpec& plan, const PlanOptions& options) {
  const PlanSpace space = enumerate_plan_space(plan);
  PlanResult result;
  result.invalid_combinations = space.invalid_combinations;
  std::vector<std::size_t> to_simulate;
  std::vector<nlohmann::json> scenarios;
  // A trace class's lengths and rate come from its file: read it once for the bounds of every candidate (the
  // model, and so the context check, is the plan's), while each simulation replays the file itself.
  std::optional<specs::WorkloadSpec> resolved_workload;
  for (const PlanCandidate& c : space.candidates) {
    PlanEntry e;
    e.candidate = c;
    const nlohmann::json scenario_json = candidate_scenario(plan, c);
    specs::ScenarioSpec s = specs::parse_scenario(scenario_json, options.file, options.base_dir);
    if (!resolved_workload) resolved_workload = simulator::resolve_trace_classes(s).workload;
    s.workload = *resolved_workload;
    e.usd_per_hour = usd_per_hour(s);
    e.rejection = limit_rejection(plan, s);
    if (!e.rejection && options.prune) e.rejection = bound_rejection(plan, s);
    if (!e.rejection) to_simulate.push_back(result.entries.size());
    scenarios.push_back(scenario_json);
    result.entries.push_back(std::move(e));
  }
  report_progress(options.progress_json, "prune", space.candidates.size(), space.candidates.size());

  const auto start = std::chrono::steady_clock::now();
  std::size_t done = 0;
  report_progress(options.progress_json, "simulate", 0, to_simulate.size());
  std::fflush(nullptr);  // a forked child must not write the parent's buffered output again
  simulator::run_in_child_processes(
      to_simulate.size(), options.jobs,
      [&](std::size_t i) {
        // In the worker: the one SimGrid simulation this process will hold.
        try {
          const specs::ScenarioSpec s =
              specs::parse_scenario(scenarios[to_simulate[i]], options.file, options.base_dir);
          simulator::RunOptions run;
          run.file = options.file;
          return figures_of(simulator::simulate(s, run)).dump();
        } catch (const std::exception& e) {
          return nlohmann::json{{"error", e.what()}}.dump();
        }
      },
      [&](std::size_t i, const simulator::ChildOutcome& outcome) {
        PlanEntry& e = result.entries[to_simulate[i]];
        e.simulated = true;
        e.figures = outcome.ok ? nlohmann::json::parse(outcome.output, nullptr, false)
                               : nlohmann::json{{"error", "worker failed: " + outcome.output}};
        if (e.figures.is_discarded()) e.figures = {{"error", "worker returned unreadable output"}};
        e.rejection = simulated_rejection(plan, e.figures);
        report_progress(options.progress_json, "simulate", ++done, to_simulate.size());
      });
  result.simulated = static_cast<int>(to_simulate.size());
  result.simulate_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const PlanEntry& e : result.entries)
    if (e.simulated && !e.rejection) result.ranking.push_back(e.candidate.index);
  const auto cost = [&](int i) { return num(result.entries[i].figures["usd_per_m_blended"], INFINITY); };
  std::stable_sort(result.ranking.begin(), result.ranking.end(), [&](int a, int b) { return cost(a) < cost(b); });
  std::vector<ChartPoint> points;
  for (int i : result.ranking)
    points.push_back({cost(i), num(result.entries[i].figures["tokens_per_s_per_user"]), std::to_string(i)});
  const std::vector<bool> on = pareto_frontier(points, {false, true});
  for (std::size_t k = 0; k < on.size(); ++k)
    if (on[k]) result.frontier.push_back(result.ranking[k]);
  return result;
}

}  // namespace fleetcast::planner
