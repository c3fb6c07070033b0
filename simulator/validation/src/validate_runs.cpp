#include "fleetcast/validation/validate_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fleetcast/simulator/process_pool.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/prompt_compute.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace fleetcast::validation {
namespace {

// In the worker: simulate the mapped scenario, reply with the two means the measurement reports.
std::string predict_in_child(const MappedRun& mapped, const std::string& where) {
  nlohmann::json reply;
  try {
    const specs::ScenarioSpec scenario = specs::parse_scenario(mapped.scenario, where);
    const nlohmann::json report = simulator::simulate(scenario);
    const auto& m = report.at("metrics");
    reply = {{"ttft_ms", m.at("ttft_ms").at("mean")},
             {"tpot_ms", m.at("tpot_ms").at("mean")},
             {"percentiles", {{"ttft", m.at("ttft_ms")}, {"tpot", m.at("tpot_ms")}, {"e2e", m.at("e2e_latency_ms")}}}};
  } catch (const InputError& e) {
    reply = {{"error", e.problem() + (e.field().empty() ? "" : " (" + e.field() + " = " + e.value() + ")")}};
  } catch (const std::exception& e) {
    reply = {{"error", e.what()}};
  }
  return reply.dump();
}

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

GroupSummary summarise(const std::string& group, const std::vector<const RowPrediction*>& rows) {
  GroupSummary g;
  g.group = group;
  g.rows = static_cast<int>(rows.size());
  std::vector<double> ttft, tpot;
  for (const RowPrediction* r : rows) {
    if (!r->predicted) continue;
    ++g.predicted;
    ttft.push_back(r->ttft_ape);
    tpot.push_back(r->tpot_ape);
  }
  g.ttft = summarise_errors(ttft);
  g.tpot = summarise_errors(tpot);
  return g;
}

// Each percentile the run reports against the simulation's (its report's "p50" ... "p99"); one the simulation has
// no value for (no request measured it) is left out.
std::vector<PercentilePrediction> compare_percentiles(const traces::MeasuredServingRun& run,
                                                      const nlohmann::json& simulated) {
  std::vector<PercentilePrediction> out;
  for (const traces::MeasuredPercentile& m : run.percentiles) {
    const nlohmann::json& v = simulated.at(m.metric).at("p" + std::to_string(m.percentile));
    if (!v.is_number()) continue;
    const double predicted = v.get<double>();
    out.push_back({m.metric, m.percentile, m.ms, predicted, std::abs(predicted - m.ms) / m.ms});
  }
  return out;
}

// Per metric and percentile, the APE over every row that reports it.
std::vector<PercentileSummary> summarise_percentiles(const std::vector<RowPrediction>& rows) {
  std::map<std::pair<std::string, int>, std::vector<double>> errors;
  for (const RowPrediction& r : rows) {
    for (const PercentilePrediction& p : r.percentiles) errors[{p.metric, p.percentile}].push_back(p.ape);
  }
  std::vector<PercentileSummary> out;
  for (const char* metric : {"ttft", "tpot", "e2e"}) {
    for (const auto& [key, values] : errors) {
      if (key.first == metric) out.push_back({key.first, key.second, summarise_errors(values)});
    }
  }
  return out;
}

nlohmann::json number_or_null(double v, bool present) { return present ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json to_json(const GroupSummary& g) {
  auto errors = [](const ErrorSummary& e) {
    return nlohmann::json{{"count", e.count},
                          {"median_ape", number_or_null(e.median, e.count > 0)},
                          {"p90_ape", number_or_null(e.p90, e.count > 0)}};
  };
  return {{"group", g.group},         {"rows", g.rows},
          {"predicted", g.predicted}, {"coverage", g.rows > 0 ? static_cast<double>(g.predicted) / g.rows : 0.0},
          {"ttft", errors(g.ttft)},   {"tpot", errors(g.tpot)}};
}

// A run's closed-loop clients (its stated concurrency) and the mean output tokens its mapped scenario draws (0 and 0
// for any other run): what Little's law on the row's means needs once the prediction is in.
struct ClosedLoop {
  int clients = 0;
  double output_tokens = 0.0;
};

// Reads the mapped scenario once: the run's closed loop, and the prompt compute the measured means need
// (prompt_compute.hpp), beyond the best GEMM a note on the row.
ClosedLoop read_mapped(const MappedRun& mapped, RowPrediction& row) {
  std::optional<specs::ScenarioSpec> s;
  try {
    s = specs::parse_scenario(mapped.scenario, row.run.id);
  } catch (const std::exception&) {
    return {};  // the worker reports why the scenario does not simulate
  }
  if (const std::optional<PromptComputeNeed> need = prompt_compute_need(*s, row.run.ttft_ms, row.run.tpot_ms)) {
    row.prompt_compute_share = need->share;
    if (need->impossible()) row.notes += (row.notes.empty() ? "" : "; ") + describe(*need);
  }
  const auto& classes = s->workload.classes;
  if (row.run.concurrency <= 0 || row.run.request_rate_per_s > 0.0 || classes.size() != 1) return {};
  return {row.run.concurrency, classes[0].output_tokens.mean()};
}

// Measured against predicted clients decoding at a time (decoding_clients); far fewer measured, a note.
void note_decoding_clients(const ClosedLoop& loop, RowPrediction& row) {
  if (loop.clients <= 0) return;
  row.measured_decoding_clients = decoding_clients(loop.clients, loop.output_tokens, row.run.ttft_ms, row.run.tpot_ms);
  row.predicted_decoding_clients =
      decoding_clients(loop.clients, loop.output_tokens, row.predicted_ttft_ms, row.predicted_tpot_ms);
  if (!row.held_back()) return;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "measured: about %.0f of %d clients past their first token at a time (Little's law on the means), "
                "simulated %.0f: the run held requests back in a way it does not state (a client's connection "
                "limit, a lower max_num_seqs, less KV cache)",
                row.measured_decoding_clients, loop.clients, row.predicted_decoding_clients);
  row.notes += (row.notes.empty() ? "" : "; ") + std::string(buf);
}

}  // namespace

double decoding_clients(int clients, double output_tokens, double ttft_ms, double tpot_ms) {
  const double decoding_ms = std::max(0.0, output_tokens - 1.0) * tpot_ms;
  if (clients <= 0 || !(decoding_ms > 0.0) || !(ttft_ms >= 0.0)) return 0.0;
  return clients * decoding_ms / (ttft_ms + decoding_ms);
}

ErrorSummary summarise_errors(std::vector<double> values) {
  ErrorSummary s;
  s.count = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.median = quantile(values, 0.5);
  s.p90 = quantile(values, 0.9);
  return s;
}

double ValidationResult::coverage() const {
  return rows_read > 0 ? static_cast<double>(overall.predicted) / static_cast<double>(rows_read) : 0.0;
}

ValidationResult validate_runs(const traces::MeasuredServingResults& results, const ValidateOptions& options) {
  ValidationResult out;
  out.file = results.file;
  out.rows_skipped = results.skipped;
  std::vector<MappedRun> mapped;
  std::vector<std::size_t> to_run;  // indices into out.rows
  std::vector<ClosedLoop> loops;    // per mapped row
  for (const auto& run : results.runs) {
    if (options.select && !options.select(run)) continue;
    RowPrediction row;
    row.run = run;
    row.group = serving_run_group(run);
    auto m = map_serving_run(run);
    if (auto* u = std::get_if<Unmapped>(&m)) {
      row.reason = u->reason;
    } else {
      row.notes = std::get<MappedRun>(m).notes;
      loops.push_back(read_mapped(std::get<MappedRun>(m), row));
      if (options.mapped) options.mapped(run, std::get<MappedRun>(m).scenario);
      mapped.push_back(std::move(std::get<MappedRun>(m)));
      to_run.push_back(out.rows.size());
    }
    out.rows.push_back(std::move(row));
  }
  // Bad rows count against coverage too: they were measured, and we could not read them.
  out.rows_read = static_cast<long>(out.rows.size()) + (options.select ? 0 : results.skipped);

  std::size_t done = 0;
  simulator::run_in_child_processes(
      mapped.size(), options.jobs,
      [&](std::size_t i) {
        return predict_in_child(mapped[i], results.file + ":" + std::to_string(out.rows[to_run[i]].run.line));
      },
      [&](std::size_t i, const simulator::ChildOutcome& outcome) {
        RowPrediction& row = out.rows[to_run[i]];
        if (!outcome.ok) {
          row.reason = "simulation failed: " + outcome.output;
        } else {
          const auto reply = nlohmann::json::parse(outcome.output);
          if (reply.contains("error")) {
            row.reason = reply["error"].get<std::string>();
          } else if (reply["ttft_ms"].is_null() || reply["tpot_ms"].is_null()) {
            row.reason = "the simulation measured no request";
          } else {
            row.predicted = true;
            row.predicted_ttft_ms = reply["ttft_ms"].get<double>();
            row.predicted_tpot_ms = reply["tpot_ms"].get<double>();
            row.ttft_ape = std::abs(row.predicted_ttft_ms - row.run.ttft_ms) / row.run.ttft_ms;
            row.tpot_ape = std::abs(row.predicted_tpot_ms - row.run.tpot_ms) / row.run.tpot_ms;
            row.percentiles = compare_percentiles(row.run, reply["percentiles"]);
            note_decoding_clients(loops[i], row);
          }
        }
        if (options.progress) options.progress(++done, mapped.size());
      });

  std::map<std::string, std::vector<const RowPrediction*>> by_group;
  std::vector<const RowPrediction*> all;
  for (const RowPrediction& r : out.rows) {
    by_group[r.group].push_back(&r);
    all.push_back(&r);
  }
  for (const auto& [group, rows] : by_group) out.groups.push_back(summarise(group, rows));
  out.overall = summarise("all", all);
  out.percentiles = summarise_percentiles(out.rows);
  return out;
}

nlohmann::json to_json(const ValidationResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RowPrediction& p : r.rows) {
    rows.push_back(
        {{"id", p.run.id},
         {"line", p.run.line},
         {"group", p.group},
         {"predicted", p.predicted},
         {"reason", p.reason},
         {"notes", p.notes},
         {"concurrency", p.run.concurrency},
         {"isl", p.run.isl},
         {"osl", p.run.osl},
         {"measured_ttft_ms", p.run.ttft_ms},
         {"predicted_ttft_ms", number_or_null(p.predicted_ttft_ms, p.predicted)},
         {"ttft_ape", number_or_null(p.ttft_ape, p.predicted)},
         {"measured_tpot_ms", p.run.tpot_ms},
         {"predicted_tpot_ms", number_or_null(p.predicted_tpot_ms, p.predicted)},
         {"tpot_ape", number_or_null(p.tpot_ape, p.predicted)},
         {"measured_decoding_clients", number_or_null(p.measured_decoding_clients, p.measured_decoding_clients > 0.0)},
         {"predicted_decoding_clients",
          number_or_null(p.predicted_decoding_clients, p.predicted_decoding_clients > 0.0)},
         {"prompt_compute_share",
          number_or_null(p.prompt_compute_share.value_or(0.0), p.prompt_compute_share.has_value())}});
    if (!p.percentiles.empty()) {
      nlohmann::json& list = rows.back()["percentiles"] = nlohmann::json::array();
      for (const PercentilePrediction& q : p.percentiles) {
        list.push_back({{"metric", q.metric},
                        {"percentile", q.percentile},
                        {"measured_ms", q.measured_ms},
                        {"predicted_ms", q.predicted_ms},
                        {"ape", q.ape}});
      }
    }
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupSummary& g : r.groups) groups.push_back(to_json(g));
  nlohmann::json out = {{"schema", "fleetcast.validation/1"},
                        {"file", r.file},
                        {"rows_read", r.rows_read},
                        {"rows_skipped_unreadable", r.rows_skipped},
                        {"rows_predicted", r.overall.predicted},
                        {"coverage", r.coverage()},
                        {"overall", to_json(r.overall)},
                        {"groups", groups},
                        {"rows", rows}};
  if (!r.percentiles.empty()) {
    nlohmann::json& list = out["percentiles"] = nlohmann::json::array();
    for (const PercentileSummary& p : r.percentiles) {
      list.push_back({{"metric", p.metric},
                      {"percentile", p.percentile},
                      {"count", p.error.count},
                      {"median_ape", p.error.median},
                      {"p90_ape", p.error.p90}});
    }
  }
  return out;
}

}  // namespace fleetcast::validation
