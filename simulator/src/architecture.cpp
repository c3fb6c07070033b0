#include "fleetcast/simulator/architecture.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {
namespace {

// Gate, up and down (SwiGLU, GeGLU), or up and down (squared ReLU).
double ffn_params(const specs::ModelSpec& m, double input, double width) { return m.ffn_matrices() * input * width; }

double attention_projection_params(const specs::ModelSpec& m) {
  const auto& a = m.attention;
  const double h = m.hidden_size;
  const double nq = a.num_query_heads;
  if (a.type == specs::AttentionType::gqa) {
    // MiniMax Sparse Attention's indexer (a query per indexer head, one key shared by them) on its sparse layers,
    // spread over all softmax layers so that layers x this is the model's whole count; so are the global layers'
    // own shapes (Gemma 4).
    const double softmax_layers = m.softmax_attention_layers();
    const double indexer =
        a.sparse() ? h * (a.indexer_heads + 1.0) * a.indexer_head_dim * a.sparse_layers / softmax_layers : 0.0;
    const double sliding = a.sliding_window_layers, base = a.gqa_projection_parameters(h, false);
    if (!a.has_global_shape() || softmax_layers <= 0.0) return base + indexer;
    return (sliding * base + (softmax_layers - sliding) * a.gqa_projection_parameters(h, true)) / softmax_layers +
           indexer;
  }
  const double q_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * nq * q_head : h * nq * q_head;
  // DeepSeek-V4's grouped output LoRA: each of G groups maps its heads' outputs (nq x v / G) to r, then G x r
  // to hidden: nq x v x r + G x r x hidden in all.
  const double out =
      a.o_lora_rank > 0 ? nq * a.v_head_dim * a.o_lora_rank + a.o_groups * a.o_lora_rank * h : nq * a.v_head_dim * h;
  const double gate = a.output_gate ? h * nq * a.v_head_dim : 0.0;  // Kimi-K3's g_proj
  // The lightning indexer (csa, sparse mla): its query from the q LoRA, one key and one weight per head.
  const double q_in = a.q_lora_rank > 0 ? a.q_lora_rank : h;
  const double indexer =
      a.sparse() ? q_in * a.indexer_heads * a.indexer_head_dim + h * a.indexer_head_dim + h * a.indexer_heads : 0.0;
  if (a.type == specs::AttentionType::mla) {
    const double kv_a = h * (a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_b = a.kv_lora_rank * nq * (a.qk_nope_head_dim + a.v_head_dim);
    return q + kv_a + kv_b + out + indexer + gate;
  }
  // csa: one shared KV of kv_lora_rank per token used as key and value.
  const double kv = h * a.kv_lora_rank;
  return q + kv + out + indexer;
}

}  // namespace

double ParameterCounts::attention_all_layers() const {
  return softmax_layers() * attention_per_layer + linear_layers * linear_attention_per_layer;
}

double ParameterCounts::total() const {
  return attention_all_layers() +
         moe_layers * (router_per_moe_layer + routed_experts * routed_expert + shared_experts_per_moe_layer +
                       latent_projections_per_moe_layer) +
         dense_layers * dense_ffn_per_layer + embedding + lm_head + mtp + lookup_memory;
}

double ParameterCounts::active_per_token() const {
  const double head = lm_head > 0.0 ? lm_head : embedding;  // a tied head still multiplies by the table
  return attention_all_layers() +
         moe_layers * (router_per_moe_layer + top_k * routed_expert + shared_experts_per_moe_layer +
                       latent_projections_per_moe_layer) +
         dense_layers * dense_ffn_per_layer + head;
}

ParameterCounts count_parameters(const specs::ModelSpec& m) {
  ParameterCounts c;
  const double h = m.hidden_size;
  c.layers = m.num_layers;
  c.moe_layers = m.moe_layers();
  c.dense_layers = m.dense_layers;
  c.attention_free_layers = m.attention_free_layers;
  c.routed_experts = m.moe ? m.moe->num_routed_experts : 0;
  c.top_k = m.moe ? m.moe->top_k : 0;
  c.attention_per_layer = attention_projection_params(m);
  c.linear_layers = m.linear_attention_layers();
  c.linear_attention_per_layer = m.linear_attention ? m.linear_attention->parameters(h) : 0.0;
  if (m.moe) {
    const auto& e = *m.moe;
    c.router_per_moe_layer = h * e.num_routed_experts;
    // A latent MoE's experts take latent_width inputs; its down and up projections serve every token.
    c.routed_expert = ffn_params(m, e.expert_input_width(m.hidden_size), e.expert_width);
    c.latent_projections_per_moe_layer = e.latent_width > 0 ? 2.0 * h * e.latent_width : 0.0;
    const double shared_width = e.shared_expert_width > 0 ? e.shared_expert_width : e.expert_width;
    c.shared_experts_per_moe_layer = e.num_shared_experts * ffn_params(m, h, shared_width);
  }
  c.dense_ffn_per_layer = ffn_params(m, h, m.dense_ffn_width);
  c.embedding = static_cast<double>(m.vocab_size) * h;
  c.lm_head = m.tie_word_embeddings ? 0.0 : static_cast<double>(m.vocab_size) * h;
  // A DeepSeek MTP module: a projection of [hidden; embedding] back to hidden plus one transformer layer
  // (MoE when the model is), sharing the embedding and LM head with the main model.
  if (m.mtp_layers > 0) {
    const double ffn = m.moe ? c.router_per_moe_layer + m.moe->num_routed_experts * c.routed_expert +
                                   c.shared_experts_per_moe_layer + c.latent_projections_per_moe_layer
                             : c.dense_ffn_per_layer;
    c.mtp = m.mtp_layers * (2.0 * h * h + c.attention_per_layer + ffn);
  }
  if (m.lookup_memory) c.lookup_memory = m.lookup_memory->parameters;
  return c;
}

AttentionDims attention_dims(const specs::ModelSpec& m, bool decode) {
  const auto& a = m.attention;
  AttentionDims d;
  const double kv_bytes = specs::bytes_per_element(m.precision.kv_cache);
  switch (a.type) {
    case specs::AttentionType::gqa:
      d.qk_dim = a.head_dim;
      d.v_dim = a.head_dim;
      d.kv_bytes_per_token_per_layer = 2.0 * a.num_kv_heads * a.head_dim * kv_bytes;
      d.full_qk_dim = d.full_v_dim = a.full_head_dim();
      d.full_kv_bytes_per_token_per_layer =
          (a.global_k_is_v ? 1.0 : 2.0) * a.full_kv_heads() * a.full_head_dim() * kv_bytes;
      // MiniMax Sparse Attention: one indexer key shared by the indexer heads, cached in the KV cache's format.
      if (a.sparse()) d.indexer_key_bytes_per_token_per_layer = a.indexer_head_dim * kv_bytes;
      break;
    case specs::AttentionType::mla: {
      const bool absorbed = decode || a.sparse();
      d.qk_dim = absorbed ? a.kv_lora_rank + a.qk_rope_head_dim : a.qk_nope_head_dim + a.qk_rope_head_dim;
      d.v_dim = absorbed ? a.kv_lora_rank : a.v_head_dim;
      d.kv_bytes_per_token_per_layer = (a.kv_lora_rank + a.qk_rope_head_dim) * kv_bytes;
      // DeepSeek-V3.2's indexer cache: FP8 keys with one 4-byte scale per 128 values (132 B at 128 wide).
      if (a.sparse())
        d.indexer_key_bytes_per_token_per_layer = a.indexer_head_dim + 4.0 * std::ceil(a.indexer_head_dim / 128.0);
      break;
    }
    case specs::AttentionType::csa:
      d.qk_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
      d.v_dim = a.v_head_dim;
      d.kv_bytes_per_token_per_layer = a.kv_lora_rank * kv_bytes;
      break;
  }
  if (a.type != specs::AttentionType::gqa) {  // one shape for every softmax layer
    d.full_qk_dim = d.qk_dim;
    d.full_v_dim = d.v_dim;
    d.full_kv_bytes_per_token_per_layer = d.kv_bytes_per_token_per_layer;
  }
  return d;
}

double linear_state_bytes(const specs::ModelSpec& m) {
  if (!m.linear_attention) return 0.0;
  const auto& l = *m.linear_attention;
  const double recurrent = l.value_width() * l.key_head_dim * specs::bytes_per_element(l.state);
  const double conv =
      l.conv_channels() * std::max(0, l.conv_kernel - 1) * specs::bytes_per_element(m.precision.activations);
  return l.layers * (recurrent + conv);
}

int indexed_layers(const specs::ModelSpec& m) {
  const auto& a = m.attention;
  if (!a.sparse() || a.type == specs::AttentionType::csa) return 0;
  if (a.type == specs::AttentionType::gqa) return a.sparse_layers;
  return m.softmax_attention_layers() - a.sliding_window_layers;
}

double indexer_key_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens) {
  return context_tokens * indexed_layers(m) * attention_dims(m, true).indexer_key_bytes_per_token_per_layer;
}

double softmax_kv_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens) {
  const auto& a = m.attention;
  const AttentionDims dims = attention_dims(m, true);
  const double per_layer = dims.kv_bytes_per_token_per_layer + dims.indexer_key_bytes_per_token_per_layer;
  const int sliding = a.sliding_window_layers;
  // Chunked windows too: up to a chunk per layer, as an engine that keeps the finished chunk's blocks until the
  // sequence ends holds it (the upper bound, also for one that frees them).
  const double window = std::min<double>(context_tokens, a.sliding_window_tokens);
  if (a.type == specs::AttentionType::csa) {
    return a.global_kv_bytes_per_token * context_tokens + sliding * window * per_layer;
  }
  const int full = m.softmax_attention_layers() - sliding;
  return context_tokens * (full * dims.full_kv_bytes_per_token_per_layer +
                           indexed_layers(m) * dims.indexer_key_bytes_per_token_per_layer) +
         sliding * window * per_layer;
}

double kv_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens) {
  return softmax_kv_bytes_for_sequence(m, context_tokens) + (context_tokens > 0.0 ? linear_state_bytes(m) : 0.0);
}

double kv_bytes_per_token(const specs::ModelSpec& m) {
  const auto& a = m.attention;
  if (a.type == specs::AttentionType::csa) return a.global_kv_bytes_per_token;
  const AttentionDims dims = attention_dims(m, true);
  return (m.softmax_attention_layers() - a.sliding_window_layers) * dims.full_kv_bytes_per_token_per_layer +
         indexed_layers(m) * dims.indexer_key_bytes_per_token_per_layer;
}

}  // namespace fleetcast::simulator
