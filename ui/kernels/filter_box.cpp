#include "ui/kernels/filter_box.h"

#include "filter/filter_error.h"
#include "filter/filter_expression.h"

#include <QFontDatabase>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QVBoxLayout>

namespace gconv::ui {

FilterBox::FilterBox(const FieldSchema& schema, QWidget* parent)
    : QWidget(parent), schema_(schema) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    edit_ = new QLineEdit(this);
    edit_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    edit_->setClearButtonEnabled(true);
    edit_->setPlaceholderText(tr("filter, e.g.  c.tile_n >= 128 and c.pipeline == 'compv4'"));
    edit_->setToolTip(
        tr("<p>A condition over each configuration (docs/filter-language.md): <code>c.&lt;field&gt;"
           "</code> or the bare field name, <code>c.name</code> for the kernel's name; "
           "<code>and or not in == != &lt; &lt;= &gt; &gt;= + - * / %</code>.</p>"
           "<p>Fields: %1</p>")
            .arg(QString::fromStdString(schema.known_names()).toHtmlEscaped()));
    help_ = edit_->toolTip();
    layout->addWidget(edit_);
    // The reason wraps; the expression and its caret must not (the caret would move).
    error_ = new QLabel(this);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    error_->setWordWrap(true);
    error_->setTextFormat(Qt::PlainText);
    error_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    error_->hide();
    layout->addWidget(error_);
    caret_ = new QLabel(this);
    caret_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    caret_->setTextFormat(Qt::PlainText);
    caret_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    caret_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    caret_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    caret_->hide();
    layout->addWidget(caret_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(150);
    connect(debounce_, &QTimer::timeout, this, [this] { emit filterChanged(validText_); });
    connect(edit_, &QLineEdit::textChanged, this, &FilterBox::check);
}

QString FilterBox::text() const {
    return edit_->text();
}

void FilterBox::setText(const QString& text) {
    edit_->setText(text);
}

bool FilterBox::isPending() const {
    return debounce_->isActive();
}

void FilterBox::check() {
    const std::string text = edit_->text().toStdString();
    try {
        FilterExpression expression = FilterExpression::parse(text);
        expression.bind(schema_);
    } catch (const FilterError& e) {
        showError(QString::fromStdString(e.reason), QString::fromStdString(e.expression), e.column);
        return;
    }
    clearError();
    validText_ = edit_->text();
    debounce_->start();
}

void FilterBox::showError(const QString& reason, const QString& expression, int column) {
    errorReason_ = reason;
    errorColumn_ = column;
    // The column is a byte offset into the UTF-8 text: place the caret under that character.
    QString caret;
    if (column >= 0) {
        const QByteArray utf8 = expression.toUtf8().left(column);
        caret = QString(QString::fromUtf8(utf8).size(), QLatin1Char(' ')) + QLatin1Char('^');
    }
    QString shown = reason;
    if (column >= 0) shown += QLatin1Char('\n') + expression + QLatin1Char('\n') + caret;
    error_->setText(reason);
    error_->show();
    caret_->setText(expression + QLatin1Char('\n') + caret);
    caret_->setVisible(column >= 0);
    edit_->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    edit_->setToolTip(shown);
}

void FilterBox::clearError() {
    errorReason_.clear();
    errorColumn_ = -1;
    error_->hide();
    caret_->hide();
    edit_->setStyleSheet({});
    edit_->setToolTip(help_);
}

} // namespace gconv::ui
