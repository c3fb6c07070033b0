// The plan's JSON and text outputs (plan_report.hpp).
#include "fleetcast/planner/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/planner/slo_margin.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::planner {
namespace {

// "h200 vllm": a (hardware, runtime) pair, which has its own profile.
std::string pair_key(const std::string& hardware, const std::string& runtime) { return hardware + " " + runtime; }

nlohmann::json entry_json(const PlanEntry& e) {
  nlohmann::json j = candidate_json(e.candidate);
  j["description"] = candidate_text(e.candidate);
  j["usd_per_hour"] = e.usd_per_hour;
  j["stage"] = e.simulated ? "simulated" : "pruned";
  if (e.simulated) j["figures"] = e.figures;
  if (e.rejection) j["rejection"] = to_json(*e.rejection);
  return j;
}

std::string fmt(const char* format, double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

double num(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : NAN; }

// The worst class's p95 of `key`: the figure an SLO miss would show first.
double worst(const nlohmann::json& figures, const char* key) {
  double w = NAN;
  for (const auto& [name, c] : figures["classes"].items()) {
    const double v = num(c[key]);
    if (std::isfinite(v) && !(v <= w)) w = v;
  }
  return w;
}

// "18%!/62%": the TTFT and TPOT headroom below the objectives ("-": none set), "!" where it is below the error on
// record of the profile's forecasts.
std::string headroom_text(const nlohmann::json& e) {
  const nlohmann::json headroom = e.value("slo_headroom", nlohmann::json());
  const nlohmann::json within = e.value("within_error", nlohmann::json::array());
  const auto one = [&](const char* metric) {
    const double h = headroom.is_object() ? num(headroom[metric]) : NAN;
    const bool flagged = std::find(within.begin(), within.end(), metric) != within.end();
    return fmt("%.0f%%", 100.0 * h) + (flagged ? "!" : "");
  };
  return one("ttft") + "/" + one("tpot");
}

// Under the ranking: what the headroom column means, and the cheapest configuration whose headroom clears the error
// on record on every objective.
std::string beyond_error_text(const nlohmann::json& out) {
  std::string text =
      "headroom: TTFT/TPOT p95 below the tightest objective; !: less than its profile's forecasts need by their error "
      "on measured runs (the median error less what ran high), so the forecast cannot tell that objective is met\n";
  std::string needed;
  for (const nlohmann::json& p : out.value("profiles", nlohmann::json::array())) {
    const ErrorOnRecord e = error_on_record(p);
    if (e.figure.empty()) continue;
    std::string where = e.figure == "unseen_model"   ? "models left out of its fit"
                        : e.figure == "unfitted_gpu" ? "fitted GPUs given its pick"
                                                     : "held-out runs";
    // Another maker's GPU: its own kernels' shortfall is not in the figure, so what it needs is at least this.
    const nlohmann::json unfitted = p.value("unfitted_gpu_error", nlohmann::json());
    if (e.figure == "unfitted_gpu" && unfitted.is_object()) {
      std::string unscored;
      if (unfitted.contains("unscored_vendor")) unscored += unfitted["unscored_vendor"].get<std::string>() + "'s";
      if (unfitted.contains("unscored_scale_up"))
        unscored +=
            (unscored.empty() ? "on a " : " or on a ") + unfitted["unscored_scale_up"].get<std::string>() + " scale-up";
      if (!unscored.empty()) where += ", none of them " + unscored + ": at least this";
    }
    needed += (needed.empty() ? "" : "; ") +
              pair_key(p["hardware"].get<std::string>(), p["runtime"].get<std::string>()) + " " +
              fmt("%.0f%%", 100.0 * needed_headroom(e.ttft, e.ttft_ratio)) + "/" +
              fmt("%.0f%%", 100.0 * needed_headroom(e.tpot, e.tpot_ratio)) + " (" + where + ")";
  }
  if (!needed.empty()) text += "headroom needed: " + needed + "\n";
  const nlohmann::json& best = out.value("best_beyond_error", nlohmann::json());
  bool any_error = false;
  for (const nlohmann::json& e : out["feasible"])
    any_error = any_error || !e.value("error_on_record", nlohmann::json()).is_null();
  if (best.is_object()) {
    text += "cheapest beyond the error on record: rank " + std::to_string(best["rank"].get<int>()) + ", config " +
            std::to_string(best["config"].get<int>()) + " " + best["description"].get<std::string>() + " (" +
            fmt("%.4f", num(best["figures"]["usd_per_m_blended"])) + " $/M tok)\n";
  } else if (any_error) {
    text += "no feasible configuration clears its profile's error on record on every objective\n";
  } else {
    text += "no error on record for these profiles: the headroom cannot be weighed\n";
  }
  return text;
}

// The profile behind each (hardware, runtime) pair's figures, with its figures outside the kernel-level ones
// (calibration/kernel_caveats.hpp): a ranking that leans on a fit's GEMMs at peak is worth knowing before buying.
// Pairs the engine does not run on are not searched and have none.
nlohmann::json profiles_json(const specs::PlanSpec& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, runtime] : plan_engine_pairs(plan)) {
    const specs::HardwareSpec hw = specs::hardware_preset(name);
    // As the plan's simulations take it for this model (a dense model on a fit made on MoE models alone: the
    // kernel-level GEMM and attention rates, model_scope.hpp).
    const calibration::Profile profile = calibration::profile_for(hw, runtime, plan.model_spec);
    out.push_back(
        {{"hardware", name},
         {"runtime", runtime},
         {"kind", profile.kind},
         {"kernel_caveats",
          calibration::to_json(calibration::kernel_caveats(profile, calibration::datasheet_profile_for(hw, runtime)))},
         {"measured_error", calibration::measured_error_json(profile, runtime, plan.model_spec)},
         {"unseen_model_error", calibration::unseen_model_error_json(profile, runtime, plan.model_spec)},
         {"unfitted_gpu_error", calibration::unfitted_gpu_error_json(hw, profile, runtime, plan.model_spec)}});
  }
  return out;
}

}  // namespace

nlohmann::json plan_json(const specs::PlanSpec& plan, const PlanResult& result) {
  const nlohmann::json profiles = profiles_json(plan);
  std::map<std::string, ErrorOnRecord> error_by_pair;
  for (const nlohmann::json& p : profiles)
    error_by_pair[pair_key(p["hardware"].get<std::string>(), p["runtime"].get<std::string>())] = error_on_record(p);
  nlohmann::json feasible = nlohmann::json::array();
  // The cheapest whose headroom clears its profile's error on record on every objective.
  nlohmann::json beyond_error = nullptr;
  for (std::size_t k = 0; k < result.ranking.size(); ++k) {
    const int i = result.ranking[k];
    const PlanEntry& e = result.entries[i];
    nlohmann::json j = entry_json(e);
    j["rank"] = k + 1;
    j["pareto"] = std::find(result.frontier.begin(), result.frontier.end(), i) != result.frontier.end();
    const ErrorOnRecord& error = error_by_pair[pair_key(e.candidate.hardware, e.candidate.runtime)];
    j.update(margin_json(slo_headroom(plan, e.figures), error));
    if (beyond_error.is_null() && !error.figure.empty() && j["within_error"].empty()) beyond_error = j;
    feasible.push_back(std::move(j));
  }
  nlohmann::json rejected = nlohmann::json::array();
  std::map<std::string, int> pruned_by, simulated_by;
  for (const PlanEntry& e : result.entries) {
    if (!e.rejection) continue;
    (e.simulated ? simulated_by : pruned_by)[e.rejection->reason] += 1;
    rejected.push_back(entry_json(e));
  }
  const int pruned = static_cast<int>(result.entries.size()) - result.simulated;
  nlohmann::json not_searched = nlohmann::json::array();
  for (const UnsupportedPair& u : plan_unsupported_pairs(plan))
    not_searched.push_back({{"hardware", u.hardware}, {"runtime", u.runtime}, {"reason", u.reason}});
  return {{"schema", "fleetcast.plan/1"},
          {"plan", plan.resolved},
          {"summary",
           {{"invalid_combinations", result.invalid_combinations},
            {"engines_not_searched", not_searched},
            {"candidates", result.entries.size()},
            {"pruned", pruned},
            {"pruned_by_reason", pruned_by},
            {"simulated", result.simulated},
            {"rejected_after_simulation_by_reason", simulated_by},
            {"feasible", result.ranking.size()}}},
          {"best", feasible.empty() ? nlohmann::json(nullptr) : feasible[0]},
          {"best_beyond_error", beyond_error},
          {"feasible", feasible},
          {"pareto", result.frontier},
          {"rejected", rejected},
          {"profiles", profiles}};
}

std::string plan_text(const nlohmann::json& out, int rows) {
  std::string text;
  char line[512];
  const nlohmann::json& s = out["summary"];
  std::snprintf(line, sizeof line,
                "%d candidates (%d combinations made no deployment): %d pruned, %d simulated, %d feasible\n\n",
                s["candidates"].get<int>(), s["invalid_combinations"].get<int>(), s["pruned"].get<int>(),
                s["simulated"].get<int>(), s["feasible"].get<int>());
  text += line;
  for (const nlohmann::json& u : s.value("engines_not_searched", nlohmann::json::array())) {
    text += "not searched: " + u["runtime"].get<std::string>() + " on " + u["hardware"].get<std::string>() + " (" +
            u["reason"].get<std::string>() + ")\n";
  }
  if (s.contains("engines_not_searched") && !s["engines_not_searched"].empty()) text += "\n";
  std::snprintf(line, sizeof line, "%4s %6s  %-57s %5s %9s %9s %11s %11s %-11s %s\n", "rank", "config", "configuration",
                "GPUs", "$/hour", "$/M tok", "TTFT p95 ms", "TPOT p95 ms", "headroom", "pareto");
  text += line;
  int shown = 0;
  for (const nlohmann::json& e : out["feasible"]) {
    if (shown++ >= rows) break;
    std::snprintf(line, sizeof line, "%4d %6d  %-57s %5d %9s %9s %11s %11s %-11s %s\n", e["rank"].get<int>(),
                  e["config"].get<int>(), e["description"].get<std::string>().c_str(), e["gpus"].get<int>(),
                  fmt("%.2f", num(e["usd_per_hour"])).c_str(),
                  fmt("%.4f", num(e["figures"]["usd_per_m_blended"])).c_str(),
                  fmt("%.1f", worst(e["figures"], "ttft_p95_ms")).c_str(),
                  fmt("%.2f", worst(e["figures"], "tpot_p95_ms")).c_str(), headroom_text(e).c_str(),
                  e["pareto"].get<bool>() ? "*" : "");
    text += line;
  }
  if (out["feasible"].empty()) text += "  (no configuration meets every SLO within the limits)\n";
  if (static_cast<int>(out["feasible"].size()) > rows)
    text += "  ... " + std::to_string(out["feasible"].size() - rows) + " more in the JSON output\n";
  if (!out["feasible"].empty()) text += beyond_error_text(out);

  text += "\nrejected by reason:";
  for (const char* stage : {"pruned_by_reason", "rejected_after_simulation_by_reason"}) {
    for (const auto& [reason, n] : s[stage].items())
      text += std::string(" ") + reason + (stage[0] == 'p' ? " (pruned) " : " (simulated) ") + n.dump() + ";";
  }
  text += "\n";
  shown = 0;
  for (const nlohmann::json& e : out["rejected"]) {
    if (shown++ >= rows) break;
    const nlohmann::json& r = e["rejection"];
    std::string who = r.value("class", "");
    if (r.contains("pool")) who += (who.empty() ? "" : " ") + std::string("pool ") + r["pool"].get<std::string>();
    std::snprintf(line, sizeof line, "%6d  %-57s %-9s %-9s %s%s%s\n", e["config"].get<int>(),
                  e["description"].get<std::string>().c_str(), e["stage"].get<std::string>().c_str(),
                  r["reason"].get<std::string>().c_str(), who.empty() ? "" : ("[" + who + "] ").c_str(),
                  r["detail"].get<std::string>().c_str(),
                  r["value"].is_number() ? (" (" + r["metric"].get<std::string>() + " " + fmt("%.4g", num(r["value"])) +
                                            " vs " + fmt("%.4g", num(r["limit"])) + ")")
                                               .c_str()
                                         : "");
    text += line;
  }
  if (static_cast<int>(out["rejected"].size()) > rows)
    text += "  ... " + std::to_string(out["rejected"].size() - rows) + " more in the JSON output\n";

  // Last, as the report's summary does: how wrong each profile was on measured runs it never saw, and where the
  // figures above lean on a fit's stand-ins.
  const nlohmann::json profiles = out.value("profiles", nlohmann::json::array());
  if (!profiles.empty()) {
    text +=
        "\nprofiles behind these figures (the error each showed on held-out measured runs; figures outside the "
        "kernel-level ones, >: faster than any kernel measured, <: under half of it):\n";
  }
  for (const nlohmann::json& p : profiles) {
    const nlohmann::json& measured = p.value("measured_error", nlohmann::json());
    text += "  " + p["hardware"].get<std::string>() + " " + p["runtime"].get<std::string>() + " (" +
            p["kind"].get<std::string>() + "): " +
            (measured.is_object() ? calibration::describe(calibration::parse_pair_accuracy(measured, "plan output"))
                                  : std::string("no measured error on record")) +
            "\n";
    const nlohmann::json& unseen = p.value("unseen_model_error", nlohmann::json());
    if (unseen.is_object()) {
      text +=
          "    " +
          calibration::describe(calibration::parse_unseen_model_error(unseen, "plan output", "unseen_model_error.")) +
          "\n";
    }
    const nlohmann::json& unfitted = p.value("unfitted_gpu_error", nlohmann::json());
    if (unfitted.is_object()) {
      text +=
          "    " +
          calibration::describe(calibration::parse_unfitted_gpu_error(unfitted, "plan output", "unfitted_gpu_error.")) +
          "\n";
    }
    const std::string caveats = calibration::short_list(p["kernel_caveats"]);
    if (!caveats.empty()) text += "    outside the kernel-level figures: " + caveats + "\n";
  }
  return text;
}

}  // namespace fleetcast::planner
