#include "fleetcast/simulator/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/gemm_inputs.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {

double share(double prefill, double decode) { return prefill + decode > 0.0 ? prefill / (prefill + decode) : 0.0; }

std::string_view to_string(Op op) {
  switch (op) {
    case Op::embedding:
      return "embedding";
    case Op::attn_proj:
      return "attn_proj";
    case Op::attention:
      return "attention";
    case Op::linear_attention:
      return "linear_attention";
    case Op::moe_gate:
      return "moe_gate";
    case Op::moe_experts:
      return "moe_experts";
    case Op::shared_expert:
      return "shared_expert";
    case Op::dense_ffn:
      return "dense_ffn";
    case Op::elementwise:
      return "elementwise";
    case Op::tp_allreduce:
      return "tp_allreduce";
    case Op::ep_alltoall:
      return "ep_alltoall";
    case Op::pp_send:
      return "pp_send";
    case Op::lookup_memory:
      return "lookup_memory";
    case Op::lm_head:
      return "lm_head";
    case Op::mtp_draft:
      return "mtp_draft";
    case Op::overlap:
      return "overlap";
    case Op::step_overhead:
      return "step_overhead";
    case Op::launch_wait:
      return "launch_wait";
    case Op::count_:
      break;
  }
  return "?";
}

StepTimeModel::StepTimeModel(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                             const calibration::Profile& profile)
    : model_(model),
      deployment_(deployment),
      profile_(profile),
      rates_(deployment.hardware, profile),
      params_(count_parameters(model)) {
  if (model.moe) experts_ = place_experts(*model.moe, deployment.moe_load, deployment.replica.ep);
  expert_inputs_ = expert_gemm_inputs(model.precision);
  step_overhead_s_ =
      deployment.scheduler.step_overhead_s >= 0.0 ? deployment.scheduler.step_overhead_s : profile.step_overhead_s;
  decode_overhead_share_ = deployment.scheduler.decode_overhead_share();
  sequence_overhead_s_ = profile.sequence_overhead_s;
  prompt_slowdown_ = profile.prompt_slowdown_for(calibration::architecture_of(model));
  backbone_ = {static_cast<double>(model.num_layers),
               static_cast<double>(model.moe_layers()),
               static_cast<double>(model.dense_layers),
               model.attention.type == specs::AttentionType::csa ? 0.0 : model.attention.sliding_window_layers,
               static_cast<double>(model.linear_attention_layers()),
               static_cast<double>(model.attention_free_layers)};
  // As count_parameters() builds an MTP module: MoE when the model has experts, else its dense FFN; its
  // attention is the softmax kind.
  mtp_layer_ = {1.0, model.moe ? 1.0 : 0.0, model.moe ? 0.0 : 1.0, 0.0, 0.0, 0.0};
}

double StepTimeModel::roofline_s(const OpCost& c, double peak_flops, double bytes_per_s, int kernels) const {
  if (c.flops() <= 0.0 && c.bytes <= 0.0) return 0.0;
  const double compute = c.flops() / peak_flops;
  const double memory = c.bytes / bytes_per_s;
  return std::max(compute, memory) + kernels * profile_.op_latency_s;
}

void StepTimeModel::cost_token_gemm(OpCost& op, double params, specs::Precision weights,
                                    double activation_bytes_per_token, double prefill_tokens, double decode_tokens,
                                    int kernels) const {
  op.flops_prefill = 2.0 * prefill_tokens * params;
  op.flops_decode = 2.0 * decode_tokens * params;
  op.bytes = params * specs::bytes_per_element(weights) + (prefill_tokens + decode_tokens) * activation_bytes_per_token;
  op.time_s = roofline_s(op, rates_.gemm_flops(weights, gemm_inputs(weights)), rates_.hbm_bytes_per_s(), kernels);
  op.kernels = kernels;
  op.prefill_share = share(prefill_tokens, decode_tokens);
}

// Ring collective: each GPU moves 2 (n - 1) / n of the buffer for an all-reduce.
double StepTimeModel::collective_s(double bytes_moved, double bytes_per_s, int calls) const {
  if (calls == 0) return 0.0;
  return bytes_moved / bytes_per_s + calls * profile_.collective_latency_s;
}

namespace {

bool is_communication(Op op) { return op == Op::tp_allreduce || op == Op::ep_alltoall || op == Op::pp_send; }

// Each op's prompt tokens' share of its time taken `slowdown` times (Profile::prompt_slowdown); its decodes' as is.
void slow_prompts(StepTime& st, double slowdown) {
  if (slowdown == 1.0) return;
  for (OpCost& c : st.ops) {
    const double prompt_s = c.time_s * c.prefill_share * slowdown;
    c.time_s = c.time_s * (1.0 - c.prefill_share) + prompt_s;
    c.prefill_share = c.time_s > 0.0 ? prompt_s / c.time_s : 0.0;
  }
}

void add_totals(StepTime& st) {
  st.total_s = st.prefill_s = 0.0;
  for (const OpCost& c : st.ops) {
    st.total_s += c.time_s;
    st.prefill_s += c.time_s * c.prefill_share;
  }
  st.decode_s = st.total_s - st.prefill_s;
}

// A batch cut in two micro-batches of about half the tokens each: decodes alternate, and every prefill chunk
// is cut in two consecutive pieces (the second after the first's KV).
std::pair<BatchShape, BatchShape> halves(const BatchShape& b) {
  std::pair<BatchShape, BatchShape> h;
  h.first.draft_tokens = h.second.draft_tokens = b.draft_tokens;
  for (std::size_t i = 0; i < b.decode_contexts.size(); ++i) {
    (i % 2 == 0 ? h.first : h.second).decode_contexts.push_back(b.decode_contexts[i]);
  }
  for (const PrefillChunk& c : b.prefill) {
    const int first = (c.tokens + 1) / 2;
    h.first.prefill.push_back({first, c.context_before, c.completes_prompt && first == c.tokens});
    if (c.tokens > first) h.second.prefill.push_back({c.tokens - first, c.context_before + first, c.completes_prompt});
  }
  return h;
}

}  // namespace

StepTime StepTimeModel::predict(const BatchShape& b) const {
  const int dp = deployment_.replica.dp;
  if (dp == 1) return predict_ranks(std::span<const BatchShape>(&b, 1));
  const std::vector<BatchShape> ranks(static_cast<std::size_t>(dp), b);
  return predict_ranks(ranks);
}

StepTime StepTimeModel::predict_ranks(std::span<const BatchShape> ranks) const {
  const bool any = std::any_of(ranks.begin(), ranks.end(), [](const BatchShape& r) { return !r.empty(); });
  if (!any) return {};
  return deployment_.two_batch_overlap ? predict_overlapped(ranks) : predict_lockstep(ranks);
}

void StepTimeModel::cost_rank(const BatchShape& b, const MoeTokens& moe, const MoeTokens& draft_moe,
                              StepTime& st) const {
  cost_embedding(b, st);
  cost_layers(b, backbone_, moe, st);
  cost_pipeline(b, st);
  cost_head(b, st);
  cost_draft(b, draft_moe, st);
}

StepTime StepTimeModel::predict_lockstep(std::span<const BatchShape> ranks) const {
  MoeTokens moe, draft_moe;
  for (const BatchShape& r : ranks) {
    moe.prefill += r.prefill_tokens();
    moe.decode += r.decode_tokens();
    draft_moe.decode += r.num_decode();
  }
  // Every MoE layer waits for all ranks: the step is the busiest rank's.
  StepTime busiest;
  double longest = -1.0;
  for (const BatchShape& r : ranks) {
    StepTime st;
    cost_rank(r, moe, draft_moe, st);
    slow_prompts(st, prompt_slowdown_);
    add_totals(st);
    if (st.total_s > longest) {
      longest = st.total_s;
      busiest = st;
    }
  }
  OpCost& overhead = busiest.ops[static_cast<int>(Op::step_overhead)];
  // A decode-only step may pay less host overhead (TensorRT-LLM's CUDA-graph decode: SchedulerSpec).
  overhead.time_s = moe.prefill == 0.0 ? step_overhead_s_ * decode_overhead_share_ : step_overhead_s_;
  // Host work per sequence: each DP rank schedules and samples its own batch at once, so the largest counts.
  std::size_t sequences = 0;
  for (const BatchShape& r : ranks) sequences = std::max(sequences, r.decode_contexts.size() + r.prefill.size());
  overhead.time_s += sequence_overhead_s_ * static_cast<double>(sequences);
  overhead.prefill_share = share(moe.prefill, moe.decode);
  // An engine that runs a prompt's iteration eagerly (outside CUDA graphs: TensorRT-LLM's and SGLang's context
  // batches) launches its kernels one by one from the host while the GPU runs them; where launching takes longer than
  // the GPU's work, the GPU waits for it (Profile::eager_launch_s; 0: every step runs as a graph).
  if (moe.prefill > 0.0 && profile_.eager_launch_s > 0.0) {
    double kernels = 0.0, gpu_s = 0.0;
    for (int i = 0; i < kNumOps; ++i) {
      const auto op = static_cast<Op>(i);
      if (op == Op::step_overhead || op == Op::launch_wait) continue;
      kernels += busiest.ops[i].kernels;
      gpu_s += busiest.ops[i].time_s;
    }
    OpCost& wait = busiest.ops[static_cast<int>(Op::launch_wait)];
    wait.time_s = std::max(0.0, kernels * profile_.eager_launch_s - gpu_s);
    wait.prefill_share = 1.0;
  }
  add_totals(busiest);
  return busiest;
}

// Two micro-batches each run every layer; while one computes, the other's all-reduce or EP exchange is in
// flight. Over L layers that hides all of the smaller of compute C and communication M but the first
// micro-batch's first layer: T = max(C, M) + min(C, M) / (2 L). Both micro-batches read the weights and the
// experts they touch, which is what overlap costs a small decode batch.
StepTime StepTimeModel::predict_overlapped(std::span<const BatchShape> ranks) const {
  std::vector<BatchShape> first, second;
  for (const BatchShape& r : ranks) {
    auto [a, b] = halves(r);
    first.push_back(std::move(a));
    second.push_back(std::move(b));
  }
  const bool split = std::any_of(second.begin(), second.end(), [](const BatchShape& r) { return !r.empty(); });
  if (!split) return predict_lockstep(ranks);  // a single token cannot be cut in two
  const StepTime a = predict_lockstep(first), b = predict_lockstep(second);
  StepTime st;
  double compute = 0.0, communication = 0.0;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<Op>(i);
    if (op == Op::step_overhead) continue;
    const OpCost &x = a.ops[i], &y = b.ops[i];
    OpCost& c = st.ops[i];
    c.flops_prefill = x.flops_prefill + y.flops_prefill;
    c.flops_decode = x.flops_decode + y.flops_decode;
    c.bytes = x.bytes + y.bytes;
    c.time_s = x.time_s + y.time_s;
    c.kernels = x.kernels + y.kernels;
    c.prefill_share = c.time_s > 0.0 ? (x.time_s * x.prefill_share + y.time_s * y.prefill_share) / c.time_s : 0.0;
    (is_communication(op) ? communication : compute) += c.time_s;
  }
  const double overlapped = std::max(compute, communication) + std::min(compute, communication) / (2.0 * backbone_.all);
  OpCost& hidden = st.ops[static_cast<int>(Op::overlap)];
  hidden.time_s = overlapped - (compute + communication);
  hidden.prefill_share = share(a.prefill_s + b.prefill_s, a.decode_s + b.decode_s);
  st.ops[static_cast<int>(Op::step_overhead)] = a.op(Op::step_overhead);
  add_totals(st);
  return st;
}

void StepTimeModel::cost_layers(const BatchShape& b, const Layers& l, const MoeTokens& moe, StepTime& st) const {
  cost_projections(b, l, st);
  cost_attention(b, l, st);
  cost_linear_attention(b, l, st);
  cost_ffn(b, l, moe, st);
  cost_allreduce(b, l, st);
  cost_alltoall(b, l, moe, st);
  predict_layers(b, l, moe, st);
}

void StepTimeModel::cost_projections(const BatchShape& b, const Layers& l, StepTime& st) const {
  const int tp = deployment_.replica.tp;
  const double abytes = specs::bytes_per_element(model_.precision.activations);
  const double pre = b.prefill_tokens(), dec = b.decode_tokens();
  const double h = model_.hidden_size;
  const int layers = static_cast<int>(l.all);
  const int mixers = static_cast<int>(l.mixers());

  // Q, K/V (or latent) and output projections: hidden states in and out of four GEMMs. Linear-attention layers
  // have their own (qkvz, ba, out); attention-free layers none.
  const double params = l.softmax() * params_.attention_per_layer + l.linear * params_.linear_attention_per_layer;
  cost_token_gemm(st.ops[static_cast<int>(Op::attn_proj)], params / tp, model_.precision.weights,
                  4.0 * h * abytes / tp * l.mixers(), pre, dec, 4 * mixers);

  // Norms, residual adds, RoPE and activations: about eight reads or writes of the hidden state per layer.
  OpCost& ew = st.ops[static_cast<int>(Op::elementwise)];
  ew.flops_prefill = 10.0 * pre * h * l.all;
  ew.flops_decode = 10.0 * dec * h * l.all;
  ew.bytes = 8.0 * (pre + dec) * h * abytes * l.all;
  ew.time_s = roofline_s(ew, rates_.vector_flops(), rates_.hbm_bytes_per_s(), 3 * layers);
  ew.kernels = 3 * layers;
  ew.prefill_share = share(pre, dec);
}

void StepTimeModel::cost_embedding(const BatchShape& b, StepTime& st) const {
  const RateTable& rates = rates_;
  const int tp = deployment_.replica.tp;
  const double wbytes = specs::bytes_per_element(model_.precision.weights);
  const double pre = b.prefill_tokens(), dec = b.decode_tokens(), tokens = pre + dec;

  OpCost& emb = st.ops[static_cast<int>(Op::embedding)];
  emb.bytes = tokens * model_.hidden_size * wbytes;  // a gather of one row per token
  emb.time_s = emb.bytes / rates.hbm_bytes_per_s() + profile_.op_latency_s;
  emb.kernels = 1;
  emb.prefill_share = share(pre, dec);

  if (model_.lookup_memory) {
    const auto& lm = *model_.lookup_memory;
    OpCost& look = st.ops[static_cast<int>(Op::lookup_memory)];
    look.prefill_share = share(pre, dec);
    look.bytes = tokens * lm.lookup_layers * static_cast<double>(lm.row_bytes) / tp;
    const double bw = lm.in_host_memory ? rates.host_link_bytes_per_s() : rates.hbm_bytes_per_s();
    look.time_s = look.bytes / bw + lm.lookup_layers * profile_.op_latency_s;
    look.kernels = lm.lookup_layers;
  }
}

void StepTimeModel::cost_head(const BatchShape& b, StepTime& st) const {
  const RateTable& rates = rates_;
  const int tp = deployment_.replica.tp;
  double sampling_prefill = 0.0;
  for (const auto& c : b.prefill) sampling_prefill += c.completes_prompt ? 1.0 : 0.0;
  // Verification needs logits at the last token and at every draft: 1 + drafts rows per decoding sequence.
  const double sampling_decode = b.decode_tokens();
  if (sampling_prefill + sampling_decode == 0.0) return;  // no token samples: the head does not run
  // Checkpoints keep the LM head in 16-bit even when the layers are FP8 or FP4; a model run in fp32 (the CPU
  // engine's model steps, docs/CALIBRATION.md) keeps an fp32 head.
  const specs::Precision head_precision =
      model_.precision.weights == specs::Precision::fp32 ? specs::Precision::fp32 : specs::Precision::bf16;
  const double params = static_cast<double>(model_.vocab_size) * model_.hidden_size / tp;
  OpCost& head = st.ops[static_cast<int>(Op::lm_head)];
  head.flops_prefill = 2.0 * sampling_prefill * params;
  head.flops_decode = 2.0 * sampling_decode * params;
  head.bytes = params * specs::bytes_per_element(head_precision) +
               (sampling_prefill + sampling_decode) * model_.vocab_size / tp * 4.0;  // fp32 logits
  head.time_s = roofline_s(head, rates.matmul_flops(head_precision), rates.hbm_bytes_per_s(), 2);
  head.kernels = 2;
  head.prefill_share = share(sampling_prefill, sampling_decode);
  predict_head(sampling_prefill + sampling_decode, head_precision, st);
}

}  // namespace fleetcast::simulator
