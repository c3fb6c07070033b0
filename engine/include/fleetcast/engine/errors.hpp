#pragma once
// The engine's one error type of its own: the hardware a command needs is absent (no GPU, no driver, a
// build without the CUDA backend). main() turns it into exit code 3. Bad input is InputError (exit 2);
// a result that fails its check is CheckFailed (check.hpp, exit 1).

#include <stdexcept>

namespace fleetcast::engine {

class HardwareAbsent : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace fleetcast::engine
