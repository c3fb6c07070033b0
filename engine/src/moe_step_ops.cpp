#include "moe_step_ops.hpp"

#include <cmath>
#include <stdexcept>

#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "problems/moe_problems.hpp"

namespace fleetcast::engine {

std::vector<OpInfo> with_moe_and_step_ops(std::vector<OpInfo> ops) {
  ops.push_back({"moe_routing",
                 OpClass::moe,
                 {"tokens", "experts", "top_k", "n_group", "topk_group", "sigmoid"},
                 {"bf16", "fp32"},
                 {{"tokens", 9}, {"experts", 16}, {"top_k", 4}, {"n_group", 4}, {"topk_group", 2}, {"sigmoid", 1}},
                 "router logits -> softmax (sigmoid 0) or sigmoid scores -> top_k experts and renormalised weights; "
                 "group-limited (DeepSeek-V3) when n_group > 1"});
  ops.push_back({"moe_permute",
                 OpClass::moe,
                 {"tokens", "hidden", "experts", "top_k"},
                 {"bf16", "fp32"},
                 {{"tokens", 9}, {"hidden", 40}, {"experts", 8}, {"top_k", 3}},
                 "gather each token's row once per chosen expert into expert order, with the offsets and maps"});
  ops.push_back({"moe_unpermute",
                 OpClass::moe,
                 {"tokens", "hidden", "experts", "top_k"},
                 {"bf16", "fp32"},
                 {{"tokens", 9}, {"hidden", 40}, {"experts", 8}, {"top_k", 3}},
                 "the weighted sum of each token's expert outputs back into token order"});
  ops.push_back({"moe_grouped_gemm",
                 OpClass::gemm,
                 {"rows", "experts", "n", "k", "zipf_milli", "seed"},
                 {"bf16", "fp32"},
                 {{"rows", 50}, {"experts", 6}, {"n", 24}, {"k", 40}, {"zipf_milli", 1500}, {"seed", 3}},
                 "each expert's rows times its [n, k] weight; rows per expert balanced (zipf_milli 0) or a seeded "
                 "power law of exponent zipf_milli / 1000"});
  OpInfo step{"model_step",
              OpClass::step,
              {"tp", "ep", "layers", "batch", "context", "new_tokens"},
              {"bf16", "fp32", "fp8"},
              {},
              "a forward step of the first `layers` layers of a model preset on one GPU of a tp/ep group"};
  // Prefill of 3 new tokens after 5 cached ones: embedding, causal paged attention, MLP and LM head at
  // llama-3.1-8b's widths on one GPU of eight.
  step.small_check = model_step_shape({"llama-3.1-8b", 8, 1, 1, 2, 5, 3});
  ops.push_back(step);
  return ops;
}

bool field_may_be_zero(const std::string& op, const std::string& field) {
  return (op == "moe_routing" && field == "sigmoid") ||
         (op == "moe_grouped_gemm" && (field == "zipf_milli" || field == "seed")) ||
         (op == "model_step" && field == "context");
}

void validate_moe_and_step(const OpInfo& op, const Shape& shape, const std::string& file, const std::string& field) {
  auto v = [&](const char* name) { return shape.at(name); };
  auto fail = [&](const std::string& name, const std::string& problem) {
    throw InputError(file, field + "." + name, std::to_string(shape.at(name)), problem);
  };
  if (op.name == "moe_routing") {
    if (v("sigmoid") > 1) fail("sigmoid", "must be 0 (softmax scores) or 1 (sigmoid scores)");
    if (v("experts") % v("n_group") != 0) fail("n_group", "must divide experts");
    if (v("topk_group") > v("n_group")) fail("topk_group", "must be at most n_group");
    if (v("top_k") > v("topk_group") * (v("experts") / v("n_group")))
      fail("top_k", "must be at most the experts of the topk_group groups (topk_group x experts / n_group)");
  } else if (op.name == "moe_permute" || op.name == "moe_unpermute") {
    if (v("top_k") > v("experts")) fail("top_k", "must be at most experts");
    if (v("tokens") * v("top_k") > (std::int64_t{1} << 31) - 1) fail("tokens", "tokens x top_k must fit int32 rows");
  } else if (op.name == "moe_grouped_gemm") {
    if (v("rows") > (std::int64_t{1} << 31) - 1) fail("rows", "must fit int32 offsets");
  } else if (op.name == "model_step") {
    if (!shape.has_text("model"))
      throw InputError(file, field, "", "model_step takes its model from the entry's \"models\" (and \"tp\")");
    const std::string& name = shape.text_at("model");
    if (!specs::has_preset(specs::PresetKind::model, name))
      throw InputError(file, field + ".model", name, "unknown model preset");
    try {
      (void)step_dims(specs::model_preset(name), step_shape_of(shape));
    } catch (const std::invalid_argument& e) {
      throw InputError(file, field, name, e.what());
    }
  }
}

bool moe_and_step_cost(const OpInfo& op, const Shape& s, double e, Cost& c) {
  auto d = [&s](const char* name) { return static_cast<double>(s.at(name)); };
  if (op.name == "moe_routing") {
    // Per logit: the score (exp, add, divide) and a compare in the top-k; per pick an add and a divide.
    c.flops = d("tokens") * (4.0 * d("experts") + 2.0 * d("top_k"));
    c.bytes = d("tokens") * d("experts") * e + d("tokens") * d("top_k") * 8.0;  // logits in; ids, weights out
  } else if (op.name == "moe_permute") {
    const double slots = d("tokens") * d("top_k");
    // Each token row read once and written once per pick; ids in, two int32 maps and the offsets out.
    c.bytes = (d("tokens") + slots) * d("hidden") * e + slots * 4.0 * 3.0 + (d("experts") + 1.0) * 4.0;
  } else if (op.name == "moe_unpermute") {
    const double slots = d("tokens") * d("top_k");
    c.flops = 2.0 * slots * d("hidden");
    c.bytes = (slots + d("tokens")) * d("hidden") * e + slots * 8.0;  // rows and y; weights and map
  } else if (op.name == "moe_grouped_gemm") {
    const auto counts = expert_row_counts(s.at("rows"), s.at("experts"), s.at("zipf_milli"), s.at("seed"));
    double used = 0.0;
    for (const auto n : counts) used += n > 0 ? 1.0 : 0.0;
    c.flops = 2.0 * d("rows") * d("n") * d("k");
    // Only the experts that got rows have their weights read.
    c.bytes = (d("rows") * d("k") + used * d("n") * d("k") + d("rows") * d("n")) * e + (d("experts") + 1.0) * 4.0;
  } else if (op.name == "model_step") {
    c = model_step_cost(specs::model_preset(s.text_at("model")), step_shape_of(s), e);
  } else {
    return false;
  }
  return true;
}

}  // namespace fleetcast::engine
