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
// model_step (cuda_model_step.cpp): GQA and MLA models, dense and MoE, fp32; GQA models in bf16 too.
// model_step_support says why a shape is refused ("" if not); `dtype` ("fp32" or "bf16") is the step's precision.
std::string model_step_support(const Context& ctx, const Shape& shape);
std::unique_ptr<PreparedOp> make_model_step(Context& ctx, const Shape& shape, const std::string& dtype,
                                            std::string what);
// dtypes fp8_block, mxfp8, nvfp4 (cuda_block_gemm.cpp): SM100 only, the backend's support() says so.
std::unique_ptr<PreparedOp> make_block_scaled_gemm(Context& ctx, const Shape& shape, const std::string& dtype,
                                                   std::string what);
std::unique_ptr<PreparedOp> make_rmsnorm(Context& ctx, const Shape& shape, Storage s, std::string what);
std::unique_ptr<PreparedOp> make_swiglu(Context& ctx, const Shape& shape, Storage s, std::string what);
std::unique_ptr<PreparedOp> make_memcpy(Context& ctx, const Shape& shape, std::string what);

// RoPE, sampling, attention, link copies and collectives. The *_support functions return why a case
// cannot run here ("" when it can).
std::unique_ptr<PreparedOp> make_rope(Context& ctx, const Shape& shape, Storage s, std::string what);
std::unique_ptr<PreparedOp> make_sampling(Context& ctx, const Shape& shape, Storage s, std::string what);
std::string attention_support(const Context& ctx, const std::string& op, const Shape& shape);
std::unique_ptr<PreparedOp> make_attention_decode(Context& ctx, const Shape& shape, bool mla, Storage s,
                                                  std::string what);
std::unique_ptr<PreparedOp> make_attention_prefill(Context& ctx, const Shape& shape, Storage s, std::string what);
int peer_of(const Context& ctx);  // the GPU memcpy_p2p copies to
std::string copy_support(const Context& ctx, const std::string& op);
std::unique_ptr<PreparedOp> make_copy(Context& ctx, const Shape& shape, const std::string& op, std::string what);
std::string collective_support(const Shape& shape);
std::unique_ptr<PreparedOp> make_collective(Context& ctx, const Shape& shape, const std::string& op, Storage s,
                                            std::string what);

}  // namespace fleetcast::engine::cuda
