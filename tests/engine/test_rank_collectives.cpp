// Collectives between the ranks of an MPI launch, without MPI: what the expected outputs are, what the CPU
// backend runs and skips under a launch, and that a transport delivering the wrong data fails the check
// (engine_mpi_test.sh runs the real thing under mpirun).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>

#include "cpu/cpu_collectives.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/ranks.hpp"
#include "problems/collective_problem.hpp"

using namespace fleetcast::engine;
using Catch::Detail::Approx;

namespace {

// Rank 0 of a two-rank launch whose transport only copies this rank's own data: what a broken collective
// (one that never hears from its peer) would deliver. `peer_failed` makes the agreement say the peer's
// check failed.
class LonelyRanks : public Ranks {
 public:
  explicit LonelyRanks(int size = 2, bool peer_failed = false) : size_(size), peer_failed_(peer_failed) {}
  int rank() const override { return 0; }
  int size() const override { return size_; }
  int local_rank() const override { return 0; }
  std::string transport() const override { return "mpi"; }
  void all_reduce_sum(const float* send, float* recv, std::size_t count) override { std::copy_n(send, count, recv); }
  void all_gather(const float* send, float* recv, std::size_t count_each) override {
    for (int r = 0; r < size_; ++r) std::copy_n(send, count_each, recv + r * count_each);
  }
  void reduce_scatter_sum(const float* send, float* recv, std::size_t count_each) override {
    std::copy_n(send, count_each, recv);
  }
  void all_to_all(const float* send, float* recv, std::size_t count_each) override {
    std::copy_n(send, count_each * static_cast<std::size_t>(size_), recv);
  }
  void send_recv(const float* send, float* recv, std::size_t count, int, int) override {
    std::copy_n(send, count, recv);
  }
  void barrier() override { ++barriers; }
  std::vector<double> max(const std::vector<double>& values) override {
    auto out = values;
    if (peer_failed_ && !out.empty()) out[0] = std::max(out[0], 1.0);  // rank 1 (code size - 1) failed
    return out;
  }
  void broadcast(void*, std::size_t, int) override {}
  [[noreturn]] void abort(int) override { throw std::logic_error("abort"); }
  int barriers = 0;

 private:
  int size_;
  bool peer_failed_;
};

}  // namespace

TEST_CASE("rank collectives: expected outputs are the inputs' sums and placements", "[engine][collective][mpi]") {
  const Shape s{{"bytes", 64}, {"gpus", 2}};  // 16 fp32
  const CollectiveProblem gather(s, "all_gather", Storage::fp32);
  CHECK(gather.send_count == 8);  // all_gather's size is the gathered total
  CHECK(gather.recv_count == 16);
  CHECK(gather.expected(0, 11) == gather.input(1, 3));  // rank 1's element 3 lands after rank 0's 8
  const CollectiveProblem a2a(s, "all_to_all", Storage::fp32);
  CHECK(a2a.chunk == 8);
  CHECK(a2a.expected(1, 2) == a2a.input(0, 10));  // rank 0's block for rank 1, first in rank 1's buffer
  const CollectiveProblem rs(s, "reduce_scatter", Storage::fp32);
  CHECK(rs.recv_count == 8);
  CHECK(rs.expected(1, 0) == Approx(rs.input(0, 8) + rs.input(1, 8)));
  const CollectiveProblem ring(s, "send_recv", Storage::fp32);
  CHECK(ring.expected(0, 5) == ring.input(1, 5));  // rank 0 hears from the previous rank, 1
  CHECK(ring.tolerance() == 0.0);                  // moved data: bit for bit
  // bf16 sums round at each ring step: the tolerance grows past 4 ranks.
  CHECK(CollectiveProblem({{"bytes", 64}, {"gpus", 8}}, "all_reduce", Storage::bf16).tolerance() ==
        Approx(2 * tolerance_for("bf16")));
}

TEST_CASE("rank collectives: what runs under a launch and what is skipped", "[engine][collective][mpi]") {
  const Shape two{{"bytes", 4096}, {"gpus", 2}};
  CHECK_THAT(cpu::collective_support(nullptr, two), Catch::Contains("single rank"));
  LonelyRanks one(1);
  CHECK_THAT(cpu::collective_support(&one, two), Catch::Contains("single rank"));
  LonelyRanks ranks;
  CHECK(cpu::collective_support(&ranks, two).empty());
  CHECK(cpu::collective_support(&ranks, {{"bytes", 4096}, {"gpus", 4}}) == "needs 4 ranks; this launch has 2");

  auto backend = make_cpu_backend(&ranks);
  CHECK(backend->collective_transport() == "mpi");
  CHECK(make_cpu_backend()->collective_transport().empty());
  const OpInfo& all_reduce = *find_op("all_reduce");
  CHECK(backend->support(all_reduce, "bf16", two).supported);
  CHECK(backend->support(all_reduce, "bf16", two).dtype == "fp32");
  const OpInfo& gemm = *find_op("gemm");
  const Support s = backend->support(gemm, "fp32", gemm.small_check);
  CHECK_FALSE(s.supported);
  CHECK_THAT(s.reason, Catch::Contains("only collectives"));
  // Each repetition starts after a barrier.
  auto op = backend->prepare(*find_op("send_recv"), "fp32", two);
  CHECK(backend->time(*op, {0, 3, false}).size() == 3);
  CHECK(ranks.barriers == 3);
}

TEST_CASE("rank collectives: a transport that drops the peer's data fails the check", "[engine][collective][mpi]") {
  LonelyRanks ranks;
  const Shape s{{"bytes", 1 << 16}, {"gpus", 2}};
  for (const char* name : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"}) {
    auto op = cpu::make_collective(ranks, s, name, name);
    CHECK_THROWS_AS(op->check(true), CheckFailed);
    CHECK_THROWS_AS(op->check(false), CheckFailed);
  }
}

TEST_CASE("rank collectives: every rank stops when one rank's check fails", "[engine][collective][mpi]") {
  LonelyRanks peer_failed(2, true);
  CHECK_THROWS_WITH(check_on_every_rank(peer_failed,
                                        [] {
                                          return CheckResult{1e-7, 10};
                                        }),
                    Catch::Contains("rank 1 of 2 failed its check"));
  LonelyRanks fine;
  CHECK(check_on_every_rank(fine, [] { return CheckResult{1e-7, 10}; }).max_rel_error == 1e-7);
  CHECK_THROWS_WITH(check_on_every_rank(fine, []() -> CheckResult { throw CheckFailed("mine"); }), "mine");
}
