#include "device_info.hpp"

#include <cublasLt.h>

#include <fstream>
#include <sstream>

#include "cuda_check.hpp"
#include "fleetcast/engine/host_info.hpp"

#if FLEETCAST_ENGINE_HAVE_NCCL
#include <nccl.h>
#endif

namespace fleetcast::engine::cuda {
namespace {

// 13000 -> "13.0"
std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The kernel module's version ("580.65.06") from /proc, which the runtime API does not give; the CUDA
// version the driver supports follows in brackets.
std::string driver_version() {
  int cuda = 0;
  CUDA_CHECK(cudaDriverGetVersion(&cuda));
  std::string module;
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    const auto at = line.find("Kernel Module");
    if (at != std::string::npos) {
      std::istringstream words(line.substr(at + 13));
      words >> module;
    }
  }
  const std::string supports = "CUDA " + cuda_version_text(cuda);
  return module.empty() ? supports : module + " (" + supports + ")";
}

std::string cublas_version() {
  const std::size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string nccl_version() {
#if FLEETCAST_ENGINE_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "";
  // From NCCL 2.9 on: major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
#else
  return "";
#endif
}

}  // namespace

traces::CalibrationHeader describe_device(int device, const cudaDeviceProp& props) {
  traces::CalibrationHeader h;
  h.backend = "cuda";
  h.device = props.name;
  h.sm_count = props.multiProcessorCount;
  int sm_khz = 0, mem_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
  h.sm_clock_mhz = sm_khz / 1000.0;
  h.memory_clock_mhz = mem_khz / 1000.0;
  h.driver_version = driver_version();
  int runtime = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  h.cuda_version = cuda_version_text(runtime);
  h.cublas_version = cublas_version();
  h.nccl_version = nccl_version();
  h.cpu_model = cpu_model();
  h.cpu_cores = cpu_cores();
  h.host = host_name();
  return h;
}

}  // namespace fleetcast::engine::cuda
