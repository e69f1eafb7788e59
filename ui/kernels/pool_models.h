#pragma once
// Table models over a PoolSnapshot: the legal kernels and the culled configurations (with
// every reason). They read the snapshot on demand (nothing is copied into QVariants) and
// show the rows that passed the filter. Qt::UserRole (sortRole) gives numbers as numbers.
#include "ui/kernels/pool_runner.h"

#include <QAbstractTableModel>

#include <functional>
#include <memory>
#include <vector>

namespace gconv::ui {

class PoolTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole;
    // The configuration's index in the snapshot's list (kernels or culled).
    static constexpr int IndexRole = Qt::UserRole + 1;

    void setRows(std::shared_ptr<const PoolSnapshot> snapshot, std::vector<int> rows);
    const PoolSnapshot* snapshot() const { return snapshot_.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

protected:
    struct Column {
        QString title;
        QString toolTip;
        // (index into the snapshot list, role) -> value; roles Display, Sort, ToolTip.
        std::function<QVariant(int, int)> value;
        bool number = false;
    };
    explicit PoolTableModel(QObject* parent) : QAbstractTableModel(parent) {}
    void addConfigColumns(std::function<const KernelConfig&(int)> config);
    std::vector<Column> columns_;
    std::shared_ptr<const PoolSnapshot> snapshot_;
    std::vector<int> rows_;
};

class KernelListModel : public PoolTableModel {
    Q_OBJECT
public:
    explicit KernelListModel(QObject* parent = nullptr);
};

class CulledListModel : public PoolTableModel {
    Q_OBJECT
public:
    explicit CulledListModel(QObject* parent = nullptr);
};

} // namespace gconv::ui
