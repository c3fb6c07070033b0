#pragma once
// The sweep's PNG chart: runs fleetcast-png (cli/png/, built only where Qt is found) when it sits beside the
// fleetcast binary. fleetcast itself never links Qt: its worker processes are forked per point and start fast.

#include <filesystem>
#include <string>

namespace fleetcast::cli {

struct PngExport {
  bool written = false;
  std::string note;  // not written: why, in words, for the sweep's summary line
};

// Renders `svg` to `png` (written atomically by fleetcast-png); a missing or failing renderer is a note, not an
// error: the SVG is the sweep's chart either way.
PngExport export_png_beside_cli(const std::filesystem::path& svg, const std::filesystem::path& png);

}  // namespace fleetcast::cli
