#include "ui/compare/compare_model.h"

#include "ui/results/results_model.h"

#include <cmath>

namespace gconv::ui {
namespace {

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

QString statusText(bool present, CellStatus status) {
    return present ? QString::fromUtf8(to_string(status)) : QStringLiteral("-");
}

} // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::setResult(CompareResult result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(result_.cells.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const CompareCell& c = result_.cells[static_cast<size_t>(index.row())];
    using F = ResultsModel::Format;
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Kernel:
            return text(c.kernel);
        case Problem:
            return text(c.problem);
        case LatencyA:
            return c.inA ? ResultsModel::formatValue(F::Latency, c.latencyA) : QStringLiteral("-");
        case LatencyB:
            return c.inB ? ResultsModel::formatValue(F::Latency, c.latencyB) : QStringLiteral("-");
        case Speedup:
            return std::isnan(c.speedup) ? QStringLiteral("N/A")
                                         : QString::number(c.speedup, 'f', 3);
        case StatusA:
            return statusText(c.inA, c.statusA);
        case StatusB:
            return statusText(c.inB, c.statusB);
        }
        return {};
    case SortRole:
        switch (column) {
        case LatencyA:
            return c.latencyA;
        case LatencyB:
            return c.latencyB;
        case Speedup:
            return c.speedup;
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        if (column == LatencyA || column == LatencyB || column == Speedup)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column == StatusA && c.inA) return ResultsModel::statusColor(c.statusA);
        if (column == StatusB && c.inB) return ResultsModel::statusColor(c.statusB);
        if (column == Speedup && !std::isnan(c.speedup))
            return c.speedup >= 1.0 ? ResultsModel::statusColor(CellStatus::Ok)
                                    : ResultsModel::statusColor(CellStatus::Fail);
        return {};
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2 %3 %4\nA: %5  B: %6")
            .arg(text(c.kernel), text(c.variant), text(c.dtype), text(c.problem),
                 c.inA ? statusText(true, c.statusA) : QStringLiteral("absent"),
                 c.inB ? statusText(true, c.statusB) : QStringLiteral("absent"));
    default:
        return {};
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Kernel:
            return tr("kernel");
        case Problem:
            return tr("problem");
        case LatencyA:
            return tr("latency A (ms)");
        case LatencyB:
            return tr("latency B (ms)");
        case Speedup:
            return tr("speedup A/B");
        case StatusA:
            return tr("status A");
        case StatusB:
            return tr("status B");
        }
    }
    if (role == Qt::ToolTipRole && section == Speedup)
        return tr("latency A / latency B: above 1 when B is faster; only where both ran ok");
    return {};
}

CompareProxy::CompareProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(CompareModel::SortRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

bool CompareProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(CompareModel::SortRole), b = right.data(CompareModel::SortRole);
    if (a.typeId() != QMetaType::Double || b.typeId() != QMetaType::Double)
        return QSortFilterProxyModel::lessThan(left, right);
    const double x = a.toDouble(), y = b.toDouble();
    if (std::isnan(x) || std::isnan(y)) {
        if (std::isnan(x) == std::isnan(y)) return false;
        // Reversed for a descending sort, so that N/A stays at the end either way.
        return std::isnan(y) != (sortOrder() == Qt::DescendingOrder);
    }
    return x < y;
}

} // namespace gconv::ui
