#pragma once
// A plan's ranked feasible configurations, one row each (cheapest per M tokens first), with the best value of each
// figure column marked (lowest: every figure here is a cost, a count or a latency).

#include <QAbstractTableModel>

#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {

class PlanTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    rank = 0,
    configuration,
    usd_per_m_tokens,
    gpus,
    usd_per_hour,
    ttft_p95_ms,
    tpot_p95_ms,
    headroom,  // TTFT/TPOT below the objectives, "!" where below the error on record
    pareto,
    column_count
  };
  enum Role {
    value_role = Qt::UserRole + 1,  // the figure as a double (NaN: none); rank and configuration: none
    best_role,                      // bool: this cell holds its column's lowest value (ties: every tied row)
  };

  explicit PlanTableModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  void set_rows(const QVector<PlanRow>& rows);
  const QVector<PlanRow>& rows() const { return rows_; }

  static double value(const PlanRow& r, int column);  // NaN for none (rank, configuration, pareto)
  static bool is_figure(int column) { return column >= usd_per_m_tokens && column <= tpot_p95_ms; }

 private:
  QVector<PlanRow> rows_;
  QVector<double> best_;  // per column: the lowest value (NaN where none)
};

}  // namespace fleetcast::gui
