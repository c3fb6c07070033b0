// The CUDA backend's MoE cases: routing, permute and unpermute with the backend's own kernels
// (cuda_moe_kernels.cu), and the grouped expert GEMM as one cuBLASLt matmul per expert with rows (the
// rows per expert are known on the host when the case is prepared; a device-side grouped kernel is later
// work). fp32 or bf16 data; routing weights fp32, ids and maps int32.

#include "cuda_moe.hpp"

#include <cstdint>
#include <vector>

#include "cuda_context.hpp"
#include "cuda_moe_kernels.hpp"
#include "problems/moe_problems.hpp"

namespace fleetcast::engine::cuda {
namespace {

ReadRange int_reader(const Context& ctx, const DeviceBuffer& buf) {
  return [&ctx, &buf](std::size_t offset, std::size_t count) {
    CUDA_CHECK(cudaStreamSynchronize(ctx.s()));
    std::vector<std::int32_t> raw(count);
    CUDA_CHECK(cudaMemcpy(raw.data(), buf.as<std::int32_t>() + offset, count * 4, cudaMemcpyDeviceToHost));
    return std::vector<float>(raw.begin(), raw.end());
  };
}

DeviceBuffer upload(const std::vector<std::int32_t>& v) {
  DeviceBuffer buf(v.size() * sizeof(std::int32_t));
  if (!v.empty()) CUDA_CHECK(cudaMemcpy(buf.get(), v.data(), buf.bytes(), cudaMemcpyHostToDevice));
  return buf;
}

// Before a check the outputs are all-ones bits (NaN, and -1 for ints): a kernel that writes nothing fails.
void poison(const Context& ctx, const DeviceBuffer& buf) {
  CUDA_CHECK(cudaMemsetAsync(buf.get(), 0xff, buf.bytes(), ctx.s()));
}

double tolerance(Storage s) { return tolerance_for(s == Storage::bf16 ? "bf16" : "fp32"); }

std::size_t bytes_of(std::int64_t count, Storage s) {
  return static_cast<std::size_t>(static_cast<double>(count) * storage_bytes(s));
}

class Routing : public PreparedOp {
 public:
  Routing(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        logits_(make_filled(ctx, p_.logits, s)),
        ids_(p_.tokens * p_.top_k * 4),
        weights_(p_.tokens * p_.top_k * 4),
        what_(std::move(what)) {}
  void run() override {
    moe_routing(logits_.get(), p_.storage, ids_.as<std::int32_t>(), weights_.as<float>(), p_.tokens, p_.experts,
                p_.top_k, p_.n_group, p_.topk_group, p_.sigmoid, ctx_.s());
  }
  CheckResult check(bool full) override {
    poison(ctx_, ids_);
    poison(ctx_, weights_);
    run();
    // Scores are computed in fp32 from the stored logits whatever their storage: the fp32 tolerance.
    return p_.check(int_reader(ctx_, ids_), device_reader(ctx_, weights_, Storage::fp32), what_, tolerance_for("fp32"),
                    full);
  }

 private:
  Context& ctx_;
  MoeRoutingProblem p_;
  DeviceBuffer logits_, ids_, weights_;
  std::string what_;
};

class Permute : public PreparedOp {
 public:
  Permute(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        x_(make_filled(ctx, p_.x, s)),
        ids_(upload(p_.ids)),
        permuted_(bytes_of(p_.tokens * p_.top_k * p_.hidden, s)),
        offsets_((p_.experts + 1) * 4),
        source_slot_(p_.tokens * p_.top_k * 4),
        dest_row_(p_.tokens * p_.top_k * 4),
        what_(std::move(what)) {}
  void run() override {
    moe_permute(x_.get(), p_.storage, ids_.as<std::int32_t>(), permuted_.get(), offsets_.as<std::int32_t>(),
                source_slot_.as<std::int32_t>(), dest_row_.as<std::int32_t>(), p_.tokens, p_.hidden, p_.top_k, 0,
                p_.experts, ctx_.s());
  }
  CheckResult check(bool full) override {
    for (const auto* b : {&permuted_, &offsets_, &source_slot_, &dest_row_}) poison(ctx_, *b);
    run();
    return p_.check(device_reader(ctx_, permuted_, p_.storage), int_reader(ctx_, offsets_),
                    int_reader(ctx_, source_slot_), what_, full);
  }

 private:
  Context& ctx_;
  MoePermuteProblem p_;
  DeviceBuffer x_, ids_, permuted_, offsets_, source_slot_, dest_row_;
  std::string what_;
};

class Unpermute : public PreparedOp {
 public:
  Unpermute(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        rows_(make_filled(ctx, p_.expert_out, s)),
        weights_(make_filled(ctx, p_.weights, Storage::fp32)),
        dest_row_(upload(p_.dest_row)),
        y_(bytes_of(p_.tokens * p_.hidden, s)),
        what_(std::move(what)) {}
  void run() override {
    moe_unpermute(rows_.get(), p_.storage, weights_.as<float>(), dest_row_.as<std::int32_t>(), y_.get(), p_.tokens,
                  p_.hidden, p_.top_k, ctx_.s());
  }
  CheckResult check(bool full) override {
    poison(ctx_, y_);
    run();
    return p_.check(device_reader(ctx_, y_, p_.storage), what_, tolerance(p_.storage), full);
  }

 private:
  Context& ctx_;
  MoeUnpermuteProblem p_;
  DeviceBuffer rows_, weights_, dest_row_, y_;
  std::string what_;
};

cudaDataType_t data_type(Storage s) { return s == Storage::bf16 ? CUDA_R_16BF : CUDA_R_32F; }

class GroupedGemm : public PreparedOp {
 public:
  GroupedGemm(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx),
        p_(shape, s),
        x_(make_filled(ctx, p_.x, s)),
        w_(make_filled(ctx, p_.w, s)),
        y_(bytes_of(p_.rows * p_.n, s)),
        what_(std::move(what)) {
    desc_ = make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    const auto n = static_cast<std::uint64_t>(p_.n), k = static_cast<std::uint64_t>(p_.k);
    a_ = make_layout(data_type(s), k, n, static_cast<std::int64_t>(k));  // one expert's W, as cuda_gemm.cpp
    LtPreference pref = make_preference();
    const std::size_t workspace = ctx_.lt_workspace.bytes();
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    for (std::int64_t e = 0; e < p_.experts; ++e) {
      const auto rows = static_cast<std::uint64_t>(p_.offsets[e + 1] - p_.offsets[e]);
      if (rows == 0) continue;
      Expert ex{e,
                p_.offsets[e],
                make_layout(data_type(s), k, rows, static_cast<std::int64_t>(k)),
                make_layout(data_type(s), n, rows, static_cast<std::int64_t>(n)),
                {}};
      int found = 0;
      CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(ctx_.lt.get(), desc_.get(), a_.get(), ex.b.get(), ex.d.get(),
                                                  ex.d.get(), pref.get(), 1, &ex.heuristic, &found));
      if (found == 0) throw std::runtime_error("cuBLASLt offers no algorithm for " + what_ + " on this GPU");
      experts_.push_back(std::move(ex));
    }
  }

  void run() override {
    const float alpha = 1.0f, beta = 0.0f;
    const double e = storage_bytes(p_.storage);
    for (const auto& ex : experts_) {
      const auto* w = static_cast<const char*>(w_.get()) + static_cast<std::size_t>(ex.expert * p_.n * p_.k * e);
      const auto* x = static_cast<const char*>(x_.get()) + static_cast<std::size_t>(ex.first_row * p_.k * e);
      auto* y = static_cast<char*>(y_.get()) + static_cast<std::size_t>(ex.first_row * p_.n * e);
      CUBLAS_CHECK(cublasLtMatmul(ctx_.lt.get(), desc_.get(), &alpha, w, a_.get(), x, ex.b.get(), &beta, y, ex.d.get(),
                                  y, ex.d.get(), &ex.heuristic.algo, ctx_.lt_workspace.get(), ctx_.lt_workspace.bytes(),
                                  ctx_.s()));
    }
  }

  CheckResult check(bool full) override {
    poison(ctx_, y_);
    run();
    return p_.check(device_reader(ctx_, y_, p_.storage), what_, tolerance(p_.storage), full);
  }

 private:
  struct Expert {
    std::int64_t expert, first_row;
    LtLayout b, d;
    cublasLtMatmulHeuristicResult_t heuristic;
  };
  Context& ctx_;
  MoeGroupedGemmProblem p_;
  DeviceBuffer x_, w_, y_;
  LtMatmulDesc desc_;
  LtLayout a_;
  std::vector<Expert> experts_;
  std::string what_;
};

}  // namespace

std::string moe_support(const OpInfo& op, const Shape& shape) {
  if (op.name == "moe_routing") {
    if (shape.at("experts") > kMaxRoutedExperts) return "the CUDA routing kernel takes at most 512 experts";
    if (shape.at("n_group") > kMaxExpertGroups) return "the CUDA routing kernel takes at most 64 groups";
  }
  if ((op.name == "moe_permute" || op.name == "moe_unpermute") && shape.at("experts") > kMaxRoutedExperts)
    return "the CUDA permute kernel takes at most 512 experts";
  return "";
}

std::unique_ptr<PreparedOp> make_moe_op(Context& ctx, const OpInfo& op, const Shape& shape, Storage s,
                                        std::string what) {
  if (op.name == "moe_routing") return std::make_unique<Routing>(ctx, shape, s, std::move(what));
  if (op.name == "moe_permute") return std::make_unique<Permute>(ctx, shape, s, std::move(what));
  if (op.name == "moe_unpermute") return std::make_unique<Unpermute>(ctx, shape, s, std::move(what));
  if (op.name == "moe_grouped_gemm") return std::make_unique<GroupedGemm>(ctx, shape, s, std::move(what));
  return nullptr;
}

}  // namespace fleetcast::engine::cuda
