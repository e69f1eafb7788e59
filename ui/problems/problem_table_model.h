#pragma once
// The problems of the checked sets (and rows the user adds) with derived columns: output
// sizes, GFLOP, minimal MB for the dtype, arithmetic intensity and the implicit-GEMM M/N/K of
// the row's direction, all from core's Problem. Size columns are editable; every edit is
// checked with validate() and for repeated shapes, and a row that fails is marked (its
// messages in the tooltip) and cannot be saved.
#include "problem/problem_set.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace gconv::ui {

class ProblemTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ColSet,
        ColDirection,
        ColLayer,
        ColNdim,
        ColN,
        ColC,
        ColK,
        ColG,
        ColDi,
        ColHi,
        ColWi,
        ColZ,
        ColY,
        ColX,
        ColStrideD,
        ColStrideH,
        ColStrideW,
        ColPadD,
        ColPadH,
        ColPadW,
        ColDilationD,
        ColDilationH,
        ColDilationW,
        ColDo,
        ColHo,
        ColWo,
        ColGflop,
        ColMinMB,
        ColIntensity,
        ColGemmM,
        ColGemmN,
        ColGemmK,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;
    // The row's validation messages as a QStringList (empty when valid).
    static constexpr int ErrorsRole = Qt::UserRole + 1;

    struct Row {
        Problem problem;
        Variant direction = Variant::Forward;
        QString set; // registry key it came from; empty for rows added here
    };

    explicit ProblemTableModel(QObject* parent = nullptr);

    void setDtype(DataType dtype);
    DataType dtype() const { return dtype_; }

    const std::vector<Row>& rows() const { return rows_; }
    void appendRows(std::vector<Row> rows);
    // Removes the rows that came from a set.
    void removeSet(const QString& key);
    void clear();
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    // Messages of a row: validate()'s, then "duplicates row i" (1-based rows).
    QStringList rowErrors(int row) const;
    int invalidRowCount() const;
    // A set of the rows (key, direction of the rows); on failure returns false with every
    // reason it cannot be saved in `why` (bad rows, mixed directions, nothing to save).
    bool toProblemSet(const std::string& key, ProblemSet& out, QString& why) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    static bool isSizeColumn(int column) { return column >= ColN && column <= ColDilationW; }
    static int64_t Problem::*sizeMember(int column);

signals:
    // An edit was refused (not an integer, an unknown direction) or left its row invalid:
    // the message names the row and the field.
    void editProblem(int row, const QString& message);

private:
    void revalidate();
    QVariant derived(const Row& row, int column, int role) const;

    std::vector<Row> rows_;
    std::vector<QStringList> errors_;
    DataType dtype_ = DataType::BF16;
};

} // namespace gconv::ui
