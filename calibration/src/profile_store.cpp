#include "fleetcast/calibration/profile_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "embedded_profiles.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/model_scope.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::calibration {
namespace {

int kind_rank(const std::string& kind) { return kind == "measured" ? 3 : kind == "fitted" ? 2 : 1; }

// The fitted figures of a runtime that carry over to a GPU without a fit of its own, each chosen by leaving one GPU
// out: each GPU's datasheet profile with the median of the other GPUs' fits, every row of the development set, median
// TTFT / TPOT error. Host-side CPU work (HTTP and tokenization per request, scheduling per step and per sequence) does
// not depend on the GPU (docs/ACCURACY.md, "Front-end time"): SGLang's front-end time 56.6% -> 27.7% TTFT (its step
// and sequence costs did not help); vLLM's three 35.5% -> 30.9% TTFT, 17.4% -> 13.6% TPOT; TensorRT-LLM's made both
// worse (37.6% -> 44.3%, 14.6% -> 16.7%). vLLM's decode also streams its weights and KV below the kernel-level rate
// on every fitted GPU but B300, carried as the fits' ratio to their datasheet's memory_efficiency (docs/ACCURACY.md,
// "What a forecast on a GPU without a fit can expect"): TPOT 16% -> 12% over the runtime's four GPUs (lower in 11 of
// its 15 groups), TTFT 31% -> 30%; SGLang's lost TPOT in 5 of 7 groups and TensorRT-LLM's moved neither median.
// TensorRT-LLM launches every prompt iteration's kernels eagerly from Python on any GPU, so its host time per kernel
// carries (a datasheet pick had none): its eight (GPU, kind of model) entries' median TTFT error 48% -> 41%, lower
// in five (H100 MoE 58% -> 19%), higher on B200, whose own fit's 23 us is a third of the Hopper fits'
// (docs/ACCURACY.md, "TensorRT-LLM's eager launch time on a GPU without a fit"). Its front end on top of it lost more
// than it gained.
struct CarriedFigures {
  const char* runtime;
  bool request, step, sequence, memory_ratio, eager_launch;
};
constexpr CarriedFigures kCarriedFigures[] = {{"sglang", true, false, false, false, false},
                                              {"trtllm", false, false, false, false, true},
                                              {"vllm", true, true, true, true, false}};

// The median of sorted values.
double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

// The fitted `runtime` profiles among `candidates` whose figures carry, one per GPU: the first, so that a user's own
// fit (FLEETCAST_PROFILE_DIR, listed before the shipped ones) stands in for the shipped fit of its GPU rather than
// beside it. A fit for one kind of model (model_kind) is not the GPU's fit: its figures are not what carries.
std::vector<const Profile*> carrying_fits(const std::vector<Profile>& candidates, const std::string& runtime) {
  std::vector<const Profile*> fits;
  std::set<std::string> gpus;
  for (const Profile& c : candidates) {
    if (c.kind != "fitted" || c.runtime != runtime || !c.model_kind.empty()) continue;
    if (gpus.insert(c.hardware).second) fits.push_back(&c);
  }
  return fits;
}

// The median over the fitted `runtime` profiles among `candidates` (carrying_fits) of value(profile) (skipping those it
// gives none for), and where it came from: "median of the fitted vllm profiles of other GPUs (h100 10 ms, ...)"; none
// without such a profile.
template <typename Value>
std::optional<std::pair<double, std::string>> fitted_median(const std::vector<Profile>& candidates,
                                                            const std::string& runtime, Value value, double to_unit,
                                                            const char* unit) {
  std::vector<std::pair<double, std::string>> fits;
  for (const Profile* c : carrying_fits(candidates, runtime)) {
    if (const std::optional<double> v = value(*c)) fits.emplace_back(*v, c->hardware);
  }
  if (fits.empty()) return std::nullopt;
  std::sort(fits.begin(), fits.end());
  const std::size_t n = fits.size();
  std::vector<double> values;
  for (const auto& f : fits) values.push_back(f.first);
  const double median = median_of_sorted(values);
  std::ostringstream why;
  why.precision(4);
  why << "median of the fitted " << runtime << " profiles of other GPUs (";
  for (std::size_t i = 0; i < n; ++i) {
    why << (i ? ", " : "") << fits[i].second << " " << fits[i].first * to_unit << (*unit ? " " : "") << unit;
  }
  why << ")";
  return std::make_pair(median, why.str());
}

// A fit's memory_efficiency over its GPU's datasheet one; none for a GPU without a preset (a user's own hardware).
std::optional<double> memory_ratio_to_datasheet(const Profile& fit, const std::string& runtime) {
  if (!specs::has_preset(specs::PresetKind::hardware, fit.hardware)) return std::nullopt;
  const double datasheet = datasheet_profile_for(specs::hardware_preset(fit.hardware), runtime).memory_efficiency;
  if (!(datasheet > 0.0)) return std::nullopt;
  return fit.memory_efficiency / datasheet;
}

// How much slower the engine's prompts run than the datasheet profile's step model, per kind of model: the median of
// the ratio measured on the runtime's fitted GPUs (Profile::marginal_prompt_ratio), a GPU's engine being the same
// software on other silicon. It replaces the fits' experts' efficiency per weight format, which carried until session
// 47: that figure holds whatever its own models' prompts measured (0.02-0.46 of a dense GEMM's rate by model), and a
// MoE model's slower prompt scales with the whole prompt, not with its experts' share of it (docs/ACCURACY.md, "How
// much slower the engines prefill" and "A prompt's slowdown on a GPU without a fit").
void carry_prompt_slowdown(Profile& p, const std::vector<Profile>& candidates, const std::string& runtime) {
  for (const char* kind : {"dense", "moe"}) {
    const auto value = [kind](const Profile& c) -> std::optional<double> {
      const auto it = c.marginal_prompt_ratio.find(kind);
      return it == c.marginal_prompt_ratio.end() ? std::nullopt : std::optional<double>(it->second);
    };
    if (auto m = fitted_median(candidates, runtime, value, 1.0, "x")) {
      p.prompt_slowdown[kind] = m->first;
      p.sources[std::string("prompt_slowdown.") + kind] =
          m->second + " of the measured marginal prompt over the datasheet profile's, for " + kind +
          " models: the engine's prefill, carried to a GPU without a fit (docs/ACCURACY.md, A prompt's slowdown on a "
          "GPU without a fit)";
    }
  }
}

// `p`, a datasheet profile, with the figures of its runtime that carry over from the fitted profiles.
Profile with_runtime_carried_figures(Profile p, const std::vector<Profile>& candidates, const std::string& runtime) {
  if (p.kind != "datasheet") return p;
  carry_prompt_slowdown(p, candidates, runtime);
  for (const CarriedFigures& t : kCarriedFigures) {
    if (runtime != t.runtime) continue;
    const char* front_end = "Front-end time";
    auto take = [&](bool wanted, double Profile::*field, const char* name, double to_unit, const char* unit,
                    const char* section) {
      if (!wanted) return;
      const auto value = [field](const Profile& c) { return std::optional<double>(c.*field); };
      if (auto m = fitted_median(candidates, runtime, value, to_unit, unit)) {
        p.*field = m->first;
        p.sources[name] =
            m->second + ": host-side, it carries over to a GPU without a fit (docs/ACCURACY.md, " + section + ")";
      }
    };
    take(t.request, &Profile::request_overhead_s, "request_overhead_s", 1e3, "ms", front_end);
    take(t.step, &Profile::step_overhead_s, "step_overhead_s", 1e3, "ms", front_end);
    take(t.sequence, &Profile::sequence_overhead_s, "sequence_overhead_s", 1e6, "us", front_end);
    take(t.eager_launch, &Profile::eager_launch_s, "eager_launch_s", 1e6, "us",
         "TensorRT-LLM's eager launch time on a GPU without a fit");
    if (t.memory_ratio) {
      const auto ratio = [&runtime](const Profile& c) { return memory_ratio_to_datasheet(c, runtime); };
      if (auto m = fitted_median(candidates, runtime, ratio, 1.0, "")) {
        std::ostringstream was;
        was.precision(3);
        // A datasheet figure that was itself a stand-in stays marked so (AMD's parts: no kernel figure of their own).
        if (p.sources["memory_efficiency"].rfind("assumed", 0) == 0) was << "assumed: ";
        was << "datasheet " << p.memory_efficiency << " x the " << m->second
            << " of fitted over datasheet memory_efficiency: the engine's decode streams below the kernel-level rate "
               "on other GPUs too (docs/ACCURACY.md, What a forecast on a GPU without a fit can expect)";
        p.memory_efficiency = std::min(1.0, p.memory_efficiency * m->first);
        p.sources["memory_efficiency"] = was.str();
      }
    }
  }
  return p;
}

}  // namespace

Profile read_profile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the profile");
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path.string(), "", "", std::string("not valid JSON: ") + e.what());
  }
  return parse_profile(j, path.string());
}

void write_profile(const std::filesystem::path& path, const Profile& p) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path.string(), "", "", "cannot write the profile here");
    out << to_json(p).dump(2) << "\n";
    if (!out.flush()) throw InputError(path.string(), "", "", "writing the profile failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path.string(), "", "", "cannot rename the written profile into place: " + ec.message());
}

std::vector<Profile> shipped_profiles() {
  std::vector<Profile> out;
  for (const auto& e : detail::embedded_profiles()) {
    if (std::string(e.name).rfind("accuracy/", 0) == 0) continue;  // measured_accuracy.hpp's tables
    out.push_back(
        parse_profile(nlohmann::json::parse(e.json), "calibration/profiles/" + std::string(e.name) + ".json"));
  }
  return out;
}

std::vector<Profile> user_profiles() {
  std::vector<Profile> out;
  const char* dir = std::getenv("FLEETCAST_PROFILE_DIR");
  if (dir == nullptr || *dir == '\0') return out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError(dir, "FLEETCAST_PROFILE_DIR", dir, "not a folder; it names a folder of profile *.json files");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) out.push_back(read_profile(f));
  return out;
}

Profile select_profile(const std::vector<Profile>& candidates, const specs::HardwareSpec& hardware,
                       const std::string& runtime) {
  const Profile* best = nullptr;
  int best_score = 0;
  for (const Profile& p : candidates) {
    if (p.hardware != hardware.name || !p.model_kind.empty()) continue;  // a fit for one kind of model: not this
    if (!p.runtime.empty() && p.runtime != runtime) continue;
    const int score = (p.runtime == runtime ? 10 : 0) + kind_rank(p.kind);
    if (score > best_score) {
      best = &p;
      best_score = score;
    }
  }
  // The carried figures complete the datasheet profile only: a profile of one's own (FLEETCAST_PROFILE_DIR), even of
  // kind datasheet and even one `calibrate show` wrote with them already carried, is taken as written.
  if (!best) return with_runtime_carried_figures(datasheet_profile(hardware, runtime), candidates, runtime);
  if (best->kind == "datasheet" && to_json(*best) != to_json(datasheet_profile(hardware, best->runtime))) return *best;
  return with_runtime_carried_figures(*best, candidates, runtime);
}

ProfileChoice profile_choice() {
  const char* choice = std::getenv("FLEETCAST_PROFILES");
  if (choice == nullptr || *choice == '\0' || std::string(choice) == "best") return ProfileChoice::best;
  if (std::string(choice) == "datasheet") return ProfileChoice::datasheet;
  if (std::string(choice) == "unfitted") return ProfileChoice::unfitted;
  throw InputError("environment", "FLEETCAST_PROFILES", choice,
                   "must be \"best\" (the most specific profile: measured, then fitted, then datasheet), "
                   "\"datasheet\" (the profiles derived from datasheets and kernel benchmarks only) or \"unfitted\" "
                   "(each GPU as if it had no fit of its own)");
}

namespace {

// profile_for's candidates: the user's profiles first, then the shipped ones; the shipped datasheet ones alone under
// FLEETCAST_PROFILES=datasheet. Read once per process.
const std::vector<Profile>& candidates_in_use(ProfileChoice choice) {
  static const std::vector<Profile> all = [choice] {
    const bool datasheet_only = choice == ProfileChoice::datasheet;
    std::vector<Profile> v = datasheet_only ? std::vector<Profile>{} : user_profiles();
    for (Profile& p : shipped_profiles()) {
      if (!datasheet_only || p.kind == "datasheet") v.push_back(std::move(p));
    }
    return v;
  }();
  return all;
}

}  // namespace

Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime) {
  const ProfileChoice choice = profile_choice();
  if (choice == ProfileChoice::unfitted) return profile_without_own_fit(hardware, runtime);
  return select_profile(candidates_in_use(choice), hardware, runtime);
}

std::optional<Profile> select_kind_profile(const std::vector<Profile>& candidates, const specs::HardwareSpec& hardware,
                                           const std::string& runtime, const std::string& model_kind) {
  const Profile* best = nullptr;
  for (const Profile& p : candidates) {
    if (p.hardware != hardware.name || p.runtime != runtime || p.model_kind != model_kind || model_kind.empty())
      continue;
    if (!best || kind_rank(p.kind) > kind_rank(best->kind)) best = &p;
  }
  return best ? std::optional<Profile>(*best) : std::nullopt;
}

std::optional<Profile> kind_profile_for(const specs::HardwareSpec& hardware, const std::string& runtime,
                                        const std::string& model_kind) {
  const ProfileChoice choice = profile_choice();
  // Without its own fits a GPU has none for a kind of model either; the datasheet choice holds no fits.
  if (choice == ProfileChoice::unfitted) return std::nullopt;
  return select_kind_profile(candidates_in_use(choice), hardware, runtime, model_kind);
}

Profile profile_without_own_fit(const specs::HardwareSpec& hardware, const std::string& runtime) {
  static const std::vector<Profile> shipped = shipped_profiles();
  std::vector<Profile> others;
  for (const Profile& p : shipped) {
    if (p.hardware != hardware.name || p.kind == "datasheet") others.push_back(p);
  }
  return select_profile(others, hardware, runtime);
}

Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime, const specs::ModelSpec& model) {
  const Profile pair = profile_for(hardware, runtime);
  // A fit for the model's kind wins over the pair's profile of the same standing or lower (a fitted one for dense
  // models over the pair's fit; not over a measured profile of the user's own).
  const auto own_kind = kind_profile_for(hardware, runtime, architecture_of(model));
  if (own_kind && kind_rank(own_kind->kind) >= kind_rank(pair.kind)) return *own_kind;
  return scope_to_model(pair, model, datasheet_profile_for(hardware, runtime));
}

Profile datasheet_profile_for(const specs::HardwareSpec& hardware, const std::string& runtime) {
  // Parsed once per process, as profile_for's candidates are: every report and every validate pair asks.
  static const std::vector<Profile> datasheet = [] {
    std::vector<Profile> v;
    for (Profile& p : shipped_profiles()) {
      if (p.kind == "datasheet") v.push_back(std::move(p));
    }
    return v;
  }();
  return select_profile(datasheet, hardware, runtime);
}

}  // namespace fleetcast::calibration
