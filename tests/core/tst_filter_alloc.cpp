// The explorer filters a million CSV rows per keystroke: evaluation must not allocate.
// This suite replaces the global allocation functions to count allocations made while
// matching bound filters over random records.
#include "filter/filter_expression.h"

#include "filter_test_record.h"

#include <QElapsedTimer>
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void* counted_allocation(std::size_t size) {
    if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}
} // namespace

void* operator new(std::size_t size) {
    return counted_allocation(size);
}
void* operator new[](std::size_t size) {
    return counted_allocation(size);
}
void operator delete(void* memory) noexcept {
    std::free(memory);
}
void operator delete[](void* memory) noexcept {
    std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
    std::free(memory);
}
void operator delete[](void* memory, std::size_t) noexcept {
    std::free(memory);
}

using namespace gconv;
using namespace gconv::test;

class TestFilterAlloc : public QObject {
    Q_OBJECT

private slots:
    void matchingDoesNotAllocate_data();
    void matchingDoesNotAllocate();
    void millionRows();
};

void TestFilterAlloc::matchingDoesNotAllocate_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("numbers") << "c.tile_n >= 64 and c.tile_m * 2 - tile_k % 3 > 100";
    QTest::newRow("chain") << "16 < tile_m <= 96 < tile_n + 40";
    QTest::newRow("strings") << "c.pipeline == 'compv5' or name < 'm' and pipeline != \"mem\"";
    QTest::newRow("membership")
        << "pipeline in ['compv3', 'compv4', 'mem'] or tile_m not in [16, 32]";
    QTest::newRow("bools") << "not pad_m or pad_m + 1 == 2 and True";
    QTest::newRow("any field") << "latency / 2 > 10 or latency == 'N/A'";
    QTest::newRow("mixed equality") << "tile_m != 'x' and pipeline != 3";
}

void TestFilterAlloc::matchingDoesNotAllocate() {
    QFETCH(QString, text);
    auto filter = FilterExpression::parse(text.toStdString());
    filter.bind(config_schema());
    std::vector<FilterTestRecord> records;
    for (int i = 0; i < 2000; ++i) records.push_back(random_record());
    long passed = 0;
    allocations = 0;
    counting = true;
    for (int round = 0; round < 20; ++round)
        for (const auto& record : records) passed += filter.matches(record);
    counting = false;
    QCOMPARE(allocations.load(), 0L);
    // The loop did real work (and the counter works: parsing allocates).
    QVERIFY(passed > 0);
    counting = true;
    const auto again = FilterExpression::parse(text.toStdString());
    counting = false;
    QVERIFY(allocations.load() > 0);
    QVERIFY(!again.empty());
}

void TestFilterAlloc::millionRows() {
    auto filter = FilterExpression::parse("tflops > 100 and G == 32 or kernel == 'k7'");
    filter.bind(FieldSchema(
        {{"kernel", FieldKind::String}, {"G", FieldKind::Number}, {"tflops", FieldKind::Number}}));
    struct Row final : FieldSource {
        std::string kernel;
        double groups = 0, tflops = 0;
        FilterValue value(std::size_t slot) const override {
            if (slot == 0) return FilterValue::from_string(kernel);
            return FilterValue::from_number(slot == 1 ? groups : tflops);
        }
    };
    std::vector<Row> rows(1'000'000);
    long expected = 0;
    for (auto& row : rows) {
        row.kernel = "k" + std::to_string(random_int(1, 9));
        row.groups = random_int(1, 4) * 16;
        row.tflops = random_int(1, 2000) / 10.0;
        expected += (row.tflops > 100 && row.groups == 32) || row.kernel == "k7";
    }
    QElapsedTimer timer;
    timer.start();
    allocations = 0;
    counting = true;
    long passed = 0;
    for (const auto& row : rows) passed += filter.matches(row);
    counting = false;
    const auto elapsed = timer.elapsed();
    qInfo("1,000,000 rows filtered in %lld ms", static_cast<long long>(elapsed));
    QCOMPARE(passed, expected);
    QCOMPARE(allocations.load(), 0L);
    // Generous: a regression to per-row allocation or string lookups shows up far above it.
    QVERIFY2(elapsed < 5000, "filtering a million rows took more than 5 s");
}

QTEST_APPLESS_MAIN(TestFilterAlloc)
#include "tst_filter_alloc.moc"
