// The held-out error table (measured_accuracy.hpp): its JSON round trip and merge, bad tables named by field, and the
// shipped table in step with the shipped profiles, so that a forecast quotes the error of exactly its profile.
#include <catch2/catch.hpp>
#include <set>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;

namespace {

calibration::PairAccuracy entry(const std::string& hw, const std::string& runtime, const std::string& kind, int rows,
                                const std::string& architecture = "dense") {
  return {hw,
          runtime,
          kind,
          "00112233445566aa",
          rows,
          {"llama-3.1-8b", "qwen3-32b"},
          {0.25, 0.8, 1.3},
          {0.1, 0.3, 0.95},
          architecture};
}

std::string error_of(const nlohmann::json& j) {
  try {
    calibration::parse_accuracy_table(j, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an accuracy table reads back what it wrote, and a merge replaces only the same profile's entry",
          "[calibration][accuracy]") {
  const nlohmann::json first =
      calibration::merge_accuracy_table({}, {entry("h100", "vllm", "fitted", 40)}, "first run");
  const nlohmann::json merged =
      calibration::merge_accuracy_table(calibration::parse_accuracy_table(first, "first.json"),
                                        {entry("h100", "vllm", "datasheet", 40), entry("b200", "trtllm", "fitted", 7),
                                         entry("h100", "vllm", "fitted", 41)},
                                        "second run");
  CHECK(merged["how"] == "second run");
  auto pairs = calibration::parse_accuracy_table(merged, "t.json");
  REQUIRE(pairs.size() == 3);
  // Sorted by hardware, runtime, kind; the fitted h100 vllm entry is the second run's.
  CHECK(pairs[0].hardware == "b200");
  CHECK(pairs[1].profile_kind == "datasheet");
  CHECK(pairs[2].profile_kind == "fitted");
  CHECK(pairs[2].rows == 41);
  CHECK(pairs[2].ttft.median_ratio == Approx(1.3));
  CHECK(pairs[2].models == std::vector<std::string>{"llama-3.1-8b", "qwen3-32b"});
  CHECK(calibration::to_json(pairs[2]) == merged["pairs"][2]);
  // Another profile of the same pair and kind (a refit) is another entry.
  auto refit = entry("h100", "vllm", "fitted", 42);
  refit.profile_fingerprint = "ffffffffffffffff";
  CHECK(calibration::parse_accuracy_table(calibration::merge_accuracy_table(pairs, {refit}, "third"), "t").size() == 4);
  // So is the same profile's entry for the other kind of model.
  CHECK(calibration::parse_accuracy_table(
            calibration::merge_accuracy_table(pairs, {entry("h100", "vllm", "fitted", 9, "moe")}, "fourth"), "t")
            .size() == 4);
  CHECK(calibration::describe(pairs[2]) ==
        "TTFT off by a median 25% (p90 80%, predicted/measured 1.30x), TPOT 10% (p90 30%, 0.95x) on 41 held-out "
        "measured runs of dense models (llama-3.1-8b, qwen3-32b)");
  // A report written before the kinds were scored apart has no architecture: it still reads, and says the models.
  nlohmann::json old = calibration::to_json(pairs[2]);
  old.erase("architecture");
  CHECK(
      calibration::describe(calibration::parse_pair_accuracy(old, "r.json")).find("runs of llama-3.1-8b, qwen3-32b") !=
      std::string::npos);
}

TEST_CASE("a bad accuracy table names the field", "[calibration][accuracy]") {
  nlohmann::json j = calibration::merge_accuracy_table({}, {entry("h100", "vllm", "fitted", 40)}, "x");
  CHECK(error_of({{"schema", "fleetcast.report/1"}}).find("t.json: field 'schema'") == 0);
  nlohmann::json bad = j;
  bad["pairs"][0].erase("tpot");
  CHECK(error_of(bad).find("t.json: field 'pairs[0].tpot'") == 0);
  bad = j;
  bad["pairs"][0]["ttft"]["median_ratio"] = 0.0;
  CHECK(error_of(bad).find("t.json: field 'pairs[0].ttft.median_ratio'") == 0);
  bad = j;
  bad["pairs"][0]["tpot"]["p90_ape"] = -0.1;
  CHECK(error_of(bad).find("t.json: field 'pairs[0].tpot.p90_ape'") == 0);
  bad = j;
  bad["pairs"][0]["rows"] = 0;
  CHECK(error_of(bad).find("t.json: field 'pairs[0].rows'") == 0);
  // Every entry of a table is for one kind of model; a table from before the split is refused.
  bad = j;
  bad["pairs"][0].erase("architecture");
  CHECK(error_of(bad).find("t.json: field 'pairs[0].architecture'") == 0);
  bad = j;
  bad["pairs"][0]["architecture"] = "hybrid";
  CHECK(error_of(bad).find("t.json: field 'pairs[0].architecture' = \"hybrid\"") == 0);
  bad = j;
  bad["schema"] = "fleetcast.accuracy/1";
  CHECK(error_of(bad).find("t.json: field 'schema'") == 0);
}

TEST_CASE("every shipped serving fit has its held-out error on record, and only that exact profile gets it",
          "[calibration][accuracy]") {
  const auto table = calibration::shipped_accuracy();
  REQUIRE_FALSE(table.empty());
  int fits = 0;
  for (const calibration::Profile& p : calibration::shipped_profiles()) {
    if (p.kind != "fitted" || p.runtime.empty()) continue;  // the serving fits: per (hardware, runtime), per kind
    ++fits;
    INFO(p.hardware << " " << p.runtime
                    << ": regenerate calibration/profiles/accuracy/held-out.json after a refit "
                       "(scripts/validation-report.sh)");
    // An entry for each kind of model the fit was made on (a dense model on a fit made on MoE models alone takes
    // other GEMM rates: another profile, model_scope.hpp), with that kind's models only.
    std::set<std::string> kinds;
    for (const std::string& m : p.fitted_models) kinds.insert(calibration::architecture_of(specs::model_preset(m)));
    REQUIRE_FALSE(kinds.empty());
    for (const std::string& kind : kinds) {
      INFO(kind);
      // A kind of model that takes the pair's fit for it alone (Profile::model_kind) is on record under that one.
      if (p.model_kind.empty() && calibration::kind_profile_for(specs::hardware_preset(p.hardware), p.runtime, kind))
        continue;
      const auto a = calibration::measured_accuracy_for(p, p.runtime, kind);
      REQUIRE(a.has_value());
      CHECK(a->profile_kind == "fitted");
      CHECK(a->rows >= 5);
      CHECK_FALSE(a->models.empty());
      for (const std::string& m : a->models) CHECK(calibration::architecture_of(specs::model_preset(m)) == kind);
      CHECK_FALSE(calibration::measured_accuracy_for(p, p.runtime == "vllm" ? "sglang" : "vllm", kind).has_value());
      calibration::Profile changed = p;
      changed.memory_efficiency *= 0.99;  // a refit, or a user's own profile: not what the rows measured
      CHECK_FALSE(calibration::measured_accuracy_for(changed, p.runtime, kind).has_value());
    }
  }
  CHECK(fits >= 11);
}
