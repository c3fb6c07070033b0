#pragma once
// Private: the spelling of every enum in the spec files, both ways, and the "a, b, c" list for messages.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/precision.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/scenario.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::specs::detail {

template <class E, std::size_t N>
using EnumNames = std::array<std::pair<E, std::string_view>, N>;

inline constexpr EnumNames<Precision, 7> kPrecisionNames{{{Precision::fp32, "fp32"},
                                                          {Precision::bf16, "bf16"},
                                                          {Precision::fp16, "fp16"},
                                                          {Precision::fp8, "fp8"},
                                                          {Precision::fp4, "fp4"},
                                                          {Precision::nvfp4, "nvfp4"},
                                                          {Precision::int4, "int4"}}};
inline constexpr EnumNames<AttentionType, 3> kAttentionNames{
    {{AttentionType::gqa, "gqa"}, {AttentionType::mla, "mla"}, {AttentionType::csa, "csa"}}};
inline constexpr EnumNames<LinearAttentionKind, 2> kLinearAttentionKindNames{
    {{LinearAttentionKind::gated_deltanet, "gated_deltanet"}, {LinearAttentionKind::mamba2, "mamba2"}}};
inline constexpr EnumNames<LengthKind, 4> kLengthKindNames{{{LengthKind::fixed, "fixed"},
                                                            {LengthKind::uniform, "uniform"},
                                                            {LengthKind::lognormal, "lognormal"},
                                                            {LengthKind::empirical, "empirical"}}};
inline constexpr EnumNames<ArrivalKind, 4> kArrivalKindNames{{{ArrivalKind::poisson, "poisson"},
                                                              {ArrivalKind::gamma, "gamma"},
                                                              {ArrivalKind::closed_loop, "closed_loop"},
                                                              {ArrivalKind::trace, "trace"}}};
inline constexpr EnumNames<ArrivalStart, 2> kArrivalStartNames{
    {{ArrivalStart::together, "together"}, {ArrivalStart::spread, "spread"}}};
inline constexpr EnumNames<PrefixPopularity, 2> kPrefixPopularityNames{
    {{PrefixPopularity::uniform, "uniform"}, {PrefixPopularity::zipf, "zipf"}}};
inline constexpr EnumNames<RouterPolicy, 5> kRouterNames{{{RouterPolicy::round_robin, "round_robin"},
                                                          {RouterPolicy::least_outstanding, "least_outstanding"},
                                                          {RouterPolicy::least_kv_load, "least_kv_load"},
                                                          {RouterPolicy::power_of_two, "power_of_two"},
                                                          {RouterPolicy::prefix_aware, "prefix_aware"}}};
inline constexpr EnumNames<SchedulerPolicy, 4> kSchedulerPolicyNames{{{SchedulerPolicy::vllm, "vllm"},
                                                                      {SchedulerPolicy::sglang, "sglang"},
                                                                      {SchedulerPolicy::trtllm, "trtllm"},
                                                                      {SchedulerPolicy::atom, "atom"}}};
inline constexpr EnumNames<PreemptionMode, 2> kPreemptionNames{
    {{PreemptionMode::recompute, "recompute"}, {PreemptionMode::swap, "swap"}}};
inline constexpr EnumNames<CapacityPolicy, 2> kCapacityPolicyNames{
    {{CapacityPolicy::guaranteed_no_evict, "guaranteed_no_evict"},
     {CapacityPolicy::max_utilization, "max_utilization"}}};
inline constexpr EnumNames<SpeculativeMethod, 1> kSpeculativeMethodNames{{{SpeculativeMethod::mtp, "mtp"}}};
inline constexpr EnumNames<ExpertDistribution, 3> kExpertDistributionNames{
    {{ExpertDistribution::balanced, "balanced"},
     {ExpertDistribution::power_law, "power_law"},
     {ExpertDistribution::shares, "shares"}}};
inline constexpr EnumNames<PricingKind, 2> kPricingNames{
    {{PricingKind::on_demand, "on_demand"}, {PricingKind::reserved, "reserved"}}};
inline constexpr EnumNames<PresetKind, 3> kPresetKindNames{
    {{PresetKind::model, "model"}, {PresetKind::hardware, "hardware"}, {PresetKind::scenario, "scenario"}}};

template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumNames<E, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> value_of(const EnumNames<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

template <class E, std::size_t N>
std::string valid_names(const EnumNames<E, N>& table) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += ", ";
    out += entry.second;
  }
  return out;
}

}  // namespace fleetcast::specs::detail
