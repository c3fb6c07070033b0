// A latent MoE (Kimi-K3) against hand counts: the routed experts run at the latent width between a down and an up
// projection that every token takes, the EP exchange carries the latent, and the weights add up to the checkpoint.
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

TEST_CASE("a latent MoE's experts run at the latent width; its projections are charged to every token",
          "[step_time][latent_moe]") {
  const auto k3 = specs::model_preset("kimi-k3");
  REQUIRE(k3.moe->latent_width == 3584);
  const auto d = one_gpu("b200");
  const simulator::StepTimeModel m(k3, d, calibration::datasheet_profile(d.hardware, "vllm"));
  simulator::BatchShape b;  // one token decoding: it touches exactly its 16 experts on each of the 92 MoE layers
  b.decode_contexts = {10};
  const auto st = m.predict(b);
  const double expert = 3.0 * 3584 * 3072;  // gate, up and down at the latent width
  CHECK(st.op(Op::moe_experts).flops() == Approx(92 * 2.0 * 16 * expert));
  // 16 MXFP4 experts (4 bits and a scale per 32), and the token's BF16 latent into and out of each.
  CHECK(st.op(Op::moe_experts).bytes == Approx(92 * (16 * expert * (0.5 + 1.0 / 32) + 16 * 2.0 * 3584 * 2)));
  // Two shared experts of 3072 on the hidden state, and the 7168 -> 3584 -> 7168 projections.
  CHECK(st.op(Op::shared_expert).flops() == Approx(92 * 2.0 * (2 * 3.0 * 7168 * 3072 + 2.0 * 7168 * 3584)));
}

TEST_CASE("a latent MoE's EP exchange carries the latent, not the hidden state", "[step_time][latent_moe]") {
  const auto k3 = specs::model_preset("kimi-k3");
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset("b200");
  d.nodes = 1;
  d.gpus_per_node = 8;
  d.replica = {1, 1, 8, 8};  // attention DP 8, experts over all 8 GPUs
  const simulator::StepTimeModel m(k3, d, calibration::datasheet_profile(d.hardware, "sglang"));
  simulator::BatchShape b;
  b.prefill.push_back({512, 0, true});  // every rank 512 tokens
  // Top-16 of 896 experts over 8 ranks: a token reaches 7 (1 - (7/8)^16) other ranks, dispatched and combined in BF16
  // (the weights are 16-bit, so no FP8 dispatch), 3584 values each way.
  const double remote = 7.0 * (1.0 - std::pow(7.0 / 8.0, 16));
  CHECK(m.predict(b).op(Op::ep_alltoall).bytes == Approx(92 * 512 * remote * 3584 * 4.0));
}

TEST_CASE("Kimi-K3 counts to 2.78T, 104B active, and its weights to the checkpoint's 1,561 GB", "[architecture]") {
  const auto k3 = specs::model_preset("kimi-k3");
  const auto c = simulator::count_parameters(k3);
  // By hand: 24 MLA layers (q LoRA 1536, 96 heads of 128 + 64, kv LoRA 512 + 64, up 96 x 256, out and the output
  // gate 96 x 128 each way), 69 Kimi Delta Attention layers as Gated DeltaNet (q, k, v and gate 7168 x 12288, decay and
  // write strength 7168 x 96 each, a 4-tap conv over 36864 channels, out 12288 x 7168), a dense FFN of 33792, 92 MoE
  // layers (896 routed experts of 3 x 3584 x 3072, 2 shared of 3 x 7168 x 3072, 7168 x 3584 down and up, the router
  // 7168 x 896) and an untied 163840 x 7168 embedding and head.
  const double h = 7168;
  const double mla = h * 1536 + 1536 * 96 * 192.0 + h * 576 + 512 * 96 * 256.0 + 2 * 96 * 128 * h;
  const double kda = h * 4 * 12288 + h * 2 * 96 + 36864 * 4.0 + 12288 * h;
  const double moe = 896 * 3.0 * 3584 * 3072 + 2 * 3.0 * h * 3072 + 2.0 * h * 3584 + h * 896;
  CHECK(c.total() == Approx(24 * mla + 69 * kda + 3.0 * h * 33792 + 92 * moe + 2.0 * 163840 * h));
  CHECK(c.total() == Approx(2.8e12).epsilon(0.01));            // published 2.8T (with a 0.45B vision tower)
  CHECK(c.active_per_token() == Approx(104e9).epsilon(0.01));  // 104B active, as one public source says
  // Weights: MXFP4 routed experts (4.25 bits), everything else BF16; a TP 16 replica's GPUs hold the whole model once.
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset("b200");
  d.nodes = 2;
  d.gpus_per_node = 8;
  d.replica = {16, 1, 16};
  const double checkpoint = 1'560'936'091'448.0;  // the pinned revision's safetensors bytes
  CHECK(16 * simulator::plan_memory(k3, d).weight_bytes == Approx(checkpoint).epsilon(0.002));
}
