// AIPerf's and genai-perf's JSON exports as vLLM-shaped benchmark records (perf_export.hpp). Where each key lives:
//   metrics: top-level blocks time_to_first_token, inter_token_latency, request_latency, input_sequence_length,
//     output_sequence_length, request_count (AIPerf), error_request_count (AIPerf), request_throughput and
//     benchmark_duration; AIPerf's first releases nest them under "records" with TTFT tagged "ttft".
//   input_config, by release: AIPerf's loadgen.{concurrency, request_rate, request_count, warmup_request_count},
//     endpoint.model_names and input.prompt.{input_tokens, output_tokens}.{mean, stddev}; AIPerf's v2 config's
//     phases[] ({kind: warmup|profiling, concurrency, rate, requests}) and models.items[].name; genai-perf's
//     perf_analyzer.{stimulus.{concurrency, request_rate}, warmup_request_count, measurement.{mode, num}},
//     model_names and input.{synthetic_tokens, output_tokens}.{mean, stddev}; genai-perf's argparse-era flat keys
//     concurrency, request_rate, model, synthetic_input_tokens_{mean, stddev}, output_tokens_{mean, stddev},
//     num_prompts.
#include "perf_export.hpp"

#include <cmath>
#include <optional>

namespace fleetcast::traces::detail {
namespace {

using nlohmann::json;

// The value at a path of keys, or nullptr where any step is missing.
const json* at(const json& r, std::initializer_list<const char*> path) {
  const json* node = &r;
  for (const char* key : path) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end() || it->is_null()) return nullptr;
    node = &*it;
  }
  return node;
}

// The first path that holds a value.
const json* first_of(const json& r, std::initializer_list<std::initializer_list<const char*>> paths) {
  for (const auto& path : paths) {
    if (const json* v = at(r, path)) return v;
  }
  return nullptr;
}

// A metric's block: at the top level, or under AIPerf's early "records" by its tag there.
const json* metric(const json& r, const char* name, const char* early_tag) {
  if (const json* m = at(r, {name}); m && m->is_object()) return m;
  if (const json* m = at(r, {"records", early_tag}); m && m->is_object()) return m;
  return nullptr;
}

// Milliseconds per unit of a latency block.
std::optional<double> ms_per_unit(const std::string& unit) {
  if (unit == "ms") return 1.0;
  if (unit == "us") return 1e-3;
  if (unit == "ns") return 1e-6;
  if (unit == "sec" || unit == "s") return 1e3;
  return std::nullopt;
}

std::string shown(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The profiling phase of AIPerf's v2 config, or of the kind asked for.
const json* phase(const json& config, const char* kind) {
  const json* phases = at(config, {"phases"});
  if (phases == nullptr || !phases->is_array()) return nullptr;
  for (const json& p : *phases) {
    if (p.is_object() && p.value("kind", "") == kind) return &p;
  }
  return nullptr;
}

}  // namespace

bool is_perf_export(const json& r) {
  return r.is_object() && (metric(r, "time_to_first_token", "ttft") != nullptr ||
                           (r.contains("input_config") && r.contains("request_latency")));
}

std::variant<json, PerfExportProblem> perf_export_as_bench_record(const json& r) {
  json out = json::object();
  const json empty = json::object();
  const json& config = r.contains("input_config") && r["input_config"].is_object() ? r["input_config"] : empty;
  const bool aiperf = r.contains("aiperf_version") || r.contains("records") || at(config, {"loadgen"}) != nullptr ||
                      at(config, {"phases"}) != nullptr;
  out["benchmark_tool"] = aiperf ? "aiperf" : "genai-perf";
  out["endpoint_type"] = out["benchmark_tool"];

  // Latencies in ms, with their percentiles under vLLM's names.
  for (const auto& [name, early, as] : {std::tuple{"time_to_first_token", "ttft", "ttft_ms"},
                                        std::tuple{"inter_token_latency", "inter_token_latency", "tpot_ms"},
                                        std::tuple{"request_latency", "request_latency", "e2el_ms"}}) {
    const json* m = metric(r, name, early);
    if (m == nullptr) {
      if (std::string(as) == "e2el_ms") continue;
      return PerfExportProblem{
          name, "",
          std::string("missing: ") + (std::string(as) == "ttft_ms" ? "the run did not stream (TTFT needs streaming)"
                                                                   : "every streamed run has it")};
    }
    const std::string unit = m->value("unit", "ms");
    const auto scale = ms_per_unit(unit);
    if (!scale) return PerfExportProblem{std::string(name) + ".unit", unit, "a time unit: ms, us, ns or sec"};
    for (const auto& [stat, key] : {std::pair{"avg", "mean_"}, std::pair{"p50", "median_"}, std::pair{"p90", "p90_"},
                                    std::pair{"p95", "p95_"}, std::pair{"p99", "p99_"}}) {
      const json* v = at(*m, {stat});
      if (v == nullptr) continue;
      if (!v->is_number()) return PerfExportProblem{std::string(name) + "." + stat, shown(*v), "not a number"};
      out[std::string(key) + as] = v->get<double>() * *scale;
    }
  }

  // How many requests were measured: AIPerf's request_count, else a latency block's count, else the configuration.
  const json* profiling = phase(config, "profiling");
  const json* count = first_of(r, {{"request_count", "avg"},
                                   {"records", "request_count", "avg"},
                                   {"time_to_first_token", "count"},
                                   {"request_latency", "count"}});
  if (count == nullptr) {
    count = first_of(
        config,
        {{"loadgen", "request_count"}, {"perf_analyzer", "measurement", "num"}, {"request_count"}, {"num_prompts"}});
    if (const json* mode = at(config, {"perf_analyzer", "measurement", "mode"});
        mode && count == at(config, {"perf_analyzer", "measurement", "num"}) && shown(*mode) != "request_count") {
      count = nullptr;  // a time-window measurement's num is milliseconds, not requests
    }
    if (count == nullptr && profiling != nullptr) count = at(*profiling, {"requests"});
  }
  if (count == nullptr || !count->is_number() || !(count->get<double>() >= 1.0)) {
    return PerfExportProblem{"request_count", count ? shown(*count) : "",
                             "how many requests were measured is not in the file (request_count, a latency's count, "
                             "or input_config's request count)"};
  }
  const double completed = std::round(count->get<double>());
  out["completed"] = completed;

  // Token totals from the per-request means, else the configured means.
  for (const auto& [name, total, configured] : {std::tuple{"input_sequence_length", "total_input_tokens", 0},
                                                std::tuple{"output_sequence_length", "total_output_tokens", 1}}) {
    const json* mean = first_of(r, {{name, "avg"}, {"records", name, "avg"}});
    if (mean == nullptr) {
      mean = configured == 0 ? first_of(config, {{"input", "prompt", "input_tokens", "mean"},
                                                 {"input", "synthetic_tokens", "mean"},
                                                 {"synthetic_input_tokens_mean"}})
                             : first_of(config, {{"input", "prompt", "output_tokens", "mean"},
                                                 {"input", "output_tokens", "mean"},
                                                 {"output_tokens_mean"}});
    }
    if (mean == nullptr || !mean->is_number() || !(mean->get<double>() > 0.0)) {
      return PerfExportProblem{name, mean ? shown(*mean) : "", "the mean length is not in the file"};
    }
    out[total] = mean->get<double>() * completed;
  }
  for (const auto* stddev : {first_of(config, {{"input", "prompt", "input_tokens", "stddev"},
                                               {"input", "synthetic_tokens", "stddev"},
                                               {"synthetic_input_tokens_stddev"}}),
                             first_of(config, {{"input", "prompt", "output_tokens", "stddev"},
                                               {"input", "output_tokens", "stddev"},
                                               {"output_tokens_stddev"}})}) {
    if (stddev && stddev->is_number() && stddev->get<double>() > 0.0) {
      out["lengths_note"] = "the client drew lengths around its means (stddev > 0): simulated at the means";
    }
  }

  // Traffic: a concurrency is that many closed-loop clients, a rate open loop.
  const json* concurrency =
      first_of(config, {{"loadgen", "concurrency"}, {"perf_analyzer", "stimulus", "concurrency"}, {"concurrency"}});
  if (concurrency == nullptr && profiling != nullptr) concurrency = at(*profiling, {"concurrency"});
  const json* rate =
      first_of(config, {{"loadgen", "request_rate"}, {"perf_analyzer", "stimulus", "request_rate"}, {"request_rate"}});
  if (rate == nullptr && profiling != nullptr) rate = at(*profiling, {"rate"});
  if (concurrency != nullptr && !concurrency->is_number()) {
    return PerfExportProblem{"input_config concurrency", shown(*concurrency),
                             "one concurrency per file (a sweep writes one file per point)"};
  }
  if (rate != nullptr && !rate->is_number()) {
    return PerfExportProblem{"input_config request_rate", shown(*rate), "one rate per file"};
  }
  if (rate != nullptr) {
    out["request_rate"] = rate->get<double>();
    if (concurrency != nullptr) out["max_concurrency"] = concurrency->get<double>();
  } else {
    // Neither: both clients' default, one request at a time.
    out["max_concurrency"] = concurrency != nullptr ? concurrency->get<double>() : 1.0;
    out["request_rate"] = "inf";
  }

  // Warm-up requests are sent first and left out of every metric.
  const json* warmup = first_of(config, {{"loadgen", "warmup_request_count"},
                                         {"perf_analyzer", "warmup_request_count"},
                                         {"input", "request_count", "warmup"},
                                         {"warmup_request_count"}});
  if (warmup == nullptr) {
    if (const json* w = phase(config, "warmup")) warmup = at(*w, {"requests"});
  }
  const double warmups = warmup && warmup->is_number() && warmup->get<double>() > 0.0 ? warmup->get<double>() : 0.0;
  out["warmup_requests"] = std::round(warmups);
  out["num_prompts"] = completed + std::round(warmups);

  // The served model: the first of the names the client sent to.
  if (const json* names = first_of(config, {{"endpoint", "model_names"}, {"model_names"}, {"model"}})) {
    if (names->is_array() && !names->empty() && (*names)[0].is_string()) out["model_id"] = (*names)[0];
    if (names->is_string()) out["model_id"] = *names;
  }
  if (const json* items = at(config, {"models", "items"});
      items && items->is_array() && !items->empty() && (*items)[0].is_object()) {
    out["model_id"] = (*items)[0].value("name", "");
  }
  if (const json* errors = first_of(r, {{"error_request_count", "avg"}, {"records", "error_request_count", "avg"}});
      errors && errors->is_number()) {
    out["failed"] = errors->get<double>();
  }
  return out;
}

}  // namespace fleetcast::traces::detail
