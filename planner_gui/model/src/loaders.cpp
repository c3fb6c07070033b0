#include "fleetcast/gui/loaders.hpp"

#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::gui {
namespace {

using nlohmann::json;

std::string read_text(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  if (!in) throw LoadError(path.toStdString() + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json parse(const std::string& text, const QString& path, long line = 0) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    const std::string where = line > 0 ? path.toStdString() + " line " + std::to_string(line) : path.toStdString();
    throw LoadError(where + ": not JSON (" + e.what() + ")");
  }
}

double number_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return NAN;
  return j.at(key).get<double>();
}

CostFigures cost_from(const json& j) {
  CostFigures c;
  if (!j.is_object()) return c;
  c.usd_per_hour = number_at(j, "usd_per_hour");
  c.idle_share = number_at(j, "idle_share");
  c.usd_per_m_input = number_at(j, "usd_per_m_input");
  c.usd_per_m_output = number_at(j, "usd_per_m_output");
  c.usd_per_m_tokens_blended = number_at(j, "usd_per_m_tokens_blended");
  return c;
}

// A report's summary object {min, p50, p90, p95, p99, max, ...} as cumulative shares.
LatencyQuantiles quantiles_from(const json& summary) {
  static const std::pair<const char*, double> kKeys[] = {{"min", 0.0},  {"p50", 0.50}, {"p90", 0.90},
                                                         {"p95", 0.95}, {"p99", 0.99}, {"max", 1.0}};
  LatencyQuantiles q;
  if (!summary.is_object()) return q;
  for (const auto& [key, share] : kKeys) {
    const double ms = number_at(summary, key);
    if (!std::isfinite(ms)) continue;
    q.share.push_back(share);
    q.ms.push_back(ms);
  }
  return q;
}

QVector<double> column(const json& timeline, const char* key) {
  QVector<double> v;
  if (!timeline.contains(key) || !timeline.at(key).is_array()) return v;
  for (const auto& x : timeline.at(key)) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

traces::BenchmarkRecord record_from(const json& j, const QString& where) {
  try {
    return traces::benchmark_record_from_json(j, where.toStdString());
  } catch (const InputError& e) {
    throw LoadError(e.what());
  }
}

QString layout_text(const traces::BenchmarkRecord& r) {
  return QString("%1 x %2, TP%3 PP%4 EP%5 DP%6, %7")
      .arg(r.gpu_count)
      .arg(QString::fromStdString(r.gpu))
      .arg(r.tp)
      .arg(r.pp)
      .arg(r.ep)
      .arg(r.dp)
      .arg(QString::fromStdString(r.arrival));
}

// {"deployment.replica.tp":1,"workload.arrival.rate_per_s":2} -> "tp=1 rate_per_s=2" (last path segment).
QString parameters_text(const json& parameters) {
  QStringList parts;
  if (!parameters.is_object()) return {};
  for (const auto& [path, value] : parameters.items()) {
    const QString key = QString::fromStdString(path).section('.', -1);
    parts << key + "=" + QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump());
  }
  return parts.join(' ');
}

// A simulated configuration's profile figures outside the kernel-level ones, and the tooltip line that says so.
QString caveats_from(const json& caveats) { return QString::fromStdString(calibration::short_list(caveats)); }

QString measured_line(const QString& measured) {
  return measured.isEmpty() ? QString() : "\nprofile measured: " + measured;
}

// An unseen-model or unfitted-GPU line: each describe()s itself after "profile ".
QString profile_line(const QString& text) { return text.isEmpty() ? QString() : "\nprofile " + text; }

QString caveats_line(const QString& caveats) {
  return caveats.isEmpty() ? QString() : "\nprofile outside the kernel-level figures: " + caveats;
}

// An error figure of a report or plan (`parse` reads it strictly) as the CLI words it; "" for null, a LoadError
// naming `field` for a bad one.
template <typename Parse>
QString described(const json& figure, const QString& path, const std::string& field, Parse parse) {
  if (!figure.is_object()) return {};
  try {
    return QString::fromStdString(calibration::describe(parse(figure, path.toStdString(), field + ".")));
  } catch (const InputError& e) {
    throw LoadError(e.what());
  }
}

}  // namespace

QString measured_error_text(const json& measured, const QString& path, const std::string& field) {
  return described(measured, path, field, calibration::parse_pair_accuracy);
}

QString unseen_model_error_text(const json& unseen, const QString& path, const std::string& field) {
  return described(unseen, path, field, calibration::parse_unseen_model_error);
}

QString unfitted_gpu_error_text(const json& unfitted, const QString& path, const std::string& field) {
  return described(unfitted, path, field, calibration::parse_unfitted_gpu_error);
}

Configuration load_report(const QString& path) {
  const json j = parse(read_text(path), path);
  if (!j.is_object() || !j.contains("benchmark_record"))
    throw LoadError(path.toStdString() +
                    ": not a fleetcast report (no benchmark_record; write one with "
                    "`fleetcast simulate SCENARIO -o REPORT.json`)");
  Configuration c;
  c.origin = Origin::report;
  c.source_file = path;
  c.label = QFileInfo(path).completeBaseName();
  c.group = c.label;
  c.record = record_from(j.at("benchmark_record"), path + ": benchmark_record");
  c.cost = cost_from(j.value("cost", json()));
  const json metrics = j.value("metrics", json::object());
  c.ttft = quantiles_from(metrics.value("ttft_ms", json()));
  c.tpot = quantiles_from(metrics.value("tpot_ms", json()));
  c.e2e = quantiles_from(metrics.value("e2e_latency_ms", json()));
  if (j.contains("timeline") && j.at("timeline").is_object()) {
    const json& t = j.at("timeline");
    c.timeline = {column(t, "t_s"), column(t, "waiting"), column(t, "running"), column(t, "kv_used_share")};
  }
  const std::string scenario_name = j.contains("scenario") ? j.at("scenario").value("name", "") : "";
  if (j.contains("derived") && j.at("derived").is_object()) {
    const json& derived = j.at("derived");
    c.profile_caveats = caveats_from(derived.value("profile_kernel_caveats", json()));
    c.profile_measured_error =
        measured_error_text(derived.value("profile_measured_error", json()), path, "derived.profile_measured_error");
    c.profile_unseen_model_error = unseen_model_error_text(derived.value("profile_unseen_model_error", json()), path,
                                                           "derived.profile_unseen_model_error");
    c.profile_unfitted_gpu_error = unfitted_gpu_error_text(derived.value("profile_unfitted_gpu_error", json()), path,
                                                           "derived.profile_unfitted_gpu_error");
  }
  c.details = QString::fromStdString(scenario_name) + "\n" + layout_text(c.record) +
              measured_line(c.profile_measured_error) + profile_line(c.profile_unseen_model_error) +
              profile_line(c.profile_unfitted_gpu_error) + caveats_line(c.profile_caveats);
  return c;
}

QVector<Configuration> load_sweep_results(const QString& path) {
  std::istringstream lines(read_text(path));
  const QString tag = QFileInfo(path).dir().dirName();
  QVector<Configuration> out;
  std::string line;
  for (long number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json j = parse(line, path, number);
    const QString where = path + " line " + QString::number(number);
    if (!j.is_object() || !j.contains("point") || !j.at("point").is_number_integer())
      throw LoadError(where.toStdString() + ": not a sweep result (no integer `point`)");
    Configuration c;
    c.origin = Origin::sweep_point;
    c.source_file = path;
    c.group = tag;
    const QString parameters = parameters_text(j.value("parameters", json()));
    c.label = QString("%1 #%2 %3").arg(tag).arg(j.at("point").get<long>()).arg(parameters).trimmed();
    if (j.contains("error")) {
      c.error =
          QString::fromStdString(j.at("error").is_string() ? j.at("error").get<std::string>() : j.at("error").dump());
      c.record.ttft_p50_ms = c.record.ttft_p95_ms = c.record.ttft_mean_ms = c.record.tpot_mean_ms = NAN;
      c.record.output_tokens_per_s_per_gpu = c.record.tokens_per_s_per_user = NAN;
      c.details = parameters + "\nfailed: " + c.error;
    } else {
      if (!j.contains("benchmark_record")) throw LoadError(where.toStdString() + ": no benchmark_record and no error");
      c.record = record_from(j.at("benchmark_record"), where + ": benchmark_record");
      c.cost = cost_from(j.value("cost", json()));
      c.profile_caveats = caveats_from(j.value("profile_kernel_caveats", json()));
      c.profile_measured_error =
          measured_error_text(j.value("profile_measured_error", json()), where, "profile_measured_error");
      c.profile_unseen_model_error =
          unseen_model_error_text(j.value("profile_unseen_model_error", json()), where, "profile_unseen_model_error");
      c.profile_unfitted_gpu_error =
          unfitted_gpu_error_text(j.value("profile_unfitted_gpu_error", json()), where, "profile_unfitted_gpu_error");
      c.details = parameters + "\n" + layout_text(c.record) + measured_line(c.profile_measured_error) +
                  profile_line(c.profile_unseen_model_error) + profile_line(c.profile_unfitted_gpu_error) +
                  caveats_line(c.profile_caveats);
    }
    out.push_back(std::move(c));
  }
  return out;
}

QVector<Configuration> load_silicon_csv(const QString& path) {
  traces::MeasuredServingResults results;
  try {
    results = traces::read_silicon_csv(path.toStdString());
  } catch (const InputError& e) {
    throw LoadError(e.what());
  }
  auto gpus = [](const traces::MeasuredLayout& l, int workers) {
    return std::max(workers, 1) * std::max(l.tp, 1) * std::max(l.pp, 1) * std::max(l.attention_dp, 1);
  };
  QVector<Configuration> out;
  for (const auto& run : results.runs) {
    Configuration c;
    c.origin = Origin::measured;
    c.source_file = path;
    c.group = "measured";
    c.label = QString::fromStdString(run.id);
    auto& r = c.record;
    r.source = "measured (" + run.backend + " " + run.backend_version + ")";
    r.checkpoint = run.model_path;
    r.runtime = run.backend;
    r.gpu = run.system;
    r.gpu_count = run.mode == "disagg"
                      ? gpus(run.prefill, run.prefill.num_workers) + gpus(run.decode, run.decode.num_workers)
                      : gpus(run.agg, 1);
    r.concurrency = run.concurrency;
    r.ttft_mean_ms = run.ttft_ms;
    r.tpot_mean_ms = run.tpot_ms;
    r.tokens_per_s_per_user = 1000.0 / run.tpot_ms;
    r.ttft_p50_ms = r.ttft_p95_ms = r.output_tokens_per_s_per_gpu = r.total_tokens_per_s = NAN;
    r.output_tokens_per_s = r.e2e_p50_ms = r.e2e_p95_ms = r.duration_s = r.success_rate = NAN;
    c.details = QString("%1 on %2, %3, %4 in / %5 out tokens, %6 clients, mean TTFT %7 ms (measured)")
                    .arg(QString::fromStdString(run.model_path), QString::fromStdString(run.system),
                         QString::fromStdString(run.mode))
                    .arg(run.isl)
                    .arg(run.osl)
                    .arg(run.concurrency)
                    .arg(run.ttft_ms);
    out.push_back(std::move(c));
  }
  return out;
}

QVector<ValidationPoint> load_validation_json(const QString& path) {
  const json j = parse(read_text(path), path);
  if (!j.is_object() || j.value("schema", "") != "fleetcast.validation/1" || !j.contains("rows") ||
      !j.at("rows").is_array())
    throw LoadError(path.toStdString() +
                    ": not a validation result (schema fleetcast.validation/1 with rows; write one "
                    "with `fleetcast validate --silicon FILE --json OUT`)");
  QVector<ValidationPoint> out;
  for (const json& row : j.at("rows")) {
    if (!row.is_object() || !row.value("predicted", false)) continue;
    out.push_back({QString::fromStdString(row.value("id", "")), QString::fromStdString(row.value("group", "")),
                   number_at(row, "measured_ttft_ms"), number_at(row, "predicted_ttft_ms"),
                   number_at(row, "measured_tpot_ms"), number_at(row, "predicted_tpot_ms")});
  }
  return out;
}

LoadedFile load_any(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "jsonl") return {load_sweep_results(path), {}, {}};
  if (suffix == "csv") return {load_silicon_csv(path), {}, {}};
  // Validation results and plan outputs name their schema (anywhere: nlohmann::json sorts keys); reports have none.
  const std::string text = read_text(path);
  if (text.find("\"fleetcast.validation/1\"") != std::string::npos) return {{}, load_validation_json(path), {}};
  if (text.find("\"fleetcast.plan/1\"") != std::string::npos) return {{}, {}, load_plan_output(path)};
  return {{load_report(path)}, {}, {}};
}

}  // namespace fleetcast::gui
