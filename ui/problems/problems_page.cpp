#include "ui/problems/problems_page.h"

#include "problem/problem_set_json.h"
#include "problem/registry.h"
#include "ui/problems/problem_set_list_model.h"
#include "ui/problems/problem_table_model.h"
#include "util/error.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace gconv::ui {
namespace {

// The direction column edits through a combo box of the three directions.
class DirectionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                          const QModelIndex&) const override {
        auto* box = new QComboBox(parent);
        for (const auto& name : enum_names<Variant>()) box->addItem(QString::fromStdString(name));
        return box;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override {
        static_cast<QComboBox*>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
    }
};

using Model = ProblemTableModel;

} // namespace

ProblemsPage::ProblemsPage(QWidget* parent)
    : ProblemsPage(std::vector<std::filesystem::path>{}, parent) {}

ProblemsPage::ProblemsPage(std::vector<std::filesystem::path> searchDirs, QWidget* parent)
    : QWidget(parent), sets_(new ProblemSetListModel(std::move(searchDirs), this)),
      problems_(new ProblemTableModel(this)) {
    buildUi();
    connect(sets_, &ProblemSetListModel::checkedKeysChanged, this,
            &ProblemsPage::onCheckedKeysChanged);
    connect(sets_, &ProblemSetListModel::setLoaded, this, [this] { syncRows(); });
    connect(problems_, &ProblemTableModel::editProblem, this,
            [this](int, const QString& message) { showStatus(message, true); });
    auto updateSummary = [this] {
        const int bad = problems_->invalidRowCount();
        summary_->setText(
            tr("%1 problems%2")
                .arg(problems_->rowCount())
                .arg(bad ? tr(" · <span style='color:#b00020'>%1 invalid (cannot be saved)</span>")
                               .arg(bad)
                         : QString()));
        // The depth columns only matter when a row is 3D.
        const auto& rows = problems_->rows();
        const bool any3d = std::any_of(rows.begin(), rows.end(),
                                       [](const auto& r) { return r.problem.ndim_spatial != 2; });
        for (int c : {Model::ColDi, Model::ColZ, Model::ColStrideD, Model::ColPadD,
                      Model::ColDilationD, Model::ColDo})
            view_->setColumnHidden(c, !any3d);
    };
    connect(problems_, &QAbstractItemModel::rowsInserted, this, updateSummary);
    connect(problems_, &QAbstractItemModel::rowsRemoved, this, updateSummary);
    connect(problems_, &QAbstractItemModel::modelReset, this, updateSummary);
    connect(problems_, &QAbstractItemModel::dataChanged, this, updateSummary);
    updateSummary();
}

void ProblemsPage::buildUi() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->setSpacing(4);

    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* add = bar->addAction(tr("Add row"), this, &ProblemsPage::addRow);
    add->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Plus));
    add->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    add->setToolTip(tr("Append a copy of the current row (Ctrl++)"));
    auto* remove = bar->addAction(tr("Delete rows"), this, &ProblemsPage::deleteSelectedRows);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    remove->setToolTip(tr("Delete the selected rows (Del)"));
    auto* save = bar->addAction(tr("Save as set..."), this, &ProblemsPage::saveSetWithDialog);
    save->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    save->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    save->setToolTip(
        tr("Save the table as a new problem set in %1 (Ctrl+Shift+E)").arg(userProblemsDir()));
    for (QAction* a : {add, remove, save}) addAction(a);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" dtype: "), bar));
    dtypeBox_ = new QComboBox(bar);
    for (const auto& name : enum_names<DataType>())
        dtypeBox_->addItem(QString::fromStdString(name));
    dtypeBox_->setToolTip(tr("Element type for the minimal MB and FLOP/B columns (problem sets "
                             "carry no dtype)"));
    bar->addWidget(dtypeBox_);
    bar->addSeparator();
    summary_ = new QLabel(bar);
    summary_->setContentsMargins(6, 0, 6, 0);
    bar->addWidget(summary_);
    outer->addWidget(bar);
    connect(dtypeBox_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (auto d = enum_from_string<DataType>(name.toStdString())) problems_->setDtype(*d);
    });

    auto* split = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(split, 1);

    setsProxy_ = new QSortFilterProxyModel(this);
    setsProxy_->setSourceModel(sets_);
    setsProxy_->setSortRole(ProblemSetListModel::SortRole);
    setsView_ = new QTableView(split);
    setsView_->setModel(setsProxy_);
    setsView_->setSortingEnabled(true);
    setsView_->sortByColumn(ProblemSetListModel::ColKey, Qt::AscendingOrder);
    setsView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    setsView_->verticalHeader()->setVisible(false);
    setsView_->verticalHeader()->setDefaultSectionSize(setsView_->fontMetrics().height() + 6);
    setsView_->horizontalHeader()->setStretchLastSection(true);
    setsView_->setColumnWidth(ProblemSetListModel::ColKey, 230);
    setsView_->setColumnWidth(ProblemSetListModel::ColDirection, 80);
    setsView_->setColumnWidth(ProblemSetListModel::ColCount, 70);
    setsView_->setToolTip(tr("Problem sets of the registry (problems/<key>.json in %1). Check "
                             "sets to list their problems.")
                              .arg(userProblemsDir()));

    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(problems_);
    proxy_->setSortRole(ProblemTableModel::SortRole);
    view_ = new QTableView(split);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view_->horizontalHeader()->setDefaultSectionSize(56);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setAlternatingRowColors(true);
    view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                           QAbstractItemView::AnyKeyPressed);
    view_->setItemDelegateForColumn(ProblemTableModel::ColDirection, new DirectionDelegate(view_));
    view_->setColumnWidth(ProblemTableModel::ColSet, 110);
    view_->setColumnWidth(ProblemTableModel::ColDirection, 80);
    view_->setColumnWidth(ProblemTableModel::ColLayer, 200);
    view_->setColumnWidth(ProblemTableModel::ColGflop, 80);
    view_->setColumnWidth(ProblemTableModel::ColMinMB, 80);
    view_->setColumnWidth(ProblemTableModel::ColIntensity, 70);
    for (int c :
         {ProblemTableModel::ColGemmM, ProblemTableModel::ColGemmN, ProblemTableModel::ColGemmK})
        view_->setColumnWidth(c, 80);
    split->addWidget(setsView_);
    split->addWidget(view_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);

    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    outer->addWidget(status_);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ProblemsPage::showCurrentRowStatus);
}

QString ProblemsPage::userProblemsDir() {
    const auto dir = ProblemRegistry::user_problems_dir();
    return dir.empty() ? QDir::homePath() : QString::fromStdString(dir.string());
}

QStringList ProblemsPage::selectedKeys() const {
    return sets_->checkedKeys();
}

void ProblemsPage::setSelectedKeys(const QStringList& keys) {
    for (const auto& key : sets_->keys()) sets_->setChecked(key, keys.contains(key));
}

bool ProblemsPage::isLoading() const {
    return sets_->isLoading();
}

QString ProblemsPage::statusText() const {
    return status_->text();
}

void ProblemsPage::setDtype(DataType dtype) {
    dtypeBox_->setCurrentText(QString::fromUtf8(to_string(dtype).data()));
}

void ProblemsPage::onCheckedKeysChanged(const QStringList& keys) {
    syncRows();
    emit selectionChanged(keys);
}

void ProblemsPage::syncRows() {
    const QStringList checked = sets_->checkedKeys();
    for (const auto& key : QStringList(shownKeys_))
        if (!checked.contains(key)) {
            problems_->removeSet(key);
            shownKeys_.removeAll(key);
        }
    for (const auto& key : checked) {
        if (shownKeys_.contains(key)) continue;
        const auto set = sets_->set(key);
        if (!set) {
            if (!sets_->loadError(key).isEmpty()) showStatus(sets_->loadError(key), true);
            continue; // shown when it has been read
        }
        std::vector<ProblemTableModel::Row> rows;
        rows.reserve(set->problems.size());
        for (const auto& p : set->problems) rows.push_back({p, set->direction, key});
        problems_->appendRows(std::move(rows));
        shownKeys_ << key;
    }
}

void ProblemsPage::addRow() {
    ProblemTableModel::Row row;
    const QModelIndex current = proxy_->mapToSource(view_->currentIndex());
    if (current.isValid()) {
        row = problems_->rows()[std::size_t(current.row())];
    } else if (problems_->rowCount() > 0) {
        row = problems_->rows().back();
    } else {
        row.problem.N = 1;
        row.problem.C = row.problem.K = 64;
        row.problem.Hi = row.problem.Wi = 56;
        row.problem.Y = row.problem.X = 3;
        row.problem.pad_h = row.problem.pad_w = 1;
    }
    row.set.clear();
    row.problem.layer.clear();
    // A copy would duplicate its source: make it a new shape the user then edits.
    const auto& rows = problems_->rows();
    auto taken = [&](const Problem& p) {
        return std::any_of(rows.begin(), rows.end(),
                           [&](const auto& r) { return r.problem.key() == p.key(); });
    };
    while (taken(row.problem)) ++row.problem.N;
    problems_->appendRows({row});
    const QModelIndex added =
        proxy_->mapFromSource(problems_->index(problems_->rowCount() - 1, ProblemTableModel::ColN));
    view_->setCurrentIndex(added);
    view_->scrollTo(added);
    showStatus(tr("Added row %1 (N raised to keep the shape unique); edit its sizes in place.")
                   .arg(problems_->rowCount()),
               false);
}

void ProblemsPage::deleteSelectedRows() {
    QList<int> rows;
    for (const auto& index : view_->selectionModel()->selectedRows())
        rows << proxy_->mapToSource(index).row();
    std::sort(rows.begin(), rows.end(), std::greater<int>());
    for (int r : rows) problems_->removeRows(r, 1);
    if (!rows.isEmpty()) showStatus(tr("Deleted %1 rows.").arg(rows.size()), false);
}

bool ProblemsPage::saveSetAs(const QString& path, const QString& key) {
    const QString stem = QFileInfo(path).completeBaseName();
    const QString setKey = key.isEmpty() ? stem : key;
    static const QRegularExpression keyPattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]*$"));
    if (!keyPattern.match(setKey).hasMatch()) {
        showStatus(tr("Not saved: the key '%1' must start with a letter or digit and hold only "
                      "letters, digits, '_', '.', '-'")
                       .arg(setKey),
                   true);
        return false;
    }
    if (setKey != stem) {
        showStatus(tr("Not saved: the key '%1' differs from the file name '%2'; the registry "
                      "finds a set by its file name")
                       .arg(setKey, QFileInfo(path).fileName()),
                   true);
        return false;
    }
    const ProblemRegistry registry(sets_->searchDirs());
    if (registry.contains(setKey.toStdString())) {
        const auto existing = registry.path_of(setKey.toStdString());
        std::error_code ec;
        if (!std::filesystem::equivalent(existing, path.toStdString(), ec)) {
            showStatus(tr("Not saved: the key '%1' is already the set %2; choose another key")
                           .arg(setKey, QString::fromStdString(existing.string())),
                       true);
            return false;
        }
    }
    ProblemSet set;
    QString why;
    if (!problems_->toProblemSet(setKey.toStdString(), set, why)) {
        showStatus(tr("Not saved:\n") + why, true);
        return false;
    }
    const QStringList sources = [&] {
        QStringList keys;
        for (const auto& r : problems_->rows())
            if (!r.set.isEmpty() && !keys.contains(r.set)) keys << r.set;
        return keys;
    }();
    set.description =
        (tr("%1 problems saved from gconv-explorer").arg(set.problems.size()) +
         (sources.isEmpty() ? QString() : tr(" (from %1)").arg(sources.join(QStringLiteral(", ")))))
            .toStdString();
    set.generator = "gconv-explorer";
    try {
        write_problem_set(path.toStdString(), set);
    } catch (const std::exception& e) {
        showStatus(tr("Not saved: %1").arg(QString::fromStdString(e.what())), true);
        return false;
    }
    showStatus(tr("Saved %1 problems as set '%2' (%3)").arg(set.problems.size()).arg(setKey, path),
               false);
    sets_->refresh();
    return true;
}

bool ProblemsPage::saveSetWithDialog() {
    const QString dir = userProblemsDir();
    QDir().mkpath(dir);
    const QString path = QFileDialog::getSaveFileName(this, tr("Save problems as a set"),
                                                      dir + QStringLiteral("/my_problems.json"),
                                                      tr("Problem sets (*.json)"));
    if (path.isEmpty()) return false;
    return saveSetAs(QFileInfo(path).suffix().isEmpty() ? path + QStringLiteral(".json") : path,
                     {});
}

void ProblemsPage::showStatus(const QString& text, bool error) {
    status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }") : QString());
    status_->setText(text);
}

void ProblemsPage::showCurrentRowStatus() {
    const QModelIndex current = proxy_->mapToSource(view_->currentIndex());
    if (!current.isValid()) return;
    const QStringList errors = problems_->rowErrors(current.row());
    if (!errors.isEmpty())
        showStatus(tr("Row %1 is not a valid problem: %2")
                       .arg(current.row() + 1)
                       .arg(errors.join(QStringLiteral("; "))),
                   true);
}

} // namespace gconv::ui
