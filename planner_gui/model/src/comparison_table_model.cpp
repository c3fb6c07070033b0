#include "fleetcast/gui/comparison_table_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>

namespace fleetcast::gui {

QVariant best_mark(int role, bool best) {
  if (!best) return {};
  if (role == Qt::BackgroundRole) return QBrush(QColor(198, 239, 206));
  if (role != Qt::FontRole) return {};
  QFont f;
  f.setBold(true);
  return f;
}

ComparisonTableModel::ComparisonTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : column_count; }

double ComparisonTableModel::value(const Configuration& c, int column) {
  const auto& r = c.record;
  switch (column) {
    case ttft_p50_ms:
      return r.ttft_p50_ms;
    case ttft_p95_ms:
      return r.ttft_p95_ms;
    case tpot_mean_ms:
      return r.tpot_mean_ms;
    case output_tokens_per_s_per_gpu:
      return r.output_tokens_per_s_per_gpu;
    case tokens_per_s_per_user:
      return r.tokens_per_s_per_user;
    case usd_per_m_tokens:
      return c.cost.usd_per_m_tokens_blended;
    case gpus:
      return r.gpu_count > 0 ? r.gpu_count : NAN;
    default:
      return NAN;
  }
}

bool ComparisonTableModel::higher_is_better(int column) {
  return column == output_tokens_per_s_per_gpu || column == tokens_per_s_per_user;
}

QString ComparisonTableModel::format(double v, int column) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  if (column == gpus) return QString::number(std::llround(v));
  const double a = std::fabs(v);
  return QString::number(v, 'f', a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3);
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Configuration& c = rows_[index.row()];
  const int col = index.column();
  const bool best = col != label && best_[index.row()][col];
  switch (role) {
    case Qt::DisplayRole:
      // A dagger where the figures lean on a profile outside the kernel-level ones; the tooltip says which.
      if (col == label)
        return (c.error.isEmpty() ? c.label : c.label + " (failed)") + (c.profile_caveats.isEmpty() ? "" : " †");
      return format(value(c, col), col);
    case Qt::ToolTipRole:
      return c.error.isEmpty() ? c.details : c.error;
    case Qt::TextAlignmentRole:
      return col == label ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
    case Qt::BackgroundRole:
      return best_mark(role, best);
    case value_role:
      return col == label ? QVariant() : QVariant(value(c, col));
    case best_role:
      return best;
    default:
      return {};
  }
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
  if (role == Qt::ToolTipRole) {
    if (section == label)
      return QStringLiteral(
          "configuration; † its profile has figures outside the kernel-level ones (its tooltip "
          "names them)");
    return higher_is_better(section) ? QStringLiteral("higher is better; best marked")
                                     : QStringLiteral("lower is better; best marked");
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case label:
      return QStringLiteral("Configuration");
    case ttft_p50_ms:
      return QStringLiteral("TTFT p50 (ms)");
    case ttft_p95_ms:
      return QStringLiteral("TTFT p95 (ms)");
    case tpot_mean_ms:
      return QStringLiteral("TPOT mean (ms)");
    case output_tokens_per_s_per_gpu:
      return QStringLiteral("Output tok/s per GPU");
    case tokens_per_s_per_user:
      return QStringLiteral("Tok/s per user");
    case usd_per_m_tokens:
      return QStringLiteral("$/M tokens");
    case gpus:
      return QStringLiteral("GPUs");
    default:
      return {};
  }
}

void ComparisonTableModel::append(const QVector<Configuration>& configurations) {
  if (configurations.isEmpty()) return;
  beginInsertRows({}, rowCount(), rowCount() + static_cast<int>(configurations.size()) - 1);
  rows_ += configurations;
  best_.resize(rows_.size());
  endInsertRows();
  update_best();
}

void ComparisonTableModel::clear() {
  beginResetModel();
  rows_.clear();
  best_.clear();
  endResetModel();
}

void ComparisonTableModel::update_best() {
  for (int col = 1; col < column_count; ++col) {
    double best = NAN;
    for (const auto& c : rows_) {
      const double v = value(c, col);
      if (!std::isfinite(v)) continue;
      if (!std::isfinite(best) || (higher_is_better(col) ? v > best : v < best)) best = v;
    }
    for (int row = 0; row < rows_.size(); ++row) {
      best_[row].resize(column_count);
      best_[row][col] = std::isfinite(best) && value(rows_[row], col) == best;
    }
  }
  if (!rows_.isEmpty()) emit dataChanged(index(0, 1), index(rowCount() - 1, column_count - 1));
}

}  // namespace fleetcast::gui
