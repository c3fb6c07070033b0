#pragma once
// Private to the CUDA backend: what its prepared ops share (device, stream, cuBLASLt handle and
// workspace), how they fill inputs and read outputs back for the check, and their factories.

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "cuda_raii.hpp"
#include "fleetcast/engine/backend.hpp"
#include "problems/tensor_init.hpp"

namespace fleetcast::engine::cuda {

struct Context {
  int device = 0;
  cudaDeviceProp props{};
  Stream stream;
  LtHandle lt;
  DeviceBuffer lt_workspace;  // cuBLASLt's scratch, 32 MiB as NVIDIA recommends for Hopper and later
  cudaStream_t s() const { return stream.get(); }
};

// A device tensor of `t.count` elements stored as `s`, filled on the device.
DeviceBuffer make_filled(const Context& ctx, const TensorInit& t, Storage s);
double storage_bytes(Storage s);

// Reads elements of a device tensor stored as fp32 or bf16 (after waiting for the stream), as floats.
ReadRange device_reader(const Context& ctx, const DeviceBuffer& buf, Storage s);
// Reads bytes, as floats 0..255.
ReadRange device_byte_reader(const Context& ctx, const DeviceBuffer& buf);

std::unique_ptr<PreparedOp> make_gemm(Context& ctx, const Shape& shape, const std::string& dtype, std::string what);
std::unique_ptr<PreparedOp> make_rmsnorm(Context& ctx, const Shape& shape, Storage s, std::string what);
std::unique_ptr<PreparedOp> make_swiglu(Context& ctx, const Shape& shape, Storage s, std::string what);
std::unique_ptr<PreparedOp> make_memcpy(Context& ctx, const Shape& shape, std::string what);

}  // namespace fleetcast::engine::cuda
