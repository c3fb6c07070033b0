// Layers of other kinds than attention plus a gated FFN: Mamba-2 mixers, blocks without a mixer or an FFN, and
// global layers of their own shape, each against a hand count.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;
using test::one_gpu;

namespace {

simulator::BatchShape prefill(int tokens) {
  simulator::BatchShape b;
  b.prefill.push_back({tokens, 0, true});
  return b;
}

}  // namespace

TEST_CASE("a Mamba-2 layer: one step size per head, five FLOPs per state element a decode, chunks of 256 in prefill",
          "[step_time][linear_attention]") {
  // One Nemotron-H-56B Mamba layer: 256 heads of 64, B and C of 8 groups x 256, conv 4 over x, B and C, fp32 state.
  auto model = specs::model_preset("nemotron-h-56b");
  model.num_layers = 1;
  model.linear_attention->layers = 1;
  model.attention_free_layers = 0;
  model.dense_layers = 0;
  model.ffn_free_layers = 1;
  const auto d = one_gpu("h100", 8);
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  // Per GPU (TP 8): 32 heads; (2 x 2048 + 16384) / 8 = 2,560 conv channels.
  const double state = 32.0 * 256 * 64 * 4, conv = 2560.0 * 3 * 2;
  simulator::BatchShape decode;
  decode.decode_contexts = {100, 5000};
  const auto a = m.predict(decode);
  CHECK(a.op(Op::linear_attention).bytes == 2 * 2.0 * (state + conv));
  CHECK(a.op(Op::linear_attention).flops_decode == 2 * (32.0 * 5 * 256 * 64 + 2.0 * 2560 * 4));
  // in_proj (z, x of 16384, B, C of 2048, one dt per head), conv, out_proj: no FFN, no softmax attention.
  const double params = 8192.0 * (2 * 16384 + 2 * 2048 + 256) + 20480.0 * 4 + 16384.0 * 8192;
  CHECK(a.op(Op::attn_proj).flops() == Approx(2.0 * 2 * params / 8));
  CHECK(a.op(Op::attention).time_s == 0.0);
  CHECK(a.op(Op::dense_ffn).time_s == 0.0);
  // One all-reduce after the mixer, none for an FFN the block does not have.
  CHECK(a.op(Op::tp_allreduce).bytes == Approx(2 * 8192.0 * 2 * 2.0 * 7 / 8));
  const auto p = m.predict(prefill(1000));
  const double per_token = 32.0 * (4 * 256 * 64 + 2 * 256 * (256 + 64)) + 2.0 * 2560 * 4;
  CHECK(p.op(Op::linear_attention).flops_prefill == Approx(1000 * per_token));
  CHECK(p.op(Op::linear_attention).bytes == Approx(2.0 * 4 * 32 * 256 * 64 * 2 + 2.0 * (state + conv)));  // 4 chunks
}

TEST_CASE("attention-free layers add no attention, KV or all-reduce; FFN-free layers no FFN or all-reduce",
          "[step_time]") {
  // Llama-3.3-Nemotron-Super-49B: 80 layers, 31 of them without attention, every one with an FFN.
  const auto super = specs::model_preset("llama-3.3-nemotron-super-49b-v1");
  auto every_layer = super;
  every_layer.attention_free_layers = 0;
  const auto d = one_gpu("h100", 2);
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const simulator::StepTimeModel a(super, d, profile), b(every_layer, d, profile);
  simulator::BatchShape decode;
  decode.decode_contexts = {4000, 4000};
  const auto sa = a.predict(decode), sb = b.predict(decode);
  // The attention reads 49 layers' KV instead of 80, and 49 layers' projections are multiplied.
  CHECK(sa.op(Op::attention).bytes == Approx(sb.op(Op::attention).bytes * 49 / 80));
  CHECK(sa.op(Op::attn_proj).flops() == Approx(sb.op(Op::attn_proj).flops() * 49 / 80));
  CHECK(sa.op(Op::dense_ffn).flops() == sb.op(Op::dense_ffn).flops());
  // 49 + 80 all-reduces of the hidden state where 160 were.
  CHECK(sa.op(Op::tp_allreduce).bytes == Approx(sb.op(Op::tp_allreduce).bytes * 129 / 160));
  // The cache holds K and V of 8 heads x 128 in bf16 on the 49 layers that attend.
  CHECK(simulator::kv_bytes_per_token(super) == 49 * 2.0 * 8 * 128 * 2);
  // Nemotron-H-56B: 10 attention layers of 8 KV heads cache per token; the 54 Mamba layers a constant state.
  const auto h56 = specs::model_preset("nemotron-h-56b");
  CHECK(simulator::kv_bytes_per_token(h56) == 10 * 2.0 * 8 * 128 * 2);
  CHECK(simulator::kv_bytes_for_sequence(h56, 1000) - simulator::kv_bytes_for_sequence(h56, 999) ==
        Approx(simulator::kv_bytes_per_token(h56)));
  CHECK(simulator::linear_state_bytes(h56) == 54 * (256.0 * 64 * 256 * 4 + 20480.0 * 3 * 2));
}

TEST_CASE("global layers with their own KV heads and head size read and attend at their shape (Gemma 4)",
          "[step_time]") {
  const auto model = specs::model_preset("gemma-4-26b-a4b");
  const auto d = one_gpu("b200", 2);
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "vllm"));
  simulator::BatchShape decode;
  decode.decode_contexts = {3000};
  const auto st = m.predict(decode);
  // One query after 3,000 tokens: 3,001 keys on each of 5 global layers, 1,024 on each of 25 sliding ones. Per GPU
  // (TP 2): one of the 2 global KV heads (512 wide, the key also the value) and 4 of the 8 sliding ones (256, K and
  // V); 8 query heads, qk + v = 1,024 on the global layers and 512 on the sliding ones.
  CHECK(st.op(Op::attention).bytes == Approx(5 * 3001 * 512 * 2.0 + 25 * 1024 * 2.0 * 4 * 256 * 2));
  CHECK(st.op(Op::attention).flops_decode == Approx(2.0 * 8 * (1024 * 5 * 3001.0 + 512 * 25 * 1024.0)));
  // Its memory plan holds the same split: a 3,001-token sequence's KV on one GPU.
  CHECK(simulator::kv_bytes_per_gpu(model, d, 3001) ==
        Approx(std::ceil(3001.0 / d.scheduler.kv_block_tokens) * d.scheduler.kv_block_tokens * 5 * 512 * 2.0 +
               25 * 1024 * 2.0 * 4 * 256 * 2));
}
