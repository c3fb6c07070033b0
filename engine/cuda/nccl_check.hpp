#pragma once
// NCCL errors as exceptions that say where (file, line, the call as written, NCCL's error string), like
// CUDA_CHECK. Only for files built with NCCL (FLEETCAST_ENGINE_HAVE_NCCL).

#include <nccl.h>

#include <string>

#include "cuda_check.hpp"

#define NCCL_CHECK(call)                                                                                         \
  do {                                                                                                           \
    const ncclResult_t fleetcast_nccl_ = (call);                                                                 \
    if (fleetcast_nccl_ != ncclSuccess)                                                                          \
      throw ::fleetcast::engine::cuda::CudaError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + \
                                                 #call + " failed: " + ncclGetErrorString(fleetcast_nccl_));     \
  } while (0)
