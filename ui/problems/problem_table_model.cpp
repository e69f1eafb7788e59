#include "ui/problems/problem_table_model.h"

#include <QBrush>
#include <QColor>

#include <unordered_map>

namespace gconv::ui {
namespace {

struct Header {
    const char* title;
    const char* tip;
};

const Header k_headers[ProblemTableModel::ColumnCount] = {
    {"set", "the registry set the row came from (empty: added here)"},
    {"dir", "direction: forward, bwd_data or bwd_weight (decides GEMM M/N/K)"},
    {"layer", "where the shape came from (not part of its identity)"},
    {"nd", "spatial dimensions: 2 or 3"},
    {"N", "batch"},
    {"C", "input channels (all groups)"},
    {"K", "output channels (all groups)"},
    {"G", "groups; C and K must be multiples of G"},
    {"Di", "input depth (1 in 2D)"},
    {"Hi", "input height"},
    {"Wi", "input width"},
    {"Z", "filter depth (1 in 2D)"},
    {"Y", "filter height"},
    {"X", "filter width"},
    {"sd", "stride_d"},
    {"sh", "stride_h"},
    {"sw", "stride_w"},
    {"pd", "pad_d"},
    {"ph", "pad_h"},
    {"pw", "pad_w"},
    {"dd", "dilation_d"},
    {"dh", "dilation_h"},
    {"dw", "dilation_w"},
    {"Do", "output depth"},
    {"Ho", "output height: (Hi + 2*pad_h - ((Y-1)*dilation_h + 1)) / stride_h + 1"},
    {"Wo", "output width"},
    {"GFLOP", "2 * N * K * Do*Ho*Wo * C/G * Z*Y*X / 1e9 (the same in every direction)"},
    {"min MB", "input + weight + output, each moved once, in the dtype (1 MB = 1e6 bytes)"},
    {"FLOP/B", "arithmetic intensity: FLOP per byte of the minimal traffic"},
    {"GEMM M", "implicit-GEMM M per group for the row's direction"},
    {"GEMM N", "implicit-GEMM N per group"},
    {"GEMM K", "implicit-GEMM K per group"},
};

} // namespace

int64_t Problem::*ProblemTableModel::sizeMember(int column) {
    static int64_t Problem::*const members[] = {
        &Problem::N,          &Problem::C,          &Problem::K,         &Problem::G,
        &Problem::Di,         &Problem::Hi,         &Problem::Wi,        &Problem::Z,
        &Problem::Y,          &Problem::X,          &Problem::stride_d,  &Problem::stride_h,
        &Problem::stride_w,   &Problem::pad_d,      &Problem::pad_h,     &Problem::pad_w,
        &Problem::dilation_d, &Problem::dilation_h, &Problem::dilation_w};
    return isSizeColumn(column) ? members[column - ColN] : nullptr;
}

ProblemTableModel::ProblemTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProblemTableModel::setDtype(DataType dtype) {
    if (dtype == dtype_) return;
    dtype_ = dtype;
    if (!rows_.empty()) emit dataChanged(index(0, ColMinMB), index(rowCount() - 1, ColIntensity));
}

void ProblemTableModel::appendRows(std::vector<Row> rows) {
    if (rows.empty()) return;
    const int first = rowCount();
    beginInsertRows({}, first, first + int(rows.size()) - 1);
    for (auto& r : rows) rows_.push_back(std::move(r));
    errors_.resize(rows_.size());
    endInsertRows();
    revalidate();
}

void ProblemTableModel::removeSet(const QString& key) {
    // Remove runs of consecutive rows so views get few signals.
    for (int r = rowCount() - 1; r >= 0;) {
        if (rows_[std::size_t(r)].set != key) {
            --r;
            continue;
        }
        int first = r;
        while (first > 0 && rows_[std::size_t(first - 1)].set == key) --first;
        removeRows(first, r - first + 1);
        r = first - 1;
    }
}

void ProblemTableModel::clear() {
    beginResetModel();
    rows_.clear();
    errors_.clear();
    endResetModel();
}

bool ProblemTableModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count <= 0 || row + count > rowCount()) return false;
    beginRemoveRows({}, row, row + count - 1);
    rows_.erase(rows_.begin() + row, rows_.begin() + row + count);
    errors_.erase(errors_.begin() + row, errors_.begin() + row + count);
    endRemoveRows();
    revalidate();
    return true;
}

void ProblemTableModel::revalidate() {
    std::vector<QStringList> next(rows_.size());
    std::unordered_map<std::string, std::size_t> first;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        for (const auto& e : validate(rows_[i].problem)) next[i] << QString::fromStdString(e);
        auto [it, inserted] = first.emplace(rows_[i].problem.key(), i);
        if (!inserted)
            next[i] << tr("duplicates row %1 (the same shape; a set holds each shape once)")
                           .arg(it->second + 1);
    }
    // Tell views about the rows whose marks changed.
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (next[i] != errors_[i]) {
            errors_[i] = next[i];
            emit dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
        }
}

QStringList ProblemTableModel::rowErrors(int row) const {
    return row >= 0 && row < rowCount() ? errors_[std::size_t(row)] : QStringList();
}

int ProblemTableModel::invalidRowCount() const {
    int n = 0;
    for (const auto& e : errors_) n += e.isEmpty() ? 0 : 1;
    return n;
}

bool ProblemTableModel::toProblemSet(const std::string& key, ProblemSet& out, QString& why) const {
    QStringList reasons;
    if (rows_.empty()) reasons << tr("the table is empty");
    for (std::size_t i = 0; i < rows_.size() && reasons.size() < 20; ++i)
        for (const auto& e : errors_[i]) reasons << tr("row %1: %2").arg(i + 1).arg(e);
    if (!rows_.empty())
        for (const auto& r : rows_)
            if (r.direction != rows_.front().direction) {
                reasons << tr("the rows mix directions (%1 and %2); a set has one direction")
                               .arg(QString::fromUtf8(to_string(rows_.front().direction).data()),
                                    QString::fromUtf8(to_string(r.direction).data()));
                break;
            }
    if (!reasons.isEmpty()) {
        why = reasons.join(QLatin1Char('\n'));
        return false;
    }
    out = ProblemSet{};
    out.key = key;
    out.direction = rows_.front().direction;
    for (const auto& r : rows_) out.problems.push_back(r.problem);
    return true;
}

int ProblemTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int ProblemTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemTableModel::derived(const Row& row, int column, int role) const {
    const Problem& p = row.problem;
    const Problem::Gemm gemm = p.gemm(row.direction);
    const bool sort = role == SortRole;
    switch (column) {
    case ColDo:
        return qlonglong(p.Do());
    case ColHo:
        return qlonglong(p.Ho());
    case ColWo:
        return qlonglong(p.Wo());
    case ColGflop:
        return sort ? QVariant(p.flops() / 1e9)
                    : QVariant(QString::number(p.flops() / 1e9, 'f', 3));
    case ColMinMB: {
        const double mb = p.min_bytes(dtype_) / 1e6;
        return sort ? QVariant(mb) : QVariant(QString::number(mb, 'f', 2));
    }
    case ColIntensity: {
        const double ai = p.flops() / p.min_bytes(dtype_);
        return sort ? QVariant(ai) : QVariant(QString::number(ai, 'f', 1));
    }
    case ColGemmM:
        return qlonglong(gemm.m);
    case ColGemmN:
        return qlonglong(gemm.n);
    case ColGemmK:
        return qlonglong(gemm.k);
    default:
        return {};
    }
}

QVariant ProblemTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[std::size_t(index.row())];
    const QStringList& errors = errors_[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case ErrorsRole:
        return errors;
    case Qt::ToolTipRole:
        if (!errors.isEmpty()) return tr("Not a valid problem:\n") + errors.join(QLatin1Char('\n'));
        if (column == ColLayer) return QString::fromStdString(row.problem.layer);
        return {};
    case Qt::BackgroundRole:
        return errors.isEmpty() ? QVariant() : QVariant(QBrush(QColor(0xfd, 0xe2, 0xe2)));
    case Qt::TextAlignmentRole:
        return column <= ColLayer ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DisplayRole:
    case Qt::EditRole:
    case SortRole:
        break;
    default:
        return {};
    }
    switch (column) {
    case ColSet:
        return row.set;
    case ColDirection:
        return QString::fromUtf8(to_string(row.direction).data());
    case ColLayer:
        return QString::fromStdString(row.problem.layer);
    case ColNdim:
        return row.problem.ndim_spatial;
    default:
        break;
    }
    if (auto member = sizeMember(column)) return qlonglong(row.problem.*member);
    // Derived values of an impossible problem would be meaningless.
    if (!errors.isEmpty() && role != SortRole) {
        const bool duplicateOnly =
            errors.size() == 1 && errors.front().startsWith(tr("duplicates"));
        if (!duplicateOnly) return QStringLiteral("-");
    }
    return derived(row, column, role);
}

bool ProblemTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Row& row = rows_[std::size_t(index.row())];
    const int column = index.column();
    const QString text = value.toString().trimmed();
    const QString where = tr("row %1, %2").arg(index.row() + 1).arg(k_headers[column].title);
    if (column == ColLayer) {
        row.problem.layer = text.toStdString();
    } else if (column == ColDirection) {
        const auto direction = enum_from_string<Variant>(text.toStdString());
        if (!direction) {
            emit editProblem(index.row(), tr("%1: unknown direction '%2' (allowed: forward, "
                                             "bwd_data, bwd_weight)")
                                              .arg(where, text));
            return false;
        }
        row.direction = *direction;
    } else if (column == ColNdim || isSizeColumn(column)) {
        bool ok = false;
        const qlonglong number = text.toLongLong(&ok);
        if (!ok) {
            emit editProblem(index.row(), tr("%1: '%2' is not an integer").arg(where, text));
            return false;
        }
        if (column == ColNdim)
            row.problem.ndim_spatial = int(number);
        else
            row.problem.*sizeMember(column) = number;
    } else {
        return false;
    }
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    revalidate();
    const QStringList errors = rowErrors(index.row());
    if (!errors.isEmpty())
        emit editProblem(index.row(), tr("row %1 is not a valid problem: %2")
                                          .arg(index.row() + 1)
                                          .arg(errors.join(QStringLiteral("; "))));
    return true;
}

Qt::ItemFlags ProblemTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const int c = index.column();
    if (c == ColDirection || c == ColLayer || c == ColNdim || isSizeColumn(c))
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant ProblemTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) return tr(k_headers[section].title);
    if (role == Qt::ToolTipRole) return tr(k_headers[section].tip);
    return {};
}

} // namespace gconv::ui
