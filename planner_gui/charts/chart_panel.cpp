#include "chart_panel.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QSaveFile>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#ifdef FLEETCAST_GUI_HAVE_SVG
#include <QBuffer>
#include <QSvgGenerator>
#endif

namespace fleetcast::gui {
namespace {

// Axis range with a margin, so points on the edge stay visible; never below 0 for data that is not (times,
// latencies, counts); a lone value gets a range around it.
std::pair<double, double> padded(double lo, double hi, bool from_zero) {
  if (from_zero) lo = std::min(lo, 0.0);
  const double pad = hi > lo ? 0.06 * (hi - lo) : (hi != 0.0 ? 0.1 * std::fabs(hi) : 1.0);
  return {lo >= 0.0 && lo - pad < 0.0 ? 0.0 : lo - pad, hi + pad};
}

}  // namespace

ChartPanel::ChartPanel(const QString& title, QWidget* parent) : QWidget(parent), title_(title) {
  view_ = new QChartView(this);
  view_->setRenderHint(QPainter::Antialiasing);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  reset_chart();
}

void ChartPanel::reset_chart() {
  auto* chart = new QChart;
  chart->setTitle(title_);
  QFont title_font = chart->titleFont();
  title_font.setBold(true);
  chart->setTitleFont(title_font);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  view_->setChart(chart);  // the view deletes the chart it showed before
  chart_ = chart;
}

void ChartPanel::fix_y_range(double lo, double hi) {
  for (QAbstractAxis* axis : chart_->axes(Qt::Vertical))
    if (auto* v = qobject_cast<QValueAxis*>(axis)) {
      v->setRange(lo, hi);
      v->setTickCount(5);
    }
}

int ChartPanel::series_count() const { return static_cast<int>(chart_->series().size()); }

void ChartPanel::set_xy_series(const QVector<XYSeries>& series, const QString& x_title, const QString& y_title) {
  reset_chart();
  auto* ax = new QValueAxis;
  auto* ay = new QValueAxis;
  ax->setTitleText(x_title);
  ay->setTitleText(y_title);
  chart_->addAxis(ax, Qt::AlignBottom);
  chart_->addAxis(ay, Qt::AlignLeft);
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const XYSeries& s : series) {
    QXYSeries* drawn = nullptr;
    QLineSeries* line = nullptr;
    if (s.style != XYSeries::Style::points) {
      line = new QLineSeries;
      line->setName(s.name);
      line->append(s.points);
      if (s.color.isValid()) line->setColor(s.color);
      chart_->addSeries(line);
      line->attachAxis(ax);
      line->attachAxis(ay);
      drawn = line;
    }
    if (s.style != XYSeries::Style::line) {
      auto* scatter = new QScatterSeries;
      scatter->setName(s.name);
      scatter->setMarkerSize(s.style == XYSeries::Style::points ? 11.0 : 7.0);
      scatter->append(s.points);
      if (s.color.isValid()) scatter->setColor(s.color);
      if (line) scatter->setColor(line->color());
      chart_->addSeries(scatter);
      scatter->attachAxis(ax);
      scatter->attachAxis(ay);
      if (line) chart_->legend()->markers(scatter).first()->setVisible(false);
      drawn = scatter;
      const QStringList tips = s.tooltips;
      const QVector<QPointF> points = s.points;
      connect(scatter, &QScatterSeries::hovered, this, [this, tips, points](const QPointF& at, bool state) {
        if (!state) {
          QToolTip::hideText();
          return;
        }
        const auto nearest = std::min_element(points.begin(), points.end(), [&](QPointF a, QPointF b) {
          return QLineF(a, at).length() < QLineF(b, at).length();
        });
        const int i = static_cast<int>(nearest - points.begin());
        hover_text_ = i < tips.size() ? tips[i] : QString("%1, %2").arg(at.x()).arg(at.y());
        QToolTip::showText(QCursor::pos(), hover_text_, this);
      });
    }
    Q_UNUSED(drawn);
    for (const QPointF& p : s.points) {
      xlo = std::min(xlo, p.x()), xhi = std::max(xhi, p.x());
      ylo = std::min(ylo, p.y()), yhi = std::max(yhi, p.y());
    }
  }
  if (std::isfinite(xlo)) {
    const auto [x0, x1] = padded(xlo, xhi, false);
    const auto [y0, y1] = padded(ylo, yhi, true);
    ax->setRange(x0, x1);
    ay->setRange(y0, y1);
    ax->applyNiceNumbers();
    ay->applyNiceNumbers();
  }
}

void ChartPanel::set_stacked_bars(const QStringList& categories, const QVector<BarSet>& sets, const QString& y_title) {
  reset_chart();
  auto* bars = new QStackedBarSeries;
  double top = 0.0;
  QVector<double> totals(categories.size(), 0.0);
  for (const BarSet& s : sets) {
    auto* set = new QBarSet(s.name);
    for (int i = 0; i < s.values.size(); ++i) {
      *set << s.values[i];
      if (i < totals.size()) totals[i] += s.values[i];
    }
    bars->append(set);
  }
  for (double t : totals) top = std::max(top, t);
  chart_->addSeries(bars);
  auto* ax = new QBarCategoryAxis;
  ax->append(categories);
  auto* ay = new QValueAxis;
  ay->setTitleText(y_title);
  ay->setRange(0.0, top > 0.0 ? top * 1.1 : 1.0);
  ay->applyNiceNumbers();
  chart_->addAxis(ax, Qt::AlignBottom);
  chart_->addAxis(ay, Qt::AlignLeft);
  bars->attachAxis(ax);
  bars->attachAxis(ay);
}

bool ChartPanel::export_png(const QString& path, QString* error) const {
  const QPixmap pixmap = view_->grab();
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || !pixmap.save(&f, "PNG") || !f.commit()) {
    if (error)
      *error = path + ": " + (f.errorString().isEmpty() ? QString("could not write the PNG") : f.errorString());
    return false;
  }
  return true;
}

bool ChartPanel::svg_available() {
#ifdef FLEETCAST_GUI_HAVE_SVG
  return true;
#else
  return false;
#endif
}

bool ChartPanel::export_svg(const QString& path, QString* error) const {
#ifdef FLEETCAST_GUI_HAVE_SVG
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(view_->size());
  svg.setViewBox(QRect(QPoint(0, 0), view_->size()));
  svg.setTitle(title_);
  svg.setDescription(QStringLiteral("fleetcast-gui chart"));
  {
    QPainter painter(&svg);
    view_->render(&painter);
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(buffer.data()) < 0 || !f.commit()) {
    if (error) *error = path + ": " + f.errorString();
    return false;
  }
  return true;
#else
  if (error) *error = QStringLiteral("SVG export needs Qt SVG (Debian: qt6-svg-dev), absent from this build");
  Q_UNUSED(path);
  return false;
#endif
}

}  // namespace fleetcast::gui
