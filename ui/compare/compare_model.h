#pragma once
// The per-cell table of the Compare page: kernel, problem, latency A, latency B, speedup
// (A / B), status A, status B. Raw values under ResultsModel::SortRole for its proxy.
#include "ui/compare/compare_matching.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace gconv::ui {

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kernel, Problem, LatencyA, LatencyB, Speedup, StatusA, StatusB, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit CompareModel(QObject* parent = nullptr);
    void setResult(CompareResult result);
    const CompareResult& result() const { return result_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    CompareResult result_;
};

// Sorts by SortRole with N/A (NaN) last in both directions; QVariant's comparison of NaN
// is unordered and would scramble the sort.
class CompareProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit CompareProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace gconv::ui
