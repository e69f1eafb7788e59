#pragma once
// Where one phase of a sweep stands: done / total, failures, rate and ETA from the wall time
// since the phase started, as one line for a progress label.
#include <QElapsedTimer>
#include <QString>

namespace gconv::ui {

class PhaseProgress {
public:
    void start(qint64 total); // the phase begins now
    void update(qint64 done, qint64 total, qint64 failures);
    void finish(); // the clock stops (rate and wall time stay)

    qint64 done() const { return done_; }
    qint64 total() const { return total_; }
    qint64 failures() const { return failures_; }
    bool started() const { return clock_.isValid(); }
    double elapsedSeconds() const;
    double ratePerSecond() const; // 0 until something is done
    double etaSeconds() const;    // -1 when unknown

    // "12 / 66 · 4.1/s · ETA 13 s · 2 failures"; "—" before the phase starts.
    QString describe(const QString& unit) const;

    // "950 ms", "13 s", "4 min 05 s", "2 h 07 min".
    static QString formatDuration(double seconds);

private:
    QElapsedTimer clock_;
    qint64 done_ = 0, total_ = 0, failures_ = 0;
    bool finished_ = false;
    double finishedAt_ = 0;
};

} // namespace gconv::ui
