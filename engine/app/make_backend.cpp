// Which backends this build has. The CUDA one exists only where CMake found a CUDA compiler; a build
// without it still answers --backend cuda, with exit code 3 and the reason.

#include "engine_cli.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/errors.hpp"
#include "fleetcast/specs/error.hpp"

#if FLEETCAST_ENGINE_HAVE_CUDA
#include "cuda_backend.hpp"
#endif

namespace fleetcast::engine::cli {

std::unique_ptr<Backend> make_backend(const std::string& name, Ranks* ranks) {
  if (name == "cpu") return make_cpu_backend(ranks);
  if (name == "cuda") {
#if FLEETCAST_ENGINE_HAVE_CUDA
    return make_cuda_backend(ranks);  // throws HardwareAbsent when no GPU answers
#else
    throw HardwareAbsent(
        "this build of fleetcast-engine has no CUDA backend (CMake found no CUDA compiler at configure time); "
        "rebuild with the CUDA toolkit, or use --backend cpu");
#endif
  }
  throw InputError("", "--backend", name, "valid: cuda, cpu");
}

}  // namespace fleetcast::engine::cli
