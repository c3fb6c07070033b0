// fleetcast-engine: measure kernels on this machine's GPU (or CPU) into a calibration trace.
// Exit codes: 0 ok, 1 the run failed (a CUDA error, a result that fails its check), 2 bad input or usage,
// 3 the hardware the command needs is absent.
#include <cstdio>
#include <exception>

#include "engine_cli.hpp"
#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/errors.hpp"
#include "fleetcast/specs/error.hpp"

int main(int argc, char** argv) {
  try {
    return fleetcast::engine::cli::dispatch(argc, argv);
  } catch (const fleetcast::InputError& e) {
    std::fprintf(stderr, "fleetcast-engine: error: %s\n", e.what());
    return 2;
  } catch (const fleetcast::engine::HardwareAbsent& e) {
    std::fprintf(stderr, "fleetcast-engine: %s\n", e.what());
    return 3;
  } catch (const fleetcast::engine::CheckFailed& e) {
    std::fprintf(stderr, "fleetcast-engine: check failed, nothing written: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fleetcast-engine: run failed, nothing written: %s\n", e.what());
    return 1;
  }
}
