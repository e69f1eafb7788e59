#include "ui/results/result_store.h"

#include <algorithm>

namespace gconv::ui {

ResultStore::ResultStore(QObject* parent) : QObject(parent) {}

int ResultStore::sourceOf(size_t row) const {
    for (size_t i = 0; i < sources_.size(); ++i)
        if (row >= sources_[i].firstRow && row < sources_[i].firstRow + sources_[i].rowCount)
            return static_cast<int>(i);
    return -1;
}

void ResultStore::addFile(const QString& path, const CsvReadOptions& options) {
    addTable(path, read_results_csv(path.toStdString(), options));
}

void ResultStore::addTable(const QString& path, CsvReadResult&& result) {
    Source source;
    source.path = path;
    source.form = result.form;
    source.firstRow = table_.rows();
    source.rowCount = result.table.rows();
    for (const auto& w : result.warnings) source.warnings << QString::fromStdString(w);
    emit aboutToReset();
    if (table_.rows() == 0 && table_.columns().empty())
        table_ = std::move(result.table);
    else
        table_.append(result.table);
    sources_.push_back(std::move(source));
    current_ = -1;
    emit reset();
}

void ResultStore::appendRows(const std::vector<ResultRow>& rows, const QString& sourcePath) {
    if (rows.empty()) return;
    const ResultTable extra = make_result_table(rows);
    // The first live rows may bring columns the table lacks (a seed-form file is open): that
    // changes the column set, which views only take as a reset.
    bool newColumns = table_.columns().empty();
    for (const auto& c : extra.columns())
        if (!table_.column(c.name)) newColumns = true;
    const size_t first = table_.rows();
    if (newColumns)
        emit aboutToReset();
    else
        emit rowsAboutToBeAppended(first, rows.size());
    table_.append(extra);
    if (sources_.empty() || sources_.back().path != sourcePath ||
        sources_.back().firstRow + sources_.back().rowCount != first) {
        Source source;
        source.path = sourcePath;
        source.firstRow = first;
        sources_.push_back(source);
    }
    sources_.back().rowCount += rows.size();
    if (newColumns)
        emit reset();
    else
        emit rowsAppended(first, rows.size());
}

void ResultStore::clear() {
    emit aboutToReset();
    table_ = ResultTable();
    sources_.clear();
    current_ = -1;
    emit reset();
}

void ResultStore::setCurrentRow(qint64 row) {
    row = std::clamp<qint64>(row, -1, static_cast<qint64>(table_.rows()) - 1);
    if (row == current_) return;
    current_ = row;
    emit currentRowChanged(row);
}

} // namespace gconv::ui
