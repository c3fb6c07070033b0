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

ParetoData plan_pareto_data(const PlanOutcome& plan) {
  ParetoData out;
  // Off the frontier, one series per GPU and engine ("h200 vllm"), in rank order of first appearance: which GPU
  // and engine a cloud of points belongs to is what a plan over several compares.
  QVector<PlanRow> frontier;
  for (const PlanRow& r : plan.rows) {
    if (!std::isfinite(r.usd_per_m_tokens) || !std::isfinite(r.tokens_per_s_per_user)) continue;
    if (r.pareto) {
      frontier.push_back(r);
      continue;
    }
    const QString group = (r.hardware + " " + r.runtime).trimmed() + QStringLiteral(", off the frontier");
    auto series =
        std::find_if(out.series.begin(), out.series.end(), [&](const SeriesPoints& s) { return s.name == group; });
    if (series == out.series.end()) {
      out.series.push_back({group, {}, {}});
      series = out.series.end() - 1;
    }
    series->points.push_back({r.usd_per_m_tokens, r.tokens_per_s_per_user});
    series->tooltips << QString("#%1 %2\n$%3 per M tokens, %4 tok/s per user, %5 GPUs")
                            .arg(r.rank)
                            .arg(r.description)
                            .arg(r.usd_per_m_tokens, 0, 'f', 4)
                            .arg(r.tokens_per_s_per_user, 0, 'f', 1)
                            .arg(r.gpus);
  }
  std::stable_sort(frontier.begin(), frontier.end(),
                   [](const PlanRow& a, const PlanRow& b) { return a.usd_per_m_tokens < b.usd_per_m_tokens; });
  out.frontier.name = QStringLiteral("plan's Pareto frontier");
  for (const PlanRow& r : frontier) {
    out.frontier.points.push_back({r.usd_per_m_tokens, r.tokens_per_s_per_user});
    out.frontier.tooltips << QString("#%1 %2 (Pareto)\n$%3 per M tokens, %4 tok/s per user, %5 GPUs")
                                 .arg(r.rank)
                                 .arg(r.description)
                                 .arg(r.usd_per_m_tokens, 0, 'f', 4)
                                 .arg(r.tokens_per_s_per_user, 0, 'f', 1)
                                 .arg(r.gpus);
  }
  return out;
}

QVector<QPointF> latency_cdf(const LatencyQuantiles& q) {
  QVector<QPointF> points;
  for (int i = 0; i < q.share.size(); ++i) points.push_back({q.ms[i], q.share[i]});
  return points;
}

MeasuredVsPredicted measured_vs_predicted(const QVector<ValidationPoint>& points) {
  MeasuredVsPredicted out;
  out.ttft.name = QStringLiteral("mean TTFT (ms)");
  out.tpot.name = QStringLiteral("mean TPOT (ms)");
  out.identity.name = QStringLiteral("y = x");
  double top = 0.0;
  auto add = [&top](SeriesPoints& s, const ValidationPoint& p, double measured, double predicted, const char* what) {
    if (!std::isfinite(measured) || !std::isfinite(predicted) || measured <= 0.0) return;
    s.points.push_back({measured, predicted});
    s.tooltips << QString("%1 (%2)\n%3: measured %4 ms, predicted %5 ms (%6%7%)")
                      .arg(p.id, p.group, what)
                      .arg(measured, 0, 'f', 2)
                      .arg(predicted, 0, 'f', 2)
                      .arg(predicted >= measured ? "+" : "")
                      .arg(100.0 * (predicted - measured) / measured, 0, 'f', 1);
    top = std::max({top, measured, predicted});
  };
  for (const auto& p : points) {
    add(out.ttft, p, p.measured_ttft_ms, p.predicted_ttft_ms, "TTFT");
    add(out.tpot, p, p.measured_tpot_ms, p.predicted_tpot_ms, "TPOT");
  }
  if (top > 0.0) out.identity.points = {{0.0, 0.0}, {top, top}};
  return out;
}

CostSplit cost_split(const CostFigures& cost) {
  if (!std::isfinite(cost.usd_per_hour)) return {};
  const double idle = std::isfinite(cost.idle_share) ? std::clamp(cost.idle_share, 0.0, 1.0) : 0.0;
  return {cost.usd_per_hour * (1.0 - idle), cost.usd_per_hour * idle};
}

}  // namespace fleetcast::gui
