#include "fleetcast/gui/scenario_draft.hpp"

#include <QJsonDocument>
#include <QSaveFile>

#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::gui {

QStringList preset_names(const QString& kind) {
  const specs::PresetKind k = kind == "model"      ? specs::PresetKind::model
                              : kind == "hardware" ? specs::PresetKind::hardware
                                                   : specs::PresetKind::scenario;
  QStringList names;
  for (const auto& p : specs::list_presets(k)) names << QString::fromStdString(p.name);
  return names;
}

QJsonObject scenario_preset(const QString& name) {
  try {
    const std::string text = specs::preset_json(specs::PresetKind::scenario, name.toStdString()).dump();
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
  } catch (const std::exception& e) {
    throw LoadError(e.what());
  }
}

QStringList runtime_names() {
  QStringList names;  // the parser's list: an engine it takes is one the form offers
  for (const std::string_view name : specs::runtime_names()) names << QString::fromUtf8(name.data(), name.size());
  return names;
}

namespace {

// `holder` (a deployment or one of its pools) with its scheduler's `policy` removed, where it gives one.
QJsonObject without_policy(QJsonObject holder) {
  QJsonObject scheduler = holder.value("scheduler").toObject();
  if (scheduler.contains("policy")) {
    scheduler.remove("policy");
    holder["scheduler"] = scheduler;
  }
  return holder;
}

}  // namespace

QJsonObject apply_edits(QJsonObject s, const ScenarioEdits& e) {
  if (!e.model.isEmpty()) s["model"] = e.model;
  QJsonObject deployment = s.value("deployment").toObject();
  if (!e.hardware.isEmpty()) deployment["hardware"] = e.hardware;
  if (!e.runtime.isEmpty()) {
    deployment = without_policy(deployment);
    deployment["runtime"] = e.runtime;
    if (deployment.contains("disaggregation")) {
      QJsonObject pools = deployment.value("disaggregation").toObject();
      for (const char* pool : {"prefill", "decode"})
        if (pools.contains(pool)) pools[pool] = without_policy(pools.value(pool).toObject());
      deployment["disaggregation"] = pools;
    }
  }
  if (e.nodes > 0) deployment["nodes"] = e.nodes;
  if (e.tp > 0) {
    QJsonObject replica = deployment.value("replica").toObject();
    replica["tp"] = e.tp;
    deployment["replica"] = replica;
  }
  s["deployment"] = deployment;
  if (e.rate_per_s > 0.0) {
    QJsonObject workload = s.value("workload").toObject();
    QJsonObject arrival = workload.value("arrival").toObject();
    arrival.remove("load");
    arrival["rate_per_s"] = e.rate_per_s;
    workload["arrival"] = arrival;
    s["workload"] = workload;
  }
  if (e.num_requests > 0) s["num_requests"] = e.num_requests;
  return s;
}

bool write_scenario(const QJsonObject& scenario, const QString& path, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(scenario).toJson()) < 0 || !f.commit()) {
    if (error) *error = path + ": " + f.errorString();
    return false;
  }
  return true;
}

ScenarioChecker::ScenarioChecker(QString cli_path, QObject* parent) : QObject(parent), cli_path_(std::move(cli_path)) {}

ScenarioChecker::~ScenarioChecker() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
  }
}

void ScenarioChecker::check(const QString& scenario_path) {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
    process_->deleteLater();
  }
  QProcess* p = new QProcess(this);
  process_ = p;
  connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
    const QString said = QString::fromUtf8(p->readAllStandardError()).trimmed();
    const QString summary = QString::fromUtf8(p->readAllStandardOutput()).trimmed();
    process_ = nullptr;
    p->deleteLater();
    if (status == QProcess::NormalExit && code == 0) {
      // The CLI's one-line summary ("ok: scenario 'x': 8 GPUs in 8 replicas, ...") tells the user what the
      // scenario amounts to before they run it.
      emit checked(true, summary.isEmpty() ? QStringLiteral("valid") : summary);
    } else {
      QString text = said;
      text.remove(QStringLiteral("fleetcast: error: "));
      emit checked(false, text.isEmpty() ? QString("the check exited with code %1").arg(code) : text);
    }
  });
  connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;
    process_ = nullptr;
    p->deleteLater();
    emit checked(false, QString("could not start the fleetcast CLI at '%1' to check the scenario").arg(cli_path_));
  });
  // `simulate --check` makes every check a simulation makes before its first event (specs, trace files, memory
  // fit, pools, request draw) without starting SimGrid, so a scenario that passes here starts when run.
  p->start(cli_path_, {"simulate", scenario_path, "--check"});
}

}  // namespace fleetcast::gui
