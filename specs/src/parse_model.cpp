// JSON -> ModelSpec, with the attention, MoE, lookup-memory and precision sub-objects.

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

void parse_mla_part(JsonReader& r, AttentionSpec& a) {
  a.q_lora_rank = r.require_at_least("q_lora_rank", 0);
  a.kv_lora_rank = r.require_at_least("kv_lora_rank", 1);
  a.qk_rope_head_dim = r.require_at_least("qk_rope_head_dim", 0);
  a.qk_nope_head_dim = r.require_at_least("qk_nope_head_dim", 0);
  r.check(a.qk_rope_head_dim + a.qk_nope_head_dim >= 1, "qk_nope_head_dim",
          "qk_rope_head_dim + qk_nope_head_dim must be >= 1");
  a.v_head_dim = r.require_at_least("v_head_dim", 1);
}

// A sparse attention's indexer (DeepSeek's on mla, MiniMax's on gqa): all three fields, or none.
void parse_indexer(JsonReader& r, AttentionSpec& a, const char* dense) {
  a.sparse_top_k_tokens = r.optional_at_least("sparse_top_k_tokens", 0, 0);
  a.indexer_heads = r.optional_at_least("indexer_heads", 0, 0);
  a.indexer_head_dim = r.optional_at_least("indexer_head_dim", 0, 0);
  r.check(
      (a.sparse_top_k_tokens > 0) == (a.indexer_heads > 0) && (a.sparse_top_k_tokens > 0) == (a.indexer_head_dim > 0),
      "sparse_top_k_tokens",
      std::string("give sparse_top_k_tokens, indexer_heads and indexer_head_dim together (all absent: ") + dense + ")");
}

// `num_layers`: the layers with softmax attention or linear attention (the attention-free ones left out).
AttentionSpec parse_attention(JsonReader r, int num_layers) {
  AttentionSpec a;
  a.type = r.require_enum("type", detail::kAttentionNames);
  a.num_query_heads = r.require_at_least("num_query_heads", 1);
  switch (a.type) {
    case AttentionType::gqa:
      a.num_kv_heads = r.require_at_least("num_kv_heads", 1);
      r.check(a.num_query_heads % a.num_kv_heads == 0, "num_kv_heads",
              "must divide num_query_heads (" + std::to_string(a.num_query_heads) + ")");
      a.head_dim = r.require_at_least("head_dim", 1);
      a.output_gate = r.optional<bool>("output_gate", false);
      a.qk_norm_across_heads = r.optional<bool>("qk_norm_across_heads", false);
      a.global_num_kv_heads = r.optional_at_least("global_num_kv_heads", 0, 0);
      r.check(a.global_num_kv_heads == 0 || a.num_query_heads % a.global_num_kv_heads == 0, "global_num_kv_heads",
              "must divide num_query_heads (" + std::to_string(a.num_query_heads) + ")");
      a.global_head_dim = r.optional_at_least("global_head_dim", 0, 0);
      a.global_k_is_v = r.optional<bool>("global_k_is_v", false);
      parse_indexer(r, a, "dense attention");
      // MiniMax Sparse Attention: the sparse layers, every layer when not given.
      a.sparse_layers = r.optional_at_least("sparse_layers", a.sparse() ? num_layers : 0, 0);
      r.check(a.sparse() == (a.sparse_layers > 0), "sparse_layers",
              a.sparse() ? "must be >= 1 with sparse_top_k_tokens" : "needs sparse_top_k_tokens and the indexer");
      r.check(a.sparse_layers <= num_layers, "sparse_layers",
              "must be <= num_layers (" + std::to_string(num_layers) + ")");
      // Sparse layers that run the indexer, the others reusing the top-k of the one before (vLLM's index_topk_freq).
      a.indexer_layers = r.optional_at_least("indexer_layers", 0, 0);
      r.check(a.indexer_layers <= a.sparse_layers, "indexer_layers",
              "must be <= sparse_layers (" + std::to_string(a.sparse_layers) + "); 0 means every sparse layer");
      break;
    case AttentionType::mla:
      parse_mla_part(r, a);
      a.output_gate = r.optional<bool>("output_gate", false);
      parse_indexer(r, a, "dense MLA");  // DeepSeek Sparse Attention
      break;
    case AttentionType::csa:
      parse_mla_part(r, a);
      a.global_kv_bytes_per_token = r.require_positive("global_kv_bytes_per_token");
      a.sparse_top_k_tokens = r.require_at_least("sparse_top_k_tokens", 1);
      a.indexer_heads = r.require_at_least("indexer_heads", 1);
      a.indexer_head_dim = r.require_at_least("indexer_head_dim", 1);
      a.compression_ratio = r.require_at_least("compression_ratio", 1);
      a.indexer_layers = r.optional_at_least("indexer_layers", 0, 0);
      r.check(a.indexer_layers <= num_layers, "indexer_layers",
              "must be <= num_layers (" + std::to_string(num_layers) + "); 0 means every layer");
      a.o_lora_rank = r.optional_at_least("o_lora_rank", 0, 0);
      a.o_groups = r.optional_at_least("o_groups", a.o_lora_rank > 0 ? 1 : 0, 0);
      r.check((a.o_lora_rank == 0) == (a.o_groups == 0), "o_groups",
              "give o_lora_rank and o_groups together (both 0: a plain output projection)");
      r.check(a.o_groups == 0 || a.num_query_heads % a.o_groups == 0, "o_groups",
              "must divide num_query_heads (" + std::to_string(a.num_query_heads) + ")");
      break;
  }
  a.sliding_window_tokens = r.optional_at_least("sliding_window_tokens", 0, 0);
  a.sliding_window_layers = r.optional_at_least("sliding_window_layers", 0, 0);
  r.check((a.sliding_window_tokens == 0) == (a.sliding_window_layers == 0), "sliding_window_layers",
          "sliding_window_tokens and sliding_window_layers must be both 0 or both > 0");
  a.sliding_window_chunked = r.optional<bool>("sliding_window_chunked", false);
  r.check(!a.sliding_window_chunked || a.sliding_window_tokens > 0, "sliding_window_chunked",
          "needs sliding_window_tokens and sliding_window_layers: the chunk is the window");
  r.check(a.sliding_window_layers <= num_layers, "sliding_window_layers",
          "must be <= num_layers (" + std::to_string(num_layers) + ")");
  r.check(a.type != AttentionType::gqa || !a.sparse() || a.sliding_window_layers == 0, "sliding_window_layers",
          "must be 0 with sparse_top_k_tokens: sparse gqa layers and sliding windows are not modelled together");
  const bool global_shape = a.has_global_shape();
  r.check(!global_shape || a.sliding_window_layers > 0, "global_num_kv_heads",
          "a global layers' shape needs sliding_window_layers: it is what sets them apart");
  r.check(!global_shape || !a.sparse(), "global_num_kv_heads", "not with sparse_top_k_tokens");
  r.finish();
  return a;
}

MoeSpec parse_moe(JsonReader r, int hidden_size) {
  MoeSpec m;
  m.num_routed_experts = r.require_at_least("num_routed_experts", 1);
  m.top_k = r.require_at_least("top_k", 1);
  r.check(m.top_k <= m.num_routed_experts, "top_k",
          "must be <= num_routed_experts (" + std::to_string(m.num_routed_experts) + ")");
  m.num_shared_experts = r.optional_at_least("num_shared_experts", 0, 0);
  m.expert_width = r.require_at_least("expert_width", 1);
  m.shared_expert_width = r.optional_at_least("shared_expert_width", 0, 0);
  m.latent_width = r.optional_at_least("latent_width", 0, 0);
  r.check(m.latent_width <= hidden_size, "latent_width",
          "must be <= hidden_size (" + std::to_string(hidden_size) + "): the experts' latent is a projection down");
  r.finish();
  return m;
}

LookupMemorySpec parse_lookup_memory(JsonReader r, int num_layers) {
  LookupMemorySpec l;
  l.parameters = r.require_positive("parameters");
  l.lookup_layers = r.require_at_least("lookup_layers", 1);
  r.check(l.lookup_layers <= num_layers, "lookup_layers", "must be <= num_layers (" + std::to_string(num_layers) + ")");
  l.row_bytes = r.require_at_least("row_bytes", 1);
  l.in_host_memory = r.optional<bool>("in_host_memory", true);
  r.finish();
  return l;
}

LinearAttentionSpec parse_linear_attention(JsonReader r, const ModelSpec& m) {
  LinearAttentionSpec l;
  l.kind = r.optional_enum("kind", LinearAttentionKind::gated_deltanet, detail::kLinearAttentionKindNames);
  const int softmax_free = m.num_layers - m.attention_free_layers - m.attention.sliding_window_layers;
  l.layers = r.require_at_least("layers", 1);
  r.check(m.attention.type != AttentionType::csa, "layers",
          "linear-attention layers are modelled with gqa or mla softmax layers, not csa");
  r.check(l.layers <= softmax_free, "layers",
          "must be <= num_layers - attention_free_layers - attention.sliding_window_layers (" +
              std::to_string(softmax_free) + ")");
  r.check(
      m.attention.sparse_layers <= m.num_layers - m.attention_free_layers - l.layers, "layers",
      "leaves fewer softmax layers than attention.sparse_layers (" + std::to_string(m.attention.sparse_layers) + ")");
  l.num_key_heads = r.require_at_least("num_key_heads", 1);
  l.num_value_heads = r.require_at_least("num_value_heads", 1);
  r.check(l.num_value_heads % l.num_key_heads == 0, "num_value_heads",
          "must be a multiple of num_key_heads (" + std::to_string(l.num_key_heads) + ")");
  l.key_head_dim = r.require_at_least("key_head_dim", 1);
  l.value_head_dim = r.require_at_least("value_head_dim", 1);
  l.conv_kernel = r.optional_at_least("conv_kernel", 0, 0);
  l.state = r.optional_enum("state", Precision::fp32, detail::kPrecisionNames);
  r.check(l.state == Precision::fp32 || l.state == Precision::bf16 || l.state == Precision::fp16, "state",
          "must be fp32, bf16 or fp16: the recurrence accumulates into it");
  r.finish();
  return l;
}

ModelPrecision parse_precision_block(JsonReader r) {
  ModelPrecision p;
  p.weights = r.require_enum("weights", detail::kPrecisionNames);
  p.experts = r.optional_enum("experts", p.weights, detail::kPrecisionNames);
  p.kv_cache = r.optional_enum("kv_cache", Precision::bf16, detail::kPrecisionNames);
  p.activations = r.optional_enum("activations", Precision::bf16, detail::kPrecisionNames);
  if (r.has("expert_inputs")) {
    const Precision in = r.require_enum("expert_inputs", detail::kPrecisionNames);
    // A tensor core multiplies 16-, 8- or 4-bit floats; FP32 and INT4 inputs have no GEMM to run in.
    r.check(in != Precision::fp32 && in != Precision::int4, "expert_inputs", "must be bf16, fp16, fp8, fp4 or nvfp4");
    p.expert_inputs = in;
  }
  r.finish();
  return p;
}

}  // namespace

ModelSpec parse_model(const nlohmann::json& j, const std::string& file, const std::string& prefix) {
  JsonReader r(j, file, prefix);
  ModelSpec m;
  m.name = r.require<std::string>("name");
  r.check(!m.name.empty(), "name", "must not be empty");
  m.source = r.require<std::string>("source");
  m.assumed = r.string_map("assumed");
  m.num_layers = r.require_at_least("num_layers", 1);
  m.hidden_size = r.require_at_least("hidden_size", 1);
  m.vocab_size = r.require_at_least("vocab_size", 1);
  m.max_context_tokens = r.require_at_least("max_context_tokens", 1);
  m.tie_word_embeddings = r.optional<bool>("tie_word_embeddings", false);
  m.attention_free_layers = r.optional_at_least("attention_free_layers", 0, 0);
  r.check(m.attention_free_layers < m.num_layers, "attention_free_layers",
          "must be < num_layers (" + std::to_string(m.num_layers) + "): some layer must attend");
  // Checked before the attention, whose own layer counts are of the layers that attend.
  const bool csa = j.contains("attention") && j.at("attention").is_object() && j.at("attention").contains("type") &&
                   j.at("attention").at("type") == "csa";
  r.check(m.attention_free_layers == 0 || !csa, "attention_free_layers",
          "must be 0 with csa attention: its compressed cache spans every layer");
  m.attention = parse_attention(r.object("attention"), m.num_layers - m.attention_free_layers);
  if (auto linear = r.optional_object("linear_attention"))
    m.linear_attention = parse_linear_attention(std::move(*linear), m);

  if (auto moe = r.optional_object("moe")) m.moe = parse_moe(std::move(*moe), m.hidden_size);
  m.ffn_free_layers = r.optional_at_least("ffn_free_layers", 0, 0);
  const int ffn_layers = m.num_layers - m.ffn_free_layers;
  r.check(ffn_layers >= 1, "ffn_free_layers",
          "must be < num_layers (" + std::to_string(m.num_layers) + "): some layer must have an FFN");
  m.ffn_gated = r.optional<bool>("ffn_gated", true);
  m.dense_layers = r.require_at_least("dense_layers", 0);
  if (m.moe) {
    r.check(m.dense_layers < ffn_layers, "dense_layers",
            "must be < num_layers - ffn_free_layers (" + std::to_string(ffn_layers) +
                ") for an MoE model: the rest are MoE layers");
  } else {
    r.check(
        m.dense_layers == ffn_layers, "dense_layers",
        "must equal num_layers - ffn_free_layers (" + std::to_string(ffn_layers) + ") for a dense model (no `moe`)");
  }
  m.dense_ffn_width = r.require_at_least("dense_ffn_width", 0);
  r.check(m.dense_layers == 0 || m.dense_ffn_width > 0, "dense_ffn_width", "must be > 0 when dense_layers > 0");

  m.mtp_layers = r.optional_at_least("mtp_layers", 0, 0);
  if (auto lookup = r.optional_object("lookup_memory"))
    m.lookup_memory = parse_lookup_memory(std::move(*lookup), m.num_layers);
  m.precision = parse_precision_block(r.object("precision"));
  r.finish();
  return m;
}

}  // namespace fleetcast::specs
