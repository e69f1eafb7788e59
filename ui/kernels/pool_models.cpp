#include "ui/kernels/pool_models.h"

#include "config/rules.h"

#include <QFont>

namespace gconv::ui {
namespace {

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString triple(int a, int b, int c) {
    return QStringLiteral("%1x%2x%3").arg(a).arg(b).arg(c);
}

// Sorts triples by their first, then second, then third number.
double tripleKey(int a, int b, int c) {
    return double(a) * 1e10 + double(b) * 1e5 + double(c);
}

QString yesNo(bool b) {
    return b ? QStringLiteral("yes") : QString();
}

} // namespace

void PoolTableModel::setRows(std::shared_ptr<const PoolSnapshot> snapshot, std::vector<int> rows) {
    beginResetModel();
    snapshot_ = std::move(snapshot);
    rows_ = std::move(rows);
    endResetModel();
}

int PoolTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int PoolTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(columns_.size());
}

QVariant PoolTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !snapshot_)
        return {};
    const int item = rows_[std::size_t(index.row())];
    const Column& column = columns_[std::size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        return column.value(item, role);
    case SortRole: {
        QVariant v = column.value(item, SortRole);
        return v.isValid() ? v : column.value(item, Qt::DisplayRole);
    }
    case IndexRole:
        return item;
    case Qt::TextAlignmentRole:
        return column.number ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                             : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant PoolTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= int(columns_.size()))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) return columns_[std::size_t(section)].title;
    if (role == Qt::ToolTipRole) return columns_[std::size_t(section)].toolTip;
    return {};
}

void PoolTableModel::addConfigColumns(std::function<const KernelConfig&(int)> config) {
    auto add = [&](QString title, QString tip, auto display, auto sort, bool number) {
        columns_.push_back({std::move(title), std::move(tip),
                            [config, display, sort](int i, int role) -> QVariant {
                                const KernelConfig& c = config(i);
                                if (role == SortRole) return sort(c);
                                if (role == Qt::ToolTipRole) return {};
                                return display(c);
                            },
                            number});
    };
    auto none = [](const KernelConfig&) { return QVariant(); };
    add(
        tr("dtype"), tr("element type"),
        [](const KernelConfig& c) { return text(to_string(c.dtype)); }, none, false);
    add(
        tr("nd"), tr("spatial dimensions"), [](const KernelConfig& c) { return c.ndim_spatial; },
        none, true);
    add(
        tr("tile"), tr("block tile M x N x K"),
        [](const KernelConfig& c) { return triple(c.tile_m, c.tile_n, c.tile_k); },
        [](const KernelConfig& c) { return tripleKey(c.tile_m, c.tile_n, c.tile_k); }, true);
    add(
        tr("wave"), tr("warps per block M x N x K"),
        [](const KernelConfig& c) { return triple(c.wave_m, c.wave_n, c.wave_k); },
        [](const KernelConfig& c) { return tripleKey(c.wave_m, c.wave_n, c.wave_k); }, true);
    add(
        tr("warp tile"), tr("per-warp MMA tile M x N x K"),
        [](const KernelConfig& c) { return triple(c.warp_tile_m, c.warp_tile_n, c.warp_tile_k); },
        [](const KernelConfig& c) {
            return tripleKey(c.warp_tile_m, c.warp_tile_n, c.warp_tile_k);
        },
        true);
    add(
        tr("pipeline"), tr("main-loop pipeline"),
        [](const KernelConfig& c) { return text(to_string(c.pipeline)); }, none, false);
    add(
        tr("scheduler"), tr("intrawave or interwave"),
        [](const KernelConfig& c) { return text(to_string(c.scheduler)); }, none, false);
    add(
        tr("epilogue"), tr("how the C tile is stored"),
        [](const KernelConfig& c) { return text(to_string(c.epilogue)); }, none, false);
    add(
        tr("vec a/b/c"), tr("global access widths of A, B, C in elements"),
        [](const KernelConfig& c) {
            return triple(c.vector_size_a, c.vector_size_b, c.vector_size_c);
        },
        [](const KernelConfig& c) {
            return tripleKey(c.vector_size_a, c.vector_size_b, c.vector_size_c);
        },
        true);
    add(
        tr("gm"), tr("num_groups_to_merge"),
        [](const KernelConfig& c) { return c.num_groups_to_merge; }, none, true);
    add(
        tr("dsb"), tr("double_smem_buffer"),
        [](const KernelConfig& c) { return yesNo(c.double_smem_buffer); },
        [](const KernelConfig& c) { return int(c.double_smem_buffer); }, false);
    add(
        tr("si"), tr("split_image"), [](const KernelConfig& c) { return yesNo(c.split_image); },
        [](const KernelConfig& c) { return int(c.split_image); }, false);
    add(
        tr("kx"), tr("runtime_filter: the filter size read at run time"),
        [](const KernelConfig& c) { return yesNo(c.runtime_filter); },
        [](const KernelConfig& c) { return int(c.runtime_filter); }, false);
    add(
        tr("cpad"), tr("channel_pad: the GEMM on a channel-padded copy"),
        [](const KernelConfig& c) { return yesNo(c.channel_pad); },
        [](const KernelConfig& c) { return int(c.channel_pad); }, false);
    add(
        tr("pn"), tr("pixels_on_n: output pixels on the wgmma instruction's N side"),
        [](const KernelConfig& c) { return yesNo(c.pixels_on_n); },
        [](const KernelConfig& c) { return int(c.pixels_on_n); }, false);
    add(
        tr("cn"), tr("cluster_n: blocks of a cluster along N sharing A by multicast"),
        [](const KernelConfig& c) { return c.cluster_n; }, none, true);
    add(
        tr("ck"), tr("cluster_k: blocks of a cluster along K summing their partial tiles"),
        [](const KernelConfig& c) { return c.cluster_k; }, none, true);
    add(
        tr("wg"), tr("num_wave_groups"), [](const KernelConfig& c) { return c.num_wave_groups; },
        none, true);
    add(
        tr("bpc"), tr("block_per_cu"), [](const KernelConfig& c) { return c.block_per_cu; }, none,
        true);
    add(
        tr("split-K"), tr("split_k and its reduction mode (bwd_weight, forward GEMM)"),
        [](const KernelConfig& c) {
            return c.split_k == 1 && c.split_k_mode == SplitKMode::None
                       ? QString()
                       : QStringLiteral("%1 %2").arg(c.split_k).arg(
                             text(to_string(c.split_k_mode)));
        },
        [](const KernelConfig& c) { return c.split_k * 4 + int(c.split_k_mode); }, true);
}

KernelListModel::KernelListModel(QObject* parent) : PoolTableModel(parent) {
    columns_.push_back({tr("kernel"), tr("the kernel's name: its identity (kernel_name.h)"),
                        [this](int i, int) -> QVariant {
                            return QString::fromStdString(snapshot_->kernelNames[std::size_t(i)]);
                        },
                        false});
    addConfigColumns(
        [this](int i) -> const KernelConfig& { return snapshot_->pool.kernels[std::size_t(i)]; });
    columns_.push_back({tr("threads"), tr("threads per block on the architecture"),
                        [this](int i, int role) -> QVariant {
                            if (role == Qt::ToolTipRole) return {};
                            return snapshot_->kernelThreads[std::size_t(i)];
                        },
                        true});
    columns_.push_back({tr("smem KiB"),
                        tr("dynamic shared memory per block (every pipeline stage, the cshuffle "
                           "tile, compv5's reduction buffer)"),
                        [this](int i, int role) -> QVariant {
                            const double bytes =
                                double(snapshot_->kernelSharedBytes[std::size_t(i)]);
                            if (role == SortRole) return bytes;
                            if (role == Qt::ToolTipRole)
                                return QStringLiteral("%1 bytes").arg(qint64(bytes));
                            return QString::number(bytes / 1024.0, 'f', 1);
                        },
                        true});
}

CulledListModel::CulledListModel(QObject* parent) : PoolTableModel(parent) {
    auto reasons = [this](int i) -> const std::vector<CullReason>& {
        return snapshot_->pool.culled[std::size_t(i)].reasons;
    };
    auto allReasons = [reasons](int i) {
        QStringList lines;
        for (const auto& r : reasons(i))
            lines << text(rule_id(r.rule)) + QStringLiteral(": ") +
                         QString::fromStdString(r.message);
        return lines;
    };
    columns_.push_back({tr("configuration"), tr("the name the configuration would have"),
                        [this, allReasons](int i, int role) -> QVariant {
                            if (role == Qt::ToolTipRole)
                                return allReasons(i).join(QLatin1Char('\n'));
                            return QString::fromStdString(snapshot_->culledNames[std::size_t(i)]);
                        },
                        false});
    columns_.push_back({tr("rules"), tr("the rules it fails (docs/rules.md)"),
                        [reasons](int i, int role) -> QVariant {
                            if (role == Qt::ToolTipRole) return {};
                            QStringList ids;
                            for (const auto& r : reasons(i)) ids << text(rule_id(r.rule));
                            return ids.join(QStringLiteral(", "));
                        },
                        false});
    columns_.push_back({tr("reasons"), tr("why, rule by rule"),
                        [allReasons](int i, int role) -> QVariant {
                            if (role == Qt::ToolTipRole)
                                return allReasons(i).join(QLatin1Char('\n'));
                            return allReasons(i).join(QStringLiteral("; "));
                        },
                        false});
    addConfigColumns([this](int i) -> const KernelConfig& {
        return snapshot_->pool.culled[std::size_t(i)].config;
    });
}

} // namespace gconv::ui
