// NCCL collectives over the first `gpus` GPUs of this node, from one process: one communicator per GPU
// from ncclCommInitAll, one stream per GPU, every rank's call inside one ncclGroupStart/End. The harness
// times on the backend's stream (GPU 0): the start event there is waited on by every rank's stream, and
// that stream waits for every rank's completion before the stop event, so a repetition spans the slowest
// rank. Across processes (an MPI launch, one GPU per rank) see cuda_rank_collectives.cpp. Sizes, inputs and
// the expected outputs: problems/collective_problem.hpp.

#include <algorithm>
#include <vector>

#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "problems/collective_problem.hpp"
#include "problems/tensor_init.hpp"

#if FLEETCAST_ENGINE_HAVE_NCCL
#include "nccl_check.hpp"
#endif

namespace fleetcast::engine::cuda {

#if FLEETCAST_ENGINE_HAVE_NCCL
namespace {

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

class Collective : public PreparedOp {
 public:
  Collective(Context& ctx, const Shape& shape, const std::string& op, Storage s, std::string what)
      : ctx_(ctx), p_(shape, op, s), n_(p_.ranks), comms_(n_), what_(std::move(what)) {
    CUDA_CHECK(cudaSetDevice(ctx_.device));  // whatever ncclCommInitAll left current
    for (int r = 0; r < n_; ++r) {
      ScopedDevice on(r);
      streams_.push_back(make_stream());
      done_.push_back(make_event());
      send_.emplace_back(static_cast<std::size_t>(p_.send_count * p_.elem_bytes));
      recv_.emplace_back(static_cast<std::size_t>(p_.recv_count * p_.elem_bytes));
      fill(send_.back().get(), p_.storage, CollectiveProblem::kSeed + static_cast<std::uint64_t>(r),
           static_cast<std::size_t>(p_.send_count), 1.0f, 0.0f, streams_.back().get());
      CUDA_CHECK(cudaStreamSynchronize(streams_.back().get()));
    }
    start_ = make_event();
  }

  void run() override {
    CUDA_CHECK(cudaEventRecord(start_.get(), ctx_.s()));
    for (int r = 0; r < n_; ++r) CUDA_CHECK(cudaStreamWaitEvent(streams_[r].get(), start_.get(), 0));
    const ncclDataType_t type = p_.storage == Storage::bf16 ? ncclBfloat16 : ncclFloat32;
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < n_; ++r) {
      void* send = send_[r].get();
      void* recv = recv_[r].get();
      cudaStream_t st = streams_[r].get();
      if (p_.op == "all_reduce") {
        NCCL_CHECK(ncclAllReduce(send, recv, static_cast<std::size_t>(p_.send_count), type, ncclSum, comms_[r], st));
      } else if (p_.op == "all_gather") {
        NCCL_CHECK(ncclAllGather(send, recv, static_cast<std::size_t>(p_.send_count), type, comms_[r], st));
      } else if (p_.op == "reduce_scatter") {
        NCCL_CHECK(
            ncclReduceScatter(send, recv, static_cast<std::size_t>(p_.recv_count), type, ncclSum, comms_[r], st));
      } else if (p_.op == "all_to_all") {
        const std::int64_t chunk = p_.chunk, elem = p_.elem_bytes;
        for (int peer = 0; peer < n_; ++peer) {
          NCCL_CHECK(ncclSend(static_cast<char*>(send) + peer * chunk * elem, static_cast<std::size_t>(chunk), type,
                              peer, comms_[r], st));
          NCCL_CHECK(ncclRecv(static_cast<char*>(recv) + peer * chunk * elem, static_cast<std::size_t>(chunk), type,
                              peer, comms_[r], st));
        }
      } else {  // send_recv: to the next GPU in the ring, from the previous one
        NCCL_CHECK(ncclSend(send, static_cast<std::size_t>(p_.send_count), type, (r + 1) % n_, comms_[r], st));
        NCCL_CHECK(ncclRecv(recv, static_cast<std::size_t>(p_.recv_count), type, (r + n_ - 1) % n_, comms_[r], st));
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
    Comparison cmp(what_, p_.tolerance());
    std::vector<int> ranks = {0};
    if (full) {
      for (int r = 1; r < n_; ++r) ranks.push_back(r);
    } else {
      ranks.push_back(n_ - 1);
    }
    for (const int r : ranks) p_.compare(r, device_reader(ctx_, recv_[r], p_.storage), full, cmp);
    return cmp.finish();
  }

 private:
  Context& ctx_;
  CollectiveProblem p_;
  int n_;
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
           " (CUDA_VISIBLE_DEVICES may hide some; across nodes: mpirun, one rank per GPU)";
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
