// The report's optional timeline and the Chrome trace of steps: the same observations as the report's
// figures, laid out in time, so they must add up to them.
#include <catch2/catch.hpp>
#include <map>
#include <numeric>

#include "fleetcast/simulator/simulation.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// Two replicas under load, varied lengths: batches mix prefill chunks and decodes, queues form.
nlohmann::json loaded_scenario() {
  auto j = test::small_scenario();
  j["deployment"]["nodes"] = 2;
  j["num_requests"] = 3000;
  j["workload"]["arrival"]["rate_per_s"] = 24.0;
  j["workload"]["input_tokens"] = {{"kind", "uniform"}, {"min", 100}, {"max", 3000}};
  j["workload"]["output_tokens"] = {{"kind", "uniform"}, {"min", 10}, {"max", 300}};
  j["measurement"] = {{"sample_interval_s", 0.25}};
  return j;
}

simulator::RunOptions with_timeline() {
  simulator::RunOptions o;
  o.timeline = true;
  return o;
}

double sum_of(const nlohmann::json& replicas, const char* key) {
  double total = 0.0;
  for (const auto& r : replicas) total += r[key].get<double>();
  return total;
}

// Tokens per second of the series times the length of the interval each covers.
double integrate(const nlohmann::json& t, const nlohmann::json& rate) {
  double total = 0.0, prev = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    total += rate[i].get<double>() * (t[i].get<double>() - prev);
    prev = t[i].get<double>();
  }
  return total;
}

std::vector<nlohmann::json> step_events(const nlohmann::json& trace) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("the timeline is written only when asked, and asking changes nothing else", "[timeline]") {
  const auto s = test::parse(loaded_scenario());
  const auto plain = simulator::simulate_in_child(s);
  auto timed = simulator::simulate_in_child(s, with_timeline());
  CHECK_FALSE(plain.contains("timeline"));
  REQUIRE(timed.contains("timeline"));
  const auto& tl = timed["timeline"];
  const std::size_t n = tl["t_s"].size();
  CHECK(n > 100);
  for (const char* column : {"in_system", "waiting", "running", "kv_used_share", "input_tokens_per_s",
                             "output_tokens_per_s", "prefill_tokens_computed_per_s"}) {
    CHECK(tl[column].size() == n);
  }
  REQUIRE(tl["kv_used_share_by_replica"].size() == 2);
  for (const auto& replica : tl["kv_used_share_by_replica"]) CHECK(replica.size() == n);
  // The run ends with every request done: the last entry has nothing in the system.
  CHECK(tl["in_system"].back() == 0);
  timed.erase("timeline");
  CHECK(timed.dump() == plain.dump());
}

TEST_CASE("the timeline's time average of in_system is the report's Little's-law L", "[timeline]") {
  const auto report = simulator::simulate_in_child(test::parse(loaded_scenario()), with_timeline());
  const auto& tl = report["timeline"];
  const double start = report["measurement"]["window_start_s"].get<double>();
  const double end = report["measurement"]["window_end_s"].get<double>();
  double sum = 0.0;
  int count = 0;
  for (std::size_t i = 0; i < tl["t_s"].size(); ++i) {
    const double t = tl["t_s"][i].get<double>();
    if (t < start || t >= end) continue;
    sum += tl["in_system"][i].get<double>();
    ++count;
  }
  REQUIRE(count > 50);
  const double mean_in_system = report["metrics"]["mean_in_system"].get<double>();
  CHECK(sum / count == Approx(mean_in_system).epsilon(1e-12));
  CHECK(mean_in_system > 5.0);  // a loaded system: the identity is not 0 == 0
}

TEST_CASE("tokens per second integrated over the timeline are the run's tokens", "[timeline]") {
  const auto report = simulator::simulate_in_child(test::parse(loaded_scenario()), with_timeline());
  const auto& tl = report["timeline"];
  const auto& replicas = report["metrics"]["by_replica"];
  // Every request of this scenario fits and finishes, so the requests placed on the replicas hold every input
  // that got a first token and every output token produced.
  REQUIRE(report["metrics"]["success_rate"].get<double>() == 1.0);
  const double output = sum_of(replicas, "output_tokens");
  const double input = sum_of(replicas, "input_tokens");
  CHECK(output > 3000 * 10);
  CHECK(integrate(tl["t_s"], tl["output_tokens_per_s"]) == Approx(output).epsilon(1e-12));
  CHECK(integrate(tl["t_s"], tl["input_tokens_per_s"]) == Approx(input).epsilon(1e-12));
  // Without preemption every prompt is computed once.
  REQUIRE(report["metrics"]["preemptions"] == 0);
  CHECK(integrate(tl["t_s"], tl["prefill_tokens_computed_per_s"]) == Approx(input).epsilon(1e-12));
}

TEST_CASE("the Chrome trace: one event per step, its duration the step time, replicas' steps in order",
          "[timeline][trace]") {
  simulator::RunOptions options;
  options.chrome_trace = true;
  const auto result = simulator::run_simulation_in_child(test::parse(loaded_scenario()), options);
  const auto trace = nlohmann::json::parse(result.chrome_trace);
  const auto& report = result.report;
  const auto steps = step_events(trace);
  const double start_us = 1e6 * report["measurement"]["window_start_s"].get<double>();
  const double end_us = 1e6 * report["measurement"]["window_end_s"].get<double>();

  REQUIRE(steps.size() > 1000);
  CHECK(trace["otherData"]["truncated"] == false);
  CHECK(trace["otherData"]["steps_overlapping_window"].get<std::size_t>() == steps.size());
  std::map<int, double> last_end_us;
  std::size_t ended_in_window = 0;
  for (const auto& e : steps) {
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    // The duration is the step-time model's prediction: the sum of its op classes.
    double ops_us = 0.0;
    for (const auto& [op, us] : e["args"]["time_us_by_op"].items()) ops_us += us.get<double>();
    CHECK(dur == Approx(ops_us).epsilon(1e-9));
    CHECK(dur > 0.0);
    // Default window: the measurement window; every step overlaps it.
    CHECK(ts + dur > start_us);
    CHECK(ts < end_us);
    if (ts + dur >= start_us && ts + dur < end_us) ++ended_in_window;
    // One replica runs one step at a time: its events follow one another without overlap (1 ns of rounding).
    const int pid = e["pid"].get<int>();
    if (last_end_us.count(pid)) CHECK(ts >= last_end_us[pid] - 1e-3);
    last_end_us[pid] = ts + dur;
  }
  CHECK(last_end_us.size() == 2);
  // The recorder counts the steps that ended inside the window for the report.
  CHECK(ended_in_window == report["metrics"]["steps_in_window"].get<std::size_t>());
  // A counter of queue length and of KV use for every step, the KV share a share.
  std::size_t queue = 0, kv = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "C") continue;
    if (e["name"] == "queue") ++queue;
    if (e["name"] == "kv_cache") {
      ++kv;
      CHECK(e["args"]["used_share"].get<double>() >= 0.0);
      CHECK(e["args"]["used_share"].get<double>() <= 1.0);
    }
  }
  CHECK(queue == steps.size());
  CHECK(kv == steps.size());
}

TEST_CASE("a trace window over the whole run holds every step and the tokens the report counts", "[timeline][trace]") {
  simulator::RunOptions options;
  options.chrome_trace = true;
  options.trace_window = simulator::TraceWindow{0.0, 1e9};
  const auto result = simulator::run_simulation_in_child(test::parse(loaded_scenario()), options);
  const auto trace = nlohmann::json::parse(result.chrome_trace);
  const auto& report = result.report;
  const auto steps = step_events(trace);
  CHECK(steps.size() == report["measurement"]["total_steps"].get<std::size_t>());
  // Output tokens of the steps that ended inside the measurement window: the report's throughput.
  const double start_us = 1e6 * report["measurement"]["window_start_s"].get<double>();
  const double end_us = 1e6 * report["measurement"]["window_end_s"].get<double>();
  double output = 0.0, all_output = 0.0;
  for (const auto& e : steps) {
    const double end = e["ts"].get<double>() + e["dur"].get<double>();
    all_output += e["args"]["output_tokens"].get<double>();
    if (end >= start_us && end < end_us) output += e["args"]["output_tokens"].get<double>();
  }
  const auto& m = report["metrics"];
  const double window_s = report["measurement"]["window_s"].get<double>();
  CHECK(output == Approx(m["throughput"]["output_tokens_per_s"].get<double>() * window_s).epsilon(1e-9));
  CHECK(all_output == Approx(sum_of(m["by_replica"], "output_tokens")).epsilon(1e-12));
}

TEST_CASE("the trace keeps at most trace_max_steps steps and says it was cut short", "[timeline][trace]") {
  simulator::RunOptions options;
  options.chrome_trace = true;
  options.trace_max_steps = 25;
  const auto result = simulator::run_simulation_in_child(test::parse(loaded_scenario()), options);
  const auto trace = nlohmann::json::parse(result.chrome_trace);
  CHECK(step_events(trace).size() == 25);
  CHECK(trace["otherData"]["truncated"] == true);
  CHECK(trace["otherData"]["steps_overlapping_window"].get<std::size_t>() > 25);
}
