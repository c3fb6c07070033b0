#include "fleetcast/simulator/step_time_predictors.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>

#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {
namespace {

double at(const OpShape& s, const char* key) {
  const auto it = s.find(key);
  return it == s.end() ? 0.0 : it->second;
}

double dtype_bytes(const std::string& dtype) {
  if (dtype == "fp32") return 4.0;
  if (dtype == "fp8" || dtype == "e4m3" || dtype == "e5m2") return 1.0;
  if (dtype == "fp4" || dtype == "nvfp4") return 0.5;
  return 2.0;
}

}  // namespace

bool OpPredictors::any() const {
  if (!profile_->predictors.empty()) return true;
  return std::any_of(profile_->collectives.begin(), profile_->collectives.end(),
                     [](const calibration::CollectiveModel& c) { return c.points > 0; });
}

std::pair<double, double> OpPredictors::work(const std::string& op, const OpShape& s, double e) {
  auto d = [&s](const char* key) { return at(s, key); };
  double flops = 0.0, bytes = 0.0;
  if (op == "gemm") {
    flops = 2.0 * d("m") * d("n") * d("k");
    const double out_e = e == 1.0 ? 2.0 : e;  // FP8 GEMMs write bf16
    bytes = (d("m") * d("k") + d("n") * d("k")) * e + d("m") * d("n") * out_e;
  } else if (op == "rmsnorm") {
    flops = 4.0 * d("tokens") * d("hidden") + d("tokens");
    bytes = (2.0 * d("tokens") * d("hidden") + d("hidden")) * e;
  } else if (op == "swiglu") {
    flops = 5.0 * d("tokens") * d("width");
    bytes = 3.0 * d("tokens") * d("width") * e;
  } else if (op == "rope") {
    const double elems = d("tokens") * (d("q_heads") + d("kv_heads")) * d("head_dim");
    flops = 3.0 * elems;
    bytes = 2.0 * elems * e + d("tokens") * (4.0 + 4.0 * d("head_dim"));
  } else if (op == "attention_decode_gqa") {
    const double pages = std::ceil(d("context") / d("page_size"));
    const double qo = e < 2.0 ? 2.0 : e;  // an FP8 cache keeps q and out in bf16
    flops = 4.0 * d("batch") * d("q_heads") * d("context") * d("head_dim");
    bytes = 2.0 * d("batch") * d("context") * d("kv_heads") * d("head_dim") * e +
            2.0 * d("batch") * d("q_heads") * d("head_dim") * qo + d("batch") * pages * 4.0;
  } else if (op == "attention_decode_mla") {
    const double pages = std::ceil(d("context") / d("page_size"));
    const double dk = d("latent_dim") + d("rope_dim"), dv = d("latent_dim");
    const double qo = e < 2.0 ? 2.0 : e;
    flops = 2.0 * d("batch") * d("q_heads") * d("context") * (dk + dv);
    bytes = d("batch") * d("context") * dk * e + d("batch") * d("q_heads") * (dk + dv) * qo + d("batch") * pages * 4.0;
  } else if (op == "attention_prefill") {
    const double pairs = d("context") * d("chunk") + d("chunk") * (d("chunk") + 1.0) / 2.0;
    flops = 4.0 * d("batch") * d("q_heads") * d("head_dim") * pairs;
    const double keys = d("context") + d("chunk");
    bytes = 2.0 * d("batch") * keys * d("kv_heads") * d("head_dim") * e +
            2.0 * d("batch") * d("chunk") * d("q_heads") * d("head_dim") * e +
            d("batch") * std::ceil(keys / d("page_size")) * 4.0;
  } else if (op == "moe_routing") {
    flops = d("tokens") * (4.0 * d("experts") + 2.0 * d("top_k"));
    bytes = d("tokens") * d("experts") * e + d("tokens") * d("top_k") * 8.0;
  } else if (op == "moe_permute") {
    const double slots = d("tokens") * d("top_k");
    bytes = (d("tokens") + slots) * d("hidden") * e + slots * 12.0 + (d("experts") + 1.0) * 4.0;
  } else if (op == "moe_unpermute") {
    const double slots = d("tokens") * d("top_k");
    flops = 2.0 * slots * d("hidden");
    bytes = (slots + d("tokens")) * d("hidden") * e + slots * 8.0;
  } else if (op == "moe_grouped_gemm") {
    // "used": the experts that got rows (the engine counts them from its row split; here the expected number).
    const double used = s.count("used") ? d("used") : std::min(d("experts"), d("rows"));
    flops = 2.0 * d("rows") * d("n") * d("k");
    bytes = (d("rows") * d("k") + used * d("n") * d("k") + d("rows") * d("n")) * e + (d("experts") + 1.0) * 4.0;
  }
  return {flops, bytes};
}

std::optional<double> OpPredictors::time_s(const std::string& op, const std::string& dtype,
                                           const OpShape& shape) const {
  // Only a predictor over shapes with FLOP and byte counts (the engine's): an imported kernel's (variant
  // "kernel=<name>", no counts, no peaks) times one kernel of a real engine, not this op at any shape.
  const auto it = std::find_if(profile_->predictors.begin(), profile_->predictors.end(), [&](const auto& c) {
    return c.op == op && c.dtype == dtype && c.variant.empty() && c.roofline.peaks.flops_per_s > 0.0 &&
           c.roofline.peaks.bytes_per_s > 0.0;
  });
  if (it == profile_->predictors.end()) return std::nullopt;
  const calibration::OpPredictor* p = &*it;
  std::vector<double> q;
  for (const auto& dim : p->dims) {
    const auto it = shape.find(dim);
    if (it == shape.end()) return std::nullopt;  // a shape field the model does not know: the roofline answers
    q.push_back(it->second);
  }
  const auto [flops, bytes] = work(op, shape, dtype_bytes(dtype));
  return p->predict(q, flops, bytes);
}

std::optional<double> OpPredictors::collective_s(const std::string& op, int gpus, double bytes) const {
  for (const auto& c : profile_->collectives) {
    if (c.op == op && c.gpus == gpus && c.points > 0 && c.bytes_per_s > 0.0) return c.latency_s + bytes / c.bytes_per_s;
  }
  return std::nullopt;
}

// The step-time model's op classes as the engine runs them (engine/src/plan_models.cpp, engine/README.md
// "model_step", and vLLM's layers: a fused QKV projection, the output projection, merged gate/up and down
// GEMMs; every token of the step in one GEMM), each timed by its op's predictor.
void StepTimeModel::predict_layers(const BatchShape& b, const Layers& l, const MoeTokens& moe_tokens,
                                   StepTime& st) const {
  const OpPredictors pred(profile_);
  if (!pred.any()) return;
  const auto& a = model_.attention;
  const int tp = deployment_.replica.tp;
  const double h = model_.hidden_size;
  const double pre = b.prefill_tokens(), dec = b.decode_tokens(), tokens = pre + dec;
  const std::string w(specs::to_string(model_.precision.weights));
  const std::string act(specs::to_string(model_.precision.activations));
  const std::string kv_dtype(specs::to_string(model_.precision.kv_cache));
  const bool gqa = a.type == specs::AttentionType::gqa;
  const double q_heads = static_cast<double>(a.num_query_heads) / tp;
  const double kv_heads = gqa ? std::ceil(static_cast<double>(a.num_kv_heads) / tp) : 1.0;
  auto gemm = [&](double m, double n, double k, const std::string& dtype) {
    return pred.time_s("gemm", dtype, {{"m", m}, {"n", n}, {"k", k}});
  };
  auto op = [&st](Op o) -> OpCost& { return st.ops[static_cast<int>(o)]; };

  if (tokens > 0.0 && gqa) {
    // A gated layer's fused projection also makes the output gate: a second query-sized block.
    const double q_blocks = a.output_gate ? 2.0 : 1.0;
    const auto qkv = gemm(tokens, (q_blocks * q_heads + 2.0 * kv_heads) * a.head_dim, h, w);
    const auto out = gemm(tokens, h, q_heads * a.head_dim, w);
    // A Gated DeltaNet layer: in_proj_qkvz and in_proj_ba as one GEMM, then out_proj (the conv is not a GEMM).
    std::optional<double> linear = 0.0;
    if (const auto& la = model_.linear_attention; la && l.linear > 0) {
      const double keys = la->key_width() / tp, values = la->value_width() / tp;
      const auto in = gemm(tokens, 2.0 * keys + 2.0 * values + 2.0 * la->num_value_heads / tp, h, w);
      const auto back = gemm(tokens, h, values, w);
      linear = in && back ? std::optional<double>(*in + *back) : std::nullopt;
    }
    if (qkv && out && linear) op(Op::attn_proj).time_s = l.softmax() * (*qkv + *out) + l.linear * *linear;
  }
  if (tokens > 0.0 && l.dense > 0 && model_.dense_ffn_width > 0) {
    const double f = static_cast<double>(model_.dense_ffn_width) / tp;
    const auto up = gemm(tokens, 2.0 * f, h, w), down = gemm(tokens, h, f, w);
    if (up && down) op(Op::dense_ffn).time_s = l.dense * (*up + *down);
  }

  // Elementwise: two RMSNorms and RoPE per layer, SwiGLU per dense FFN; a part without a predictor keeps its
  // roofline (its bytes at the memory rate plus one op latency).
  {
    const double abytes = specs::bytes_per_element(model_.precision.activations);
    int predicted = 0;
    auto part = [&](const std::string& name, const OpShape& shape) {
      if (tokens <= 0.0) return 0.0;
      if (auto t = pred.time_s(name, act, shape)) {
        ++predicted;
        return *t;
      }
      return OpPredictors::work(name, shape, abytes).second / rates_.hbm_bytes_per_s() + profile_.op_latency_s;
    };
    const double rope_dim = gqa ? a.head_dim : a.qk_rope_head_dim;
    double t =
        l.all *
        (2.0 * part("rmsnorm", {{"tokens", tokens}, {"hidden", h}}) +
         part("rope", {{"tokens", tokens}, {"q_heads", q_heads}, {"kv_heads", kv_heads}, {"head_dim", rope_dim}}));
    if (l.dense > 0 && model_.dense_ffn_width > 0) {
      t += l.dense * part("swiglu", {{"tokens", tokens}, {"width", static_cast<double>(model_.dense_ffn_width) / tp}});
    }
    if (predicted > 0) op(Op::elementwise).time_s = t;
  }

  // Attention: decode by the batch and its mean context (the kernel's work is linear in the keys summed over
  // the sequences), prefill by chunks of one (tokens, context). A phase without a predictor keeps its roofline.
  OpCost& att = op(Op::attention);
  double pre_s = att.time_s * att.prefill_share, dec_s = att.time_s - pre_s;
  const double page = 16.0;                         // vLLM's default block size, the engine's plans' page_size
  if (!b.decode_contexts.empty() && !a.sparse()) {  // a dense kernel's predictor does not fit a sparse one
    const double queries = 1.0 + b.draft_tokens;
    double keys = 0.0;
    for (int c : b.decode_contexts) keys += c + queries;  // the last query sees the context and every new token
    const double batch = b.num_decode() * queries, mean = std::round(keys / b.num_decode());
    // Chunked attention: the mean context's place in its chunk (keys 1 to the chunk's size).
    const double window = a.sliding_window_tokens <= 0 ? mean
                          : a.sliding_window_chunked   ? std::fmod(mean - 1.0, a.sliding_window_tokens) + 1.0
                                                       : a.sliding_window_tokens;
    auto decode = [&](double context) -> std::optional<double> {
      if (gqa) {
        return pred.time_s("attention_decode_gqa", kv_dtype,
                           {{"batch", batch},
                            {"context", context},
                            {"q_heads", q_heads},
                            {"kv_heads", kv_heads},
                            {"head_dim", a.head_dim},
                            {"page_size", page}});
      }
      return pred.time_s("attention_decode_mla", kv_dtype,
                         {{"batch", batch},
                          {"context", context},
                          {"q_heads", q_heads},
                          {"latent_dim", a.kv_lora_rank},
                          {"rope_dim", a.qk_rope_head_dim},
                          {"page_size", 64.0}});
    };
    const auto full = decode(mean), windowed = decode(std::min(mean, window));
    if (full && windowed) dec_s = (l.softmax() - l.sliding) * *full + l.sliding * *windowed;
  }
  if (!b.prefill.empty() && gqa) {
    std::map<std::pair<int, int>, int> chunks;  // (tokens, context) -> sequences
    for (const PrefillChunk& c : b.prefill) ++chunks[{c.tokens, c.context_before}];
    double t = 0.0;
    bool all = true;
    for (const auto& [shape, n] : chunks) {
      const auto one = pred.time_s("attention_prefill", kv_dtype,
                                   {{"batch", n},
                                    {"chunk", shape.first},
                                    {"context", shape.second},
                                    {"q_heads", q_heads},
                                    {"kv_heads", kv_heads},
                                    {"head_dim", a.head_dim},
                                    {"page_size", page}});
      all = all && one.has_value();
      t += one.value_or(0.0);
    }
    if (all) pre_s = l.softmax() * t;
  }
  att.time_s = pre_s + dec_s;
  att.prefill_share = att.time_s > 0.0 ? pre_s / att.time_s : 0.0;

  if (model_.moe && l.moe > 0) {
    const auto& m = *model_.moe;
    const std::string ex(specs::to_string(model_.precision.experts));
    const double experts = m.num_routed_experts, k = m.top_k;
    if (tokens > 0.0) {
      // The router GEMM (kept 16-bit on a GPU; a CPU trace has only fp32) and the top-k routing.
      const std::string router_dtype = w == "fp32" ? w : "bf16";
      if (const auto router = gemm(tokens, experts, h, router_dtype)) {
        const auto routing = pred.time_s("moe_routing", act,
                                         {{"tokens", tokens},
                                          {"experts", experts},
                                          {"top_k", k},
                                          {"n_group", 1.0},
                                          {"topk_group", 1.0},
                                          {"sigmoid", 0.0}});
        op(Op::moe_gate).time_s = l.moe * (*router + routing.value_or(0.0));
      }
    }
    const double moe_all = moe_tokens.prefill + moe_tokens.decode;
    const int ep = deployment_.replica.ep;
    const double local = ep > 1 ? experts / ep : experts;
    const double width = static_cast<double>(m.expert_width) / deployment_.replica.moe_tp();
    const double rows = measured_rows_ ? measured_rows_->rows() : moe_all * k * experts_.load_factor / ep;
    const double used = measured_rows_ ? measured_rows_->experts_used()
                                       : std::min(local, copies_touched_on_busiest(experts_, m.top_k, moe_all));
    auto grouped = [&](double n, double kk) {
      return pred.time_s("moe_grouped_gemm", ex,
                         {{"rows", rows},
                          {"experts", local},
                          {"n", n},
                          {"k", kk},
                          {"zipf_milli", 0.0},
                          {"seed", 0.0},
                          {"used", used}});
    };
    const double expert_in = m.expert_input_width(model_.hidden_size);  // a latent MoE's experts run at its width
    const auto up = grouped(2.0 * width, expert_in), down = grouped(expert_in, width);
    if (rows > 0.0 && up && down) {
      const OpShape slots{{"tokens", moe_all}, {"hidden", expert_in}, {"experts", experts}, {"top_k", k}};
      const double extra = pred.time_s("swiglu", act, {{"tokens", rows}, {"width", width}}).value_or(0.0) +
                           pred.time_s("moe_permute", act, slots).value_or(0.0) +
                           pred.time_s("moe_unpermute", act, slots).value_or(0.0);
      op(Op::moe_experts).time_s = l.moe * (*up + *down + extra);
    }
    if (tokens > 0.0 && (m.num_shared_experts > 0 || m.latent_width > 0)) {
      const double f = static_cast<double>(m.shared_expert_width > 0 ? m.shared_expert_width : m.expert_width) *
                       m.num_shared_experts / tp;
      const auto sup = gemm(tokens, 2.0 * f, h, w), sdown = gemm(tokens, h, f, w);
      // A latent MoE's down and up projections, costed with the shared experts (cost_ffn).
      const double lw = static_cast<double>(m.latent_width) / tp;
      const auto ldown = m.latent_width > 0 ? gemm(tokens, lw, h, w) : std::optional<double>(0.0);
      const auto lup = m.latent_width > 0 ? gemm(tokens, h, lw, w) : std::optional<double>(0.0);
      const bool shared = m.num_shared_experts > 0;
      if ((!shared || (sup && sdown)) && ldown && lup)
        op(Op::shared_expert).time_s = l.moe * ((shared ? *sup + *sdown : 0.0) + *ldown + *lup);
    }
  }

  // TP all-reduces from a fitted all_reduce at this group size (calls as cost_allreduce counts them).
  const auto& layout = deployment_.replica;
  if (layout.tp > 1 && tokens > 0.0) {
    const double message = tokens * h * specs::bytes_per_element(model_.precision.activations);
    const auto one = pred.collective_s("all_reduce", layout.tp, message);
    const auto norm = pred.collective_s("all_reduce", layout.tp, tokens * kQkNormBytesPerToken);
    if (one && norm)
      op(Op::tp_allreduce).time_s = hidden_allreduces_per_pass(l) * *one + qk_norm_allreduces_per_pass(l) * *norm;
  }
}

void StepTimeModel::predict_head(double sampled_rows, specs::Precision head_precision, StepTime& st) const {
  const OpPredictors pred(profile_);
  if (sampled_rows <= 0.0 || !pred.any()) return;
  const int tp = deployment_.replica.tp;
  const double vocab = std::ceil(static_cast<double>(model_.vocab_size) / tp);  // padded, as the engine splits it
  if (const auto t = pred.time_s("gemm", std::string(specs::to_string(head_precision)),
                                 {{"m", sampled_rows}, {"n", vocab}, {"k", static_cast<double>(model_.hidden_size)}})) {
    st.ops[static_cast<int>(Op::lm_head)].time_s = *t;
  }
}

}  // namespace fleetcast::simulator
