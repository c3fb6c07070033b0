#pragma once
// The one adapter over Qt Charts: pages hand it plain series (points with tooltips, or stacked bars) and axis
// titles, and ask it for PNG or SVG files. Nothing else in the app includes a Qt Charts header, so moving to
// another chart library (Qt Charts is deprecated from Qt 6.10 on) changes this file and chart_panel.cpp only.

#include <QColor>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QChart;
class QChartView;

namespace fleetcast::gui {

struct XYSeries {
  enum class Style { points, line, points_and_line };
  QString name;
  QVector<QPointF> points;
  QStringList tooltips;  // one per point, shown on hover; may be empty
  Style style = Style::points;
  QColor color;  // invalid: the next colour of the palette
};

struct BarSet {
  QString name;
  QVector<double> values;  // one per category
};

class ChartPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ChartPanel(const QString& title, QWidget* parent = nullptr);

  void set_xy_series(const QVector<XYSeries>& series, const QString& x_title, const QString& y_title);
  void fix_y_range(double lo, double hi);  // after set_xy_series: a fixed range (a CDF's 0 to 1)
  void set_stacked_bars(const QStringList& categories, const QVector<BarSet>& sets, const QString& y_title);
  // Written atomically; false with `error` set on failure. SVG needs Qt6Svg at build time.
  bool export_png(const QString& path, QString* error) const;
  bool export_svg(const QString& path, QString* error) const;
  static bool svg_available();

  int series_count() const;
  QString title() const { return title_; }
  QString last_hover_text() const { return hover_text_; }  // the tooltip shown last (for tests)

 private:
  void reset_chart();

  QString title_;
  QChart* chart_ = nullptr;
  QChartView* view_ = nullptr;
  QString hover_text_;
};

}  // namespace fleetcast::gui
