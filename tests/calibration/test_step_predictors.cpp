// The step-time model with a fitted profile's per-op predictors (docs/CALIBRATION.md, "Predictors in the
// step-time model"): an op whose predictor was fitted to a known function gets exactly that function's time at
// the measured shapes, the fitted roofline beyond them, and ops without a predictor keep the datasheet roofline.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/expert_placement.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/simulator/step_time_predictors.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;
using simulator::OpPredictors;

namespace {

// (A function: the presets are not registered yet while globals are initialised.)
const specs::HardwareSpec& h100() {
  static const specs::HardwareSpec hw = specs::hardware_preset("h100");
  return hw;
}

// The "measured" truth: a roofline at 60% of the BF16 peak and 80% of HBM bandwidth plus a fixed cost.
double gemm_truth(double m, double n, double k) {
  const auto [flops, bytes] = OpPredictors::work("gemm", {{"m", m}, {"n", n}, {"k", k}}, 2.0);
  return std::max(flops / (0.6 * h100().peak_flops("bf16")), bytes / (0.8 * h100().hbm_bytes_per_s())) + 4e-6;
}

// Decode attention: bound by the KV read at 70% of HBM bandwidth, plus a fixed cost.
double decode_truth(double batch, double keys) {
  const auto [flops, bytes] = OpPredictors::work(
      "attention_decode_gqa",
      {{"batch", batch}, {"context", keys}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"page_size", 16}},
      2.0);
  (void)flops;
  return bytes / (0.7 * h100().hbm_bytes_per_s()) + 6e-6;
}

// llama-3.1-8b on one H100 (TP 1): QKV 6144 x 4096, O 4096 x 4096, gate/up 28672 x 4096, down 4096 x 14336,
// LM head 128256 x 4096.
const std::vector<std::pair<double, double>> kGemms = {
    {6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}, {128256, 4096}};

calibration::Peaks h100_peaks() { return {h100().peak_flops("bf16"), h100().hbm_bytes_per_s(), "datasheet: h100"}; }

calibration::OpPredictor gemm_predictor() {
  std::vector<calibration::PredictorPoint> pts;
  for (double m : {1.0, 16.0, 256.0, 1024.0}) {  // 1024: compute-bound on an H100
    for (const auto& [n, k] : kGemms) {
      const auto [flops, bytes] = OpPredictors::work("gemm", {{"m", m}, {"n", n}, {"k", k}}, 2.0);
      pts.push_back({{m, n, k}, gemm_truth(m, n, k), flops, bytes});
    }
  }
  return calibration::fit_predictor("gemm", "bf16", "", {"m", "n", "k"}, pts, h100_peaks());
}

calibration::OpPredictor decode_predictor() {
  std::vector<calibration::PredictorPoint> pts;
  for (double b : {1.0, 8.0, 64.0}) {
    for (double c : {257.0, 1025.0, 4097.0}) {
      const auto [flops, bytes] = OpPredictors::work(
          "attention_decode_gqa",
          {{"batch", b}, {"context", c}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"page_size", 16}}, 2.0);
      pts.push_back({{b, c}, decode_truth(b, c), flops, bytes});
    }
  }
  return calibration::fit_predictor("attention_decode_gqa", "bf16", "", {"batch", "context"}, pts, h100_peaks());
}

specs::ModelSpec two_layers() {
  auto m = specs::model_preset("llama-3.1-8b");
  m.num_layers = 2;
  m.dense_layers = 2;
  m.precision = {};  // BF16 throughout
  return m;
}

specs::DeploymentSpec one_h100() {
  specs::DeploymentSpec d;
  d.hardware = h100();
  d.nodes = 1;
  d.gpus_per_node = 1;
  d.replica = {1, 1, 1};
  return d;
}

simulator::BatchShape decode(int batch, int context) {
  simulator::BatchShape b;
  b.decode_contexts.assign(static_cast<std::size_t>(batch), context);
  return b;
}

}  // namespace

TEST_CASE("a GEMM predictor gives its measured function's time at the measured shapes", "[calibration][predictors]") {
  const auto datasheet = calibration::datasheet_profile(h100(), "vllm");
  auto fitted = datasheet;
  fitted.predictors.push_back(gemm_predictor());
  const simulator::StepTimeModel with(two_layers(), one_h100(), fitted), without(two_layers(), one_h100(), datasheet);
  // Decode of 16 sequences: every GEMM runs m = 16, a measured value.
  const auto st = with.predict(decode(16, 1000));
  CHECK(st.op(Op::attn_proj).time_s == Approx(2.0 * (gemm_truth(16, 6144, 4096) + gemm_truth(16, 4096, 4096))));
  CHECK(st.op(Op::dense_ffn).time_s == Approx(2.0 * (gemm_truth(16, 28672, 4096) + gemm_truth(16, 4096, 14336))));
  CHECK(st.op(Op::lm_head).time_s == Approx(gemm_truth(16, 128256, 4096)));
  // The ops without a predictor keep the datasheet roofline, to the bit.
  const auto ds = without.predict(decode(16, 1000));
  CHECK(st.op(Op::attention).time_s == ds.op(Op::attention).time_s);
  CHECK(st.op(Op::elementwise).time_s == ds.op(Op::elementwise).time_s);
  CHECK(st.op(Op::embedding).time_s == ds.op(Op::embedding).time_s);
  // and the predicted GEMMs differ from it (the truth runs at 60% of peak, 80% of HBM).
  CHECK(st.op(Op::dense_ffn).time_s != Approx(ds.op(Op::dense_ffn).time_s).epsilon(0.01));
  // The total is the sum of its ops.
  double sum = 0.0;
  for (const auto& c : st.ops) sum += c.time_s;
  CHECK(st.total_s == Approx(sum));
}

TEST_CASE("beyond the measured tokens the GEMMs follow the fitted roofline", "[calibration][predictors]") {
  auto fitted = calibration::datasheet_profile(h100(), "vllm");
  fitted.predictors.push_back(gemm_predictor());
  const auto& p = fitted.predictors.back();
  const simulator::StepTimeModel with(two_layers(), one_h100(), fitted);
  simulator::BatchShape b;
  b.prefill.push_back({8192, 0, true});  // m = 8192: 8 x the largest measured
  const auto st = with.predict(b);
  auto extrapolated = [&](double n, double k) {
    const auto [flops, bytes] = OpPredictors::work("gemm", {{"m", 8192}, {"n", n}, {"k", k}}, 2.0);
    CHECK_FALSE(p.interpolate({8192, n, k}, flops, bytes).has_value());
    return p.roofline.time_s(flops, bytes);
  };
  const double ffn = 2.0 * (extrapolated(28672, 4096) + extrapolated(4096, 14336));
  CHECK(st.op(Op::dense_ffn).time_s == Approx(ffn));
  // The fitted roofline keeps the measured 60% of peak: within 3% of the truth 8x beyond the grid, where the
  // datasheet efficiency would not be.
  const double truth = 2.0 * (gemm_truth(8192, 28672, 4096) + gemm_truth(8192, 4096, 14336));
  CHECK(st.op(Op::dense_ffn).time_s == Approx(truth).epsilon(0.03));
  const simulator::StepTimeModel without(two_layers(), one_h100(), calibration::datasheet_profile(h100(), "vllm"));
  CHECK(without.predict(b).op(Op::dense_ffn).time_s != Approx(truth).epsilon(0.03));
}

TEST_CASE("a decode-attention predictor times the batch at its keys per sequence", "[calibration][predictors]") {
  auto fitted = calibration::datasheet_profile(h100(), "vllm");
  fitted.predictors.push_back(decode_predictor());
  const simulator::StepTimeModel with(two_layers(), one_h100(), fitted);
  // 8 sequences at context 1024: each query sees 1025 keys, a measured point.
  const auto st = with.predict(decode(8, 1024));
  CHECK(st.op(Op::attention).time_s == Approx(2.0 * decode_truth(8, 1025)));
  CHECK(st.op(Op::attention).prefill_share == 0.0);
  // Between measured points (batch 20, 2000 keys) the prediction lies between its neighbours' truths.
  const double t = with.predict(decode(20, 1999)).op(Op::attention).time_s / 2.0;
  CHECK(t > decode_truth(8, 1025));
  CHECK(t < decode_truth(64, 4097));
  CHECK(t == Approx(decode_truth(20, 2000)).epsilon(0.10));
}

TEST_CASE("a datasheet profile has no predictors: the step-time model is the roofline", "[calibration][predictors]") {
  const auto datasheet = calibration::datasheet_profile(h100(), "vllm");
  CHECK(datasheet.predictors.empty());
  CHECK_FALSE(OpPredictors(datasheet).any());
}

TEST_CASE("an imported kernel's predictor does not time the model's ops", "[calibration][predictors]") {
  // `calibrate import` predictors: one kernel of a real engine by name, no FLOP or byte counts, no peaks.
  const auto datasheet = calibration::datasheet_profile(h100(), "vllm");
  auto imported = datasheet;
  imported.predictors.push_back(calibration::fit_predictor("gemm", "bf16", "kernel=nvjet_tst_128x256", {},
                                                           {{{}, 2e-5, 0.0, 0.0}, {{}, 3e-5, 0.0, 0.0}}, {}));
  const simulator::StepTimeModel with(two_layers(), one_h100(), imported), without(two_layers(), one_h100(), datasheet);
  const auto a = with.predict(decode(16, 1000)), b = without.predict(decode(16, 1000));
  CHECK(a.op(Op::attn_proj).time_s == b.op(Op::attn_proj).time_s);
  CHECK(a.op(Op::lm_head).time_s == b.op(Op::lm_head).time_s);
  CHECK(a.total_s == b.total_s);
}

TEST_CASE("a grouped-GEMM predictor times the routed experts on the busiest GPU", "[calibration][predictors]") {
  // One qwen3-235b-a22b MoE layer (128 experts top-8 of width 1536, hidden 4096) on 8 H100s, EP 8: 16 experts
  // per GPU, a decode of 16 tokens gives 16 x 8 / 8 = 16 rows per GPU under uniform routing.
  auto model = specs::model_preset("qwen3-235b-a22b");
  model.num_layers = 1;
  model.dense_layers = 0;
  model.precision = {};  // BF16 throughout
  specs::DeploymentSpec d = one_h100();
  d.gpus_per_node = 8;
  d.replica = {8, 1, 8, 1};
  const auto placement = simulator::place_experts(*model.moe, d.moe_load, 8);
  // Rows are the tokens here (top_k / ep = 1): the experts a batch of `rows` tokens touches on the busiest GPU.
  auto shape = [&](double rows, double n, double k) {
    const double used = std::min(16.0, simulator::copies_touched_on_busiest(placement, 8, rows));
    return simulator::OpShape{{"rows", rows},    {"experts", 16}, {"n", n},      {"k", k},
                              {"zipf_milli", 0}, {"seed", 0},     {"used", used}};
  };
  auto truth = [&](double rows, double n, double k) {  // weight-read bound at 50% of HBM, 10 us fixed
    return OpPredictors::work("moe_grouped_gemm", shape(rows, n, k), 2.0).second / (0.5 * h100().hbm_bytes_per_s()) +
           1e-5;
  };
  std::vector<calibration::PredictorPoint> pts;
  for (double rows : {4.0, 16.0, 64.0}) {
    for (const auto& [n, k] : std::vector<std::pair<double, double>>{{3072, 4096}, {4096, 1536}}) {
      const auto [flops, bytes] = OpPredictors::work("moe_grouped_gemm", shape(rows, n, k), 2.0);
      pts.push_back({{rows, n, k}, truth(rows, n, k), flops, bytes});
    }
  }
  const auto datasheet = calibration::datasheet_profile(h100(), "vllm");
  auto fitted = datasheet;
  fitted.predictors.push_back(
      calibration::fit_predictor("moe_grouped_gemm", "bf16", "", {"rows", "n", "k"}, pts, h100_peaks()));
  const simulator::StepTimeModel with(model, d, fitted), without(model, d, datasheet);
  const auto st = with.predict(decode(16, 1000)), ds = without.predict(decode(16, 1000));
  // Gate/up then down, one MoE layer; no SwiGLU, permute or routing predictor: nothing added for them.
  CHECK(st.op(Op::moe_experts).time_s == Approx(truth(16, 3072, 4096) + truth(16, 4096, 1536)));
  CHECK(st.op(Op::moe_gate).time_s == ds.op(Op::moe_gate).time_s);  // no GEMM predictor: the roofline
}

TEST_CASE("with a GEMM predictor, a gated attention layer and a Gated DeltaNet layer time their own projections",
          "[calibration][predictors]") {
  auto model = two_layers();  // llama-3.1-8b's hidden 4096, 32 query and 8 KV heads of 128
  model.attention.output_gate = true;
  model.linear_attention = specs::LinearAttentionSpec{1, 16, 32, 128, 128, 4, specs::Precision::fp32};
  auto fitted = calibration::datasheet_profile(h100(), "vllm");
  fitted.predictors.push_back(gemm_predictor());
  const simulator::StepTimeModel m(model, one_h100(), fitted);
  const auto st = m.predict(decode(16, 1000));
  const OpPredictors pred(fitted);
  auto gemm = [&](double n, double k) { return pred.time_s("gemm", "bf16", {{"m", 16}, {"n", n}, {"k", k}}).value(); };
  // Gated softmax layer: q and its gate (2 x 4096), k and v (2 x 1024), then o. DeltaNet layer: q and k of 16 key
  // heads (2 x 2048), v and z of 32 value heads (2 x 4096) and b, a (2 x 32) in one GEMM, then out_proj.
  const double softmax = gemm(2 * 4096 + 2 * 1024, 4096) + gemm(4096, 4096);
  const double deltanet = gemm(2 * 2048 + 2 * 4096 + 2 * 32, 4096) + gemm(4096, 4096);
  CHECK(st.op(Op::attn_proj).time_s == Approx(softmax + deltanet));
}
