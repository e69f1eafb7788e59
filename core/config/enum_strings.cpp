#include "config/enums.h"

#include <array>
#include <utility>

namespace gconv {
namespace {

template <typename E, std::size_t N> using Table = std::array<std::pair<E, std::string_view>, N>;

constexpr Table<Variant, 3> k_variants{{
    {Variant::Forward, "forward"},
    {Variant::BwdData, "bwd_data"},
    {Variant::BwdWeight, "bwd_weight"},
}};
constexpr Table<DataType, 3> k_dtypes{{
    {DataType::BF16, "bf16"},
    {DataType::FP16, "fp16"},
    {DataType::FP32, "fp32"},
}};
constexpr Table<Pipeline, 10> k_pipelines{{
    {Pipeline::BasicV1, "basic_v1"},
    {Pipeline::Mem, "mem"},
    {Pipeline::CompV3, "compv3"},
    {Pipeline::CompV4, "compv4"},
    {Pipeline::CompV5, "compv5"},
    {Pipeline::CompV6, "compv6"},
    {Pipeline::CompAsync, "comp_async"},
    {Pipeline::Direct, "direct"},
    {Pipeline::DirectMma, "direct_mma"},
    {Pipeline::DirectWgmma, "direct_wgmma"},
}};
constexpr Table<Scheduler, 2> k_schedulers{{
    {Scheduler::Intrawave, "intrawave"},
    {Scheduler::Interwave, "interwave"},
}};
constexpr Table<Epilogue, 3> k_epilogues{{
    {Epilogue::CShuffle, "cshuffle"},
    {Epilogue::Direct, "direct"},
    {Epilogue::CShuffleBuf, "cshufflebuf"},
}};
constexpr Table<SplitKMode, 3> k_split_k_modes{{
    {SplitKMode::None, "none"},
    {SplitKMode::Atomic, "atomic"},
    {SplitKMode::TwoStage, "2stage"},
}};

template <typename E> constexpr const auto& table();
template <> constexpr const auto& table<Variant>() {
    return k_variants;
}
template <> constexpr const auto& table<DataType>() {
    return k_dtypes;
}
template <> constexpr const auto& table<Pipeline>() {
    return k_pipelines;
}
template <> constexpr const auto& table<Scheduler>() {
    return k_schedulers;
}
template <> constexpr const auto& table<Epilogue>() {
    return k_epilogues;
}
template <> constexpr const auto& table<SplitKMode>() {
    return k_split_k_modes;
}

} // namespace

template <typename E> std::string_view to_string(E value) {
    for (const auto& [v, name] : table<E>())
        if (v == value) return name;
    return "?";
}

template <typename E> std::optional<E> enum_from_string(std::string_view text) {
    for (const auto& [v, name] : table<E>())
        if (name == text) return v;
    return std::nullopt;
}

template <typename E> std::vector<std::string> enum_names() {
    std::vector<std::string> out;
    for (const auto& entry : table<E>()) out.emplace_back(entry.second);
    return out;
}

template <typename E> std::vector<E> enum_values() {
    std::vector<E> out;
    for (const auto& entry : table<E>()) out.push_back(entry.first);
    return out;
}

#define GCONV_INSTANTIATE_ENUM(E)                                                                  \
    template std::string_view to_string<E>(E);                                                     \
    template std::optional<E> enum_from_string<E>(std::string_view);                               \
    template std::vector<std::string> enum_names<E>();                                             \
    template std::vector<E> enum_values<E>();

GCONV_INSTANTIATE_ENUM(Variant)
GCONV_INSTANTIATE_ENUM(DataType)
GCONV_INSTANTIATE_ENUM(Pipeline)
GCONV_INSTANTIATE_ENUM(Scheduler)
GCONV_INSTANTIATE_ENUM(Epilogue)
GCONV_INSTANTIATE_ENUM(SplitKMode)
#undef GCONV_INSTANTIATE_ENUM

int element_bytes(DataType dtype) {
    return dtype == DataType::FP32 ? 4 : 2;
}

} // namespace gconv
