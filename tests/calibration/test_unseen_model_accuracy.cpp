// The table of errors on models left out of a fit (unseen_model_accuracy.hpp): its JSON round trip and merge, bad
// tables named by field, which forecasts carry the folds' spread and which do not, and the shipped table in step with
// the shipped fits' models.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using calibration::LeftOutModel;
using calibration::UnseenModelAccuracy;

namespace {

// Three dense model presets, named in sorted order (a pair's models() are sorted).
const std::string kA = "llama-3.1-70b", kB = "llama-3.1-8b", kC = "qwen3-32b";

LeftOutModel fold(const std::string& model, std::vector<std::string> others, double ttft_ape, double tpot_ape,
                  double ttft_ratio, int rows = 10) {
  return {model,
          rows,
          std::move(others),
          {ttft_ape, 2 * ttft_ape, ttft_ratio},
          {tpot_ape, 2 * tpot_ape, 1.0},
          {0.5, 0.9, 1.5},
          {0.2, 0.4, 0.8}};
}

// h200 vllm with three dense models: each left out in turn, TTFT medians 10%, 30% and 50%.
UnseenModelAccuracy three_models() {
  return {"h200",
          "vllm",
          "--train-rows 24 --no-experts",
          {fold(kA, {kB, kC}, 0.1, 0.05, 0.9), fold(kB, {kA, kC}, 0.3, 0.15, 1.2), fold(kC, {kA, kB}, 0.5, 0.25, 1.6)}};
}

calibration::Profile fit_of(const std::string& hw, std::vector<std::string> models) {
  calibration::Profile p = calibration::datasheet_profile(specs::hardware_preset(hw), "vllm");
  p.kind = "fitted";
  p.runtime = "vllm";
  p.fitted_models = std::move(models);
  return p;
}

std::string error_of(const nlohmann::json& j) {
  try {
    calibration::parse_unseen_model_table(j, "u.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a table of models left out reads back what it wrote, and a merge replaces the same pair's entry",
          "[calibration][accuracy]") {
  const nlohmann::json first = calibration::merge_unseen_model_table({}, three_models(), "first");
  UnseenModelAccuracy b200 = three_models();
  b200.hardware = "b200";
  UnseenModelAccuracy again = three_models();
  again.folds.pop_back();
  const nlohmann::json merged = calibration::merge_unseen_model_table(
      calibration::parse_unseen_model_table(
          calibration::merge_unseen_model_table(calibration::parse_unseen_model_table(first, "f"), b200, "second"),
          "s"),
      again, "third");
  CHECK(merged["schema"] == "fleetcast.unseen-model-accuracy/1");
  CHECK(merged["how"] == "third");
  const auto table = calibration::parse_unseen_model_table(merged, "t.json");
  REQUIRE(table.size() == 2);
  CHECK(table[0].hardware == "b200");  // sorted by hardware, runtime
  CHECK(table[0].folds.size() == 3);
  CHECK(table[1].folds.size() == 2);  // h200's entry is the third run's
  CHECK(table[1].folds[1].fit_ttft.median_ratio == Approx(1.2));
  CHECK(table[1].folds[1].datasheet_tpot.median_ratio == Approx(0.8));
  CHECK(table[1].recipe == "--train-rows 24 --no-experts");
  CHECK(calibration::to_json(table[1]) == merged["pairs"][1]);
  // The models of a pair: every one left out or trained on.
  CHECK(table[1].models() == std::vector<std::string>{kA, kB, kC});
}

TEST_CASE("a fit for dense models quotes its own folds, the pair's fit the pair's", "[calibration][accuracy]") {
  // The pair's recipe left out the three dense models at 10-50%; the dense-only recipe left out two of them at 5% and
  // 7%. A merge keeps both entries.
  UnseenModelAccuracy dense_only{"h200",
                                 "vllm",
                                 "--train-rows 24 --no-experts --models dense",
                                 {fold(kA, {kB}, 0.05, 0.02, 1.0), fold(kB, {kA}, 0.07, 0.03, 1.0)}};
  CHECK(dense_only.model_kind() == "dense");
  CHECK(three_models().model_kind().empty());
  const auto table = calibration::parse_unseen_model_table(
      calibration::merge_unseen_model_table(
          calibration::parse_unseen_model_table(calibration::merge_unseen_model_table({}, three_models(), "a"), "a"),
          dense_only, "b"),
      "b");
  REQUIRE(table.size() == 2);
  calibration::Profile dense_fit = fit_of("h200", {kA, kB});
  dense_fit.model_kind = "dense";
  const auto d = calibration::unseen_model_error_for(dense_fit, "vllm", "mistral-large", "dense", table);
  REQUIRE(d);
  CHECK(d->scope == "pair");
  CHECK(d->ttft.median_ape == Approx(0.06));
  const auto p = calibration::unseen_model_error_for(fit_of("h200", {kA, kB, kC}), "vllm", "x", "dense", table);
  REQUIRE(p);
  CHECK(p->ttft.median_ape == Approx(0.3));
  // A pair's fit over the dense fit's two models (no kind): the dense entry is not its record.
  CHECK_FALSE(calibration::unseen_model_error_for(fit_of("h200", {kA, kB}), "vllm", "x", "dense", table));
  // Another GPU's fit of one dense model takes the runtime's folds of the pair recipe only: the three, not five.
  const auto other = calibration::unseen_model_error_for(fit_of("b200", {kA}), "vllm", "x", "dense", table);
  REQUIRE(other);
  CHECK(other->scope == "runtime");
  CHECK(other->models_left_out.size() == 3);
}

TEST_CASE("a bad table of models left out names the field", "[calibration][accuracy]") {
  const nlohmann::json good = calibration::merge_unseen_model_table({}, three_models(), "x");
  CHECK(error_of(good).empty());
  nlohmann::json j = good;
  j["schema"] = "fleetcast.accuracy/1";
  CHECK_THAT(error_of(j), Catch::Contains("schema"));
  j = good;
  j["pairs"][0]["folds"] = nlohmann::json::array();
  CHECK_THAT(error_of(j), Catch::Contains("pairs[0].folds"));
  j = good;
  j["pairs"][0]["folds"][1]["fit"]["ttft"]["median_ape"] = -0.1;
  CHECK_THAT(error_of(j), Catch::Contains("pairs[0].folds[1].fit.ttft.median_ape"));
  j = good;
  j["pairs"][0]["folds"][2]["datasheet"]["tpot"].erase("median_ratio");
  CHECK_THAT(error_of(j), Catch::Contains("pairs[0].folds[2].datasheet.tpot.median_ratio"));
  j = good;
  j["pairs"][0]["folds"][0]["trained_on"] = nlohmann::json::array();
  CHECK_THAT(error_of(j), Catch::Contains("pairs[0].folds[0].trained_on"));
  j = good;
  j["pairs"][0]["folds"][0]["rows"] = 0;
  CHECK_THAT(error_of(j), Catch::Contains("pairs[0].folds[0].rows"));
}

TEST_CASE("a forecast of a model outside a fit's runs carries the spread of the models left out, no other does",
          "[calibration][accuracy]") {
  const std::vector<UnseenModelAccuracy> table = {three_models()};
  const calibration::Profile fit = fit_of("h200", {kC, kA, kB});  // order as written does not matter

  const auto e = calibration::unseen_model_error_for(fit, "vllm", "mistral-large", "dense", table);
  REQUIRE(e);
  CHECK(e->scope == "pair");
  CHECK(e->models_left_out == std::vector<std::string>{kA, kB, kC});
  CHECK(e->rows == 30);
  // Of the three folds' medians (10%, 30%, 50%): the median and both ends; of their ratios (0.9, 1.2, 1.6) the median.
  CHECK(e->ttft.median_ape == Approx(0.3));
  CHECK(e->ttft.lowest_ape == Approx(0.1));
  CHECK(e->ttft.highest_ape == Approx(0.5));
  CHECK(e->ttft.median_ratio == Approx(1.2));
  CHECK(e->tpot.median_ape == Approx(0.15));
  CHECK(calibration::describe(*e) ==
        "on a model outside the fit's measured runs: TTFT off by a median 30% (10-50% by model, predicted/measured "
        "1.20x), TPOT 15% (5-25%, 1.00x), 3 dense models of h200 vllm left out one at a time and refitted without them "
        "(30 runs)");
  // The JSON form reports carry reads back.
  const auto back = calibration::parse_unseen_model_error(calibration::to_json(*e), "r.json", "derived.x.");
  CHECK(back.ttft.highest_ape == Approx(0.5));
  CHECK(back.models_left_out == e->models_left_out);

  // A model the fit saw: its held-out error is the one to quote.
  CHECK_FALSE(calibration::unseen_model_error_for(fit, "vllm", kB, "dense", table));
  // Not a fit: nothing was refitted.
  calibration::Profile datasheet = fit;
  datasheet.kind = "datasheet";
  CHECK_FALSE(calibration::unseen_model_error_for(datasheet, "vllm", "mistral-large", "dense", table));
  // A fit made on other runs than the table's folds (a refit with a fourth model): the entry is stale.
  CHECK_FALSE(calibration::unseen_model_error_for(fit_of("h200", {kA, kB, kC, "d"}), "vllm", "x", "dense", table));
  // Another runtime's folds say nothing of this one.
  CHECK_FALSE(calibration::unseen_model_error_for(fit, "sglang", "mistral-large", "dense", table));
}

TEST_CASE("a forecast counts only the folds that left out a model of its kind, dense or MoE",
          "[calibration][accuracy]") {
  UnseenModelAccuracy h200 = three_models();
  h200.folds.push_back(fold("gpt-oss-120b", {kA, kB, kC}, 0.7, 0.4, 0.6, 20));  // MoE
  h200.folds.push_back(fold("minimax-m2.5", {kA, kB, kC}, 0.9, 0.6, 0.8, 40));  // MoE
  for (auto& f : h200.folds) f.trained_on = {};  // rebuilt below: every other model of the pair
  for (auto& f : h200.folds) {
    for (const auto& g : h200.folds)
      if (g.model != f.model) f.trained_on.push_back(g.model);
    std::sort(f.trained_on.begin(), f.trained_on.end());
  }
  UnseenModelAccuracy b200 = h200;
  b200.hardware = "b200";
  b200.folds = {fold("qwen3-235b-a22b", {kA}, 0.2, 0.1, 1.1, 5), fold(kA, {"qwen3-235b-a22b"}, 0.6, 0.2, 1.5, 5)};
  const std::vector<UnseenModelAccuracy> table = {h200, b200};
  const calibration::Profile fit = fit_of("h200", {kA, kB, kC, "gpt-oss-120b", "minimax-m2.5"});

  // DeepSeek-V3 (MoE): the two MoE folds alone, 70% and 90%.
  const auto moe = calibration::unseen_model_error_for(fit, "vllm", "deepseek-v3", "moe", table);
  REQUIRE(moe);
  CHECK(moe->scope == "pair");
  CHECK(moe->architecture == "moe");
  CHECK(moe->models_left_out == std::vector<std::string>{"gpt-oss-120b", "minimax-m2.5"});
  CHECK(moe->rows == 60);
  CHECK(moe->ttft.median_ape == Approx(0.8));
  CHECK(moe->ttft.lowest_ape == Approx(0.7));
  CHECK(moe->tpot.highest_ape == Approx(0.6));
  CHECK_THAT(calibration::describe(*moe), Catch::Contains("2 MoE models of h200 vllm left out"));
  // A dense model: the three dense folds, as before the MoE ones were added.
  const auto dense = calibration::unseen_model_error_for(fit, "vllm", "mistral-large", "dense", table);
  REQUIRE(dense);
  CHECK(dense->models_left_out == std::vector<std::string>{kA, kB, kC});
  CHECK(dense->ttft.median_ape == Approx(0.3));
  // The JSON reads back with its kind; a report from before the split (no kind) still reads.
  nlohmann::json j = calibration::to_json(*moe);
  CHECK(calibration::parse_unseen_model_error(j, "r.json", "d.").architecture == "moe");
  j.erase("architecture");
  CHECK(calibration::parse_unseen_model_error(j, "r.json", "d.").architecture.empty());
  j["architecture"] = "hybrid";
  CHECK_THROWS_WITH(calibration::parse_unseen_model_error(j, "r.json", "d."), Catch::Contains("d.architecture"));

  // A fit whose folds left out no MoE model takes the runtime's MoE folds on the other GPUs.
  const std::vector<UnseenModelAccuracy> dense_only = {three_models(), b200};
  const auto other =
      calibration::unseen_model_error_for(fit_of("h200", {kA, kB, kC}), "vllm", "deepseek-v3", "moe", dense_only);
  REQUIRE(other);
  CHECK(other->scope == "runtime");
  CHECK(other->models_left_out == std::vector<std::string>{"b200 qwen3-235b-a22b"});
  CHECK(other->ttft.median_ape == Approx(0.2));
  // One fold has no spread to give.
  CHECK_THAT(calibration::describe(*other),
             Catch::StartsWith("on a model outside the fit's measured runs: TTFT off by 20% (predicted/measured "
                               "1.10x), TPOT 10% (1.00x), 1 MoE model of the other vllm GPUs"));
  // None of that kind anywhere: no figure.
  CHECK_FALSE(calibration::unseen_model_error_for(fit_of("h200", {kA, kB, kC}), "vllm", "deepseek-v3", "moe",
                                                  {three_models()}));
}

TEST_CASE("a fit of one model takes the folds of the same runtime's other GPUs", "[calibration][accuracy]") {
  UnseenModelAccuracy sglang = three_models();
  sglang.runtime = "sglang";
  UnseenModelAccuracy b300 = three_models();
  b300.hardware = "b300";  // the fit's own GPU: a table entry there would be its own fit's, which saw one model
  b300.folds = {fold("x", {"y"}, 0.9, 0.9, 3.0)};
  const std::vector<UnseenModelAccuracy> table = {three_models(), sglang, b300};
  const auto e =
      calibration::unseen_model_error_for(fit_of("b300", {"minimax-m2.5"}), "vllm", "qwen3-8b", "dense", table);
  REQUIRE(e);
  CHECK(e->scope == "runtime");
  CHECK(e->models_left_out == std::vector<std::string>{"h200 " + kA, "h200 " + kB, "h200 " + kC});
  CHECK(e->ttft.median_ape == Approx(0.3));
  CHECK_THAT(calibration::describe(*e),
             Catch::Contains("3 dense models of the other vllm GPUs (none of this fit's own to leave out)"));
  // A bad scope in a report is named.
  nlohmann::json j = calibration::to_json(*e);
  j["scope"] = "model";
  CHECK_THROWS_WITH(calibration::parse_unseen_model_error(j, "r.json", "derived.x."),
                    Catch::Contains("derived.x.scope"));
}

TEST_CASE("the shipped table covers every shipped fit of several models, over exactly the fit's models",
          "[calibration][accuracy]") {
  const auto& table = calibration::shipped_unseen_model_accuracy();
  REQUIRE_FALSE(table.empty());
  int checked = 0;
  for (const specs::PresetInfo& info : specs::list_presets(specs::PresetKind::hardware)) {
    const std::string& name = info.name;
    for (const std::string runtime : {"vllm", "sglang", "trtllm"}) {
      const calibration::Profile p = calibration::profile_for(specs::hardware_preset(name), runtime);
      if (p.kind != "fitted") continue;
      INFO(name << " " << runtime);
      // DeepSeek-V3 is in no fit's runs: every shipped fit gives its forecasts a figure, from its own pair's folds or
      // (a fit of one model) the runtime's.
      const auto e = calibration::unseen_model_error_for(p, runtime, "deepseek-v3", "moe");
      REQUIRE(e);
      CHECK(e->scope == (p.fitted_models.size() > 1 ? "pair" : "runtime"));
      CHECK(e->ttft.lowest_ape <= e->ttft.median_ape);
      // And a dense model outside the runs (Mistral-Large, say): the dense folds.
      const auto d = calibration::unseen_model_error_for(p, runtime, "mistral-large", "dense");
      REQUIRE(d);
      for (std::string m : d->models_left_out) {
        if (d->scope == "runtime") m = m.substr(m.find(' ') + 1);  // "h200 llama-3.1-8b"
        CHECK(calibration::architecture_of(specs::model_preset(m)) == "dense");
      }
      ++checked;
      // A dense fit of the pair's: its own folds, over exactly its models, each dense; a dense fit of one model the
      // dense-only recipe's folds on the runtime's other GPUs.
      if (const auto own = calibration::kind_profile_for(specs::hardware_preset(name), runtime, "dense")) {
        const auto o = calibration::unseen_model_error_for(*own, runtime, "mistral-large", "dense");
        REQUIRE(o);
        if (own->fitted_models.size() > 1) {
          CHECK(o->scope == "pair");
          CHECK(o->models_left_out.size() == own->fitted_models.size());
        } else {
          CHECK(o->scope == "runtime");
          for (const std::string& m : o->models_left_out) CHECK(m.rfind(name + " ", 0) != 0);  // not its own GPU
        }
      }
    }
  }
  CHECK(checked == 11);
}
