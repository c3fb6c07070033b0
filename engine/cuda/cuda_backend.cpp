#include "cuda_backend.hpp"

#include <algorithm>

#include "cuda_context.hpp"
#include "cuda_moe.hpp"
#include "cuda_rank_collectives.hpp"
#include "device_info.hpp"
#include "fleetcast/engine/datasheet.hpp"
#include "fleetcast/engine/errors.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "reference/block_scaled.hpp"

namespace fleetcast::engine {
namespace {

using namespace cuda;

class CudaBackend : public Backend {
 public:
  // `device`: 0, or the rank's local index under an MPI launch (one rank per GPU).
  CudaBackend(int device, Ranks* ranks) : ranks_(ranks) {
    ctx_.device = device;
    CUDA_CHECK(cudaSetDevice(ctx_.device));
    CUDA_CHECK(cudaGetDeviceProperties(&ctx_.props, ctx_.device));
    ctx_.stream = make_stream();
    ctx_.lt = make_lt_handle();
    ctx_.lt_workspace = DeviceBuffer(32u << 20);
    // Twice L2 written between repetitions evicts whatever the last one left there.
    l2_flush_ = DeviceBuffer(std::max<std::size_t>(2 * static_cast<std::size_t>(ctx_.props.l2CacheSize), 8u << 20));
    header_ = describe_device(ctx_.device, ctx_.props);
  }

  std::string name() const override { return "cuda"; }
  std::string collective_transport() const override { return multi_rank(ranks_) ? "nccl" : ""; }
  traces::CalibrationHeader describe() const override { return header_; }
  std::optional<specs::HardwareSpec> datasheet() const override { return datasheet_for(header_.device); }

  Support support(const OpInfo& op, const std::string& dtype, const Shape& shape) const override {
    if (multi_rank(ranks_)) {
      // Each rank has its own GPU, but the trace is rank 0's: one process per node measures the rest
      // (calibrate-node.sh).
      if (op.op_class != OpClass::collective)
        return {false, dtype, "under an MPI launch only collectives run; measure the other ops in one process"};
      if (auto why = rank_collective_support(*ranks_, shape); !why.empty()) return {false, dtype, why};
    }
    const int cc = ctx_.props.major * 10 + ctx_.props.minor;
    if (op.name == "gemm") {
      if (dtype == "fp8" && cc < 89) return {false, dtype, "FP8 GEMMs need compute capability 8.9 or later"};
      if (dtype == "fp8" && (shape.at("n") % 16 != 0 || shape.at("k") % 16 != 0))
        return {false, dtype, "cuBLASLt FP8 needs n and k to be multiples of 16"};
      if (dtype == "bf16" && cc < 80) return {false, dtype, "BF16 GEMMs need compute capability 8.0 or later"};
      if (reference::is_block_scaled(dtype)) {
        // cuBLASLt runs block-scaled FP8 / FP4 on SM100 tensor cores (tcgen05 block-scaled MMA); an H100 or
        // H200 skips these points with this message (calibrate-node.sh stays within its minutes).
        if (cc < 100)
          return {
              false, dtype,
              "block-scaled GEMMs (" + dtype + ") need an SM100 GPU (Blackwell); this one is sm_" + std::to_string(cc)};
        if (shape.at("k") % 128 != 0 || shape.at("n") % 16 != 0)
          return {false, dtype, "block-scaled GEMMs here need k a multiple of 128 and n of 16"};
      }
    } else if (op.name == "attention_decode_gqa" || op.name == "attention_decode_mla" ||
               op.name == "attention_prefill") {
      if (dtype != "fp32" && cc < 80) return {false, dtype, "bf16 attention needs compute capability 8.0 or later"};
      if (dtype == "fp8" && cc < 89) return {false, dtype, "FP8 KV caches need compute capability 8.9 or later"};
      if (auto why = attention_support(ctx_, op.name, shape); !why.empty()) return {false, dtype, why};
    } else if (op.name == "memcpy_h2d" || op.name == "memcpy_d2h" || op.name == "memcpy_p2p") {
      if (auto why = copy_support(ctx_, op.name); !why.empty()) return {false, dtype, why};
    } else if (op.op_class == OpClass::collective) {
      // Across ranks, rank_collective_support() above has said; in one process, this node's GPUs.
      if (auto why = multi_rank(ranks_) ? std::string() : collective_support(shape); !why.empty())
        return {false, dtype, why};
    } else if (op.name == "model_step") {
      if (const std::string why = model_step_support(ctx_, shape); !why.empty()) return {false, dtype, why};
      // The step's own precision (the plan's "precision", in the shape), not the entry's dtypes: fp32 weights
      // and activations as the CPU step and the reference, recorded as fp32; or bf16 (fp8), recorded so.
      const std::string precision = step_shape_of(shape).precision;
      if (precision == "bf16" && cc < 80)
        return {false, precision, "a bf16 step needs compute capability 8.0 or later"};
      if (precision == "fp8" && cc < 89)
        return {false, precision, "an fp8 step needs compute capability 8.9 or later (FP8 tensor cores)"};
      std::size_t free_bytes = 0, total_bytes = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (op_cost(op, shape, precision).bytes > 0.8 * static_cast<double>(free_bytes))
        return {false, precision,
                "the step's " + precision + " weights and cache need more than 80% of the free device memory"};
      return {true, precision, ""};
    } else if (is_moe_op(op.name)) {
      if (const std::string why = moe_support(op, shape); !why.empty()) return {false, dtype, why};
    } else if (op.name != "rmsnorm" && op.name != "swiglu" && op.name != "memcpy" && op.name != "rope" &&
               op.name != "sampling") {
      return {false, dtype, "no CUDA kernel for " + op.name + " yet (a later increment); --backend cpu runs it"};
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double need = op_cost(op, shape, dtype).bytes;
    if (need > 0.8 * static_cast<double>(free_bytes))
      return {false, dtype,
              "needs about " + std::to_string(static_cast<long>(need / 1e9)) +
                  " GB of device memory, more than 80% of what is free"};
    return {true, dtype, ""};
  }

  std::unique_ptr<PreparedOp> prepare(const OpInfo& op, const std::string& dtype, const Shape& s) override {
    const std::string what = op.name + " " + dtype + " " + s.text() + " (cuda)";
    if (op.name == "gemm" && reference::is_block_scaled(dtype)) return make_block_scaled_gemm(ctx_, s, dtype, what);
    if (op.name == "gemm") return make_gemm(ctx_, s, dtype, what);
    if (op.name == "model_step") return make_model_step(ctx_, s, dtype, what);
    if (op.name == "rmsnorm") return make_rmsnorm(ctx_, s, storage_of(dtype), what);
    if (op.name == "swiglu") return make_swiglu(ctx_, s, storage_of(dtype), what);
    if (op.name == "memcpy") return make_memcpy(ctx_, s, what);
    if (op.name == "rope") return make_rope(ctx_, s, storage_of(dtype), what);
    if (op.name == "sampling") return make_sampling(ctx_, s, storage_of(dtype), what);
    if (op.name == "attention_decode_gqa") return make_attention_decode(ctx_, s, false, storage_of(dtype), what);
    if (op.name == "attention_decode_mla") return make_attention_decode(ctx_, s, true, storage_of(dtype), what);
    if (op.name == "attention_prefill") return make_attention_prefill(ctx_, s, storage_of(dtype), what);
    if (op.name == "memcpy_h2d" || op.name == "memcpy_d2h" || op.name == "memcpy_p2p")
      return make_copy(ctx_, s, op.name, what);
    if (op.op_class == OpClass::collective && multi_rank(ranks_))
      return make_rank_collective(ctx_, *ranks_, s, op.name, storage_of(dtype), what);
    if (op.op_class == OpClass::collective) return make_collective(ctx_, s, op.name, storage_of(dtype), what);
    if (auto moe = make_moe_op(ctx_, op, s, storage_of(dtype), what)) return moe;
    throw std::logic_error("cuda backend: no kernel for " + op.name);
  }

  std::vector<double> time(PreparedOp& op, const TimingOptions& o) override {
    if (multi_rank(ranks_)) return time_across_ranks(op, o);
    for (int i = 0; i < o.warmup; ++i) op.run();
    std::vector<Event> starts, stops;
    for (int i = 0; i < o.repetitions; ++i) {
      starts.push_back(make_event());
      stops.push_back(make_event());
    }
    for (int i = 0; i < o.repetitions; ++i) {
      if (o.flush_cache) CUDA_CHECK(cudaMemsetAsync(l2_flush_.get(), i & 0xff, l2_flush_.bytes(), ctx_.s()));
      CUDA_CHECK(cudaEventRecord(starts[i].get(), ctx_.s()));
      op.run();
      CUDA_CHECK(cudaEventRecord(stops[i].get(), ctx_.s()));
    }
    CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
    std::vector<double> seconds;
    for (int i = 0; i < o.repetitions; ++i) {
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, starts[i].get(), stops[i].get()));
      seconds.push_back(ms * 1e-3);
    }
    return seconds;
  }

 private:
  // As nccl-tests across processes: every repetition starts after a barrier (the stream drained first, so
  // the ranks enter the collective together), its time on each rank from CUDA events, and the slowest
  // rank's time kept; every rank gets the same times, hence the same repetition count from the harness.
  std::vector<double> time_across_ranks(PreparedOp& op, const TimingOptions& o) {
    for (int i = 0; i < o.warmup; ++i) op.run();
    const Event start = make_event(), stop = make_event();
    std::vector<double> seconds;
    for (int i = 0; i < o.repetitions; ++i) {
      if (o.flush_cache) CUDA_CHECK(cudaMemsetAsync(l2_flush_.get(), i & 0xff, l2_flush_.bytes(), ctx_.s()));
      CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
      ranks_->barrier();
      CUDA_CHECK(cudaEventRecord(start.get(), ctx_.s()));
      op.run();
      CUDA_CHECK(cudaEventRecord(stop.get(), ctx_.s()));
      CUDA_CHECK(cudaEventSynchronize(stop.get()));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
      seconds.push_back(ms * 1e-3);
    }
    return ranks_->max(seconds);
  }

  Ranks* ranks_;
  Context ctx_;
  DeviceBuffer l2_flush_;
  traces::CalibrationHeader header_;
};

}  // namespace

int cuda_device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why != nullptr) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    (void)cudaGetLastError();  // clear it, so the next CUDA call does not report it again
    return 0;
  }
  if (n == 0 && why != nullptr) *why = "the CUDA runtime sees no device";
  return n;
}

std::unique_ptr<Backend> make_cuda_backend(Ranks* ranks) {
  std::string why;
  const int count = cuda_device_count(&why);
  if (count == 0)
    throw HardwareAbsent("no usable CUDA GPU on this machine (" + why +
                         "; an insufficient-driver error also means no NVIDIA driver at all): --backend cuda needs "
                         "an NVIDIA GPU and its driver; --backend cpu runs the plan on the CPU");
  if (!multi_rank(ranks)) return std::make_unique<CudaBackend>(0, nullptr);
  // One rank per GPU: two ranks sharing one would measure each other's traffic, not the links.
  if (ranks->local_rank() >= count)
    throw HardwareAbsent("rank " + std::to_string(ranks->rank()) + " is rank " + std::to_string(ranks->local_rank()) +
                         " on its node, which has " + std::to_string(count) +
                         " GPUs: launch at most one rank per GPU (mpirun --map-by ppr:GPUS:node)");
  return std::make_unique<CudaBackend>(ranks->local_rank(), ranks);
}

}  // namespace fleetcast::engine
