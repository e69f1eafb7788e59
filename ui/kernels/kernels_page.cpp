#include "ui/kernels/kernels_page.h"

#include "config/config_filter.h"
#include "config/rules.h"
#include "ui/kernels/filter_box.h"
#include "ui/kernels/pool_models.h"
#include "ui/kernels/trait_form.h"
#include "ui/kernels/trait_json_format.h"
#include "util/data_paths.h"
#include "util/error.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <map>

namespace gconv::ui {
namespace {

const char* k_newConfig = R"({
  "variant": "forward",
  "description": "",
  "trait_config": {
    "data_type": {"values": ["bf16"]},
    "ndim_spatial": {"values": [2]},
    "pipeline": {"values": ["compv3"]},
    "scheduler": {"values": ["intrawave"]}
  }
}
)";

// The line a reader message points at: "file:L:C: invalid JSON" gives it directly; a JSON path
// ("trait_config.pipeline.values[1]") is looked up as its trait key in the text.
int errorLine(const QString& message, const QString& text) {
    static const QRegularExpression lineColumn(QStringLiteral(":(\\d+):(\\d+): invalid JSON"));
    if (auto m = lineColumn.match(message); m.hasMatch()) return m.captured(1).toInt();
    static const QRegularExpression path(QStringLiteral(": (trait_config\\.)?([A-Za-z_]+)"));
    auto m = path.match(message);
    if (!m.hasMatch()) return 0;
    const int at = text.indexOf(QLatin1Char('"') + m.captured(2) + QLatin1Char('"'));
    return at < 0 ? 0 : int(text.left(at).count(QLatin1Char('\n'))) + 1;
}

QTableView* makeTable(QWidget* parent, QAbstractItemModel* model) {
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSortingEnabled(true);
    view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->horizontalHeader()->setDefaultSectionSize(72);
    view->horizontalHeader()->setHighlightSections(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->setColumnWidth(0, 520);
    // Ctrl+C copies the names of the selected rows, one per line.
    auto* copy = new QAction(QObject::tr("Copy names"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    view->addAction(copy);
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    QObject::connect(copy, &QAction::triggered, view, [view] {
        QStringList names;
        for (const auto& index : view->selectionModel()->selectedRows(0))
            names << index.data().toString();
        QApplication::clipboard()->setText(names.join(QLatin1Char('\n')));
    });
    return view;
}

QSortFilterProxyModel* makeProxy(QObject* parent, QAbstractItemModel* source) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(PoolTableModel::SortRole);
    proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

} // namespace

KernelsPage::KernelsPage(QWidget* parent)
    : QWidget(parent), specs_(default_arch_specs()), runner_(new PoolRunner(specs_, this)) {
    prompt_ = [this](const QString& name) {
        return QMessageBox::question(
            this, tr("Unsaved trait config"), tr("%1 has unsaved changes. Save them?").arg(name),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };
    buildActions();
    buildUi();
    connect(runner_, &PoolRunner::finished, this, &KernelsPage::onPoolResult);
    loadText(QString::fromUtf8(k_newConfig), {});
}

KernelsPage::~KernelsPage() = default;

void KernelsPage::buildActions() {
    auto make = [this](const QString& text, QKeySequence key, const QString& tip) {
        auto* action = new QAction(text, this);
        action->setShortcut(key);
        // The page's own shortcuts: other pages may use the same keys for their files.
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        action->setToolTip(tip + QStringLiteral(" (") + key.toString(QKeySequence::NativeText) +
                           QLatin1Char(')'));
        addAction(action);
        return action;
    };
    newAction_ = make(tr("&New config"), QKeySequence::New, tr("Start a new trait config"));
    openAction_ = make(tr("&Open config..."), QKeySequence::Open, tr("Open a trait config"));
    saveAction_ = make(tr("&Save config"), QKeySequence::Save, tr("Save the trait config"));
    saveAsAction_ =
        make(tr("Save config &as..."), QKeySequence::SaveAs, tr("Save the trait config as"));
    connect(newAction_, &QAction::triggered, this, &KernelsPage::newConfig);
    connect(openAction_, &QAction::triggered, this, &KernelsPage::openWithDialog);
    connect(saveAction_, &QAction::triggered, this, &KernelsPage::save);
    connect(saveAsAction_, &QAction::triggered, this, &KernelsPage::saveAs);
}

void KernelsPage::buildUi() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->setSpacing(4);

    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(newAction_);
    bar->addAction(openAction_);
    bar->addAction(saveAction_);
    bar->addAction(saveAsAction_);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Arch: "), bar));
    archBox_ = new QComboBox(bar);
    for (const auto& name : specs_.names()) {
        const ArchSpec& a = specs_.get(name);
        archBox_->addItem(QString::fromStdString(name));
        archBox_->setItemData(
            archBox_->count() - 1,
            tr("%1 %2: warp %3, shared memory %4 KB per block (opt-in %5 KB), %6 threads")
                .arg(QString::fromStdString(a.vendor), QString::fromStdString(a.family))
                .arg(a.warp_size)
                .arg(a.shared_memory_per_block / 1024)
                .arg(a.shared_memory_per_block_optin / 1024)
                .arg(a.max_threads_per_block),
            Qt::ToolTipRole);
    }
    archBox_->setToolTip(tr("Target architecture (configs/arch_specs.json): its rules decide "
                            "which configurations are legal"));
    if (archBox_->findText(QStringLiteral("sm_90")) >= 0)
        archBox_->setCurrentText(QStringLiteral("sm_90"));
    bar->addWidget(archBox_);
    bar->addSeparator();
    countLabel_ = new QLabel(bar);
    countLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    countLabel_->setContentsMargins(6, 0, 6, 0);
    bar->addWidget(countLabel_);
    outer->addWidget(bar);

    auto* split = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(split, 1);

    // Left: the form above the JSON.
    auto* editors = new QSplitter(Qt::Vertical, split);
    form_ = new TraitForm;
    auto* scroll = new QScrollArea(editors);
    scroll->setWidget(form_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* jsonPane = new QWidget(editors);
    auto* jsonLayout = new QVBoxLayout(jsonPane);
    jsonLayout->setContentsMargins(0, 0, 0, 0);
    jsonLayout->setSpacing(2);
    json_ = new QPlainTextEdit(jsonPane);
    json_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    json_->setLineWrapMode(QPlainTextEdit::NoWrap);
    json_->setTabStopDistance(json_->fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 2);
    json_->setToolTip(tr("The trait config as JSON (docs/trait-config.md). Edits apply to the "
                         "form after a short pause when they parse."));
    jsonErrorLabel_ = new QLabel(jsonPane);
    jsonErrorLabel_->setWordWrap(true);
    jsonErrorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    jsonErrorLabel_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    jsonErrorLabel_->hide();
    jsonLayout->addWidget(json_, 1);
    jsonLayout->addWidget(jsonErrorLabel_);
    editors->setStretchFactor(0, 3);
    editors->setStretchFactor(1, 2);

    // Right: the kernels and the culled configurations.
    tabs_ = new QTabWidget(split);
    auto* kernelsPane = new QWidget(tabs_);
    auto* kernelsLayout = new QVBoxLayout(kernelsPane);
    kernelsLayout->setContentsMargins(2, 2, 2, 2);
    filter_ = new FilterBox(config_filter_schema(), kernelsPane);
    kernelModel_ = new KernelListModel(this);
    kernelProxy_ = makeProxy(this, kernelModel_);
    kernelView_ = makeTable(kernelsPane, kernelProxy_);
    kernelsLayout->addWidget(filter_);
    kernelsLayout->addWidget(kernelView_, 1);
    tabs_->addTab(kernelsPane, tr("Kernels"));

    auto* culledPane = new QWidget(tabs_);
    auto* culledLayout = new QVBoxLayout(culledPane);
    culledLayout->setContentsMargins(2, 2, 2, 2);
    cullSummary_ = new QLabel(culledPane);
    cullSummary_->setWordWrap(true);
    cullSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    culledModel_ = new CulledListModel(this);
    culledProxy_ = makeProxy(this, culledModel_);
    culledView_ = makeTable(culledPane, culledProxy_);
    culledView_->setColumnWidth(1, 160);
    culledView_->setColumnWidth(2, 420);
    culledLayout->addWidget(cullSummary_);
    culledLayout->addWidget(culledView_, 1);
    tabs_->addTab(culledPane, tr("Culled"));
    tabs_->setTabToolTip(1, tr("Configurations the architecture's rules reject, with every rule "
                               "each one fails; the filter applies here too"));

    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    scroll->setMinimumWidth(form_->minimumSizeHint().width() + 24);
    split->setSizes({560, 1040});
    editors->setSizes({560, 340});

    jsonTimer_ = new QTimer(this);
    jsonTimer_->setSingleShot(true);
    jsonTimer_->setInterval(300);
    connect(jsonTimer_, &QTimer::timeout, this, [this] { applyJson(false); });
    connect(json_, &QPlainTextEdit::textChanged, this, &KernelsPage::onJsonEdited);
    connect(form_, &TraitForm::edited, this, &KernelsPage::onFormEdited);
    connect(archBox_, &QComboBox::currentTextChanged, this, &KernelsPage::recount);
    connect(filter_, &FilterBox::filterChanged, this, &KernelsPage::recount);
}

QString KernelsPage::documentName() const {
    return path_.isEmpty() ? QStringLiteral("untitled.json") : QFileInfo(path_).fileName();
}

QString KernelsPage::defaultDir() const {
    if (!path_.isEmpty()) return QFileInfo(path_).absolutePath();
    try {
        return QString::fromStdString(find_data_file("configs"));
    } catch (const Error&) {
        return QDir::currentPath();
    }
}

QString KernelsPage::arch() const {
    return archBox_->currentText();
}

void KernelsPage::setArch(const QString& arch) {
    archBox_->setCurrentText(arch);
}

QString KernelsPage::jsonText() const {
    return json_->toPlainText();
}

void KernelsPage::setJsonText(const QString& text) {
    json_->setPlainText(text); // textChanged starts the debounce
}

QAbstractItemModel* KernelsPage::kernelModel() const {
    return kernelModel_;
}

QAbstractItemModel* KernelsPage::culledModel() const {
    return culledModel_;
}

int KernelsPage::legalCount() const {
    return snapshot_ ? int(snapshot_->pool.kernels.size()) : -1;
}
int KernelsPage::culledCount() const {
    return snapshot_ ? int(snapshot_->pool.culled.size()) : -1;
}
int KernelsPage::candidateCount() const {
    return snapshot_ ? int(snapshot_->pool.candidates) : -1;
}
int KernelsPage::filteredCount() const {
    return snapshot_ ? int(last_.kernelRows.size()) : -1;
}
int KernelsPage::filteredCulledCount() const {
    return snapshot_ ? int(last_.culledRows.size()) : -1;
}

bool KernelsPage::isBusy() const {
    return jsonTimer_->isActive() || runner_->isBusy() || filter_->isPending();
}

QString KernelsPage::statusText() const {
    return countLabel_->text();
}

// --- files ---------------------------------------------------------------------------------

void KernelsPage::loadText(const QString& text, const QString& path) {
    path_ = path;
    savedText_ = text;
    settingText_ = true;
    json_->setPlainText(text);
    settingText_ = false;
    jsonTimer_->stop();
    applyJson(false);
    updateModified();
}

bool KernelsPage::openConfig(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showJsonError(tr("%1: cannot open: %2").arg(path, file.errorString()));
        return false;
    }
    const QString text = QString::fromUtf8(file.readAll());
    loadText(text, QFileInfo(path).absoluteFilePath());
    emit configChanged(path_);
    return jsonError_.isEmpty();
}

void KernelsPage::newConfig() {
    if (!maybeSave()) return;
    loadText(QString::fromUtf8(k_newConfig), {});
    emit configChanged(QString());
}

void KernelsPage::openWithDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trait config"), defaultDir(),
                                                      tr("Trait configs (*.json);;All files (*)"));
    if (!path.isEmpty()) openConfig(path);
}

bool KernelsPage::saveTo(const QString& path) {
    jsonTimer_->stop();
    if (!applyJson(false)) {
        showJsonError(jsonError_ + tr("\nNot saved: fix the config first."));
        return false;
    }
    QSaveFile file(path);
    const QString text = jsonText();
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        showJsonError(tr("%1: cannot write: %2").arg(path, file.errorString()));
        return false;
    }
    path_ = QFileInfo(path).absoluteFilePath();
    savedText_ = text;
    updateModified();
    updateStatus();
    emit configChanged(path_);
    return true;
}

bool KernelsPage::save() {
    return path_.isEmpty() ? saveAs() : saveTo(path_);
}

bool KernelsPage::saveAs() {
    const QString start =
        path_.isEmpty() ? defaultDir() + QStringLiteral("/my_config.json") : path_;
    QString path = QFileDialog::getSaveFileName(this, tr("Save trait config"), start,
                                                tr("Trait configs (*.json)"));
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    return saveTo(path);
}

bool KernelsPage::maybeSave() {
    if (!modified_) return true;
    switch (prompt_(documentName())) {
    case QMessageBox::Save:
        return save();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void KernelsPage::updateModified() {
    const bool modified = jsonText() != savedText_;
    if (modified == modified_) return;
    modified_ = modified;
    emit modifiedChanged(modified_);
}

// --- form <-> JSON ---------------------------------------------------------------------------

void KernelsPage::onJsonEdited() {
    if (settingText_) return;
    updateModified();
    jsonTimer_->start();
    updateStatus();
}

void KernelsPage::onFormEdited() {
    const QString text = QString::fromStdString(formatTraitJson(form_->document()));
    if (text != jsonText()) {
        // One undoable step in the JSON view.
        settingText_ = true;
        QTextCursor cursor(json_->document());
        cursor.beginEditBlock();
        cursor.select(QTextCursor::Document);
        cursor.insertText(text);
        cursor.endEditBlock();
        settingText_ = false;
    }
    jsonTimer_->stop();
    applyJson(true);
    updateModified();
}

bool KernelsPage::applyJson(bool fromForm) {
    const std::string text = jsonText().toStdString();
    std::shared_ptr<const TraitConfig> traits;
    Json document;
    try {
        traits = std::make_shared<const TraitConfig>(
            parse_trait_config(text, documentName().toStdString()));
        document = Json::parse(text);
    } catch (const std::exception& e) {
        showJsonError(QString::fromStdString(e.what()));
        updateStatus();
        return false;
    }
    jsonError_.clear();
    jsonErrorLine_ = 0;
    jsonErrorLabel_->hide();
    json_->setExtraSelections({});
    if (!fromForm) form_->setDocument(document);
    traits_ = std::move(traits);
    recount();
    return true;
}

void KernelsPage::showJsonError(const QString& message) {
    jsonError_ = message;
    jsonErrorLine_ = errorLine(message, jsonText());
    jsonErrorLabel_->setText(message + tr("\n(The form and the counts show the last valid "
                                          "config.)"));
    jsonErrorLabel_->show();
    QList<QTextEdit::ExtraSelection> marks;
    if (jsonErrorLine_ > 0) {
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(json_->document()->findBlockByNumber(jsonErrorLine_ - 1));
        mark.format.setBackground(QColor(0xfd, 0xe2, 0xe2));
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks << mark;
    }
    json_->setExtraSelections(marks);
}

// --- counting ------------------------------------------------------------------------------

void KernelsPage::recount() {
    if (!traits_) return;
    PoolJob job;
    job.traits = traits_;
    job.arch = arch().toStdString();
    job.filter = filter_->validText().toStdString();
    if (snapshot_ && snapshotTraits_ == traits_ && snapshotArch_ == job.arch) job.reuse = snapshot_;
    submittedTraits_ = traits_;
    submittedArch_ = job.arch;
    runner_->submit(std::move(job));
    updateStatus();
}

void KernelsPage::onPoolResult(const PoolResult& result) {
    if (!result.snapshot) {
        poolError_ = result.error;
        updateStatus();
        emit poolUpdated();
        return;
    }
    poolError_.clear();
    if (!result.error.isEmpty()) filter_->showError(result.error, {}, -1);
    snapshot_ = result.snapshot;
    snapshotTraits_ = submittedTraits_;
    snapshotArch_ = submittedArch_;
    last_ = result;
    kernelModel_->setRows(snapshot_, last_.kernelRows);
    culledModel_->setRows(snapshot_, last_.culledRows);

    std::map<std::string_view, int> byRule;
    for (int i : last_.culledRows)
        for (const auto& r : snapshot_->pool.culled[std::size_t(i)].reasons)
            ++byRule[rule_id(r.rule)];
    QStringList parts;
    for (const auto& [rule, count] : byRule)
        parts << QStringLiteral("%1: %2")
                     .arg(QString::fromUtf8(rule.data(), int(rule.size())))
                     .arg(count);
    cullSummary_->setText(parts.isEmpty() ? tr("Nothing culled.")
                                          : tr("Culled by rule (a configuration may fail "
                                               "several): ") +
                                                parts.join(QStringLiteral(" · ")));
    const bool filtered = last_.filtered;
    tabs_->setTabText(0, filtered ? tr("Kernels (%1 of %2)")
                                        .arg(last_.kernelRows.size())
                                        .arg(snapshot_->pool.kernels.size())
                                  : tr("Kernels (%1)").arg(snapshot_->pool.kernels.size()));
    tabs_->setTabText(1, filtered ? tr("Culled (%1 of %2)")
                                        .arg(last_.culledRows.size())
                                        .arg(snapshot_->pool.culled.size())
                                  : tr("Culled (%1)").arg(snapshot_->pool.culled.size()));
    updateStatus();
    emit poolUpdated();
}

void KernelsPage::updateStatus() {
    QString text;
    if (!poolError_.isEmpty()) {
        text = tr("<span style='color:#b00020'>cannot count: %1</span>")
                   .arg(poolError_.toHtmlEscaped());
    } else if (!snapshot_) {
        text = tr("counting...");
    } else {
        const auto& pool = snapshot_->pool;
        text = tr("<b>%1</b> legal kernels · %2 culled · %3 candidates on %4")
                   .arg(pool.kernels.size())
                   .arg(pool.culled.size())
                   .arg(pool.candidates)
                   .arg(QString::fromStdString(pool.arch));
        if (last_.filtered) text += tr(" · <b>%1</b> pass the filter").arg(last_.kernelRows.size());
        text += tr(" <span style='color:gray'>(%1 ms)</span>")
                    .arg(snapshot_->enumerateMs + last_.filterMs, 0, 'f', 1);
        if (runner_->isBusy()) text += tr(" · counting...");
    }
    if (!jsonError_.isEmpty())
        text += tr(" · <span style='color:#b00020'>the JSON has an error</span>");
    countLabel_->setText(text);
    setWindowModified(modified_);
}

} // namespace gconv::ui
