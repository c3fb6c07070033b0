// TensorRT-LLM's /perf_metrics records and what they say about a benchmark run (trt_perf_metrics.hpp).
#include "fleetcast/traces/trt_perf_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/stats/summary.hpp"

namespace fleetcast::traces {
namespace {

using nlohmann::json;
constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

class EntryReader {
 public:
  EntryReader(const std::string& file, std::size_t index) : file_(file), where_("entry " + std::to_string(index)) {}

  const json& at(const json& object, const char* key) const {
    const auto it = object.find(key);
    if (!object.is_object() || it == object.end()) throw InputError(file_, where_ + ", " + key, "", "missing");
    return *it;
  }
  long whole(const json& object, const char* key) const {
    const json& v = at(object, key);
    if (!v.is_number_integer()) throw InputError(file_, where_ + ", " + key, v.dump(), "a whole number");
    return v.get<long>();
  }
  // A time in seconds; `optional` ones may be null (NaN).
  double seconds(const json& object, const char* key, bool optional) const {
    const auto it = object.find(key);
    if (optional && (it == object.end() || it->is_null())) return kMissing;
    const json& v = at(object, key);
    if (!v.is_number()) throw InputError(file_, where_ + ", " + key, v.dump(), "seconds as a number");
    return v.get<double>();
  }
  [[noreturn]] void fail(const std::string& field, const std::string& value, const std::string& problem) const {
    throw InputError(file_, where_ + ", " + field, value, problem);
  }

 private:
  std::string file_, where_;
};

std::string shown(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6f", v);
  return text;
}

double median_ms(std::vector<double> seconds) {
  seconds.erase(std::remove_if(seconds.begin(), seconds.end(), [](double v) { return !std::isfinite(v); }),
                seconds.end());
  if (seconds.empty()) return kMissing;
  std::sort(seconds.begin(), seconds.end());
  return 1e3 * stats::percentile_sorted(seconds, 50.0);
}

std::string ms_text(double ms) {
  if (!std::isfinite(ms)) return "not given";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", ms);
  return text;
}

}  // namespace

std::vector<RequestTiming> parse_trt_perf_metrics(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(file, "", "", std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_array()) throw InputError(file, "", "", "a JSON list of requests, as GET /perf_metrics returns");
  std::vector<RequestTiming> out;
  for (std::size_t i = 0; i < root.size(); ++i) {
    const EntryReader read(file, i);
    const json& e = root[i];
    RequestTiming t;
    t.request_id = read.whole(e, "request_id");
    const json& perf = read.at(e, "perf_metrics");
    t.first_iter = read.whole(perf, "first_iter");
    t.last_iter = read.whole(perf, "last_iter");
    if (t.last_iter < t.first_iter) read.fail("last_iter", std::to_string(t.last_iter), "at least first_iter");
    const json& times = read.at(perf, "timing_metrics");
    t.server_arrival_s = read.seconds(times, "server_arrival_time", true);
    t.arrival_s = read.seconds(times, "arrival_time", false);
    t.first_scheduled_s = read.seconds(times, "first_scheduled_time", false);
    t.first_token_s = read.seconds(times, "first_token_time", false);
    t.server_first_token_s = read.seconds(times, "server_first_token_time", true);
    t.last_token_s = read.seconds(times, "last_token_time", false);
    const std::pair<const char*, double> order[] = {{"arrival_time", t.arrival_s},
                                                    {"first_scheduled_time", t.first_scheduled_s},
                                                    {"first_token_time", t.first_token_s},
                                                    {"last_token_time", t.last_token_s}};
    for (std::size_t k = 1; k < std::size(order); ++k) {
      if (order[k].second < order[k - 1].second) {
        read.fail(order[k].first, shown(order[k].second), std::string("not before ") + order[k - 1].first);
      }
    }
    out.push_back(t);
  }
  return out;
}

std::vector<RequestTiming> read_trt_perf_metrics(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the per-request timing file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trt_perf_metrics(text.str(), path.string());
}

EngineTiming summarize_engine_timing(std::vector<RequestTiming> entries, long measured, long output_tokens,
                                     const std::string& file) {
  if (measured <= 0 || static_cast<long>(entries.size()) < measured) {
    throw InputError(
        file, "--perf-metrics", std::to_string(entries.size()) + " requests",
        "the benchmark measured " + std::to_string(measured) +
            ": every one must be there (raise perf_metrics_max_requests, fetch /perf_metrics after the run)");
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const RequestTiming& a, const RequestTiming& b) { return a.request_id < b.request_id; });
  EngineTiming t;
  t.requests = measured;
  t.warmups_left_out = static_cast<long>(entries.size()) - measured;
  std::vector<double> front, wait, context, response, iteration;
  for (auto it = entries.end() - measured; it != entries.end(); ++it) {
    const long iterations = it->last_iter - it->first_iter;
    t.decode_iterations += iterations;
    front.push_back(it->arrival_s - it->server_arrival_s);
    wait.push_back(it->first_scheduled_s - it->arrival_s);
    context.push_back(it->first_token_s - it->first_scheduled_s);
    response.push_back(it->server_first_token_s - it->first_token_s);
    if (iterations > 0) iteration.push_back((it->last_token_s - it->first_token_s) / static_cast<double>(iterations));
  }
  if (t.decode_iterations <= 0) {
    throw InputError(file, "--perf-metrics", "", "no measured request ran a decode iteration (one-token answers)");
  }
  if (output_tokens > measured) {
    t.tokens_per_iteration = static_cast<double>(output_tokens - measured) / static_cast<double>(t.decode_iterations);
  }
  t.front_end_ms = median_ms(front);
  t.wait_ms = median_ms(wait);
  t.context_ms = median_ms(context);
  t.response_ms = median_ms(response);
  t.decode_iteration_ms = median_ms(iteration);
  return t;
}

void apply_engine_timing(const EngineTiming& t, MeasuredServingRun& run) {
  char line[400];
  std::snprintf(
      line, sizeof line,
      "engine timing (TensorRT-LLM perf_metrics, %ld requests, %ld warm-ups left out; medians): front end %s, "
      "wait %s, prompt iteration %s, response %s; decode iteration %s; %.2f tokens per decode iteration",
      t.requests, t.warmups_left_out, ms_text(t.front_end_ms).c_str(), ms_text(t.wait_ms).c_str(),
      ms_text(t.context_ms).c_str(), ms_text(t.response_ms).c_str(), ms_text(t.decode_iteration_ms).c_str(),
      t.tokens_per_iteration);
  run.notes += (run.notes.empty() ? "" : "; ") + std::string(line);
  const bool drafts = !run.spec_method.empty() || run.spec_draft_tokens > 0;
  if (!drafts || t.tokens_per_iteration <= 0.0) return;
  if (run.spec_accept_length > 0.0) {
    char kept[160];
    std::snprintf(kept, sizeof kept, "accepted length %.2f from the benchmark file kept (perf_metrics: %.2f)",
                  run.spec_accept_length, t.tokens_per_iteration);
    run.notes += "; " + std::string(kept);
    return;
  }
  run.spec_accept_length = std::max(1.0, t.tokens_per_iteration);
  run.notes += "; accepted length per step from the engine's decode iterations";
}

}  // namespace fleetcast::traces
