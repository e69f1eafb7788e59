#include "ui/kernels/trait_form.h"

#include "config/config_fields.h"
#include "config/enums.h"
#include "config/kernel_config.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QVBoxLayout>

#include <map>

namespace gconv::ui {
namespace {

using Choice = CheckableValueList::Choice;

const std::map<std::string, QString>& valueToolTips() {
    static const std::map<std::string, QString> tips = {
        {"basic_v1", "global -> shared -> MMA, no prefetch"},
        {"mem", "several global prefetch stages (about 32 KB in flight per block): memory-bound "
                "shapes"},
        {"compv3", "two-stage prefetch through registers, one shared buffer"},
        {"compv4", "ping-pong over two shared buffers (needs double_smem_buffer)"},
        {"compv5", "warp-specialised ping-pong: two warp groups alternate memory and compute"},
        {"compv6", "three prefetch stages"},
        {"comp_async", "asynchronous global -> shared copies into two buffers"},
        {"direct_mma", "tensor-core direct convolution for small groups: halo tile in shared "
                       "memory, mma.sync per group (every direction, 2D and 3D, NVIDIA)"},
        {"direct_wgmma", "wgmma direct convolution for dense C 16-64 (forward, 2D, sm_90a): every "
                         "tap a shifted start into one staged input band, rows of tile_m pixels"},
        {"intrawave", "each warp runs its K loop on its own: compute-bound work"},
        {"interwave", "warps in step per K chunk (only with basic_v1 and mem): memory-bound work"},
        {"cshuffle", "C tile staged through shared memory, stored with wide vectors"},
        {"direct", "each thread stores its accumulators directly"},
        {"none", "no split-K reduction"},
        {"atomic", "split-K slices added with fp32 atomics into the output"},
        {"2stage", "split-K into an fp32 workspace, then a convert kernel"},
    };
    return tips;
}

std::vector<Choice> enumChoices(const char* field) {
    std::vector<Choice> choices;
    for (const auto& name : find_config_field(field)->allowed) {
        auto it = valueToolTips().find(name);
        choices.push_back({Json(name), it == valueToolTips().end() ? QString() : it->second});
    }
    return choices;
}

std::vector<Choice> boolChoices() {
    return {{Json(false), {}}, {Json(true), {}}};
}

std::vector<Choice> intChoices(std::initializer_list<int> values) {
    std::vector<Choice> choices;
    for (int v : values) choices.push_back({Json(v), {}});
    return choices;
}

// The default a missing key takes (docs/trait-config.md); fields the reader derives say how.
QString defaultHint(const QString& key) {
    static const std::map<QString, QString> hints = {
        {"tile", "default: CK's 10 common tiles (16x64x64 ... 128x64x128)"},
        {"tile_m", "instead of tile: give all three"},
        {"tile_n", "instead of tile: give all three"},
        {"tile_k", "instead of tile: give all three"},
        {"wave_layout", "default: 2x2x1, 1x4x1, 4x1x1"},
        {"wave_m", "instead of wave_layout"},
        {"wave_n", "instead of wave_layout"},
        {"wave_k", "instead of wave_layout"},
        {"warp_tile", "derived: 32x32x16 for bf16/fp16, 32x32x4 for fp32"},
        {"warp_tile_m", "instead of warp_tile"},
        {"warp_tile_n", "instead of warp_tile"},
        {"warp_tile_k", "instead of warp_tile"},
        {"vector_size_a", "derived: 16 bytes of the dtype"},
        {"vector_size_b", "derived: 16 bytes of the dtype"},
        {"vector_size_c", "derived: 16 bytes of the dtype"},
        {"num_wave_groups", "derived: 2 for compv5, else 1"},
        {"double_smem_buffer", "derived: true for compv4 and compv5"},
        {"split_k_mode", "derived: atomic when split_k > 1, else none"},
        {"two_stage", "true = split_k_mode 2stage, false = atomic"},
        {"data_type", "default: bf16"},
        {"ndim_spatial", "default: 2"},
        {"pipeline", "default: compv3"},
        {"scheduler", "default: intrawave"},
    };
    if (auto it = hints.find(key); it != hints.end()) return it->second;
    // Keys without a reader default take the field's own default.
    if (const ConfigField* field = find_config_field(key.toStdString()))
        return QStringLiteral("default: ") +
               QString::fromStdString(field_value_to_string(field->get(KernelConfig{})));
    return {};
}

QString keyToolTip(const TraitEditor* editor) {
    QString tip;
    for (const auto& key : editor->keys()) {
        if (const ConfigField* field = find_config_field(key.toStdString())) {
            tip = QString::fromUtf8(field->doc.data(), int(field->doc.size()));
            break;
        }
    }
    if (editor->keys().front() == "tile") tip = "block tiles: GEMM M x N x K per block";
    if (editor->keys().front() == "wave_layout") tip = "warps per block along M, N, K";
    if (editor->keys().front() == "warp_tile") tip = "per-warp MMA tile M x N x K";
    if (editor->keys().front() == "two_stage") tip = "CK's flag for the 2stage split-K mode";
    tip = QStringLiteral("<b>%1</b>").arg(editor->keys().join(QStringLiteral(" / "))) +
          (tip.isEmpty() ? QString() : QStringLiteral(": ") + tip.toHtmlEscaped()) +
          QStringLiteral("<br>") + defaultHint(editor->keys().front()).toHtmlEscaped() +
          QStringLiteral("<br>Nothing chosen: the key is left out and the default applies.");
    return tip;
}

QGroupBox* section(QVBoxLayout* outer, const QString& title, QFormLayout** form) {
    auto* box = new QGroupBox(title);
    *form = new QFormLayout(box);
    (*form)->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    (*form)->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    (*form)->setVerticalSpacing(4);
    outer->addWidget(box);
    return box;
}

} // namespace

TraitForm::TraitForm(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    QFormLayout* form = nullptr;
    using Shape = NumberListEdit::Shape;
    auto numbers = [](const QString& key, Shape shape) { return new NumberListEdit({key}, shape); };

    section(outer, tr("Signature"), &form);
    variant_ = new QComboBox;
    for (const auto& name : enum_names<Variant>()) variant_->addItem(QString::fromStdString(name));
    variant_->setToolTip(tr("Direction of the kernels: forward, bwd_data or bwd_weight"));
    form->addRow(tr("variant"), variant_);
    description_ = new QLineEdit;
    description_->setPlaceholderText(tr("optional text"));
    description_->setClearButtonEnabled(true);
    form->addRow(tr("description"), description_);
    where_ = new QLineEdit;
    where_->setPlaceholderText(tr("every configuration of the product"));
    where_->setClearButtonEnabled(true);
    where_->setToolTip(tr("A filter in the --filter language (for example c.vector_size_a == "
                          "c.vector_size_b): the pool keeps the configurations of the product "
                          "that pass it; the others are culled with the reason \"where\""));
    form->addRow(tr("where"), where_);
    addEditor(form, new CheckableValueList({"data_type", "dtype"}, enumChoices("dtype")));
    addEditor(form, new CheckableValueList({"ndim_spatial"}, intChoices({2, 3})));
    addEditor(form, new CheckableValueList({"layout"}, enumChoices("layout")));

    section(outer, tr("Main loop"), &form);
    addEditor(form, new CheckableValueList({"pipeline"}, enumChoices("pipeline")));
    addEditor(form, new CheckableValueList({"scheduler", "wave_mode"}, enumChoices("scheduler")));
    addEditor(form, new CheckableValueList({"epilogue"}, enumChoices("epilogue")));

    section(outer, tr("Block tiles"), &form);
    addEditor(form, new TileTableEditor);

    section(outer, tr("Warps"), &form);
    addEditor(form, numbers("wave_layout", Shape::Triple));
    addEditor(form, numbers("warp_tile", Shape::Triple));

    section(outer, tr("Memory and occupancy"), &form);
    for (const char* key : {"vector_size_a", "vector_size_b", "vector_size_c", "block_per_cu",
                            "num_wave_groups", "cluster_n", "cluster_k"})
        addEditor(form, numbers(key, Shape::Integer));

    section(outer, tr("Name suffixes"), &form);
    addEditor(form, new CheckableValueList({"num_groups_to_merge"}, intChoices({1, 2, 4, 8})),
              "num_groups_to_merge (gm)");
    addEditor(form, new CheckableValueList({"double_smem_buffer"}, boolChoices()),
              "double_smem_buffer (dsb)");
    addEditor(form, new CheckableValueList({"split_image"}, boolChoices()), "split_image (si)");
    addEditor(form, new CheckableValueList({"runtime_filter"}, boolChoices()),
              "runtime_filter (kx)");
    addEditor(form, new CheckableValueList({"channel_pad"}, boolChoices()), "channel_pad (cpad)");
    addEditor(form, new CheckableValueList({"pixels_on_n"}, boolChoices()), "pixels_on_n (pn)");

    section(outer, tr("Tail handling"), &form);
    for (const char* key : {"pad_m", "pad_n", "pad_k"})
        addEditor(form, new CheckableValueList({key}, boolChoices()));

    section(outer, tr("Split-K (bwd_weight)"), &form);
    addEditor(form, numbers("split_k", Shape::Integer));
    addEditor(form, new CheckableValueList({"split_k_mode"}, enumChoices("split_k_mode")));
    addEditor(form, new CheckableValueList({"two_stage"}, boolChoices()));

    QGroupBox* perField = section(outer, tr("Per-field lists"), &form);
    perField->setToolTip(tr("The schema's alternative to tile / wave_layout / warp_tile: one "
                            "list per field, crossed with each other"));
    for (const char* key : {"tile_m", "tile_n", "tile_k", "wave_m", "wave_n", "wave_k",
                            "warp_tile_m", "warp_tile_n", "warp_tile_k"})
        addEditor(form, numbers(key, Shape::Integer));
    outer->addStretch(1);

    connect(variant_, &QComboBox::currentIndexChanged, this, &TraitForm::edited);
    connect(description_, &QLineEdit::textEdited, this, &TraitForm::edited);
    connect(where_, &QLineEdit::textEdited, this, &TraitForm::edited);
}

void TraitForm::addEditor(QFormLayout* layout, TraitEditor* editor, const QString& label) {
    auto* name = new QLabel(label.isEmpty() ? editor->keys().front() : label);
    name->setToolTip(keyToolTip(editor));
    editor->setToolTip(editor->toolTip().isEmpty() ? keyToolTip(editor) : editor->toolTip());
    editor->setDefaultHint(defaultHint(editor->keys().front()));
    editor->setProperty("gconvLabel", QVariant::fromValue<QObject*>(name));
    layout->addRow(name, editor);
    editors_.push_back(editor);
    connect(editor, &TraitEditor::edited, this, &TraitForm::edited);
}

TraitEditor* TraitForm::editor(const QString& key) const {
    for (auto* e : editors_)
        if (e->keys().contains(key)) return e;
    return nullptr;
}

void TraitForm::setDocument(const Json& document) {
    base_ = document.is_object() ? document : Json::object();
    const QSignalBlocker blockVariant(variant_);
    const QSignalBlocker blockDescription(description_);
    const QSignalBlocker blockWhere(where_);
    const std::string variant = base_.value("variant", std::string("forward"));
    variant_->setCurrentText(QString::fromStdString(variant));
    description_->setText(QString::fromStdString(base_.value("description", std::string())));
    // A "where" that is not a string is shown as its JSON text, which the parser then refuses.
    const Json where = base_.value("where", Json());
    where_->setText(QString::fromStdString(where.is_string() ? where.get<std::string>()
                                           : where.is_null() ? std::string()
                                                             : where.dump()));
    const Json traits = base_.value("trait_config", Json::object());
    for (auto* e : editors_) {
        e->load(traits);
        // Show the name the document uses (wave_mode rather than scheduler, say).
        if (auto* label = qobject_cast<QLabel*>(e->property("gconvLabel").value<QObject*>());
            label && e->keys().size() > 1)
            label->setText(e->keyInUse());
    }
}

Json TraitForm::document() const {
    Json out = base_;
    out["variant"] = variant_->currentText().toStdString();
    const std::string description = description_->text().toStdString();
    if (description.empty())
        out.erase("description");
    else
        out["description"] = description;
    const std::string where = where_->text().trimmed().toStdString();
    if (where.empty())
        out.erase("where");
    else
        out["where"] = where;
    Json traits = out.value("trait_config", Json::object());
    for (auto* e : editors_) e->store(traits);
    if (!traits.empty() || out.contains("trait_config")) out["trait_config"] = traits;
    return out;
}

} // namespace gconv::ui
