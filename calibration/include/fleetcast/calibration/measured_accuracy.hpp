#pragma once
// How wrong a profile's forecasts were on measured serving runs it was not fitted to: the held-out error of each
// shipped (hardware, runtime) profile on ../shared/validation/silicon-dev.csv, written by `fleetcast validate
// --split held-out --accuracy FILE` into calibration/profiles/accuracy/held-out.json (schema fleetcast.accuracy/1)
// and compiled in. A forecast made with a shipped profile then carries the error its profile showed on real runs.
//
// Each entry names the profile it measured by a fingerprint of its JSON, so an entry holds only for that exact
// profile: a refit (or a user's own profile of the same hardware and runtime) has no measured error until the table
// is written again, and the test that every shipped serving fit has an entry makes a refit regenerate it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::calibration {

// Absolute percentage errors of the mean TTFT or TPOT over a pair's held-out rows (shares: 0.25 is 25%), and the
// median of predicted / measured (above 1: the forecasts ran high).
struct ErrorFigures {
  double median_ape = 0.0;
  double p90_ape = 0.0;
  double median_ratio = 0.0;
};

// As to_json writes them; an InputError names `file` and the field (prefixed by `where`) otherwise: every figure
// present, errors finite and >= 0, the ratio > 0.
nlohmann::json to_json(const ErrorFigures& e);
ErrorFigures parse_error_figures(const nlohmann::json& j, const std::string& file, const std::string& where);

// Over several measurements' ErrorFigures (models left out of a fit, GPUs scored without theirs): the median, lowest
// and highest of their median APE, and the median of their median predicted / measured.
struct ErrorSpread {
  double median_ape = 0.0, lowest_ape = 0.0, highest_ape = 0.0, median_ratio = 0.0;
};
// Of at least one measurement.
ErrorSpread spread_of(const std::vector<const ErrorFigures*>& each);
nlohmann::json to_json(const ErrorSpread& s);
// Strict: every figure, 0 <= lowest <= median <= highest, ratio > 0; an InputError names `file` and `at`'s field.
ErrorSpread parse_error_spread(const nlohmann::json& j, const std::string& file, const std::string& at);
// "TTFT off by a median 42% (20-103% by model, predicted/measured 1.42x), TPOT 11% (7-17%, 1.06x)", `by` naming what
// the spread is over; "TTFT off by 103% (predicted/measured 2.03x), TPOT 7% (1.01x)" where it has no spread (one
// measurement).
std::string describe(const ErrorSpread& ttft, const ErrorSpread& tpot, const std::string& by);

struct PairAccuracy {
  std::string hardware;             // preset name: "h100"
  std::string runtime;              // "vllm", "sglang", "trtllm"
  std::string profile_kind;         // datasheet, fitted or measured
  std::string profile_fingerprint;  // profile_fingerprint() of the profile the rows were predicted with
  int rows = 0;                     // measured rows predicted
  std::vector<std::string> models;  // the models among them, sorted
  ErrorFigures ttft, tpot;
  // "dense" or "moe": the entry holds that kind's runs only, since a profile's error differs by the kind (H200 vLLM's
  // fit: TTFT 111% on dense models' held-out runs, 21% on MoE ones), and a forecast quotes its own model's kind.
  // Every table entry has one; "" only in a report written before the tables scored the kinds apart (every model).
  std::string architecture;
};

// "moe" for a model with routed experts, else "dense": the kind of model an accuracy entry scores.
std::string architecture_of(const specs::ModelSpec& model);
// True for the names architecture_of gives, "dense" and "moe": what a table entry, a profile's model_kind and
// `--models` may hold.
bool is_architecture(const std::string& name);
// `j`'s optional "architecture": "dense", "moe", or "" where absent (a report written before the kinds were scored
// apart); an InputError names `file` and `at`'s field for any other value.
std::string parse_architecture(const nlohmann::json& j, const std::string& file, const std::string& at);

// The first 16 hex digits of the SHA-256 of the profile's JSON (calibration::to_json, compact): what an entry is for.
std::string profile_fingerprint(const Profile& p);

nlohmann::json to_json(const PairAccuracy& a);
// One entry as to_json writes it; an InputError names `file` and the field (prefixed by `at`) otherwise.
PairAccuracy parse_pair_accuracy(const nlohmann::json& j, const std::string& file, const std::string& at = "");
// The two tables of such entries: held-out rows of the profiles in use (this header), and fitted GPUs' runs scored
// with the pick a GPU without a fit gets (unfitted_gpu_accuracy.hpp).
inline constexpr const char* kHeldOutAccuracySchema = "fleetcast.accuracy/2";
inline constexpr const char* kUnfittedGpuAccuracySchema = "fleetcast.unfitted-gpu-accuracy/2";

// Strict: that schema, every field present and of its type (an architecture on every entry), errors in [0, inf),
// ratios > 0; an InputError names `file` and the field otherwise. A table of the schemas before the kinds were scored
// apart (fleetcast.accuracy/1, fleetcast.unfitted-gpu-accuracy/1) is refused: write it again.
std::vector<PairAccuracy> parse_accuracy_table(const nlohmann::json& j, const std::string& file,
                                               const char* schema = kHeldOutAccuracySchema);

// A table of `existing` (parse_accuracy_table's, or none) with `fresh` in it: an entry for the same profile
// (hardware, runtime, kind and fingerprint; in the unfitted-GPU table, the same hardware, runtime and architecture) is
// replaced, the others kept; sorted by those; `how` is the table's note.
nlohmann::json merge_accuracy_table(std::vector<PairAccuracy> existing, const std::vector<PairAccuracy>& fresh,
                                    const std::string& how, const char* schema = kHeldOutAccuracySchema);

// The shipped table's entry for exactly this profile serving `runtime` (same hardware, runtime and fingerprint) on
// models of `architecture` (architecture_of), or none.
std::optional<PairAccuracy> measured_accuracy_for(const Profile& in_use, const std::string& runtime,
                                                  const std::string& architecture);
// That entry for `model`'s kind as to_json writes it, or null: the form reports, plans and sweep lines carry.
nlohmann::json measured_error_json(const Profile& in_use, const std::string& runtime, const specs::ModelSpec& model);
// Every entry of the shipped table.
const std::vector<PairAccuracy>& shipped_accuracy();
// The compiled-in table calibration/profiles/NAME.json ("accuracy/held-out") of that schema, parsed strictly; none
// where no such file was compiled in.
std::vector<PairAccuracy> compiled_in_accuracy_table(const std::string& name, const char* schema);

// "TTFT off by a median 21% (p90 37%, predicted/measured 0.93x), TPOT 13% (p90 27%, 0.96x) on 35 held-out measured
// runs of MoE models (gpt-oss-120b, minimax-m2.5, qwen3-235b-a22b)" for a summary line: the models matter, a forecast
// of another one may do worse.
std::string describe(const PairAccuracy& a);

}  // namespace fleetcast::calibration
