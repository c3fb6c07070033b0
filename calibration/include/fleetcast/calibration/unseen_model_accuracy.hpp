#pragma once
// How wrong a (hardware, runtime) serving fit is on a model it never saw. A fit's held-out error
// (measured_accuracy.hpp) is measured on held-out runs of the very models it was fitted to; a forecast of any other
// model (DeepSeek-V4-Flash on B200 under vLLM, say) leans on figures that were never checked on it. The nearest
// measurement is to leave each model of the pair's measured runs out in turn, refit the pair on the others with the
// shipped recipe, and score the left-out model's runs (`fleetcast --datasheet-profiles calibrate serving --silicon
// FILE --cross-validate --accuracy FILE`, fast replay). The table of those folds is
// calibration/profiles/accuracy/unseen-models.json (schema fleetcast.unseen-model-accuracy/1), compiled in; a forecast
// of a model outside a shipped fit's models carries the folds' spread (docs/ACCURACY.md, "Fits on models they never
// saw").

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::calibration {

// One model left out: the pair refitted on the others, scored on its runs.
struct LeftOutModel {
  std::string model;                    // the model preset left out
  int rows = 0;                         // its runs scored
  std::vector<std::string> trained_on;  // the models of the refit's training runs, sorted
  ErrorFigures fit_ttft, fit_tpot;      // the refit on the left-out runs
  // The datasheet profile on the same runs: what the model would have got with no fit at all.
  ErrorFigures datasheet_ttft, datasheet_tpot;
};

struct UnseenModelAccuracy {
  std::string hardware;  // preset name: "h200"
  std::string runtime;   // "vllm"
  std::string recipe;    // the fit's options, as `calibrate serving` words them
  std::vector<LeftOutModel> folds;
  // Every model of the folds (left out or trained on), sorted: the models a fit of the whole pair is made on.
  std::vector<std::string> models() const;
  // "dense" or "moe" where the recipe fitted one kind of model alone (`--models KIND`), else "": a fit of that kind
  // (Profile::model_kind) quotes its own entries, the pair's fit the others.
  std::string model_kind() const;
};

nlohmann::json to_json(const UnseenModelAccuracy& a);
// Strict: schema fleetcast.unseen-model-accuracy/1, every field present and of its type, at least one fold per pair,
// errors finite and >= 0, ratios > 0; an InputError names `file` and the field otherwise.
std::vector<UnseenModelAccuracy> parse_unseen_model_table(const nlohmann::json& j, const std::string& file);
// `existing` with `fresh` in it (an entry of the same hardware, runtime and model_kind() replaced), sorted; `how` is
// the note.
nlohmann::json merge_unseen_model_table(std::vector<UnseenModelAccuracy> existing, const UnseenModelAccuracy& fresh,
                                        const std::string& how);
// The shipped table.
const std::vector<UnseenModelAccuracy>& shipped_unseen_model_accuracy();

// The spread over the left-out models of their errors: what a forecast of a model outside the fit's runs can expect.
struct UnseenModelError {
  // "pair": the folds of the profile's own (hardware, runtime); "runtime": the fit saw one model, so nothing of it
  // could be left out, and the folds are every other pair's of the same runtime.
  std::string scope;
  std::string hardware, runtime;
  std::vector<std::string> models_left_out;  // "h200 llama-3.1-70b" under scope "runtime"
  int rows = 0;                              // runs scored over all the folds
  // Over the folds (measured_accuracy.hpp's ErrorSpread).
  ErrorSpread ttft, tpot;
  // The forecast model's kind, "dense" or "moe" (architecture_of): only folds that left out a model of that kind
  // count, since a fit's recipe misses the two differently. "" in a report written before (every fold).
  std::string architecture;
};

// The figures a forecast of `model` (a preset name, or a model of the user's own), of `architecture` ("dense" or
// "moe", architecture_of), made with `in_use` under `runtime` carries: none when `in_use` is not a shipped serving fit
// (kind "fitted" with its training models named) or `model` is one of those models (its held-out error is
// measured_accuracy_for's), or the table has no folds of that kind for it. Only folds that left out a model of
// `architecture` (a preset) count. "pair" scope: the table's entry over the fit's own models (a refit on other runs
// leaves the entry stale, and it is not used); "runtime": the same runtime's folds on the other GPUs, where the fit
// saw one model (nothing of it could be left out) or its folds left out no model of this kind.
std::optional<UnseenModelError> unseen_model_error_for(const Profile& in_use, const std::string& runtime,
                                                       const std::string& model, const std::string& architecture,
                                                       const std::vector<UnseenModelAccuracy>& table);
std::optional<UnseenModelError> unseen_model_error_for(const Profile& in_use, const std::string& runtime,
                                                       const std::string& model, const std::string& architecture);
// As to_json writes it, or null: the form reports carry (derived.profile_unseen_model_error).
nlohmann::json to_json(const UnseenModelError& e);
nlohmann::json unseen_model_error_json(const Profile& in_use, const std::string& runtime,
                                       const specs::ModelSpec& model);
UnseenModelError parse_unseen_model_error(const nlohmann::json& j, const std::string& file, const std::string& at);

// "on a model outside the fit's measured runs: TTFT off by a median 21% (15-30% by model, predicted/measured 1.05x),
// TPOT 30% (9-75%, 1.16x), 3 MoE models of h200 vllm left out one at a time and refitted without them (210 runs)"
std::string describe(const UnseenModelError& e);

}  // namespace fleetcast::calibration
