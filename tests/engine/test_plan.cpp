// Sweep plans: strict parsing whose errors name the file and the field, the expansion of sweeps and
// model presets into cases, and the shipped plans.

#include <catch2/catch.hpp>

#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/error.hpp"

using namespace fleetcast::engine;
using fleetcast::InputError;
using nlohmann::json;

namespace Catch {
template <>
struct StringMaker<Shape> {
  static std::string convert(const Shape& s) { return "{" + s.text() + "}"; }
};
}  // namespace Catch

namespace {

json good_plan() {
  return json::parse(R"({
    "name": "t", "warmup": 1, "repetitions": 3,
    "ops": [
      {"op": "gemm", "dtypes": ["bf16", "fp8"], "sweep": {"m": [1, 2], "n": [64], "k": [32, 64]}},
      {"op": "rmsnorm", "dtypes": ["bf16"], "sweep": {"tokens": [4], "hidden": [128]}, "repetitions": 9},
      {"op": "memcpy", "sweep": {"bytes": [4096]}}
    ]})");
}

// The message of the InputError that parsing `j` throws.
std::string error_of(const json& j) {
  try {
    parse_plan(j, "plan.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("plan: sweeps expand to their cartesian product, dtypes outermost", "[engine][plan]") {
  const Plan p = parse_plan(good_plan(), "plan.json");
  CHECK(p.name == "t");
  CHECK(p.flush_cache);
  const auto cases = expand_plan(p);
  REQUIRE(cases.size() == 2 * 2 * 2 + 1 + 1);
  CHECK(cases[0].op_case.dtype == "bf16");
  CHECK(cases[0].op_case.shape == Shape{{"m", 1}, {"n", 64}, {"k", 32}});
  CHECK(cases[1].op_case.shape == Shape{{"m", 1}, {"n", 64}, {"k", 64}});
  CHECK(cases[2].op_case.shape == Shape{{"m", 2}, {"n", 64}, {"k", 32}});
  CHECK(cases[4].op_case.dtype == "fp8");
  CHECK(cases[0].warmup == 1);
  CHECK(cases[0].repetitions == 3);
  CHECK(cases[8].op_case.op == "rmsnorm");
  CHECK(cases[8].repetitions == 9);  // the entry's own
  CHECK(cases[9].op_case.dtype == "u8");  // memcpy's only precision, implied
}

TEST_CASE("plan: errors name the file and the field", "[engine][plan]") {
  auto with = [](const std::function<void(json&)>& edit) {
    json j = good_plan();
    edit(j);
    return error_of(j);
  };
  CHECK_THAT(with([](json& j) { j["sede"] = 1; }), Catch::Contains("plan.json: field 'sede'"));
  CHECK_THAT(with([](json& j) { j.erase("name"); }), Catch::Contains("field 'name'"));
  CHECK_THAT(with([](json& j) { j["repetitions"] = 0; }), Catch::Contains("field 'repetitions'"));
  CHECK_THAT(with([](json& j) { j["warmup"] = 1.5; }), Catch::Contains("field 'warmup'"));
  CHECK_THAT(with([](json& j) { j["ops"] = json::array(); }), Catch::Contains("field 'ops'"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["op"] = "gemv"; }), Catch::Contains("ops[0].op"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["op"] = "gemv"; }), Catch::Contains("valid: gemm, rmsnorm"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["dtypes"][1] = "fp4"; }), Catch::Contains("ops[0].dtypes[1]"));
  CHECK_THAT(with([](json& j) { j["ops"][0].erase("dtypes"); }), Catch::Contains("ops[0].dtypes"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["sweep"]["x"] = {1}; }), Catch::Contains("ops[0].sweep.x"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["sweep"].erase("k"); }), Catch::Contains("ops[0].sweep.k"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["sweep"]["k"] = {32, 0}; }), Catch::Contains("ops[0].sweep.k"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["sweep"]["k"] = {32, "64"}; }), Catch::Contains("ops[0].sweep.k[1]"));
  CHECK_THAT(with([](json& j) { j["ops"][0]["sweep"]["k"] = json::array(); }), Catch::Contains("ops[0].sweep.k"));
  CHECK_THAT(with([](json& j) { j["ops"][1]["tp"] = 2; }), Catch::Contains("ops[1].tp"));
  CHECK_THAT(with([](json& j) { j["ops"][2]["flush"] = true; }), Catch::Contains("ops[2].flush"));
  CHECK_THAT(error_of(json::array()), Catch::Contains("expected a JSON object"));
}

TEST_CASE("plan: shapes an op cannot take are rejected up front", "[engine][plan]") {
  json j = json::parse(R"({"name": "t", "ops": [{"op": "attention_decode_gqa", "dtypes": ["bf16"],
    "sweep": {"batch": [1], "context": [64], "q_heads": [6], "kv_heads": [4], "head_dim": [64],
              "page_size": [16]}}]})");
  CHECK_THAT(error_of(j), Catch::Contains("ops[0].sweep.q_heads"));
  j = json::parse(R"({"name": "t", "ops": [{"op": "rope", "dtypes": ["bf16"],
    "sweep": {"tokens": [1], "q_heads": [4], "kv_heads": [4], "head_dim": [63]}}]})");
  CHECK_THAT(error_of(j), Catch::Contains("ops[0].sweep.head_dim"));
  j = json::parse(R"({"name": "t", "ops": [{"op": "sampling", "dtypes": ["fp32"],
    "sweep": {"batch": [1], "vocab": [100], "top_k": [101]}}]})");
  CHECK_THAT(error_of(j), Catch::Contains("ops[0].sweep.top_k"));
}

TEST_CASE("plan: model presets give the shapes they decide, per GPU of a TP group", "[engine][plan]") {
  // Llama 3.1 8B at TP 1: fused QKV, output, gate+up, down, LM head.
  const auto llama = model_shapes("gemm", "llama-3.1-8b", 1, "f", "ops[0].models[0]");
  CHECK(llama == std::vector<Shape>{{{"n", 6144}, {"k", 4096}}, {{"n", 4096}, {"k", 4096}},
                                     {{"n", 28672}, {"k", 4096}}, {{"n", 4096}, {"k", 14336}},
                                     {{"n", 128256}, {"k", 4096}}});
  // At TP 8 the 8 KV heads are one per GPU: QKV is (32 / 8 + 2 x 1) x 128 wide.
  const auto tp8 = model_shapes("gemm", "llama-3.1-8b", 8, "f", "x");
  CHECK(tp8.front() == Shape{{"n", 768}, {"k", 4096}});
  CHECK(model_shapes("attention_decode_gqa", "llama-3.1-8b", 8, "f", "x") ==
        std::vector<Shape>{{{"q_heads", 4}, {"kv_heads", 1}, {"head_dim", 128}}});
  // DeepSeek V3: MLA latent 512 + rope 64, 128 heads.
  CHECK(model_shapes("attention_decode_mla", "deepseek-v3", 1, "f", "x") ==
        std::vector<Shape>{{{"q_heads", 128}, {"latent_dim", 512}, {"rope_dim", 64}}});
  const auto ds = model_shapes("gemm", "deepseek-v3", 8, "f", "x");
  CHECK(std::find(ds.begin(), ds.end(), Shape{{"n", 4096}, {"k", 7168}}) != ds.end());  // one expert's gate+up
  CHECK(std::find(ds.begin(), ds.end(), Shape{{"n", 256}, {"k", 7168}}) != ds.end());   // the router
  // Errors name the entry's field.
  CHECK_THROWS_WITH(model_shapes("attention_decode_mla", "llama-3.1-8b", 1, "f", "ops[3].models[0]"),
                    Catch::Contains("ops[3].models[0]"));
  CHECK_THROWS_WITH(model_shapes("gemm", "llama-3.1-8b", 3, "f", "ops[0].models[0]"),
                    Catch::Contains("does not divide over tp 3"));
  CHECK_THROWS_WITH(model_shapes("gemm", "llama-9", 1, "f", "ops[0].models[0]"), Catch::Contains("valid: "));
  CHECK_THROWS_AS(model_shapes("memcpy", "llama-3.1-8b", 1, "f", "x"), InputError);
}

TEST_CASE("plan: models and sweep together; a field given twice is an error", "[engine][plan]") {
  json j = json::parse(R"({"name": "t", "ops": [
    {"op": "gemm", "dtypes": ["bf16"], "models": ["llama-3.1-8b", "llama-3.1-8b"], "sweep": {"m": [1, 8]}}]})");
  const auto cases = expand_plan(parse_plan(j, "p.json"));
  CHECK(cases.size() == 5 * 2);  // the repeated model adds nothing
  CHECK(cases[1].op_case.shape == Shape{{"m", 8}, {"n", 6144}, {"k", 4096}});
  j["ops"][0]["sweep"]["n"] = {1};
  CHECK_THAT(error_of(j), Catch::Contains("ops[0].sweep.n"));
}

TEST_CASE("plan: the shipped plans parse", "[engine][plan]") {
  for (const char* name :
       {"cpu-smoke.json", "node-default.json", "cpu-collectives.json", "multinode-collectives.json"}) {
    INFO(name);
    const Plan p = load_plan(std::string(FLEETCAST_SOURCE_DIR) + "/engine/plans/" + name);
    CHECK(!expand_plan(p).empty());
  }
  CHECK_THROWS_WITH(load_plan("/no/such/plan.json"), Catch::Contains("/no/such/plan.json"));
}
