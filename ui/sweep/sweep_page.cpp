#include "ui/sweep/sweep_page.h"

#include "config/arch_spec.h"
#include "config/enums.h"
#include "config/trait_config.h"
#include "problem/registry.h"
#include "ui/sweep/sweep_controller.h"
#include "util/error.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace gconv::ui {
namespace {

constexpr int k_log_lines = 5000;

QString default_config_for(const QString& variant) {
    const auto v = enum_from_string<Variant>(variant.toStdString());
    if (!v) return {};
    try {
        return QString::fromStdString(default_config_path(*v));
    } catch (const Error&) {
        return {}; // no configs/ found: gconv-bench will say so
    }
}

QSpinBox* spin(int lo, int hi, int value, const QString& tip) {
    auto* box = new QSpinBox;
    box->setRange(lo, hi);
    box->setValue(value);
    box->setAlignment(Qt::AlignRight);
    box->setToolTip(tip);
    return box;
}

// A line edit with a "..." button beside it.
QWidget* with_browse(QLineEdit* edit, QToolButton** button) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(edit, 1);
    *button = new QToolButton;
    (*button)->setText(QStringLiteral("…"));
    layout->addWidget(*button);
    return row;
}

QString number(double value, int decimals) {
    return QString::number(value, 'f', decimals);
}

// The lines of gconv-bench's stderr worth showing as the error: its own messages, else the end.
QString error_lines(const QString& stderrTail) {
    QStringList lines = stderrTail.split('\n', Qt::SkipEmptyParts);
    QStringList own;
    for (const QString& line : lines)
        if (line.startsWith(QLatin1String("gconv-bench")) || line.contains(QLatin1String("error")))
            own << line;
    if (own.isEmpty()) own = lines.mid(std::max<qsizetype>(0, lines.size() - 6));
    return own.mid(std::max<qsizetype>(0, own.size() - 8)).join('\n');
}

} // namespace

SweepPage::SweepPage(ResultStore* store, QWidget* parent)
    : QWidget(parent), controller_(new SweepController(store, this)) {
    auto* splitter = new QSplitter(Qt::Horizontal);
    // The form keeps its natural height at the top; the run panel takes the rest.
    auto* formColumn = new QWidget;
    auto* formLayout = new QVBoxLayout(formColumn);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(buildForm());
    formLayout->addStretch(1);
    splitter->addWidget(formColumn);
    splitter->addWidget(buildRunPanel());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(controller_, &SweepController::phaseStarted, this, &SweepPage::onPhase);
    connect(controller_, &SweepController::compileProgress, this, &SweepPage::onCompile);
    connect(controller_, &SweepController::cellFinished, this, &SweepPage::onCell);
    connect(controller_, &SweepController::cellResumed, this,
            [this](qint64 done, qint64 total, qint64 failures) {
                bench_.update(done, total, failures);
                benchBar_->setValue(int(std::min<qint64>(done, benchBar_->maximum())));
            });
    connect(controller_, &SweepController::message, this, &SweepPage::appendLog);
    connect(controller_, &SweepController::stderrLine, this,
            [this](const QString& line) { appendLog(QStringLiteral("stderr"), line); });
    connect(controller_, &SweepController::summary, this, &SweepPage::showSummary);
    connect(controller_, &SweepController::finished, this, &SweepPage::onFinished);
    refreshTimer_.setInterval(500);
    connect(&refreshTimer_, &QTimer::timeout, this, &SweepPage::refreshProgress);

    QSettings saved;
    setSettings(SweepSettings::load(saved));
    updateButtons();
}

SweepPage::~SweepPage() {
    QSettings saved;
    settings().save(saved);
}

QWidget* SweepPage::buildForm() {
    form_ = new QGroupBox(tr("Sweep settings"));
    auto* form = new QFormLayout(form_);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    variant_ = new QComboBox;
    variant_->setObjectName("variant");
    for (const auto& name : enum_names<Variant>()) variant_->addItem(QString::fromStdString(name));
    variant_->setToolTip(tr("Convolution direction (--variant)"));
    connect(variant_, &QComboBox::currentTextChanged, this, &SweepPage::onVariantChanged);
    form->addRow(tr("&Variant"), variant_);

    config_ = new QLineEdit;
    config_->setObjectName("config");
    config_->setToolTip(
        tr("Trait config (--config); empty or the default: configs/ for the variant, "
           "as gconv-bench picks it"));
    QToolButton* browseConfigButton = nullptr;
    form->addRow(tr("&Config"), with_browse(config_, &browseConfigButton));
    browseConfigButton->setToolTip(tr("Choose a trait config file"));
    connect(browseConfigButton, &QToolButton::clicked, this, &SweepPage::browseConfig);

    problems_ = new QListWidget;
    problems_->setObjectName("problems");
    problems_->setToolTip(tr("Problem sets to sweep (--problems): the keys of problems/*.json. "
                             "Space toggles the current one."));
    problems_->setMinimumHeight(90);
    problems_->setMaximumHeight(160);
    form->addRow(tr("&Problems"), problems_);
    loadProblemKeys();

    arch_ = new QComboBox;
    arch_->setObjectName("arch");
    arch_->setEditable(true);
    arch_->addItem(QStringLiteral("auto"));
    try {
        for (const auto& name : default_arch_specs().names())
            arch_->addItem(QString::fromStdString(name));
    } catch (const Error&) {
    }
    arch_->setToolTip(tr("Target architecture (--arch); auto asks the GPU through a worker "
                         "process"));
    form->addRow(tr("&Arch"), arch_);

    devices_ = new QLineEdit;
    devices_->setObjectName("devices");
    devices_->setPlaceholderText(tr("device 0"));
    devices_->setToolTip(tr("GPUs to run on (--devices): all, or indices such as 0,1; each GPU "
                            "takes the next batch when idle, into one CSV. Empty: device 0"));
    form->addRow(tr("&Devices"), devices_);

    workers_ = spin(0, 4096, 0, tr("Parallel compiler threads of the build phase (--workers)"));
    workers_->setObjectName("workers");
    workers_->setSpecialValueText(tr("all cores"));
    form->addRow(tr("&Workers"), workers_);

    batchSize_ = spin(1, 1 << 20, 20, tr("Cells per batch of one problem (--batch-size)"));
    batchSize_->setObjectName("batchSize");
    form->addRow(tr("&Batch size"), batchSize_);

    timeout_ = new QDoubleSpinBox;
    timeout_->setObjectName("kernelTimeout");
    timeout_->setRange(0.01, 1e6);
    timeout_->setDecimals(2);
    timeout_->setValue(30);
    timeout_->setSuffix(tr(" s"));
    timeout_->setAlignment(Qt::AlignRight);
    timeout_->setToolTip(tr("Seconds a cell may run before its worker is killed and the cell "
                            "marked timeout (--kernel-timeout)"));
    form->addRow(tr("&Timeout"), timeout_);

    warmup_ = spin(0, 10000, 3, tr("Untimed launches per cell (--warmup)"));
    warmup_->setObjectName("warmup");
    repeat_ = spin(1, 100000, 10, tr("Timed launches per cell (--repeat)"));
    repeat_->setObjectName("repeat");
    auto* launches = new QWidget;
    auto* launchesLayout = new QHBoxLayout(launches);
    launchesLayout->setContentsMargins(0, 0, 0, 0);
    launchesLayout->addWidget(warmup_);
    launchesLayout->addWidget(new QLabel(tr("repeat")));
    launchesLayout->addWidget(repeat_);
    form->addRow(tr("W&arm-up"), launches);

    launchHold_ = new QCheckBox(tr("&Hold each timed run until it is all queued"));
    launchHold_->setObjectName("launchHold");
    launchHold_->setChecked(true);
    launchHold_->setToolTip(tr("--launch-hold: the timed launches wait behind a one-block hold "
                               "until the host has queued all of them, so kernels and baseline "
                               "are timed on the GPU alone; unchecked, a library call whose host "
                               "side is slower than its GPU work is timed with the gaps"));
    form->addRow(QString(), launchHold_);

    resume_ = new QCheckBox(tr("&Resume: keep the cells already in the output"));
    resume_->setObjectName("resume");
    resume_->setToolTip(tr("--resume: cells already in the CSV (same kernel, problem, arch, "
                           "toolchain) are kept and skipped; without it the CSV is overwritten"));
    form->addRow(QString(), resume_);
    baseline_ = new QComboBox;
    baseline_->setObjectName("baseline");
    baseline_->addItem(tr("none"), QStringLiteral("none"));
    baseline_->addItem(tr("cuDNN (NVIDIA)"), QStringLiteral("cudnn"));
    baseline_->addItem(tr("MIOpen (ROCm)"), QStringLiteral("miopen"));
    baseline_->setToolTip(tr("--baseline: the vendor library runs each problem on the same data "
                             "with the same timing; its latency fills baseline_ms and speedup"));
    form->addRow(tr("&Baseline"), baseline_);

    filter_ = new QLineEdit;
    filter_->setObjectName("filter");
    filter_->setPlaceholderText(tr("e.g. c.pipeline == 'compv3' and c.tile_m >= 128"));
    filter_->setToolTip(tr("Keep the kernels for which the expression holds (--filter, "
                           "docs/filter-language.md)"));
    form->addRow(tr("&Filter"), filter_);

    maxKernels_ = spin(0, 1 << 30, 0, tr("Keep at most the first N kernels (--max-kernels)"));
    maxKernels_->setObjectName("maxKernels");
    maxKernels_->setSpecialValueText(tr("all"));
    form->addRow(tr("&Max kernels"), maxKernels_);

    output_ = new QLineEdit;
    output_->setObjectName("output");
    output_->setPlaceholderText(tr("results.csv"));
    output_->setToolTip(tr("Results CSV (--output); its worker log and provenance go next to it"));
    QToolButton* browseOutputButton = nullptr;
    form->addRow(tr("&Output"), with_browse(output_, &browseOutputButton));
    browseOutputButton->setToolTip(tr("Choose the results CSV"));
    connect(browseOutputButton, &QToolButton::clicked, this, &SweepPage::browseOutput);

    worker_ = new QLineEdit;
    worker_->setObjectName("worker");
    worker_->setPlaceholderText(tr("gconv-worker next to gconv-bench"));
    worker_->setToolTip(tr("Worker executable (--worker), e.g. a test double"));
    form->addRow(tr("Wor&ker binary"), worker_);
    return form_;
}

QWidget* SweepPage::buildRunPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* buttons = new QHBoxLayout;
    startButton_ = new QPushButton(tr("Start"));
    startButton_->setObjectName("start");
    startButton_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    startButton_->setToolTip(tr("Run gconv-bench with these settings (Ctrl+Return)"));
    stopButton_ = new QPushButton(tr("Stop"));
    stopButton_->setObjectName("stop");
    stopButton_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    stopButton_->setToolTip(tr("Stop cleanly (Ctrl+.): the rows written stay in the CSV, the "
                               "cell in flight is re-run by a resume"));
    connect(startButton_, &QPushButton::clicked, this, &SweepPage::start);
    connect(stopButton_, &QPushButton::clicked, this, &SweepPage::stop);
    state_ = new QLabel(tr("Idle"));
    state_->setObjectName("state");
    buttons->addWidget(startButton_);
    buttons->addWidget(stopButton_);
    buttons->addWidget(state_, 1);
    layout->addLayout(buttons);

    error_ = new QLabel;
    error_->setObjectName("error");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    error_->hide();
    layout->addWidget(error_);

    auto* bars = new QGridLayout;
    auto addBar = [&](int row, const QString& name, QProgressBar** bar, QLabel** label,
                      const char* objectName, const QString& tip) {
        *bar = new QProgressBar;
        (*bar)->setObjectName(QString(objectName) + "Progress");
        (*bar)->setRange(0, 1);
        (*bar)->setValue(0);
        (*bar)->setFormat(QStringLiteral("%p%"));
        (*bar)->setToolTip(tip);
        *label = new QLabel(QStringLiteral("—"));
        (*label)->setObjectName(QString(objectName) + "Label");
        (*label)->setMinimumWidth(320);
        bars->addWidget(new QLabel(name), row, 0);
        bars->addWidget(*bar, row, 1);
        bars->addWidget(*label, row, 2);
    };
    addBar(0, tr("Build"), &buildBar_, &buildLabel_, "build",
           tr("Kernels compiled or found in the cache; failures are compile errors"));
    addBar(1, tr("Benchmark"), &benchBar_, &benchLabel_, "benchmark",
           tr("Cells (kernel x problem) written; failures are cells neither ok nor unsupported"));
    bars->setColumnStretch(1, 1);
    layout->addLayout(bars);

    summaryLabel_ = new QLabel;
    summaryLabel_->setObjectName("summary");
    summaryLabel_->setWordWrap(true);
    summaryLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summaryLabel_);

    log_ = new QPlainTextEdit;
    log_->setObjectName("log");
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(k_log_lines);
    log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    log_->setToolTip(tr("gconv-bench's messages, failed compiles and cells, and its stderr "
                        "(last %1 lines)")
                         .arg(k_log_lines));
    layout->addWidget(log_, 1);
    return panel;
}

void SweepPage::loadProblemKeys() {
    problems_->clear();
    try {
        ProblemRegistry registry;
        for (const auto& key : registry.keys()) {
            auto* item = new QListWidgetItem(QString::fromStdString(key), problems_);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
            item->setToolTip(QString::fromStdString(registry.path_of(key).string()));
        }
    } catch (const Error& e) {
        showError(tr("Problem registry: %1").arg(QString::fromStdString(e.what())));
    }
}

void SweepPage::setProblemKeys(const QStringList& keys) {
    for (int i = 0; i < problems_->count(); ++i)
        problems_->item(i)->setCheckState(
            keys.contains(problems_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    for (const QString& key : keys) {
        if (!problems_->findItems(key, Qt::MatchExactly).isEmpty()) continue;
        auto* item = new QListWidgetItem(key, problems_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setForeground(QColor(0xb0, 0x00, 0x20));
        item->setToolTip(tr("Not in the problem registry here (gconv-bench may not find it)"));
    }
    for (int i = 0; i < problems_->count(); ++i)
        if (problems_->item(i)->checkState() == Qt::Checked) {
            problems_->scrollToItem(problems_->item(i));
            break;
        }
}

void SweepPage::setConfigPath(const QString& path) {
    config_->setText(path);
}

void SweepPage::onVariantChanged() {
    // Follow the variant while the field shows the previous default (or nothing).
    const QString fresh = default_config_for(variant_->currentText());
    if (config_->text().isEmpty() || config_->text() == defaultConfig_) config_->setText(fresh);
    defaultConfig_ = fresh;
    config_->setPlaceholderText(fresh);
}

void SweepPage::browseConfig() {
    const QString start = config_->text().isEmpty() ? defaultConfig_ : config_->text();
    const QString path = QFileDialog::getOpenFileName(this, tr("Trait config"), start,
                                                      tr("Trait configs (*.json);;All files (*)"));
    if (!path.isEmpty()) config_->setText(path);
}

void SweepPage::browseOutput() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Results CSV"), output_->text(),
                                                      tr("CSV files (*.csv);;All files (*)"),
                                                      nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty()) output_->setText(path);
}

SweepSettings SweepPage::settings() const {
    SweepSettings s;
    s.variant = variant_->currentText();
    s.configPath = config_->text().trimmed();
    for (int i = 0; i < problems_->count(); ++i)
        if (problems_->item(i)->checkState() == Qt::Checked)
            s.problemKeys << problems_->item(i)->text();
    s.arch = arch_->currentText().trimmed();
    s.devices = devices_->text().trimmed();
    s.workers = workers_->value();
    s.batchSize = batchSize_->value();
    s.kernelTimeoutS = timeout_->value();
    s.warmup = warmup_->value();
    s.repeat = repeat_->value();
    s.launchHold = launchHold_->isChecked();
    s.resume = resume_->isChecked();
    s.baseline = baseline_->currentData().toString();
    s.filter = filter_->text().trimmed();
    s.maxKernels = maxKernels_->value();
    s.outputPath = output_->text().trimmed();
    s.workerPath = worker_->text().trimmed();
    s.extraArguments = extraArguments_;
    return s;
}

void SweepPage::setSettings(const SweepSettings& s) {
    const int v = variant_->findText(s.variant);
    variant_->setCurrentIndex(v >= 0 ? v : 0);
    onVariantChanged();
    config_->setText(s.configPath.isEmpty() ? defaultConfig_ : s.configPath);
    setProblemKeys(s.problemKeys);
    arch_->setCurrentText(s.arch.isEmpty() ? QStringLiteral("auto") : s.arch);
    devices_->setText(s.devices);
    workers_->setValue(s.workers);
    batchSize_->setValue(s.batchSize);
    timeout_->setValue(s.kernelTimeoutS);
    warmup_->setValue(s.warmup);
    repeat_->setValue(s.repeat);
    launchHold_->setChecked(s.launchHold);
    resume_->setChecked(s.resume);
    const int b = baseline_->findData(s.baseline);
    baseline_->setCurrentIndex(b >= 0 ? b : 0);
    filter_->setText(s.filter);
    maxKernels_->setValue(s.maxKernels);
    output_->setText(s.outputPath);
    worker_->setText(s.workerPath);
    extraArguments_ = s.extraArguments;
}

bool SweepPage::isRunning() const {
    return controller_->isRunning();
}

QString SweepPage::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void SweepPage::showError(const QString& text) {
    error_->setText(text);
    error_->setVisible(!text.isEmpty());
}

bool SweepPage::start() {
    if (isRunning()) return false;
    const SweepSettings s = settings();
    if (s.problemKeys.isEmpty()) {
        showError(tr("Pick at least one problem set."));
        problems_->setFocus();
        return false;
    }
    if (s.outputPath.isEmpty()) {
        showError(tr("Choose the output CSV."));
        output_->setFocus();
        return false;
    }
    const QFileInfo out(s.outputPath);
    if (confirmOverwrite_ && !s.resume && out.exists() && out.size() > 0 &&
        QMessageBox::question(this, tr("Overwrite results?"),
                              tr("%1 holds results. Without Resume the sweep overwrites it.\n"
                                 "Overwrite it?")
                                  .arg(out.absoluteFilePath())) != QMessageBox::Yes)
        return false;
    {
        QSettings saved;
        s.save(saved);
    }
    showError({});
    summaryLabel_->clear();
    summary_ = {};
    build_ = PhaseProgress();
    bench_ = PhaseProgress();
    for (QProgressBar* bar : {buildBar_, benchBar_}) {
        bar->setRange(0, 1);
        bar->setValue(0);
    }
    buildLabel_->setText(QStringLiteral("—"));
    benchLabel_->setText(QStringLiteral("—"));
    controller_->start(s);
    appendLog(QStringLiteral("info"),
              controller_->benchPath() + " " + controller_->settings().benchArguments().join(' '));
    state_->setText(tr("Running…"));
    refreshTimer_.start();
    updateButtons();
    emit sweepStarted(controller_->settings().outputPath);
    return true;
}

void SweepPage::stop() {
    if (!isRunning()) return;
    controller_->stop();
    state_->setText(tr("Stopping… (the cell in flight is dropped; a resume re-runs it)"));
    appendLog(QStringLiteral("warning"), tr("stop requested"));
    updateButtons();
}

void SweepPage::updateButtons() {
    const bool running = isRunning();
    startButton_->setEnabled(!running);
    stopButton_->setEnabled(running && !controller_->stopRequested());
    form_->setEnabled(!running);
}

void SweepPage::refreshProgress() {
    buildLabel_->setText(build_.describe(tr("kernels")));
    benchLabel_->setText(bench_.describe(tr("cells")));
}

void SweepPage::appendLog(const QString& level, const QString& text) {
    QString color;
    if (level == QLatin1String("warning"))
        color = QStringLiteral("#a05a00");
    else if (level == QLatin1String("error") || level == QLatin1String("stderr"))
        color = QStringLiteral("#b00020");
    QString html = text.trimmed().toHtmlEscaped().replace('\n', QStringLiteral("<br>"));
    if (level != QLatin1String("info") && !level.isEmpty())
        html = QStringLiteral("<b>%1:</b> %2").arg(level.toHtmlEscaped(), html);
    if (!color.isEmpty())
        html = QStringLiteral("<span style=\"color:%1\">%2</span>").arg(color, html);
    log_->appendHtml(html);
}

void SweepPage::onPhase(const QString& phase, qint64 total) {
    const bool build = phase == QLatin1String("build");
    if (!build) build_.finish();
    PhaseProgress& p = build ? build_ : bench_;
    QProgressBar* bar = build ? buildBar_ : benchBar_;
    p.start(total);
    bar->setRange(0, int(std::max<qint64>(total, 1)));
    bar->setValue(total > 0 ? 0 : 1);
    appendLog(QStringLiteral("info"), QStringLiteral("%1 phase: %2 %3")
                                          .arg(phase)
                                          .arg(total)
                                          .arg(build ? tr("kernels") : tr("cells")));
    refreshProgress();
}

void SweepPage::onCompile(qint64 done, qint64 total, qint64 failures, const QString&,
                          const QString&) {
    build_.update(done, total, failures);
    buildBar_->setValue(int(std::min<qint64>(done, buildBar_->maximum())));
    if (done == total) refreshProgress();
}

void SweepPage::onCell(qint64 done, qint64 total, qint64 failures, const ResultRow& row) {
    bench_.update(done, total, failures);
    benchBar_->setValue(int(std::min<qint64>(done, benchBar_->maximum())));
    if (row.status != CellStatus::Ok && row.status != CellStatus::Unsupported &&
        row.status != CellStatus::CompileError)
        appendLog(QStringLiteral("warning"),
                  QStringLiteral("%1: %2 on problem %3: %4")
                      .arg(QString::fromUtf8(to_string(row.status).data(),
                                             qsizetype(to_string(row.status).size())),
                           QString::fromStdString(row.kernel))
                      .arg(row.problem_idx)
                      .arg(QString::fromStdString(row.error)));
    if (done == total) refreshProgress();
}

void SweepPage::showSummary(const QJsonObject& s) {
    summary_ = s;
    QStringList parts;
    if (s.contains("by_status")) {
        QStringList statuses;
        const QJsonObject by = s["by_status"].toObject();
        for (auto it = by.begin(); it != by.end(); ++it)
            statuses << QStringLiteral("%1 %2").arg(it.key()).arg(it.value().toInteger());
        parts << tr("<b>cells</b> %1 (%2 written, %3 resumed): %4")
                     .arg(s["cells"].toInteger())
                     .arg(s["rows_written"].toInteger())
                     .arg(s["resumed"].toInteger())
                     .arg(statuses.join(QStringLiteral(" · ")));
        parts << tr("<b>wall</b> %1").arg(PhaseProgress::formatDuration(s["wall_s"].toDouble()));
        parts << tr("<b>GPU-busy</b> %1 %").arg(number(100.0 * s["gpu_busy_share"].toDouble(), 1));
        parts << tr("<b>overhead</b> %1 ms/cell, %2 ms/batch")
                     .arg(number(s["overhead_per_cell_ms"].toDouble(), 2),
                          number(s["overhead_per_batch_ms"].toDouble(), 1));
    } else {
        parts << tr("<b>build</b> %1 compiled · %2 cached · %3 failed in %4")
                     .arg(s["compiled"].toInteger())
                     .arg(s["cached"].toInteger())
                     .arg(s["failed"].toInteger())
                     .arg(PhaseProgress::formatDuration(s["wall_s"].toDouble()));
    }
    if (s["stopped"].toBool()) parts << tr("<b>stopped</b>");
    summaryLabel_->setText(parts.join(QStringLiteral(" &nbsp;|&nbsp; ")));
}

void SweepPage::onFinished(int exitCode, QProcess::ExitStatus status, const QString& stderrTail) {
    refreshTimer_.stop();
    build_.finish();
    bench_.finish();
    refreshProgress();
    const bool ok = status == QProcess::NormalExit && exitCode == 0;
    const QString csv = controller_->settings().outputPath;
    if (ok) {
        state_->setText(tr("Finished: %1").arg(csv));
    } else if (controller_->stopRequested()) {
        state_->setText(tr("Stopped: the rows written are in %1; Resume runs the rest.").arg(csv));
    } else {
        QString what;
        if (exitCode == -1)
            what = tr("gconv-bench did not start");
        else if (status == QProcess::CrashExit)
            what = tr("gconv-bench crashed");
        else if (exitCode == 2)
            what = tr("gconv-bench refused the command line");
        else
            what = tr("gconv-bench failed (exit code %1)").arg(exitCode);
        state_->setText(tr("Failed"));
        showError(what + ":\n" + error_lines(stderrTail));
    }
    appendLog(ok ? QStringLiteral("info") : QStringLiteral("warning"),
              tr("gconv-bench ended: %1")
                  .arg(status == QProcess::CrashExit && exitCode != -1
                           ? tr("crashed")
                           : tr("exit code %1").arg(exitCode)));
    updateButtons();
    emit sweepFinished(csv, ok);
}

} // namespace gconv::ui
