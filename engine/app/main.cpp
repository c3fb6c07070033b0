// fleetcast-engine: measure kernels on this machine's GPU (or CPU) into a calibration trace.
// Exit codes: 0 ok, 1 the run failed (a CUDA error, a result that fails its check), 2 bad input or usage,
// 3 the hardware the command needs is absent.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "engine_cli.hpp"
#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/errors.hpp"
#include "fleetcast/specs/error.hpp"
#include "mpi_launch.hpp"

namespace {

// The exit code for what `run` threw, after saying why on stderr (naming the rank under an MPI launch).
int exit_code_of(const std::exception_ptr& error, const std::string& who) {
  try {
    std::rethrow_exception(error);
  } catch (const fleetcast::InputError& e) {
    std::fprintf(stderr, "fleetcast-engine%s: error: %s\n", who.c_str(), e.what());
    return 2;
  } catch (const fleetcast::engine::HardwareAbsent& e) {
    std::fprintf(stderr, "fleetcast-engine%s: %s\n", who.c_str(), e.what());
    return 3;
  } catch (const fleetcast::engine::CheckFailed& e) {
    std::fprintf(stderr, "fleetcast-engine%s: check failed, nothing written: %s\n", who.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fleetcast-engine%s: run failed, nothing written: %s\n", who.c_str(), e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::unique_ptr<fleetcast::engine::Ranks> ranks;
  try {
    ranks = fleetcast::engine::join_mpi_launch();
    return fleetcast::engine::cli::dispatch(argc, argv, ranks.get());
  } catch (...) {
    const bool launch = fleetcast::engine::multi_rank(ranks.get());
    const int code =
        exit_code_of(std::current_exception(), launch ? " (rank " + std::to_string(ranks->rank()) + ")" : "");
    // The other ranks may be waiting in a collective for this one: end the whole launch.
    if (launch) ranks->abort(code);
    return code;
  }
}
