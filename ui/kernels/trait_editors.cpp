#include "ui/kernels/trait_editors.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace gconv::ui {
namespace {

QString valueLabel(const Json& value) {
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    return QString::fromStdString(value.dump());
}

QStringList splitItems(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

// A positive integer the reader accepts (1..65536), or -1.
long long parsePositive(const QString& text) {
    bool ok = false;
    const long long value = text.toLongLong(&ok);
    return ok && value >= 1 && value <= 65536 ? value : -1;
}

// "2x2x1" -> [2, 2, 1]; null when the text is not a triple.
Json parseTriple(const QString& text) {
    const QStringList parts = text.split(QRegularExpression(QStringLiteral("[x\u00d7*]")));
    if (parts.size() != 3) return nullptr;
    Json triple = Json::array();
    for (const auto& part : parts) {
        const long long v = parsePositive(part.trimmed());
        if (v < 0) return nullptr;
        triple.push_back(v);
    }
    return triple;
}

QString tripleText(const Json& triple) {
    if (!triple.is_array()) return {};
    QStringList parts;
    for (const auto& v : triple) parts << valueLabel(v);
    return parts.join(QLatin1Char('x'));
}

} // namespace

TraitEditor::TraitEditor(QStringList keys, QWidget* parent)
    : QWidget(parent), keys_(std::move(keys)), keyInUse_(keys_.value(0)) {}

void TraitEditor::load(const Json& traits) {
    keyInUse_ = keys_.value(0);
    Json values = Json::array();
    for (const auto& key : keys_) {
        const std::string name = key.toStdString();
        if (!traits.is_object() || !traits.contains(name)) continue;
        keyInUse_ = key;
        const Json& entry = traits.at(name);
        if (entry.is_object() && entry.contains("values") && entry.at("values").is_array())
            values = entry.at("values");
        break;
    }
    const QSignalBlocker blocker(this);
    setValues(values);
}

void TraitEditor::store(Json& traits) const {
    if (!traits.is_object()) traits = Json::object();
    const Json current = values();
    std::string present;
    for (const auto& key : keys_)
        if (traits.contains(key.toStdString())) {
            present = key.toStdString();
            break;
        }
    if (current.empty()) {
        if (!present.empty()) traits.erase(present);
        return;
    }
    if (present.empty()) {
        traits[keyInUse_.toStdString()] = Json{{"values", current}};
    } else {
        Json& entry = traits[present];
        if (!entry.is_object()) entry = Json::object();
        entry["values"] = current;
    }
}

// ---------------------------------------------------------------------------------------------

CheckableValueList::CheckableValueList(QStringList keys, std::vector<Choice> choices,
                                       QWidget* parent)
    : TraitEditor(std::move(keys), parent) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setHorizontalSpacing(12);
    grid_->setVerticalSpacing(2);
    hint_ = new QLabel(this);
    hint_->setEnabled(false);
    for (const auto& c : choices) addBox(c.value, c.toolTip, false);
    fixedCount_ = int(boxes_.size());
    updateHint();
}

QCheckBox* CheckableValueList::addBox(const Json& value, const QString& toolTip, bool extra) {
    auto* box = new QCheckBox(valueLabel(value), this);
    box->setToolTip(extra ? tr("Not one of the usual values; the rules decide whether it is "
                               "legal.")
                          : toolTip);
    if (extra) box->setStyleSheet(QStringLiteral("QCheckBox { font-style: italic; }"));
    const int index = int(boxes_.size());
    constexpr int k_columns = 4;
    grid_->addWidget(box, index / k_columns, index % k_columns);
    grid_->removeWidget(hint_);
    grid_->addWidget(hint_, (index + 1) / k_columns, (index + 1) % k_columns);
    boxes_.emplace_back(value, box);
    connect(box, &QCheckBox::toggled, this, [this, value](bool on) { onToggled(value, on); });
    return box;
}

void CheckableValueList::setDefaultHint(const QString& hint) {
    hint_->setText(hint);
    updateHint();
}

void CheckableValueList::updateHint() {
    hint_->setVisible(order_.empty() && !hint_->text().isEmpty());
}

bool CheckableValueList::isChecked(const Json& value) const {
    return std::find(order_.begin(), order_.end(), value) != order_.end();
}

bool CheckableValueList::setChecked(const Json& value, bool checked) {
    for (auto& [v, box] : boxes_)
        if (v == value) {
            box->setChecked(checked); // toggled() updates order_ and emits edited()
            return true;
        }
    return false;
}

void CheckableValueList::onToggled(const Json& value, bool checked) {
    const auto it = std::find(order_.begin(), order_.end(), value);
    if (checked && it == order_.end()) order_.push_back(value);
    if (!checked && it != order_.end()) order_.erase(it);
    updateHint();
    emit edited();
}

void CheckableValueList::setValues(const Json& values) {
    // Drop the extra boxes of the previous document.
    while (int(boxes_.size()) > fixedCount_) {
        delete boxes_.back().second;
        boxes_.pop_back();
    }
    order_.clear();
    for (const auto& v : values)
        if (std::find(order_.begin(), order_.end(), v) == order_.end()) order_.push_back(v);
    for (const auto& v : order_) {
        const bool known = std::any_of(boxes_.begin(), boxes_.end(),
                                       [&](const auto& entry) { return entry.first == v; });
        if (!known) addBox(v, {}, true);
    }
    for (auto& [v, box] : boxes_) {
        const QSignalBlocker blocker(box);
        box->setChecked(isChecked(v));
    }
    updateHint();
}

// ---------------------------------------------------------------------------------------------

NumberListEdit::NumberListEdit(QStringList keys, Shape shape, QWidget* parent)
    : TraitEditor(std::move(keys), parent), shape_(shape) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    edit_ = new QLineEdit(this);
    edit_->setClearButtonEnabled(true);
    const QString pattern = shape == Shape::Integer ? QStringLiteral("[0-9,;\\s]*")
                                                    : QStringLiteral("[0-9x\u00d7*,;\\s]*");
    edit_->setValidator(new QRegularExpressionValidator(QRegularExpression(pattern), edit_));
    edit_->setToolTip(shape == Shape::Integer
                          ? tr("Integers separated by commas or spaces, e.g. 1, 2, 4")
                          : tr("Triples m x n x k separated by commas, e.g. 2x2x1, 1x4x1"));
    layout->addWidget(edit_);
    connect(edit_, &QLineEdit::textEdited, this, [this] {
        markBadItems();
        emit edited();
    });
}

Json NumberListEdit::values() const {
    Json out = Json::array();
    for (const auto& item : splitItems(edit_->text())) {
        if (shape_ == Shape::Integer) {
            const long long v = parsePositive(item);
            if (v > 0) out.push_back(v);
        } else if (Json t = parseTriple(item); !t.is_null()) {
            out.push_back(std::move(t));
        }
    }
    return out;
}

QStringList NumberListEdit::badItems() const {
    QStringList bad;
    for (const auto& item : splitItems(edit_->text()))
        if (shape_ == Shape::Integer ? parsePositive(item) < 0 : parseTriple(item).is_null())
            bad << item;
    return bad;
}

void NumberListEdit::markBadItems() {
    const QStringList bad = badItems();
    edit_->setStyleSheet(bad.isEmpty() ? QString()
                                       : QStringLiteral("QLineEdit { background: #fde2e2; }"));
    edit_->setToolTip(bad.isEmpty()
                          ? QString()
                          : tr("Ignored (not %1): %2")
                                .arg(shape_ == Shape::Integer ? tr("an integer from 1 to 65536")
                                                              : tr("a triple m x n x k"),
                                     bad.join(QStringLiteral(", "))));
}

void NumberListEdit::setValues(const Json& values) {
    QStringList items;
    for (const auto& v : values)
        items << (shape_ == Shape::Integer ? valueLabel(v) : tripleText(v));
    edit_->setText(items.join(QStringLiteral(", ")));
    markBadItems();
}

// ---------------------------------------------------------------------------------------------

namespace {
enum TileColumn { ColM, ColN, ColK, ColWave, ColWarp, TileColumns };
}

TileTableEditor::TileTableEditor(QWidget* parent) : TraitEditor({QStringLiteral("tile")}, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    table_ = new QTableWidget(0, TileColumns, this);
    table_->setHorizontalHeaderLabels(
        {tr("m"), tr("n"), tr("k"), tr("wave (opt.)"), tr("warp tile (opt.)")});
    table_->horizontalHeaderItem(ColWave)->setToolTip(
        tr("Warps per block m x n x k for this tile only; then every tile must give one and "
           "wave_layout must not be set"));
    table_->horizontalHeaderItem(ColWarp)->setToolTip(
        tr("Per-warp MMA tile m x n x k for this tile only; then every tile must give one and "
           "warp_tile must not be set"));
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setMinimumHeight(table_->fontMetrics().height() * 8);
    table_->setToolTip(tr("Block tiles (GEMM M x N x K per block). Double-click a cell to edit."));
    layout->addWidget(table_);

    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add tile"), this);
    auto* remove = new QPushButton(tr("Remove selected"), this);
    add->setToolTip(tr("Append a 64 x 64 x 32 tile to edit"));
    remove->setToolTip(tr("Remove the selected tiles (Delete)"));
    remove->setShortcut(QKeySequence::Delete);
    hint_ = new QLabel(this);
    hint_->setEnabled(false);
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(hint_, 1);
    layout->addLayout(buttons);

    connect(add, &QPushButton::clicked, this, [this] { addTile(64, 64, 32); });
    connect(remove, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const auto& index : table_->selectionModel()->selectedRows()) rows << index.row();
        removeRows(rows);
    });
    connect(table_, &QTableWidget::cellChanged, this, &TileTableEditor::onCellChanged);
}

void TileTableEditor::setDefaultHint(const QString& hint) {
    hint_->setText(hint);
    hint_->setVisible(table_->rowCount() == 0);
}

void TileTableEditor::setRow(int row, const Json& record) {
    auto cell = [&](int column, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, column, item);
    };
    if (record.is_array()) {
        for (int c = 0; c < 3; ++c) cell(c, valueLabel(record.at(c)));
        cell(ColWave, {});
        cell(ColWarp, {});
        return;
    }
    cell(ColM, valueLabel(record.value("m", Json())));
    cell(ColN, valueLabel(record.value("n", Json())));
    cell(ColK, valueLabel(record.value("k", Json())));
    cell(ColWave, tripleText(record.value("wave", Json())));
    cell(ColWarp, tripleText(record.value("warp_tile", Json())));
}

void TileTableEditor::setValues(const Json& values) {
    const QSignalBlocker blocker(table_);
    arrays_ = !values.empty() &&
              std::all_of(values.begin(), values.end(), [](const Json& v) { return v.is_array(); });
    table_->setRowCount(int(values.size()));
    for (int r = 0; r < int(values.size()); ++r) setRow(r, values[r]);
    hint_->setVisible(values.empty());
    onCellChanged(); // colours only: signals of this editor are blocked by load()
}

void TileTableEditor::addTile(int m, int n, int k) {
    const int row = table_->rowCount();
    {
        const QSignalBlocker blocker(table_);
        table_->insertRow(row);
        setRow(row, arrays_ ? Json::array({m, n, k}) : Json{{"m", m}, {"n", n}, {"k", k}});
        // A new row takes the optional columns of the row above, so the records stay alike.
        if (row > 0)
            for (int c : {ColWave, ColWarp})
                table_->item(row, c)->setText(table_->item(row - 1, c)->text());
    }
    table_->setCurrentCell(row, ColM);
    hint_->setVisible(false);
    onCellChanged();
}

void TileTableEditor::removeRows(const QList<int>& rows) {
    if (rows.isEmpty()) return;
    QList<int> sorted = rows;
    std::sort(sorted.begin(), sorted.end(), std::greater<int>());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    {
        const QSignalBlocker blocker(table_);
        for (int r : sorted) table_->removeRow(r);
    }
    hint_->setVisible(table_->rowCount() == 0);
    onCellChanged();
}

void TileTableEditor::onCellChanged() {
    // Mark cells that do not parse; values() leaves their rows out.
    const QSignalBlocker blocker(table_);
    for (int r = 0; r < table_->rowCount(); ++r)
        for (int c = 0; c < TileColumns; ++c) {
            QTableWidgetItem* item = table_->item(r, c);
            if (!item) continue;
            const QString text = item->text().trimmed();
            const bool ok = c < ColWave ? parsePositive(text) > 0
                                        : text.isEmpty() || !parseTriple(text).is_null();
            item->setBackground(ok ? QBrush() : QBrush(QColor(0xfd, 0xe2, 0xe2)));
            item->setToolTip(ok ? QString()
                                : (c < ColWave ? tr("expected an integer from 1 to 65536; "
                                                    "this tile is left out")
                                               : tr("expected m x n x k, e.g. 2x2x1; this tile "
                                                    "is left out")));
        }
    emit edited();
}

Json TileTableEditor::values() const {
    Json out = Json::array();
    for (int r = 0; r < table_->rowCount(); ++r) {
        auto text = [&](int c) {
            const QTableWidgetItem* item = table_->item(r, c);
            return item ? item->text().trimmed() : QString();
        };
        const long long m = parsePositive(text(ColM)), n = parsePositive(text(ColN)),
                        k = parsePositive(text(ColK));
        if (m < 0 || n < 0 || k < 0) continue;
        const Json wave = text(ColWave).isEmpty() ? Json() : parseTriple(text(ColWave));
        const Json warp = text(ColWarp).isEmpty() ? Json() : parseTriple(text(ColWarp));
        if ((!text(ColWave).isEmpty() && wave.is_null()) ||
            (!text(ColWarp).isEmpty() && warp.is_null()))
            continue;
        if (arrays_ && wave.is_null() && warp.is_null()) {
            out.push_back(Json::array({m, n, k}));
            continue;
        }
        Json record{{"m", m}, {"n", n}, {"k", k}};
        if (!wave.is_null()) record["wave"] = wave;
        if (!warp.is_null()) record["warp_tile"] = warp;
        out.push_back(std::move(record));
    }
    return out;
}

} // namespace gconv::ui
