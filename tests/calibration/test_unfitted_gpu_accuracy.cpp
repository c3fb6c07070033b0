// The pick of a GPU without a fit and the table of fitted GPUs scored with it (profile_store.hpp,
// unfitted_gpu_accuracy.hpp): what the pick holds, which forecasts carry the table's spread and which do not, bad
// figures named by field, and the shipped table in step with the shipped fits.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/vendor.hpp"

using namespace fleetcast;
using calibration::PairAccuracy;

namespace {

// An entry for `hw` under `runtime` scored with the pick it gets today (or, `stale`, with some other profile), on
// runs of models of `architecture`.
PairAccuracy entry(const std::string& hw, const std::string& runtime, double ttft_ape, double tpot_ape,
                   double ttft_ratio, int rows, bool stale = false, const std::string& architecture = "dense") {
  const calibration::Profile pick = calibration::profile_without_own_fit(specs::hardware_preset(hw), runtime);
  return {hw,
          runtime,
          pick.kind,
          stale ? std::string("0123456789abcdef") : calibration::profile_fingerprint(pick),
          rows,
          {architecture == "moe" ? "gpt-oss-120b" : "llama-3.1-70b"},
          {ttft_ape, 2 * ttft_ape, ttft_ratio},
          {tpot_ape, 2 * tpot_ape, 1.0},
          architecture};
}

const calibration::Profile* shipped_fit(const std::string& hw, const std::string& runtime) {
  static const std::vector<calibration::Profile> shipped = calibration::shipped_profiles();
  for (const auto& p : shipped) {
    // The pair's fit, not its fit for one kind of model (Profile::model_kind), which carries nothing.
    if (p.hardware == hw && p.runtime == runtime && p.kind == "fitted" && p.model_kind.empty()) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a fitted GPU's pick without its fit is its datasheet profile with the other GPUs' host costs",
          "[calibration][accuracy]") {
  const specs::HardwareSpec h100 = specs::hardware_preset("h100");
  const calibration::Profile pick = calibration::profile_without_own_fit(h100, "vllm");
  CHECK(pick.kind == "datasheet");
  CHECK(pick.hardware == "h100");
  // vLLM's front-end time is the median of the other three GPUs' fits (b200, b300, h200), not h100's own.
  std::vector<double> others;
  for (const char* hw : {"b200", "b300", "h200"}) {
    REQUIRE(shipped_fit(hw, "vllm") != nullptr);
    others.push_back(shipped_fit(hw, "vllm")->request_overhead_s);
  }
  std::sort(others.begin(), others.end());
  CHECK(pick.request_overhead_s == others[1]);
  REQUIRE(shipped_fit("h100", "vllm") != nullptr);
  CHECK(pick.request_overhead_s != shipped_fit("h100", "vllm")->request_overhead_s);
  // On the GPU side the datasheet's compute, and its streaming rate times the other fits' median ratio to theirs.
  const calibration::Profile datasheet = calibration::datasheet_profile_for(h100, "vllm");
  CHECK(pick.matmul_efficiency == datasheet.matmul_efficiency);
  std::vector<double> ratios;
  for (const char* hw : {"b200", "b300", "h200"}) {
    ratios.push_back(shipped_fit(hw, "vllm")->memory_efficiency /
                     calibration::datasheet_profile_for(specs::hardware_preset(hw), "vllm").memory_efficiency);
  }
  std::sort(ratios.begin(), ratios.end());
  CHECK(pick.memory_efficiency == Approx(std::min(1.0, datasheet.memory_efficiency * ratios[1])));
  CHECK(pick.memory_efficiency < datasheet.memory_efficiency);
  // TensorRT-LLM carries its host time per eagerly launched kernel alone: the median of the other two GPUs' fits.
  calibration::Profile trtllm = calibration::profile_without_own_fit(h100, "trtllm");
  REQUIRE(shipped_fit("b200", "trtllm") != nullptr);
  REQUIRE(shipped_fit("h200", "trtllm") != nullptr);
  CHECK(trtllm.eager_launch_s ==
        Approx((shipped_fit("b200", "trtllm")->eager_launch_s + shipped_fit("h200", "trtllm")->eager_launch_s) / 2.0));
  CHECK(trtllm.eager_launch_s > 0.0);
  // And, like every runtime, its prompts' slowdown per kind of model: the two fits' measured ratios' median (mean).
  for (const char* kind : {"dense", "moe"}) {
    INFO(kind);
    CHECK(trtllm.prompt_slowdown_for(kind) == Approx((shipped_fit("b200", "trtllm")->marginal_prompt_ratio.at(kind) +
                                                      shipped_fit("h200", "trtllm")->marginal_prompt_ratio.at(kind)) /
                                                     2.0));
    CHECK(trtllm.prompt_slowdown_for(kind) > 1.0);
    trtllm.sources.erase(std::string("prompt_slowdown.") + kind);
  }
  trtllm.prompt_slowdown.clear();
  trtllm.eager_launch_s = 0.0;
  trtllm.sources.erase("eager_launch_s");
  CHECK(calibration::profile_fingerprint(trtllm) ==
        calibration::profile_fingerprint(calibration::datasheet_profile_for(h100, "trtllm")));
  // A GPU without a fit gets the same pick by default.
  const specs::HardwareSpec gb200 = specs::hardware_preset("gb200");
  CHECK(calibration::profile_fingerprint(calibration::profile_for(gb200, "vllm")) ==
        calibration::profile_fingerprint(calibration::profile_without_own_fit(gb200, "vllm")));
}

TEST_CASE("a forecast with a GPU-without-a-fit pick carries the spread over the GPUs scored with theirs",
          "[calibration][accuracy]") {
  const specs::HardwareSpec gb200 = specs::hardware_preset("gb200");
  const calibration::Profile pick = calibration::profile_for(gb200, "vllm");
  const std::vector<PairAccuracy> table = {
      entry("h200", "vllm", 0.5, 0.25, 1.6, 30),
      entry("h100", "vllm", 0.1, 0.05, 0.9, 10),
      entry("b200", "vllm", 0.3, 0.15, 1.2, 20),
      entry("b300", "vllm", 0.9, 0.9, 3.0, 99, true),          // stale: scored with another profile
      entry("h100", "sglang", 0.9, 0.9, 3.0, 99),              // another runtime
      entry("h100", "vllm", 0.02, 0.4, 0.5, 7, false, "moe"),  // MoE models' runs: their own figure
      entry("b300", "vllm", 0.04, 0.6, 0.7, 9, false, "moe")};
  const auto e = calibration::unfitted_gpu_error_for(gb200, pick, "vllm", "dense", table);
  REQUIRE(e);
  CHECK(e->hardware == "gb200");
  CHECK(e->architecture == "dense");
  CHECK(e->gpus == std::vector<std::string>{"b200", "h100", "h200"});
  CHECK(e->rows == 60);
  CHECK(e->ttft.median_ape == Approx(0.3));
  CHECK(e->ttft.lowest_ape == Approx(0.1));
  CHECK(e->ttft.highest_ape == Approx(0.5));
  CHECK(e->ttft.median_ratio == Approx(1.2));
  CHECK(e->tpot.median_ape == Approx(0.15));
  const std::string line = calibration::describe(*e);
  CHECK(line.find("TTFT off by a median 30% (10-50% by GPU") != std::string::npos);
  CHECK(line.find("runs of dense models on b200, h100, h200 vllm") != std::string::npos);
  CHECK(line.find("(60 runs)") != std::string::npos);
  // Its JSON reads back.
  const auto back = calibration::parse_unfitted_gpu_error(calibration::to_json(*e), "r.json", "d.");
  CHECK(back.gpus == e->gpus);
  CHECK(back.architecture == "dense");
  CHECK(back.tpot.highest_ape == Approx(0.25));

  SECTION("an MoE model's forecast takes the MoE models' runs alone") {
    const auto moe = calibration::unfitted_gpu_error_for(gb200, pick, "vllm", "moe", table);
    REQUIRE(moe);
    CHECK(moe->gpus == std::vector<std::string>{"b300", "h100"});
    CHECK(moe->rows == 16);
    CHECK(moe->ttft.median_ape == Approx(0.03));
    CHECK(moe->tpot.lowest_ape == Approx(0.4));
    CHECK(moe->tpot.highest_ape == Approx(0.6));
    CHECK(calibration::describe(*moe).find("runs of MoE models on b300, h100 vllm") != std::string::npos);
    CHECK(calibration::architecture_of(specs::model_preset("gpt-oss-120b")) == "moe");
    CHECK(calibration::architecture_of(specs::model_preset("llama-3.1-70b")) == "dense");
  }
  SECTION("a report written before the split (no architecture) still reads, as every model's figure") {
    nlohmann::json j = calibration::to_json(*e);
    j.erase("architecture");
    const auto old = calibration::parse_unfitted_gpu_error(j, "r.json", "d.");
    CHECK(old.architecture.empty());
    CHECK(calibration::describe(old).find("runs of b200, h100, h200 vllm") != std::string::npos);
  }

  SECTION("none for a fit, a datasheet profile without the carried host costs, or no valid entry") {
    const specs::HardwareSpec h100 = specs::hardware_preset("h100");
    CHECK_FALSE(
        calibration::unfitted_gpu_error_for(h100, calibration::profile_for(h100, "vllm"), "vllm", "dense", table));
    CHECK_FALSE(calibration::unfitted_gpu_error_for(gb200, calibration::datasheet_profile_for(gb200, "vllm"), "vllm",
                                                    "dense", table));
    CHECK_FALSE(calibration::unfitted_gpu_error_for(gb200, pick, "vllm", "dense", {table[3], table[4], table[5]}));
  }
  SECTION("no scored GPU is from an AMD part's maker, and its figure says so") {
    CHECK_FALSE(e->unscored_vendor.size());  // gb200 is NVIDIA's, as every scored GPU
    const specs::HardwareSpec mi300x = specs::hardware_preset("mi300x");
    const auto amd =
        calibration::unfitted_gpu_error_for(mi300x, calibration::profile_for(mi300x, "vllm"), "vllm", "dense", table);
    REQUIRE(amd);
    CHECK(amd->unscored_vendor == "AMD");
    CHECK(amd->ttft.median_ape == Approx(0.3));  // the same runs
    CHECK(calibration::describe(*amd).find("none of them AMD's") != std::string::npos);
    CHECK(calibration::parse_unfitted_gpu_error(calibration::to_json(*amd), "r.json", "d.").unscored_vendor == "AMD");
    CHECK_FALSE(calibration::to_json(*e).contains("unscored_vendor"));  // NVIDIA forecasts keep their bytes
    CHECK(specs::vendor_of_arch("sm_100") == "NVIDIA");
    CHECK(specs::vendor_of_arch("gfx950") == "AMD");
    CHECK(specs::vendor_of_arch("ascend_950") == "Huawei");
    CHECK(specs::vendor_of_arch("xe2") == "Intel");
    CHECK(specs::vendor_of_arch("tpu_v5e").empty());
    CHECK(amd->unscored_scale_up == "mesh");  // every scored GPU sits behind NVSwitch
    CHECK_FALSE(e->unscored_scale_up.size());
  }
  SECTION("no scored GPU is PCIe-only, and a PCIe part's figure says so") {
    const specs::HardwareSpec rtx = specs::hardware_preset("rtx6000pro");
    const auto pcie =
        calibration::unfitted_gpu_error_for(rtx, calibration::profile_for(rtx, "vllm"), "vllm", "dense", table);
    REQUIRE(pcie);
    CHECK(pcie->unscored_vendor.empty());  // NVIDIA's, as the scored GPUs
    CHECK(pcie->unscored_scale_up == "pcie");
    CHECK(calibration::describe(*pcie).find("none of them on a pcie scale-up") != std::string::npos);
    CHECK(calibration::parse_unfitted_gpu_error(calibration::to_json(*pcie), "r.json", "d.").unscored_scale_up ==
          "pcie");
    CHECK_FALSE(calibration::to_json(*e).contains("unscored_scale_up"));  // NVSwitch forecasts keep their bytes
  }
  SECTION("TensorRT-LLM's pick carries the figure") {
    const std::vector<PairAccuracy> trtllm = {entry("h100", "trtllm", 0.4, 0.1, 1.3, 5)};
    const auto t = calibration::unfitted_gpu_error_for(gb200, calibration::profile_without_own_fit(gb200, "trtllm"),
                                                       "trtllm", "dense", trtllm);
    REQUIRE(t);
    CHECK(t->ttft.median_ape == Approx(0.4));
  }
}

TEST_CASE("a bad unfitted-GPU figure is named by field, and a held-out table is not an unfitted-GPU one",
          "[calibration][accuracy]") {
  const calibration::UnfittedGpuError good{"gb200", "vllm", {"h100"}, 10, {0.3, 0.1, 0.5, 1.2}, {0.1, 0.1, 0.1, 1.0},
                                           "moe",   "",     ""};
  auto error_of = [](const nlohmann::json& j) {
    try {
      calibration::parse_unfitted_gpu_error(j, "r.json", "d.");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(calibration::to_json(good)).empty());
  nlohmann::json j = calibration::to_json(good);
  j["gpus"] = nlohmann::json::array();
  CHECK(error_of(j).find("d.gpus") != std::string::npos);
  j = calibration::to_json(good);
  j["rows"] = 0;
  CHECK(error_of(j).find("d.rows") != std::string::npos);
  j = calibration::to_json(good);
  j["ttft"]["lowest_ape"] = 0.4;
  CHECK(error_of(j).find("d.ttft.median_ape") != std::string::npos);
  j = calibration::to_json(good);
  j["architecture"] = "hybrid";
  CHECK(error_of(j).find("d.architecture") != std::string::npos);

  const nlohmann::json held_out = calibration::merge_accuracy_table({}, {entry("h100", "vllm", 0.1, 0.1, 1.0, 3)}, "x");
  CHECK_THROWS_WITH(calibration::parse_accuracy_table(held_out, "t.json", calibration::kUnfittedGpuAccuracySchema),
                    Catch::Contains("t.json") && Catch::Contains(calibration::kUnfittedGpuAccuracySchema));
  // Each entry names its kind of model.
  nlohmann::json unfitted = calibration::merge_accuracy_table({}, {entry("h100", "vllm", 0.1, 0.1, 1.0, 3)}, "x",
                                                              calibration::kUnfittedGpuAccuracySchema);
  unfitted["pairs"][0].erase("architecture");
  CHECK_THROWS_WITH(calibration::parse_accuracy_table(unfitted, "t.json", calibration::kUnfittedGpuAccuracySchema),
                    Catch::Contains("pairs[0].architecture"));
  unfitted["pairs"][0]["architecture"] = "sparse";
  CHECK_THROWS_WITH(calibration::parse_accuracy_table(unfitted, "t.json", calibration::kUnfittedGpuAccuracySchema),
                    Catch::Contains("pairs[0].architecture") && Catch::Contains("sparse"));
}

TEST_CASE("a fresh unfitted-GPU entry replaces its GPU and runtime's, stale or not", "[calibration][accuracy]") {
  const char* schema = calibration::kUnfittedGpuAccuracySchema;
  const nlohmann::json first = calibration::merge_accuracy_table(
      {},
      {entry("h100", "vllm", 0.5, 0.2, 1.0, 10, true), entry("h200", "vllm", 0.3, 0.1, 1.0, 20),
       entry("h100", "vllm", 0.2, 0.1, 1.0, 40, false, "moe")},
      "first", schema);
  const auto merged = calibration::parse_accuracy_table(
      calibration::merge_accuracy_table(calibration::parse_accuracy_table(first, "t.json", schema),
                                        {entry("h100", "vllm", 0.4, 0.2, 1.0, 30)}, "second", schema),
      "t.json", schema);
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].hardware == "h100");
  CHECK(merged[0].architecture == "dense");
  CHECK(merged[0].rows == 30);  // the stale entry is gone, not kept beside the fresh one
  CHECK(merged[1].architecture == "moe");
  CHECK(merged[1].rows == 40);  // the MoE models' entry of the same GPU stays
  CHECK(merged[2].rows == 20);
}

TEST_CASE("every shipped fit's GPU has a current entry in the shipped table, and GB200 and GB300 carry its figure",
          "[calibration][accuracy]") {
  const auto& table = calibration::shipped_unfitted_gpu_accuracy();
  for (const calibration::Profile& p : calibration::shipped_profiles()) {
    if (p.kind != "fitted" || p.runtime.empty()) continue;
    const calibration::Profile pick =
        calibration::profile_without_own_fit(specs::hardware_preset(p.hardware), p.runtime);
    const bool current = std::any_of(table.begin(), table.end(), [&](const PairAccuracy& a) {
      return a.hardware == p.hardware && a.runtime == p.runtime &&
             a.profile_fingerprint == calibration::profile_fingerprint(pick);
    });
    // Each entry holds the runs of its own kind of model only.
    for (const PairAccuracy& a : table) {
      if (a.hardware != p.hardware || a.runtime != p.runtime) continue;
      for (const std::string& m : a.models) {
        INFO(a.hardware << " " << a.runtime << " " << a.architecture << ": " << m);
        CHECK(calibration::architecture_of(specs::model_preset(m)) == a.architecture);
      }
    }
    INFO(p.hardware << " " << p.runtime
                    << ": regenerate calibration/profiles/accuracy/unfitted-gpus.json after a refit (`fleetcast "
                       "--unfitted-profiles validate --silicon ../shared/validation/silicon-dev.csv --accuracy FILE`)");
    CHECK(current);
  }
  for (const char* hw : {"gb200", "gb300"}) {
    for (const char* runtime : {"vllm", "sglang", "trtllm"}) {
      const specs::HardwareSpec spec = specs::hardware_preset(hw);
      for (const char* architecture : {"dense", "moe"}) {
        INFO(hw << " " << runtime << " " << architecture);
        CHECK(
            calibration::unfitted_gpu_error_for(spec, calibration::profile_for(spec, runtime), runtime, architecture));
      }
    }
  }
}
