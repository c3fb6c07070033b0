#include "cpu_collectives.hpp"

#include <algorithm>
#include <vector>

#include "../problems/collective_problem.hpp"
#include "cpu_inputs.hpp"

namespace fleetcast::engine::cpu {
namespace {

class RankCollective : public PreparedOp {
 public:
  RankCollective(Ranks& ranks, const Shape& shape, const std::string& op, std::string what)
      : ranks_(ranks),
        p_(shape, op, Storage::fp32),
        send_(static_cast<std::size_t>(p_.send_count)),
        recv_(static_cast<std::size_t>(p_.recv_count)),
        what_(std::move(what)) {
    for (std::int64_t i = 0; i < p_.send_count; ++i)
      send_[static_cast<std::size_t>(i)] = static_cast<float>(p_.input(ranks_.rank(), i));
  }

  void run() override {
    const auto count = static_cast<std::size_t>(p_.send_count);
    const auto per_rank = static_cast<std::size_t>(p_.chunk);
    const int me = ranks_.rank(), n = ranks_.size();
    if (p_.op == "all_reduce") {
      ranks_.all_reduce_sum(send_.data(), recv_.data(), count);
    } else if (p_.op == "all_gather") {
      ranks_.all_gather(send_.data(), recv_.data(), count);
    } else if (p_.op == "reduce_scatter") {
      ranks_.reduce_scatter_sum(send_.data(), recv_.data(), static_cast<std::size_t>(p_.recv_count));
    } else if (p_.op == "all_to_all") {
      ranks_.all_to_all(send_.data(), recv_.data(), per_rank);
    } else {  // send_recv: to the next rank in the ring, from the previous one
      ranks_.send_recv(send_.data(), recv_.data(), count, (me + 1) % n, (me + n - 1) % n);
    }
  }

  // This rank's output in full or on a sample, every rank agreeing on the outcome.
  CheckResult check(bool full) override {
    std::fill(recv_.begin(), recv_.end(), -1e30f);  // nothing left over from a previous run can pass
    run();
    return check_on_every_rank(ranks_, [&] {
      Comparison cmp(what_ + " rank " + std::to_string(ranks_.rank()), p_.tolerance());
      p_.compare(ranks_.rank(), reader(recv_), full, cmp);
      return cmp.finish();
    });
  }

 private:
  Ranks& ranks_;
  CollectiveProblem p_;
  std::vector<float> send_, recv_;
  std::string what_;
};

}  // namespace

std::string collective_support(const Ranks* ranks, const Shape& shape) {
  if (!multi_rank(ranks))
    return "no device: NCCL collectives need GPUs, and between CPU ranks they need an MPI launch "
           "(mpirun -np N; this process is a single rank)";
  if (shape.at("gpus") != ranks->size())
    return "needs " + std::to_string(shape.at("gpus")) + " ranks; this launch has " + std::to_string(ranks->size());
  return "";
}

std::unique_ptr<PreparedOp> make_collective(Ranks& ranks, const Shape& shape, const std::string& op, std::string what) {
  return std::make_unique<RankCollective>(ranks, shape, op, std::move(what));
}

}  // namespace fleetcast::engine::cpu
