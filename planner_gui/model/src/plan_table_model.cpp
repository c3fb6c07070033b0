#include "fleetcast/gui/plan_table_model.hpp"

#include <cmath>

#include "fleetcast/gui/comparison_table_model.hpp"

namespace fleetcast::gui {

PlanTableModel::PlanTableModel(QObject* parent) : QAbstractTableModel(parent), best_(column_count, NAN) {}

int PlanTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : column_count; }

double PlanTableModel::value(const PlanRow& r, int column) {
  switch (column) {
    case usd_per_m_tokens:
      return r.usd_per_m_tokens;
    case gpus:
      return r.gpus > 0 ? r.gpus : NAN;
    case usd_per_hour:
      return r.usd_per_hour;
    case ttft_p95_ms:
      return r.ttft_p95_ms;
    case tpot_p95_ms:
      return r.tpot_p95_ms;
    default:
      return NAN;
  }
}

void PlanTableModel::set_rows(const QVector<PlanRow>& rows) {
  beginResetModel();
  rows_ = rows;
  best_.fill(NAN);
  for (int col = 0; col < column_count; ++col) {
    if (!is_figure(col)) continue;
    for (const PlanRow& r : rows_) {
      const double v = value(r, col);
      if (std::isfinite(v) && !(v >= best_[col])) best_[col] = v;
    }
  }
  endResetModel();
}

namespace {

// "18% !/62%": the headroom below the TTFT and TPOT objectives, "!" where the error on record needs more.
QString headroom_text(const PlanRow& r) {
  const auto one = [](double h, bool within) {
    if (!std::isfinite(h)) return QStringLiteral("–");
    return QString::number(std::lround(100.0 * h)) + "%" + (within ? " !" : "");
  };
  return one(r.ttft_headroom, r.ttft_within_error) + " / " + one(r.tpot_headroom, r.tpot_within_error);
}

QString format(double v, int column) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  switch (column) {
    case PlanTableModel::gpus:
      return QString::number(std::llround(v));
    case PlanTableModel::usd_per_m_tokens:
      return QString::number(v, 'f', 4);  // cents and below matter when comparing $/M tokens
    case PlanTableModel::usd_per_hour:
      return QString::number(v, 'f', 2);
    default:
      return QString::number(v, 'f', 1);
  }
}

}  // namespace

QVariant PlanTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const PlanRow& r = rows_[index.row()];
  const int col = index.column();
  const double v = value(r, col);
  const bool best = is_figure(col) && std::isfinite(v) && v == best_[col];
  switch (role) {
    case Qt::DisplayRole:
      if (col == rank) return r.rank;
      if (col == configuration) return r.description;
      if (col == pareto) return r.pareto ? QStringLiteral("★") : QString();
      if (col == headroom) return headroom_text(r);
      return format(v, col);
    case Qt::ToolTipRole:
      return QString("config %1: %2\n%3 output tokens/s per GPU, %4 tokens/s per user%5%6%7")
          .arg(r.config)
          .arg(r.description)
          .arg(r.output_tokens_per_s_per_gpu, 0, 'f', 1)
          .arg(r.tokens_per_s_per_user, 0, 'f', 1)
          .arg(r.pareto ? "\non the Pareto frontier ($/M tokens vs tokens/s per user)" : "")
          .arg(r.profile_caveats.isEmpty() ? QString()
                                           : "\nits profile outside the kernel-level figures: " + r.profile_caveats)
          .arg(r.ttft_within_error || r.tpot_within_error
                   ? "\nits headroom below an objective is less than its profile's error on record needs: the "
                     "forecast cannot tell that objective is met"
                   : "");
    case Qt::TextAlignmentRole:
      return col == configuration ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(col == pareto ? Qt::AlignCenter : Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
    case Qt::BackgroundRole:
      return best_mark(role, best);
    case value_role:
      return is_figure(col) ? QVariant(v) : QVariant();
    case best_role:
      return best;
    default:
      return {};
  }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= column_count) return {};
  static const char* const kTitles[] = {"rank",          "configuration", "$/M tokens", "GPUs",  "$/hour",
                                        "TTFT p95 (ms)", "TPOT p95 (ms)", "headroom",   "Pareto"};
  static const char* const kTips[] = {
      "1 = cheapest per million tokens",
      "the plan's words for the configuration",
      "blended $ per million tokens over the request mix (lowest marked)",
      "GPUs the configuration pays for (lowest marked)",
      "$ per hour of those GPUs (lowest marked)",
      "the worst request class's TTFT p95 (lowest marked)",
      "the worst request class's TPOT p95 (lowest marked)",
      "TTFT / TPOT p95 below the tightest objective; !: less than its profile's forecasts need by their error on "
      "measured runs (the median error less what ran high)",
      "★: on the Pareto frontier (no other is both cheaper per M tokens and faster per user)"};
  if (role == Qt::DisplayRole) return QString(kTitles[section]);
  if (role == Qt::ToolTipRole) return QString(kTips[section]);
  return {};
}

}  // namespace fleetcast::gui
