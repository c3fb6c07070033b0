#include "fleetcast/engine/cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../problems/attention_problem.hpp"
#include "../problems/gemm_problem.hpp"
#include "../problems/memcpy_problem.hpp"
#include "../problems/prefill_problem.hpp"
#include "../problems/rowwise_problems.hpp"
#include "../problems/sampling_problem.hpp"
#include "cpu_collectives.hpp"
#include "cpu_inputs.hpp"
#include "cpu_kernels.hpp"
#include "cpu_moe_ops.hpp"
#include "fleetcast/engine/host_info.hpp"
#include "parallel.hpp"

namespace fleetcast::engine {
namespace {

using cpu::filled;
using cpu::reader;

const double kTol = tolerance_for("fp32");

class Gemm : public PreparedOp {
public:
  Gemm(const Shape& s, std::string what)
      : p_(s, Storage::fp32), x_(filled(p_.x)), w_(filled(p_.w)), y_(p_.m * p_.n), what_(std::move(what)) {}
  void run() override { cpu::gemm(x_.data(), w_.data(), y_.data(), p_.m, p_.n, p_.k); }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(y_), what_, kTol, full);
  }

private:
  GemmProblem p_;
  std::vector<float> x_, w_, y_;
  std::string what_;
};

class RmsNorm : public PreparedOp {
public:
  RmsNorm(const Shape& s, std::string what)
      : p_(s, Storage::fp32), x_(filled(p_.x)), w_(filled(p_.weight)), y_(x_.size()), what_(std::move(what)) {}
  void run() override { cpu::rmsnorm(x_.data(), w_.data(), y_.data(), p_.tokens, p_.hidden, RmsNormProblem::kEps); }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(y_), what_, kTol, full);
  }

private:
  RmsNormProblem p_;
  std::vector<float> x_, w_, y_;
  std::string what_;
};

class Swiglu : public PreparedOp {
public:
  Swiglu(const Shape& s, std::string what)
      : p_(s, Storage::fp32), in_(filled(p_.gate_up)), y_(in_.size() / 2), what_(std::move(what)) {}
  void run() override { cpu::swiglu(in_.data(), y_.data(), p_.tokens, p_.width); }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(y_), what_, kTol, full);
  }

private:
  SwigluProblem p_;
  std::vector<float> in_, y_;
  std::string what_;
};

class Rope : public PreparedOp {
public:
  Rope(const Shape& s, std::string what)
      : p_(s, Storage::fp32), q_(filled(p_.q)), k_(filled(p_.k)), q_out_(q_.size()), k_out_(k_.size()),
        what_(std::move(what)) {}
  void run() override {
    cpu::rope(q_.data(), k_.data(), p_.positions.data(), p_.cos_sin.data(), q_out_.data(), k_out_.data(), p_.tokens,
              p_.q_heads, p_.kv_heads, p_.head_dim);
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(q_out_), reader(k_out_), what_, kTol, full);
  }

private:
  RopeProblem p_;
  std::vector<float> q_, k_, q_out_, k_out_;
  std::string what_;
};

class Sampling : public PreparedOp {
public:
  Sampling(const Shape& s, std::string what)
      : p_(s, Storage::fp32), logits_(filled(p_.logits)), tokens_(p_.batch), probs_(p_.batch), what_(std::move(what)) {}
  void run() override {
    cpu::sampling(logits_.data(), p_.draws.data(), tokens_.data(), probs_.data(), p_.batch, p_.vocab, p_.top_k);
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(tokens_), reader(probs_), what_, kTol, full);
  }

private:
  SamplingProblem p_;
  std::vector<float> logits_;
  std::vector<std::int32_t> tokens_;
  std::vector<float> probs_;
  std::string what_;
};

class Attention : public PreparedOp {
public:
  Attention(const Shape& s, bool mla, std::string what)
      : p_(s, mla, Storage::fp32), q_(filled(p_.q)), k_(filled(p_.k_cache)), v_(filled(p_.v_cache)),
        out_(p_.batch * p_.q_heads * p_.dv), what_(std::move(what)) {}
  void run() override {
    cpu::attention_decode({q_.data(), k_.data(), p_.mla ? nullptr : v_.data(), p_.block_table.data(), out_.data(),
                           p_.batch, p_.context, p_.q_heads, p_.kv_heads, p_.dk, p_.dv, p_.page_size,
                           p_.pages_per_seq, static_cast<float>(p_.scale)});
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(out_), what_, kTol, full);
  }

private:
  AttentionProblem p_;
  std::vector<float> q_, k_, v_, out_;
  std::string what_;
};

class Prefill : public PreparedOp {
public:
  Prefill(const Shape& s, std::string what)
      : p_(s, Storage::fp32), q_(filled(p_.q)), k_(filled(p_.k_cache)), v_(filled(p_.v_cache)), out_(q_.size()),
        what_(std::move(what)) {}
  void run() override {
    cpu::attention_prefill({q_.data(), k_.data(), v_.data(), p_.block_table.data(), out_.data(), p_.batch, p_.chunk,
                            p_.context, p_.q_heads, p_.kv_heads, p_.head_dim, p_.page_size, p_.pages_per_seq,
                            static_cast<float>(p_.scale)});
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(out_), what_, kTol, full);
  }

private:
  PrefillProblem p_;
  std::vector<float> q_, k_, v_, out_;
  std::string what_;
};

class Memcpy : public PreparedOp {
public:
  Memcpy(const Shape& s, std::string what) : p_(s), src_(p_.bytes), dst_(p_.bytes), what_(std::move(what)) {
    for (std::int64_t i = 0; i < p_.bytes; ++i)
      src_[i] = byte_value(MemcpyProblem::kSeed, static_cast<std::uint64_t>(i));
  }
  void run() override { std::memcpy(dst_.data(), src_.data(), src_.size()); }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(dst_), what_, full);
  }

private:
  MemcpyProblem p_;
  std::vector<unsigned char> src_, dst_;
  std::string what_;
};

class CpuBackend : public Backend {
public:
  explicit CpuBackend(Ranks* ranks) : ranks_(ranks) {}
  std::string name() const override { return "cpu"; }
  std::string collective_transport() const override { return multi_rank(ranks_) ? ranks_->transport() : ""; }

  traces::CalibrationHeader describe() const override {
    traces::CalibrationHeader h;
    h.backend = "cpu";
    h.device = cpu_model();
    h.cpu_model = h.device;
    // The threads the kernels run on (OMP_NUM_THREADS may set fewer than the CPUs there are).
#ifdef _OPENMP
    h.cpu_cores = std::min(cpu_cores(), omp_get_max_threads());
#else
    h.cpu_cores = 1;
#endif
    h.host = host_name();
    return h;
  }

  Support support(const OpInfo& op, const std::string&, const Shape& shape) const override {
    const std::string dtype = op.dtypes.front() == "u8" ? "u8" : "fp32";
    // Host-device and peer copies and collectives measure links between devices; a host copy would
    // record a memcpy under their name.
    if (op.name == "memcpy_h2d" || op.name == "memcpy_d2h" || op.name == "memcpy_p2p")
      return {false, dtype, "no device: the CPU backend has no host-device or peer link to copy over"};
    if (op.op_class == OpClass::collective) {
      if (auto why = cpu::collective_support(ranks_, shape); !why.empty()) return {false, dtype, why};
    } else if (multi_rank(ranks_)) {
      return {false, dtype, "under an MPI launch only collectives run: the ranks share the CPUs; measure "
                            "the other ops in a single process"};
    }
    // Bytes moved is a fair footprint estimate: every input and output is touched once.
    const double need = op_cost(op, shape, dtype).bytes;
    const double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (need > 0.5 * have)
      return {false, dtype, "needs about " + std::to_string(static_cast<long>(need / 1e9)) +
                                " GB, more than half of this machine's memory"};
    return {true, dtype, ""};
  }

  std::unique_ptr<PreparedOp> prepare(const OpInfo& op, const std::string& dtype, const Shape& s) override {
    const std::string what = op.name + " " + dtype + " " + s.text();
    if (op.name == "gemm") return std::make_unique<Gemm>(s, what);
    if (op.name == "rmsnorm") return std::make_unique<RmsNorm>(s, what);
    if (op.name == "swiglu") return std::make_unique<Swiglu>(s, what);
    if (op.name == "rope") return std::make_unique<Rope>(s, what);
    if (op.name == "sampling") return std::make_unique<Sampling>(s, what);
    if (op.name == "attention_decode_gqa") return std::make_unique<Attention>(s, false, what);
    if (op.name == "attention_decode_mla") return std::make_unique<Attention>(s, true, what);
    if (op.name == "memcpy") return std::make_unique<Memcpy>(s, what);
    if (op.name == "attention_prefill") return std::make_unique<Prefill>(s, what);
    if (op.op_class == OpClass::collective) return cpu::make_collective(*ranks_, s, op.name, what);
    if (auto moe_or_step = cpu::prepare_moe_or_step(op, s, what)) return moe_or_step;
    throw std::logic_error("cpu backend: no kernel for " + op.name);
  }

  // Under an MPI launch every repetition starts together on all ranks (a barrier after the cache flush)
  // and counts as long as its slowest rank took, as nccl-tests' max over ranks; every rank gets the same
  // times, so the harness's budget gives every rank the same repetition count.
  std::vector<double> time(PreparedOp& op, const TimingOptions& o) override {
    for (int i = 0; i < o.warmup; ++i) op.run();
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(o.repetitions));
    for (int i = 0; i < o.repetitions; ++i) {
      if (o.flush_cache) flush();
      if (multi_rank(ranks_)) ranks_->barrier();
      const auto start = std::chrono::steady_clock::now();
      op.run();
      const auto stop = std::chrono::steady_clock::now();
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    return multi_rank(ranks_) ? ranks_->max(seconds) : seconds;
  }

private:
  // Writes a buffer twice the last-level cache (capped at 256 MiB: some VMs report the whole socket's
  // cache) so the next repetition finds its inputs in memory, not in cache.
  void flush() {
    if (flush_buffer_.empty())
      flush_buffer_.resize(static_cast<std::size_t>(std::min(2 * last_level_cache_bytes(), 256L << 20)));
    std::memset(flush_buffer_.data(), ++flush_value_, flush_buffer_.size());
  }
  Ranks* ranks_;
  std::vector<unsigned char> flush_buffer_;
  unsigned char flush_value_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Ranks* ranks) { return std::make_unique<CpuBackend>(ranks); }

}  // namespace fleetcast::engine
