#pragma once
// The Sweep page: every gconv-bench setting in one form, Start / Stop, a progress bar for the
// build and one for the benchmark phase (done / total, rate, ETA, failures), a live log and the
// run's summary. The sweep runs in a gconv-bench process (SweepController); its rows stream
// into the ResultStore as they are written, and the CSV on disk stays the record.
#include "ui/sweep/phase_progress.h"
#include "ui/sweep/sweep_settings.h"

#include <QJsonObject>
#include <QProcess>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace gconv {
struct ResultRow;
}

namespace gconv::ui {

class ResultStore;
class SweepController;

class SweepPage : public QWidget {
    Q_OBJECT
public:
    // `store` receives the live rows (it must outlive the page). The form starts from the
    // settings saved under "sweep/..." in QSettings.
    explicit SweepPage(ResultStore* store, QWidget* parent = nullptr);
    ~SweepPage() override; // saves the form; a running sweep is stopped (SIGTERM, then killed)

    void setConfigPath(const QString& path);
    // Checks exactly these registry keys (keys the registry lacks are added, marked missing).
    void setProblemKeys(const QStringList& keys);

    SweepSettings settings() const;
    void setSettings(const SweepSettings& settings);
    // Shown as an overwrite question before a sweep without --resume replaces a non-empty CSV.
    void setConfirmOverwrite(bool confirm) { confirmOverwrite_ = confirm; }

    bool isRunning() const;
    SweepController* controller() const { return controller_; }
    // The inline error under the buttons (empty when none).
    QString errorText() const;
    QJsonObject lastSummary() const { return summary_; }

public slots:
    // Checks the form, then starts gconv-bench; false (with the reason in the error line) if
    // the form is incomplete or a sweep runs already.
    bool start();
    void stop();

signals:
    void sweepStarted(const QString& csvPath);
    // ok: gconv-bench finished the sweep (exit code 0); false after a stop or an error.
    void sweepFinished(const QString& csvPath, bool ok);

private:
    QWidget* buildForm();
    QWidget* buildRunPanel();
    void loadProblemKeys();
    void onVariantChanged();
    void browseConfig();
    void browseOutput();
    void updateButtons();
    void refreshProgress();
    void showError(const QString& text);
    void appendLog(const QString& level, const QString& text);
    void showSummary(const QJsonObject& summary);

    void onPhase(const QString& phase, qint64 total);
    void onCompile(qint64 done, qint64 total, qint64 failures, const QString& kernel,
                   const QString& status);
    void onCell(qint64 done, qint64 total, qint64 failures, const gconv::ResultRow& row);
    void onFinished(int exitCode, QProcess::ExitStatus status, const QString& stderrTail);

    SweepController* controller_;
    QString workerPath_;
    QStringList extraArguments_;
    QString defaultConfig_; // gconv-bench's default for the variant shown
    bool confirmOverwrite_ = true;
    QJsonObject summary_;
    PhaseProgress build_, bench_;
    QTimer refreshTimer_;

    QGroupBox* form_;
    QComboBox* variant_;
    QLineEdit* config_;
    QListWidget* problems_;
    QComboBox* arch_;
    QLineEdit* devices_;
    QSpinBox* workers_;
    QSpinBox* batchSize_;
    QDoubleSpinBox* timeout_;
    QSpinBox* warmup_;
    QSpinBox* repeat_;
    QCheckBox* launchHold_;
    QCheckBox* resume_;
    QComboBox* baseline_;
    QLineEdit* filter_;
    QSpinBox* maxKernels_;
    QLineEdit* output_;
    QLineEdit* worker_;
    QPushButton* startButton_;
    QPushButton* stopButton_;
    QLabel* state_;
    QLabel* error_;
    QProgressBar* buildBar_;
    QProgressBar* benchBar_;
    QLabel* buildLabel_;
    QLabel* benchLabel_;
    QLabel* summaryLabel_;
    QPlainTextEdit* log_;
};

} // namespace gconv::ui
