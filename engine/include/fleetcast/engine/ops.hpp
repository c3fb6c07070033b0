#pragma once
// The ops the engine measures: their shape fields, the precisions a plan may ask for, the shape they are
// first checked on in full, and their hand-counted FLOPs and bytes. Backends implement the kernels; this
// is what every backend agrees on.

#include <string>
#include <string_view>
#include <vector>

#include "fleetcast/engine/shape.hpp"

namespace fleetcast::engine {

enum class OpClass { gemm, elementwise, sampling, attention, memory, collective, moe, step };

struct OpInfo {
  std::string name;
  OpClass op_class;
  std::vector<std::string> fields;  // shape fields, in order
  std::vector<std::string> dtypes;  // precisions a plan may request
  Shape small_check;                // checked against the reference at every output before any sweep
  std::string summary;              // one line for --help
};

const std::vector<OpInfo>& all_ops();
const OpInfo* find_op(std::string_view name);
std::string_view op_class_name(OpClass c);
std::string valid_op_names();  // "gemm, rmsnorm, ..." for messages

// Throws InputError(file, field, value, problem) when a shape field is missing, unknown, not positive, or
// inconsistent (a head count not dividing, an odd RoPE dimension, ...).
void validate_shape(const OpInfo& op, const Shape& shape, const std::string& file, const std::string& field);

// nccl-tests' bus-bandwidth factor of a collective over `gpus` GPUs (doc/PERFORMANCE.md there): all_reduce
// 2(n-1)/n, all_gather, reduce_scatter and all_to_all (n-1)/n, send_recv 1. Bus bandwidth = size / time x
// this, comparable with the link's own bandwidth whatever the GPU count.
double collective_bus_factor(std::string_view op, std::int64_t gpus);

// Bytes of one element stored as `dtype`: fp32 4, bf16 2, fp8 1, u8 1.
double dtype_bytes(std::string_view dtype);

struct Cost {
  double flops = 0.0;  // multiply and add count as two; exp, rsqrt and divides as one each
  double bytes = 0.0;  // each input read once, each output written once: the least a kernel must move
};

// `dtype` is what ran. FP8 GEMMs write bf16 results; everything else reads and writes `dtype`.
Cost op_cost(const OpInfo& op, const Shape& shape, std::string_view dtype);

}  // namespace fleetcast::engine
