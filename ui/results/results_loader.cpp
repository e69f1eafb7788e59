#include "ui/results/results_loader.h"

#include "util/error.h"

#include <QPointer>
#include <QThread>

namespace gconv::ui {

ResultsLoader::ResultsLoader(ResultStore* store, QObject* parent)
    : QObject(parent), store_(store) {}

ResultsLoader::~ResultsLoader() {
    queue_.clear();
    if (thread_) {
        cancel_->store(true);
        thread_->wait();
        delete thread_;
    }
}

void ResultsLoader::open(const QStringList& paths) {
    queue_ << paths;
    if (!thread_) startNext();
}

void ResultsLoader::cancel() {
    queue_.clear();
    if (cancel_) cancel_->store(true);
}

void ResultsLoader::startNext() {
    if (queue_.isEmpty()) {
        emit idle();
        return;
    }
    const QString path = queue_.takeFirst();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto cancelFlag = cancel_;
    QPointer<ResultsLoader> self(this);
    emit started(path);
    thread_ = QThread::create([self, path, cancelFlag] {
        auto result = std::make_shared<CsvReadResult>();
        QString error;
        CsvReadOptions options;
        int lastPermille = -1;
        options.progress = [&](uint64_t done, uint64_t total) {
            const int permille = total ? static_cast<int>(1000 * done / total) : 1000;
            if (permille != lastPermille && self) {
                lastPermille = permille;
                const double fraction = permille / 1000.0;
                QMetaObject::invokeMethod(
                    self, [self, path, fraction] { emit self->progress(path, fraction); },
                    Qt::QueuedConnection);
            }
            return !cancelFlag->load();
        };
        try {
            *result = read_results_csv(path.toStdString(), options);
        } catch (const Error& e) {
            error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            error = path + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
        if (cancelFlag->load()) result->cancelled = true;
        QMetaObject::invokeMethod(
            self, [self, path, result, error] { self->finish(path, result, error); },
            Qt::QueuedConnection);
    });
    thread_->start();
}

void ResultsLoader::finish(const QString& path, std::shared_ptr<CsvReadResult> result,
                           const QString& error) {
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
    if (!error.isEmpty()) {
        emit failed(path, error);
    } else if (result->cancelled) {
        emit cancelled(path);
    } else {
        QStringList warnings;
        for (const auto& w : result->warnings) warnings << QString::fromStdString(w);
        const size_t rows = result->table.rows();
        store_->addTable(path, std::move(*result));
        emit opened(path, rows, warnings);
    }
    startNext();
}

} // namespace gconv::ui
