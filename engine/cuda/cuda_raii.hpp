#pragma once
// Owners for every CUDA and cuBLASLt resource the backend holds: streams, events, device buffers and the
// cuBLASLt handle and descriptors. Move-only; destructors release and never throw (a failure there is
// already past reporting, and the process's next CUDA call will report it).

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"

namespace fleetcast::engine::cuda {

template <class H, auto Destroy>
class Handle {
public:
  Handle() = default;
  explicit Handle(H h) : h_(h) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, H{})) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, H{});
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  H get() const { return h_; }
  void reset() {
    if (h_ != H{}) (void)Destroy(h_);
    h_ = H{};
  }

private:
  H h_{};
};

using Stream = Handle<cudaStream_t, cudaStreamDestroy>;
using Event = Handle<cudaEvent_t, cudaEventDestroy>;
using LtHandle = Handle<cublasLtHandle_t, cublasLtDestroy>;
using LtMatmulDesc = Handle<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = Handle<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = Handle<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

inline Stream make_stream() {
  cudaStream_t s{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

inline Event make_event() {
  cudaEvent_t e{};
  CUDA_CHECK(cudaEventCreate(&e));
  return Event(e);
}

inline LtHandle make_lt_handle() {
  cublasLtHandle_t h{};
  CUBLAS_CHECK(cublasLtCreate(&h));
  return LtHandle(h);
}

inline LtMatmulDesc make_matmul_desc(cublasComputeType_t compute, cudaDataType_t scale) {
  cublasLtMatmulDesc_t d{};
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&d, compute, scale));
  return LtMatmulDesc(d);
}

// Column-major rows x cols with leading dimension ld, as cuBLASLt counts.
inline LtLayout make_layout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
  cublasLtMatrixLayout_t l{};
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld));
  return LtLayout(l);
}

inline LtPreference make_preference() {
  cublasLtMatmulPreference_t p{};
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&p));
  return LtPreference(p);
}

// Device memory, uninitialised.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_ != nullptr) (void)cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace fleetcast::engine::cuda

namespace fleetcast::engine::cuda {

// Page-locked host memory (cudaMallocHost), the kind a serving engine copies KV blocks and inputs through:
// pageable memory would be staged through a driver buffer and measure that instead.
class PinnedBuffer {
public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
  }
  ~PinnedBuffer() {
    if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Makes `device` current for a scope and restores the previous one: the backend's own calls assume its
// device is current.
class ScopedDevice {
public:
  explicit ScopedDevice(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    CUDA_CHECK(cudaSetDevice(device));
  }
  ~ScopedDevice() { (void)cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

private:
  int previous_ = 0;
};

}  // namespace fleetcast::engine::cuda
