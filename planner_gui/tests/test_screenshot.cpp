// gui_screenshot: the main window with two reports loaded, grabbed to build/planner_gui/screenshot-main.png;
// checks its size, that it is not blank, that the table shows the reports' values in full, that the charts
// have their series, chart export, and, with the real CLI, the form's validation message and a run from the
// Run button; then a second window with a plan output loaded (build/planner_gui/screenshot-plan.png): the plan's
// ranking, rejections and frontier, and, with the real CLI, the toy plan run from the window.

#include <QChartView>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "chart_panel.hpp"
#include "fleetcast/gui/comparison_table_model.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_rejection_model.hpp"
#include "fleetcast/gui/plan_table_model.hpp"
#include "fleetcast/gui/run_controller.hpp"
#include "main_window.hpp"
#include "scenario_form.hpp"

using namespace fleetcast::gui;
using Col = ComparisonTableModel::Column;

Q_DECLARE_METATYPE(fleetcast::gui::RunResult)

namespace {

// The CLI of this build when it is built (the default ctest suite builds it), else the fake CLI in ok mode.
QString cli_path(bool* real) {
  const QString env = qEnvironmentVariable("FLEETCAST_CLI");
  const QString built = QStringLiteral(FLEETCAST_CLI_BUILT);
  *real = true;
  if (!env.isEmpty()) return env;
  if (QFileInfo(built).isExecutable()) return built;
  *real = false;
  qputenv("FAKE_MODE", "ok");
  return QStringLiteral(GUI_TEST_DIR "/fake_fleetcast.sh");
}

QJsonObject record_of(const QString& report) {
  QFile f(report);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s", qPrintable(report));
  return QJsonDocument::fromJson(f.readAll()).object()["benchmark_record"].toObject();
}

}  // namespace

class ScreenshotTest : public QObject {
  Q_OBJECT

  QTemporaryDir settings_dir_;

 private slots:
  void initTestCase() {
    // Recent files and geometry go to a throwaway folder, not the user's settings.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir_.path());
    QCoreApplication::setOrganizationName("fleetcast-test");
    QCoreApplication::setApplicationName("gui_screenshot");
  }

  void main_window_with_two_reports() {
    bool real = false;
    const QString cli = cli_path(&real);
    qInfo("CLI: %s (%s)", qPrintable(cli), real ? "real" : "fake");
    MainWindow w(cli);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString reports[] = {GUI_FIXTURES "/report-h100.json", GUI_FIXTURES "/report-h200.json"};
    for (const QString& r : reports) {
      QString error;
      QVERIFY2(w.open_file(r, &error), qPrintable(error));
    }
    // A validation result: the measured-vs-predicted chart, no table rows.
    {
      QString error;
      QVERIFY2(w.open_file(GUI_FIXTURES "/validation-small.json", &error), qPrintable(error));
    }
    // The form's check has come back (the CLI validated the default scenario).
    QTRY_VERIFY_WITH_TIMEOUT(!w.scenario_form()->message().startsWith("checking"), 10000);
    QVERIFY2(w.scenario_form()->is_valid(), qPrintable(w.scenario_form()->message()));
    QTest::qWait(200);  // let the charts lay out

    const QPixmap shot = w.grab();
    const QString path = QStringLiteral(SCREENSHOT_PATH);
    QVERIFY(shot.save(path, "PNG"));
    qInfo("screenshot: %s", qPrintable(path));
    QCOMPARE(shot.size(), w.size());
    const QImage image = shot.toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
      for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
    qInfo("distinct colours (every other pixel): %lld", static_cast<long long>(colours.size()));
    QVERIFY(colours.size() > 100);

    // The table shows both reports' figures, each cell wide enough for its text.
    QTableView* view = w.table_view();
    QCOMPARE(view->model()->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
      const QJsonObject b = record_of(reports[row]);
      QCOMPARE(view->model()->index(row, Col::label).data().toString(), QFileInfo(reports[row]).completeBaseName());
      const QPair<int, double> cells[] = {
          {Col::ttft_p50_ms, b["ttft_p50_ms"].toDouble()},
          {Col::ttft_p95_ms, b["ttft_p95_ms"].toDouble()},
          {Col::tpot_mean_ms, b["tpot_mean_ms"].toDouble()},
          {Col::output_tokens_per_s_per_gpu, b["output_tokens_per_s_per_gpu"].toDouble()},
          {Col::tokens_per_s_per_user, b["tokens_per_s_per_user"].toDouble()},
          {Col::gpus, double(b["gpu_count"].toInt())}};
      for (const auto& [col, value] : cells) {
        const QModelIndex i = view->model()->index(row, col);
        QCOMPARE(i.data().toString(), ComparisonTableModel::format(value, col));
        const QRect rect = view->visualRect(i);
        QVERIFY(view->viewport()->rect().contains(rect));
        QVERIFY(view->fontMetrics().horizontalAdvance(i.data().toString()) < rect.width());
      }
    }
    // The H200 run at the same rate has shorter steps: lower TPOT, marked best.
    QVERIFY(view->model()->index(1, Col::tpot_mean_ms).data(ComparisonTableModel::best_role).toBool());
    QVERIFY(!view->model()->index(0, Col::tpot_mean_ms).data(ComparisonTableModel::best_role).toBool());

    // Charts: the Pareto chart has a series per report, the CDF a line and points per report, cost its bars.
    QVERIFY(w.chart("Pareto: throughput per GPU vs per-user speed")->series_count() >= 2);
    QCOMPARE(w.chart("TTFT CDF")->series_count(), 4);
    QCOMPARE(w.chart("Queue: requests waiting")->series_count(), 2);
    QCOMPARE(w.chart("Cost: GPU $/hour, busy and idle")->series_count(), 1);
    QCOMPARE(w.chart("Measured vs predicted (validate --json)")->series_count(), 3);  // TTFT, TPOT, identity

    // Hover on a Pareto point shows that configuration's details.
    ChartPanel* pareto = w.chart("Pareto: throughput per GPU vs per-user speed");
    QScatterSeries* h200 = nullptr;
    for (QAbstractSeries* s : pareto->findChild<QChartView*>()->chart()->series())
      if (s->name() == "report-h200") h200 = qobject_cast<QScatterSeries*>(s);
    QVERIFY(h200);
    emit h200->hovered(h200->at(0), true);
    QVERIFY2(pareto->last_hover_text().startsWith("report-h200\n"), qPrintable(pareto->last_hover_text()));
    QVERIFY(pareto->last_hover_text().contains("tok/s per user"));
    QVERIFY(pareto->last_hover_text().contains("h200"));

    // Export.
    QString error;
    const QString png = QStringLiteral(SCREENSHOT_DIR "/pareto.png"),
                  svg = QStringLiteral(SCREENSHOT_DIR "/pareto.svg");
    QVERIFY2(pareto->export_png(png, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), pareto->size());
    if (ChartPanel::svg_available()) {
      QVERIFY2(pareto->export_svg(svg, &error), qPrintable(error));
      QFile f(svg);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray text = f.readAll();
      QVERIFY(text.contains("<svg"));
      QVERIFY(text.contains("tokens/s per user"));  // the axis title, as text
    }

    if (!real) {
      qInfo("fleetcast CLI not built: validation message and Run button not checked with the real CLI");
      return;
    }
    // A bad field: the CLI's own message, naming the field and what is valid.
    auto* tp = w.scenario_form()->findChild<QSpinBox*>("tp");
    QVERIFY(tp);
    tp->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(!w.scenario_form()->is_valid(), 10000);
    QVERIFY2(w.scenario_form()->message().contains("deployment.replica.tp"), qPrintable(w.scenario_form()->message()));
    tp->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(w.scenario_form()->is_valid(), 10000);
    // Valid: the CLI's `simulate --check` summary says how many GPUs and requests the run would simulate.
    QVERIFY2(w.scenario_form()->message().contains(" GPUs in ") && w.scenario_form()->message().contains("requests"),
             qPrintable(w.scenario_form()->message()));
    // Run: a real simulation of the form's scenario adds a row.
    auto* run = w.findChild<QPushButton*>("run");
    QVERIFY(run && run->isEnabled());
    QSignalSpy finished(w.runner(), &RunController::finished);
    run->click();
    QVERIFY(finished.wait(60000));
    QCOMPARE(w.table_model()->rowCount(), 3);
    QVERIFY(w.table_model()->index(2, Col::label).data().toString().startsWith("run 1: default"));
    QVERIFY(w.table_model()->index(2, Col::ttft_p50_ms).data(ComparisonTableModel::value_role).toDouble() > 0.0);
    QVERIFY(!w.table_model()->configurations()[2].timeline.empty());  // runs ask for --timeline
    QCOMPARE(w.chart("Queue: requests waiting")->series_count(), 3);
  }

  void main_window_with_a_plan() {
    bool real = false;
    const QString cli = cli_path(&real);
    MainWindow w(cli);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString output = GUI_FIXTURES "/plan-toy.json";
    QString error;
    QVERIFY2(w.open_file(output, &error), qPrintable(error));
    QTest::qWait(200);

    const QPixmap shot = w.grab();
    const QString path = QStringLiteral(SCREENSHOT_DIR "/screenshot-plan.png");
    QVERIFY(shot.save(path, "PNG"));
    qInfo("screenshot: %s", qPrintable(path));
    const QImage image = shot.toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
      for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 100);

    // The plan's tab is in front, its table shows every feasible configuration with the loaded values.
    const PlanOutcome plan = load_plan_output(output);
    QCOMPARE(w.comparison_tabs()->currentIndex(), 1);
    auto* table = w.findChild<QTableView*>("plan_table");
    QVERIFY(table && table->isVisible());
    QCOMPARE(table->model()->rowCount(), static_cast<int>(plan.rows.size()));
    for (int row = 0; row < std::min(3, static_cast<int>(plan.rows.size())); ++row) {
      const PlanRow& r = plan.rows[row];
      QCOMPARE(table->model()->index(row, PlanTableModel::configuration).data().toString(), r.description);
      QCOMPARE(table->model()->index(row, PlanTableModel::usd_per_m_tokens).data().toString(),
               QString::number(r.usd_per_m_tokens, 'f', 4));
      QCOMPARE(table->model()->index(row, PlanTableModel::gpus).data().toString(), QString::number(r.gpus));
      const QRect rect = table->visualRect(table->model()->index(row, PlanTableModel::usd_per_m_tokens));
      QVERIFY(table->viewport()->rect().contains(rect));
    }
    QCOMPARE(w.rejection_model()->rowCount(), static_cast<int>(plan.rejections.size()));
    QVERIFY2(w.plan_summary_text().contains(QString("%1 candidates").arg(plan.candidates)),
             qPrintable(w.plan_summary_text()));
    QVERIFY(w.plan_summary_text().contains(QString("%1 feasible").arg(plan.feasible)));
    // The plan's Pareto chart: the frontier (points and line) and, where some are off it, the others.
    ChartPanel* chart = w.chart("Plan Pareto: $/M tokens vs per-user speed");
    QVERIFY(chart && chart->isVisible());
    QVERIFY(chart->series_count() >= 2);

    // File > Clear forgets the plan too: empty ranking, rejections and frontier, the summary back to its hint.
    w.clear_results();
    QCOMPARE(w.plan_model()->rowCount(), 0);
    QCOMPARE(w.rejection_model()->rowCount(), 0);
    QCOMPARE(chart->series_count(), 0);
    QVERIFY(w.plan_summary_text().startsWith("No plan yet"));
    QVERIFY2(w.open_file(output, &error), qPrintable(error));
    QCOMPARE(w.plan_model()->rowCount(), static_cast<int>(plan.rows.size()));

    if (!real) {
      qInfo("fleetcast CLI not built: the toy plan not run from the window");
      return;
    }
    // Run the toy plan with the real CLI: progress reaches the end and the table shows the run's ranking.
    w.plan_model()->set_rows({});
    QSignalSpy finished(w.runner(), &RunController::finished);
    QVERIFY(w.run_plan(QStringLiteral(TOY_PLAN)));
    QVERIFY(!w.findChild<QPushButton*>("run_plan")->isEnabled());  // one run at a time
    QVERIFY(finished.wait(240000));
    const RunResult r = finished.takeFirst().at(0).value<RunResult>();
    QVERIFY2(r.outcome == RunResult::Outcome::succeeded, qPrintable(r.message));
    QVERIFY(r.plan.has_value());
    QCOMPARE(w.plan_model()->rowCount(), static_cast<int>(r.plan->rows.size()));
    QVERIFY(w.plan_model()->rowCount() >= 1);
    QCOMPARE(w.findChild<QProgressBar*>()->value(), 1000);
    QVERIFY(w.findChild<QPushButton*>("run_plan")->isEnabled());
  }
};

QTEST_MAIN(ScreenshotTest)
#include "test_screenshot.moc"
