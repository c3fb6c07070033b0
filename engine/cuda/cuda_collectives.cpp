// NCCL collectives over the first `gpus` GPUs of this node, from one process: one communicator per GPU
// from ncclCommInitAll, one stream per GPU, every rank's call inside one ncclGroupStart/End. The harness
// times on the backend's stream (GPU 0): the start event there is waited on by every rank's stream, and
// that stream waits for every rank's completion before the stop event, so a repetition spans the slowest
// rank. Across nodes (an MPI launcher, one rank per process) is not done yet.
//
// Sizes as nccl-tests counts them (`bytes` of the shape): all_reduce the buffer on each GPU; all_gather
// the gathered total (bytes / gpus from each); reduce_scatter the input on each GPU (bytes / gpus out);
// all_to_all each GPU's send buffer (bytes / gpus to each peer); send_recv the message each GPU sends to
// the next in a ring.

#include <algorithm>
#include <vector>

#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "problems/tensor_init.hpp"

#if FLEETCAST_ENGINE_HAVE_NCCL
#include <nccl.h>
#endif

namespace fleetcast::engine::cuda {

#if FLEETCAST_ENGINE_HAVE_NCCL
namespace {

#define NCCL_CHECK(call)                                                                      \
  do {                                                                                        \
    const ncclResult_t fleetcast_nccl_ = (call);                                              \
    if (fleetcast_nccl_ != ncclSuccess)                                                       \
      throw CudaError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + #call + \
                      " failed: " + ncclGetErrorString(fleetcast_nccl_));                     \
  } while (0)

// Communicators of one process over devices 0 .. n-1; destroyed in the destructor.
class Comms {
 public:
  explicit Comms(int n) : comms_(static_cast<std::size_t>(n)) {
    std::vector<int> devices(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) devices[static_cast<std::size_t>(i)] = i;
    NCCL_CHECK(ncclCommInitAll(comms_.data(), n, devices.data()));
  }
  ~Comms() {
    for (auto c : comms_)
      if (c != nullptr) (void)ncclCommDestroy(c);
  }
  Comms(const Comms&) = delete;
  Comms& operator=(const Comms&) = delete;
  ncclComm_t operator[](int r) const { return comms_[static_cast<std::size_t>(r)]; }

 private:
  std::vector<ncclComm_t> comms_;
};

constexpr std::uint64_t kSeed = 901;  // rank r's input is seed kSeed + r

class Collective : public PreparedOp {
 public:
  Collective(Context& ctx, const Shape& shape, const std::string& op, Storage s, std::string what)
      : ctx_(ctx),
        op_(op),
        storage_(s),
        n_(static_cast<int>(shape.at("gpus"))),
        bytes_(shape.at("bytes")),
        elem_(s == Storage::bf16 ? 2 : 4),
        comms_(n_),
        what_(std::move(what)) {
    CUDA_CHECK(cudaSetDevice(ctx_.device));  // whatever ncclCommInitAll left current
    const std::int64_t count = bytes_ / elem_;
    send_count_ = op_ == "all_gather" ? count / n_ : count;
    recv_count_ = op_ == "reduce_scatter" ? count / n_ : count;
    for (int r = 0; r < n_; ++r) {
      ScopedDevice on(r);
      streams_.push_back(make_stream());
      done_.push_back(make_event());
      send_.emplace_back(static_cast<std::size_t>(send_count_ * elem_));
      recv_.emplace_back(static_cast<std::size_t>(recv_count_ * elem_));
      fill(send_.back().get(), storage_, kSeed + static_cast<std::uint64_t>(r), static_cast<std::size_t>(send_count_),
           1.0f, 0.0f, streams_.back().get());
      CUDA_CHECK(cudaStreamSynchronize(streams_.back().get()));
    }
    start_ = make_event();
  }

  void run() override {
    CUDA_CHECK(cudaEventRecord(start_.get(), ctx_.s()));
    for (int r = 0; r < n_; ++r) CUDA_CHECK(cudaStreamWaitEvent(streams_[r].get(), start_.get(), 0));
    const ncclDataType_t type = storage_ == Storage::bf16 ? ncclBfloat16 : ncclFloat32;
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < n_; ++r) {
      void* send = send_[r].get();
      void* recv = recv_[r].get();
      cudaStream_t st = streams_[r].get();
      if (op_ == "all_reduce") {
        NCCL_CHECK(ncclAllReduce(send, recv, static_cast<std::size_t>(send_count_), type, ncclSum, comms_[r], st));
      } else if (op_ == "all_gather") {
        NCCL_CHECK(ncclAllGather(send, recv, static_cast<std::size_t>(send_count_), type, comms_[r], st));
      } else if (op_ == "reduce_scatter") {
        NCCL_CHECK(ncclReduceScatter(send, recv, static_cast<std::size_t>(recv_count_), type, ncclSum, comms_[r], st));
      } else if (op_ == "all_to_all") {
        const std::int64_t chunk = send_count_ / n_;
        for (int peer = 0; peer < n_; ++peer) {
          NCCL_CHECK(ncclSend(static_cast<char*>(send) + peer * chunk * elem_, static_cast<std::size_t>(chunk), type,
                              peer, comms_[r], st));
          NCCL_CHECK(ncclRecv(static_cast<char*>(recv) + peer * chunk * elem_, static_cast<std::size_t>(chunk), type,
                              peer, comms_[r], st));
        }
      } else {  // send_recv: to the next GPU in the ring, from the previous one
        NCCL_CHECK(ncclSend(send, static_cast<std::size_t>(send_count_), type, (r + 1) % n_, comms_[r], st));
        NCCL_CHECK(ncclRecv(recv, static_cast<std::size_t>(recv_count_), type, (r + n_ - 1) % n_, comms_[r], st));
      }
    }
    NCCL_CHECK(ncclGroupEnd());
    for (int r = 0; r < n_; ++r) {
      CUDA_CHECK(cudaEventRecord(done_[r].get(), streams_[r].get()));
      CUDA_CHECK(cudaStreamWaitEvent(ctx_.s(), done_[r].get(), 0));
    }
  }

  // Every rank's output against sums and placements of the inputs regenerated on the host, on the first
  // and last ranks' sampled elements (all of them when full).
  CheckResult check(bool full) override {
    for (int r = 0; r < n_; ++r) {
      ScopedDevice on(r);
      CUDA_CHECK(cudaMemsetAsync(recv_[r].get(), 0xff, recv_[r].bytes(), streams_[r].get()));
    }
    run();
    CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
    const bool sums = op_ == "all_reduce" || op_ == "reduce_scatter";
    // bf16 sums are rounded at each of the ring's n - 1 steps, so bf16's tolerance grows with n beyond 4;
    // fp32 sums differ from the reference's in order only.
    const double tol =
        storage_ == Storage::bf16 ? tolerance_for("bf16") * std::max(1.0, n_ / 4.0) : tolerance_for("fp32");
    Comparison cmp(what_, sums ? tol : 0.0);
    const std::int64_t chunk = send_count_ / n_;
    auto input = [&](int rank, std::int64_t i) {
      return static_cast<double>(
          stored_value(storage_, kSeed + static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(i), 1.0f, 0.0f));
    };
    std::vector<int> ranks = {0};
    if (full) {
      for (int r = 1; r < n_; ++r) ranks.push_back(r);
    } else {
      ranks.push_back(n_ - 1);
    }
    for (const int r : ranks) {
      const auto got = device_reader(ctx_, recv_[r], storage_);
      // Read once whole when small or checked in full; element by element for a sample of a large one.
      const bool whole = full || recv_count_ <= (std::int64_t{1} << 22);
      const std::vector<float> all = whole ? got(0, static_cast<std::size_t>(recv_count_)) : std::vector<float>{};
      for (const auto i : sample_indices(recv_count_, 4096, full)) {
        double expected = 0.0;
        if (op_ == "all_reduce") {
          for (int q = 0; q < n_; ++q) expected += input(q, i);
        } else if (op_ == "reduce_scatter") {
          for (int q = 0; q < n_; ++q) expected += input(q, r * recv_count_ + i);
        } else if (op_ == "all_gather") {
          expected = input(static_cast<int>(i / send_count_), i % send_count_);
        } else if (op_ == "all_to_all") {
          expected = input(static_cast<int>(i / chunk), r * chunk + i % chunk);  // peer p's chunk for me
        } else {
          expected = input((r + n_ - 1) % n_, i);
        }
        const double value = whole ? all[static_cast<std::size_t>(i)] : got(static_cast<std::size_t>(i), 1).front();
        const auto where = static_cast<std::size_t>(r * recv_count_ + i);
        if (sums) {
          cmp.add(value, expected, where);
        } else {
          cmp.add_exact(value, expected, where);  // moved, not computed: bit for bit
        }
      }
    }
    return cmp.finish();
  }

 private:
  Context& ctx_;
  std::string op_;
  Storage storage_;
  int n_;
  std::int64_t bytes_, elem_, send_count_ = 0, recv_count_ = 0;
  Comms comms_;
  std::vector<Stream> streams_;
  std::vector<Event> done_;
  std::vector<DeviceBuffer> send_, recv_;
  Event start_;
  std::string what_;
};

}  // namespace

std::string collective_support(const Shape& shape) {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (shape.at("gpus") > count)
    return "needs " + std::to_string(shape.at("gpus")) + " GPUs; this machine has " + std::to_string(count) +
           " (CUDA_VISIBLE_DEVICES may hide some; across nodes under MPI is not supported yet)";
  return "";
}

std::unique_ptr<PreparedOp> make_collective(Context& ctx, const Shape& shape, const std::string& op, Storage s,
                                            std::string what) {
  return std::make_unique<Collective>(ctx, shape, op, s, std::move(what));
}

#else

std::string collective_support(const Shape&) { return "this build has no NCCL (nccl.h and libnccl not found)"; }

std::unique_ptr<PreparedOp> make_collective(Context&, const Shape&, const std::string& op, Storage, std::string) {
  throw std::logic_error("cuda backend: no NCCL in this build for " + op);
}

#endif

}  // namespace fleetcast::engine::cuda
