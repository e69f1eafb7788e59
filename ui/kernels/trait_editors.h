#pragma once
// Editors for single traits of a trait config. Each editor owns one trait_config key (and its
// synonyms, e.g. scheduler / wave_mode): it reads that key's allow-list from the document and
// writes it back, keeping the name and any "description" the document gave the entry. An
// editor with nothing selected removes its key, so the reader's default applies.
#include <nlohmann/json.hpp>

#include <QLineEdit>
#include <QStringList>
#include <QWidget>

#include <vector>

class QCheckBox;
class QGridLayout;
class QLabel;
class QTableWidget;

namespace gconv::ui {

using Json = nlohmann::ordered_json;

class TraitEditor : public QWidget {
    Q_OBJECT
public:
    // keys: the canonical name first, then synonyms.
    TraitEditor(QStringList keys, QWidget* parent = nullptr);

    const QStringList& keys() const { return keys_; }
    // The name the document uses for this trait (a synonym if it used one).
    QString keyInUse() const { return keyInUse_; }

    // Reads the values of this trait from a trait_config object; emits nothing.
    void load(const Json& traits);
    // Writes the values into a trait_config object (or removes the key when there are none).
    void store(Json& traits) const;

    // The allow-list as the editor holds it now (an empty array when nothing is chosen).
    virtual Json values() const = 0;
    // Text shown when nothing is chosen ("default: compv3").
    virtual void setDefaultHint(const QString& hint) = 0;

signals:
    void edited();

protected:
    virtual void setValues(const Json& values) = 0;

private:
    QStringList keys_;
    QString keyInUse_;
};

// A fixed set of values (enum names, booleans, small integers) as check boxes. The order of
// the checked values is kept: loading keeps the document's order, checking appends.
// Values the document holds outside the set get their own (extra) box.
class CheckableValueList : public TraitEditor {
    Q_OBJECT
public:
    struct Choice {
        Json value;
        QString toolTip;
    };
    CheckableValueList(QStringList keys, std::vector<Choice> choices, QWidget* parent = nullptr);

    Json values() const override { return Json(order_); }
    void setDefaultHint(const QString& hint) override;

    bool isChecked(const Json& value) const;
    // As a user click would: emits edited() when the state changes. False for an unknown value.
    bool setChecked(const Json& value, bool checked);

protected:
    void setValues(const Json& values) override;

private:
    QCheckBox* addBox(const Json& value, const QString& toolTip, bool extra);
    void onToggled(const Json& value, bool checked);
    void updateHint();

    QGridLayout* grid_;
    QLabel* hint_;
    std::vector<std::pair<Json, QCheckBox*>> boxes_;
    std::vector<Json> order_;
    int fixedCount_ = 0;
};

// Integers ("1, 2, 4") or integer triples ("2x2x1, 1x4x1") typed as a list.
class NumberListEdit : public TraitEditor {
    Q_OBJECT
public:
    enum class Shape { Integer, Triple };
    NumberListEdit(QStringList keys, Shape shape, QWidget* parent = nullptr);

    Json values() const override;
    void setDefaultHint(const QString& hint) override { edit_->setPlaceholderText(hint); }
    QLineEdit* lineEdit() const { return edit_; }
    // Items of the text that are not a number (or triple); empty when all parse.
    QStringList badItems() const;

protected:
    void setValues(const Json& values) override;

private:
    void markBadItems();

    Shape shape_;
    QLineEdit* edit_;
};

// The "tile" trait: block tiles as records {"m", "n", "k"[, "wave"][, "warp_tile"]} in a table
// with add/remove; [m, n, k] arrays when the document wrote them so (and no row has a wave
// or warp tile).
class TileTableEditor : public TraitEditor {
    Q_OBJECT
public:
    explicit TileTableEditor(QWidget* parent = nullptr);

    Json values() const override;
    void setDefaultHint(const QString& hint) override;
    QTableWidget* table() const { return table_; }
    // Appends a row (as the Add button does) and emits edited().
    void addTile(int m, int n, int k);
    void removeRows(const QList<int>& rows);

protected:
    void setValues(const Json& values) override;

private:
    void onCellChanged();
    void setRow(int row, const Json& record);

    QTableWidget* table_;
    QLabel* hint_;
    bool arrays_ = false;
};

} // namespace gconv::ui
