#include "ui/sweep/phase_progress.h"

#include <cmath>

namespace gconv::ui {

void PhaseProgress::start(qint64 total) {
    clock_.start();
    done_ = failures_ = 0;
    total_ = total;
    finished_ = false;
}

void PhaseProgress::update(qint64 done, qint64 total, qint64 failures) {
    if (!clock_.isValid()) clock_.start();
    done_ = done;
    total_ = total;
    failures_ = failures;
}

void PhaseProgress::finish() {
    finishedAt_ = elapsedSeconds();
    finished_ = true;
}

double PhaseProgress::elapsedSeconds() const {
    if (finished_) return finishedAt_;
    return clock_.isValid() ? double(clock_.nsecsElapsed()) / 1e9 : 0.0;
}

double PhaseProgress::ratePerSecond() const {
    const double elapsed = elapsedSeconds();
    return done_ > 0 && elapsed > 0 ? double(done_) / elapsed : 0.0;
}

double PhaseProgress::etaSeconds() const {
    const double rate = ratePerSecond();
    if (rate <= 0 || total_ <= 0) return -1;
    return double(std::max<qint64>(total_ - done_, 0)) / rate;
}

QString PhaseProgress::formatDuration(double s) {
    if (s < 0) return QStringLiteral("?");
    if (s < 1) return QString::number(std::lround(s * 1000)) + " ms";
    if (s < 60) return QString::number(s, 'f', s < 10 ? 1 : 0) + " s";
    const long total = std::lround(s);
    if (total < 3600)
        return QStringLiteral("%1 min %2 s").arg(total / 60).arg(total % 60, 2, 10, QChar('0'));
    return QStringLiteral("%1 h %2 min")
        .arg(total / 3600)
        .arg((total % 3600) / 60, 2, 10, QChar('0'));
}

QString PhaseProgress::describe(const QString& unit) const {
    if (!started()) return QStringLiteral("—");
    QString text = QStringLiteral("%1 / %2 %3").arg(done_).arg(total_).arg(unit);
    const double rate = ratePerSecond();
    if (rate > 0) text += " · " + QString::number(rate, 'f', rate < 10 ? 1 : 0) + "/s";
    if (done_ < total_ && !finished_) {
        const double eta = etaSeconds();
        if (eta >= 0) text += " · ETA " + formatDuration(eta);
    } else {
        text += " · " + formatDuration(elapsedSeconds());
    }
    if (failures_ > 0)
        text += QStringLiteral(" · %1 failure%2").arg(failures_).arg(failures_ == 1 ? "" : "s");
    return text;
}

} // namespace gconv::ui
