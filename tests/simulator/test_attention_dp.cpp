// Attention data parallelism with expert parallelism: lockstep ranks, the experts' work on every rank's
// tokens, the EP exchange by hand count, memory per GPU, two-batch overlap, and ranks serving in parallel.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::BatchShape;
using simulator::Op;

namespace {

// One DeepSeek-V3 MoE layer (256 experts top-8 of 3 x 7168 x 2048, FP8) on 8 H200 as 8 DP ranks with EP8.
specs::ModelSpec v3_layer() {
  auto m = specs::model_preset("deepseek-v3");
  m.num_layers = 1;
  m.dense_layers = 0;
  m.mtp_layers = 0;
  return m;
}

specs::DeploymentSpec dp_ep(int dp, int tp, int ep, bool overlap = false) {
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset("h200");
  d.nodes = 1;
  d.gpus_per_node = dp * tp;
  d.replica = {tp, 1, ep, dp};
  d.two_batch_overlap = overlap;
  return d;
}

BatchShape prefill(int tokens) {
  BatchShape b;
  b.prefill.push_back({tokens, 0, true});
  return b;
}

double sum_ops(const simulator::StepTime& st, bool communication) {
  double s = 0.0;
  for (int i = 0; i < simulator::kNumOps; ++i) {
    const auto op = static_cast<Op>(i);
    if (op == Op::overlap || op == Op::step_overhead) continue;
    const bool comm = op == Op::tp_allreduce || op == Op::ep_alltoall || op == Op::pp_send;
    if (comm == communication) s += st.ops[i].time_s;
  }
  return s;
}

}  // namespace

TEST_CASE("attention DP: the experts compute every rank's tokens, attention only the busiest rank's", "[dp]") {
  const auto model = v3_layer();
  const auto d = dp_ep(8, 1, 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "sglang");
  const simulator::StepTimeModel m(model, d, profile);
  const int T = 1000;
  std::vector<BatchShape> ranks(8, prefill(T / 2));
  ranks[3] = prefill(T);  // the busiest rank
  const auto st = m.predict_ranks(ranks);
  // Routed experts: 2 x 44,040,192 parameters x every token's 8 assignments / 8 EP ranks, per GPU.
  const double expert_params = 3.0 * 7168 * 2048;
  const double all_tokens = 7.0 * T / 2 + T;
  CHECK(st.op(Op::moe_experts).flops() == Approx(2.0 * expert_params * all_tokens * 8 / 8).epsilon(1e-12));
  // Attention projections: the busiest rank's T tokens through the whole (unsplit, tp 1) projections.
  const simulator::StepTimeModel alone(model, dp_ep(1, 1, 1), profile);
  CHECK(st.op(Op::attn_proj).flops() == alone.predict(prefill(T)).op(Op::attn_proj).flops());
  CHECK(st.op(Op::tp_allreduce).time_s == 0.0);  // tp 1 inside a rank: nothing to all-reduce
}

TEST_CASE("attention DP: the EP exchange moves each token to the ranks of its experts and back", "[dp]") {
  const auto model = v3_layer();
  const auto d = dp_ep(8, 1, 8);
  const simulator::StepTimeModel m(model, d, calibration::datasheet_profile(d.hardware, "sglang"));
  const int T = 512;
  const auto st = m.predict(prefill(T));  // every rank T tokens: what a rank sends equals what one receives
  // Top-8 of 256 experts over 8 ranks: a token reaches 7 (1 - (7/8)^8) = 4.84 other ranks; FP8 dispatch
  // (7168 B + one 4-byte scale per 128) and BF16 combine (2 x 7168 B).
  const double remote = 7.0 * (1.0 - std::pow(7.0 / 8.0, 8));
  const double per_token = 7168.0 * (1.0 + 4.0 / 128.0) + 7168.0 * 2.0;
  CHECK(st.op(Op::ep_alltoall).bytes == Approx(T * remote * per_token).epsilon(1e-12));
  // Without attention DP (dp 1, tp 8 = ep 8) the MoE output comes back by the TP all-reduce instead.
  const simulator::StepTimeModel tp8(model, dp_ep(1, 8, 8), calibration::datasheet_profile(d.hardware, "sglang"));
  CHECK(tp8.predict(prefill(T)).op(Op::ep_alltoall).bytes == 0.0);
}

TEST_CASE("attention DP: every rank holds the attention and shared weights, experts are split over all", "[dp]") {
  const auto model = specs::model_preset("deepseek-v3");
  const auto p = simulator::count_parameters(model);
  const auto dp8 = simulator::plan_memory(model, dp_ep(8, 1, 8));
  const auto tp8 = simulator::plan_memory(model, dp_ep(1, 8, 8));
  // What tp 8 splits and dp 8 replicates: all but the routed experts (FP8 weights, 16-bit embedding, LM head
  // and router), 7/8 of it more per GPU.
  const double moe = model.moe_layers();
  const double replicated = model.num_layers * p.attention_per_layer + moe * p.shared_experts_per_moe_layer +
                            model.dense_layers * p.dense_ffn_per_layer + p.mtp;
  const double sixteen_bit = (p.embedding + p.lm_head) * 2.0 + moe * p.router_per_moe_layer * 2.0;
  CHECK(dp8.weight_bytes - tp8.weight_bytes == Approx((replicated + sixteen_bit) * 7.0 / 8.0).epsilon(1e-9));
}

TEST_CASE("two-batch overlap hides the smaller of compute and communication but one layer's share", "[dp]") {
  const auto model = v3_layer();
  const auto profile = calibration::datasheet_profile(specs::hardware_preset("h200"), "sglang");
  const simulator::StepTimeModel plain(model, dp_ep(8, 1, 8), profile);
  const simulator::StepTimeModel overlapped(model, dp_ep(8, 1, 8, true), profile);
  const auto b = prefill(4096);
  const auto st = overlapped.predict(b);
  const double compute = sum_ops(st, false), comm = sum_ops(st, true);
  REQUIRE(comm > 0.0);
  // One layer: the first micro-batch's communication (or compute) cannot hide.
  CHECK(st.total_s - st.op(Op::step_overhead).time_s ==
        Approx(std::max(compute, comm) + std::min(compute, comm) / 2.0).epsilon(1e-12));
  CHECK(st.op(Op::overlap).time_s < 0.0);
  CHECK(plain.predict(b).op(Op::overlap).time_s == 0.0);
  // The micro-batches are half the tokens each: together they compute what the whole batch does.
  CHECK(st.op(Op::moe_experts).flops() == Approx(plain.predict(b).op(Op::moe_experts).flops()).epsilon(1e-12));
  // With nothing to communicate (one GPU) overlap saves nothing and costs the second weight read.
  const simulator::StepTimeModel one(model, dp_ep(1, 1, 1, true), profile);
  const simulator::StepTimeModel one_plain(model, dp_ep(1, 1, 1), profile);
  BatchShape small;
  small.decode_contexts.assign(16, 1000);
  CHECK(one.predict(small).op(Op::overlap).time_s == 0.0);
  CHECK(one.predict(small).total_s > one_plain.predict(small).total_s);
}

TEST_CASE("attention-DP ranks serve their requests side by side", "[dp]") {
  // Two requests at once on a replica of two DP ranks that each run one sequence at a time: round robin puts
  // one on each rank, so the second's first token comes while the first still decodes; with one rank of the
  // same GPUs as TP the second waits until the first has finished.
  auto j = test::small_scenario();
  j["deployment"]["gpus_per_node"] = 2;
  j["deployment"]["replica"] = {{"tp", 1}, {"pp", 1}, {"ep", 1}, {"dp", 2}};
  j["deployment"]["scheduler"]["max_num_seqs"] = 1;
  j["workload"]["arrival"] = {{"kind", "closed_loop"}, {"clients", 2}};
  j["num_requests"] = 2;
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  const auto dp = simulator::simulate_in_child(test::parse(j))["metrics"];
  CHECK(dp["ttft_ms"]["max"].get<double>() < dp["e2e_latency_ms"]["min"].get<double>());
  j["deployment"]["replica"] = {{"tp", 2}, {"pp", 1}, {"ep", 1}, {"dp", 1}};
  const auto tp = simulator::simulate_in_child(test::parse(j))["metrics"];
  CHECK(tp["ttft_ms"]["max"].get<double>() > tp["e2e_latency_ms"]["min"].get<double>());
}
