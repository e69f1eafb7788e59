#pragma once
// Runs one sweep: gconv-bench --progress jsonl in a QProcess (the explorer never touches the
// GPU), its event stream parsed line by line into typed signals, its rows batched into the
// ResultStore as they arrive. The CSV on disk stays the record; the store is the live view.
#include "csv/result_row.h"
#include "ui/sweep/sweep_settings.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <vector>

namespace gconv::ui {

class ResultStore;

class SweepController : public QObject {
    Q_OBJECT
public:
    // `store` may be null (no live rows); it must outlive the controller.
    explicit SweepController(ResultStore* store, QObject* parent = nullptr);
    ~SweepController() override; // kills a sweep still running

    // $GCONV_BENCH if set, else gconv-bench next to the application binary, else on PATH;
    // empty if none is found.
    static QString findBench();

    // Starts gconv-bench with `settings`; false (and finished() is not emitted) if one is
    // already running. A binary that cannot be started ends in finished() with exit code -1.
    bool start(const SweepSettings& settings);
    // SIGTERM (gconv-bench stops cleanly: finished rows stay on disk), SIGKILL after the grace.
    void stop();
    void setStopGrace(int milliseconds) { stopGraceMs_ = milliseconds; }
    // Rows reach the store at most this often (they are appended in batches).
    void setFlushInterval(int milliseconds) { flushTimer_.setInterval(milliseconds); }

    bool isRunning() const { return process_ != nullptr; }
    bool stopRequested() const { return stopRequested_; }
    const SweepSettings& settings() const { return settings_; }
    QString benchPath() const { return benchPath_; }
    QJsonObject lastSummary() const { return summary_; }
    // Whatever gconv-bench wrote on stderr so far (its last 64 KiB).
    QString stderrText() const { return QString::fromUtf8(stderr_); }

signals:
    void started(const QString& benchPath, const QStringList& arguments);
    void phaseStarted(const QString& phase, qint64 total);
    void compileProgress(qint64 done, qint64 total, qint64 failures, const QString& kernel,
                         const QString& status);
    // A written cell; `row` is the whole CSV row.
    void cellFinished(qint64 done, qint64 total, qint64 failures, const gconv::ResultRow& row);
    // A cell kept from the output by --resume.
    void cellResumed(qint64 done, qint64 total, qint64 failures);
    // level: info, warning or error (an error is something the stream itself got wrong, such
    // as a line that is not JSON).
    void message(const QString& level, const QString& text);
    // One line gconv-bench wrote on stderr.
    void stderrLine(const QString& line);
    void summary(const QJsonObject& summary);
    // After the last rows reached the store. exitCode -1: the process could not be started.
    void finished(int exitCode, QProcess::ExitStatus exitStatus, const QString& stderrTail);

private:
    void readStdout();
    void readStderr();
    void handleLine(const QByteArray& line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void flushRows();
    void finish(int exitCode, QProcess::ExitStatus status);

    ResultStore* store_;
    QProcess* process_ = nullptr;
    SweepSettings settings_;
    QString benchPath_;
    QByteArray stdoutBuffer_, stderrPartial_, stderr_;
    std::vector<ResultRow> pending_;
    QTimer flushTimer_;
    QTimer killTimer_;
    int stopGraceMs_ = 5000;
    bool stopRequested_ = false;
    QJsonObject summary_;
};

} // namespace gconv::ui
