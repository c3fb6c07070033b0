#include "fleetcast/gui/chart_math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fleetcast/planner/pareto.hpp"

namespace fleetcast::gui {

ParetoData pareto_data(const QVector<Configuration>& configurations) {
  ParetoData out;
  std::vector<planner::ChartPoint> all;
  QStringList all_tooltips;
  for (const auto& c : configurations) {
    const double x = c.record.tokens_per_s_per_user, y = c.record.output_tokens_per_s_per_gpu;
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    auto it =
        std::find_if(out.series.begin(), out.series.end(), [&](const SeriesPoints& s) { return s.name == c.group; });
    if (it == out.series.end()) it = out.series.insert(out.series.end(), SeriesPoints{c.group, {}, {}});
    const QString tip = QString("%1\n%2 tok/s per user, %3 output tok/s per GPU\n%4")
                            .arg(c.label)
                            .arg(x, 0, 'f', 1)
                            .arg(y, 0, 'f', 1)
                            .arg(c.details);
    it->points.push_back({x, y});
    it->tooltips << tip;
    all.push_back({x, y, c.label.toStdString()});
    all_tooltips << tip;
  }
  const std::vector<bool> on = planner::pareto_frontier(all, {.higher_x = true, .higher_y = true});
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (on[i]) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a].x < all[b].x; });
  out.frontier.name = QStringLiteral("Pareto frontier");
  for (std::size_t i : order) {
    out.frontier.points.push_back({all[i].x, all[i].y});
    out.frontier.tooltips << all_tooltips[static_cast<int>(i)];
  }
  return out;
}

QVector<QPointF> latency_cdf(const LatencyQuantiles& q) {
  QVector<QPointF> points;
  for (int i = 0; i < q.share.size(); ++i) points.push_back({q.ms[i], q.share[i]});
  return points;
}

CostSplit cost_split(const CostFigures& cost) {
  if (!std::isfinite(cost.usd_per_hour)) return {};
  const double idle = std::isfinite(cost.idle_share) ? std::clamp(cost.idle_share, 0.0, 1.0) : 0.0;
  return {cost.usd_per_hour * (1.0 - idle), cost.usd_per_hour * idle};
}

}  // namespace fleetcast::gui
