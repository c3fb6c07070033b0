#pragma once
// Runs `fleetcast` as a child process (a crash in a run cannot take the app down), reads its `--progress json`
// lines from stderr, cancels (terminate, then kill after a grace period) and, at the end, loads what the run
// wrote and hands it back as a value. The CLI's path is a constructor argument so tests can use a fake CLI.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "fleetcast/gui/configuration.hpp"
#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {

// One `--progress json` line: {"phase": "simulate", "done": D, "total": T, ...}.
struct RunProgress {
  QString phase;
  qint64 done = 0;
  qint64 total = 0;
  double share() const { return total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0; }
};

struct RunResult {
  enum class Outcome { succeeded, failed, cancelled };
  Outcome outcome = Outcome::failed;
  int exit_code = -1;                     // -1: did not start or was stopped by a signal
  QString message;                        // failed: what went wrong, in words (the CLI's own error lines)
  QString result_path;                    // the report, results.jsonl or plan output the run wrote
  QVector<Configuration> configurations;  // what it wrote, loaded (a sweep exiting 1 still gives its points)
  std::optional<PlanOutcome> plan;        // a plan run's output, loaded
};

class RunController : public QObject {
  Q_OBJECT

 public:
  enum class ResultKind { none, report, sweep_results, plan };

  explicit RunController(QString cli_path, QObject* parent = nullptr);
  ~RunController() override;  // a run still going is killed

  const QString& cli_path() const { return cli_path_; }
  void set_kill_grace_ms(int ms) { kill_grace_ms_ = ms; }

  // `fleetcast simulate SCENARIO -o REPORT --timeline --progress json --quiet` (the timeline feeds the queue and KV
  // charts); false (nothing started) while a run is going.
  bool start_simulate(const QString& scenario, const QString& report_path);
  // `fleetcast sweep grid SCENARIO TAG --set S... --out OUT_DIR -j JOBS --progress json`.
  bool start_sweep_grid(const QString& scenario, const QString& tag, const QString& out_dir, const QStringList& sets,
                        int jobs);
  // `fleetcast plan PLAN -o OUT_JSON -j JOBS --progress json --quiet` (progress: prune, then simulate D of T).
  bool start_plan(const QString& plan, const QString& out_json, int jobs);
  bool start(const QStringList& arguments, ResultKind kind, const QString& result_path);
  // Asks the run to stop (SIGTERM), kills it after the grace period; `finished` reports `cancelled`.
  void cancel();
  bool is_running() const { return process_ != nullptr; }

  // nullopt for a line that is not a progress object (the CLI's error messages, for example).
  static std::optional<RunProgress> parse_progress_line(const QByteArray& line);

 signals:
  void progress(const fleetcast::gui::RunProgress& progress);
  void finished(const fleetcast::gui::RunResult& result);

 private:
  void read_stderr();
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void on_error(QProcess::ProcessError error);
  void finish(RunResult result);

  QString cli_path_;
  int kill_grace_ms_ = 3000;
  QProcess* process_ = nullptr;
  ResultKind kind_ = ResultKind::none;
  QString result_path_;
  QByteArray stderr_pending_;
  QStringList message_lines_;  // stderr lines that are not progress, the last few kept
  bool cancelled_ = false;
};

}  // namespace fleetcast::gui
