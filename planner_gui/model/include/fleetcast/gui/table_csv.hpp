#pragma once
// The comparison table as CSV (RFC 4180 quoting): a header row, then one row per configuration with each
// figure at full precision (17 significant digits, so the numbers read back exactly) and empty for none.

#include <QAbstractItemModel>
#include <QString>
#include <QStringList>
#include <QVector>

namespace fleetcast::gui {

QString table_to_csv(const QAbstractItemModel& model);
// Written atomically (QSaveFile); false with `error` set when it cannot be written.
bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error);
QVector<QStringList> parse_csv(const QString& text);

}  // namespace fleetcast::gui
