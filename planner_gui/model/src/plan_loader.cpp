// Reads `fleetcast plan -o OUT.json` (plan_outcome.hpp); the layout is simulator/planner/src/plan_report.cpp's.
#include <QFile>
#include <QMap>
#include <nlohmann/json.hpp>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {
namespace {

using nlohmann::json;

double number(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : NAN;
}

QString text(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string()
             ? QString::fromStdString(j.at(key).get<std::string>())
             : QString();
}

// The worst class's p95 of `key` (NaN where no class gives it).
double worst_class(const json& figures, const char* key) {
  double worst = NAN;
  if (!figures.is_object() || !figures.contains("classes") || !figures.at("classes").is_object()) return worst;
  for (const auto& [name, c] : figures.at("classes").items()) {
    const double v = number(c, key);
    if (std::isfinite(v) && !(v <= worst)) worst = v;
  }
  return worst;
}

const json& field(const json& j, const char* key, const QString& path, const char* where, json::value_t type) {
  if (!j.is_object() || !j.contains(key) || j.at(key).type() != type)
    throw LoadError(path.toStdString() + ": field '" + where + "' is missing or of the wrong type");
  return j.at(key);
}

int whole(const json& j, const char* key, const QString& path, const char* where) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number_integer())
    throw LoadError(path.toStdString() + ": field '" + where + "' is missing or not a whole number");
  return j.at(key).get<int>();
}

}  // namespace

PlanOutcome load_plan_output(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) throw LoadError(path.toStdString() + ": cannot open the file");
  json j;
  try {
    j = json::parse(file.readAll().toStdString());
  } catch (const json::exception& e) {
    throw LoadError(path.toStdString() + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_object() || j.value("schema", "") != "fleetcast.plan/1")
    throw LoadError(path.toStdString() +
                    ": field 'schema': not a plan output (schema fleetcast.plan/1; write one with "
                    "`fleetcast plan PLAN.json -o OUT.json`)");
  PlanOutcome out;
  out.source_file = path;
  out.name = j.contains("plan") ? text(j.at("plan"), "name") : QString();
  const json& s = field(j, "summary", path, "summary", json::value_t::object);
  out.candidates = whole(s, "candidates", path, "summary.candidates");
  out.pruned = whole(s, "pruned", path, "summary.pruned");
  out.simulated = whole(s, "simulated", path, "summary.simulated");
  out.feasible = whole(s, "feasible", path, "summary.feasible");
  out.invalid_combinations = whole(s, "invalid_combinations", path, "summary.invalid_combinations");
  if (s.contains("engines_not_searched")) {
    for (const json& u : field(s, "engines_not_searched", path, "summary.engines_not_searched", json::value_t::array)) {
      out.engines_not_searched
          << QString("%1 on %2 (%3)").arg(text(u, "runtime"), text(u, "hardware"), text(u, "reason"));
    }
  }

  // Older outputs have no `profiles`; where present it must be read whole.
  // "hardware runtime" -> its profile's caveats; an output written before plans searched engines has one runtime,
  // which its rows do not name.
  QMap<QString, QString> caveats_of;
  QMap<QString, QString> runtime_of;  // hardware -> the runtime of its first profile
  if (j.contains("profiles")) {
    for (const json& p : field(j, "profiles", path, "profiles", json::value_t::array)) {
      const json& caveats = field(p, "kernel_caveats", path, "profiles[].kernel_caveats", json::value_t::array);
      const PlanProfile profile{
          text(p, "hardware"),
          text(p, "runtime"),
          text(p, "kind"),
          QString::fromStdString(calibration::short_list(caveats)),
          measured_error_text(p.value("measured_error", json()), path, "profiles[].measured_error"),
          unseen_model_error_text(p.value("unseen_model_error", json()), path, "profiles[].unseen_model_error"),
          unfitted_gpu_error_text(p.value("unfitted_gpu_error", json()), path, "profiles[].unfitted_gpu_error")};
      caveats_of.insert(profile.hardware + " " + profile.runtime, profile.caveats);
      if (!runtime_of.contains(profile.hardware)) runtime_of.insert(profile.hardware, profile.runtime);
      out.profiles.push_back(profile);
    }
  }

  for (const json& e : field(j, "feasible", path, "feasible", json::value_t::array)) {
    PlanRow r;
    r.rank = whole(e, "rank", path, "feasible[].rank");
    r.config = whole(e, "config", path, "feasible[].config");
    r.gpus = whole(e, "gpus", path, "feasible[].gpus");
    r.description = text(e, "description");
    r.hardware = text(e, "hardware");
    r.runtime = e.contains("runtime") ? text(e, "runtime") : runtime_of.value(r.hardware);
    r.usd_per_hour = number(e, "usd_per_hour");
    r.pareto = e.value("pareto", false);
    r.profile_caveats = caveats_of.value(r.hardware + " " + r.runtime);
    const json figures = e.value("figures", json::object());
    r.usd_per_m_tokens = number(figures, "usd_per_m_blended");
    r.output_tokens_per_s_per_gpu = number(figures, "output_tokens_per_s_per_gpu");
    r.tokens_per_s_per_user = number(figures, "tokens_per_s_per_user");
    r.ttft_p95_ms = worst_class(figures, "ttft_p95_ms");
    r.tpot_p95_ms = worst_class(figures, "tpot_p95_ms");
    const json headroom = e.value("slo_headroom", json::object());
    r.ttft_headroom = number(headroom, "ttft");
    r.tpot_headroom = number(headroom, "tpot");
    for (const json& m : e.value("within_error", json::array())) {
      r.ttft_within_error = r.ttft_within_error || m == "ttft";
      r.tpot_within_error = r.tpot_within_error || m == "tpot";
    }
    out.rows.push_back(r);
  }
  const json beyond = j.value("best_beyond_error", json());
  if (beyond.is_object()) out.best_beyond_error_config = whole(beyond, "config", path, "best_beyond_error.config");
  if (out.rows.size() != out.feasible)
    throw LoadError(path.toStdString() + ": field 'feasible' has " + std::to_string(out.rows.size()) +
                    " entries but summary.feasible says " + std::to_string(out.feasible));

  // Pruned groups first, then those rejected after simulating; within a stage, reasons as first met.
  QMap<QString, int> group_of;  // "stage/reason" -> index in rejections
  for (const char* stage : {"pruned", "simulated"}) {
    for (const json& e : field(j, "rejected", path, "rejected", json::value_t::array)) {
      if (text(e, "stage") != stage) continue;
      const json& why = field(e, "rejection", path, "rejected[].rejection", json::value_t::object);
      const QString reason = text(why, "reason"), key = QString(stage) + "/" + reason;
      if (!group_of.contains(key)) {
        group_of.insert(key, static_cast<int>(out.rejections.size()));
        out.rejections.push_back({reason, stage, 0, text(e, "description"), text(why, "detail"), text(why, "metric"),
                                  number(why, "value"), number(why, "limit")});
      }
      out.rejections[group_of.value(key)].count += 1;
    }
  }
  return out;
}

}  // namespace fleetcast::gui
