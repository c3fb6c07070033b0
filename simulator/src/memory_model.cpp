#include "fleetcast/simulator/memory_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/sglang_memory.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {
namespace {

constexpr double kSglangContextBytes = 1.0e9;  // CUDA context and NCCL communicators before SGLang measures memory

// Share of the model's KV that one GPU holds: GQA KV heads are split over TP ranks (replicated when there
// are fewer heads than ranks); a latent or compressed KV is held whole by every rank. Layers split over PP.
// `global_layers`: the share of the full layers of a model whose global layers have KV heads of their own (Gemma 4).
double kv_share_per_gpu(const specs::ModelSpec& m, const specs::ReplicaLayout& layout, bool global_layers = false) {
  double share = 1.0 / layout.pp;
  if (m.attention.type == specs::AttentionType::gqa) {
    const double kv_heads = global_layers ? m.attention.full_kv_heads() : m.attention.num_kv_heads;
    share *= std::ceil(kv_heads / layout.tp) / kv_heads;
  }
  return share;
}

// Share of the linear-attention state one GPU holds: its value heads split over TP ranks, its layers over PP.
double linear_state_share_per_gpu(const specs::ModelSpec& m, const specs::ReplicaLayout& layout) {
  if (!m.linear_attention) return 0.0;
  const double heads = m.linear_attention->num_value_heads;
  return std::ceil(heads / layout.tp) / heads / layout.pp;
}

}  // namespace

double kv_bytes_per_gpu(const specs::ModelSpec& model, const specs::DeploymentSpec& d, double context_tokens) {
  const double block = d.scheduler.kv_block_tokens;
  const double rounded = std::ceil(context_tokens / block) * block;
  const double state = rounded > 0.0 ? linear_state_bytes(model) : 0.0;
  // A sparse attention's indexer key is one head, held whole by every TP rank as a latent is.
  const double indexer = indexer_key_bytes_for_sequence(model, rounded);
  const double state_per_gpu = state * linear_state_share_per_gpu(model, d.replica);
  const auto& a = model.attention;
  if (a.type == specs::AttentionType::gqa && a.has_global_shape()) {
    // The sliding layers' window at their KV heads, the global layers' whole context at theirs.
    const AttentionDims dims = attention_dims(model, true);
    const double sliding = a.sliding_window_layers * std::min<double>(rounded, a.sliding_window_tokens) *
                           dims.kv_bytes_per_token_per_layer;
    const double global = softmax_kv_bytes_for_sequence(model, rounded) - sliding;
    return sliding * kv_share_per_gpu(model, d.replica) + global * kv_share_per_gpu(model, d.replica, true) +
           state_per_gpu;
  }
  return (softmax_kv_bytes_for_sequence(model, rounded) - indexer) * kv_share_per_gpu(model, d.replica) +
         indexer / d.replica.pp + state_per_gpu;
}

MemoryPlan plan_memory(const specs::ModelSpec& m, const specs::DeploymentSpec& d) {
  const ParameterCounts p = count_parameters(m);
  const auto& layout = d.replica;
  const double wbytes = specs::bytes_per_element(m.precision.weights);
  const double ebytes = specs::bytes_per_element(m.precision.experts);
  const double abytes = specs::bytes_per_element(m.precision.activations);
  const double head_bytes = 2.0;  // embedding and LM head stay 16-bit in FP8/FP4 checkpoints

  MemoryPlan plan;
  plan.hbm_bytes = d.hardware.hbm_bytes();
  // TensorRT-LLM sizes its KV cache as a share of the memory still free after loading the model and a dummy step
  // (kv_cache_config.free_gpu_memory_fraction); vLLM caps its whole footprint at a share of the device memory, SGLang
  // its weights and KV cache (below).
  const double free_fraction = d.scheduler.kv_free_memory_fraction();
  const double fraction = memory_fraction(d);
  plan.budget_bytes = plan.hbm_bytes * (free_fraction > 0.0 ? 1.0 : fraction);

  // Per layer on one GPU: attention, dense and shared-expert weights split tp ways (every attention-DP rank
  // holds a copy); routed experts split ep x moe_tp = dp x tp ways.
  const double layers_per_stage = std::ceil(static_cast<double>(m.num_layers) / layout.pp);
  const double moe_share = static_cast<double>(m.moe_layers()) / m.num_layers;
  const double dense_share = static_cast<double>(m.dense_layers) / m.num_layers;  // the rest may have no FFN
  const double per_layer_tp =
      p.attention_all_layers() / p.layers * wbytes +
      moe_share * (p.router_per_moe_layer * head_bytes +
                   (p.shared_experts_per_moe_layer + p.latent_projections_per_moe_layer) * wbytes) +
      dense_share * p.dense_ffn_per_layer * wbytes;
  const double per_layer_experts =
      moe_share * (p.routed_experts + d.moe_load.redundant_experts) * p.routed_expert * ebytes;
  // The embedding sits on the first stage, the LM head and MTP layers on the last: with one stage both.
  const double vocab = (p.embedding + p.lm_head) * head_bytes;
  const double ends = layout.pp == 1 ? vocab + p.mtp * ebytes : std::max(p.embedding, p.lm_head) * head_bytes;
  const double lookup =
      (m.lookup_memory && !m.lookup_memory->in_host_memory) ? p.lookup_memory * wbytes / layout.gpus() : 0.0;
  plan.weight_bytes = (layers_per_stage * per_layer_tp + ends) / layout.tp +
                      layers_per_stage * per_layer_experts / layout.stage_gpus() + lookup;

  // vLLM sizes activations by a dummy forward pass of a full token budget: hidden states, the widest FFN
  // intermediate and the attention buffers of max_num_batched_tokens, plus FP32 logits of max_num_seqs.
  const double tokens = d.scheduler.max_num_batched_tokens;
  const double ffn_width = std::max<double>(m.dense_ffn_width, m.moe ? m.moe->expert_width * m.moe->top_k : 0.0);
  plan.activation_bytes = tokens *
                              (4.0 * m.hidden_size + 2.0 * ffn_width / layout.tp +
                               2.0 * m.attention.num_query_heads * std::max(m.attention.head_dim, 192) / layout.tp) *
                              abytes +
                          static_cast<double>(d.scheduler.max_num_seqs) * m.vocab_size / layout.tp * 4.0;
  // CUDA context (~0.5 GB), NCCL buffers and CUDA graphs: vLLM reports 1-3 GB of non-torch memory.
  plan.runtime_reserve_bytes = 2.0e9;
  if (d.scheduler.policy == specs::SchedulerPolicy::sglang && free_fraction <= 0.0) {
    // SGLang (ModelRunner.profile_max_num_token): KV = free memory after loading the weights less (1 - fraction) x
    // the free memory before them, i.e. fraction x (memory - CUDA context) - weights; activations and CUDA graphs
    // live in the rest, which its default fraction sizes for them. The context, taken as 1 GB, is what the
    // fraction does not see.
    plan.activation_bytes = 0.0;
    plan.runtime_reserve_bytes = fraction * kSglangContextBytes;
  }

  plan.kv_bytes = plan.budget_bytes - plan.weight_bytes - plan.activation_bytes - plan.runtime_reserve_bytes;
  if (free_fraction > 0.0) plan.kv_bytes *= free_fraction;
  const double indexer_per_token = indexer_key_bytes_for_sequence(m, 1.0);  // whole on every TP rank
  plan.kv_bytes_per_token =
      (kv_bytes_per_token(m) - indexer_per_token) * kv_share_per_gpu(m, layout) + indexer_per_token / layout.pp;
  plan.kv_capacity_tokens = plan.kv_bytes > 0.0 ? plan.kv_bytes / plan.kv_bytes_per_token : 0.0;
  return plan;
}

void require_fits(const MemoryPlan& plan, const specs::ModelSpec& model, const specs::DeploymentSpec& d,
                  const std::string& file) {
  if (plan.fits()) return;
  std::ostringstream msg;
  msg.precision(3);
  msg << model.name << " does not fit: per GPU its weights take " << plan.weight_bytes / 1e9 << " GB and "
      << "activations and runtime " << (plan.activation_bytes + plan.runtime_reserve_bytes) / 1e9 << " GB of the "
      << plan.budget_bytes / 1e9 << " GB budget (" << d.hardware.name << " " << plan.hbm_bytes / 1e9 << " GB";
  if (d.scheduler.kv_free_memory_fraction() <= 0.0) msg << " x gpu_memory_utilization " << memory_fraction(d);
  msg << "); use more GPUs per replica (tp, pp) or lower precision";
  const auto& r = d.replica;
  throw InputError(file, "deployment.replica",
                   "{\"tp\": " + std::to_string(r.tp) + ", \"pp\": " + std::to_string(r.pp) +
                       ", \"ep\": " + std::to_string(r.ep) + ", \"dp\": " + std::to_string(r.dp) + "}",
                   msg.str());
}

}  // namespace fleetcast::simulator
