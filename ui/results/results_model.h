#pragma once
// The rows of a ResultStore as a table: one model column per table column, in table order
// (schema columns and columns the schema does not know), numbers formatted for reading and
// raw under SortRole. Cells are read from the columnar table on demand; nothing is copied.
//
// The model also owns the order in which it presents the store's rows. Sorting 1,000,000 rows
// through QSortFilterProxyModel's lessThan costs seconds (a QVariant pair per comparison); the
// order is computed in core instead (sorted_rows, a radix sort) and the model presents its
// rows in that order, so a proxy above it only filters and stays linear.
#include "csv/result_filter.h"
#include "ui/results/result_store.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QIcon>

#include <vector>

namespace gconv::ui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        SortRole = Qt::UserRole + 1, // double for numbers (NaN for N/A), QString for text
        StoreRowRole,                // qulonglong: the row in ResultStore::table()
    };
    // How a column's values are shown.
    enum class Format { Text, Integer, Bool, Latency, Tflops, Bandwidth, Ratio, RelError, Status };
    struct Column {
        int tableColumn = 0;
        QString name;
        Format format = Format::Text;
        bool numeric = false;
    };

    explicit ResultsModel(ResultStore* store, QObject* parent = nullptr);

    ResultStore* store() const { return store_; }
    const std::vector<Column>& columns() const { return columns_; }
    // The model column of a table column by name; -1 if the table has none.
    int columnOf(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Presentation order: model row <-> store row.
    size_t storeRow(int modelRow) const {
        return order_.empty() ? static_cast<size_t>(modelRow) : order_[modelRow];
    }
    int modelRow(size_t storeRow) const;
    // Orders the rows by a column (empty and N/A last); -1 restores the store's order. Rows
    // appended later go to the end until the next sort.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }

    CellStatus statusAt(size_t storeRow) const { return statuses_.at(storeRow); }

    static QString formatValue(Format format, double value);
    static QColor statusColor(CellStatus status);
    static QIcon statusIcon(CellStatus status);

private:
    void rebuildColumns();
    Format formatOf(const ResultTable::Column& column) const;

    ResultStore* store_;
    std::vector<Column> columns_;
    RowStatuses statuses_;
    int errorColumn_ = -1;
    std::vector<uint32_t> order_;         // empty: the store's order
    mutable std::vector<uint32_t> where_; // inverse of order_, built on demand
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace gconv::ui
