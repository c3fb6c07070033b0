// A profile's figures against the kernel-level ones (calibration/kernel_caveats.hpp): above the best a kernel was
// measured to reach, or under half of it, is flagged; the datasheet profile itself and figures within the range are
// not.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;

namespace {

const calibration::KernelCaveat* find(const std::vector<calibration::KernelCaveat>& all, const std::string& field) {
  for (const auto& c : all)
    if (c.field == field) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("a datasheet profile is within its own kernel-level figures", "[caveats]") {
  for (const char* hw : {"h100", "h200", "b200", "b300", "gb200"}) {
    const calibration::Profile d = calibration::datasheet_profile_for(specs::hardware_preset(hw), "vllm");
    INFO(hw);
    CHECK(d.kind == "datasheet");
    CHECK(calibration::kernel_caveats(d, d).empty());
  }
}

TEST_CASE("figures faster than any kernel or under half of the kernels' are flagged, and only those", "[caveats]") {
  const calibration::Profile d = calibration::datasheet_profile_for(specs::hardware_preset("h100"), "vllm");
  REQUIRE(d.matmul_efficiency.at("bf16") == Approx(0.80));  // MAMF, REFERENCE.md s4
  calibration::Profile p = d;
  p.matmul_efficiency["bf16"] = 1.0;      // above the best BF16 matmul measured on an H100
  p.matmul_efficiency["fp8"] = 0.35;      // 0.35 < 0.71 / 2
  p.attention_compute_efficiency = 0.80;  // at the ceiling: not flagged
  p.memory_efficiency = 0.44;             // under 0.90 / 2
  p.nvlink_efficiency = 1.0;              // NVLS reaches the one-way bandwidth: not flagged
  p.expert_kernel_efficiency = {{"fp8", 0.40}, {"fp4", 0.60}};
  const auto caveats = calibration::kernel_caveats(p, d);
  CHECK(caveats.size() == 4);
  const auto* bf16 = find(caveats, "matmul_efficiency.bf16");
  REQUIRE(bf16);
  CHECK(bf16->above);
  CHECK(bf16->kernel == Approx(0.80));
  const auto* fp8 = find(caveats, "matmul_efficiency.fp8");
  REQUIRE(fp8);
  CHECK_FALSE(fp8->above);
  CHECK(find(caveats, "memory_efficiency"));
  CHECK(find(caveats, "expert_kernel_efficiency.fp8"));
  CHECK_FALSE(find(caveats, "expert_kernel_efficiency.fp4"));
  CHECK_FALSE(find(caveats, "attention_compute_efficiency"));
  CHECK_FALSE(find(caveats, "nvlink_efficiency"));
  CHECK(calibration::describe(*bf16) == "matmul_efficiency.bf16 1.00 above the best kernel-level 0.80");
  CHECK(calibration::describe(*fp8) == "matmul_efficiency.fp8 0.35 below half of the kernel-level 0.71");

  p.attention_compute_efficiency = 0.81;  // just above the 0.80 ceiling
  CHECK(find(calibration::kernel_caveats(p, d), "attention_compute_efficiency"));
}

TEST_CASE("the short list of caveats reads back their JSON form, and skips entries it cannot read", "[caveats]") {
  const std::vector<calibration::KernelCaveat> caveats = {{"matmul_efficiency.bf16", 0.99, 0.80, true},
                                                          {"memory_efficiency", 0.4, 0.90, false}};
  nlohmann::json j = calibration::to_json(caveats);
  CHECK(calibration::short_list(j) == "matmul_efficiency.bf16 0.99 > 0.80, memory_efficiency 0.40 < half of 0.90");
  j.push_back({{"field", "nvlink_efficiency"}, {"value", "high"}, {"kernel_level", 0.8}, {"above", true}});
  j.push_back(nullptr);
  CHECK(calibration::short_list(j) == "matmul_efficiency.bf16 0.99 > 0.80, memory_efficiency 0.40 < half of 0.90");
  CHECK(calibration::short_list(nlohmann::json::array()).empty());
  CHECK(calibration::short_list(nullptr).empty());
}
