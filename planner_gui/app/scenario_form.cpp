#include "scenario_form.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTimer>

#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/scenario_draft.hpp"

namespace fleetcast::gui {
namespace {

constexpr int kCheckDelayMs = 300;  // after the last keystroke
const QString kKeep = QStringLiteral("(scenario's)");

QComboBox* preset_combo(const QString& kind, bool keep_first) {
  auto* box = new QComboBox;
  if (keep_first) box->addItem(kKeep);
  box->addItems(preset_names(kind));
  return box;
}

}  // namespace

ScenarioForm::ScenarioForm(const QString& cli_path, const QString& work_dir, QWidget* parent)
    : QWidget(parent), work_dir_(work_dir) {
  scenario_ = preset_combo("scenario", false);
  model_ = preset_combo("model", true);
  hardware_ = preset_combo("hardware", true);
  runtime_ = new QComboBox;
  runtime_->addItem(kKeep);
  runtime_->addItems(runtime_names());
  tp_ = new QSpinBox;
  tp_->setRange(0, 1024);
  tp_->setSpecialValueText(kKeep);
  nodes_ = new QSpinBox;
  nodes_->setRange(0, 4096);
  nodes_->setSpecialValueText(kKeep);
  rate_ = new QDoubleSpinBox;
  rate_->setRange(0.0, 1e6);
  rate_->setDecimals(2);
  rate_->setSuffix(" req/s");
  rate_->setSpecialValueText(kKeep);
  requests_ = new QSpinBox;
  requests_->setRange(0, 10'000'000);
  requests_->setSpecialValueText(kKeep);
  sweep_ = new QLineEdit;
  sweep_->setPlaceholderText("e.g. deployment.replica.tp=1,2,4 (empty: one run)");
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* form = new QFormLayout(this);
  form->addRow("Scenario", scenario_);
  form->addRow("Model", model_);
  form->addRow("Hardware", hardware_);
  form->addRow("Engine", runtime_);
  form->addRow("Replica TP", tp_);
  form->addRow("Nodes", nodes_);
  form->addRow("Arrival rate", rate_);
  form->addRow("Requests", requests_);
  form->addRow("Sweep axis", sweep_);
  form->addRow(status_);
  // The default scenario, cut to 2,000 requests: a run takes under a second.
  if (const int i = scenario_->findText("default"); i >= 0) scenario_->setCurrentIndex(i);
  requests_->setValue(2000);
  tp_->setObjectName("tp");
  runtime_->setObjectName("runtime");
  requests_->setObjectName("requests");
  sweep_->setObjectName("sweep_axis");

  checker_ = new ScenarioChecker(cli_path, this);
  connect(checker_, &ScenarioChecker::checked, this, &ScenarioForm::on_checked);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kCheckDelayMs);
  connect(debounce_, &QTimer::timeout, this, [this] {
    QString error;
    const QString path = write_current(&error);
    if (path.isEmpty()) {
      on_checked(false, error);
    } else {
      checker_->check(path);
    }
  });
  connect(scenario_, &QComboBox::currentIndexChanged, this, [this] {
    base_file_.clear();
    schedule_check();
  });
  for (QComboBox* box : {model_, hardware_, runtime_})
    connect(box, &QComboBox::currentIndexChanged, this, &ScenarioForm::schedule_check);
  for (QSpinBox* box : {tp_, nodes_, requests_})
    connect(box, &QSpinBox::valueChanged, this, &ScenarioForm::schedule_check);
  connect(rate_, &QDoubleSpinBox::valueChanged, this, &ScenarioForm::schedule_check);
  schedule_check();
}

void ScenarioForm::set_base_file(const QString& path) {
  base_file_ = path;
  schedule_check();
}

QJsonObject ScenarioForm::base() const {
  if (base_file_.isEmpty()) return scenario_preset(scenario_->currentText());
  QFile f(base_file_);
  if (!f.open(QIODevice::ReadOnly)) throw LoadError(base_file_.toStdString() + ": cannot open the file");
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
  if (!doc.isObject())
    throw LoadError(base_file_.toStdString() + ": not a JSON object (" + error.errorString().toStdString() + ")");
  return doc.object();
}

QString ScenarioForm::write_current(QString* error) {
  ScenarioEdits e;
  if (model_->currentIndex() > 0) e.model = model_->currentText();
  if (hardware_->currentIndex() > 0) e.hardware = hardware_->currentText();
  if (runtime_->currentIndex() > 0) e.runtime = runtime_->currentText();
  e.tp = tp_->value();
  e.nodes = nodes_->value();
  e.rate_per_s = rate_->value();
  e.num_requests = requests_->value();
  QJsonObject scenario;
  try {
    scenario = apply_edits(base(), e);
  } catch (const LoadError& x) {
    if (error) *error = x.what();
    return {};
  }
  const QString path = QString("%1/scenario-%2.json").arg(work_dir_).arg(++written_);
  return write_scenario(scenario, path, error) ? path : QString();
}

QString ScenarioForm::sweep_axis() const { return sweep_->text().trimmed(); }

QString ScenarioForm::summary() const {
  QString s = base_file_.isEmpty() ? scenario_->currentText() : QFileInfo(base_file_).completeBaseName();
  if (model_->currentIndex() > 0) s += " " + model_->currentText();
  if (hardware_->currentIndex() > 0) s += " " + hardware_->currentText();
  if (runtime_->currentIndex() > 0) s += " " + runtime_->currentText();
  if (tp_->value() > 0) s += QString(" TP%1").arg(tp_->value());
  if (nodes_->value() > 0) s += QString(" %1 nodes").arg(nodes_->value());
  if (rate_->value() > 0) s += QString(" %1 req/s").arg(rate_->value());
  return s;
}

QString ScenarioForm::message() const { return status_->text(); }

void ScenarioForm::schedule_check() {
  status_->setText("checking…");
  status_->setStyleSheet("color: #555;");
  debounce_->start();
}

void ScenarioForm::on_checked(bool ok, const QString& message) {
  // A valid scenario shows the CLI's summary (GPUs, replicas, requests): what a run would simulate.
  QString summary = message;
  if (summary.startsWith("ok: ")) summary.remove(0, 4);
  status_->setText(ok ? "✔ " + summary : "✖ " + message);
  status_->setStyleSheet(ok ? "color: #1a7f37;" : "color: #b3261e;");
  if (ok != valid_) {
    valid_ = ok;
    emit validity_changed(ok);
  }
}

}  // namespace fleetcast::gui
