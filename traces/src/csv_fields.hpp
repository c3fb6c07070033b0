#pragma once
// Splitting one CSV record into fields, shared by every CSV reader of traces/ (RFC 4180 quoting).

#include <string>
#include <vector>

namespace fleetcast::traces::detail {

// Commas separate fields, double quotes protect commas and quotes ("" is a quote); a trailing '\r' and the
// spaces around each field are dropped. Records spanning lines are not supported (no reader here needs them).
std::vector<std::string> split_csv(const std::string& line);

}  // namespace fleetcast::traces::detail
