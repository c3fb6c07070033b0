// `fleetcast calibrate`: the profiles that turn datasheet peaks into achieved rates. This increment shows
// them and writes the datasheet-derived ones; fitting from traces comes with the calibration issue.
#include <cstdio>

#include "commands.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::cli {

int run_calibrate(const Args& args) {
  const std::string usage_text =
      "usage: fleetcast calibrate show HARDWARE [--runtime vllm|sglang|trtllm] | calibrate datasheet HARDWARE";
  if (!args.empty() && args[0] == "serving") return run_calibrate_serving(args);
  if (args.size() < 2) throw InputError("", "calibrate", args.empty() ? "" : args[0], usage_text);
  const std::string& verb = args[0];
  const specs::HardwareSpec hw = specs::hardware_preset(args[1]);
  std::string runtime = "vllm";
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "--runtime" && i + 1 < args.size()) {
      runtime = args[++i];
    } else {
      throw InputError("", "calibrate", args[i], usage_text);
    }
  }
  if (verb == "show") {
    std::printf("%s\n", calibration::to_json(calibration::profile_for(hw, runtime)).dump(2).c_str());
  } else if (verb == "datasheet") {
    // For every runtime (""): datasheet figures do not depend on the serving engine.
    std::printf("%s\n", calibration::to_json(calibration::datasheet_profile(hw, "")).dump(2).c_str());
  } else {
    throw InputError("", "calibrate", verb, usage_text);
  }
  return 0;
}

}  // namespace fleetcast::cli
