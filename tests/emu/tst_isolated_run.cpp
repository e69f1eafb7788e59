// emu::run_isolated: the lines a child writes arrive in order, and how it ended is reported: run
// to its end, killed by a signal (a kernel past its guard page), stopped after its time (a loop
// that never ends), or an exception turned into an ERROR line.
#include "emu/isolated_run.h"

#include <QtTest>

#include <csignal>
#include <thread>

using gconv::emu::IsolatedExit;
using gconv::emu::run_isolated;

namespace {

using Emit = std::function<void(const std::string&)>;

IsolatedExit run(const std::function<void(const Emit&)>& work, QStringList& lines,
                 int timeout_s = 30) {
    return run_isolated(
        work, [&](const std::string& l) { lines << QString::fromStdString(l); },
        std::chrono::seconds(timeout_s));
}

} // namespace

class TestIsolatedRun : public QObject {
    Q_OBJECT

private slots:
    void lines_arrive_in_order_and_the_end_is_reported() {
        QStringList lines;
        const IsolatedExit e = run(
            [](const Emit& out) {
                for (int i = 0; i < 500; ++i) out("line " + std::to_string(i));
            },
            lines);
        QVERIFY2(e.completed, e.why.c_str());
        QCOMPARE(lines.size(), 500);
        QCOMPARE(lines.first(), QStringLiteral("line 0"));
        QCOMPARE(lines.last(), QStringLiteral("line 499"));
    }

    void a_fault_ends_only_the_child_and_keeps_the_lines_before() {
        QStringList lines;
        const IsolatedExit e = run(
            [](const Emit& out) {
                out("before");
                std::raise(SIGSEGV);
                out("after");
            },
            lines);
        QVERIFY(!e.completed);
        QVERIFY2(QString::fromStdString(e.why).contains("signal 11"), e.why.c_str());
        QCOMPARE(lines, QStringList{"before"});
    }

    void a_child_that_never_ends_is_stopped_after_its_time() {
        QStringList lines;
        const auto start = std::chrono::steady_clock::now();
        const IsolatedExit e = run(
            [](const Emit& out) {
                out("started");
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            },
            lines, 1);
        QVERIFY(!e.completed);
        QVERIFY2(QString::fromStdString(e.why).contains("no end after 1 s"), e.why.c_str());
        QCOMPARE(lines, QStringList{"started"});
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    }

    void an_exception_becomes_an_error_line() {
        QStringList lines;
        const IsolatedExit e =
            run([](const Emit&) { throw std::runtime_error("no module"); }, lines);
        QVERIFY(!e.completed);
        QVERIFY2(QString::fromStdString(e.why).contains("exit code 1"), e.why.c_str());
        QCOMPARE(lines, QStringList{"ERROR no module"});
    }
};

QTEST_APPLESS_MAIN(TestIsolatedRun)
#include "tst_isolated_run.moc"
