#pragma once
// CUDA and cuBLASLt errors as exceptions that say where: file, line, the call as written, and the
// library's error name and string. main() reports them as a failed run (exit 1).

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace fleetcast::engine::cuda {

class CudaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(e) +
                  ": " + cudaGetErrorString(e));
}

[[noreturn]] inline void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                  cublasLtGetStatusName(s) + ": " + cublasLtGetStatusString(s));
}

}  // namespace fleetcast::engine::cuda

#define CUDA_CHECK(call)                                                                        \
  do {                                                                                          \
    const cudaError_t fleetcast_err_ = (call);                                                  \
    if (fleetcast_err_ != cudaSuccess)                                                          \
      ::fleetcast::engine::cuda::throw_cuda(fleetcast_err_, #call, __FILE__, __LINE__);         \
  } while (0)

#define CUBLAS_CHECK(call)                                                                      \
  do {                                                                                          \
    const cublasStatus_t fleetcast_status_ = (call);                                            \
    if (fleetcast_status_ != CUBLAS_STATUS_SUCCESS)                                             \
      ::fleetcast::engine::cuda::throw_cublas(fleetcast_status_, #call, __FILE__, __LINE__);    \
  } while (0)

// A kernel launch reports configuration errors only through cudaGetLastError.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
