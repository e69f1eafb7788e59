// gconv-explorer: the desktop explorer. Opens results CSVs given on the command line (or the
// bundled sample measured on an H200), a trait config with --config, and with --screenshots
// writes a PNG of every page and quits (for docs and for checking the layout headless).
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("gconv");
    QApplication::setApplicationName("gconv-explorer");
    QApplication::setApplicationVersion(GCONV_VERSION);

    QCommandLineParser cli;
    cli.setApplicationDescription(
        "Explore grouped-convolution kernel pools, run gconv-bench sweeps and browse results.");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("csv", "results CSV files to open (gconv's or the tile engine's)",
                              "[csv...]");
    QCommandLineOption config("config", "trait config to open on the Kernels page", "file");
    QCommandLineOption noSample("no-sample", "do not open the bundled sample results");
    QCommandLineOption page("page",
                            "page to show first (kernels, problems, sweep, results, "
                            "plots, compare)",
                            "name");
    QCommandLineOption shots("screenshots", "write a PNG of every page into dir and quit", "dir");
    QCommandLineOption wait("wait-ms", "with --screenshots: time to let files load first", "ms",
                            "2500");
    cli.addOptions({config, noSample, page, shots, wait});
    cli.process(app);

    gconv::ui::MainWindow window;
    if (cli.isSet(config) && !window.openConfig(cli.value(config))) {
        std::fprintf(stderr, "gconv-explorer: cannot open the config %s\n",
                     qPrintable(cli.value(config)));
    }
    const QStringList files = cli.positionalArguments();
    if (!files.isEmpty())
        window.openResults(files);
    else if (!cli.isSet(noSample))
        window.openSampleResults();
    if (cli.isSet(page)) {
        const QString wanted = cli.value(page).toLower();
        bool known = false;
        for (int i = 0; i < gconv::ui::MainWindow::PageCount; ++i)
            if (gconv::ui::MainWindow::pageName(gconv::ui::MainWindow::Page(i)).toLower() ==
                wanted) {
                window.showPage(gconv::ui::MainWindow::Page(i));
                known = true;
            }
        if (!known) {
            std::fprintf(stderr,
                         "gconv-explorer: --page: unknown page '%s' (allowed: kernels, problems, "
                         "sweep, results, plots, compare)\n",
                         qPrintable(wanted));
            return 2;
        }
    }
    window.show();

    if (cli.isSet(shots)) {
        const QString dir = cli.value(shots);
        QTimer::singleShot(cli.value(wait).toInt(), &window, [&window, dir] {
            const QStringList written = window.saveScreenshots(dir);
            for (const QString& f : written) std::printf("%s\n", qPrintable(f));
            QApplication::exit(written.size() == gconv::ui::MainWindow::PageCount ? 0 : 1);
        });
    }
    return app.exec();
}
