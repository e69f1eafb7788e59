#include "ui/problems/problem_set_list_model.h"

#include "problem/registry.h"

#include <QColor>
#include <QMetaObject>

namespace gconv::ui {

ProblemSetListModel::ProblemSetListModel(std::vector<std::filesystem::path> dirs, QObject* parent)
    : QAbstractTableModel(parent),
      dirs_(dirs.empty() ? ProblemRegistry::default_search_dirs() : std::move(dirs)) {
    loader_.setMaxThreadCount(1);
    refresh();
}

ProblemSetListModel::~ProblemSetListModel() {
    loader_.clear();
    loader_.waitForDone();
}

void ProblemSetListModel::refresh() {
    const ProblemRegistry registry(dirs_);
    std::vector<Entry> next;
    for (const auto& key : registry.keys()) {
        Entry e;
        e.key = QString::fromStdString(key);
        e.path = registry.path_of(key);
        const int old = rowOf(e.key);
        if (old >= 0 && entries_[std::size_t(old)].path == e.path) {
            e = entries_[std::size_t(old)]; // keep what was read, unless the file moved
        } else if (old >= 0) {
            e.checked = entries_[std::size_t(old)].checked;
        }
        next.push_back(std::move(e));
    }
    beginResetModel();
    entries_ = std::move(next);
    endResetModel();

    const quint64 epoch = ++epoch_;
    for (const auto& e : entries_) {
        if (e.set || !e.error.isEmpty()) continue;
        ++pendingLoads_;
        loader_.start([this, key = e.key, path = e.path, epoch] {
            std::shared_ptr<const ProblemSet> set;
            QString error;
            try {
                set = std::make_shared<const ProblemSet>(ProblemRegistry::load_file(path));
            } catch (const std::exception& ex) {
                error = QString::fromStdString(ex.what());
            }
            QMetaObject::invokeMethod(
                this, [=, this] { onLoaded(key, epoch, set, error); }, Qt::QueuedConnection);
        });
    }
    if (pendingLoads_ == 0) emit loadingFinished();
}

void ProblemSetListModel::onLoaded(const QString& key, quint64 /*epoch*/,
                                   std::shared_ptr<const ProblemSet> set, const QString& error) {
    --pendingLoads_;
    const int row = rowOf(key);
    if (row >= 0 && !entries_[std::size_t(row)].set) {
        Entry& e = entries_[std::size_t(row)];
        e.set = std::move(set);
        e.error = error;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        emit setLoaded(key);
    }
    if (pendingLoads_ == 0) emit loadingFinished();
}

int ProblemSetListModel::rowOf(const QString& key) const {
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].key == key) return int(i);
    return -1;
}

QStringList ProblemSetListModel::keys() const {
    QStringList out;
    for (const auto& e : entries_) out << e.key;
    return out;
}

QStringList ProblemSetListModel::checkedKeys() const {
    QStringList out;
    for (const auto& e : entries_)
        if (e.checked) out << e.key;
    return out;
}

bool ProblemSetListModel::setChecked(const QString& key, bool checked) {
    const int row = rowOf(key);
    return row >= 0 &&
           setData(index(row, ColKey), checked ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
}

std::shared_ptr<const ProblemSet> ProblemSetListModel::set(const QString& key) const {
    const int row = rowOf(key);
    return row < 0 ? nullptr : entries_[std::size_t(row)].set;
}

QString ProblemSetListModel::loadError(const QString& key) const {
    const int row = rowOf(key);
    return row < 0 ? QString() : entries_[std::size_t(row)].error;
}

int ProblemSetListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(entries_.size());
}

int ProblemSetListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemSetListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& e = entries_[std::size_t(index.row())];
    const bool loaded = e.set != nullptr;
    if (role == Qt::CheckStateRole && index.column() == ColKey)
        return e.checked ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::ToolTipRole) {
        if (!e.error.isEmpty()) return e.error;
        return QString::fromStdString(e.path.string()) +
               (loaded ? QStringLiteral("\n") + QString::fromStdString(e.set->description)
                       : QString());
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == ColCount ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                          : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && !e.error.isEmpty()) return QColor(0xb0, 0x00, 0x20);
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (index.column()) {
    case ColKey:
        return e.key;
    case ColDirection:
        if (!e.error.isEmpty()) return tr("error");
        return loaded ? QString::fromUtf8(to_string(e.set->direction).data())
                      : QStringLiteral("...");
    case ColCount:
        if (role == SortRole) return loaded ? qlonglong(e.set->problems.size()) : -1;
        return loaded ? QVariant(qlonglong(e.set->problems.size()))
                      : QVariant(QStringLiteral("..."));
    case ColDescription:
        if (!e.error.isEmpty()) return e.error;
        return loaded ? QString::fromStdString(e.set->description) : QString();
    default:
        return {};
    }
}

bool ProblemSetListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        role != Qt::CheckStateRole || index.column() != ColKey)
        return false;
    Entry& e = entries_[std::size_t(index.row())];
    const bool checked = value.value<Qt::CheckState>() == Qt::Checked ||
                         (value.typeId() == QMetaType::Bool && value.toBool());
    if (e.checked == checked) return true;
    e.checked = checked;
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit checkedKeysChanged(checkedKeys());
    return true;
}

Qt::ItemFlags ProblemSetListModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == ColKey) f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant ProblemSetListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* titles[] = {"set", "direction", "problems", "description"};
    static const char* tips[] = {"registry key (problems/<key>.json); check to show its problems",
                                 "forward, bwd_data or bwd_weight", "number of problems",
                                 "the set's description"};
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return tr(titles[section]);
    if (role == Qt::ToolTipRole) return tr(tips[section]);
    return {};
}

} // namespace gconv::ui
