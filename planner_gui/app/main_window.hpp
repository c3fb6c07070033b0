#pragma once
// The main window: scenario form and run controls (a simulation or sweep of the form, or a plan file) on the left,
// the comparison area (configurations, or a plan's ranking and rejections) and the charts (Pareto, latency CDFs,
// cost, queue and KV over time) on the right; File menu to open results, export and reopen.

#include <QMainWindow>
#include <QMap>
#include <QTemporaryDir>
#include <QVector>

#include "fleetcast/gui/configuration.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_outcome.hpp"

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;

namespace fleetcast::gui {

class ChartPanel;
class ComparisonTableModel;
class PlanRejectionModel;
class PlanTableModel;
class RunController;
class ScenarioForm;
struct RunProgress;
struct RunResult;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(const QString& cli_path, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a report, a sweep's results.jsonl, a plan output or a silicon CSV into the table and charts; a failure is
  // shown in a message box unless `error` is given (then the message goes there).
  bool open_file(const QString& path, QString* error = nullptr);
  void add_configurations(const QVector<Configuration>& configurations);
  // Shows a plan's ranking, rejections and frontier (the Plan tabs of the comparison area and the Pareto chart).
  void show_plan(const PlanOutcome& plan);
  // Runs `fleetcast plan PLAN_FILE` in the background (the "Run plan…" button after its file dialog).
  bool run_plan(const QString& plan_file);
  // File > Clear: forgets every loaded configuration, validation result and plan (tables and charts).
  void clear_results();

  ComparisonTableModel* table_model() const { return model_; }
  QTableView* table_view() const { return table_; }
  PlanTableModel* plan_model() const { return plan_model_; }
  PlanRejectionModel* rejection_model() const { return rejection_model_; }
  QString plan_summary_text() const;
  QTabWidget* comparison_tabs() const { return comparison_tabs_; }
  ScenarioForm* scenario_form() const { return form_; }
  RunController* runner() const { return runner_; }
  ChartPanel* chart(const QString& title) const { return charts_.value(title); }
  QStringList chart_titles() const { return charts_.keys(); }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_menus();
  void refresh_charts();
  void remember_recent(const QString& path);
  void rebuild_recent_menu();
  void start_run();
  void set_running(bool running);
  void on_progress(const RunProgress& p);
  void on_finished(const RunResult& r);
  void export_table();
  void export_chart(ChartPanel* panel, bool svg);

  QTemporaryDir work_dir_;
  ComparisonTableModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  PlanTableModel* plan_model_ = nullptr;
  PlanRejectionModel* rejection_model_ = nullptr;
  QLabel* plan_summary_ = nullptr;
  QTabWidget* comparison_tabs_ = nullptr;
  QTabWidget* pareto_tabs_ = nullptr;
  QPushButton* run_plan_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QSplitter* right_ = nullptr;  // the comparison area above the charts
  ScenarioForm* form_ = nullptr;
  RunController* runner_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* run_status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMap<QString, ChartPanel*> charts_;
  QTabWidget* bottom_right_ = nullptr;
  QVector<ValidationPoint> validation_;
  int runs_ = 0;
  QString run_label_;
};

}  // namespace fleetcast::gui
