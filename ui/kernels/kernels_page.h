#pragma once
// Page 1 of gconv-explorer: the trait-config editor. A form and the raw JSON, kept in sync both
// ways; an architecture picker; the live count of legal and culled kernels; the kernel list
// under a filter box; the culled configurations with every reason; open / save / save as.
// Counting runs on a worker thread (PoolRunner), the same enumerate_pool() and config filter
// as gconv-instances, so the page and the CLI always agree.
#include "ui/kernels/pool_runner.h"

#include <QMessageBox>
#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QAbstractItemModel;
class QAction;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace gconv::ui {

class CulledListModel;
class FilterBox;
class KernelListModel;
class TraitForm;

class KernelsPage : public QWidget {
    Q_OBJECT
public:
    // Asked by maybeSave(): Save, Discard or Cancel. Replaceable so tests need no dialog.
    using SavePrompt = std::function<QMessageBox::StandardButton(const QString& documentName)>;

    explicit KernelsPage(QWidget* parent = nullptr);
    ~KernelsPage() override;

    // Loads a config file. False (with the message shown) when it cannot be read or does not
    // parse; an unparsable file is still shown in the JSON view so it can be fixed.
    bool openConfig(const QString& path);
    QString configPath() const { return path_; }
    // The file name, or "untitled.json" for a new config.
    QString documentName() const;
    bool isModified() const { return modified_; }
    // When modified, asks Save / Discard / Cancel; false on Cancel (or a failed save).
    bool maybeSave();
    // Writes the JSON text; false (message shown) when it is not a valid config or unwritable.
    bool saveTo(const QString& path);
    void setSavePrompt(SavePrompt prompt) { prompt_ = std::move(prompt); }

    QAction* openAction() const { return openAction_; }
    QAction* saveAction() const { return saveAction_; }
    QAction* saveAsAction() const { return saveAsAction_; }
    QAction* newAction() const { return newAction_; }

    // --- state, for the main window and tests ---
    QString arch() const;
    void setArch(const QString& arch);
    QString jsonText() const;
    // Replaces the JSON as if typed (applied after the debounce).
    void setJsonText(const QString& text);
    // The reader's message for the current JSON text; empty when it is valid.
    QString jsonError() const { return jsonError_; }
    // 1-based line of the error in the text (0 when unknown).
    int jsonErrorLine() const { return jsonErrorLine_; }
    // The last config that parsed (what the form and the counts show).
    std::shared_ptr<const TraitConfig> traitConfig() const { return traits_; }
    TraitForm* form() const { return form_; }
    FilterBox* filterBox() const { return filter_; }
    QAbstractItemModel* kernelModel() const;
    QAbstractItemModel* culledModel() const;
    QSortFilterProxyModel* kernelProxy() const { return kernelProxy_; }

    // Counts of the last finished enumeration (-1 before the first).
    int legalCount() const;
    int culledCount() const;
    int candidateCount() const;
    // Legal kernels that pass the filter (= legalCount() without a filter).
    int filteredCount() const;
    int filteredCulledCount() const;
    // True while an edit waits for its debounce or the worker is counting.
    bool isBusy() const;
    QString statusText() const;

signals:
    void configChanged(const QString& path);
    void modifiedChanged(bool modified);
    // A new count (and kernel list) is shown.
    void poolUpdated();

private:
    void buildUi();
    void buildActions();
    void newConfig();
    void openWithDialog();
    bool save();
    bool saveAs();
    void loadText(const QString& text, const QString& path);
    void onFormEdited();
    void onJsonEdited();
    // Parses the JSON text; on success updates the traits (and the form unless the edit came
    // from it) and recounts; on failure shows the error and keeps the last good state.
    bool applyJson(bool fromForm);
    void showJsonError(const QString& message);
    void recount();
    void onPoolResult(const PoolResult& result);
    void updateModified();
    void updateStatus();
    QString defaultDir() const;

    const ArchSpecs& specs_;
    PoolRunner* runner_;
    SavePrompt prompt_;

    TraitForm* form_ = nullptr;
    QPlainTextEdit* json_ = nullptr;
    QLabel* jsonErrorLabel_ = nullptr;
    QComboBox* archBox_ = nullptr;
    QLabel* countLabel_ = nullptr;
    FilterBox* filter_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QTableView* kernelView_ = nullptr;
    QTableView* culledView_ = nullptr;
    QLabel* cullSummary_ = nullptr;
    KernelListModel* kernelModel_ = nullptr;
    CulledListModel* culledModel_ = nullptr;
    QSortFilterProxyModel* kernelProxy_ = nullptr;
    QSortFilterProxyModel* culledProxy_ = nullptr;
    QTimer* jsonTimer_ = nullptr;
    QAction* newAction_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* saveAction_ = nullptr;
    QAction* saveAsAction_ = nullptr;

    QString path_;
    QString savedText_;
    bool modified_ = false;
    bool settingText_ = false;
    QString jsonError_;
    int jsonErrorLine_ = 0;
    std::shared_ptr<const TraitConfig> traits_;
    // What the shown snapshot was enumerated from, so a filter change can reuse it.
    std::shared_ptr<const PoolSnapshot> snapshot_;
    std::shared_ptr<const TraitConfig> snapshotTraits_;
    std::string snapshotArch_;
    std::shared_ptr<const TraitConfig> submittedTraits_;
    std::string submittedArch_;
    PoolResult last_;
    QString poolError_;
};

} // namespace gconv::ui
