#include "ui/sweep/sweep_settings.h"

#include <QSettings>

namespace gconv::ui {

QStringList SweepSettings::benchArguments() const {
    QStringList args{"--variant", variant, "--progress", "jsonl"};
    if (!configPath.isEmpty()) args << "--config" << configPath;
    if (!problemKeys.isEmpty()) args << "--problems" << problemKeys.join(',');
    args << "--output" << outputPath;
    args << "--arch" << (arch.isEmpty() ? QStringLiteral("auto") : arch);
    if (!devices.trimmed().isEmpty()) args << "--devices" << devices.trimmed();
    if (workers > 0) args << "--workers" << QString::number(workers);
    args << "--batch-size" << QString::number(batchSize);
    args << "--kernel-timeout" << QString::number(kernelTimeoutS, 'g', 10);
    args << "--warmup" << QString::number(warmup) << "--repeat" << QString::number(repeat);
    if (!launchHold)
        args << "--launch-hold"
             << "off";
    if (resume) args << "--resume";
    if (!baseline.isEmpty() && baseline != QLatin1String("none")) args << "--baseline" << baseline;
    if (!filter.trimmed().isEmpty()) args << "--filter" << filter.trimmed();
    if (maxKernels > 0) args << "--max-kernels" << QString::number(maxKernels);
    if (!workerPath.isEmpty()) args << "--worker" << workerPath;
    args << extraArguments;
    return args;
}

void SweepSettings::save(QSettings& s) const {
    s.beginGroup(QStringLiteral("sweep"));
    s.setValue("variant", variant);
    s.setValue("config", configPath);
    s.setValue("problems", problemKeys);
    s.setValue("arch", arch);
    s.setValue("devices", devices);
    s.setValue("workers", workers);
    s.setValue("batch_size", batchSize);
    s.setValue("kernel_timeout_s", kernelTimeoutS);
    s.setValue("warmup", warmup);
    s.setValue("repeat", repeat);
    s.setValue("launch_hold", launchHold);
    s.setValue("resume", resume);
    s.setValue("baseline", baseline);
    s.remove("cudnnBaseline");
    s.setValue("filter", filter);
    s.setValue("max_kernels", maxKernels);
    s.setValue("output", outputPath);
    s.setValue("worker", workerPath);
    s.endGroup();
}

SweepSettings SweepSettings::load(QSettings& s) {
    SweepSettings d;
    SweepSettings out;
    s.beginGroup(QStringLiteral("sweep"));
    out.variant = s.value("variant", d.variant).toString();
    out.configPath = s.value("config", d.configPath).toString();
    out.problemKeys = s.value("problems", d.problemKeys).toStringList();
    out.arch = s.value("arch", d.arch).toString();
    out.devices = s.value("devices", d.devices).toString();
    out.workers = s.value("workers", d.workers).toInt();
    out.batchSize = s.value("batch_size", d.batchSize).toInt();
    out.kernelTimeoutS = s.value("kernel_timeout_s", d.kernelTimeoutS).toDouble();
    out.warmup = s.value("warmup", d.warmup).toInt();
    out.repeat = s.value("repeat", d.repeat).toInt();
    out.launchHold = s.value("launch_hold", d.launchHold).toBool();
    out.resume = s.value("resume", d.resume).toBool();
    // Settings from before the MIOpen choice kept a cuDNN on / off switch.
    const QString legacy =
        s.value("cudnnBaseline", false).toBool() ? QStringLiteral("cudnn") : d.baseline;
    out.baseline = s.value("baseline", legacy).toString();
    out.filter = s.value("filter", d.filter).toString();
    out.maxKernels = s.value("max_kernels", d.maxKernels).toInt();
    out.outputPath = s.value("output", d.outputPath).toString();
    out.workerPath = s.value("worker", d.workerPath).toString();
    s.endGroup();
    return out;
}

} // namespace gconv::ui
