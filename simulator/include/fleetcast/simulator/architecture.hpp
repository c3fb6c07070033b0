#pragma once
// Parameter and KV-cache counts derived from a model spec: the hand-countable facts the step-time and
// memory models are built on. Counts are for the whole model (not sharded).

#include "fleetcast/specs/model.hpp"

namespace fleetcast::simulator {

struct ParameterCounts {
  double attention_per_layer = 0.0;         // a softmax-attention layer's projections (and a sparse indexer's)
  double linear_attention_per_layer = 0.0;  // a linear-attention layer's projections and short convolution
  double router_per_moe_layer = 0.0;
  double routed_expert = 0.0;  // one routed expert (gate, up, down)
  double shared_experts_per_moe_layer = 0.0;
  double latent_projections_per_moe_layer = 0.0;  // a latent MoE's hidden -> latent and latent -> hidden (16-bit)
  double dense_ffn_per_layer = 0.0;
  double embedding = 0.0;
  double lm_head = 0.0;  // 0 when tied to the embedding
  double mtp = 0.0;      // all MTP draft layers
  double lookup_memory = 0.0;
  int layers = 0, moe_layers = 0, dense_layers = 0, routed_experts = 0, top_k = 0;
  int linear_layers = 0;          // of `layers`, those with linear attention
  int attention_free_layers = 0;  // of `layers`, those without any attention

  int softmax_layers() const { return layers - linear_layers - attention_free_layers; }
  double attention_all_layers() const;  // the attention (softmax and linear) projections of every layer

  double total() const;             // every parameter, the lookup memory included
  double active_per_token() const;  // what one token's forward pass multiplies by (embedding and lookup excluded)
};

ParameterCounts count_parameters(const specs::ModelSpec& m);

// Per-layer dims the attention kernel works with.
struct AttentionDims {
  double qk_dim = 0.0;  // per head, the width of a query-key dot product
  double v_dim = 0.0;   // per head, the width of a value
  // KV bytes stored per token per layer for a softmax layer (mla: latent + rope; csa: the KV width)
  double kv_bytes_per_token_per_layer = 0.0;
  // The same for the full (global) layers of a gqa model whose global layers have their own shape (Gemma 4); the
  // fields above are then the sliding layers'. Equal to them otherwise.
  double full_qk_dim = 0.0, full_v_dim = 0.0, full_kv_bytes_per_token_per_layer = 0.0;
  // A sparse attention's indexer keys per token per layer, cached beside the KV (mla under DeepSeek Sparse
  // Attention: one FP8 key with its scales; gqa under MiniMax Sparse Attention: one key in the KV cache's format)
  double indexer_key_bytes_per_token_per_layer = 0.0;
};
// `decode`: MLA decode runs in the absorbed form over the latent (qk = kv_lora + rope, v = kv_lora); so does
// sparse MLA's prefill (the sparse kernels gather latents, never up-projected keys).
AttentionDims attention_dims(const specs::ModelSpec& m, bool decode);

// KV bytes one sequence holds at `context_tokens`, over all layers, whole model (not sharded): full layers
// grow with the context, sliding-window layers stop at the window, csa stores global_kv_bytes_per_token per
// token plus the window of each layer, and linear-attention layers hold their state from the first token on.
double kv_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens);
// Its softmax-attention part (all of it for a model without linear attention).
double softmax_kv_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens);
// The linear-attention layers' state of one sequence, whole model: the recurrent state (value heads x key dim x
// value dim in the state format) plus the short convolution's last conv_kernel - 1 inputs of q, k and v.
double linear_state_bytes(const specs::ModelSpec& m);
// The per-token slope of kv_bytes_for_sequence for long contexts (what REFERENCE.md tables list).
double kv_bytes_per_token(const specs::ModelSpec& m);
// The layers that cache indexer keys: every full-attention layer of a DeepSeek Sparse Attention model, the
// sparse_layers of a MiniMax Sparse Attention one, none otherwise (csa counts its indexer in its global cache).
int indexed_layers(const specs::ModelSpec& m);
// Of softmax_kv_bytes_for_sequence, the indexer keys (held whole by every TP rank, unlike GQA's KV heads).
double indexer_key_bytes_for_sequence(const specs::ModelSpec& m, double context_tokens);

}  // namespace fleetcast::simulator
