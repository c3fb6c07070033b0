// FLOP and byte counts of one dense layer and one MoE layer against hand counts, and roofline behaviour.
#include <catch2/catch.hpp>
#include <optional>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/expert_placement.hpp"
#include "fleetcast/simulator/gemm_inputs.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "step_support.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;

namespace {

using test::dense_layer;
using test::one_gpu;
using test::prefill;

// One DeepSeek-V3 MoE layer (256 experts top-8 of width 2048, 1 shared) in FP8.
specs::ModelSpec moe_layer() {
  auto m = specs::model_preset("deepseek-v3");
  m.num_layers = 1;
  m.dense_layers = 0;
  return m;
}

}  // namespace

TEST_CASE("a dense layer's FLOPs and bytes match a hand count", "[step_time]") {
  const auto hw = "h100";
  const auto model = dense_layer();
  const auto d = one_gpu(hw);
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  const int T = 1000;
  const auto st = m.predict(prefill(T));
  // Projections: q 8192x8192, k and v 8192x(8x128) each, o 8192x8192 = 150,994,944 parameters.
  const double proj_params = 150994944.0;
  CHECK(st.op(Op::attn_proj).flops() == 2.0 * T * proj_params);
  // Weights read once (2 bytes each) plus the activations in and out of the four GEMMs.
  CHECK(st.op(Op::attn_proj).bytes == proj_params * 2 + T * 4.0 * 8192 * 2);
  // SwiGLU FFN: gate, up, down of 8192 x 28,672 = 704,643,072 parameters.
  CHECK(st.op(Op::dense_ffn).flops() == 2.0 * T * 704643072.0);
  // Causal attention over an empty cache: T (T + 1) / 2 query-key pairs, 64 heads, QK and PV of 128 each.
  CHECK(st.op(Op::attention).flops() == Approx(2.0 * 64 * (128 + 128) * (T * (T + 1.0) / 2.0)));
  // Only the chunk's last token is sampled: one row of the 128,256 x 8192 LM head.
  CHECK(st.op(Op::lm_head).flops() == 2.0 * 128256.0 * 8192);
}

TEST_CASE("decode attention reads each sequence's KV cache", "[step_time]") {
  const auto model = dense_layer();
  const auto d = one_gpu("h100");
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  simulator::BatchShape b;
  b.decode_contexts = {1000, 3000};
  const auto st = m.predict(b);
  // Each decode attends its context plus itself; 4,096 KV bytes per token per layer in BF16.
  CHECK(st.op(Op::attention).bytes == (1001.0 + 3001.0) * 4096.0);
  CHECK(st.op(Op::attention).flops_decode == 2.0 * 64 * 256 * (1001.0 + 3001.0));
  CHECK(st.prefill_s == 0.0);
  CHECK(st.decode_s == Approx(st.total_s));
}

TEST_CASE("an MoE layer's expert FLOPs and bytes match a hand count", "[step_time]") {
  const auto model = moe_layer();
  const auto d = one_gpu("h200");
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  const double expert = 3.0 * 7168 * 2048;  // gate, up, down
  SECTION("one token touches exactly top_k experts") {
    simulator::BatchShape b;
    b.decode_contexts = {10};
    const auto st = m.predict(b);
    CHECK(st.op(Op::moe_experts).flops() == 2.0 * 8 * expert);
    // 8 experts of FP8 weights, plus the token's activations in and out of each of its 8 experts.
    CHECK(st.op(Op::moe_experts).bytes == Approx(8 * expert * 1.0 + 8 * 2.0 * 7168 * 2));
    CHECK(st.op(Op::shared_expert).flops() == 2.0 * expert);
  }
  SECTION("many tokens touch E (1 - (1 - k/E)^T) experts") {
    const int T = 64;
    const double touched = 256.0 * (1.0 - std::pow(1.0 - 8.0 / 256.0, T));
    const auto st = m.predict(prefill(T));
    CHECK(st.op(Op::moe_experts).flops() == Approx(2.0 * T * 8 * expert));
    CHECK(st.op(Op::moe_experts).bytes == Approx(touched * expert + T * 8 * 2.0 * 7168 * 2));
  }
}

TEST_CASE("a measured rank's expert rows replace the busiest rank's expected share", "[step_time]") {
  // One DeepSeek-V3 MoE layer on EP 8 (32 local experts): 64 prefill tokens pick 64 x 8 / 8 = 64 rows per rank
  // on average; the engine measured a rank whose experts got 100 rows in 3 experts.
  const auto d = one_gpu("h200", 8);  // TP 8, EP 8: whole experts
  const calibration::Profile profile = calibration::datasheet_profile(d.hardware, "vllm");
  const double expert = 3.0 * 7168 * 2048;
  simulator::StepTimeModel expected(moe_layer(), d, profile), measured(moe_layer(), d, profile);
  std::vector<std::int64_t> rows(32, 0);
  rows[0] = 60, rows[5] = 30, rows[31] = 10;
  measured.use_measured_expert_rows({{rows}});
  const auto e = expected.predict(prefill(64)), m = measured.predict(prefill(64));
  CHECK(e.op(Op::moe_experts).flops() == Approx(2.0 * 64 * 8 / 8 * expert));
  CHECK(m.op(Op::moe_experts).flops() == Approx(2.0 * 100 * expert));
  // Three experts' FP8 weights read, and each row's activations in and out.
  CHECK(m.op(Op::moe_experts).bytes == Approx(3 * expert + 100 * 2.0 * 7168 * 2));
  // What does not route is the same.
  CHECK(m.op(Op::attn_proj).time_s == e.op(Op::attn_proj).time_s);
  CHECK(m.op(Op::moe_gate).time_s == e.op(Op::moe_gate).time_s);
}

TEST_CASE("the experts' kernel efficiency slows the routed experts' compute and nothing else", "[step_time]") {
  const auto d = one_gpu("h200");
  calibration::Profile slow = calibration::datasheet_profile(d.hardware, "vllm");
  const calibration::Profile dense_rates = slow;
  slow.expert_kernel_efficiency = {{"fp8", 0.25}};  // deepseek-v3's experts are FP8
  const simulator::StepTimeModel a(moe_layer(), d, dense_rates), b(moe_layer(), d, slow);
  // One MoE layer: four expert kernels, each with its fixed cost, which the efficiency does not scale.
  const double fixed_s = 4 * dense_rates.op_latency_s;
  // 16,384 tokens: 512 assignments per expert, bound by FLOPs at either rate; 4x the time.
  const auto fast = a.predict(prefill(16384)), slowed = b.predict(prefill(16384));
  CHECK(slowed.op(Op::moe_experts).time_s - fixed_s == Approx(4.0 * (fast.op(Op::moe_experts).time_s - fixed_s)));
  CHECK(slowed.op(Op::moe_experts).flops() == fast.op(Op::moe_experts).flops());
  for (const Op op : {Op::attn_proj, Op::attention, Op::moe_gate, Op::shared_expert}) {
    CHECK(slowed.op(op).time_s == fast.op(op).time_s);
  }
  // Two decodes read 16 experts' weights: bound by the bytes, which stream as fast as before.
  simulator::BatchShape decode;
  decode.decode_contexts = {1000, 1000};
  CHECK(b.predict(decode).op(Op::moe_experts).time_s == a.predict(decode).op(Op::moe_experts).time_s);
  // A dense model has no routed experts: the same step time to the bit.
  CHECK(simulator::StepTimeModel(dense_layer(), d, slow).predict(prefill(4096)).total_s ==
        simulator::StepTimeModel(dense_layer(), d, dense_rates).predict(prefill(4096)).total_s);
  // Kept by the experts' weight format: an efficiency for another format leaves FP8 experts at the dense rate,
  // one for every format ("*") slows them as their own does.
  calibration::Profile other = dense_rates, every = dense_rates;
  other.expert_kernel_efficiency = {{"nvfp4", 0.25}, {"fp4", 0.5}};
  every.expert_kernel_efficiency = {{"*", 0.25}};
  CHECK(simulator::StepTimeModel(moe_layer(), d, other).predict(prefill(16384)).total_s == fast.total_s);
  CHECK(simulator::StepTimeModel(moe_layer(), d, every).predict(prefill(16384)).total_s == slowed.total_s);
}

TEST_CASE("the experts' memory efficiency slows the routed experts' weight streaming and nothing else", "[step_time]") {
  const auto d = one_gpu("h200");
  const calibration::Profile dense_rates = calibration::datasheet_profile(d.hardware, "vllm");
  calibration::Profile slow = dense_rates;
  slow.expert_memory_efficiency = 0.5;
  const simulator::StepTimeModel a(moe_layer(), d, dense_rates), b(moe_layer(), d, slow);
  const double fixed_s = 4 * dense_rates.op_latency_s;  // four expert kernels' fixed costs, not scaled
  // Two decodes read 16 experts' weights: bound by the bytes, which now stream at half the rate: twice the time.
  simulator::BatchShape decode;
  decode.decode_contexts = {1000, 1000};
  const auto fast = a.predict(decode), slowed = b.predict(decode);
  CHECK(slowed.op(Op::moe_experts).time_s - fixed_s == Approx(2.0 * (fast.op(Op::moe_experts).time_s - fixed_s)));
  CHECK(slowed.op(Op::moe_experts).bytes == fast.op(Op::moe_experts).bytes);
  // The router, the attention and the shared expert read their weights at the dense rate as before.
  for (const Op op : {Op::attn_proj, Op::attention, Op::moe_gate, Op::shared_expert}) {
    CHECK(slowed.op(op).time_s == fast.op(op).time_s);
  }
  // 16,384 tokens: bound by FLOPs at either bandwidth, the same time.
  CHECK(b.predict(prefill(16384)).op(Op::moe_experts).time_s == a.predict(prefill(16384)).op(Op::moe_experts).time_s);
  // A dense model has no routed experts: the same step time to the bit.
  CHECK(simulator::StepTimeModel(dense_layer(), d, slow).predict(decode).total_s ==
        simulator::StepTimeModel(dense_layer(), d, dense_rates).predict(decode).total_s);
}

TEST_CASE("small decode is bound by reading weights, large prefill by compute", "[step_time]") {
  const auto model = specs::model_preset("llama-3.1-8b");
  const auto d = one_gpu("h100");
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const simulator::StepTimeModel m(model, d, profile);
  simulator::BatchShape one;
  one.decode_contexts = {100};
  const auto small = m.predict(one);
  // 8B parameters in BF16 read at 3.35 TB/s x 0.9: about 5.3 ms, plus fixed costs.
  const double weight_read_s = 2.0 * 8.03e9 / (3.35e12 * profile.memory_efficiency);
  CHECK(small.total_s > weight_read_s * 0.95);
  CHECK(small.total_s < weight_read_s * 1.5);
  const auto big = m.predict(prefill(8192));
  const double compute_s = 2.0 * 8192 * 7.5e9 / (989e12 * profile.matmul_efficiency_for("bf16"));
  CHECK(big.total_s > compute_s);
  CHECK(big.prefill_s == Approx(big.total_s));
}

TEST_CASE("an H20 reads weights faster than an H100 and multiplies 989/148 times slower", "[step_time]") {
  const auto model = specs::model_preset("llama-3.1-8b");
  const auto step = [&](const char* hw, const simulator::BatchShape& b) {
    const auto d = one_gpu(hw);
    return simulator::StepTimeModel(model, d, calibration::datasheet_profile(d.hardware, "vllm")).predict(b);
  };
  simulator::BatchShape one;
  one.decode_contexts = {100};
  // The same datasheet efficiencies (both sm_90): the dense FFN's weight read goes as HBM bandwidth, 3.35 / 4.0.
  CHECK(step("h20", one).op(Op::dense_ffn).time_s / step("h100", one).op(Op::dense_ffn).time_s ==
        Approx(3.35 / 4.0).epsilon(0.02));
  // An 8,192-token prefill's FFN is compute-bound on both: it goes as the BF16 tensor rate.
  CHECK(step("h20", prefill(8192)).op(Op::dense_ffn).time_s / step("h100", prefill(8192)).op(Op::dense_ffn).time_s ==
        Approx(989.0 / 148.0).epsilon(0.02));
  // The H20-3e differs only in memory: 4.8 TB/s.
  CHECK(step("h20-3e", one).op(Op::dense_ffn).time_s / step("h20", one).op(Op::dense_ffn).time_s ==
        Approx(4.0 / 4.8).epsilon(0.02));
}

TEST_CASE("tensor parallelism splits the work and adds all-reduces", "[step_time]") {
  const auto model = specs::model_preset("llama-3.1-70b");
  const auto d1 = one_gpu("h100", 4), d2 = one_gpu("h100", 8);
  const auto profile = calibration::datasheet_profile(d1.hardware, "vllm");
  const auto b = prefill(4096);
  const auto tp4 = simulator::StepTimeModel(model, d1, profile).predict(b);
  const auto tp8 = simulator::StepTimeModel(model, d2, profile).predict(b);
  CHECK(tp8.op(Op::dense_ffn).flops() == Approx(tp4.op(Op::dense_ffn).flops() / 2));
  // Ring all-reduce moves 2 (n-1)/n of the buffer, twice per layer.
  CHECK(tp4.op(Op::tp_allreduce).bytes == Approx(2 * 80 * 4096.0 * 8192 * 2 * 2.0 * 3 / 4));
  CHECK(tp8.op(Op::tp_allreduce).bytes == Approx(2 * 80 * 4096.0 * 8192 * 2 * 2.0 * 7 / 8));
}

TEST_CASE("in a mesh scale-up domain a TP2 all-reduce gets one link of seven, TP8 all of them", "[step_time]") {
  const auto model = specs::model_preset("llama-3.1-70b");
  auto d = one_gpu("h100", 2);
  d.replica = {2, 1, 2};
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const auto switched = simulator::StepTimeModel(model, d, profile).predict(prefill(4096));
  d.hardware.scale_up_topology = "mesh";
  const auto mesh = simulator::StepTimeModel(model, d, profile).predict(prefill(4096));
  // Two all-reduces per layer of 4,096 x 8,192 BF16 values, 1/2 of each over the GPUs' one shared link.
  const double bytes = 2 * 80 * 4096.0 * 8192 * 2 * 2.0 * 1 / 2;
  const double latency = 2 * 80 * profile.collective_latency_s;
  const double link = d.hardware.nvlink_bytes_per_s_one_way() / 7 * profile.nvlink_efficiency;
  CHECK(mesh.op(Op::tp_allreduce).bytes == Approx(bytes));
  CHECK(mesh.op(Op::tp_allreduce).time_s == Approx(bytes / link + latency));
  CHECK(mesh.op(Op::tp_allreduce).time_s - latency == Approx(7 * (switched.op(Op::tp_allreduce).time_s - latency)));
  // The same replica over all eight GPUs of the domain uses every link: as fast as behind a switch.
  auto d8 = one_gpu("h100", 8);
  d8.replica = {8, 1, 8};
  const auto s8 = simulator::StepTimeModel(model, d8, profile).predict(prefill(4096));
  d8.hardware.scale_up_topology = "mesh";
  const auto m8 = simulator::StepTimeModel(model, d8, profile).predict(prefill(4096));
  CHECK(m8.op(Op::tp_allreduce).time_s == Approx(s8.op(Op::tp_allreduce).time_s));
}

TEST_CASE("tp over two 8-GPU nodes all-reduces inside each node over NVLink, then between them over the NICs",
          "[step_time]") {
  const auto model = specs::model_preset("llama-3.1-70b");
  auto d = one_gpu("h100", 8);
  d.nodes = 2;
  d.replica = {16, 1, 16};
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const auto st = simulator::StepTimeModel(model, d, profile).predict(prefill(4096));
  // Two all-reduces per layer of 4,096 x 8,192 BF16 values: 7/8 of it twice over NVLink among the 8 GPUs of a node,
  // then each GPU's eighth twice over its own NIC, 1/2 of it for two nodes.
  const double buffer = 2 * 80 * 4096.0 * 8192 * 2;
  const double intra = buffer * 2.0 * 7 / 8, inter = buffer / 8 * 2.0 * 1 / 2;
  const auto& ar = st.op(Op::tp_allreduce);
  CHECK(ar.bytes == Approx(intra + inter));
  const simulator::RateTable rates(d.hardware, profile);
  const double latency = 2 * 160 * profile.collective_latency_s;
  CHECK(ar.time_s == Approx(intra / rates.nvlink_bus_bytes_per_s(8) + inter / rates.nic_bytes_per_s() + latency));
  // The NIC stage is not negligible: 1/14 of the NVLink stage's bytes over a link ~8x slower costs over half as long.
  CHECK(inter / rates.nic_bytes_per_s() > 0.5 * intra / rates.nvlink_bus_bytes_per_s(8));
}

TEST_CASE("a QK norm across all heads adds one all-reduce per softmax layer under TP, none on one GPU", "[step_time]") {
  // MiniMax-M2.5: 62 layers, RMSNorm over all 48 x 128 query values (and 8 x 128 key values) of a token.
  auto across = specs::model_preset("minimax-m2.5");
  REQUIRE(across.attention.qk_norm_across_heads);
  auto per_head = across;
  per_head.attention.qk_norm_across_heads = false;
  simulator::BatchShape b;
  b.decode_contexts.assign(64, 2048);
  const auto tp8 = one_gpu("h200", 8);
  const auto profile = calibration::datasheet_profile(tp8.hardware, "vllm");
  const auto with = simulator::StepTimeModel(across, tp8, profile).predict(b).op(Op::tp_allreduce);
  const auto without = simulator::StepTimeModel(per_head, tp8, profile).predict(b).op(Op::tp_allreduce);
  // Each of 64 tokens sends its q and k sums of squares (2 fp32) in a ring: 2 x 7/8 of 64 x 8 bytes per layer.
  CHECK(with.bytes - without.bytes == Approx(62 * 64 * 8.0 * 2.0 * 7 / 8));
  // 62 more calls, each paying the call latency (the bytes add ~0.1 us in all).
  CHECK(with.time_s - without.time_s == Approx(62 * profile.collective_latency_s).epsilon(0.01));
  // One GPU has nothing to reduce.
  const auto tp1 = one_gpu("h200", 1);
  CHECK(simulator::StepTimeModel(across, tp1, profile).predict(b).op(Op::tp_allreduce).time_s == 0.0);
}

TEST_CASE("speculative decoding: a dense layer verifies 1 + n tokens per sequence", "[step_time][speculative]") {
  auto model = dense_layer();
  model.mtp_layers = 1;
  const auto d = one_gpu("h100");
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  simulator::BatchShape b;
  b.decode_contexts = {1000, 3000};
  b.draft_tokens = 3;
  const auto st = m.predict(b);
  const double tokens = 2 * (1 + 3);
  const double proj_params = 150994944.0, ffn_params = 704643072.0;
  CHECK(st.op(Op::attn_proj).flops() == 2.0 * tokens * proj_params);
  CHECK(st.op(Op::attn_proj).bytes == proj_params * 2 + tokens * 4.0 * 8192 * 2);
  CHECK(st.op(Op::dense_ffn).flops() == 2.0 * tokens * ffn_params);
  CHECK(st.op(Op::embedding).bytes == tokens * 8192 * 2);
  // Queries see contexts c + 1 .. c + 4; the KV cache is read once per sequence, up to the last draft.
  const double pairs = (1001.0 + 1002 + 1003 + 1004) + (3001.0 + 3002 + 3003 + 3004);
  CHECK(st.op(Op::attention).flops_decode == 2.0 * 64 * 256 * pairs);
  CHECK(st.op(Op::attention).bytes == (1004.0 + 3004.0) * 4096.0);
  // Logits at every position verified.
  CHECK(st.op(Op::lm_head).flops() == 2.0 * tokens * 128256.0 * 8192);

  // Three MTP passes, each one token per sequence through the layer, eh_proj (2 x 8192 -> 8192) and the head;
  // pass k attends contexts c + k + 1.
  double draft_flops = 0.0;
  for (int k = 0; k < 3; ++k) {
    draft_flops += 2.0 * 2 * (proj_params + ffn_params + 2.0 * 8192 * 8192 + 128256.0 * 8192) + 10.0 * 2 * 8192 +
                   2.0 * 64 * 256 * ((1001.0 + k) + (3001.0 + k));
  }
  const auto& draft = st.op(Op::mtp_draft);
  CHECK(draft.flops_decode == Approx(draft_flops).epsilon(1e-12));
  CHECK(draft.flops_prefill == 0.0);
  CHECK(draft.prefill_share == 0.0);
  CHECK(draft.time_s > 0.0);

  // No drafts: no draft op, and the step is exactly the plain decode's.
  simulator::BatchShape plain = b;
  plain.draft_tokens = 0;
  const auto none = m.predict(plain);
  CHECK(none.op(Op::mtp_draft).time_s == 0.0);
  CHECK(none.op(Op::attention).bytes == (1001.0 + 3001.0) * 4096.0);
  CHECK(st.total_s > none.total_s + draft.time_s);

  // The draft passes run one after another: twice the drafts, about twice the draft time.
  simulator::BatchShape six = b;
  six.draft_tokens = 6;
  CHECK(m.predict(six).op(Op::mtp_draft).time_s == Approx(2.0 * draft.time_s).epsilon(0.01));
  // A prefill chunk in the same step does not draft: the draft time is the same and owed to decode.
  simulator::BatchShape mixed = b;
  mixed.prefill.push_back({512, 0, true});
  const auto mixed_st = m.predict(mixed);
  CHECK(mixed_st.op(Op::mtp_draft).time_s == draft.time_s);
  CHECK(mixed_st.decode_s > draft.time_s);
}

TEST_CASE("speculative decoding: an MoE layer routes every verified token", "[step_time][speculative]") {
  auto model = moe_layer();
  const auto d = one_gpu("h200");
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  const double expert = 3.0 * 7168 * 2048;
  simulator::BatchShape b;
  b.decode_contexts = {10};
  b.draft_tokens = 2;
  const auto st = m.predict(b);
  const double touched = 256.0 * (1.0 - std::pow(1.0 - 8.0 / 256.0, 3));
  CHECK(st.op(Op::moe_experts).flops() == Approx(2.0 * 3 * 8 * expert));
  CHECK(st.op(Op::moe_experts).bytes == Approx(touched * expert + 3 * 8 * 2.0 * 7168 * 2));
  // Each of the two draft passes reads its own top-8 experts for the one sequence's token, at least.
  CHECK(st.op(Op::mtp_draft).bytes > 2 * 8 * expert);
}

TEST_CASE("a sparse-attention indexer is charged only on the layers that own one", "[step_time]") {
  auto model = specs::model_preset("deepseek-v4.1-flash");
  const auto d = one_gpu("b200", 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  simulator::BatchShape b;
  b.decode_contexts = {131072};
  model.attention.indexer_layers = 0;  // every layer
  const auto all = simulator::StepTimeModel(model, d, profile).predict(b).op(Op::attention);
  model.attention.indexer_layers = 8;
  const auto eight = simulator::StepTimeModel(model, d, profile).predict(b).op(Op::attention);
  // Indexer keys: context / ratio entries of indexer_head_dim FP8 bytes per indexing layer.
  const double per_layer_keys = (131072.0 + 1) / 2.0 * 128.0;
  CHECK(all.bytes - eight.bytes == Approx((40 - 8) * per_layer_keys));
  // Indexer scoring: 2 x indexer heads x head dim per (query, entry) pair, heads split over TP 8.
  const double per_layer_flops = 2.0 * 32 * 128 / 8 * (131072.0 + 1) / 2.0;
  CHECK(all.flops_decode - eight.flops_decode == Approx((40 - 8) * per_layer_flops));
}

TEST_CASE("INT4 weights multiply at the BF16 rate weight-only and at the FP8 rate against FP8 inputs (W4AFP8)",
          "[step_time]") {
  const auto hw = specs::hardware_preset("h200");
  const simulator::RateTable rates(hw, calibration::datasheet_profile(hw, "trtllm"));
  using specs::Precision;
  CHECK(rates.gemm_flops(Precision::int4, Precision::bf16) == rates.matmul_flops(Precision::bf16));
  CHECK(rates.gemm_flops(Precision::int4, Precision::fp8) == rates.matmul_flops(Precision::fp8));
  // Hopper has no FP4 tensor cores: MXFP4 against FP8 stays at the BF16 rate.
  CHECK(rates.gemm_flops(Precision::fp4, Precision::fp8) == rates.matmul_flops(Precision::bf16));
}

TEST_CASE("MXFP4 experts multiply at the rate of the wider input: the weights' or the activations'", "[step_time]") {
  // gpt-oss-120b's MXFP4 experts. Hopper has no FP4 tensor cores, so the engines dequantise the weights to BF16 in
  // the tile. On Blackwell the engines feed them MXFP8 activations (MXFP4 x MXFP8: the FP8 rate); vLLM's code
  // default, BF16 activations, is the BF16 rate; only 4-bit inputs reach the FP4 rate. A 32,768-token prefill is
  // compute-bound in every case.
  const auto preset = specs::model_preset("gpt-oss-120b");
  REQUIRE(preset.precision.experts == specs::Precision::fp4);
  REQUIRE_FALSE(preset.precision.expert_inputs.has_value());
  const auto expert_time_s = [&](const std::string& hw, double peak_tflops, const std::string& cls,
                                 std::optional<specs::Precision> inputs) {
    auto model = preset;
    model.precision.expert_inputs = inputs;
    const auto d = one_gpu(hw);
    const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
    const simulator::StepTimeModel m(model, d, profile);
    const auto st = m.predict(prefill(32768));
    const auto& ex = st.op(Op::moe_experts);
    // 1,024 assignments per expert in row tiles of 128 (the padding itself: test_expert_placement.cpp).
    const auto placement = simulator::place_experts(*model.moe, {}, 1);
    const double padding = simulator::padded_rows_on_busiest(placement, 4, 32768, 128) / (32768.0 * 4);
    const double compute_s = padding * ex.flops() / (peak_tflops * 1e12 * profile.matmul_efficiency_for(cls));
    REQUIRE(compute_s > ex.bytes / (d.hardware.hbm_bytes_per_s() * profile.memory_efficiency));
    return std::pair{ex.time_s, compute_s + 4 * model.num_layers * profile.op_latency_s};
  };
  using specs::Precision;
  for (const auto inputs :
       {std::optional<Precision>{}, std::optional{Precision::bf16}, std::optional{Precision::fp4}}) {
    const auto [h200_s, h200_bf16_s] = expert_time_s("h200", 989.0, "bf16", inputs);
    CHECK(h200_s == Approx(h200_bf16_s).epsilon(1e-9));
  }
  const auto [mxfp8_s, fp8_rate_s] = expert_time_s("b200", 4500.0, "fp8", std::nullopt);
  CHECK(mxfp8_s == Approx(fp8_rate_s).epsilon(1e-9));
  const auto [bf16_in_s, bf16_rate_s] = expert_time_s("b200", 2250.0, "bf16", Precision::bf16);
  CHECK(bf16_in_s == Approx(bf16_rate_s).epsilon(1e-9));
  const auto [fp4_in_s, fp4_rate_s] = expert_time_s("b200", 9000.0, "fp4", Precision::nvfp4);
  CHECK(fp4_in_s == Approx(fp4_rate_s).epsilon(1e-9));
}

TEST_CASE("INT4 weight-only experts multiply at the BF16 rate even where FP4 tensor cores exist", "[step_time]") {
  // Kimi-K2.5's QAT experts: no tensor core takes INT4 x BF16, so the kernels dequantise to BF16 on B200 too.
  const auto model = specs::model_preset("kimi-k2.5");
  REQUIRE(model.precision.experts == specs::Precision::int4);
  const auto d = one_gpu("b200", 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const simulator::StepTimeModel m(model, d, profile);
  const auto st = m.predict(prefill(65536));
  const auto& ex = st.op(Op::moe_experts);
  // 65,536 x 8 / 384 = 1,365 assignments per expert in row tiles of 128 (padding: test_expert_placement.cpp).
  const auto placement = simulator::place_experts(*model.moe, {}, d.replica.ep);
  const double padding = simulator::padded_rows_on_busiest(placement, 8, 65536, 128) / (65536.0 * 8 / d.replica.ep);
  const double compute_s = padding * ex.flops() / (2250e12 * profile.matmul_efficiency_for("bf16"));
  REQUIRE(compute_s > ex.bytes / (d.hardware.hbm_bytes_per_s() * profile.memory_efficiency));
  CHECK(ex.time_s ==
        Approx(compute_s + 4 * (model.num_layers - model.dense_layers) * profile.op_latency_s).epsilon(1e-9));
}

TEST_CASE("gemm_inputs: W4A8 for MXFP4, W4A4 for NVFP4, weight-only for INT4, W8A8 for FP8; a model's own wins",
          "[step_time]") {
  using specs::Precision;
  CHECK(simulator::gemm_inputs(Precision::fp4) == Precision::fp8);
  CHECK(simulator::gemm_inputs(Precision::nvfp4) == Precision::nvfp4);
  CHECK(simulator::gemm_inputs(Precision::int4) == Precision::bf16);
  CHECK(simulator::gemm_inputs(Precision::fp8) == Precision::fp8);
  CHECK(simulator::gemm_inputs(Precision::bf16) == Precision::bf16);
  auto precision = specs::model_preset("gpt-oss-120b").precision;
  CHECK(simulator::expert_gemm_inputs(precision) == Precision::fp8);
  precision.expert_inputs = Precision::bf16;  // vLLM without VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8
  CHECK(simulator::expert_gemm_inputs(precision) == Precision::bf16);
}

TEST_CASE("a Gated DeltaNet layer reads and writes a constant state per decode and runs the chunked form in prefill",
          "[step_time][linear_attention]") {
  // One Qwen3.5 layer with linear attention: 64 value heads and 16 key heads of 128, conv kernel 4, fp32 state.
  auto model = specs::model_preset("qwen3.5-397b-a17b");
  model.num_layers = 1;
  model.linear_attention->layers = 1;
  const auto d = one_gpu("b200", 8);
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "sglang"));
  // Per GPU (TP 8): 8 value heads x 128 x 128 x 4 B of state, and 3 past inputs of (2 x 2048 + 8192) / 8 conv
  // channels in bf16.
  const double state = 8.0 * 128 * 128 * 4, conv = 1536.0 * 3 * 2;
  simulator::BatchShape short_ctx, long_ctx;
  short_ctx.decode_contexts = {100, 100, 100};
  long_ctx.decode_contexts = {100000, 100000, 100000};
  const auto a = m.predict(short_ctx), b = m.predict(long_ctx);
  CHECK(a.op(Op::linear_attention).bytes == 3 * 2.0 * (state + conv));
  CHECK(b.op(Op::linear_attention).bytes == a.op(Op::linear_attention).bytes);  // the context does not matter
  // 7 x 128 x 128 FLOPs per value head per token (decay, S^T k, rank-1 update, S^T q) plus the conv's 2 x 4 per
  // channel.
  CHECK(a.op(Op::linear_attention).flops_decode == 3 * (8.0 * 7 * 128 * 128 + 2.0 * 1536 * 4));
  CHECK(a.op(Op::attention).time_s == 0.0);  // no softmax layer in this model
  // The projections are the DeltaNet's (qkvz, ba, conv, out), not a GQA layer's.
  const double params = 4096.0 * (2 * 2048 + 2 * 8192) + 4096.0 * 128 + (2.0 * 2048 + 8192) * 4 + 8192.0 * 4096;
  CHECK(a.op(Op::attn_proj).flops() == Approx(2.0 * 3 * params / 8));
  SECTION("prefill: 1,000 tokens in 16 chunks of 64") {
    const auto p = m.predict(prefill(1000));
    const double per_token = 8.0 * (6 * 128 * 128 + 4 * 64 * (128 + 128)) + 2.0 * 1536 * 4;
    CHECK(p.op(Op::linear_attention).flops_prefill == Approx(1000 * per_token));
    // 16 boundary states written and read back in bf16, the initial state read and the final one written.
    CHECK(p.op(Op::linear_attention).bytes == Approx(2.0 * 16 * 8 * 128 * 128 * 2 + 2.0 * (state + conv)));
  }
}
