#pragma once
// Model architecture: what a forward pass of one token costs in FLOPs and bytes.
// Field names follow the published config.json files where one exists.

#include <map>
#include <optional>
#include <string>

#include "fleetcast/specs/precision.hpp"

namespace fleetcast::specs {

enum class AttentionType {
  gqa,  // grouped-query (MHA when kv heads == query heads): K and V per KV head; with sparse_top_k_tokens > 0
        // MiniMax Sparse Attention (MiniMax-M3): on sparse_layers an indexer picks the key blocks each query attends
  mla,  // DeepSeek multi-head latent attention: one compressed latent + rope key per token; with
        // sparse_top_k_tokens > 0 DeepSeek Sparse Attention (V3.2, GLM-5): an indexer picks the keys
  csa,  // DeepSeek V4 compressed sparse attention: compressed global KV plus a sliding window,
        // each query attends to at most top_k selected + window tokens
};

struct AttentionSpec {
  AttentionType type = AttentionType::gqa;
  int num_query_heads = 0;
  // gqa
  int num_kv_heads = 0;
  int head_dim = 0;
  // A sigmoid gate on each head's output (Qwen3-Next's gqa: q_proj twice as wide; Kimi-K3's mla: a g_proj from the
  // hidden state to heads x v_head_dim).
  bool output_gate = false;
  // An RMSNorm over all query heads together (and over all KV heads together) instead of per head (MiniMax-M2):
  // a TP rank holds a slice of the heads, so each layer all-reduces every token's sums of squares across the
  // TP group before it can normalise. A per-head norm (Qwen3) needs no communication and is not this.
  bool qk_norm_across_heads = false;
  // mla / csa
  int q_lora_rank = 0;   // 0: queries projected directly from the hidden state
  int kv_lora_rank = 0;  // latent width stored per token (mla), KV width (csa)
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  // sliding window: `sliding_window_layers` of the layers keep only the last `sliding_window_tokens`
  int sliding_window_tokens = 0;
  int sliding_window_layers = 0;
  // gqa: the full (global) layers' own shape where it differs from the sliding ones' (Gemma 4: 2 KV heads of 512
  // on its global layers, 8 of 256 on its sliding ones, the global key reused as the value). 0: as above.
  int global_num_kv_heads = 0;
  int global_head_dim = 0;
  bool global_k_is_v = false;  // one cached vector per KV head serves as key and value (no v_proj)
  int full_kv_heads() const { return global_num_kv_heads > 0 ? global_num_kv_heads : num_kv_heads; }
  int full_head_dim() const { return global_head_dim > 0 ? global_head_dim : head_dim; }
  bool has_global_shape() const { return global_num_kv_heads > 0 || global_head_dim > 0 || global_k_is_v; }
  // gqa: one layer's q, k, v and o projections (q doubled by an output gate), at a sliding layer's shape or, with
  // `global_layer`, a global one's (a key reused as the value has no v_proj).
  double gqa_projection_parameters(double hidden, bool global_layer) const {
    const double dim = global_layer ? full_head_dim() : head_dim;
    const double kv_heads = global_layer ? full_kv_heads() : num_kv_heads;
    const double kv = (global_layer && global_k_is_v) ? 1.0 : 2.0;
    return hidden * num_query_heads * dim * (output_gate ? 2.0 : 1.0) + hidden * kv * kv_heads * dim +
           num_query_heads * dim * hidden;
  }
  // The window restarts at every multiple of sliding_window_tokens (Llama 4's chunked local attention): a token sees
  // the keys of its own chunk, 1 to sliding_window_tokens of them, not the last sliding_window_tokens.
  bool sliding_window_chunked = false;
  // csa: whole-model KV bytes per token of the compressed global cache
  double global_kv_bytes_per_token = 0.0;
  // csa, mla under DeepSeek Sparse Attention and gqa under MiniMax Sparse Attention: each query attends at most
  // sparse_top_k_tokens keys, chosen by a lightning indexer of indexer_heads x indexer_head_dim that scores every
  // (compressed) key before it. 0: dense attention (every mla or gqa model without an indexer). Both cache one
  // indexer key per token, shared by the heads: DeepSeek's in FP8, MiniMax's in the KV cache's format.
  int sparse_top_k_tokens = 0;
  int indexer_heads = 0;
  int indexer_head_dim = 0;
  int compression_ratio = 1;  // context tokens per compressed KV entry that the indexer scans
  int indexer_layers = 0;     // layers that run the indexer (the rest reuse a source layer's top-k); 0: all (gqa: of
                              // the sparse layers)
  // gqa under MiniMax Sparse Attention: the layers that attend sparsely and run the indexer (MiniMax-M3: every MoE
  // layer); the other softmax layers attend every key. Equal to num_layers when not given.
  int sparse_layers = 0;
  // csa: grouped low-rank output projection (DeepSeek-V4): the heads' outputs in o_groups groups, each group
  // projected to o_lora_rank, then the concatenation to hidden. 0: a plain heads x v_head_dim x hidden one.
  int o_lora_rank = 0;
  int o_groups = 0;
  bool sparse() const { return sparse_top_k_tokens > 0; }
  bool operator==(const AttentionSpec&) const = default;
};

struct MoeSpec {
  int num_routed_experts = 0;
  int top_k = 0;
  int num_shared_experts = 0;
  int expert_width = 0;         // intermediate size of one routed expert
  int shared_expert_width = 0;  // intermediate size of the shared expert(s), 0: same as expert_width
  // A latent MoE (Kimi-K3): one projection per MoE layer takes the hidden state down to latent_width, the routed
  // experts run at that width, and their normed sum is projected back up; the router and the shared experts see the
  // hidden state. 0: the routed experts take the hidden state itself.
  int latent_width = 0;
  // What a routed expert takes in and gives back, and what the EP exchange carries: the latent, else the hidden state.
  int expert_input_width(int hidden_size) const { return latent_width > 0 ? latent_width : hidden_size; }
  bool operator==(const MoeSpec&) const = default;
};

struct ModelPrecision {
  Precision weights = Precision::bf16;  // attention, dense FFN, shared expert, embeddings, LM head
  Precision experts = Precision::bf16;  // routed experts
  Precision kv_cache = Precision::bf16;
  Precision activations = Precision::bf16;  // what collectives move
  // The format the routed experts' activations enter their GEMMs in (bf16: weight-only, the weights dequantised
  // in the tile; fp8: W4A8/W8A8; fp4 or nvfp4: both inputs 4-bit). Unset: what the serving engines pair with the
  // experts' format (simulator/gemm_inputs.hpp); a checkpoint or an engine setting that differs says so here.
  std::optional<Precision> expert_inputs;
  bool operator==(const ModelPrecision&) const = default;
};

// The recurrence a linear-attention layer runs.
enum class LinearAttentionKind {
  gated_deltanet,  // Qwen3-Next, Qwen3.5: the delta rule, a decay and a write strength per value head
  mamba2,          // Nemotron-H: Mamba-2's SSD, a step size per head; its B and C are the key-sized inputs
};

// Linear-attention layers (Gated DeltaNet: Qwen3-Next, Qwen3.5; Mamba-2: Nemotron-H): `layers` of the model's layers
// replace softmax attention by a recurrence over a per-sequence state of value heads x key_head_dim x value_head_dim,
// the same size at any context. Field names follow the Hugging Face configs' linear_* keys; a Mamba-2 layer maps as
// n_groups key heads of ssm_state_size (its B and C), mamba_num_heads value heads of mamba_head_dim (its x and the
// gate z), and conv_kernel over x, B and C.
struct LinearAttentionSpec {
  int layers = 0;
  int num_key_heads = 0;    // q and k heads (each shared by num_value_heads / num_key_heads value heads)
  int num_value_heads = 0;  // v, output-gate and state heads
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;                // short causal convolution over q, k and v (linear_conv_kernel_dim); 0: none
  Precision state = Precision::fp32;  // the recurrent state's format (mamba_ssm_dtype)
  LinearAttentionKind kind = LinearAttentionKind::gated_deltanet;
  double key_width() const { return static_cast<double>(num_key_heads) * key_head_dim; }        // q or k
  double value_width() const { return static_cast<double>(num_value_heads) * value_head_dim; }  // v or z
  double conv_channels() const { return 2.0 * key_width() + value_width(); }  // the conv runs over q, k and v
  // Scalars projected from the hidden state per value head: Gated DeltaNet's decay and write strength (a, b),
  // Mamba-2's step size (dt).
  double inputs_per_value_head() const { return kind == LinearAttentionKind::mamba2 ? 1.0 : 2.0; }
  // One layer's projections and short convolution: Gated DeltaNet's in_proj_qkvz, in_proj_ba, conv and out_proj
  // (Mamba-2's z, x, B, C and dt, conv and out_proj); per-head A, dt bias and the norm are negligible.
  double parameters(double hidden) const {
    return hidden * (2.0 * key_width() + 2.0 * value_width()) + hidden * inputs_per_value_head() * num_value_heads +
           conv_channels() * conv_kernel + value_width() * hidden;
  }
  bool operator==(const LinearAttentionSpec&) const = default;
};

// A lookup memory such as DeepSeek's Engram: a table read one row per token in some layers.
struct LookupMemorySpec {
  double parameters = 0.0;
  int lookup_layers = 0;
  int row_bytes = 0;
  bool in_host_memory = true;  // true: rows come over the host link, the table takes no HBM
  bool operator==(const LookupMemorySpec&) const = default;
};

struct ModelSpec {
  std::string name;
  std::string source;
  std::map<std::string, std::string> assumed;  // field path -> one-line reason

  int num_layers = 0;
  int hidden_size = 0;
  int vocab_size = 0;
  int max_context_tokens = 0;
  bool tie_word_embeddings = false;

  AttentionSpec attention;                              // the softmax-attention layers (all but linear ones)
  std::optional<LinearAttentionSpec> linear_attention;  // layers that run a linear recurrence instead

  // Layers whose mixer is left out: no attention of either kind, no KV or state, no projections (DeciLM's attention
  // `no_op` blocks, Nemotron-H's MLP-only blocks). Of num_layers, the others are sliding, full or linear.
  int attention_free_layers = 0;

  int dense_layers = 0;        // layers with a dense FFN (all the FFN layers of a dense model)
  int dense_ffn_width = 0;     // intermediate size of the dense FFN (SwiGLU: gate, up, down)
  std::optional<MoeSpec> moe;  // MoE layers = num_layers - dense_layers - ffn_free_layers
  // Layers without an FFN (Nemotron-H's Mamba-only and attention-only blocks, DeciLM's FFN `no_op`).
  int ffn_free_layers = 0;
  // false: every FFN (dense, routed and shared experts) has an up and a down projection only, no gate (Nemotron-H's
  // squared ReLU); true: gate, up and down (SwiGLU, GeGLU).
  bool ffn_gated = true;

  int mtp_layers = 0;  // multi-token-prediction draft layers (used by speculative decoding)
  std::optional<LookupMemorySpec> lookup_memory;

  ModelPrecision precision;

  int moe_layers() const { return moe ? num_layers - dense_layers - ffn_free_layers : 0; }
  int linear_attention_layers() const { return linear_attention ? linear_attention->layers : 0; }
  // Layers with softmax attention, sliding or full.
  int softmax_attention_layers() const { return num_layers - linear_attention_layers() - attention_free_layers; }
  // Matrices in one FFN: gate, up and down, or up and down.
  double ffn_matrices() const { return ffn_gated ? 3.0 : 2.0; }
  bool operator==(const ModelSpec&) const = default;
};

}  // namespace fleetcast::specs
