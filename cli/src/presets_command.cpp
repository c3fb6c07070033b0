#include <cstdio>

#include "commands.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::cli {

int run_presets(const Args& args) {
  struct Group {
    const char* name;
    specs::PresetKind kind;
  };
  const Group groups[] = {{"models", specs::PresetKind::model},
                          {"hardware", specs::PresetKind::hardware},
                          {"scenarios", specs::PresetKind::scenario}};
  const std::string only = args.empty() ? "" : args[0];
  bool known = only.empty();
  for (const Group& g : groups) {
    if (!only.empty() && only != g.name) continue;
    known = true;
    std::printf("%s:\n", g.name);
    for (const auto& p : specs::list_presets(g.kind)) std::printf("  %-22s %s\n", p.name.c_str(), p.summary.c_str());
  }
  if (!known) throw InputError("", "presets", only, "valid: models, hardware, scenarios");
  return 0;
}

}  // namespace fleetcast::cli
