#include "fleetcast/gui/run_controller.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include "fleetcast/gui/loaders.hpp"

namespace fleetcast::gui {
namespace {

constexpr int kMessageLinesKept = 20;

QString exit_meaning(int code) {
  switch (code) {
    case 1:
      return QStringLiteral("the run failed");
    case 2:
      return QStringLiteral("bad input or usage");
    case 3:
      return QStringLiteral("the hardware the command needs is absent");
    default:
      return QStringLiteral("unexpected exit code");
  }
}

}  // namespace

RunController::RunController(QString cli_path, QObject* parent) : QObject(parent), cli_path_(std::move(cli_path)) {}

RunController::~RunController() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
  }
}

bool RunController::start_simulate(const QString& scenario, const QString& report_path) {
  return start({"simulate", scenario, "-o", report_path, "--timeline", "--progress", "json", "--quiet"},
               ResultKind::report, report_path);
}

bool RunController::start_sweep_grid(const QString& scenario, const QString& tag, const QString& out_dir,
                                     const QStringList& sets, int jobs) {
  QStringList args{"sweep", "grid", scenario, tag};
  for (const QString& s : sets) args << "--set" << s;
  args << "--out" << out_dir << "-j" << QString::number(jobs) << "--progress"
       << "json";
  return start(args, ResultKind::sweep_results, out_dir + "/" + tag + "/results.jsonl");
}

bool RunController::start_plan(const QString& plan, const QString& out_json, int jobs) {
  return start({"plan", plan, "-o", out_json, "-j", QString::number(jobs), "--progress", "json", "--quiet"},
               ResultKind::plan, out_json);
}

bool RunController::start(const QStringList& arguments, ResultKind kind, const QString& result_path) {
  if (process_) return false;
  kind_ = kind;
  result_path_ = result_path;
  stderr_pending_.clear();
  message_lines_.clear();
  cancelled_ = false;
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::SeparateChannels);
  process_->setStandardOutputFile(QProcess::nullDevice());
  connect(process_, &QProcess::readyReadStandardError, this, &RunController::read_stderr);
  connect(process_, &QProcess::finished, this, &RunController::on_finished);
  connect(process_, &QProcess::errorOccurred, this, &RunController::on_error);
  process_->start(cli_path_, arguments);
  return true;
}

void RunController::cancel() {
  if (!process_ || cancelled_) return;
  cancelled_ = true;
  process_->terminate();
  QProcess* const p = process_;
  QTimer::singleShot(kill_grace_ms_, p, [p] {
    if (p->state() != QProcess::NotRunning) p->kill();
  });
}

std::optional<RunProgress> RunController::parse_progress_line(const QByteArray& line) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject()) return std::nullopt;
  const QJsonObject o = doc.object();
  if (!o.value("done").isDouble() || !o.value("total").isDouble()) return std::nullopt;
  return RunProgress{o.value("phase").toString(), static_cast<qint64>(o.value("done").toDouble()),
                     static_cast<qint64>(o.value("total").toDouble())};
}

void RunController::read_stderr() {
  if (!process_) return;
  stderr_pending_ += process_->readAllStandardError();
  qsizetype end;
  while ((end = stderr_pending_.indexOf('\n')) >= 0) {
    const QByteArray line = stderr_pending_.left(end).trimmed();
    stderr_pending_.remove(0, end + 1);
    if (line.isEmpty()) continue;
    if (const auto p = parse_progress_line(line)) {
      emit progress(*p);
    } else {
      message_lines_ << QString::fromUtf8(line);
      if (message_lines_.size() > kMessageLinesKept) message_lines_.removeFirst();
    }
  }
}

void RunController::on_finished(int exit_code, QProcess::ExitStatus status) {
  read_stderr();
  if (!stderr_pending_.trimmed().isEmpty()) message_lines_ << QString::fromUtf8(stderr_pending_.trimmed());
  RunResult r;
  r.result_path = result_path_;
  r.exit_code = status == QProcess::NormalExit ? exit_code : -1;
  const QString said = message_lines_.join('\n');
  if (cancelled_) {
    r.outcome = RunResult::Outcome::cancelled;
    r.message = QStringLiteral("cancelled");
    finish(r);
    return;
  }
  if (status != QProcess::NormalExit) {
    r.message =
        QString("fleetcast stopped without finishing (crashed or killed)%1").arg(said.isEmpty() ? "" : ":\n" + said);
    finish(r);
    return;
  }
  // A sweep exits 1 when some points failed; the others are complete, so load them anyway.
  const bool load = exit_code == 0 || (exit_code == 1 && kind_ == ResultKind::sweep_results);
  if (load && kind_ != ResultKind::none) {
    try {
      if (kind_ == ResultKind::plan) {
        r.plan = load_plan_output(result_path_);
      } else {
        r.configurations = kind_ == ResultKind::report ? QVector<Configuration>{load_report(result_path_)}
                                                       : load_sweep_results(result_path_);
      }
    } catch (const LoadError& e) {
      if (exit_code == 0) {
        r.message = QString("the run finished but its result could not be read: %1").arg(e.what());
        finish(r);
        return;
      }
    }
  }
  if (exit_code == 0) {
    r.outcome = RunResult::Outcome::succeeded;
  } else {
    r.message = QString("fleetcast exited with code %1 (%2)%3")
                    .arg(exit_code)
                    .arg(exit_meaning(exit_code))
                    .arg(said.isEmpty() ? "" : ":\n" + said);
  }
  finish(r);
}

void RunController::on_error(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || !process_) return;  // the others end in on_finished
  RunResult r;
  r.result_path = result_path_;
  r.message = QString("could not start the fleetcast CLI at '%1': %2").arg(cli_path_, process_->errorString());
  finish(r);
}

void RunController::finish(RunResult result) {
  if (process_) {
    process_->disconnect(this);
    process_->deleteLater();
    process_ = nullptr;
  }
  emit finished(result);
}

}  // namespace fleetcast::gui
