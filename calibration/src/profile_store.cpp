#include "fleetcast/calibration/profile_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "embedded_profiles.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::calibration {
namespace {

int kind_rank(const std::string& kind) { return kind == "measured" ? 3 : kind == "fitted" ? 2 : 1; }

// Runtimes whose fitted front-end time per request carries over to a GPU that has no fit of its own. SGLang's
// fits agree across four GPUs and three models (159-227 ms), and with the median of the other three GPUs' fits
// a GPU's datasheet profile halves the TTFT error of its SGLang rows (56.6% -> 27.7%, docs/ACCURACY.md "Front-end
// time"). vLLM's and TensorRT-LLM's fits (0-20 ms) did not carry over (TensorRT-LLM 37.6% -> 45.9%).
bool front_end_transfers(const std::string& runtime) { return runtime == "sglang"; }

// `p`, a datasheet profile, with the median front-end time of the fitted `runtime` profiles among `candidates`.
Profile with_runtime_front_end(Profile p, const std::vector<Profile>& candidates, const std::string& runtime) {
  if (p.kind != "datasheet" || !front_end_transfers(runtime)) return p;
  std::vector<std::pair<double, std::string>> fits;
  for (const Profile& c : candidates) {
    if (c.kind == "fitted" && c.runtime == runtime) fits.emplace_back(c.request_overhead_s, c.hardware);
  }
  if (fits.empty()) return p;
  std::sort(fits.begin(), fits.end());
  const std::size_t n = fits.size();
  p.request_overhead_s = n % 2 == 1 ? fits[n / 2].first : (fits[n / 2 - 1].first + fits[n / 2].first) / 2.0;
  std::ostringstream why;
  why.precision(4);
  why << "median front-end time of the fitted " << runtime << " profiles of other GPUs (";
  for (std::size_t i = 0; i < n; ++i) why << (i ? ", " : "") << fits[i].second << " " << fits[i].first * 1e3 << " ms";
  why << "); it carries over to a GPU without a fit (docs/ACCURACY.md, Front-end time)";
  p.sources["request_overhead_s"] = why.str();
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
    if (p.hardware != hardware.name) continue;
    if (!p.runtime.empty() && p.runtime != runtime) continue;
    const int score = (p.runtime == runtime ? 10 : 0) + kind_rank(p.kind);
    if (score > best_score) {
      best = &p;
      best_score = score;
    }
  }
  return with_runtime_front_end(best ? *best : datasheet_profile(hardware, runtime), candidates, runtime);
}

bool datasheet_profiles_only() {
  const char* choice = std::getenv("FLEETCAST_PROFILES");
  if (choice == nullptr || *choice == '\0' || std::string(choice) == "best") return false;
  if (std::string(choice) == "datasheet") return true;
  throw InputError("environment", "FLEETCAST_PROFILES", choice,
                   "must be \"best\" (the most specific profile: measured, then fitted, then datasheet) or "
                   "\"datasheet\" (the profiles derived from datasheets and kernel benchmarks only)");
}

Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime) {
  static const std::vector<Profile> all = [] {
    const bool datasheet_only = datasheet_profiles_only();
    std::vector<Profile> v = datasheet_only ? std::vector<Profile>{} : user_profiles();
    for (Profile& p : shipped_profiles()) {
      if (!datasheet_only || p.kind == "datasheet") v.push_back(std::move(p));
    }
    return v;
  }();
  return select_profile(all, hardware, runtime);
}

}  // namespace fleetcast::calibration
