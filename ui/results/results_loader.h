#pragma once
// Reads results CSVs off the GUI thread, one file at a time, with progress and cancel. The
// rows are handed to the ResultStore on the GUI thread only when a file was read completely;
// a corrupt or cancelled file changes nothing.
#include "ui/results/result_store.h"

#include <QObject>
#include <QStringList>

#include <atomic>
#include <memory>

class QThread;

namespace gconv::ui {

class ResultsLoader : public QObject {
    Q_OBJECT
public:
    explicit ResultsLoader(ResultStore* store, QObject* parent = nullptr);
    ~ResultsLoader() override;

    // Queues the files; they are read in order.
    void open(const QStringList& paths);
    // Stops the file being read (its rows are dropped) and forgets the queue.
    void cancel();
    bool busy() const { return thread_ != nullptr; }

signals:
    void started(const QString& path);
    // Fraction read, 0..1.
    void progress(const QString& path, double fraction);
    void opened(const QString& path, size_t rows, const QStringList& warnings);
    // The reader's message, e.g. "<path>:<line>: column \"<name>\": ...".
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);
    void idle();

private:
    void startNext();
    void finish(const QString& path, std::shared_ptr<CsvReadResult> result, const QString& error);

    ResultStore* store_;
    QStringList queue_;
    QThread* thread_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

} // namespace gconv::ui
