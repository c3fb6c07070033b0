#pragma once
// What the charts draw, computed without any widget: Pareto points per series with the frontier (the planner's
// own pareto_frontier), latency CDFs from a report's percentiles, the cost split, the timeline series.

#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

#include "fleetcast/gui/configuration.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {

struct SeriesPoints {
  QString name;
  QVector<QPointF> points;
  QStringList tooltips;  // one per point
};

// x: tokens/s per user, y: output tokens/s per GPU (both higher is better). One series per configuration group
// (a sweep's tag, a report), in the order first seen; configurations without both figures are left out.
// `frontier`: the points no other point beats on both axes (over all series), in x order.
struct ParetoData {
  QVector<SeriesPoints> series;
  SeriesPoints frontier;
};
ParetoData pareto_data(const QVector<Configuration>& configurations);

// A plan's trade-off as `fleetcast plan` ranks it: x: $/M tokens (lower is better), y: tokens/s per user (higher is
// better). The feasible configurations off the frontier, one series per GPU and engine ("h200 vllm, off the
// frontier", in rank order of first appearance), and `frontier`: the plan's own Pareto rows (the file's `pareto`
// mark, not recomputed), in x order. Rows without both figures are left out.
ParetoData plan_pareto_data(const PlanOutcome& plan);

// The CDF through a report's percentiles: (ms, cumulative share) at min, p50, p90, p95, p99 and max, joined by
// straight lines (the report keeps percentiles, not every request's latency).
QVector<QPointF> latency_cdf(const LatencyQuantiles& q);

// Measured (x) against predicted (y) mean TTFT and TPOT, one series each, and the line y = x (predicted = measured)
// through the range of both; the tooltips name the run and its error.
struct MeasuredVsPredicted {
  SeriesPoints ttft, tpot, identity;
};
MeasuredVsPredicted measured_vs_predicted(const QVector<ValidationPoint>& points);

// Paid GPU $/hour split into the share spent on work and the idle share (cost.idle_share); NaN-free: a
// configuration without cost gives 0 and 0.
struct CostSplit {
  double busy_usd_per_hour = 0.0;
  double idle_usd_per_hour = 0.0;
};
CostSplit cost_split(const CostFigures& cost);

}  // namespace fleetcast::gui
