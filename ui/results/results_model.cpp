#include "ui/results/results_model.h"

#include <algorithm>

#include <QHash>
#include <QPainter>
#include <QPixmap>

#include <cmath>

namespace gconv::ui {

ResultsModel::ResultsModel(ResultStore* store, QObject* parent)
    : QAbstractTableModel(parent), store_(store), statuses_(store->table()) {
    rebuildColumns();
    connect(store_, &ResultStore::aboutToReset, this, [this] { beginResetModel(); });
    connect(store_, &ResultStore::reset, this, [this] {
        order_.clear();
        where_.clear();
        sortColumn_ = -1;
        rebuildColumns();
        endResetModel();
    });
    connect(store_, &ResultStore::rowsAboutToBeAppended, this, [this](size_t first, size_t count) {
        beginInsertRows({}, static_cast<int>(first), static_cast<int>(first + count - 1));
    });
    connect(store_, &ResultStore::rowsAppended, this, [this](size_t first, size_t count) {
        if (!order_.empty())
            for (size_t i = 0; i < count; ++i) order_.push_back(static_cast<uint32_t>(first + i));
        where_.clear();
        statuses_ = RowStatuses(store_->table());
        endInsertRows();
    });
}

ResultsModel::Format ResultsModel::formatOf(const ResultTable::Column& column) const {
    const std::string& n = column.name;
    if (n == "status" && column.is_text()) return Format::Status;
    switch (column.type) {
    case ColumnType::Text:
        return Format::Text;
    case ColumnType::Integer:
        return Format::Integer;
    case ColumnType::Bool:
        return Format::Bool;
    case ColumnType::Real:
        break;
    }
    if (n == "latency_ms" || n == "latency_median_ms" || n == "baseline_ms") return Format::Latency;
    if (n == "tflops") return Format::Tflops;
    if (n == "gbps") return Format::Bandwidth;
    if (n == "max_rel_err") return Format::RelError;
    return Format::Ratio;
}

void ResultsModel::rebuildColumns() {
    columns_.clear();
    errorColumn_ = -1;
    const auto& table = store_->table();
    // What a tuner reads first comes first; the file keeps the tile engine's order, the view
    // need not (the problem sizes follow, then everything else in file order).
    static const char* const k_leading[] = {"kernel",   "layer",       "status",  "latency_ms",
                                            "tflops",   "gbps",        "speedup", "baseline_ms",
                                            "verified", "max_rel_err", "cv"};
    std::vector<size_t> order;
    for (const char* name : k_leading)
        for (size_t i = 0; i < table.columns().size(); ++i)
            if (table.columns()[i].name == name) order.push_back(i);
    for (size_t i = 0; i < table.columns().size(); ++i)
        if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
    for (size_t i : order) {
        const auto& c = table.columns()[i];
        Column column;
        column.tableColumn = static_cast<int>(i);
        column.name = QString::fromStdString(c.name);
        column.format = formatOf(c);
        column.numeric = !c.is_text();
        columns_.push_back(column);
        if (c.name == "error" && c.is_text()) errorColumn_ = static_cast<int>(i);
    }
    statuses_ = RowStatuses(table);
}

int ResultsModel::columnOf(const QString& name) const {
    for (size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i].name == name) return static_cast<int>(i);
    return -1;
}

int ResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(store_->rowCount());
}

int ResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

int ResultsModel::modelRow(size_t storeRow) const {
    if (storeRow >= store_->rowCount()) return -1;
    if (order_.empty()) return static_cast<int>(storeRow);
    if (where_.size() != order_.size()) {
        where_.assign(order_.size(), 0);
        for (size_t i = 0; i < order_.size(); ++i) where_[order_[i]] = static_cast<uint32_t>(i);
    }
    return static_cast<int>(where_[storeRow]);
}

QString ResultsModel::formatValue(Format format, double value) {
    if (std::isnan(value)) return QStringLiteral("N/A");
    switch (format) {
    case Format::Integer:
        return QString::number(static_cast<qint64>(value));
    case Format::Bool:
        return value == 1.0 ? QStringLiteral("true") : QStringLiteral("false");
    case Format::Latency:
        return QString::number(value, 'g', 4);
    case Format::Tflops:
        return QString::number(value, 'f', std::abs(value) >= 100 ? 1 : 2);
    case Format::Bandwidth:
        return QString::number(value, 'f', 1);
    case Format::RelError:
        return QString::number(value, 'e', 2);
    case Format::Ratio:
    case Format::Text:
    case Format::Status:
        break;
    }
    return QString::number(value, 'g', 4);
}

QColor ResultsModel::statusColor(CellStatus status) {
    switch (status) {
    case CellStatus::Ok:
        return QColor(0x2e, 0x7d, 0x32);
    case CellStatus::Fail:
        return QColor(0xc6, 0x28, 0x28);
    case CellStatus::Unsupported:
        return QColor(0x75, 0x75, 0x75);
    case CellStatus::CompileError:
    case CellStatus::Crash:
    case CellStatus::Timeout:
    case CellStatus::Oom:
    case CellStatus::Error:
        break;
    }
    return QColor(0xe6, 0x5c, 0x00);
}

QIcon ResultsModel::statusIcon(CellStatus status) {
    static QHash<int, QIcon> icons;
    auto it = icons.find(static_cast<int>(status));
    if (it != icons.end()) return *it;
    QPixmap pixmap(10, 10);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(statusColor(status));
    painter.drawEllipse(1, 1, 8, 8);
    painter.end();
    return *icons.insert(static_cast<int>(status), QIcon(pixmap));
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.column() >= static_cast<int>(columns_.size())) return {};
    const size_t row = storeRow(index.row());
    const Column& column = columns_[index.column()];
    const auto& c = store_->table().columns()[column.tableColumn];
    switch (role) {
    case Qt::DisplayRole:
        if (column.format == Format::Status) {
            const auto text = c.text(row);
            if (text.empty()) return QString::fromUtf8(to_string(statuses_.at(row)));
            return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
        }
        if (column.numeric) return formatValue(column.format, c.numbers[row]);
        {
            const auto text = c.text(row);
            return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
        }
    case SortRole:
        if (column.numeric) return c.numbers[row];
        {
            const auto text = c.text(row);
            return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
        }
    case StoreRowRole:
        return QVariant::fromValue<qulonglong>(row);
    case Qt::TextAlignmentRole:
        if (column.numeric) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column.format == Format::Status) return statusColor(statuses_.at(row));
        return {};
    case Qt::DecorationRole:
        if (column.format == Format::Status) return statusIcon(statuses_.at(row));
        return {};
    case Qt::ToolTipRole: {
        const CellStatus status = statuses_.at(row);
        QString tip;
        if (errorColumn_ >= 0) {
            const auto error = store_->table().columns()[errorColumn_].text(row);
            if (!error.empty())
                tip = QString::fromUtf8(to_string(status)) + QStringLiteral(": ") +
                      QString::fromUtf8(error.data(), static_cast<qsizetype>(error.size()));
        }
        if (tip.isEmpty() && !column.numeric && column.format != Format::Status) {
            const auto text = c.text(row);
            tip = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
        }
        if (tip.isEmpty()) return {};
        return tip;
    }
    default:
        return {};
    }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Vertical) {
        if (role == Qt::DisplayRole) return section + 1;
        return {};
    }
    if (section < 0 || section >= static_cast<int>(columns_.size())) return {};
    const Column& column = columns_[section];
    if (role == Qt::DisplayRole) return column.name;
    if (role == Qt::ToolTipRole) {
        const auto* schema = store_->table().columns()[column.tableColumn].schema;
        const QString kind = column.numeric ? QStringLiteral("number") : QStringLiteral("text");
        return schema ? QStringLiteral("%1 (%2)").arg(column.name, kind)
                      : QStringLiteral("%1 (%2; a column gconv's schema does not know)")
                            .arg(column.name, kind);
    }
    if (role == Qt::TextAlignmentRole && column.numeric)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

void ResultsModel::sort(int column, Qt::SortOrder order) {
    if (column >= static_cast<int>(columns_.size())) return;
    std::vector<uint32_t> next;
    if (column >= 0)
        next = sorted_rows(store_->table(), static_cast<size_t>(columns_[column].tableColumn),
                           order == Qt::DescendingOrder);
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    // Persistent indexes (selection, current) follow their store row.
    const QModelIndexList before = persistentIndexList();
    std::vector<size_t> storeRows;
    storeRows.reserve(before.size());
    for (const auto& index : before) storeRows.push_back(storeRow(index.row()));
    order_ = std::move(next);
    where_.clear();
    sortColumn_ = column;
    sortOrder_ = order;
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after << index(modelRow(storeRows[static_cast<size_t>(i)]), before[i].column());
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace gconv::ui
