#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "../charts/chart_panel.hpp"
#include "fleetcast/gui/chart_math.hpp"
#include "fleetcast/gui/comparison_table_model.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_rejection_model.hpp"
#include "fleetcast/gui/plan_table_model.hpp"
#include "fleetcast/gui/run_controller.hpp"
#include "fleetcast/gui/table_csv.hpp"
#include "scenario_form.hpp"

namespace fleetcast::gui {
namespace {

constexpr int kRecentFilesKept = 8;
const char* const kPareto = "Pareto: throughput per GPU vs per-user speed";
const char* const kPlanPareto = "Plan Pareto: $/M tokens vs per-user speed";
const char* const kTtftCdf = "TTFT CDF";
const char* const kE2eCdf = "End-to-end latency CDF";
const char* const kCost = "Cost: GPU $/hour, busy and idle";
const char* const kQueue = "Queue: requests waiting";
const char* const kKv = "KV cache used";
const char* const kMeasured = "Measured vs predicted (validate --json)";
const char* const kNoPlanText = "No plan yet: Run plan… or open a plan output (fleetcast plan PLAN.json -o OUT.json).";

}  // namespace

MainWindow::MainWindow(const QString& cli_path, QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("fleetcast-gui");
  model_ = new ComparisonTableModel(this);
  runner_ = new RunController(cli_path, this);

  // Left: the scenario and the run.
  form_ = new ScenarioForm(cli_path, work_dir_.path(), this);
  run_ = new QPushButton("Run");
  run_->setObjectName("run");
  run_plan_ = new QPushButton("Run plan…");
  run_plan_->setObjectName("run_plan");
  run_plan_->setToolTip("fleetcast plan PLAN.json: the cheapest configurations that meet the plan's SLOs");
  cancel_ = new QPushButton("Cancel");
  cancel_->setEnabled(false);
  run_->setEnabled(false);
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->setFormat("%p%");
  run_status_ = new QLabel("idle");
  run_status_->setWordWrap(true);
  run_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->addWidget(form_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(run_plan_);
  buttons->addWidget(cancel_);
  left_layout->addLayout(buttons);
  left_layout->addWidget(progress_);
  left_layout->addWidget(run_status_);
  left_layout->addStretch();
  left->setMinimumWidth(300);
  left->setMaximumWidth(420);

  // Right: the comparison area above (configurations, or a plan), charts below.
  table_ = new QTableView;
  table_->setModel(model_);
  table_->setAlternatingRowColors(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setDefaultSectionSize(22);
  plan_model_ = new PlanTableModel(this);
  rejection_model_ = new PlanRejectionModel(this);
  auto* plan_table = new QTableView;
  plan_table->setObjectName("plan_table");
  plan_table->setModel(plan_model_);
  plan_table->setAlternatingRowColors(true);
  plan_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  plan_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  plan_table->verticalHeader()->setVisible(false);
  plan_table->verticalHeader()->setDefaultSectionSize(22);
  auto* rejection_table = new QTableView;
  rejection_table->setObjectName("rejection_table");
  rejection_table->setModel(rejection_model_);
  rejection_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  rejection_table->horizontalHeader()->setStretchLastSection(true);
  rejection_table->verticalHeader()->setVisible(false);
  rejection_table->verticalHeader()->setDefaultSectionSize(22);
  plan_summary_ = new QLabel(kNoPlanText);
  plan_summary_->setWordWrap(true);
  plan_summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* plan_tables = new QSplitter(Qt::Vertical);
  plan_tables->addWidget(plan_table);
  plan_tables->addWidget(rejection_table);
  plan_tables->setStretchFactor(0, 2);
  plan_tables->setStretchFactor(1, 1);
  auto* plan_page = new QWidget;
  auto* plan_layout = new QVBoxLayout(plan_page);
  plan_layout->setContentsMargins(0, 0, 0, 0);
  plan_layout->addWidget(plan_summary_);
  plan_layout->addWidget(plan_tables, 1);
  comparison_tabs_ = new QTabWidget;
  comparison_tabs_->addTab(table_, "Configurations");
  comparison_tabs_->addTab(plan_page, "Plan");

  auto* charts = new QWidget;
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  const char* const titles[] = {kPareto, kTtftCdf, kCost, kQueue, kKv, kE2eCdf, kMeasured, kPlanPareto};
  for (const char* title : titles) {
    auto* panel = new ChartPanel(title);
    panel->setMinimumSize(280, 220);
    charts_.insert(title, panel);
  }
  // The Pareto cell holds the runs' and the plan's frontiers as tabs (their axes differ); the plan's comes forward
  // when a plan is shown.
  pareto_tabs_ = new QTabWidget;
  pareto_tabs_->addTab(charts_[kPareto], "Runs and sweeps");
  pareto_tabs_->addTab(charts_[kPlanPareto], "Plan");
  // The Pareto frontier is the chart people come for: it takes the left column, both rows high.
  grid->addWidget(pareto_tabs_, 0, 0, 2, 1);
  grid->addWidget(charts_[kTtftCdf], 0, 1);
  grid->addWidget(charts_[kCost], 0, 2);
  // Queue and KV use share a cell as tabs: both are time series of one run's state.
  auto* state_tabs = new QTabWidget;
  state_tabs->addTab(charts_[kKv], "KV cache");
  state_tabs->addTab(charts_[kQueue], "Queue");
  grid->addWidget(state_tabs, 1, 1);
  // The last cell holds two charts as tabs: the measured-vs-predicted one comes forward when a validation opens.
  bottom_right_ = new QTabWidget;
  bottom_right_->addTab(charts_[kE2eCdf], "End-to-end CDF");
  bottom_right_->addTab(charts_[kMeasured], "Measured vs predicted");
  grid->addWidget(bottom_right_, 1, 2);
  grid->setColumnStretch(0, 3);
  grid->setColumnStretch(1, 2);
  grid->setColumnStretch(2, 2);
  right_ = new QSplitter(Qt::Vertical);
  right_->addWidget(comparison_tabs_);
  right_->addWidget(charts);
  right_->setStretchFactor(0, 1);
  right_->setStretchFactor(1, 3);
  splitter_ = new QSplitter(Qt::Horizontal);
  splitter_->addWidget(left);
  splitter_->addWidget(right_);
  splitter_->setStretchFactor(1, 1);
  splitter_->setObjectName("main_splitter");
  setCentralWidget(splitter_);

  connect(form_, &ScenarioForm::validity_changed, this,
          [this](bool ok) { run_->setEnabled(ok && !runner_->is_running()); });
  connect(run_, &QPushButton::clicked, this, &MainWindow::start_run);
  connect(run_plan_, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, "Plan", {}, "Plan (*.json)");
    if (!p.isEmpty()) run_plan(p);
  });
  connect(cancel_, &QPushButton::clicked, runner_, &RunController::cancel);
  connect(runner_, &RunController::progress, this, &MainWindow::on_progress);
  connect(runner_, &RunController::finished, this, &MainWindow::on_finished);

  build_menus();
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1600, 1000);
  splitter_->restoreState(settings.value("window/splitter").toByteArray());
  refresh_charts();
  charts_[kPlanPareto]->set_xy_series({}, "$ per M tokens (blended)", "tokens/s per user");
  statusBar()->showMessage(QString("CLI: %1").arg(cli_path));
}

MainWindow::~MainWindow() = default;

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/splitter", splitter_->saveState());
  if (runner_->is_running()) runner_->cancel();
  event->accept();
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open report, sweep or measured results…", QKeySequence::Open, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, "Open results", {},
        "fleetcast results (*.json *.jsonl *.csv);;Reports (*.json);;Sweeps (results.jsonl);;"
        "Plan outputs (*.json);;Measured silicon CSV (*.csv)");
    for (const QString& p : paths) open_file(p);
  });
  file->addAction("Use a scenario &file in the form…", this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, "Scenario", {}, "Scenario (*.json)");
    if (!p.isEmpty()) form_->set_base_file(p);
  });
  recent_menu_ = file->addMenu("Open &recent");
  rebuild_recent_menu();
  file->addSeparator();
  file->addAction("Export table as &CSV…", this, &MainWindow::export_table);
  QMenu* png = file->addMenu("Export chart as &PNG");
  QMenu* svg = file->addMenu("Export chart as &SVG");
  for (ChartPanel* panel : charts_) {
    png->addAction(panel->title(), this, [this, panel] { export_chart(panel, false); });
    svg->addAction(panel->title(), this, [this, panel] { export_chart(panel, true); });
  }
  svg->setEnabled(ChartPanel::svg_available());
  file->addSeparator();
  file->addAction("C&lear results", this, &MainWindow::clear_results);
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
}

bool MainWindow::open_file(const QString& path, QString* error) {
  try {
    const LoadedFile loaded = load_any(path);
    if (!loaded.validation.isEmpty()) {
      validation_ += loaded.validation;
      bottom_right_->setCurrentIndex(1);
    }
    add_configurations(loaded.configurations);
    if (loaded.plan) show_plan(*loaded.plan);
  } catch (const LoadError& e) {
    if (error) {
      *error = e.what();
    } else {
      QMessageBox::warning(this, "Could not open", e.what());
    }
    return false;
  }
  remember_recent(path);
  return true;
}

void MainWindow::add_configurations(const QVector<Configuration>& configurations) {
  model_->append(configurations);
  refresh_charts();
}

void MainWindow::show_plan(const PlanOutcome& plan) {
  plan_model_->set_rows(plan.rows);
  rejection_model_->set_groups(plan.rejections);
  const int rejected = plan.candidates - plan.feasible;
  plan_summary_->setText(
      QString("<b>%1</b> (%2): %3 candidates; %4 pruned by the analytic bounds, %5 simulated, <b>%6 feasible</b>, "
              "%7 rejected. Cheapest: %8")
          .arg(plan.name.toHtmlEscaped(), QFileInfo(plan.source_file).fileName().toHtmlEscaped())
          .arg(plan.candidates)
          .arg(plan.pruned)
          .arg(plan.simulated)
          .arg(plan.feasible)
          .arg(rejected)
          .arg(plan.rows.isEmpty() ? QString("none meets every SLO within the limits")
                                   : QString("%1 at $%2 per M tokens")
                                         .arg(plan.rows.front().description.toHtmlEscaped())
                                         .arg(plan.rows.front().usd_per_m_tokens, 0, 'f', 4)));
  if (!plan.engines_not_searched.isEmpty())
    plan_summary_->setText(plan_summary_->text() +
                           "<br>Not searched: " + plan.engines_not_searched.join("; ").toHtmlEscaped());
  // Where the ranking leans on a fit's stand-ins: the profiles with figures outside the kernel-level ones.
  QStringList noted;
  for (const PlanProfile& p : plan.profiles) {
    if (!p.caveats.isEmpty())
      noted << QString("%1 %2 (%3): %4").arg(p.hardware, p.runtime, p.kind, p.caveats).toHtmlEscaped();
  }
  if (!noted.isEmpty())
    plan_summary_->setText(plan_summary_->text() +
                           "<br>Profiles outside the kernel-level figures (&gt;: faster than "
                           "any kernel measured; &lt;: under half of it): " +
                           noted.join("; "));
  // How wrong each profile was on measured runs it never saw: the error bar of the ranking.
  QStringList measured;
  for (const PlanProfile& p : plan.profiles) {
    measured << QString("%1 %2 (%3): %4")
                    .arg(p.hardware, p.runtime, p.kind,
                         (p.measured_error.isEmpty() ? QString("no measured error on record") : p.measured_error) +
                             (p.unseen_model_error.isEmpty() ? QString() : "; " + p.unseen_model_error) +
                             (p.unfitted_gpu_error.isEmpty() ? QString() : "; " + p.unfitted_gpu_error))
                    .toHtmlEscaped();
  }
  if (!measured.isEmpty())
    plan_summary_->setText(plan_summary_->text() + "<br>Measured error of the profiles: " + measured.join("; "));
  // The cheapest whose headroom below the objectives clears that error (the headroom column's "!" marks the others).
  for (const PlanRow& r : plan.rows) {
    if (r.config != plan.best_beyond_error_config) continue;
    plan_summary_->setText(plan_summary_->text() +
                           QString("<br>Cheapest beyond the error on record: %1 at $%2 per M tokens (rank %3)")
                               .arg(r.description.toHtmlEscaped())
                               .arg(r.usd_per_m_tokens, 0, 'f', 4)
                               .arg(r.rank));
  }
  const ParetoData pareto = plan_pareto_data(plan);
  QVector<XYSeries> series;
  for (const auto& s : pareto.series) series.push_back({s.name, s.points, s.tooltips, XYSeries::Style::points, {}});
  if (!pareto.frontier.points.isEmpty())
    series.push_back({pareto.frontier.name, pareto.frontier.points, pareto.frontier.tooltips,
                      XYSeries::Style::points_and_line, QColor(192, 57, 43)});
  charts_[kPlanPareto]->set_xy_series(series, "$ per M tokens (blended)", "tokens/s per user");
  comparison_tabs_->setCurrentIndex(1);
  pareto_tabs_->setCurrentIndex(1);
  // A plan has a dozen rows or more and its rejections below them: give the comparison area about half the height.
  const int height = right_->height();
  if (right_->sizes().value(0) < height * 2 / 5) right_->setSizes({height / 2, height - height / 2});
}

void MainWindow::clear_results() {
  model_->clear();
  validation_.clear();
  plan_model_->set_rows({});
  rejection_model_->set_groups({});
  plan_summary_->setText(kNoPlanText);
  charts_[kPlanPareto]->set_xy_series({}, "$ per M tokens (blended)", "tokens/s per user");
  comparison_tabs_->setCurrentIndex(0);
  pareto_tabs_->setCurrentIndex(0);
  refresh_charts();
}

QString MainWindow::plan_summary_text() const { return plan_summary_->text(); }

bool MainWindow::run_plan(const QString& plan_file) {
  ++runs_;
  run_label_ = QString("plan %1").arg(QFileInfo(plan_file).fileName());
  if (!runner_->start_plan(plan_file, QString("%1/plan-%2.json").arg(work_dir_.path()).arg(runs_), 2)) return false;
  set_running(true);
  run_status_->setText(QString("running %1…").arg(run_label_));
  return true;
}

void MainWindow::set_running(bool running) {
  run_->setEnabled(!running && form_->is_valid());
  run_plan_->setEnabled(!running);
  cancel_->setEnabled(running);
  if (running) progress_->setValue(0);
}

void MainWindow::remember_recent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent_files").toStringList();
  recent.removeAll(QFileInfo(path).absoluteFilePath());
  recent.prepend(QFileInfo(path).absoluteFilePath());
  while (recent.size() > kRecentFilesKept) recent.removeLast();
  settings.setValue("recent_files", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("recent_files").toStringList();
  for (const QString& p : recent) recent_menu_->addAction(p, this, [this, p] { open_file(p); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::refresh_charts() {
  const QVector<Configuration>& all = model_->configurations();
  // Pareto: one coloured series per group, the frontier as a line through its points.
  const ParetoData pareto = pareto_data(all);
  QVector<XYSeries> series;
  for (const auto& s : pareto.series) series.push_back({s.name, s.points, s.tooltips, XYSeries::Style::points, {}});
  if (pareto.frontier.points.size() > 1)
    series.push_back({pareto.frontier.name, pareto.frontier.points, pareto.frontier.tooltips, XYSeries::Style::line,
                      QColor(60, 60, 60)});
  charts_[kPareto]->set_xy_series(series, "tokens/s per user", "output tokens/s per GPU");

  // Latency CDFs and timelines: one line per configuration that has them (reports).
  QVector<XYSeries> ttft, e2e, queue, kv;
  for (const auto& c : all) {
    if (!c.ttft.empty()) ttft.push_back({c.label, latency_cdf(c.ttft), {}, XYSeries::Style::points_and_line, {}});
    if (!c.e2e.empty()) e2e.push_back({c.label, latency_cdf(c.e2e), {}, XYSeries::Style::points_and_line, {}});
    if (!c.timeline.empty()) {
      QVector<QPointF> waiting, used;
      for (int i = 0; i < c.timeline.t_s.size(); ++i) {
        if (i < c.timeline.waiting.size()) waiting.push_back({c.timeline.t_s[i], c.timeline.waiting[i]});
        if (i < c.timeline.kv_used_share.size())
          used.push_back({c.timeline.t_s[i], 100.0 * c.timeline.kv_used_share[i]});
      }
      queue.push_back({c.label, waiting, {}, XYSeries::Style::line, {}});
      kv.push_back({c.label, used, {}, XYSeries::Style::line, {}});
    }
  }
  charts_[kTtftCdf]->set_xy_series(ttft, "TTFT (ms), through the report's percentiles", "share of requests");
  charts_[kE2eCdf]->set_xy_series(e2e, "end-to-end latency (ms), through percentiles", "share of requests");
  charts_[kTtftCdf]->fix_y_range(0.0, 1.0);
  charts_[kE2eCdf]->fix_y_range(0.0, 1.0);
  charts_[kQueue]->set_xy_series(queue, "simulated time (s)", "requests waiting");
  charts_[kKv]->set_xy_series(kv, "simulated time (s)", "KV cache used (%)");

  const MeasuredVsPredicted mvp = measured_vs_predicted(validation_);
  QVector<XYSeries> overlay{{mvp.ttft.name, mvp.ttft.points, mvp.ttft.tooltips, XYSeries::Style::points, {}},
                            {mvp.tpot.name, mvp.tpot.points, mvp.tpot.tooltips, XYSeries::Style::points, {}}};
  if (!mvp.identity.points.isEmpty())
    overlay.push_back({mvp.identity.name, mvp.identity.points, {}, XYSeries::Style::line, QColor(120, 120, 120)});
  charts_[kMeasured]->set_xy_series(overlay, "measured (ms)", "predicted (ms)");

  // Cost: $/hour of the GPUs, split into the busy and the idle share.
  QStringList categories;
  BarSet busy{"busy", {}}, idle{"idle", {}};
  for (const auto& c : all) {
    if (!std::isfinite(c.cost.usd_per_hour)) continue;
    const CostSplit split = cost_split(c.cost);
    categories << c.label;
    busy.values << split.busy_usd_per_hour;
    idle.values << split.idle_usd_per_hour;
  }
  charts_[kCost]->set_stacked_bars(categories, {busy, idle}, "$ per hour");
}

void MainWindow::start_run() {
  QString error;
  const QString scenario = form_->write_current(&error);
  if (scenario.isEmpty()) {
    run_status_->setText("✖ " + error);
    return;
  }
  ++runs_;
  run_label_ = QString("run %1: %2").arg(runs_).arg(form_->summary());  // the form may change while it runs
  const QString axis = form_->sweep_axis();
  const bool started =
      axis.isEmpty()
          ? runner_->start_simulate(scenario, QString("%1/run-%2.json").arg(work_dir_.path()).arg(runs_))
          : runner_->start_sweep_grid(scenario, QString("run-%1").arg(runs_), work_dir_.path() + "/sweeps", {axis}, 2);
  if (!started) return;
  set_running(true);
  run_status_->setText(QString("running %1…").arg(run_label_));
}

void MainWindow::on_progress(const RunProgress& p) {
  progress_->setValue(static_cast<int>(std::lround(1000.0 * p.share())));
  run_status_->setText(QString("%1: %2 of %3").arg(p.phase).arg(p.done).arg(p.total));
}

void MainWindow::on_finished(const RunResult& r) {
  set_running(false);
  if (r.plan) show_plan(*r.plan);
  QVector<Configuration> loaded = r.configurations;
  for (auto& c : loaded) {
    if (c.origin == Origin::report) c.label = c.group = run_label_;
  }
  add_configurations(loaded);
  switch (r.outcome) {
    case RunResult::Outcome::succeeded:
      progress_->setValue(1000);
      run_status_->setText(
          r.plan ? QString("✔ done: %1 of %2 configurations feasible").arg(r.plan->feasible).arg(r.plan->candidates)
                 : QString("✔ done: %1 configuration(s) added").arg(loaded.size()));
      break;
    case RunResult::Outcome::cancelled:
      progress_->setValue(0);
      run_status_->setText("cancelled");
      break;
    case RunResult::Outcome::failed:
      run_status_->setText("✖ " + r.message);
      break;
  }
}

void MainWindow::export_table() {
  const QString path = QFileDialog::getSaveFileName(this, "Export table", "comparison.csv", "CSV (*.csv)");
  if (path.isEmpty()) return;
  QString error;
  if (!write_table_csv(*model_, path, &error)) QMessageBox::warning(this, "Export failed", error);
}

void MainWindow::export_chart(ChartPanel* panel, bool svg) {
  const QString path = QFileDialog::getSaveFileName(this, "Export chart", svg ? "chart.svg" : "chart.png",
                                                    svg ? "SVG (*.svg)" : "PNG (*.png)");
  if (path.isEmpty()) return;
  QString error;
  if (!(svg ? panel->export_svg(path, &error) : panel->export_png(path, &error)))
    QMessageBox::warning(this, "Export failed", error);
}

}  // namespace fleetcast::gui
