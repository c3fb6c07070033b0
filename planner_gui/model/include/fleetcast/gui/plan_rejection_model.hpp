#pragma once
// Why the plan turned configurations down: one row per (stage, reason) with how many and one example with the
// figure that decided (its value against the limit).

#include <QAbstractTableModel>

#include "fleetcast/gui/plan_outcome.hpp"

namespace fleetcast::gui {

class PlanRejectionModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { stage = 0, reason, count, example, deciding_figure, detail, column_count };

  explicit PlanRejectionModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  void set_groups(const QVector<RejectionGroup>& groups);
  const QVector<RejectionGroup>& groups() const { return groups_; }

  // "ttft_p95_ms 812.4 vs 500" (4 significant digits, as the CLI's text output); "" where the reason has no figure.
  static QString deciding_figure_text(const RejectionGroup& g);

 private:
  QVector<RejectionGroup> groups_;
};

}  // namespace fleetcast::gui
