// The readable summary printed to stdout after a simulation.
#include <cstdio>
#include <string>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/simulator/report.hpp"

namespace fleetcast::simulator {
namespace {

double num(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : NAN; }

std::string line(const char* label, const std::string& value) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-34s %s\n", label, value.c_str());
  return buf;
}

template <class... Args>
std::string fmt(const char* f, Args... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

// One line per class: how many, TTFT, TPOT, goodput and SLO attainment.
std::string class_lines(const nlohmann::json& by_class) {
  std::string out;
  for (const auto& [name, c] : by_class.items()) {
    char figures[200];
    std::snprintf(figures, sizeof figures,
                  "%.0f req, TTFT p50/p95 %.1f/%.1f ms, TPOT mean %.2f ms, goodput %.2f req/s (%.1f %% in SLO)",
                  num(c["requests_measured"]), num(c["ttft_ms"]["p50"]), num(c["ttft_ms"]["p95"]),
                  num(c["tpot_ms"]["mean"]), num(c["goodput_requests_per_s"]), 100.0 * num(c["slo_attainment"]));
    out += line(("class " + name).c_str(), figures);
  }
  return out;
}

}  // namespace

std::string format_summary(const nlohmann::json& r) {
  const auto& sc = r["scenario"];
  const auto& d = r["derived"];
  const auto& m = r["metrics"];
  const auto& t = m["throughput"];
  const auto& c = r["cost"];
  const auto layout = [](const nlohmann::json& rep) {
    return "tp " + std::to_string(rep["tp"].get<int>()) + " pp " + std::to_string(rep["pp"].get<int>()) + " ep " +
           std::to_string(rep["ep"].get<int>()) +
           (rep.value("dp", 1) > 1 ? " dp " + std::to_string(rep["dp"].get<int>()) : "");
  };
  std::string replicas;
  if (d.contains("pools")) {  // disaggregated: each pool's replicas and layout
    for (const char* pool : {"prefill", "decode"}) {
      const auto& p = d["pools"][pool];
      replicas += (replicas.empty() ? "" : "; ") + std::string(pool) + " " + std::to_string(p["replicas"].get<int>()) +
                  " replicas of " + layout(p["replica"]);
    }
  } else {
    replicas = std::to_string(d["replicas"].get<int>()) + " replicas of " + layout(sc["deployment"]["replica"]);
  }
  std::string out;
  out += "fleetcast forecast: " + sc["name"].get<std::string>() + "\n";
  out += line("model", sc["model"]["name"].get<std::string>());
  out += line("deployment", std::to_string(d["gpus"].get<int>()) + " x " +
                                sc["deployment"]["hardware"]["name"].get<std::string>() + ", " + replicas);
  out += line("arrivals", r["benchmark_record"]["arrival"].get<std::string>() +
                              fmt(" (capacity estimate %.2f req/s)", num(d["capacity_estimate"]["requests_per_s"])));
  out += line("measured", fmt("%.0f requests over %.1f s (steady state)", num(m["requests_measured"]),
                              num(r["measurement"]["window_s"])));
  out += line("success rate", fmt("%.1f %%", 100.0 * num(m["success_rate"])));
  out += line("TTFT p50 / p95 / p99", fmt("%.1f / %.1f / %.1f ms", num(m["ttft_ms"]["p50"]), num(m["ttft_ms"]["p95"]),
                                          num(m["ttft_ms"]["p99"])));
  out += line("TPOT mean / p95", fmt("%.2f / %.2f ms", num(m["tpot_ms"]["mean"]), num(m["tpot_ms"]["p95"])));
  out += line("ITL p50 / p99", fmt("%.2f / %.2f ms", num(m["itl_ms"]["p50"]), num(m["itl_ms"]["p99"])));
  out += line("end-to-end p50 / p95",
              fmt("%.0f / %.0f ms", num(m["e2e_latency_ms"]["p50"]), num(m["e2e_latency_ms"]["p95"])));
  out += line("queue time mean", fmt("%.1f ms", num(m["queue_time_ms"]["mean"])));
  out += line("tokens/s per user", fmt("%.1f", num(m["tokens_per_s_per_user"]["mean"])));
  if (m.contains("speculative")) {
    const auto& sp = m["speculative"];
    out += line("acceptance length sim / analytic",
                fmt("%.3f / %.3f tokens per step, %.0f drafts", num(sp["mean_acceptance_length"]),
                    num(sp["analytic_acceptance_length"]), num(sp["num_draft_tokens"])));
  }
  out += line("goodput (within SLOs)", fmt("%.2f req/s, %.1f %% of requests", num(m["goodput_requests_per_s"]),
                                           100.0 * num(m["slo_attainment"])));
  if (m["by_class"].size() > 1) out += class_lines(m["by_class"]);
  out += line("throughput per GPU (in / out)",
              fmt("%.0f / %.0f tokens/s", num(t["input_tokens_per_s_per_gpu"]), num(t["output_tokens_per_s_per_gpu"])));
  out += line("KV cache used (mean)", fmt("%.1f %%", 100.0 * num(m["kv_cache_used_share"]["mean"])));
  out += line("GPU busy", fmt("%.1f %%", 100.0 * num(m["gpu_busy_share"])));
  out += line("cost per hour", fmt("$%.2f", num(c["usd_per_hour"])));
  out += line("$/M input / output / blended", fmt("$%.3f / $%.3f / $%.3f", num(c["usd_per_m_input"]),
                                                  num(c["usd_per_m_output"]), num(c["usd_per_m_tokens_blended"])));
  // The profile's figures outside the kernel-level ones: the forecast leans on a fit's stand-ins there.
  // How wrong this profile was on measured runs it never saw, or that none are on record: the error bar of the above.
  const nlohmann::json measured = d.value("profile_measured_error", nlohmann::json());
  const std::string pair = d["profile"]["hardware"].get<std::string>() + " " +
                           r["scenario"]["deployment"].value("runtime", std::string("vllm"));
  if (measured.is_object()) {
    out +=
        "  profile (" + d["profile"]["kind"].get<std::string>() + ") measured on " + pair + ": " +
        calibration::describe(calibration::parse_pair_accuracy(measured, "report", "derived.profile_measured_error.")) +
        "\n";
  } else {
    out += "  profile (" + d["profile"]["kind"].get<std::string>() + ") has no measured error on record for " + pair +
           " (no held-out measured runs of it on this kind of model, dense or MoE)\n";
  }
  const nlohmann::json unseen = d.value("profile_unseen_model_error", nlohmann::json());
  if (unseen.is_object()) {
    out += "  profile (" + d["profile"]["kind"].get<std::string>() + ") " +
           calibration::describe(
               calibration::parse_unseen_model_error(unseen, "report", "derived.profile_unseen_model_error.")) +
           "\n";
  }
  const nlohmann::json unfitted = d.value("profile_unfitted_gpu_error", nlohmann::json());
  if (unfitted.is_object()) {
    out += "  profile (" + d["profile"]["kind"].get<std::string>() + ") " +
           calibration::describe(
               calibration::parse_unfitted_gpu_error(unfitted, "report", "derived.profile_unfitted_gpu_error.")) +
           "\n";
  }
  const std::string caveats = calibration::short_list(d.value("profile_kernel_caveats", nlohmann::json::array()));
  if (!caveats.empty())
    out += "  profile (" + d["profile"]["kind"].get<std::string>() + ") outside the kernel-level figures: " + caveats +
           "\n";
  return out;
}

}  // namespace fleetcast::simulator
