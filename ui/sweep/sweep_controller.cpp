#include "ui/sweep/sweep_controller.h"

#include "csv/result_row_json.h"
#include "ui/results/result_store.h"
#include "util/error.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <nlohmann/json.hpp>

namespace gconv::ui {
namespace {

constexpr qsizetype k_stderr_keep = 64 * 1024;
constexpr qsizetype k_stderr_tail = 4000;

QString text_of(const nlohmann::json& event, const char* key) {
    const auto found = event.find(key);
    if (found == event.end() || !found->is_string()) return {};
    return QString::fromStdString(found->get<std::string>());
}

qint64 count_of(const nlohmann::json& event, const char* key) {
    const auto found = event.find(key);
    return found != event.end() && found->is_number() ? found->get<qint64>() : 0;
}

// A cell event without a `row` (an older gconv-bench): what its few fields say.
ResultRow row_from_cell_fields(const nlohmann::json& event) {
    ResultRow row;
    row.kernel = text_of(event, "kernel").toStdString();
    row.problem_idx = count_of(event, "problem_idx");
    row.status =
        cell_status_from_string(text_of(event, "status").toStdString()).value_or(CellStatus::Error);
    if (auto it = event.find("latency_ms"); it != event.end() && it->is_number())
        row.latency_ms = it->get<double>();
    if (auto it = event.find("tflops"); it != event.end() && it->is_number())
        row.tflops = it->get<double>();
    row.error = text_of(event, "error").toStdString();
    return row;
}

} // namespace

SweepController::SweepController(ResultStore* store, QObject* parent)
    : QObject(parent), store_(store) {
    flushTimer_.setInterval(100);
    connect(&flushTimer_, &QTimer::timeout, this, &SweepController::flushRows);
    killTimer_.setSingleShot(true);
    connect(&killTimer_, &QTimer::timeout, this, [this] {
        if (process_) process_->kill();
    });
}

SweepController::~SweepController() {
    if (!process_) return;
    process_->disconnect(this);
    process_->terminate();
    if (!process_->waitForFinished(2000)) {
        process_->kill();
        process_->waitForFinished(2000);
    }
}

QString SweepController::findBench() {
    const QString fromEnv = qEnvironmentVariable("GCONV_BENCH");
    if (!fromEnv.isEmpty()) return fromEnv;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath("gconv-bench");
    if (QFileInfo(beside).isExecutable()) return beside;
    return QStandardPaths::findExecutable(QStringLiteral("gconv-bench"));
}

bool SweepController::start(const SweepSettings& settings) {
    if (process_) return false;
    settings_ = settings;
    if (!settings_.outputPath.isEmpty())
        settings_.outputPath = QFileInfo(settings_.outputPath).absoluteFilePath();
    benchPath_ = findBench();
    stdoutBuffer_.clear();
    stderrPartial_.clear();
    stderr_.clear();
    pending_.clear();
    summary_ = {};
    stopRequested_ = false;

    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &SweepController::readStdout);
    connect(process_, &QProcess::readyReadStandardError, this, &SweepController::readStderr);
    connect(process_, &QProcess::finished, this, &SweepController::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &SweepController::onError);
    const QStringList args = settings_.benchArguments();
    emit started(benchPath_, args);
    // A missing binary fails to start like a bad path does: through errorOccurred.
    process_->start(benchPath_.isEmpty() ? QStringLiteral("gconv-bench") : benchPath_, args);
    flushTimer_.start();
    return true;
}

void SweepController::stop() {
    if (!process_ || stopRequested_) return;
    stopRequested_ = true;
    process_->terminate();
    killTimer_.start(stopGraceMs_);
}

void SweepController::readStdout() {
    if (!process_) return;
    stdoutBuffer_.append(process_->readAllStandardOutput());
    qsizetype from = 0;
    for (qsizetype newline; (newline = stdoutBuffer_.indexOf('\n', from)) >= 0; from = newline + 1)
        handleLine(stdoutBuffer_.mid(from, newline - from));
    stdoutBuffer_.remove(0, from);
}

void SweepController::readStderr() {
    if (!process_) return;
    const QByteArray data = process_->readAllStandardError();
    stderr_.append(data);
    if (stderr_.size() > k_stderr_keep) stderr_.remove(0, stderr_.size() - k_stderr_keep);
    stderrPartial_.append(data);
    qsizetype from = 0;
    for (qsizetype newline; (newline = stderrPartial_.indexOf('\n', from)) >= 0; from = newline + 1)
        emit stderrLine(QString::fromUtf8(stderrPartial_.mid(from, newline - from)));
    stderrPartial_.remove(0, from);
}

void SweepController::handleLine(const QByteArray& raw) {
    const QByteArray line = raw.trimmed();
    if (line.isEmpty()) return;
    const nlohmann::json event = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (event.is_discarded() || !event.is_object()) {
        emit message(QStringLiteral("warning"),
                     QStringLiteral("gconv-bench printed a line that is not a progress event: ") +
                         QString::fromUtf8(line.left(500)));
        return;
    }
    try {
        const QString kind = text_of(event, "event");
        if (kind == QLatin1String("phase")) {
            emit phaseStarted(text_of(event, "phase"), count_of(event, "total"));
        } else if (kind == QLatin1String("compile")) {
            const QString status = text_of(event, "status");
            const QString kernel = text_of(event, "kernel");
            emit compileProgress(count_of(event, "done"), count_of(event, "total"),
                                 count_of(event, "failures"), kernel, status);
            if (status == QLatin1String("failed"))
                emit message(QStringLiteral("warning"),
                             "compile failed: " + kernel + "\n" + text_of(event, "log").trimmed());
        } else if (kind == QLatin1String("cell")) {
            const qint64 done = count_of(event, "done"), total = count_of(event, "total"),
                         failures = count_of(event, "failures");
            if (text_of(event, "status") == QLatin1String("resumed")) {
                emit cellResumed(done, total, failures);
                return;
            }
            const auto row = event.find("row");
            if (row == event.end()) {
                emit cellFinished(done, total, failures, row_from_cell_fields(event));
                return;
            }
            pending_.push_back(result_row_from_json(*row));
            emit cellFinished(done, total, failures, pending_.back());
        } else if (kind == QLatin1String("message")) {
            emit message(text_of(event, "level"), text_of(event, "text"));
        } else if (kind == QLatin1String("summary")) {
            summary_ = QJsonDocument::fromJson(line).object();
            emit summary(summary_);
        }
        // Other events are from a newer gconv-bench: nothing to show for them here.
    } catch (const std::exception& e) {
        emit message(QStringLiteral("error"), QStringLiteral("malformed progress event (") +
                                                  QString::fromUtf8(e.what()) +
                                                  "): " + QString::fromUtf8(line.left(500)));
    }
}

void SweepController::flushRows() {
    if (pending_.empty()) return;
    if (store_) store_->appendRows(pending_, settings_.outputPath);
    pending_.clear();
}

void SweepController::onFinished(int exitCode, QProcess::ExitStatus status) {
    readStdout();
    readStderr();
    if (!stdoutBuffer_.isEmpty()) {
        handleLine(stdoutBuffer_);
        stdoutBuffer_.clear();
    }
    if (!stderrPartial_.isEmpty()) {
        emit stderrLine(QString::fromUtf8(stderrPartial_));
        stderrPartial_.clear();
    }
    finish(exitCode, status);
}

void SweepController::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart || !process_) return;
    const QString why = benchPath_.isEmpty()
                            ? QStringLiteral("gconv-bench not found: set GCONV_BENCH, or put it "
                                             "next to the explorer or on PATH")
                            : "cannot start " + benchPath_ + ": " + process_->errorString();
    stderr_.append(why.toUtf8());
    finish(-1, QProcess::CrashExit);
}

void SweepController::finish(int exitCode, QProcess::ExitStatus status) {
    flushRows();
    flushTimer_.stop();
    killTimer_.stop();
    process_->disconnect(this);
    process_->deleteLater();
    process_ = nullptr;
    emit finished(exitCode, status, QString::fromUtf8(stderr_.right(k_stderr_tail)));
}

} // namespace gconv::ui
