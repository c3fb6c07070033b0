#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the hash a fitted profile cites for
// each trace it was fitted to.
#include <string>
#include <string_view>

namespace fleetcast::calibration {
std::string sha256_hex(std::string_view bytes);
}  // namespace fleetcast::calibration
