// A small sweep writes pareto.png beside pareto.svg through fleetcast-png: a PNG of the SVG's size (720 x 480) that
// draws something (many colours, not one blank fill); a fleetcast without fleetcast-png beside it writes the SVG
// only and says so. usage: png_sweep_test FLEETCAST FIXTURES
#include <QColor>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QSet>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

QString read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

int sweep(const QString& fleetcast, const QString& fixtures, const QString& out_dir) {
  const QString command = QString("'%1' sweep grid '%2/good.json' p --set seed=1,2 --out '%3' -j 2 > '%3/stdout'")
                              .arg(fleetcast, fixtures, out_dir);
  return std::system(command.toLocal8Bit().constData());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: png_sweep_test FLEETCAST FIXTURES\n");
    return 2;
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  const QString fleetcast = QString::fromLocal8Bit(argv[1]), fixtures = QString::fromLocal8Bit(argv[2]);
  QTemporaryDir work;

  check(sweep(fleetcast, fixtures, work.path()) == 0, "a 2-point sweep exits 0");
  const QString png_path = work.path() + "/p/pareto.png";
  const QImage png(png_path);
  check(!png.isNull(), "it wrote a readable pareto.png");
  check(png.size() == QSize(720, 480), "the PNG has the SVG's 720 x 480 size (got " + std::to_string(png.width()) +
                                           " x " + std::to_string(png.height()) + ")");
  // The chart: white background, grey axes and grid, black text, blue points, the red frontier, antialiased edges.
  QSet<QRgb> colours;
  qint64 not_white = 0;
  for (int y = 0; y < png.height(); ++y) {
    for (int x = 0; x < png.width(); ++x) {
      const QRgb c = png.pixel(x, y);
      colours.insert(c);
      if (c != qRgb(255, 255, 255)) ++not_white;
    }
  }
  check(colours.size() >= 10, "its pixels vary: " + std::to_string(colours.size()) + " colours");
  const double drawn_share = png.isNull() ? 0.0 : double(not_white) / (png.width() * png.height());
  check(drawn_share > 0.005 && drawn_share < 0.5,
        "ink covers a chart's share of the picture: " + std::to_string(drawn_share));
  check(read_all(work.path() + "/stdout").contains("p/pareto.png"), "the summary names pareto.png");
  check(!QDir(work.path() + "/p").entryList({"*.tmp*", ".*pareto*"}, QDir::Files | QDir::Hidden).size(),
        "no temporary file left beside it");

  // Without the renderer beside the binary: SVG only, and a note in the summary.
  const QString lone = work.path() + "/lone";
  QDir().mkpath(lone + "/out");
  check(QFile::copy(fleetcast, lone + "/fleetcast"), "fleetcast copied to a folder without fleetcast-png");
  QFile::setPermissions(lone + "/fleetcast", QFile::permissions(fleetcast));
  check(sweep(lone + "/fleetcast", fixtures, lone + "/out") == 0, "the lone fleetcast's sweep exits 0");
  check(QFile::exists(lone + "/out/p/pareto.svg") && !QFile::exists(lone + "/out/p/pareto.png"),
        "it wrote pareto.svg and no pareto.png");
  check(read_all(lone + "/out/stdout").contains("SVG only: no fleetcast-png beside fleetcast"),
        "its summary says why there is no PNG");
  std::printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
