#pragma once
// The scenario form: a base scenario (a shipped preset or a file) and the fields people change most, checked by
// the CLI's own validation as they type (ScenarioChecker, debounced), with its message shown as it is.

#include <QJsonObject>
#include <QString>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTimer;

namespace fleetcast::gui {

class ScenarioChecker;

class ScenarioForm : public QWidget {
  Q_OBJECT

 public:
  ScenarioForm(const QString& cli_path, const QString& work_dir, QWidget* parent = nullptr);

  // The edited scenario, written to a file in the work folder; empty when it could not be written.
  QString write_current(QString* error);
  QString sweep_axis() const;  // "PATH=V1,V2,..." or empty: a plain simulation
  QString summary() const;     // "llama-3.1-8b on h100, TP1, 4 req/s" for run labels
  bool is_valid() const { return valid_; }
  QString message() const;
  void set_base_file(const QString& path);  // a scenario file instead of a preset

 signals:
  void validity_changed(bool valid);

 private:
  void schedule_check();
  void on_checked(bool ok, const QString& message);
  QJsonObject base() const;

  QString work_dir_;
  QString base_file_;
  QComboBox* scenario_ = nullptr;
  QComboBox* model_ = nullptr;
  QComboBox* hardware_ = nullptr;
  QComboBox* runtime_ = nullptr;  // the serving engine, or the scenario's
  QSpinBox* tp_ = nullptr;
  QSpinBox* nodes_ = nullptr;
  QDoubleSpinBox* rate_ = nullptr;
  QSpinBox* requests_ = nullptr;
  QLineEdit* sweep_ = nullptr;
  QLabel* status_ = nullptr;
  QTimer* debounce_ = nullptr;
  ScenarioChecker* checker_ = nullptr;
  bool valid_ = false;
  int written_ = 0;
};

}  // namespace fleetcast::gui
