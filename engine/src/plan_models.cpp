// The shapes a model preset decides, per GPU of a tensor-parallel group: what "models" in a plan entry
// expands to. Attention and dense FFN weights are split over tp; routed experts stay whole (expert
// parallel); RMSNorm, the router and sampling see the whole hidden size and vocabulary.

#include <algorithm>

#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::engine {
namespace {

using specs::AttentionType;

struct Split {
  const std::string& file;
  const std::string& field;
  int tp;
  // x / tp, which must divide evenly.
  std::int64_t operator()(std::int64_t x, const char* what) const {
    if (x % tp != 0)
      throw InputError(
          file, field, std::to_string(tp),
          std::string(what) + " (" + std::to_string(x) + ") does not divide over tp " + std::to_string(tp));
    return x / tp;
  }
};

void add_gemm(std::vector<Shape>& out, std::int64_t n, std::int64_t k) {
  if (n <= 0 || k <= 0) return;
  const Shape s{{"n", n}, {"k", k}};
  if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
}

std::vector<Shape> gemm_shapes(const specs::ModelSpec& m, const Split& split, int tp) {
  std::vector<Shape> out;
  const auto& a = m.attention;
  const std::int64_t hidden = m.hidden_size;
  if (a.type == AttentionType::gqa) {
    const std::int64_t q = split(a.num_query_heads, "num_query_heads");
    const std::int64_t kv = std::max<std::int64_t>(1, a.num_kv_heads / tp);  // replicated below tp
    add_gemm(out, (q + 2 * kv) * a.head_dim, hidden);                        // fused QKV
    add_gemm(out, hidden, q * a.head_dim);                                   // output projection
  } else if (a.type == AttentionType::mla) {
    const std::int64_t q = split(a.num_query_heads, "num_query_heads");
    const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      add_gemm(out, a.q_lora_rank, hidden);  // q down-projection
      add_gemm(out, q * qk, a.q_lora_rank);  // q up-projection
    } else {
      add_gemm(out, q * qk, hidden);
    }
    add_gemm(out, a.kv_lora_rank + a.qk_rope_head_dim, hidden);              // kv down-projection
    add_gemm(out, q * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank);  // kv up-projection (prefill)
    add_gemm(out, hidden, q * a.v_head_dim);                                 // output projection
    if (a.output_gate) add_gemm(out, q * a.v_head_dim, hidden);              // output gate (Kimi-K3)
  }
  if (m.dense_layers > 0 && m.dense_ffn_width > 0) {
    const std::int64_t f = split(m.dense_ffn_width, "dense_ffn_width");
    add_gemm(out, 2 * f, hidden);  // gate and up, merged
    add_gemm(out, hidden, f);      // down
  }
  if (m.moe) {
    add_gemm(out, m.moe->num_routed_experts, hidden);  // router
    // A latent MoE's experts run at its latent width, between a down and an up projection (split over tp).
    const std::int64_t expert_in = m.moe->expert_input_width(m.hidden_size);
    if (m.moe->latent_width > 0) {
      add_gemm(out, split(m.moe->latent_width, "latent_width"), hidden);
      add_gemm(out, hidden, split(m.moe->latent_width, "latent_width"));
    }
    add_gemm(out, 2 * std::int64_t{m.moe->expert_width}, expert_in);
    add_gemm(out, expert_in, m.moe->expert_width);
    if (m.moe->num_shared_experts > 0) {
      const int width = m.moe->shared_expert_width > 0 ? m.moe->shared_expert_width : m.moe->expert_width;
      const std::int64_t f = split(std::int64_t{width} * m.moe->num_shared_experts, "shared expert width");
      add_gemm(out, 2 * f, hidden);
      add_gemm(out, hidden, f);
    }
  }
  add_gemm(out, (m.vocab_size + tp - 1) / tp, hidden);  // LM head, vocabulary split (padded) over tp
  return out;
}

}  // namespace

std::vector<Shape> model_shapes(const std::string& op, const std::string& model, int tp, const std::string& file,
                                const std::string& field) {
  if (!specs::has_preset(specs::PresetKind::model, model)) {
    std::string valid;
    for (const auto& p : specs::list_presets(specs::PresetKind::model)) valid += (valid.empty() ? "" : ", ") + p.name;
    throw InputError(file, field, model, "unknown model preset; valid: " + valid);
  }
  const specs::ModelSpec m = specs::model_preset(model);
  const Split split{file, field, tp};
  const auto& a = m.attention;
  auto needs = [&](AttentionType t, const char* what) {
    if (a.type != t) throw InputError(file, field, model, std::string("not a model with ") + what + " attention");
  };
  if (op == "gemm") return gemm_shapes(m, split, tp);
  if (op == "rmsnorm") {
    std::vector<Shape> out = {Shape{{"hidden", m.hidden_size}}};
    if (a.type == AttentionType::mla) {  // the latent norms of MLA
      if (a.q_lora_rank > 0) out.push_back(Shape{{"hidden", a.q_lora_rank}});
      out.push_back(Shape{{"hidden", a.kv_lora_rank}});
    }
    return out;
  }
  if (op == "swiglu") {
    std::vector<Shape> out;
    if (m.dense_layers > 0 && m.dense_ffn_width > 0)
      out.push_back(Shape{{"width", split(m.dense_ffn_width, "dense_ffn_width")}});
    if (m.moe) {
      const Shape expert{{"width", m.moe->expert_width}};
      if (std::find(out.begin(), out.end(), expert) == out.end()) out.push_back(expert);
    }
    return out;
  }
  if (op == "rope") {
    const std::int64_t q = split(a.num_query_heads, "num_query_heads");
    if (a.type == AttentionType::gqa)
      return {Shape{{"q_heads", q}, {"kv_heads", std::max(1, a.num_kv_heads / tp)}, {"head_dim", a.head_dim}}};
    return {Shape{{"q_heads", q}, {"kv_heads", 1}, {"head_dim", a.qk_rope_head_dim}}};
  }
  if (op == "sampling") return {Shape{{"vocab", m.vocab_size}}};
  if (op == "model_step") {  // the model by name; the step's sizes come from the sweep
    Shape s;
    s.set_text("model", model);
    s.set("tp", tp);
    return {s};
  }
  if (op == "attention_decode_gqa") {
    needs(AttentionType::gqa, "grouped-query");
    return {Shape{{"q_heads", split(a.num_query_heads, "num_query_heads")},
                  {"kv_heads", std::max(1, a.num_kv_heads / tp)},
                  {"head_dim", a.head_dim}}};
  }
  if (op == "attention_prefill") {  // GQA models: MLA prefill runs the non-absorbed form, not this op
    needs(AttentionType::gqa, "grouped-query");
    return {Shape{{"q_heads", split(a.num_query_heads, "num_query_heads")},
                  {"kv_heads", std::max(1, a.num_kv_heads / tp)},
                  {"head_dim", a.head_dim}}};
  }
  if (op == "attention_decode_mla") {
    needs(AttentionType::mla, "multi-head latent");
    return {Shape{{"q_heads", split(a.num_query_heads, "num_query_heads")},
                  {"latent_dim", a.kv_lora_rank},
                  {"rope_dim", a.qk_rope_head_dim}}};
  }
  throw InputError(file, field, model, op + " takes no shape fields from a model; give them in \"sweep\"");
}

}  // namespace fleetcast::engine
