#include "cpu_moe_ops.hpp"

#include <algorithm>

#include "../problems/model_step_problem.hpp"
#include "../problems/moe_problems.hpp"
#include "cpu_inputs.hpp"
#include "cpu_model_step.hpp"
#include "cpu_moe.hpp"
#include "fleetcast/specs/presets.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {
namespace {

const double kTol = tolerance_for("fp32");

class Routing : public PreparedOp {
 public:
  Routing(const Shape& s, std::string what)
      : p_(s, Storage::fp32),
        logits_(filled(p_.logits)),
        ids_(p_.tokens * p_.top_k),
        weights_(p_.tokens * p_.top_k),
        what_(std::move(what)) {}
  void run() override {
    moe_routing(logits_.data(), ids_.data(), weights_.data(), p_.tokens,
                {p_.experts, p_.top_k, p_.n_group, p_.topk_group, p_.sigmoid});
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(ids_), reader(weights_), what_, kTol, full);
  }

 private:
  MoeRoutingProblem p_;
  std::vector<float> logits_;
  std::vector<std::int32_t> ids_;
  std::vector<float> weights_;
  std::string what_;
};

class Permute : public PreparedOp {
 public:
  Permute(const Shape& s, std::string what)
      : p_(s, Storage::fp32),
        x_(filled(p_.x)),
        permuted_(p_.tokens * p_.top_k * p_.hidden),
        offsets_(p_.experts + 1),
        source_slot_(p_.tokens * p_.top_k),
        dest_row_(p_.tokens * p_.top_k),
        what_(std::move(what)) {}
  void run() override {
    moe_permute(x_.data(), p_.ids.data(), permuted_.data(), offsets_.data(), source_slot_.data(), dest_row_.data(),
                p_.tokens, p_.hidden, p_.top_k, 0, p_.experts);
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(permuted_), reader(offsets_), reader(source_slot_), what_, full);
  }

 private:
  MoePermuteProblem p_;
  std::vector<float> x_, permuted_;
  std::vector<std::int32_t> offsets_, source_slot_, dest_row_;
  std::string what_;
};

class Unpermute : public PreparedOp {
 public:
  Unpermute(const Shape& s, std::string what)
      : p_(s, Storage::fp32),
        rows_(filled(p_.expert_out)),
        weights_(filled(p_.weights)),
        y_(p_.tokens * p_.hidden),
        what_(std::move(what)) {}
  void run() override {
    moe_unpermute(rows_.data(), weights_.data(), p_.dest_row.data(), y_.data(), p_.tokens, p_.hidden, p_.top_k);
  }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(y_), what_, kTol, full);
  }

 private:
  MoeUnpermuteProblem p_;
  std::vector<float> rows_, weights_, y_;
  std::string what_;
};

class GroupedGemm : public PreparedOp {
 public:
  GroupedGemm(const Shape& s, std::string what)
      : p_(s, Storage::fp32), x_(filled(p_.x)), w_(filled(p_.w)), y_(p_.rows * p_.n), what_(std::move(what)) {}
  void run() override { moe_grouped_gemm(x_.data(), w_.data(), p_.offsets.data(), y_.data(), p_.experts, p_.n, p_.k); }
  CheckResult check(bool full) override {
    run();
    return p_.check(reader(y_), what_, kTol, full);
  }

 private:
  MoeGroupedGemmProblem p_;
  std::vector<float> x_, w_, y_;
  std::string what_;
};

class ModelStep : public PreparedOp {
 public:
  ModelStep(const Shape& s, std::string what)
      : p_(specs::model_preset(s.text_at("model")), step_shape_of(s)), runner_(p_), what_(std::move(what)) {}
  void run() override { runner_.run(); }
  CheckResult check(bool full) override {
    run();
    // A bf16 or fp8 step (stored in fp32 here, its values rounded as the CUDA step stores them) against the
    // fp32 reference: the tolerance its rounding stages give (model_step.hpp); an fp32 step at fp32's.
    return p_.check(reader(runner_.logits()), what_, step_tolerance(p_.shape, p_.dims), full);
  }
  std::vector<std::vector<std::int64_t>> expert_rows() const override { return runner_.expert_rows(); }

 private:
  ModelStepProblem p_;
  ModelStepRunner runner_;
  std::string what_;
};

}  // namespace

std::unique_ptr<PreparedOp> prepare_moe_or_step(const OpInfo& op, const Shape& s, const std::string& what) {
  if (op.name == "moe_routing") return std::make_unique<Routing>(s, what);
  if (op.name == "moe_permute") return std::make_unique<Permute>(s, what);
  if (op.name == "moe_unpermute") return std::make_unique<Unpermute>(s, what);
  if (op.name == "moe_grouped_gemm") return std::make_unique<GroupedGemm>(s, what);
  if (op.name == "model_step") return std::make_unique<ModelStep>(s, what);
  return nullptr;
}

}  // namespace fleetcast::engine::cpu
