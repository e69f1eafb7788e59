#pragma once
// The record and schemas the filter suites run on: a few numbers, strings, a bool and a
// field of kind Any, shaped like a kernel configuration (root `c`) or a CSV row (bare).
#include "filter/field_schema.h"

#include <QByteArray>
#include <QtGlobal>

#include <array>
#include <cstdlib>
#include <random>
#include <string>

namespace gconv::test {

enum FilterTestSlot : std::size_t {
    kTileM,
    kTileN,
    kTileK,
    kPipeline,
    kName,
    kPadM,
    kLatency,
    kSlotCount
};

inline std::vector<FieldInfo> filter_test_fields() {
    return {{"tile_m", FieldKind::Number}, {"tile_n", FieldKind::Number},
            {"tile_k", FieldKind::Number}, {"pipeline", FieldKind::String},
            {"name", FieldKind::String},   {"pad_m", FieldKind::Bool},
            {"latency", FieldKind::Any}};
}

// `c.tile_m` and bare `tile_m`, like the --filter of the instance builder.
inline FieldSchema config_schema() {
    return FieldSchema(filter_test_fields()).allow_root("c");
}
// `c.tile_m` only.
inline FieldSchema strict_config_schema() {
    return config_schema().allow_bare_names(false);
}
// Bare names only, like the explorer's filter over CSV rows.
inline FieldSchema row_schema() {
    return FieldSchema(filter_test_fields());
}

struct FilterTestRecord final : FieldSource {
    double tile_m = 1, tile_n = 1, tile_k = 1;
    std::string pipeline = "compv3", name = "kernel";
    bool pad_m = true;
    FilterValue latency = FilterValue::from_number(1.0);
    mutable std::array<int, kSlotCount> reads{};

    FilterValue value(std::size_t slot) const override {
        ++reads.at(slot);
        switch (slot) {
        case kTileM:
            return FilterValue::from_number(tile_m);
        case kTileN:
            return FilterValue::from_number(tile_n);
        case kTileK:
            return FilterValue::from_number(tile_k);
        case kPipeline:
            return FilterValue::from_string(pipeline);
        case kName:
            return FilterValue::from_string(name);
        case kPadM:
            return FilterValue::from_bool(pad_m);
        case kLatency:
            return latency;
        default:
            break;
        }
        std::abort(); // a filter asked for a slot its schema does not have
    }
};

// The seed comes from GCONV_TEST_SEED when set, so a failure can be replayed.
inline std::mt19937& filter_test_rng() {
    static std::mt19937 rng = [] {
        const QByteArray fixed = qgetenv("GCONV_TEST_SEED");
        const unsigned seed = fixed.isEmpty() ? std::random_device{}() : fixed.toUInt();
        qInfo("filter tests: GCONV_TEST_SEED=%u", seed);
        return std::mt19937(seed);
    }();
    return rng;
}

inline int random_int(int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(filter_test_rng());
}

inline std::string random_word(int min_length, int max_length) {
    std::string word;
    const int length = random_int(min_length, max_length);
    for (int i = 0; i < length; ++i) word += static_cast<char>('a' + random_int(0, 25));
    return word;
}

inline FilterTestRecord random_record() {
    static const char* const pipelines[] = {"compv3", "compv4", "compv5", "mem", "basic_v1"};
    FilterTestRecord record;
    record.tile_m = random_int(1, 8) * 16;
    record.tile_n = random_int(1, 8) * 16;
    record.tile_k = random_int(1, 9);
    record.pipeline = pipelines[random_int(0, 4)];
    record.name = random_word(1, 12);
    record.pad_m = random_int(0, 1) == 1;
    record.latency = FilterValue::from_number(random_int(1, 1000) / 8.0);
    return record;
}

} // namespace gconv::test
