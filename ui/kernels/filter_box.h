#pragma once
// The filter-expression box over kernel configurations (docs/filter-language.md, fields
// `c.<field>` and `c.name`). Each keystroke is parsed and bound at once (cheap) so an error
// shows immediately, with a caret under the column at fault; a valid text is announced after
// a short pause, so the list is not refiltered on every key.
#include "filter/field_schema.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;

namespace gconv::ui {

class FilterBox : public QWidget {
    Q_OBJECT
public:
    FilterBox(const FieldSchema& schema, QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text); // as if typed; the announcement is still debounced
    // The last text that parsed and bound (what the list shows).
    QString validText() const { return validText_; }
    bool hasError() const { return !errorReason_.isEmpty(); }
    QString errorText() const { return errorReason_; }
    // 0-based column of the caret in the expression; -1 without error or caret.
    int errorColumn() const { return errorColumn_; }
    // An error found later (evaluating the filter over the pool).
    void showError(const QString& reason, const QString& expression, int column);
    QLineEdit* lineEdit() const { return edit_; }
    bool isPending() const;

signals:
    // A new valid filter text, after the debounce.
    void filterChanged(const QString& text);

private:
    void check();
    void clearError();

    const FieldSchema& schema_;
    QLineEdit* edit_;
    QLabel* error_;
    QLabel* caret_;
    QTimer* debounce_;
    QString help_;
    QString validText_;
    QString errorReason_;
    int errorColumn_ = -1;
};

} // namespace gconv::ui
