#pragma once
// Page 2 of gconv-explorer: problem sets. Check registry keys to see their problems with
// derived columns; add, edit and delete rows (each checked by core's validate()); save the
// table as a new set, by default into the user's problem directory the registry searches.
#include "config/enums.h"

#include <QStringList>
#include <QWidget>

#include <filesystem>
#include <vector>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gconv::ui {

class ProblemSetListModel;
class ProblemTableModel;

class ProblemsPage : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsPage(QWidget* parent = nullptr);
    // Registry directories to list (tests); empty: ProblemRegistry::default_search_dirs().
    explicit ProblemsPage(std::vector<std::filesystem::path> searchDirs, QWidget* parent = nullptr);

    QStringList selectedKeys() const;
    void setSelectedKeys(const QStringList& keys);
    // Writes the table as a set (problems/ format). `key` defaults to the file stem and must
    // equal it (the registry finds a set by its file name). False, with the reason in
    // statusText(), when a row is invalid, directions are mixed, or the file cannot be written.
    bool saveSetAs(const QString& path, const QString& key);
    // Asks for a file in the user's problem directory, then saveSetAs().
    bool saveSetWithDialog();
    // Appends a row (a copy of the current one, or a small valid forward problem).
    void addRow();
    void deleteSelectedRows();
    void setDtype(DataType dtype);

    ProblemSetListModel* setModel() const { return sets_; }
    ProblemTableModel* problemModel() const { return problems_; }
    QSortFilterProxyModel* problemProxy() const { return proxy_; }
    QTableView* problemView() const { return view_; }
    QString statusText() const;
    // True while sets are still being read.
    bool isLoading() const;
    // Where "Save as set" writes by default.
    static QString userProblemsDir();

signals:
    void selectionChanged(const QStringList& keys);

private:
    void buildUi();
    void onCheckedKeysChanged(const QStringList& keys);
    void syncRows();
    void showStatus(const QString& text, bool error);
    void showCurrentRowStatus();

    ProblemSetListModel* sets_;
    ProblemTableModel* problems_;
    QSortFilterProxyModel* setsProxy_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    QTableView* setsView_ = nullptr;
    QTableView* view_ = nullptr;
    QComboBox* dtypeBox_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* status_ = nullptr;
    QStringList shownKeys_; // sets whose rows are in the table
};

} // namespace gconv::ui
