#include "fleetcast/simulator/chrome_trace.hpp"

#include <nlohmann/json.hpp>

namespace fleetcast::simulator {
namespace {

constexpr double kMicrosPerSecond = 1e6;  // the Trace Event Format's ts and dur are in microseconds

void append(std::string& out, const nlohmann::json& event, bool& first) {
  out += first ? "\n" : ",\n";
  out += event.dump();
  first = false;
}

nlohmann::json step_event(const StepRecord& s) {
  nlohmann::json by_op = nlohmann::json::object();
  for (int i = 0; i < kNumOps; ++i) {
    const double t = s.op_time_s[static_cast<std::size_t>(i)];
    if (t != 0.0) by_op[std::string(to_string(static_cast<Op>(i)))] = t * kMicrosPerSecond;
  }
  return {{"name", "step"},
          {"cat", "engine"},
          {"ph", "X"},
          {"pid", s.replica},
          {"tid", 0},
          {"ts", s.start_s * kMicrosPerSecond},
          {"dur", (s.end_s - s.start_s) * kMicrosPerSecond},
          {"args",
           {{"decode_sequences", s.decode_sequences},
            {"prefill_chunks", s.prefill_chunks},
            {"prefill_tokens", s.prefill_tokens},
            {"decode_tokens", s.decode_tokens},
            {"output_tokens", s.output_tokens},
            {"kv_used_share", s.kv_used_share},
            {"time_us_by_op", by_op}}}};
}

nlohmann::json counter(const char* name, const StepRecord& s, const char* series, const nlohmann::json& value) {
  return {
      {"name", name}, {"ph", "C"}, {"pid", s.replica}, {"ts", s.end_s * kMicrosPerSecond}, {"args", {{series, value}}}};
}

}  // namespace

std::string chrome_trace_json(const Recorder& recorder, const ChromeTraceInfo& info) {
  const auto& steps = recorder.step_log();
  const nlohmann::json other = {{"scenario", info.scenario},
                                {"simulator", info.simulator},
                                {"time", "simulated; ts and dur in microseconds"},
                                {"window_start_s", info.window_start_s},
                                {"window_end_s", info.window_end_s},
                                {"window", info.measurement_window ? "measurement window" : "--trace-window"},
                                {"steps_overlapping_window", recorder.step_log_matching()},
                                {"steps_written", steps.size()},
                                {"max_steps", info.max_steps},
                                {"truncated", static_cast<std::int64_t>(steps.size()) < recorder.step_log_matching()}};
  std::string out = "{\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other.dump() + ",\n\"traceEvents\": [";
  bool first = true;
  for (int r = 0; r < info.replicas; ++r) {
    append(out,
           {{"name", "process_name"},
            {"ph", "M"},
            {"pid", r},
            {"tid", 0},
            {"args", {{"name", "replica " + std::to_string(r)}}}},
           first);
    append(out, {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", r}, {"tid", 0}, {"args", {{"sort_index", r}}}},
           first);
    append(out, {{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 0}, {"args", {{"name", "engine steps"}}}},
           first);
  }
  for (const StepRecord& s : steps) {
    append(out, step_event(s), first);
    append(out, counter("queue", s, "waiting", s.waiting), first);
    append(out, counter("kv_cache", s, "used_share", s.kv_used_share), first);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace fleetcast::simulator
