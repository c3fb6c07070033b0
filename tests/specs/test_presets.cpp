// The compiled-in presets: every one parses and round-trips; lookups of unknown names list the valid ones.

#include <algorithm>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "presets_internal.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

void check_sorted_and_known(PresetKind kind, const std::vector<PresetInfo>& list) {
  CHECK(std::is_sorted(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const auto& p : list) {
    INFO(p.name);
    CHECK(has_preset(kind, p.name));
    CHECK_FALSE(p.summary.empty());
    CHECK(p.summary.find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("every model preset parses, is named after its file and round-trips", "[specs][presets][roundtrip]") {
  const auto list = list_presets(PresetKind::model);
  if (list.empty()) WARN("no model presets compiled in");
  check_sorted_and_known(PresetKind::model, list);
  for (const auto& p : list) {
    INFO("model preset " << p.name);
    const ModelSpec m = model_preset(p.name);
    CHECK(m == parse_model(preset_json(PresetKind::model, p.name), "x"));
    CHECK(parse_model(to_json(m), "echo") == m);
    CHECK_FALSE(m.source.empty());
  }
}

TEST_CASE("every hardware preset parses and round-trips", "[specs][presets][roundtrip]") {
  const auto list = list_presets(PresetKind::hardware);
  if (list.empty()) WARN("no hardware presets compiled in");
  check_sorted_and_known(PresetKind::hardware, list);
  for (const auto& p : list) {
    INFO("hardware preset " << p.name);
    const HardwareSpec h = hardware_preset(p.name);
    CHECK(parse_hardware(to_json(h), "echo") == h);
    CHECK_FALSE(h.source.empty());
    CHECK_THAT(p.summary, Catch::StartsWith(h.arch + ", "));
  }
}

TEST_CASE("every scenario preset parses and round-trips", "[specs][presets][roundtrip]") {
  const auto list = list_presets(PresetKind::scenario);
  if (list.empty()) WARN("no scenario presets compiled in");
  check_sorted_and_known(PresetKind::scenario, list);
  for (const auto& p : list) {
    INFO("scenario preset " << p.name);
    const ScenarioSpec s = parse_scenario(preset_json(PresetKind::scenario, p.name), "preset:scenario/" + p.name);
    CHECK_THAT(s.name, Catch::EndsWith(p.summary));
    CHECK(parse_scenario(s.resolved, "echo") == s);
    CHECK(to_json(parse_scenario(s.resolved, "echo")) == s.resolved);
  }
}

TEST_CASE("unknown preset names are InputErrors listing the valid names", "[specs][presets][errors]") {
  for (PresetKind kind : {PresetKind::model, PresetKind::hardware, PresetKind::scenario}) {
    CHECK_FALSE(has_preset(kind, "no-such-preset"));
    const auto e = input_error_of([&] { preset_json(kind, "no-such-preset", "s.json", "deployment.hardware"); });
    CHECK(e.file() == "s.json");
    CHECK(e.field() == "deployment.hardware");
    CHECK(e.value() == "\"no-such-preset\"");
    CHECK_THAT(e.problem(), Catch::Contains("preset; valid: "));
    for (const auto& p : list_presets(kind)) CHECK_THAT(e.problem(), Catch::Contains(p.name));
  }
  CHECK_THROWS_WITH(model_preset("no-such-preset"), Catch::Contains("unknown model preset"));
  CHECK_THROWS_WITH(hardware_preset("no-such-preset"), Catch::Contains("unknown hardware preset"));
}

TEST_CASE("model summaries are derived from the fields", "[specs][presets]") {
  const ModelSpec moe = parse_model(mla_model_json(), "m.json");  // DeepSeek-V3's shape: 671B without MTP
  CHECK(detail::approx_parameters(moe) == Approx(671e9).epsilon(0.005));
  CHECK(detail::model_summary(moe) == "671B MoE, 61 layers, MLA, fp8 (experts nvfp4)");
  const ModelSpec dense = parse_model(gqa_model_json(), "m.json");  // Llama 3.1 8B's shape: 8.03B
  CHECK(detail::approx_parameters(dense) == Approx(8.03e9).epsilon(0.005));
  CHECK(detail::model_summary(dense) == "8.03B dense, 32 layers, GQA, bf16");
  // Gated DeltaNet layers counted as themselves and the output gate's doubled q: Qwen3.5-397B-A17B's 397B and the
  // dense Qwen3.5-27B's 27B (the listing said 394B and 24.4B when every layer was counted as softmax attention).
  CHECK(detail::approx_parameters(model_preset("qwen3.5-397b-a17b")) == Approx(397e9).epsilon(0.01));
  CHECK(detail::model_summary(model_preset("qwen3.5-27b")) == "26.9B dense, 64 layers, GQA, bf16");
}

TEST_CASE("hardware summaries are derived from the fields", "[specs][presets]") {
  json j = hardware_json();
  j["arch"] = "sm_100";
  j["hbm_gb"] = 180;
  j["hbm_tb_per_s"] = 8;
  j["peak_tflops"]["fp8"] = 4500;
  CHECK(detail::hardware_summary(parse_hardware(j, "hw.json")) == "sm_100, 180 GB HBM at 8.0 TB/s, 4500 FP8 TFLOPS");
  CHECK_THAT(detail::hardware_summary(parse_hardware(hardware_json(), "hw.json")),
             Catch::Equals("sm_90, 80 GB HBM at 3.35 TB/s, 1979 FP8 TFLOPS"));
  CHECK(detail::hardware_summary(hardware_preset("a100")) == "sm_80, 80 GB HBM at 2.04 TB/s, 312 BF16 TFLOPS, no FP8");
  CHECK(detail::hardware_summary(hardware_preset("rtx6000pro")) ==
        "sm_120, 96 GB HBM at 1.6 TB/s, 1000 FP8 TFLOPS, PCIe only (no GPU fabric)");
  CHECK(detail::hardware_summary(hardware_preset("mi300x")) ==
        "gfx942, 192 GB HBM at 5.3 TB/s, 2610 FP8 TFLOPS, mesh of direct links");
}
