#include "fleetcast/calibration/profile_store.hpp"

#include "embedded_profiles.hpp"

namespace fleetcast::calibration {
namespace {

int kind_rank(const std::string& kind) { return kind == "measured" ? 3 : kind == "fitted" ? 2 : 1; }

}  // namespace

std::vector<Profile> shipped_profiles() {
  std::vector<Profile> out;
  for (const auto& e : detail::embedded_profiles()) {
    out.push_back(parse_profile(nlohmann::json::parse(e.json), "calibration/profiles/" + std::string(e.name) + ".json"));
  }
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
  return best ? *best : datasheet_profile(hardware, runtime);
}

Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime) {
  static const std::vector<Profile> shipped = shipped_profiles();
  return select_profile(shipped, hardware, runtime);
}

}  // namespace fleetcast::calibration
