#include "fleetcast/gui/plan_rejection_model.hpp"

#include <cmath>

namespace fleetcast::gui {

PlanRejectionModel::PlanRejectionModel(QObject* parent) : QAbstractTableModel(parent) {}

int PlanRejectionModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(groups_.size());
}

int PlanRejectionModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : column_count; }

void PlanRejectionModel::set_groups(const QVector<RejectionGroup>& groups) {
  beginResetModel();
  groups_ = groups;
  endResetModel();
}

QString PlanRejectionModel::deciding_figure_text(const RejectionGroup& g) {
  if (g.example_metric.isEmpty() || !std::isfinite(g.example_value)) return {};
  return QString("%1 %2 vs %3")
      .arg(g.example_metric)
      .arg(g.example_value, 0, 'g', 4)
      .arg(std::isfinite(g.example_limit) ? QString::number(g.example_limit, 'g', 4) : QStringLiteral("–"));
}

QVariant PlanRejectionModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const RejectionGroup& g = groups_[index.row()];
  const int col = index.column();
  if (role == Qt::TextAlignmentRole)
    return col == count ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) return g.example_description + "\n" + g.example_detail;
  if (role != Qt::DisplayRole) return {};
  switch (col) {
    case stage:
      return g.stage;
    case reason:
      return g.reason;
    case count:
      return g.count;
    case example:
      return g.example_description;
    case deciding_figure:
      return deciding_figure_text(g);
    case detail:
      return g.example_detail;
    default:
      return {};
  }
}

QVariant PlanRejectionModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= column_count) return {};
  static const char* const kTitles[] = {"stage", "reason", "count", "example", "its figure vs limit", "why"};
  return QString(kTitles[section]);
}

}  // namespace fleetcast::gui
