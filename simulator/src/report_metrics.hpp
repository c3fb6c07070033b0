#pragma once
// Private to the report: the request-level figures (latencies, success, SLOs, goodput) of the measured
// requests, for all of them and class by class, and what each replica was given.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleetcast/simulator/report.hpp"

namespace fleetcast::simulator::detail {

inline constexpr int kQueueWindows = 5;

struct RequestMetrics {
  std::vector<double> ttft_s, tpot_s, e2e_s, queue_s, user_tokens_per_s;
  std::int64_t measured = 0, succeeded = 0, preempted = 0;
  std::int64_t met_slo = 0;             // measured requests that succeeded within every SLO of their class
  std::int64_t finished_in_window = 0;  // successful requests that finished inside the window (throughput)
  std::int64_t good_in_window = 0;      // of those, the ones within their SLOs (goodput)
  std::vector<double> queue_by_window_sum = std::vector<double>(kQueueWindows, 0.0);
  std::vector<double> queue_by_window_count = std::vector<double>(kQueueWindows, 0.0);
  // Prefix cache, over the successful measured requests: prompt tokens, those found cached when first
  // admitted, and TTFT split by whether any were.
  std::int64_t prompt_tokens = 0, hit_tokens = 0, requests_hit = 0;
  std::vector<double> ttft_hit_s, ttft_miss_s;
};

// A request meets its class's SLOs when it succeeded, its TTFT <= ttft_ms and its TPOT <= tpot_ms; an
// objective that is not set is not checked, and a one-token answer has no TPOT to check.
bool meets_slo(const Request& r, const specs::SloSpec& slo);

// One entry per class, in the workload's order, then one for all requests.
std::vector<RequestMetrics> collect_request_metrics(const ReportInputs& in);

// The figures overall and per-class metrics share: counts, success, latencies, per-user speed, SLOs, goodput.
nlohmann::json request_figures_json(const RequestMetrics& m, double window_s);

// The prefix cache's request figures: prompt and hit tokens, hit rate, requests with a hit, TTFT with and without.
nlohmann::json prefix_cache_json(const RequestMetrics& m);

// metrics.by_class: the shared figures plus the class's SLO, arrival rate and token throughput.
nlohmann::json by_class_json(const ReportInputs& in, const std::vector<RequestMetrics>& per_class, double window_s);

// metrics.by_replica: requests placed on each replica over the whole run, their input and output tokens, and
// the replica's mean KV use in the window.
nlohmann::json by_replica_json(const ReportInputs& in);

// metrics.kv_cache: preemptions, recomputes, swaps and swapped bytes over the whole run, and class by class
// (report_kv_cache.cpp).
nlohmann::json kv_cache_json(const ReportInputs& in);

}  // namespace fleetcast::simulator::detail
