// Shipped profiles: one per hardware preset, equal to what the datasheet figures give, strictly parsed,
// and the most specific one chosen for a (hardware, runtime).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;

TEST_CASE("every hardware preset ships the datasheet profile its figures give", "[calibration]") {
  const auto shipped = calibration::shipped_profiles();
  for (const auto& info : specs::list_presets(specs::PresetKind::hardware)) {
    const auto hw = specs::hardware_preset(info.name);
    const auto expected = calibration::to_json(calibration::datasheet_profile(hw, ""));
    int found = 0;
    for (const auto& p : shipped) {
      if (p.hardware != info.name || p.kind != "datasheet") continue;  // fitted/ profiles may sit beside it
      ++found;
      // Out of date after a change to datasheet_profile.cpp: run scripts/regenerate-profiles.sh.
      CHECK(calibration::to_json(p) == expected);
    }
    CHECK(found == 1);
  }
}

TEST_CASE("an AMD part's datasheet profile: its own matmul share caps attention, xGMI carries 0.75", "[calibration]") {
  const auto mi300x = calibration::datasheet_profile(specs::hardware_preset("mi300x"), "");
  CHECK(mi300x.matmul_efficiency_for("bf16") == Approx(668.4 / 1307).margin(0.005));  // stas00's MAMF
  // FlashMLA's 0.65 is above the best plain matmul here: attention cannot outrun it.
  CHECK(mi300x.attention_compute_efficiency == mi300x.matmul_efficiency_for("bf16"));
  CHECK(mi300x.nvlink_efficiency == Approx(48.0 / 64));
  CHECK(mi300x.sources.at("memory_efficiency").rfind("assumed", 0) == 0);
  const auto mi355x = calibration::datasheet_profile(specs::hardware_preset("mi355x"), "");
  CHECK(mi355x.matmul_efficiency_for("bf16") == Approx(1565.0 / 2500).margin(0.005));
  CHECK(mi355x.matmul_efficiency_for("fp4") == mi355x.matmul_efficiency_for("fp8"));
  // An NVIDIA part keeps FlashMLA's and NCCL's figures.
  const auto h200 = calibration::datasheet_profile(specs::hardware_preset("h200"), "");
  CHECK(h200.attention_compute_efficiency == Approx(0.65));
  CHECK(h200.nvlink_efficiency == Approx(0.82));
}

TEST_CASE("a PCIe-only server's datasheet profile: NCCL's PCIe ring share and its small-message time",
          "[calibration]") {
  const auto rtx = calibration::datasheet_profile(specs::hardware_preset("rtx6000pro"), "");
  // 8 x RTX PRO 6000, PCIe Gen5: all-reduce busbw 37.6, 39.4, 40.1, 41.1 GB/s (median 39.75) of 64 GB/s each way.
  CHECK(rtx.nvlink_efficiency == Approx(39.75 / 64).margin(0.005));
  CHECK(rtx.collective_latency_s == Approx(24e-6));  // NCCL's 24.1-24.6 us from 256 B to 64 KB
  // The Max-Q sweep: cuBLAS FP16 229 TFLOPS, cuBLASLt FP8 556 TFLOPS against that card's ~439 / ~878 dense peak
  // (3,511 sparse FP4 TOPS); the sweep itself states 51% and 62%.
  CHECK(rtx.matmul_efficiency_for("bf16") == Approx(229.0 / 438.9).margin(0.015));
  CHECK(rtx.matmul_efficiency_for("fp8") == Approx(555.5 / 877.8).margin(0.015));
  CHECK(rtx.attention_compute_efficiency == rtx.matmul_efficiency_for("bf16"));  // capped below FlashMLA's 0.65
  // The L40S is PCIe-only too; an NVSwitch part keeps NVLink's figures.
  CHECK(calibration::datasheet_profile(specs::hardware_preset("l40s"), "").nvlink_efficiency == rtx.nvlink_efficiency);
  const auto h100 = calibration::datasheet_profile(specs::hardware_preset("h100"), "");
  CHECK(h100.nvlink_efficiency == Approx(0.82));
  CHECK(h100.collective_latency_s == Approx(15e-6));
}

TEST_CASE("the shipped serving fits are compiled in and win for their (hardware, runtime)", "[calibration]") {
  const auto shipped = calibration::shipped_profiles();
  int serving = 0;
  for (const auto& p : shipped) {
    if (p.kind != "fitted" || p.runtime.empty() || !p.model_kind.empty()) continue;  // a dense fit: the next case
    ++serving;
    INFO(p.hardware << " " << p.runtime);
    // The fit's own pair gets it; another runtime on the same hardware does not.
    const auto hw = specs::hardware_preset(p.hardware);
    CHECK(calibration::to_json(calibration::select_profile(shipped, hw, p.runtime)) == calibration::to_json(p));
    CHECK(calibration::select_profile(shipped, hw, "no-such-runtime").kind == "datasheet");
  }
  // calibration/profiles/serving/ ships eleven (hardware, runtime) fits (docs/ACCURACY.md).
  CHECK(serving == 11);
}

TEST_CASE("a fit for dense models is picked for dense models only, never as the pair's profile", "[calibration]") {
  const auto hw = specs::hardware_preset("h200");
  auto pair = calibration::datasheet_profile(hw, "vllm");
  pair.kind = "fitted";
  pair.memory_efficiency = 0.46;
  pair.request_overhead_s = 0.01;
  auto dense = pair;
  dense.model_kind = "dense";
  dense.memory_efficiency = 0.61;
  dense.request_overhead_s = 0.5;
  // Listed first, it would win a tie of (runtime, kind) if select_profile took it.
  const std::vector<calibration::Profile> all = {dense, pair, calibration::datasheet_profile(hw, "")};
  CHECK(calibration::select_profile(all, hw, "vllm").memory_efficiency == 0.46);
  const auto own = calibration::select_kind_profile(all, hw, "vllm", "dense");
  REQUIRE(own);
  CHECK(own->memory_efficiency == 0.61);
  CHECK_FALSE(calibration::select_kind_profile(all, hw, "vllm", "moe"));
  CHECK_FALSE(calibration::select_kind_profile(all, hw, "sglang", "dense"));
  CHECK_FALSE(calibration::select_kind_profile(all, specs::hardware_preset("h100"), "vllm", "dense"));
  // A GPU without a fit of its own: the medians of the runtime's figures are the pairs' fits', not the kind fits'.
  const auto b200 = calibration::select_profile(all, specs::hardware_preset("b200"), "vllm");
  CHECK(b200.kind == "datasheet");
  CHECK(b200.request_overhead_s == 0.01);
  // The field round-trips; another value is an error naming it.
  auto j = calibration::to_json(dense);
  CHECK(j["model_kind"] == "dense");
  CHECK(calibration::parse_profile(j, "p.json").model_kind == "dense");
  CHECK_FALSE(calibration::to_json(pair).contains("model_kind"));
  j["model_kind"] = "mixed";
  CHECK_THROWS_WITH(calibration::parse_profile(j, "p.json"),
                    Catch::Contains("model_kind") && Catch::Contains("mixed") && Catch::Contains("p.json"));
}

TEST_CASE("forecasts of a shipped pair's dense models take its dense fit, its MoE models the pair's fit",
          "[calibration]") {
  const auto shipped = calibration::shipped_profiles();
  int kind_fits = 0;
  for (const auto& p : shipped) {
    if (p.model_kind.empty()) continue;
    ++kind_fits;
    INFO(p.hardware << " " << p.runtime << " " << p.model_kind);
    REQUIRE(p.model_kind == "dense");
    CHECK(p.kind == "fitted");
    // Fitted on dense models' runs alone (one model, as on H200 TensorRT-LLM, leaves none to leave out: its forecasts
    // quote the runtime's dense folds on the other GPUs, unseen-models.json).
    CHECK_FALSE(p.fitted_models.empty());
    for (const std::string& m : p.fitted_models) CHECK_FALSE(specs::model_preset(m).moe);
    const auto hw = specs::hardware_preset(p.hardware);
    const auto pair = calibration::profile_for(hw, p.runtime);
    CHECK(pair.model_kind.empty());
    CHECK(calibration::to_json(calibration::profile_for(hw, p.runtime, specs::model_preset(p.fitted_models[0]))) ==
          calibration::to_json(p));
    CHECK(calibration::profile_for(hw, p.runtime, specs::model_preset("deepseek-v3")).model_kind.empty());
  }
  CHECK(kind_fits >= 1);
}

TEST_CASE("the most specific profile wins", "[calibration]") {
  const auto hw = specs::hardware_preset("h100");
  auto general = calibration::datasheet_profile(hw, "");
  auto fitted_vllm = general;
  fitted_vllm.runtime = "vllm";
  fitted_vllm.kind = "fitted";
  fitted_vllm.step_overhead_s = 0.004;
  auto measured_any = general;
  measured_any.kind = "measured";
  measured_any.step_overhead_s = 0.002;
  const std::vector<calibration::Profile> all = {general, fitted_vllm, measured_any};
  CHECK(calibration::select_profile(all, hw, "vllm").step_overhead_s == 0.004);    // runtime match first
  CHECK(calibration::select_profile(all, hw, "sglang").step_overhead_s == 0.002);  // then measured over datasheet
  auto other = hw;
  other.name = "my-gpu";
  CHECK(calibration::select_profile(all, other, "vllm").kind == "datasheet");  // computed for unknown hardware
  CHECK(calibration::select_profile(all, other, "vllm").hardware == "my-gpu");
}

TEST_CASE("a bad profile is an error naming the field", "[calibration]") {
  auto j = calibration::to_json(calibration::datasheet_profile(specs::hardware_preset("b200"), ""));
  CHECK(calibration::parse_profile(j, "p.json").memory_efficiency == 0.9);
  auto bad = j;
  bad["memory_efficiency"] = 1.5;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("memory_efficiency"));
  bad = j;
  bad["memroy_efficiency"] = 0.5;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("memroy_efficiency"));
  bad = j;
  bad.erase("step_overhead_s");
  CHECK_THROWS_AS(calibration::parse_profile(bad, "p.json"), InputError);
  bad = j;
  bad["kind"] = "guessed";
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("kind"));
}

TEST_CASE(
    "a GPU without a fit takes the host-side figures of its runtime that carry over: SGLang's front end, "
    "vLLM's front end, step and sequence costs, TensorRT-LLM's host time per eagerly launched kernel",
    "[calibration]") {
  const auto hw = specs::hardware_preset("gb200");
  auto fit = [](const std::string& gpu, const std::string& runtime, double request_s) {
    auto p = calibration::datasheet_profile(specs::hardware_preset(gpu), runtime);
    p.kind = "fitted";
    p.request_overhead_s = request_s;
    p.step_overhead_s = request_s / 100.0;
    p.sequence_overhead_s = request_s / 1000.0;
    p.eager_launch_s = request_s / 400.0;
    return p;
  };
  const std::vector<calibration::Profile> all = {
      fit("h100", "sglang", 0.16), fit("h200", "sglang", 0.18), fit("b200", "sglang", 0.23),
      fit("b300", "sglang", 0.17), fit("h100", "vllm", 0.01),   fit("h200", "vllm", 0.02),
      fit("b200", "vllm", 0.04),   fit("h100", "trtllm", 0.02), fit("h200", "trtllm", 0.03)};
  const auto datasheet = calibration::datasheet_profile(hw, "sglang");
  const auto sglang = calibration::select_profile(all, hw, "sglang");
  CHECK(sglang.kind == "datasheet");
  CHECK(sglang.request_overhead_s == Approx((0.17 + 0.18) / 2.0));  // the median of four: the middle two's mean
  CHECK_THAT(sglang.sources.at("request_overhead_s"), Catch::Contains("b200 230 ms"));
  CHECK(sglang.step_overhead_s == datasheet.step_overhead_s);  // SGLang's step and sequence costs stay
  CHECK(sglang.sequence_overhead_s == datasheet.sequence_overhead_s);
  const auto vllm = calibration::select_profile(all, hw, "vllm");  // the median of three: the middle one
  CHECK(vllm.request_overhead_s == 0.02);
  CHECK(vllm.step_overhead_s == Approx(0.0002));
  CHECK(vllm.sequence_overhead_s == Approx(0.00002));
  CHECK_THAT(vllm.sources.at("sequence_overhead_s"), Catch::Contains("h100 10 us"));
  CHECK(vllm.eager_launch_s == 0.0);  // vLLM's and SGLang's prompt steps run as their decode ones do
  CHECK(sglang.eager_launch_s == 0.0);
  // TensorRT-LLM: the eager launch time alone (median of 50 and 75 us), its front end and step costs stay.
  const auto trtllm = calibration::select_profile(all, hw, "trtllm");
  const auto trtllm_datasheet = calibration::datasheet_profile(hw, "trtllm");
  CHECK(trtllm.eager_launch_s == Approx(62.5e-6));
  CHECK_THAT(trtllm.sources.at("eager_launch_s"), Catch::Contains("h100 50 us"));
  CHECK(trtllm.request_overhead_s == trtllm_datasheet.request_overhead_s);
  CHECK(trtllm.step_overhead_s == trtllm_datasheet.step_overhead_s);
  CHECK(trtllm.sequence_overhead_s == trtllm_datasheet.sequence_overhead_s);
  // A GPU's own fit wins over the median, and without any fit (the datasheet-only mode) nothing is added.
  CHECK(calibration::select_profile(all, specs::hardware_preset("b200"), "sglang").request_overhead_s == 0.23);
  CHECK(calibration::select_profile({}, hw, "sglang").request_overhead_s == 0.0);
  CHECK(calibration::select_profile({}, hw, "vllm").step_overhead_s == datasheet.step_overhead_s);
  // These fits stream at their datasheet's rate, so vLLM's memory ratio (median 1) leaves the datasheet's.
  CHECK(vllm.memory_efficiency == Approx(calibration::datasheet_profile(hw, "vllm").memory_efficiency));
}

TEST_CASE("a GPU without a fit takes no fit's experts' efficiency: its prompts' slowdown carries instead",
          "[calibration]") {
  const auto hw = specs::hardware_preset("gb200");
  auto fit = [](const std::string& gpu, std::map<std::string, double> experts) {
    auto p = calibration::datasheet_profile(specs::hardware_preset(gpu), "vllm");
    p.kind = "fitted";
    p.expert_kernel_efficiency = std::move(experts);
    return p;
  };
  const std::vector<calibration::Profile> all = {fit("h100", {{"fp8", 0.1}}), fit("h200", {{"fp8", 0.3}})};
  const auto pick = calibration::select_profile(all, hw, "vllm");
  CHECK(pick.kind == "datasheet");
  CHECK(pick.expert_kernel_efficiency.empty());
  CHECK(pick.expert_kernel_efficiency_for("fp8") == 1.0);
  // A GPU's own fit keeps its figures.
  CHECK(calibration::select_profile(all, specs::hardware_preset("h100"), "vllm").expert_kernel_efficiency_for("fp8") ==
        0.1);
}

TEST_CASE("a GPU without a fit slows its prompts by the median of the runtime's fits' measured ratio, per kind",
          "[calibration]") {
  const auto hw = specs::hardware_preset("gb200");
  auto fit = [](const std::string& gpu, const std::string& runtime, std::map<std::string, double> ratio) {
    auto p = calibration::datasheet_profile(specs::hardware_preset(gpu), runtime);
    p.kind = "fitted";
    p.marginal_prompt_ratio = std::move(ratio);
    return p;
  };
  const std::vector<calibration::Profile> all = {
      fit("h100", "trtllm", {{"moe", 2.0}, {"dense", 1.2}}), fit("h200", "trtllm", {{"moe", 3.0}}),
      fit("b200", "trtllm", {{"moe", 2.5}, {"dense", 1.8}}), fit("b200", "sglang", {})};
  const auto pick = calibration::select_profile(all, hw, "trtllm");
  CHECK(pick.kind == "datasheet");
  CHECK(pick.prompt_slowdown_for("moe") == Approx(2.5));    // the median of 2, 2.5 and 3
  CHECK(pick.prompt_slowdown_for("dense") == Approx(1.5));  // two fits measured it: their mean
  CHECK_THAT(pick.sources.at("prompt_slowdown.moe"), Catch::Contains("h200 3 x"));
  CHECK(pick.marginal_prompt_ratio.empty());  // a pick measured nothing
  // A fit's own forecasts keep its fitted figures; a runtime whose fits measured nothing, and the datasheet-only mode,
  // slow nothing.
  CHECK(calibration::select_profile(all, specs::hardware_preset("b200"), "trtllm").prompt_slowdown.empty());
  CHECK(calibration::select_profile(all, hw, "sglang").prompt_slowdown.empty());
  CHECK(calibration::select_profile({}, hw, "trtllm").prompt_slowdown_for("moe") == 1.0);
  // A user's own fit of a GPU (listed first) stands in for the shipped fit of that GPU, not beside it: H100's 5 and
  // H200's 3 give 4, where all three would give 3.
  const std::vector<calibration::Profile> users_first = {fit("h100", "trtllm", {{"moe", 5.0}}), all[0], all[1]};
  CHECK(calibration::select_profile(users_first, hw, "trtllm").prompt_slowdown_for("moe") == Approx(4.0));
}

TEST_CASE("a profile's prompt slowdown and measured ratio read back; a kind of model not known is an error naming it",
          "[calibration]") {
  auto p = calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm");
  p.kind = "fitted";
  p.marginal_prompt_ratio = {{"dense", 1.32}, {"moe", 3.21}};
  p.prompt_slowdown = {{"moe", 2.5}};
  const auto j = calibration::to_json(p);
  const auto back = calibration::parse_profile(j, "p.json");
  CHECK(back.marginal_prompt_ratio == p.marginal_prompt_ratio);
  CHECK(back.prompt_slowdown == p.prompt_slowdown);
  CHECK(calibration::to_json(back) == j);
  // A datasheet profile writes neither, so its bytes stay what they were.
  const auto datasheet = calibration::to_json(calibration::datasheet_profile(specs::hardware_preset("h200"), "vllm"));
  CHECK_FALSE(datasheet.contains("prompt_slowdown"));
  CHECK_FALSE(datasheet.contains("marginal_prompt_ratio"));
  auto bad = j;
  bad["prompt_slowdown"] = {{"sparse", 2.0}};
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("prompt_slowdown.sparse"));
  bad = j;
  bad["marginal_prompt_ratio"] = {{"moe", -1.0}};
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("marginal_prompt_ratio.moe"));
}

TEST_CASE("vLLM's pick without a fit streams at the datasheet rate times the fits' median ratio to theirs",
          "[calibration]") {
  const auto hw = specs::hardware_preset("gb300");
  auto fit = [](const std::string& gpu, const std::string& runtime, double ratio) {
    auto p = calibration::datasheet_profile(specs::hardware_preset(gpu), runtime);
    p.kind = "fitted";
    p.memory_efficiency *= ratio;
    return p;
  };
  const double datasheet = calibration::datasheet_profile(hw, "vllm").memory_efficiency;
  // Ratios 0.5, 0.6, 1.0 and 1.1: the median of four is the middle two's mean, 0.8.
  const std::vector<calibration::Profile> all = {fit("h100", "vllm", 0.5),   fit("h200", "vllm", 1.0),
                                                 fit("b200", "vllm", 0.6),   fit("b300", "vllm", 1.1),
                                                 fit("h100", "sglang", 0.5), fit("h100", "trtllm", 0.5)};
  const auto vllm = calibration::select_profile(all, hw, "vllm");
  CHECK(vllm.memory_efficiency == Approx(datasheet * 0.8));
  CHECK_THAT(vllm.sources.at("memory_efficiency"), Catch::Contains("h100 0.5"));
  // Never above the datasheet bandwidth: both at 1.5 give at most 1.
  const std::vector<calibration::Profile> fast = {fit("h100", "vllm", 1.5), fit("h200", "vllm", 1.5)};
  CHECK(calibration::select_profile(fast, hw, "vllm").memory_efficiency == Approx(std::min(1.0, datasheet * 1.5)));
  // SGLang and TensorRT-LLM carry none of it; a GPU's own fit keeps its own.
  CHECK(calibration::select_profile(all, hw, "sglang").memory_efficiency == Approx(datasheet));
  CHECK(calibration::select_profile(all, hw, "trtllm").memory_efficiency == Approx(datasheet));
  CHECK(calibration::select_profile(all, specs::hardware_preset("h100"), "vllm").memory_efficiency ==
        Approx(0.5 * calibration::datasheet_profile(specs::hardware_preset("h100"), "vllm").memory_efficiency));
  // What `calibrate show` prints has the ratio in it already: saved as one's own profile, it is taken as written,
  // not scaled a second time; so is an edited copy of the datasheet profile.
  calibration::Profile shown = vllm;
  shown.runtime = "vllm";
  std::vector<calibration::Profile> own = all;
  own.insert(own.begin(), shown);
  CHECK(calibration::select_profile(own, hw, "vllm").memory_efficiency == Approx(datasheet * 0.8));
  calibration::Profile edited = calibration::datasheet_profile(hw, "vllm");
  edited.collective_latency_s = 48e-6;
  own.front() = edited;
  CHECK(calibration::select_profile(own, hw, "vllm").memory_efficiency == Approx(datasheet));
  CHECK(calibration::select_profile(own, hw, "vllm").collective_latency_s == Approx(48e-6));
}

TEST_CASE("the benchmark-client candidate fits read back and stay within the kernel-level figures", "[calibration]") {
  // calibration/profiles/candidates/benchmark-clients/: the eleven pairs fitted with --benchmark-clients --bounded
  // (docs/ACCURACY.md, "Under the InferenceX client"), not compiled in; FLEETCAST_PROFILE_DIR uses them.
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FLEETCAST_CANDIDATE_PROFILES)) {
    if (entry.path().extension() != ".json") continue;
    const calibration::Profile p = calibration::read_profile(entry.path());
    ++read;
    INFO(entry.path().filename().string());
    CHECK(entry.path().stem().string() == p.hardware + "-" + p.runtime);
    CHECK(p.kind == "fitted");
    const calibration::Profile datasheet = calibration::datasheet_profile(specs::hardware_preset(p.hardware), "");
    for (const auto& [cls, eff] : p.matmul_efficiency) CHECK(eff <= datasheet.matmul_efficiency_for(cls) + 1e-12);
    CHECK(p.attention_compute_efficiency <= 0.80 + 1e-12);
    CHECK(p.memory_efficiency <= 0.95 + 1e-12);
    for (const auto& [format, eff] : p.expert_kernel_efficiency) CHECK(eff <= 1.0);
  }
  CHECK(read == 11);
}
