// The op table and the hand-counted FLOPs and bytes behind every achieved TFLOPS and GB/s figure.

#include "fleetcast/engine/ops.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetcast/specs/error.hpp"
#include "moe_step_ops.hpp"

namespace fleetcast::engine {

const std::vector<OpInfo>& all_ops() {
  static const std::vector<OpInfo> ops = {
      {"gemm", OpClass::gemm, {"m", "n", "k"}, {"bf16", "fp8", "fp32"}, {{"m", 33}, {"n", 80}, {"k", 128}},
       "Y[m,n] = X[m,k] W[n,k]^T, a linear layer over m tokens (FP8: per-tensor scales, bf16 out)"},
      {"rmsnorm", OpClass::elementwise, {"tokens", "hidden"}, {"bf16", "fp32"}, {{"tokens", 5}, {"hidden", 96}},
       "y = x / sqrt(mean(x^2) + 1e-6) * w over each token's hidden vector"},
      {"swiglu", OpClass::elementwise, {"tokens", "width"}, {"bf16", "fp32"}, {{"tokens", 5}, {"width", 96}},
       "y = silu(gate) * up from a merged [tokens, 2 x width] gate/up projection"},
      {"rope", OpClass::elementwise, {"tokens", "q_heads", "kv_heads", "head_dim"}, {"bf16", "fp32"},
       {{"tokens", 5}, {"q_heads", 4}, {"kv_heads", 2}, {"head_dim", 64}},
       "rotary embedding (NeoX halves) of q and k at per-token positions, from a cos/sin cache"},
      {"sampling", OpClass::sampling, {"batch", "vocab", "top_k"}, {"bf16", "fp32"},
       {{"batch", 4}, {"vocab", 1000}, {"top_k", 20}},
       "softmax over the vocabulary, then argmax (top_k 1) or a draw among the top k"},
      {"attention_decode_gqa", OpClass::attention,
       {"batch", "context", "q_heads", "kv_heads", "head_dim", "page_size"}, {"bf16", "fp32"},
       {{"batch", 3}, {"context", 37}, {"q_heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"page_size", 16}},
       "one query token per sequence over a paged K/V cache, grouped-query heads"},
      {"attention_decode_mla", OpClass::attention,
       {"batch", "context", "q_heads", "latent_dim", "rope_dim", "page_size"}, {"bf16", "fp32"},
       {{"batch", 2}, {"context", 37}, {"q_heads", 4}, {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 16}},
       "absorbed MLA decode: every head attends to one paged latent+rope entry per token; V is the latent"},
      {"memcpy", OpClass::memory, {"bytes"}, {"u8"}, {{"bytes", 1000003}},
       "copy a buffer within device memory (host memory on the CPU backend)"},
  };
  static const std::vector<OpInfo> with_moe_and_step = with_moe_and_step_ops(ops);
  return with_moe_and_step;
}

const OpInfo* find_op(std::string_view name) {
  for (const auto& op : all_ops())
    if (op.name == name) return &op;
  return nullptr;
}

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case OpClass::gemm: return "gemm";
    case OpClass::elementwise: return "elementwise";
    case OpClass::sampling: return "sampling";
    case OpClass::attention: return "attention";
    case OpClass::memory: return "memory";
    case OpClass::moe: return "moe";
    case OpClass::step: return "model_step";
  }
  return "?";
}

std::string valid_op_names() {
  std::string s;
  for (const auto& op : all_ops()) s += (s.empty() ? "" : ", ") + op.name;
  return s;
}

void validate_shape(const OpInfo& op, const Shape& shape, const std::string& file, const std::string& field) {
  for (const auto& name : op.fields) {
    if (!shape.has(name)) throw InputError(file, field + "." + name, "", "missing: " + op.name + " needs it");
    const auto v = shape.at(name);
    // 2^40 elements is far beyond any device; the cap keeps products of fields from overflowing.
    const std::int64_t low = field_may_be_zero(op.name, name) ? 0 : 1;
    if (v < low || v > (std::int64_t{1} << 40))
      throw InputError(file, field + "." + name, std::to_string(v),
                       "must be between " + std::to_string(low) + " and 2^40");
  }
  for (const auto& [name, v] : shape.fields()) {
    bool known = false;
    for (const auto& f : op.fields) known = known || f == name;
    if (!known) throw InputError(file, field + "." + name, std::to_string(v), "not a shape field of " + op.name);
  }
  auto fail = [&](const std::string& name, const std::string& problem) {
    throw InputError(file, field + "." + name, std::to_string(shape.at(name)), problem);
  };
  if (op.name == "rope" && shape.at("head_dim") % 2 != 0) fail("head_dim", "must be even (pairs rotate)");
  if (op.name == "sampling" && shape.at("top_k") > std::min<std::int64_t>(shape.at("vocab"), 1024))
    fail("top_k", "must be at most min(vocab, 1024)");
  if (op.name == "attention_decode_gqa" && shape.at("q_heads") % shape.at("kv_heads") != 0)
    fail("q_heads", "must be a multiple of kv_heads");
  validate_moe_and_step(op, shape, file, field);
}

double dtype_bytes(std::string_view dtype) {
  if (dtype == "fp32") return 4.0;
  if (dtype == "bf16" || dtype == "fp16") return 2.0;
  if (dtype == "fp8" || dtype == "u8") return 1.0;
  throw std::invalid_argument("unknown dtype " + std::string(dtype));
}

Cost op_cost(const OpInfo& op, const Shape& s, std::string_view dtype) {
  const double e = dtype_bytes(dtype);
  auto d = [&s](const char* name) { return static_cast<double>(s.at(name)); };
  Cost c;
  if (moe_and_step_cost(op, s, e, c)) return c;
  if (op.name == "gemm") {
    const double out_e = dtype == "fp8" ? 2.0 : e;
    c.flops = 2.0 * d("m") * d("n") * d("k");
    c.bytes = (d("m") * d("k") + d("n") * d("k")) * e + d("m") * d("n") * out_e;
  } else if (op.name == "rmsnorm") {
    c.flops = 4.0 * d("tokens") * d("hidden") + d("tokens");
    c.bytes = (2.0 * d("tokens") * d("hidden") + d("hidden")) * e;
  } else if (op.name == "swiglu") {
    c.flops = 5.0 * d("tokens") * d("width");  // exp, add, divide, multiply, multiply
    c.bytes = 3.0 * d("tokens") * d("width") * e;
  } else if (op.name == "rope") {
    const double elems = d("tokens") * (d("q_heads") + d("kv_heads")) * d("head_dim");
    c.flops = 3.0 * elems;
    // q and k read and written; per token one int32 position and one fp32 cos/sin row of head_dim.
    c.bytes = 2.0 * elems * e + d("tokens") * (4.0 + 4.0 * d("head_dim"));
  } else if (op.name == "sampling") {
    c.flops = 4.0 * d("batch") * d("vocab");  // compare, subtract, exp, add
    c.bytes = d("batch") * d("vocab") * e + d("batch") * 12.0;  // logits in; draw in; token and prob out
  } else if (op.name == "attention_decode_gqa") {
    const double pages = std::ceil(d("context") / d("page_size"));
    c.flops = 4.0 * d("batch") * d("q_heads") * d("context") * d("head_dim");
    c.bytes = 2.0 * d("batch") * d("context") * d("kv_heads") * d("head_dim") * e +
              2.0 * d("batch") * d("q_heads") * d("head_dim") * e + d("batch") * pages * 4.0;
  } else if (op.name == "attention_decode_mla") {
    const double pages = std::ceil(d("context") / d("page_size"));
    const double dk = d("latent_dim") + d("rope_dim"), dv = d("latent_dim");
    c.flops = 2.0 * d("batch") * d("q_heads") * d("context") * (dk + dv);
    c.bytes = d("batch") * d("context") * dk * e + d("batch") * d("q_heads") * (dk + dv) * e +
              d("batch") * pages * 4.0;
  } else if (op.name == "memcpy") {
    c.bytes = 2.0 * d("bytes");  // read and write, as STREAM and nvbandwidth count a copy
  }
  return c;
}

}  // namespace fleetcast::engine
