#include "fleetcast/gui/table_csv.hpp"

#include <QSaveFile>
#include <cmath>

#include "fleetcast/gui/comparison_table_model.hpp"

namespace fleetcast::gui {
namespace {

QString quoted(QString field) {
  if (!field.contains(',') && !field.contains('"') && !field.contains('\n')) return field;
  return '"' + field.replace('"', "\"\"") + '"';
}

}  // namespace

QString table_to_csv(const QAbstractItemModel& model) {
  QString out;
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c) header << quoted(model.headerData(c, Qt::Horizontal).toString());
  out += header.join(',') + '\n';
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < model.columnCount(); ++c) {
      const QModelIndex i = model.index(r, c);
      const QVariant v = model.data(i, ComparisonTableModel::value_role);
      if (v.isValid()) {
        const double x = v.toDouble();
        row << (std::isfinite(x) ? QString::number(x, 'g', 17) : QString());
      } else {
        row << quoted(model.data(i).toString());
      }
    }
    out += row.join(',') + '\n';
  }
  return out;
}

bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text) || file.write(table_to_csv(model).toUtf8()) < 0 ||
      !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

QVector<QStringList> parse_csv(const QString& text) {
  QVector<QStringList> rows;
  QStringList row;
  QString field;
  bool in_quotes = false, row_started = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar ch = text[i];
    row_started = true;
    if (in_quotes) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        in_quotes = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      in_quotes = true;
    } else if (ch == ',') {
      row << field;
      field.clear();
    } else if (ch == '\n') {
      row << field;
      rows << row;
      row.clear();
      field.clear();
      row_started = false;
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (row_started) rows << (row << field);
  return rows;
}

}  // namespace fleetcast::gui
