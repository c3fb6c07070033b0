// The bf16 model step on the CPU backend: its logits against the fp32 reference step within the bound its
// rounding stages give (model_step.hpp) and clearly away from the fp32 step's, deterministic; the plan key
// that selects it and the record that carries it (a byte-exact round trip through the trace schema); and
// the bytes a bf16 step moves, counted by hand.

#include <catch2/catch.hpp>
#include <cmath>

#include "cpu/cpu_model_step.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/fill.hpp"
#include "fleetcast/engine/harness.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/traces/calibration_trace.hpp"
#include "problems/model_step_problem.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;
using fleetcast::InputError;
using nlohmann::json;

using fleetcast::engine::test::reader;
using fleetcast::engine::test::tiny_moe_model;

namespace {

StepShape in_bf16(StepShape s) {
  s.precision = "bf16";
  return s;
}

// The largest error of `logits` against the reference step, every sequence (tolerance 1: measured, not judged).
double deviation(const ModelStepProblem& p, const std::vector<float>& logits) {
  return p.check(reader(logits), "step", 1.0, true).max_rel_error;
}

}  // namespace

TEST_CASE("model_step bf16: the stages a step rounds at, and the tolerance they give", "[engine][model_step]") {
  const auto model = tiny_moe_model();
  // One dense layer: 18 stages (attention 10, its norm 2, the MLP 6) and the 5 of the embedding and LM head.
  const StepDims dense = step_dims(model, {"tiny-moe", 1, 1, 1, 1, 0, 1});
  CHECK(bf16_rounding_stages(dense) == 23);
  CHECK(bf16_step_tolerance(dense) == 23.0 / 256.0);
  // A MoE layer with a shared expert: 12 + router 2 + routed MLP 6 + unpermute 1 + shared MLP 6 = 27.
  const StepDims moe = step_dims(model, {"tiny-moe", 1, 1, 2, 1, 0, 1});
  CHECK(bf16_rounding_stages(moe) == 23 + 27);
}

TEST_CASE("model_step bf16: the CPU step's logits against the fp32 reference, within the rounding bound",
          "[engine][cpu][model_step]") {
  struct Case {
    fleetcast::specs::ModelSpec model;
    StepShape shape;
  };
  const auto llama = fleetcast::specs::model_preset("llama-3.1-8b");
  const auto tiny = tiny_moe_model();
  // The op's small check (llama-3.1-8b, TP 8, prefill of 3 after 5), a llama decode, and the tiny GQA model:
  // dense then MoE layers (tp 2 / ep 2 decode and prefill, tp 1 prefill of a first chunk, 3 layers).
  const std::vector<Case> cases = {{llama, {"llama-3.1-8b", 8, 1, 1, 2, 5, 3}},
                                   {llama, {"llama-3.1-8b", 8, 1, 1, 3, 40, 1}},
                                   {tiny, {"tiny-moe", 2, 2, 2, 3, 21, 1}},
                                   {tiny, {"tiny-moe", 2, 2, 2, 2, 13, 5}},
                                   {tiny, {"tiny-moe", 1, 1, 3, 2, 0, 4}}};
  for (const Case& c : cases) {
    const StepShape& s = c.shape;
    INFO(s.model << " tp " << s.tp << " ep " << s.ep << " layers " << s.layers << " batch " << s.batch << " context "
                 << s.context << " new " << s.new_tokens);
    ModelStepProblem fp32(c.model, s);
    cpu::ModelStepRunner fp32_runner(fp32);
    fp32_runner.run();
    const double fp32_error = deviation(fp32, fp32_runner.logits());

    ModelStepProblem p(c.model, in_bf16(s));
    REQUIRE(p.shape.bf16());
    cpu::ModelStepRunner runner(p);
    runner.run();
    const double tolerance = bf16_step_tolerance(p.dims);
    const double error = deviation(p, runner.logits());
    // Printed with -s: the figures behind the tolerance.
    CAPTURE(fp32_error, error, tolerance, bf16_rounding_stages(p.dims));
    CHECK(error < tolerance);
    // Clearly the bf16 step: above one rounding unit and far above the fp32 step's own error, so a step that
    // skipped its roundings would fail here.
    CHECK(error > std::ldexp(1.0, -8));
    CHECK(error > 20.0 * fp32_error);
    // The check the backends run passes at that tolerance.
    const auto r = p.check(reader(runner.logits()), "step", tolerance, true);
    CHECK(r.compared == static_cast<std::size_t>(s.batch * p.dims.vocab_local));
    // The weights the reference reads stayed fp32: the bf16 copies are the runner's.
    const bool reference_weights_fp32 = p.lm_head == fp32.lm_head && p.layers[0].o == fp32.layers[0].o;
    CHECK(reference_weights_fp32);
    // Deterministic: a second run, and a second problem and runner, give the same logits bit for bit.
    const auto first = runner.logits();
    runner.run();
    const bool same_run = runner.logits() == first;
    CHECK(same_run);
    ModelStepProblem again(c.model, in_bf16(s));
    cpu::ModelStepRunner again_runner(again);
    again_runner.run();
    const bool same_problem = again_runner.logits() == first;
    CHECK(same_problem);
    // Every logit is a bf16 value.
    bool all_bf16 = true;
    for (const float v : first) all_bf16 = all_bf16 && round_bf16(v) == v;
    CHECK(all_bf16);
  }
}

TEST_CASE("model_step bf16: the CPU backend runs it from a plan's shape and checks it", "[engine][cpu][model_step]") {
  const Plan plan = parse_plan(json::parse(R"({"name": "t", "ops": [
      {"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "tp": 8, "precision": "bf16",
       "sweep": {"ep": [1], "layers": [1], "batch": [2], "context": [20], "new_tokens": [1]}}]})"),
                               "plan.json");
  const auto cases = expand_plan(plan);
  REQUIRE(cases.size() == 1);
  const Shape& shape = cases[0].op_case.shape;
  REQUIRE(shape.text_at("precision") == "bf16");
  auto backend = make_cpu_backend();
  const OpInfo& op = *find_op("model_step");
  const Support s = backend->support(op, "bf16", shape);
  REQUIRE(s.supported);
  CHECK(s.dtype == "fp32");  // the CPU stores the bf16 step's values in fp32: the record says so
  const CheckResult c = backend->prepare(op, s.dtype, shape)->check(true);
  CHECK(c.max_rel_error > std::ldexp(1.0, -8));
  CHECK(c.max_rel_error < 23.0 / 256.0);
}

TEST_CASE("model_step bf16: the plan key, the record's shape and its round trip", "[engine][model_step][plan]") {
  const Plan plan = parse_plan(json::parse(R"({"name": "t", "ops": [
      {"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "tp": 4,
       "sweep": {"ep": [1], "layers": [2], "batch": [8], "context": [2048], "new_tokens": [1]}},
      {"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "tp": 4, "precision": "fp32",
       "sweep": {"ep": [1], "layers": [2], "batch": [8], "context": [2048], "new_tokens": [1]}},
      {"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "tp": 4, "precision": "bf16",
       "sweep": {"ep": [1], "layers": [2], "batch": [8], "context": [2048], "new_tokens": [1]}}]})"),
                               "plan.json");
  const auto cases = expand_plan(plan);
  // No precision and "fp32" are the same case (and the same record as before the key existed).
  REQUIRE(cases.size() == 2);
  const std::string fp32_shape =
      R"({"model":"llama-3.1-8b","tp":4,"ep":1,"layers":2,"phase":"decode","batch":8,"context":2048,"new_tokens":1)";
  CHECK(cases[0].op_case.shape.to_json().dump() == fp32_shape + "}");
  CHECK(cases[1].op_case.shape.to_json().dump() == fp32_shape + R"(,"precision":"bf16"})");
  CHECK(step_shape_of(cases[1].op_case.shape).bf16());
  CHECK(model_step_shape(step_shape_of(cases[1].op_case.shape)) == cases[1].op_case.shape);

  // The record a CUDA bf16 step writes (dtype bf16), through the trace schema and back, byte for byte.
  using namespace fleetcast::traces;
  CalibrationTrace t;
  t.header.backend = "cuda";
  t.header.device = "NVIDIA H200";
  t.header.plan = "t";
  t.measurements.push_back(make_measurement(*find_op("model_step"), "bf16", cases[1].op_case.shape, {2e-3, 3e-3}, {}));
  t.measurements.push_back(make_measurement(*find_op("model_step"), "fp32", cases[0].op_case.shape, {4e-3}, {}));
  const std::string text = to_jsonl(t);
  const CalibrationTrace back = parse_calibration_trace(text, "t.jsonl");
  CHECK(back == t);
  CHECK(to_jsonl(back) == text);
  CHECK(back.measurements[0].shape.dump() == fp32_shape + R"(,"precision":"bf16"})");
  CHECK(back.measurements[0].dtype == "bf16");
  CHECK(back.measurements[1].shape.dump() == fp32_shape + "}");

  auto error_of = [](const std::string& entry) {
    try {
      parse_plan(json::parse(R"({"name": "t", "ops": [)" + entry + "]}"), "plan.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string sweep = R"("sweep": {"ep": [1], "layers": [1], "batch": [1], "context": [0], "new_tokens": [1]})";
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "precision": "fp4", )" +
                      sweep + "}"),
             Catch::Contains("ops[0].precision") && Catch::Contains("valid: fp32, bf16, fp8"));
  CHECK_THAT(error_of(R"({"op": "model_step", "dtypes": ["bf16"], "models": ["llama-3.1-8b"], "precision": 16, )" +
                      sweep + "}"),
             Catch::Contains("ops[0].precision") && Catch::Contains("expected a string"));
  CHECK_THAT(error_of(R"({"op": "rmsnorm", "dtypes": ["fp32"], "precision": "bf16",
                         "sweep": {"tokens": [1], "hidden": [64]}})"),
             Catch::Contains("ops[0].precision") && Catch::Contains("only applies to model_step"));
}

TEST_CASE("model_step bf16: FLOPs unchanged, bytes counted by hand", "[engine][cost][model_step]") {
  // llama-3.1-8b on one GPU of 4, 1 layer, decode of 2 sequences after 100 tokens (as test_moe_step.cpp's
  // hand count): H 4096, 8 q and 2 kv heads of 128, QKV width 1536, FFN 3584, vocabulary rows 32064, T = B = 2.
  // Elements moved, each input read once and each output written once:
  //   embedding rows                    T H                          =      8192
  //   two RMSNorms                      2 (2 T H + H)                =     40960
  //   QKV                               T H + 1536 H + T 1536        =   6302720
  //   RoPE (q and k in and out)         2 T (8 + 2) 128              =      5120
  //   new K and V into the cache        2 T 2 128                    =      1024
  //   attention: the cache, q and out   2 B 101 2 128 + 2 T 8 128    =    107520
  //   O                                 T 1024 + H 1024 + T H        =   4204544
  //   two residual adds                 2 x 3 T H                    =     49152
  //   gate/up, SwiGLU, down             T H + 7168 H + T 7168 + 3 T 3584 + T 3584 + H 3584 + T H = 44099584
  //   final RMSNorm                     2 B H + H                    =     20480
  //   LM head                           B H + 32064 H + B 32064      = 131406464
  //   total                                                          = 186245760
  // of which weights 1536 H + 1024 H + 3 x 3584 H + 32064 H + 3 H = 185872384. Bytes not elements: token ids
  // 4 T, RoPE's positions and fp32 cos/sin rows T (4 + 4 x 128), block tables B x 7 pages x 4 = 1096.
  const StepShape s{"llama-3.1-8b", 4, 1, 1, 2, 100, 1};
  const StepShape b = in_bf16(s);
  const OpInfo& op = *find_op("model_step");
  const Cost fp32 = op_cost(op, model_step_shape(s), "fp32");
  const Cost bf16 = op_cost(op, model_step_shape(b), "bf16");
  CHECK(bf16.flops == fp32.flops);
  CHECK(bf16.flops == 744425990.0);
  const double elements = 186245760.0, weights = 185872384.0, other = 1096.0;
  CHECK(fp32.bytes == 4.0 * elements + other);
  CHECK(bf16.bytes == 2.0 * elements + other);
  // The difference: two bytes per element, nearly all of it the weights'.
  CHECK(fp32.bytes - bf16.bytes == 2.0 * elements);
  CHECK(2.0 * weights / (fp32.bytes - bf16.bytes) > 0.99);
}

TEST_CASE("model_step bf16: node-default measures bf16 steps of a dense and a MoE model, fp8 steps of DeepSeek-V3",
          "[engine][model_step][plan]") {
  const Plan p = load_plan(std::string(FLEETCAST_SOURCE_DIR) + "/engine/plans/node-default.json");
  int dense = 0, moe = 0, mla = 0;
  for (const auto& c : expand_plan(p)) {
    if (c.op_case.op != "model_step") continue;
    const StepShape s = step_shape_of(c.op_case.shape);
    if (s.model == "deepseek-v3") {
      CHECK(s.fp8());        // the preset's FP8 checkpoint
      CHECK(s.layers == 1);  // layer 0: MLA and a dense MLP, no routing a near tie could reorder
      ++mla;
      continue;
    }
    CHECK(s.bf16());
    (s.model == "qwen3-235b-a22b" ? moe : dense) += 1;
  }
  CHECK(dense == 5);  // llama-3.1-8b, TP 8: decode of 1 and 32 after 1024 and 8192, a prefill of 512
  CHECK(moe == 4);    // qwen3-235b-a22b, TP 8 / EP 8: 1 and 32 after 1024, decode and a prefill of 512
  CHECK(mla == 5);    // deepseek-v3, TP 8, fp8: decode of 1 and 32 after 64 and 1024, a prefill of 512
}
