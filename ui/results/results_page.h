#pragma once
// The Results page: opens results CSVs (every form) into the shared ResultStore in a background
// thread, and shows the rows through the filter language, a text search, a status filter and
// the best-kernel-per-problem view; exports the visible rows as a full-form CSV.
#include "ui/results/result_store.h"
#include "ui/results/results_filter_proxy.h"
#include "ui/results/results_loader.h"
#include "ui/results/results_model.h"

#include <QTimer>
#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QTableView;
class QToolButton;

namespace gconv::ui {

class ResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPage(ResultStore* store, QWidget* parent = nullptr);

    // Reads the files one after another in the background; each that reads completely is
    // added to the store (fileOpened), one that does not is reported in the status line.
    void openFiles(const QStringList& paths);
    // Asks for files (Ctrl+O).
    QAction* openAction() const { return openAction_; }
    // Asks for a path and writes the visible rows (Ctrl+Shift+E).
    QAction* exportAction() const { return exportAction_; }

    // The visible rows in view order as a full-form CSV; false with a message on failure.
    bool exportVisibleRows(const QString& path, QString* error = nullptr);

    // For tests and the load benchmark.
    QTableView* view() const { return view_; }
    ResultsModel* model() const { return model_; }
    ResultsFilterProxy* proxy() const { return proxy_; }
    ResultsLoader* loader() const { return loader_; }
    QLineEdit* filterEdit() const { return filterEdit_; }
    QLineEdit* searchEdit() const { return searchEdit_; }
    QToolButton* statusButton() const { return statusButton_; }
    QToolButton* bestButton() const { return bestButton_; }
    QString statusText() const;
    QString filterErrorText() const;
    QString rowCountText() const;
    // Applies the filter line edit now instead of after the debounce.
    void applyFilterNow();

signals:
    void fileOpened(const QString& path);
    void fileFailed(const QString& path, const QString& message);
    // The filter expression was applied (error empty) or rejected.
    void filterEvaluated(const QString& error);

private:
    void buildActions();
    void buildLayout();
    void applySearch();
    void applyStatusMenu();
    void updateRowCount();
    void showStatus(const QString& text, bool error);
    void showFilterError(const ResultsFilterProxy::ExpressionError& error);
    void showColumnMenu(const QPoint& at);
    void applyHiddenColumns();
    void saveHiddenColumns();
    void chooseAndExport();
    void chooseAndOpen();
    void syncCurrentFromView();
    void syncViewFromStore(qint64 storeRow);

    ResultStore* store_;
    ResultsModel* model_;
    ResultsFilterProxy* proxy_;
    ResultsLoader* loader_;
    QAction* openAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QLineEdit* filterEdit_ = nullptr;
    QLineEdit* searchEdit_ = nullptr;
    QToolButton* statusButton_ = nullptr;
    QToolButton* bestButton_ = nullptr;
    QLabel* rowCount_ = nullptr;
    QLabel* filterError_ = nullptr;
    QTableView* view_ = nullptr;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancel_ = nullptr;
    QTimer filterTimer_;
    QTimer searchTimer_;
    bool syncing_ = false;
    bool sizedColumns_ = false;
};

} // namespace gconv::ui
