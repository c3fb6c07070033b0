// NCCL collectives between the processes of an MPI launch, one GPU per rank (the rank's local index on its
// node), across nodes as within one: rank 0 creates the ncclUniqueId, MPI broadcasts it (Ranks::broadcast),
// every rank joins with ncclCommInitRank. Each rank enqueues its own call on the backend's stream; the
// backend starts every repetition after a barrier and keeps the slowest rank's time (cuda_backend.cpp).
// The check is the single-process one (problems/collective_problem.hpp) on this rank's output, every rank
// agreeing on the outcome before anything is timed.

#include "cuda_rank_collectives.hpp"

#include <stdexcept>

#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "problems/collective_problem.hpp"

#if FLEETCAST_ENGINE_HAVE_NCCL
#include "nccl_check.hpp"
#endif

namespace fleetcast::engine::cuda {

#if FLEETCAST_ENGINE_HAVE_NCCL
namespace {

// One communicator over every rank of the launch, this process's member; destroyed in the destructor.
class RankComm {
 public:
  RankComm(Ranks& ranks, int device) {
    ncclUniqueId id{};
    if (ranks.rank() == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    ranks.broadcast(&id, sizeof id, 0);
    CUDA_CHECK(cudaSetDevice(device));
    NCCL_CHECK(ncclCommInitRank(&comm_, ranks.size(), id, ranks.rank()));
  }
  ~RankComm() {
    if (comm_ != nullptr) (void)ncclCommDestroy(comm_);
  }
  RankComm(const RankComm&) = delete;
  RankComm& operator=(const RankComm&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

class RankCollective : public PreparedOp {
 public:
  RankCollective(Context& ctx, Ranks& ranks, const Shape& shape, const std::string& op, Storage s, std::string what)
      : ctx_(ctx),
        ranks_(ranks),
        p_(shape, op, s),
        comm_(ranks, ctx.device),
        send_(static_cast<std::size_t>(p_.send_count * p_.elem_bytes)),
        recv_(static_cast<std::size_t>(p_.recv_count * p_.elem_bytes)),
        what_(std::move(what) + " rank " + std::to_string(ranks.rank())) {
    fill(send_.get(), p_.storage, CollectiveProblem::kSeed + static_cast<std::uint64_t>(ranks_.rank()),
         static_cast<std::size_t>(p_.send_count), 1.0f, 0.0f, ctx_.s());
    CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
  }

  void run() override {
    const ncclDataType_t type = p_.storage == Storage::bf16 ? ncclBfloat16 : ncclFloat32;
    const int me = ranks_.rank(), n = ranks_.size();
    void* send = send_.get();
    void* recv = recv_.get();
    const auto count = static_cast<std::size_t>(p_.send_count);
    ncclComm_t c = comm_.get();
    cudaStream_t st = ctx_.s();
    if (p_.op == "all_reduce") {
      NCCL_CHECK(ncclAllReduce(send, recv, count, type, ncclSum, c, st));
    } else if (p_.op == "all_gather") {
      NCCL_CHECK(ncclAllGather(send, recv, count, type, c, st));
    } else if (p_.op == "reduce_scatter") {
      NCCL_CHECK(ncclReduceScatter(send, recv, static_cast<std::size_t>(p_.recv_count), type, ncclSum, c, st));
    } else if (p_.op == "all_to_all") {  // grouped send/recv, as nccl-tests' alltoall
      const std::int64_t block = p_.chunk * p_.elem_bytes;
      NCCL_CHECK(ncclGroupStart());
      for (int peer = 0; peer < n; ++peer) {
        NCCL_CHECK(
            ncclSend(static_cast<char*>(send) + peer * block, static_cast<std::size_t>(p_.chunk), type, peer, c, st));
        NCCL_CHECK(
            ncclRecv(static_cast<char*>(recv) + peer * block, static_cast<std::size_t>(p_.chunk), type, peer, c, st));
      }
      NCCL_CHECK(ncclGroupEnd());
    } else {  // send_recv: to the next rank in the ring, from the previous one
      NCCL_CHECK(ncclGroupStart());
      NCCL_CHECK(ncclSend(send, count, type, (me + 1) % n, c, st));
      NCCL_CHECK(ncclRecv(recv, count, type, (me + n - 1) % n, c, st));
      NCCL_CHECK(ncclGroupEnd());
    }
  }

  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(recv_.get(), 0xff, recv_.bytes(), ctx_.s()));  // NaNs: nothing stale passes
    run();
    CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
    return check_on_every_rank(ranks_, [&] {
      Comparison cmp(what_, p_.tolerance());
      p_.compare(ranks_.rank(), device_reader(ctx_, recv_, p_.storage), full, cmp);
      return cmp.finish();
    });
  }

 private:
  Context& ctx_;
  Ranks& ranks_;
  CollectiveProblem p_;
  RankComm comm_;
  DeviceBuffer send_, recv_;
  std::string what_;
};

}  // namespace

std::string rank_collective_support(const Ranks& ranks, const Shape& shape) {
  if (shape.at("gpus") != ranks.size())
    return "needs " + std::to_string(shape.at("gpus")) + " ranks (one per GPU); this launch has " +
           std::to_string(ranks.size());
  return "";
}

std::unique_ptr<PreparedOp> make_rank_collective(Context& ctx, Ranks& ranks, const Shape& shape, const std::string& op,
                                                 Storage s, std::string what) {
  return std::make_unique<RankCollective>(ctx, ranks, shape, op, s, std::move(what));
}

#else

std::string rank_collective_support(const Ranks&, const Shape&) {
  return "this build has no NCCL (nccl.h and libnccl not found)";
}

std::unique_ptr<PreparedOp> make_rank_collective(Context&, Ranks&, const Shape&, const std::string& op, Storage,
                                                 std::string) {
  throw std::logic_error("cuda backend: no NCCL in this build for " + op);
}

#endif

}  // namespace fleetcast::engine::cuda
