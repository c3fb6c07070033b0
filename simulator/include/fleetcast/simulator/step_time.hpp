#pragma once
// predict(BatchShape) -> StepTime for one iteration of one replica. Each operator of a layer is costed in
// FLOPs and bytes per GPU from the architecture, the layout and the precisions, and timed by a roofline:
//   time = max(FLOPs / (peak x efficiency), bytes / (bandwidth x efficiency)) + fixed latency.
// Collectives are timed as ring algorithms on the scale-up link. Pipeline stages run one after another for
// a batch (no micro-batch overlap in this model). With speculative decoding each decoding sequence runs its
// last token plus its drafts through the model, and the MTP layers' draft passes are costed as one op.
// With attention data parallelism (layout dp > 1) every DP rank has its own batch; the ranks step in lockstep
// because every MoE layer exchanges all ranks' tokens (EP dispatch and combine), so a step lasts as long as
// the busiest rank's own work plus the experts' work on every rank's tokens plus the exchange.
// Two-batch overlap runs a step as two micro-batches so that one's communication hides behind the other's
// compute.

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/expert_placement.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::simulator {

enum class Op {
  embedding,
  attn_proj,         // Q, K/V (or latent) and output projections
  attention,         // the attention kernel over each sequence's context (and a sparse indexer)
  linear_attention,  // the linear-attention layers' recurrence over each sequence's state (and short conv)
  moe_gate,          // router logits
  moe_experts,       // routed experts (grouped GEMM over the experts the batch touches)
  shared_expert,     // shared experts of a MoE layer
  dense_ffn,         // dense SwiGLU FFN
  elementwise,       // norms, residual adds, activations, RoPE
  tp_allreduce,
  ep_alltoall,    // attention DP: MoE dispatch of every token to its experts' ranks and combine back
  pp_send,        // activations between pipeline stages
  lookup_memory,  // Engram-style table rows
  lm_head,
  mtp_draft,  // speculative decoding: the MTP layers' passes that propose the next step's drafts
  overlap,    // two-batch overlap: communication time hidden behind compute (<= 0)
  step_overhead,
  launch_wait,  // a prompt iteration run eagerly: the GPU waiting on the host launching its kernels one by one
  count_
};
constexpr int kNumOps = static_cast<int>(Op::count_);
std::string_view to_string(Op op);

// One operator class over all layers of a step, per GPU (a pipeline's stages summed: they run one after
// another for one batch).
struct OpCost {
  double flops_prefill = 0.0;
  double flops_decode = 0.0;
  double bytes = 0.0;  // HBM (or link) bytes
  double time_s = 0.0;
  // Share of the time owed to prefill tokens: by FLOPs where the op computes (weight reads serve every
  // token alike), by token count where it only moves data.
  double prefill_share = 0.0;
  double kernels = 0.0;  // kernel launches and collective calls the op makes in the step
  double flops() const { return flops_prefill + flops_decode; }
};

// prefill / (prefill + decode), 0 when both are 0.
double share(double prefill, double decode);

struct StepTime {
  double total_s = 0.0;
  double prefill_s = 0.0;  // total_s split between prefill and decode work, op by op
  double decode_s = 0.0;
  std::array<OpCost, kNumOps> ops{};
  const OpCost& op(Op o) const { return ops[static_cast<int>(o)]; }
};

class StepTimeModel {
 public:
  StepTimeModel(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                const calibration::Profile& profile);

  // One step of a replica whose attention is not data parallel (dp 1), or whose DP ranks all run `batch`.
  StepTime predict(const BatchShape& batch) const;
  // One step of a replica with one batch per attention-DP rank (ranks.size() == layout dp; an empty batch is
  // an idle rank, which still takes part in every MoE exchange).
  StepTime predict_ranks(std::span<const BatchShape> ranks) const;
  const specs::ModelSpec& model() const { return model_; }
  // Cost the routed experts of one measured rank (calibration's composition check of an engine's model_step)
  // instead of the busiest rank's expected share.
  void use_measured_expert_rows(MeasuredExpertRows rows) { measured_rows_ = std::move(rows); }

 private:
  // Tokens the MoE layers' experts see in one step: every DP rank's.
  struct MoeTokens {
    double prefill = 0.0;
    double decode = 0.0;
  };
  // Transformer layers one costing covers: the backbone's (every pp stage, run one after another) or the
  // single MTP layer of a draft pass.
  struct Layers {
    double all = 0.0;
    double moe = 0.0;
    double dense = 0.0;
    double sliding = 0.0;         // of `all`, those with a sliding window (csa windows every layer by itself)
    double linear = 0.0;          // of `all`, those with linear attention instead of softmax attention
    double attention_free = 0.0;  // of `all`, those with no attention of either kind
    double softmax() const { return all - linear - attention_free; }
    double mixers() const { return all - attention_free; }  // layers with attention of either kind
    double ffns() const { return moe + dense; }             // layers with an FFN or MoE
  };
  // One pass of `l` over the batch: projections, elementwise, attention, FFN or MoE and TP all-reduces.
  void cost_layers(const BatchShape& b, const Layers& l, const MoeTokens& moe, StepTime& st) const;
  void cost_projections(const BatchShape& b, const Layers& l, StepTime& st) const;
  void cost_attention(const BatchShape& b, const Layers& l, StepTime& st) const;
  void cost_linear_attention(const BatchShape& b, const Layers& l, StepTime& st) const;
  void cost_ffn(const BatchShape& b, const Layers& l, const MoeTokens& moe, StepTime& st) const;
  void cost_allreduce(const BatchShape& b, const Layers& l, StepTime& st) const;
  // The TP all-reduces of hidden states per pass of `l` (0 at tp 1), and the extra ones a QK norm across all heads
  // takes (0 without one), each of kQkNormBytesPerToken per token: the roofline and the fitted predictors count both.
  double hidden_allreduces_per_pass(const Layers& l) const;
  double qk_norm_allreduces_per_pass(const Layers& l) const;
  static constexpr double kQkNormBytesPerToken = 2.0 * sizeof(float);  // q's and k's sums of squares, fp32
  void cost_alltoall(const BatchShape& b, const Layers& l, const MoeTokens& moe, StepTime& st) const;
  void cost_embedding(const BatchShape& b, StepTime& st) const;  // and the lookup memory
  void cost_pipeline(const BatchShape& b, StepTime& st) const;
  void cost_head(const BatchShape& b, StepTime& st) const;
  // `draft_moe`: every DP rank's decoding sequences, the tokens of one draft pass through the MTP layer's MoE.
  void cost_draft(const BatchShape& b, const MoeTokens& draft_moe, StepTime& st) const;
  // Everything one rank's batch costs except the step overhead and the overlap.
  void cost_rank(const BatchShape& b, const MoeTokens& moe, const MoeTokens& draft_moe, StepTime& st) const;
  // The busiest rank's step: its ops, the overhead and totals (no overlap).
  StepTime predict_lockstep(std::span<const BatchShape> ranks) const;
  // Two-batch overlap: the step as two micro-batches, communication hidden behind compute.
  StepTime predict_overlapped(std::span<const BatchShape> ranks) const;
  // A fitted profile's per-op predictors (step_time_predictors.cpp) in place of the roofline for the op classes
  // of `l` and for the LM head over `sampled_rows` rows; classes without a predictor keep the roofline.
  void predict_layers(const BatchShape& b, const Layers& l, const MoeTokens& moe, StepTime& st) const;
  void predict_head(double sampled_rows, specs::Precision head_precision, StepTime& st) const;
  double roofline_s(const OpCost& c, double peak_flops, double bytes_per_s, int kernels) const;
  // A GEMM every token of the step runs through: 2 x tokens x params FLOPs, the weights read once, and
  // `activation_bytes` of inputs and outputs per token.
  void cost_token_gemm(OpCost& op, double params, specs::Precision weights, double activation_bytes_per_token,
                       double prefill_tokens, double decode_tokens, int kernels) const;
  double collective_s(double bytes, double bytes_per_s, int calls) const;

  specs::ModelSpec model_;
  specs::DeploymentSpec deployment_;
  calibration::Profile profile_;
  RateTable rates_;
  ParameterCounts params_;
  ExpertPlacement experts_;                                  // where routed experts sit on the EP ranks (MoE models)
  std::optional<MeasuredExpertRows> measured_rows_;          // one measured rank's routing, in place of experts_
  specs::Precision expert_inputs_ = specs::Precision::bf16;  // the format the experts' GEMMs take activations in
  double step_overhead_s_ = 0.0;
  double decode_overhead_share_ = 1.0;  // of step_overhead_s_, in a step without prefill
  double sequence_overhead_s_ = 0.0;
  double prompt_slowdown_ = 1.0;  // Profile::prompt_slowdown for the model's kind
  Layers backbone_;               // all layers, run by one GPU over the pp stages one after another
  Layers mtp_layer_;              // one MTP module's transformer layer: MoE when the model is, full attention
};

}  // namespace fleetcast::simulator
