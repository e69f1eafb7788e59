#pragma once
// The results the explorer shows: the rows of one or more CSV files and the live rows of a
// running sweep, in one columnar table (core's ResultTable) that every view reads. It also
// holds the current row, so that a click in a plot selects the row in the table and back.
#include "csv/csv_reader.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace gconv::ui {

class ResultStore : public QObject {
    Q_OBJECT
public:
    // Where a range of rows came from: a file, or the output of a sweep run from the explorer.
    struct Source {
        QString path;
        CsvForm form = CsvForm::Full;
        size_t firstRow = 0;
        size_t rowCount = 0;
        QStringList warnings;
    };

    explicit ResultStore(QObject* parent = nullptr);

    const ResultTable& table() const { return table_; }
    size_t rowCount() const { return table_.rows(); }
    ResultRow row(size_t index) const { return table_.row(index); }
    const std::vector<Source>& sources() const { return sources_; }
    // Index into sources() of the source that holds `row`, -1 if out of range.
    int sourceOf(size_t row) const;

    // Reads a CSV of any form and appends its rows. Throws gconv::Error with the reader's
    // message ("<path>:<line>: column ...: ..."); nothing is added then.
    void addFile(const QString& path, const CsvReadOptions& options = {});
    // Appends rows read elsewhere (for example by a loader thread), on the GUI thread.
    void addTable(const QString& path, CsvReadResult&& result);
    // Appends rows of a running sweep whose output is `sourcePath`; consecutive calls with
    // the same path extend one source.
    void appendRows(const std::vector<ResultRow>& rows, const QString& sourcePath);
    void clear();

    qint64 currentRow() const { return current_; }
    void setCurrentRow(qint64 row);

signals:
    // The column set or the whole content changes: views rebuild.
    void aboutToReset();
    void reset();
    // Rows [first, first + count) are about to be / have been appended; columns unchanged.
    void rowsAboutToBeAppended(size_t first, size_t count);
    void rowsAppended(size_t first, size_t count);
    void currentRowChanged(qint64 row);

private:
    ResultTable table_;
    std::vector<Source> sources_;
    qint64 current_ = -1;
};

} // namespace gconv::ui
