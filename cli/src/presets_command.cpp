#include <algorithm>
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
    const auto list = specs::list_presets(g.kind);
    int width = 22;  // the names' column, widened to the longest name so that every summary lines up
    for (const auto& p : list) width = std::max(width, static_cast<int>(p.name.size()));
    for (const auto& p : list) std::printf("  %-*s %s\n", width, p.name.c_str(), p.summary.c_str());
  }
  if (!known) throw InputError("", "presets", only, "valid: models, hardware, scenarios");
  return 0;
}

}  // namespace fleetcast::cli
