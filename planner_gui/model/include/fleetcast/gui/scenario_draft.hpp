#pragma once
// A scenario being edited in the form: a base scenario (a shipped preset or a file) with a few fields replaced,
// written out as a scenario file the CLI reads; and the check that runs the CLI's own validation on it.

#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace fleetcast::gui {

// Fields the form edits; empty / 0 keeps the base scenario's value.
struct ScenarioEdits {
  QString model;            // a model preset name
  QString hardware;         // a hardware preset name
  QString runtime;          // deployment.runtime: the serving engine, with its own scheduler (a policy given goes)
  int tp = 0;               // deployment.replica.tp
  int nodes = 0;            // deployment.nodes
  double rate_per_s = 0.0;  // workload.arrival.rate_per_s (replaces a `load`)
  int num_requests = 0;
};

// The shipped presets (compiled into fleetcast::specs) by kind: "model", "hardware", "scenario".
QStringList preset_names(const QString& kind);
// A scenario preset as JSON; throws LoadError for an unknown name.
QJsonObject scenario_preset(const QString& name);
// A new runtime drops the base's scheduler `policy` (its own and its pools'): the engine picked schedules as it does,
// with the base's caps and budgets.
QJsonObject apply_edits(QJsonObject scenario, const ScenarioEdits& edits);
// The engines a deployment names (deployment.runtime's valid values).
QStringList runtime_names();
bool write_scenario(const QJsonObject& scenario, const QString& path, QString* error);

// Runs `fleetcast step SCENARIO --decode 1 --context 1`: the CLI parses and validates the whole scenario (and
// plans its memory) in about 0.1 s without simulating; its error message (file, field, value, what is valid) is
// passed on as it is. A new check stops the one still going.
class ScenarioChecker : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioChecker(QString cli_path, QObject* parent = nullptr);
  ~ScenarioChecker() override;
  void check(const QString& scenario_path);

 signals:
  void checked(bool ok, const QString& message);

 private:
  QString cli_path_;
  QProcess* process_ = nullptr;
};

}  // namespace fleetcast::gui
