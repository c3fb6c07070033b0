// The MoE ops and model_step on the CPU backend: each kernel against the reference on small shapes,
// group-limited routing on a constructed case, the permute/unpermute round trip, an empty expert in the
// grouped GEMM, a whole two-layer step against the reference step, the hand count of one step and the
// trace record's shape contract.

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "cpu/cpu_model_step.hpp"
#include "cpu/cpu_moe.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/harness.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "problems/model_step_problem.hpp"
#include "problems/moe_problems.hpp"
#include "reference/moe_reference.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;
using fleetcast::InputError;
using nlohmann::json;

using fleetcast::engine::test::reader;
using fleetcast::engine::test::tiny_moe_model;

namespace {

CheckResult check_cpu(const std::string& op_name, const Shape& shape) {
  auto backend = make_cpu_backend();
  const OpInfo& op = *find_op(op_name);
  validate_shape(op, shape, "test", "shape");
  const Support s = backend->support(op, "bf16", shape);
  REQUIRE(s.supported);
  REQUIRE(s.dtype == "fp32");
  return backend->prepare(op, s.dtype, shape)->check(true);
}

}  // namespace

TEST_CASE("moe ops: CPU kernels match the reference on small shapes", "[engine][cpu][moe]") {
  for (const auto& s :
       {Shape{{"tokens", 33}, {"experts", 64}, {"top_k", 6}, {"n_group", 1}, {"topk_group", 1}, {"sigmoid", 0}},
        Shape{{"tokens", 33}, {"experts", 256}, {"top_k", 8}, {"n_group", 8}, {"topk_group", 4}, {"sigmoid", 1}},
        Shape{{"tokens", 5}, {"experts", 12}, {"top_k", 3}, {"n_group", 4}, {"topk_group", 1}, {"sigmoid", 0}}}) {
    INFO(s.text());
    CHECK(check_cpu("moe_routing", s).compared == static_cast<std::size_t>(2 * s.at("tokens") * s.at("top_k")));
  }
  const Shape p{{"tokens", 17}, {"hidden", 33}, {"experts", 10}, {"top_k", 4}};
  // Every row, the offsets and the source slots, all exact.
  CHECK(check_cpu("moe_permute", p).compared == 17 * 4 * 33 + 11 + 17 * 4);
  CHECK(check_cpu("moe_unpermute", p).compared == 17 * 33);
  CHECK(check_cpu("moe_grouped_gemm",
                  {{"rows", 70}, {"experts", 9}, {"n", 20}, {"k", 30}, {"zipf_milli", 0}, {"seed", 0}})
            .compared == 70 * 20);
  CHECK(check_cpu("moe_grouped_gemm",
                  {{"rows", 70}, {"experts", 9}, {"n", 20}, {"k", 30}, {"zipf_milli", 1200}, {"seed", 5}})
            .compared == 70 * 20);
}

TEST_CASE("moe routing: group-limited routing picks other experts than plain top-k", "[engine][cpu][moe]") {
  // 8 experts in 4 groups of 2. The two best single logits (5 and 4; experts 2 and 3 tie at 4, the lower
  // index wins) are in groups 0 and 1; by the sum of its two sigmoid scores group 1 (4, 4) beats group 0
  // (5, -5), so with one group allowed DeepSeek-V3's rule takes experts 2 and 3. Softmax groups score by
  // their best expert (DeepSeek-V2): group 0 wins with 5 and both its experts are taken.
  const std::vector<float> logits = {5, -5, 4, 4, -5, -5, -5, -5};
  auto route = [&](std::int64_t n_group, bool sigmoid) {
    std::vector<std::int32_t> ids(2);
    std::vector<float> weights(2);
    cpu::moe_routing(logits.data(), ids.data(), weights.data(), 1, {8, 2, n_group, 1, sigmoid});
    const auto ref = reference::moe_route(logits.data(), 8, 2, n_group, 1, sigmoid);
    CHECK(ref.ids == std::vector<std::int64_t>(ids.begin(), ids.end()));
    CHECK(weights[0] + weights[1] == Catch::Detail::Approx(1.0));
    return std::vector<int>(ids.begin(), ids.end());
  };
  CHECK(route(1, true) == std::vector<int>{0, 2});
  CHECK(route(4, true) == std::vector<int>{2, 3});
  CHECK(route(1, false) == std::vector<int>{0, 2});
  CHECK(route(4, false) == std::vector<int>{0, 1});
}

TEST_CASE("moe permute then unpermute gives the tokens back exactly", "[engine][cpu][moe]") {
  const std::int64_t tokens = 23, hidden = 19, experts = 7, top_k = 2;
  std::vector<float> x(tokens * hidden);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = uniform_pm1(5, i);
  const auto ids = seeded_expert_ids(6, tokens, top_k, experts);
  std::vector<float> permuted(tokens * top_k * hidden), y(tokens * hidden);
  std::vector<std::int32_t> offsets(experts + 1), source(tokens * top_k), dest(tokens * top_k);
  const auto rows = cpu::moe_permute(x.data(), ids.data(), permuted.data(), offsets.data(), source.data(), dest.data(),
                                     tokens, hidden, top_k, 0, experts);
  CHECK(rows == tokens * top_k);
  // Weights of 1/2 twice: 0.5 x + 0.5 x is x in floating point, so the round trip is exact.
  const std::vector<float> half(tokens * top_k, 0.5f);
  cpu::moe_unpermute(permuted.data(), half.data(), dest.data(), y.data(), tokens, hidden, top_k);
  CHECK(y == x);

  // Expert parallel: a GPU holding experts 2..4 keeps only their slots, and the others map to -1.
  const auto kept = cpu::moe_permute(x.data(), ids.data(), permuted.data(), offsets.data(), source.data(), dest.data(),
                                     tokens, hidden, top_k, 2, 3);
  const auto local = std::count_if(ids.begin(), ids.end(), [](std::int32_t e) { return e >= 2 && e < 5; });
  CHECK(kept == local);
  CHECK(std::count(dest.begin(), dest.end(), -1) == tokens * top_k - local);
  for (std::int64_t r = 0; r < kept; ++r) CHECK(dest[source[r]] == r);
}

TEST_CASE("moe grouped GEMM: an expert with no rows is skipped, its weights not counted", "[engine][cpu][moe]") {
  MoeGroupedGemmProblem p(24, 40, {3, 0, 5}, Storage::fp32);
  CHECK(p.offsets == std::vector<std::int32_t>{0, 3, 3, 8});
  std::vector<float> x(p.x.count), w(p.w.count), y(p.rows * p.n, -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = p.x.value(Storage::fp32, i);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = p.w.value(Storage::fp32, i);
  cpu::moe_grouped_gemm(x.data(), w.data(), p.offsets.data(), y.data(), p.experts, p.n, p.k);
  CHECK(p.check(reader(y), "grouped", tolerance_for("fp32"), true).compared == 8 * 24);
  // 3 rows over 5 experts, balanced: experts 3 and 4 get none and their weights are not read.
  const Shape s{{"rows", 3}, {"experts", 5}, {"n", 24}, {"k", 40}, {"zipf_milli", 0}, {"seed", 0}};
  CHECK(op_cost(*find_op("moe_grouped_gemm"), s, "fp32").bytes == (3.0 * 40 + 3 * 24 * 40 + 3 * 24) * 4 + 6 * 4);
  CHECK(op_cost(*find_op("moe_grouped_gemm"), s, "fp32").flops == 2.0 * 3 * 24 * 40);
}

TEST_CASE("moe token distributions: balanced, and a seeded power law with hot experts", "[engine][moe]") {
  const auto balanced = expert_row_counts(1000, 64, 0, 0);
  CHECK(std::accumulate(balanced.begin(), balanced.end(), std::int64_t{0}) == 1000);
  CHECK(*std::max_element(balanced.begin(), balanced.end()) - *std::min_element(balanced.begin(), balanced.end()) == 1);
  const auto skewed = expert_row_counts(1000, 64, 1200, 7);
  CHECK(std::accumulate(skewed.begin(), skewed.end(), std::int64_t{0}) == 1000);
  // Zipf 1.2 over 64 experts gives the hottest about 1 / sum(r^-1.2) = 28% of the rows; balanced is 1.6%.
  CHECK(*std::max_element(skewed.begin(), skewed.end()) > 200);
  CHECK(std::count(skewed.begin(), skewed.end(), 0) > 0);  // the tail gets nothing at all
  CHECK(expert_row_counts(1000, 64, 1200, 7) == skewed);
  CHECK(expert_row_counts(1000, 64, 1200, 8) != skewed);
}

TEST_CASE("model_step: two layers on the CPU match the reference step", "[engine][cpu][model_step]") {
  const auto model = tiny_moe_model();
  // tp 2, ep 2: 2 query heads and 1 kv head here, experts 0..3 of 8 whole, the shared expert split.
  for (const StepShape& s : {StepShape{"tiny-moe", 2, 2, 2, 3, 21, 1}, StepShape{"tiny-moe", 2, 2, 2, 2, 13, 5},
                             StepShape{"tiny-moe", 1, 1, 3, 2, 0, 4}}) {
    INFO("tp " << s.tp << " ep " << s.ep << " layers " << s.layers << " context " << s.context << " new "
               << s.new_tokens);
    ModelStepProblem p(model, s);
    CHECK(p.dims.local_experts == 8 / s.ep);
    cpu::ModelStepRunner runner(p);
    runner.run();
    const auto r = p.check(reader(runner.logits()), "step", tolerance_for("fp32"), true);
    CHECK(r.compared == static_cast<std::size_t>(s.batch * p.dims.vocab_local));
    // The rows each local expert got, one list per MoE layer (layer 0 is dense): with ep 1 every token's top-2
    // picks land here, with ep 2 some go to the other rank; an expert takes a token at most once.
    const auto routed = runner.expert_rows();
    const std::int64_t tokens = s.tokens();
    REQUIRE(routed.size() == static_cast<std::size_t>(s.layers - 1));
    for (const auto& layer : routed) {
      REQUIRE(layer.size() == static_cast<std::size_t>(p.dims.local_experts));
      const std::int64_t rows = std::accumulate(layer.begin(), layer.end(), std::int64_t{0});
      if (s.ep == 1) CHECK(rows == 2 * tokens);
      CHECK(rows <= 2 * tokens);
      CHECK(*std::max_element(layer.begin(), layer.end()) <= tokens);
    }
    // A second run rewrites the same cache entries with the same values: the same logits.
    const auto first = runner.logits();
    runner.run();
    CHECK(runner.logits() == first);
  }
}

TEST_CASE("model_step: a wrong layer is caught by the reference step", "[engine][cpu][model_step]") {
  ModelStepProblem p(tiny_moe_model(), {"tiny-moe", 2, 2, 2, 2, 9, 1});
  cpu::ModelStepRunner runner(p);
  runner.run();
  // A router weight changed after the run: the reference routes (and so computes) differently.
  for (auto& w : p.layers[1].router) w = -w;
  CHECK_THROWS_AS(p.check(reader(runner.logits()), "step", tolerance_for("fp32"), true), CheckFailed);
}

TEST_CASE("model_step: FLOPs and bytes counted by hand for one shape", "[engine][cost][model_step]") {
  // llama-3.1-8b on one GPU of 4, 1 layer, decode of 2 sequences with 100 cached tokens: H 4096, 8 q and
  // 2 kv heads of 128, FFN 14336 / 4 = 3584, vocabulary 128256 / 4 = 32064 rows; T = 2 tokens.
  //   attention and MLP RMSNorm  2 x (4 T H + T)             =      65540
  //   QKV                        2 T H (8 + 2 x 2) 128       =   25165824
  //   RoPE                       3 T (8 + 2) 128             =       7680
  //   attention                  4 B 8 x 128 (100 + 1)       =     827392
  //   O projection               2 T 1024 H                  =   16777216
  //   two residual adds          2 T H                       =      16384
  //   gate/up, SwiGLU, down      2T H 7168 + 5T 3584 + 2T 3584 H = 176196608
  //   final RMSNorm              4 B H + B                   =      32770
  //   LM head                    2 B H 32064                 =  525336576
  //   total                                                  =  744425990
  const StepShape s{"llama-3.1-8b", 4, 1, 1, 2, 100, 1};
  const Cost c = model_step_cost(fleetcast::specs::model_preset("llama-3.1-8b"), s, 4.0);
  CHECK(c.flops == 744425990.0);
  // The weights are read once whatever the batch: 8 sequences add their KV and activations, not weights.
  const double weights = 4.0 * (4096.0 * 1536 + 1024.0 * 4096 + 3.0 * 3584 * 4096 + 32064.0 * 4096 + 3 * 4096);
  CHECK(c.bytes > weights);
  CHECK(c.bytes < weights * 1.01);
  // The record carries the same count.
  const Cost via_op = op_cost(*find_op("model_step"), model_step_shape(s), "fp32");
  CHECK(via_op.flops == c.flops);
  CHECK(via_op.bytes == c.bytes);
}

TEST_CASE("model_step: the record's shape is the contract, in order", "[engine][model_step][plan]") {
  const Plan plan = parse_plan(json::parse(R"({"name": "t", "ops": [
      {"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "tp": 4,
       "sweep": {"ep": [1], "layers": [2], "batch": [8], "context": [2048], "new_tokens": [1, 128]}}]})"),
                               "plan.json");
  const auto cases = expand_plan(plan);
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].op_case.shape.to_json().dump() ==
        R"({"model":"llama-3.1-8b","tp":4,"ep":1,"layers":2,"phase":"decode","batch":8,"context":2048,)"
        R"("new_tokens":1})");
  CHECK(cases[1].op_case.shape.to_json().dump() ==
        R"({"model":"llama-3.1-8b","tp":4,"ep":1,"layers":2,"phase":"prefill","batch":8,"context":2048,)"
        R"("new_tokens":128})");
  const auto m = make_measurement(*find_op("model_step"), "fp32", cases[0].op_case.shape, {1e-3}, {});
  CHECK(m.op == "model_step");
  CHECK(m.dtype == "fp32");
  CHECK(m.gpus == 1);
  CHECK(m.shape.dump() == cases[0].op_case.shape.to_json().dump());
  CHECK(m.flops > 0.0);
}

TEST_CASE("model_step: plans name the model and fail on shapes it cannot take", "[engine][model_step][plan]") {
  auto error_of = [](const std::string& entry) {
    try {
      parse_plan(json::parse(R"({"name": "t", "ops": [)" + entry + "]}"), "plan.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string sweep = R"("sweep": {"ep": [1], "layers": [1], "batch": [1], "context": [0], "new_tokens": [1]})";
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["fp32"], )" + sweep + "}"),
             Catch::Contains("ops[0].models") && Catch::Contains("model preset"));
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["fp32"], "models": ["qwen3-235b-a22b"], "tp": 8,
                         "sweep": {"ep": [3], "layers": [1], "batch": [1], "context": [0], "new_tokens": [1]}})"),
             Catch::Contains("plan.json") && Catch::Contains("ep 3 does not divide the 128 experts"));
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["fp32"], "models": ["deepseek-v4.1-flash"], "tp": 8, )" +
                      sweep + "}"),
             Catch::Contains("compressed sparse attention"));
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["fp32"], "models": ["llama-3.1-8b"], "tp": 4,
                         "sweep": {"ep": [1], "layers": [33], "batch": [1], "context": [0], "new_tokens": [1]}})"),
             Catch::Contains("more layers than the model's 32"));
  CHECK_THAT(error_of(R"({"op": "moe_routing", "dtypes": ["fp32"], "sweep": {"tokens": [4], "experts": [10],
                         "top_k": [2], "n_group": [3], "topk_group": [1], "sigmoid": [1]}})"),
             Catch::Contains("ops[0].sweep.n_group") && Catch::Contains("must divide experts"));
  CHECK_THAT(error_of(R"({"op": "moe_routing", "dtypes": ["fp32"], "sweep": {"tokens": [4], "experts": [8],
                         "top_k": [2], "n_group": [1], "topk_group": [1], "sigmoid": [2]}})"),
             Catch::Contains("ops[0].sweep.sigmoid"));
}
