// fleetcast-gui: compare simulated and measured configurations; runs the fleetcast CLI as child processes.

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "main_window.hpp"

namespace {

// FLEETCAST_CLI, else the CLI of the same build tree (build/cli/fleetcast next to build/planner_gui/), else one
// beside the app, else the PATH.
QString find_cli() {
  const QString env = qEnvironmentVariable("FLEETCAST_CLI");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate : {here.filePath("../cli/fleetcast"), here.filePath("fleetcast")})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  const QString on_path = QStandardPaths::findExecutable("fleetcast");
  return on_path.isEmpty() ? QStringLiteral("fleetcast") : on_path;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("fleetcast");
  QCoreApplication::setApplicationName("fleetcast-gui");
  QCommandLineParser parser;
  parser.setApplicationDescription("Compare throughput, latency and cost of LLM serving configurations.");
  parser.addHelpOption();
  parser.addPositionalArgument("files", "reports (*.json), sweep results (results.jsonl) or silicon CSVs to open");
  parser.process(app);
  fleetcast::gui::MainWindow window(find_cli());
  for (const QString& path : parser.positionalArguments()) window.open_file(path);
  window.show();
  return app.exec();
}
