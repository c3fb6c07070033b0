#pragma once
// Readers for the files the CLI writes and for measured results, each returning Configurations:
// - a report (`fleetcast simulate -o REPORT.json`),
// - a sweep's results (`sweeps/<tag>/results.jsonl`, one line per point),
// - measured serving runs (the silicon CSV, read by fleetcast::traces),
// - a plan's output (`fleetcast plan PLAN.json -o OUT.json`, plan_outcome.hpp).
// Errors are LoadError with the file and what is wrong, in words.

#include <QString>
#include <QVector>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "fleetcast/gui/configuration.hpp"
#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {

class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A profile's held-out error on record (calibration/measured_accuracy.hpp) as the CLI words it; "" for null. `field`
// names where it sits ("derived.profile_measured_error") for the LoadError of a bad one.
QString measured_error_text(const nlohmann::json& measured, const QString& path, const std::string& field);
// The error on models left out of a fit (calibration/unseen_model_accuracy.hpp) as the CLI words it; "" for null.
QString unseen_model_error_text(const nlohmann::json& unseen, const QString& path, const std::string& field);
// The error of a GPU-without-a-fit pick on fitted GPUs (calibration/unfitted_gpu_accuracy.hpp); "" for null.
QString unfitted_gpu_error_text(const nlohmann::json& unfitted, const QString& path, const std::string& field);

Configuration load_report(const QString& path);
// Failed points are kept (with `error` set and NaN figures) so the table can show them.
QVector<Configuration> load_sweep_results(const QString& path);
// Measured runs give mean TTFT and TPOT, the layout's GPUs and tokens/s per user = 1000 / TPOT (fixed output
// lengths, one mean TPOT: the per-request mean of 1 / TPOT is not in the file); no throughput or cost.
QVector<Configuration> load_silicon_csv(const QString& path);
// One predicted row of `fleetcast validate --silicon FILE --json OUT` (schema fleetcast.validation/1): the
// measured and the predicted mean TTFT and TPOT of a measured serving run.
struct ValidationPoint {
  QString id;
  QString group;  // model, system, backend, mode
  double measured_ttft_ms = NAN, predicted_ttft_ms = NAN;
  double measured_tpot_ms = NAN, predicted_tpot_ms = NAN;
};
// Rows that were not predicted are left out (the CLI's own output says why).
QVector<ValidationPoint> load_validation_json(const QString& path);

struct LoadedFile {
  QVector<Configuration> configurations;
  QVector<ValidationPoint> validation;
  std::optional<PlanOutcome> plan;
};
// By name and content: *.jsonl a sweep, *.csv measured runs, a JSON with schema fleetcast.validation/1 a
// validation, one with schema fleetcast.plan/1 a plan output (load_plan_output), any other JSON a report.
LoadedFile load_any(const QString& path);

}  // namespace fleetcast::gui
