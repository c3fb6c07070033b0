#pragma once
// The comparison table: one row per configuration, one column per key figure, the best value of each figure
// column marked (lower is better for latencies, cost and GPUs; higher for throughput and per-user speed).

#include <QAbstractTableModel>
#include <QVector>

#include "fleetcast/gui/configuration.hpp"

namespace fleetcast::gui {

// The best-in-column mark every comparison table shows: bold on light green. The cell's value for `role`
// (Qt::FontRole or Qt::BackgroundRole; an empty QVariant for any other role or a cell that is not best).
QVariant best_mark(int role, bool best);

class ComparisonTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    label = 0,
    ttft_p50_ms,
    ttft_p95_ms,
    tpot_mean_ms,
    output_tokens_per_s_per_gpu,
    tokens_per_s_per_user,
    usd_per_m_tokens,
    gpus,
    column_count
  };
  enum Role {
    value_role = Qt::UserRole + 1,  // the figure as a double (NaN: none); the label column: none
    best_role,                      // bool: this cell holds its column's best value (ties: every tied row)
  };

  explicit ComparisonTableModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  void append(const QVector<Configuration>& configurations);
  void clear();
  const QVector<Configuration>& configurations() const { return rows_; }

  static double value(const Configuration& c, int column);  // NaN for none
  static bool higher_is_better(int column);
  static QString format(double value, int column);  // the text the table shows: GPUs whole, others by size

 private:
  void update_best();

  QVector<Configuration> rows_;
  QVector<QVector<bool>> best_;  // [row][column]
};

}  // namespace fleetcast::gui
