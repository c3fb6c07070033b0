// `fleetcast-png IN.svg OUT.png [--scale S]`: renders an SVG (a sweep's pareto.svg) to PNG with Qt's offscreen
// platform. Its own executable so that Qt stays out of fleetcast and the worker processes it forks per sweep point:
// `fleetcast sweep` runs it once at the end, when it sits beside the fleetcast binary (docs/SPECS.md).
// Exit codes as the CLI's: 0 written, 1 rendering or writing failed, 2 bad input or usage.
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgRenderer>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const char* const kUsage = "usage: fleetcast-png IN.svg OUT.png [--scale S]  (S from 0.25 to 8, default 1)";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "fleetcast-png: error: %s; %s\n", what.c_str(), kUsage);
  return 2;
}

// Qt's own warnings (no XDG_RUNTIME_DIR on a server, the SVG parser's notes) would land in every sweep's output;
// the errors that matter are this program's own lines. Critical and fatal messages still go to stderr.
void quiet_qt_warnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtCriticalMsg || type == QtFatalMsg) std::fprintf(stderr, "fleetcast-png: qt: %s\n", qPrintable(message));
}

}  // namespace

int main(int argc, char** argv) {
  qInstallMessageHandler(quiet_qt_warnings);
  // No display needed (a sweep runs on servers and in CI): the offscreen platform unless the caller chose one.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);  // fonts for the SVG's text
  const QStringList args = QGuiApplication::arguments().mid(1);
  QString in, out;
  double scale = 1.0;
  for (int i = 0; i < args.size(); ++i) {
    if (args[i] == "--scale" && i + 1 < args.size()) {
      bool ok = false;
      scale = args[++i].toDouble(&ok);
      if (!ok || !(scale >= 0.25 && scale <= 8.0))
        return usage_error("field '--scale' = " + args[i].toStdString() + ": expected a number from 0.25 to 8");
    } else if (in.isEmpty() && !args[i].startsWith('-')) {
      in = args[i];
    } else if (out.isEmpty() && !args[i].startsWith('-')) {
      out = args[i];
    } else {
      return usage_error("unexpected argument '" + args[i].toStdString() + "'");
    }
  }
  if (in.isEmpty() || out.isEmpty()) return usage_error("give an SVG file and a PNG file");

  QSvgRenderer svg(in);
  if (!svg.isValid()) {
    std::fprintf(stderr, "fleetcast-png: error: %s: not a readable SVG file\n", qPrintable(in));
    return 2;
  }
  const QSize size = svg.defaultSize() * scale;
  if (size.isEmpty()) {
    std::fprintf(stderr, "fleetcast-png: error: %s: the SVG gives no width and height\n", qPrintable(in));
    return 2;
  }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    svg.render(&painter);
  }
  // QSaveFile writes beside the target and renames on commit: a reader never sees half a PNG.
  QSaveFile file(out);
  if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
    std::fprintf(stderr, "fleetcast-png: error: %s: could not write the PNG (%s)\n", qPrintable(out),
                 qPrintable(file.errorString()));
    return 1;
  }
  return 0;
}
