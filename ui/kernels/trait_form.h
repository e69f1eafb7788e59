#pragma once
// The form of the Kernels page: one editor per trait of the trait-config schema (every key the
// core reader accepts), plus the variant and the description. It edits a JSON document: it
// keeps what it was given (key names, key order, per-entry descriptions) and writes its
// editors' values over it, so JSON -> form -> JSON gives the same document back.
#include "ui/kernels/trait_editors.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QFormLayout;
class QLineEdit;

namespace gconv::ui {

class TraitForm : public QWidget {
    Q_OBJECT
public:
    explicit TraitForm(QWidget* parent = nullptr);

    // Shows a document (it must be one the core reader accepts); emits nothing.
    void setDocument(const Json& document);
    // The document as the form holds it now.
    Json document() const;

    // The editor of a trait key or synonym ("pipeline", "wave_mode", ...), else null.
    TraitEditor* editor(const QString& key) const;
    const std::vector<TraitEditor*>& editors() const { return editors_; }
    QComboBox* variantBox() const { return variant_; }
    QLineEdit* descriptionEdit() const { return description_; }
    QLineEdit* whereEdit() const { return where_; }

signals:
    // A user edit (not setDocument()).
    void edited();

private:
    void addEditor(QFormLayout* layout, TraitEditor* editor, const QString& label = {});

    Json base_;
    QComboBox* variant_;
    QLineEdit* description_;
    QLineEdit* where_;
    std::vector<TraitEditor*> editors_;
};

} // namespace gconv::ui
