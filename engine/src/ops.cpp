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
      {"gemm", OpClass::gemm, {"m", "n", "k"}, {"bf16", "fp8", "fp32", "fp8_block", "mxfp8", "nvfp4"},
       {{"m", 33}, {"n", 80}, {"k", 128}},
       "Y[m,n] = X[m,k] W[n,k]^T, a linear layer over m tokens (FP8: per-tensor scales, bf16 out; fp8_block, mxfp8, "
       "nvfp4: block-scaled, bf16 out)"},
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
       {"batch", "context", "q_heads", "kv_heads", "head_dim", "page_size"}, {"bf16", "fp32", "fp8"},
       {{"batch", 3}, {"context", 37}, {"q_heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"page_size", 16}},
       "one query token per sequence over a paged K/V cache, grouped-query heads (fp8: E4M3 KV, bf16 q and out)"},
      {"attention_decode_mla", OpClass::attention,
       {"batch", "context", "q_heads", "latent_dim", "rope_dim", "page_size"}, {"bf16", "fp32", "fp8"},
       {{"batch", 2}, {"context", 37}, {"q_heads", 4}, {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 16}},
       "absorbed MLA decode: every head attends to one paged latent+rope entry per token; V is the latent"},
      {"memcpy", OpClass::memory, {"bytes"}, {"u8"}, {{"bytes", 1000003}},
       "copy a buffer within device memory (host memory on the CPU backend)"},
      // Prefill attention, host-device and peer copies, NCCL collectives.
      {"attention_prefill", OpClass::attention,
       {"batch", "chunk", "context", "q_heads", "kv_heads", "head_dim", "page_size"}, {"bf16", "fp32"},
       {{"batch", 2}, {"chunk", 19}, {"context", 21}, {"q_heads", 4}, {"kv_heads", 2}, {"head_dim", 32},
        {"page_size", 16}},
       "causal attention of `chunk` new tokens per sequence after `context` cached ones, paged K/V, GQA heads"},
      {"memcpy_h2d", OpClass::memory, {"bytes"}, {"u8"}, {{"bytes", 1000003}},
       "copy pinned host memory to the device (needs a device: skipped on the CPU backend)"},
      {"memcpy_d2h", OpClass::memory, {"bytes"}, {"u8"}, {{"bytes", 1000003}},
       "copy device memory to pinned host memory (needs a device: skipped on the CPU backend)"},
      {"memcpy_p2p", OpClass::memory, {"bytes"}, {"u8"}, {{"bytes", 1000003}},
       "copy from GPU 0's memory to GPU 1's (needs two GPUs)"},
      {"all_reduce", OpClass::collective, {"bytes", "gpus"}, {"bf16", "fp32"}, {{"bytes", 1 << 20}, {"gpus", 2}},
       "NCCL sum all-reduce of a `bytes` buffer on each of `gpus` GPUs"},
      {"all_gather", OpClass::collective, {"bytes", "gpus"}, {"bf16", "fp32"}, {{"bytes", 1 << 20}, {"gpus", 2}},
       "NCCL all-gather: each GPU ends with all `bytes` (bytes / gpus from each)"},
      {"reduce_scatter", OpClass::collective, {"bytes", "gpus"}, {"bf16", "fp32"}, {{"bytes", 1 << 20}, {"gpus", 2}},
       "NCCL sum reduce-scatter: each GPU reduces `bytes` into its bytes / gpus share"},
      {"all_to_all", OpClass::collective, {"bytes", "gpus"}, {"bf16", "fp32"}, {{"bytes", 1 << 20}, {"gpus", 2}},
       "NCCL all-to-all (grouped send/recv): each GPU sends bytes / gpus to every GPU, the EP dispatch pattern"},
      {"send_recv", OpClass::collective, {"bytes", "gpus"}, {"bf16", "fp32"}, {{"bytes", 1 << 20}, {"gpus", 2}},
       "NCCL send/recv of `bytes` from each GPU to the next in a ring"},
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
    case OpClass::collective: return "collective";
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
    // A prefill chunk may have no prior context: the first chunk of a prompt.
    if (op.name == "attention_prefill" && name == "context" && v == 0) continue;
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
  if (op.name == "attention_prefill" && shape.at("q_heads") % shape.at("kv_heads") != 0)
    fail("q_heads", "must be a multiple of kv_heads");
  if (op.op_class == OpClass::collective) {
    if (shape.at("gpus") < 2) fail("gpus", "a collective needs at least 2 GPUs");
    if (shape.at("gpus") > 72) fail("gpus", "must be at most 72 (one NVLink domain)");
    if (shape.at("bytes") % (4 * shape.at("gpus")) != 0)
      fail("bytes", "must be a multiple of 4 x gpus (= " + std::to_string(4 * shape.at("gpus")) +
                        "): every GPU's share is whole fp32 elements");
  }
  validate_moe_and_step(op, shape, file, field);
}

double collective_bus_factor(std::string_view op, std::int64_t gpus) {
  const double n = static_cast<double>(gpus);
  if (op == "all_reduce") return 2.0 * (n - 1.0) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1.0) / n;
  if (op == "send_recv") return 1.0;
  throw std::invalid_argument("not a collective: " + std::string(op));
}

double dtype_bytes(std::string_view dtype) {
  if (dtype == "fp32") return 4.0;
  if (dtype == "bf16" || dtype == "fp16") return 2.0;
  if (dtype == "fp8" || dtype == "u8") return 1.0;
  // Block-scaled GEMM inputs: the element and its share of the block's scale (fp32 per 128, UE8M0 per 32,
  // UE4M3 per 16; fp8_block's weights have one fp32 per 128 x 128, counted as the activations' rate).
  if (dtype == "fp8_block") return 1.0 + 4.0 / 128.0;
  if (dtype == "mxfp8") return 1.0 + 1.0 / 32.0;
  if (dtype == "nvfp4") return 0.5 + 1.0 / 16.0;
  throw std::invalid_argument("unknown dtype " + std::string(dtype));
}

Cost op_cost(const OpInfo& op, const Shape& s, std::string_view dtype) {
  const double e = dtype_bytes(dtype);
  auto d = [&s](const char* name) { return static_cast<double>(s.at(name)); };
  Cost c;
  if (moe_and_step_cost(op, s, e, c)) return c;
  if (op.name == "gemm") {
    const double out_e = dtype == "fp32" ? 4.0 : 2.0;  // bf16 out for every narrower input
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
    const double qo = dtype == "fp8" ? 2.0 : e;  // FP8 is the KV cache's; q and out stay bf16
    c.flops = 4.0 * d("batch") * d("q_heads") * d("context") * d("head_dim");
    c.bytes = 2.0 * d("batch") * d("context") * d("kv_heads") * d("head_dim") * e +
              2.0 * d("batch") * d("q_heads") * d("head_dim") * qo + d("batch") * pages * 4.0;
  } else if (op.name == "attention_decode_mla") {
    const double pages = std::ceil(d("context") / d("page_size"));
    const double dk = d("latent_dim") + d("rope_dim"), dv = d("latent_dim");
    const double qo = dtype == "fp8" ? 2.0 : e;
    c.flops = 2.0 * d("batch") * d("q_heads") * d("context") * (dk + dv);
    c.bytes = d("batch") * d("context") * dk * e + d("batch") * d("q_heads") * (dk + dv) * qo +
              d("batch") * pages * 4.0;
  } else if (op.name == "memcpy") {
    c.bytes = 2.0 * d("bytes");  // read and write, as STREAM and nvbandwidth count a copy
  } else if (op.name == "attention_prefill") {
    // Query i of a chunk (0-based) sees context + i + 1 keys: over the chunk, context x chunk plus the causal
    // triangle chunk (chunk + 1) / 2. QK^T and PV are 2 dk FLOPs per (query head, key) each.
    const double pairs = d("context") * d("chunk") + d("chunk") * (d("chunk") + 1.0) / 2.0;
    c.flops = 4.0 * d("batch") * d("q_heads") * d("head_dim") * pairs;
    const double keys = d("context") + d("chunk");
    const double pages = std::ceil(keys / d("page_size"));
    // K and V of every key once (the chunk's own included: it is written to the cache before attention),
    // q in and out once, the block table.
    c.bytes = 2.0 * d("batch") * keys * d("kv_heads") * d("head_dim") * e +
              2.0 * d("batch") * d("chunk") * d("q_heads") * d("head_dim") * e + d("batch") * pages * 4.0;
  } else if (op.name == "memcpy_h2d" || op.name == "memcpy_d2h" || op.name == "memcpy_p2p") {
    c.bytes = d("bytes");  // one crossing of the link, as nvbandwidth and bandwidthTest count it
  } else if (op.op_class == OpClass::collective) {
    // nccl-tests' bus bandwidth: size x factor / time, so achieved_gb_per_s is the bus bandwidth; the
    // algorithm bandwidth is shape.bytes / median_s.
    c.bytes = d("bytes") * collective_bus_factor(op.name, s.at("gpus"));
  }
  return c;
}

}  // namespace fleetcast::engine
