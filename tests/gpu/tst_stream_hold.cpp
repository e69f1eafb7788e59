// The stream hold (worker/stream_hold.h) on a real device: a run of launches whose host side is
// slower than their GPU side is timed with the host's gaps when queued as it comes, and
// without them when it waits behind the hold (LaunchTimer while the hold is enabled, the
// default; disabled it times them as they come); a hold
// nobody releases lets go after its time-out. Skips where no device is visible (the CI
// machines).
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/hip_check.h"
#include "gpu/stream.h"
#include "worker/launch_timer.h"
#include "worker/stream_hold.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

using namespace gconv;

namespace {

constexpr int k_launches = 8;
constexpr auto k_host_gap = std::chrono::microseconds(400);

float median(std::vector<float> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

} // namespace

class TestStreamHold : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        gpu::make_context_current(0);
    }

    void held_runs_leave_the_host_gaps_out() {
        gpu::Stream stream;
        gpu::DeviceBuffer buffer(4096);
        // Each launch spends 0.4 ms on the host before a few microseconds of GPU work.
        auto launch = [&] {
            std::this_thread::sleep_for(k_host_gap);
            GCONV_HIP_CHECK(hipMemsetAsync(buffer.data(), 0, buffer.bytes(), stream.get()));
        };
        launch();
        stream.synchronize();
        // As it comes: an event after each launch, nothing holding the stream.
        std::vector<hipEvent_t> events(k_launches + 1);
        for (auto& e : events) GCONV_HIP_CHECK(hipEventCreate(&e));
        GCONV_HIP_CHECK(hipEventRecord(events[0], stream.get()));
        for (int i = 0; i < k_launches; ++i) {
            launch();
            GCONV_HIP_CHECK(hipEventRecord(events[std::size_t(i + 1)], stream.get()));
        }
        GCONV_HIP_CHECK(hipEventSynchronize(events.back()));
        std::vector<float> unheld(k_launches);
        for (int i = 0; i < k_launches; ++i)
            GCONV_HIP_CHECK(hipEventElapsedTime(&unheld[std::size_t(i)], events[std::size_t(i)],
                                                events[std::size_t(i + 1)]));
        for (auto e : events) GCONV_HIP_CHECK(hipEventDestroy(e));
        QVERIFY2(median(unheld) > 0.3f, qPrintable(QString::number(median(unheld))));

        worker::LaunchTimer timer(k_launches);
        worker::StreamHold::set_enabled(false);
        QVERIFY(worker::StreamHold::active() == nullptr);
        const std::vector<float> free = timer.run(stream.get(), launch);
        QVERIFY2(median(free) > 0.3f, qPrintable(QString::number(median(free))));
        worker::StreamHold::set_enabled(true);
        QVERIFY(worker::StreamHold::active() != nullptr);
        const std::vector<float> held = timer.run(stream.get(), launch);
        QCOMPARE(int(held.size()), k_launches);
        QVERIFY2(median(held) < 0.1f, qPrintable(QString::number(median(held))));
        QVERIFY(*std::min_element(held.begin(), held.end()) > 0.0f);
    }

    void an_unreleased_hold_lets_go_after_its_time_out() {
        std::string why;
        auto hold = worker::StreamHold::create(why);
        QVERIFY2(hold, why.c_str());
        gpu::Stream stream;
        const auto start = std::chrono::steady_clock::now();
        hold->hold(stream.get());
        stream.synchronize();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(s > 0.2 && s < 10.0, qPrintable(QString::number(s)));
        // A released hold goes at once.
        const auto again = std::chrono::steady_clock::now();
        hold->hold(stream.get());
        hold->release();
        stream.synchronize();
        QVERIFY(std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count() <
                0.2);
    }
};

QTEST_APPLESS_MAIN(TestStreamHold)
#include "tst_stream_hold.moc"
