// gui_runner: RunController against a fake CLI (fake_fleetcast.sh): progress parsed from stderr, completion with
// the loaded result, failure with the CLI's message, cancellation (terminate, and kill when SIGTERM is ignored),
// a crash, and a CLI that is not there.

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/run_controller.hpp"

using namespace fleetcast::gui;
using Outcome = RunResult::Outcome;

Q_DECLARE_METATYPE(fleetcast::gui::RunProgress)
Q_DECLARE_METATYPE(fleetcast::gui::RunResult)

namespace {

const QString kFake = QStringLiteral(GUI_TEST_DIR "/fake_fleetcast.sh");

RunResult wait_result(QSignalSpy& finished, int timeout_ms = 10000) {
  if (finished.isEmpty() && !finished.wait(timeout_ms)) qFatal("no finished signal");
  return finished.takeFirst().at(0).value<RunResult>();
}

QVector<RunProgress> progress_of(QSignalSpy& spy) {
  QVector<RunProgress> out;
  for (const auto& args : spy) out << args.at(0).value<RunProgress>();
  return out;
}

}  // namespace

class RunnerTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<RunProgress>();
    qRegisterMetaType<RunResult>();
    qputenv("FAKE_REPORT", GUI_FIXTURES "/report-h100.json");
    qputenv("FAKE_SWEEP", GUI_FIXTURES "/sweeps/small/results.jsonl");
    qputenv("FAKE_PLAN", GUI_FIXTURES "/plan-toy.json");
    qunsetenv("FAKE_IGNORE_TERM");
  }

  void progress_line_parsing() {
    const auto p = RunController::parse_progress_line(R"({"phase": "sweep", "done": 3, "total": 12})");
    QVERIFY(p.has_value());
    QCOMPARE(p->phase, QStringLiteral("sweep"));
    QCOMPARE(p->done, 3);
    QCOMPARE(p->total, 12);
    QCOMPARE(p->share(), 0.25);
    QVERIFY(!RunController::parse_progress_line("fleetcast: error: x.json: field 'a' = 1: bad").has_value());
    QVERIFY(!RunController::parse_progress_line(R"({"phase": "sweep"})").has_value());
  }

  void completes_with_progress_and_loaded_report() {
    qputenv("FAKE_MODE", "ok");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", dir.path() + "/report.json"));
    QVERIFY(run.is_running());
    QVERIFY(!run.start_simulate("tiny.json", dir.path() + "/other.json"));  // one run at a time
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::succeeded);
    QCOMPARE(r.exit_code, 0);
    QVERIFY(r.message.isEmpty());
    const auto seen = progress_of(progress);
    QCOMPARE(seen.size(), 4);
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(seen[i].done, i + 1);
      QCOMPARE(seen[i].total, 4);
      QCOMPARE(seen[i].phase, QStringLiteral("simulate"));
    }
    QCOMPARE(r.configurations.size(), 1);
    QCOMPARE(r.configurations[0].label, QStringLiteral("report"));  // named after the file the run wrote
    QCOMPARE(r.configurations[0].record.gpu, std::string("h100"));
    QVERIFY(!run.is_running());
  }

  void sweep_completes_with_its_points() {
    qputenv("FAKE_MODE", "ok");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start_sweep_grid("tiny.json", "mytag", dir.path(), {"deployment.replica.tp=1,2"}, 2));
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::succeeded);
    QCOMPARE(r.result_path, dir.path() + "/mytag/results.jsonl");
    QCOMPARE(r.configurations.size(), 6);
    QCOMPARE(r.configurations[0].group, QStringLiteral("mytag"));
  }

  void plan_completes_with_progress_and_its_ranking() {
    qputenv("FAKE_MODE", "ok");
    QTemporaryDir dir;
    qputenv("FAKE_ARGS", (dir.path() + "/args").toLocal8Bit());
    RunController run(kFake);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_plan("toy-plan.json", dir.path() + "/plan-out.json", 2));
    QVERIFY(!run.start_plan("toy-plan.json", dir.path() + "/other.json", 2));  // one run at a time
    const RunResult r = wait_result(finished);
    qunsetenv("FAKE_ARGS");
    QCOMPARE(r.outcome, Outcome::succeeded);
    QCOMPARE(r.result_path, dir.path() + "/plan-out.json");
    QCOMPARE(progress_of(progress).size(), 4);
    QCOMPARE(progress_of(progress).back().done, 4);
    QVERIFY(r.configurations.isEmpty());
    QVERIFY(r.plan.has_value());
    const PlanOutcome expected = load_plan_output(GUI_FIXTURES "/plan-toy.json");
    QCOMPARE(r.plan->rows.size(), expected.rows.size());
    QCOMPARE(r.plan->rows[0].description, expected.rows[0].description);
    QCOMPARE(r.plan->rejections.size(), expected.rejections.size());
    QFile args(dir.path() + "/args");
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll()).split('\n', Qt::SkipEmptyParts),
             QStringList({"plan", "toy-plan.json", "-o", dir.path() + "/plan-out.json", "-j", "2", "--progress", "json",
                          "--quiet"}));
  }

  void plan_cancel_terminates() {
    qputenv("FAKE_MODE", "slow");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_plan("toy-plan.json", dir.path() + "/plan-out.json", 2));
    QVERIFY(progress.wait(5000));
    run.cancel();
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::cancelled);
    QVERIFY(!r.plan.has_value());
  }

  void failure_reports_the_cli_message() {
    qputenv("FAKE_MODE", "fail");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", dir.path() + "/report.json"));
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::failed);
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.message.startsWith("fleetcast exited with code 2 (bad input or usage)"), qPrintable(r.message));
    QVERIFY(r.message.contains("field 'deployment.replica.tp' = 3: must divide the deployment's 8 GPUs"));
    QVERIFY(!r.message.contains("\"phase\""));  // progress lines are not part of the message
    QCOMPARE(progress.size(), 1);
    QVERIFY(r.configurations.isEmpty());
  }

  void cancel_terminates() {
    qputenv("FAKE_MODE", "slow");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", dir.path() + "/report.json"));
    QVERIFY(progress.wait(5000));  // running: it said 1/100
    QElapsedTimer clock;
    clock.start();
    run.cancel();
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::cancelled);
    QVERIFY(clock.elapsed() < 2000);  // SIGTERM ends it, no wait for the kill
    QVERIFY(!run.is_running());
  }

  void cancel_kills_when_terminate_is_ignored() {
    qputenv("FAKE_MODE", "slow");
    qputenv("FAKE_IGNORE_TERM", "1");
    QTemporaryDir dir;
    RunController run(kFake);
    run.set_kill_grace_ms(500);
    QSignalSpy progress(&run, &RunController::progress), finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", dir.path() + "/report.json"));
    QVERIFY(progress.wait(5000));
    QElapsedTimer clock;
    clock.start();
    run.cancel();
    const RunResult r = wait_result(finished);
    qunsetenv("FAKE_IGNORE_TERM");
    QCOMPARE(r.outcome, Outcome::cancelled);
    QVERIFY2(clock.elapsed() >= 450, "ended before the grace period: SIGTERM was not ignored");
    QVERIFY(clock.elapsed() < 5000);
  }

  void crash_is_a_failure_in_words() {
    qputenv("FAKE_MODE", "crash");
    QTemporaryDir dir;
    RunController run(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", dir.path() + "/report.json"));
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::failed);
    QCOMPARE(r.exit_code, -1);
    QVERIFY2(r.message.contains("stopped without finishing"), qPrintable(r.message));
  }

  void missing_cli_is_a_failure_in_words() {
    RunController run(GUI_TEST_DIR "/no-such-fleetcast");
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start_simulate("tiny.json", "/tmp/report.json"));
    const RunResult r = wait_result(finished);
    QCOMPARE(r.outcome, Outcome::failed);
    QVERIFY2(r.message.contains("could not start the fleetcast CLI at"), qPrintable(r.message));
    QVERIFY(r.message.contains("no-such-fleetcast"));
  }
};

QTEST_GUILESS_MAIN(RunnerTest)
#include "test_runner.moc"
