#pragma once
// The registry's problem sets as a checkable table: key, direction, number of problems and
// description. The sets are read on a worker thread (each file is parsed and validated), so
// the page opens at once; rows show "..." until their set is read.
#include "problem/problem_set.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QThreadPool>

#include <filesystem>
#include <memory>
#include <vector>

namespace gconv::ui {

class ProblemSetListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ColKey, ColDirection, ColCount, ColDescription, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    // Empty dirs: ProblemRegistry::default_search_dirs().
    explicit ProblemSetListModel(std::vector<std::filesystem::path> dirs = {},
                                 QObject* parent = nullptr);
    ~ProblemSetListModel() override;

    // Re-reads the directories (keeps the checks of keys that still exist).
    void refresh();
    const std::vector<std::filesystem::path>& searchDirs() const { return dirs_; }

    QStringList keys() const;
    QStringList checkedKeys() const;
    bool setChecked(const QString& key, bool checked);
    // The set, once read (null before, or when it failed: see loadError()).
    std::shared_ptr<const ProblemSet> set(const QString& key) const;
    QString loadError(const QString& key) const;
    bool isLoading() const { return pendingLoads_ > 0; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

signals:
    void checkedKeysChanged(const QStringList& keys);
    // A set was read (or failed); its row shows it now.
    void setLoaded(const QString& key);
    void loadingFinished();

private:
    struct Entry {
        QString key;
        std::filesystem::path path;
        bool checked = false;
        std::shared_ptr<const ProblemSet> set;
        QString error;
    };
    int rowOf(const QString& key) const;
    void onLoaded(const QString& key, quint64 epoch, std::shared_ptr<const ProblemSet> set,
                  const QString& error);

    std::vector<std::filesystem::path> dirs_;
    std::vector<Entry> entries_;
    QThreadPool loader_;
    quint64 epoch_ = 0;
    int pendingLoads_ = 0;
};

} // namespace gconv::ui
