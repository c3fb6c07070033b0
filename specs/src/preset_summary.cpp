// One-line summaries of presets, derived from their fields.

#include <cctype>
#include <cmath>
#include <cstdio>

#include "enum_names.hpp"
#include "presets_internal.hpp"

namespace fleetcast::specs::detail {

namespace {

// `global_layer`: a gqa model's full-attention layer, which may have its own KV heads and head size.
double attention_parameters(const AttentionSpec& a, double hidden, bool global_layer = false) {
  const double heads = a.num_query_heads;
  if (a.type == AttentionType::gqa) return a.gqa_projection_parameters(hidden, global_layer);
  const double qk_head = a.qk_rope_head_dim + a.qk_nope_head_dim;
  const double q =
      a.q_lora_rank > 0 ? hidden * a.q_lora_rank + a.q_lora_rank * heads * qk_head : hidden * heads * qk_head;
  const double kv_down = hidden * (a.kv_lora_rank + a.qk_rope_head_dim);
  const double kv_up = a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim);
  // Grouped low-rank output (DeepSeek-V4): heads x v x o_lora_rank + groups x o_lora_rank x hidden.
  const double out = a.o_lora_rank > 0 ? heads * a.v_head_dim * a.o_lora_rank + a.o_groups * a.o_lora_rank * hidden
                                       : heads * a.v_head_dim * hidden;
  const double gate = a.output_gate ? hidden * heads * a.v_head_dim : 0.0;  // mla's output gate (Kimi-K3)
  double indexer = 0.0;
  if (a.sparse()) indexer = hidden * a.indexer_heads * (a.indexer_head_dim + 1.0);
  return q + kv_down + kv_up + out + indexer + gate;
}

// "671B", "70.6B", "8.03B", "1.6T"
std::string format_count(double n) {
  const bool tera = n >= 1e12;
  const double v = tera ? n / 1e12 : n / 1e9;
  char buf[32];
  if (v >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (v >= 10) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  }
  return std::string(buf) + (tera ? "T" : "B");
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

double approx_parameters(const ModelSpec& m) {
  const double hidden = m.hidden_size;
  double total = hidden * m.vocab_size * (m.tie_word_embeddings ? 1.0 : 2.0);
  const int linear = m.linear_attention_layers();
  const int sliding = m.attention.sliding_window_layers;
  total += sliding * attention_parameters(m.attention, hidden) +
           (m.softmax_attention_layers() - sliding) * attention_parameters(m.attention, hidden, true);
  // MiniMax Sparse Attention's indexer, on its sparse layers only: a query per indexer head and one shared key.
  const auto& a = m.attention;
  if (a.type == AttentionType::gqa && a.sparse())
    total += a.sparse_layers * hidden * (a.indexer_heads + 1.0) * a.indexer_head_dim;
  if (m.linear_attention) total += linear * m.linear_attention->parameters(hidden);
  total += m.dense_layers * m.ffn_matrices() * hidden * m.dense_ffn_width;
  if (m.moe) {
    const double shared_width = m.moe->shared_expert_width > 0 ? m.moe->shared_expert_width : m.moe->expert_width;
    const double latent = m.moe->expert_input_width(m.hidden_size);
    const double per_layer = m.moe->num_routed_experts * m.ffn_matrices() * latent * m.moe->expert_width +
                             (m.moe->latent_width > 0 ? 2.0 * hidden * latent : 0.0) +
                             m.moe->num_shared_experts * m.ffn_matrices() * hidden * shared_width +
                             hidden * m.moe->num_routed_experts;  // router
    total += m.moe_layers() * per_layer;
  }
  if (m.lookup_memory) total += m.lookup_memory->parameters;
  return total;
}

std::string model_summary(const ModelSpec& m) {
  std::string s = format_count(approx_parameters(m)) + (m.moe ? " MoE" : " dense");
  s += ", " + std::to_string(m.num_layers) + " layers, " + upper(name_of(kAttentionNames, m.attention.type));
  s += ", " + std::string(to_string(m.precision.weights));
  if (m.moe && m.precision.experts != m.precision.weights)
    s += " (experts " + std::string(to_string(m.precision.experts)) + ")";
  return s;
}

std::string hardware_summary(const HardwareSpec& h) {
  char tb_per_s[32];  // "8.0", "4.8", "3.35"
  std::snprintf(tb_per_s, sizeof tb_per_s, "%.2f", h.hbm_tb_per_s);
  std::string bandwidth = tb_per_s;
  if (bandwidth.size() > 3 && bandwidth.back() == '0') bandwidth.pop_back();
  char buf[160];
  const auto fp8 = h.peak_tflops.find("fp8");
  if (fp8 == h.peak_tflops.end()) {
    std::snprintf(buf, sizeof buf, "%s, %.0f GB HBM at %s TB/s, %.0f BF16 TFLOPS, no FP8", h.arch.c_str(), h.hbm_gb,
                  bandwidth.c_str(), h.peak_tflops.at("bf16"));
  } else {
    std::snprintf(buf, sizeof buf, "%s, %.0f GB HBM at %s TB/s, %.0f FP8 TFLOPS", h.arch.c_str(), h.hbm_gb,
                  bandwidth.c_str(), fp8->second);
  }
  // A domain without a switch is worth a word: collectives there run slower than the bandwidth suggests.
  if (h.scale_up_topology == "pcie") return std::string(buf) + ", PCIe only (no GPU fabric)";
  if (h.scale_up_topology == "mesh") return std::string(buf) + ", mesh of direct links";
  return buf;
}

}  // namespace fleetcast::specs::detail
