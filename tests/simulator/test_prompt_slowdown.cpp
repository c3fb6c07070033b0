// A prompt's slowdown (Profile::prompt_slowdown): the prompt tokens' share of every op's GPU time taken that many
// times for the model's kind, the decodes' share and the host's step costs as they were.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "step_support.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;

namespace {

// The step's time on the GPU: every op but the host's step costs.
double gpu_s(const simulator::StepTime& st) { return st.total_s - st.op(Op::step_overhead).time_s; }

// The GPU time of the prompt tokens' (true) or the decodes' (false) share of every op.
double gpu_share_s(const simulator::StepTime& st, bool prompt) {
  double s = 0.0;
  for (int i = 0; i < simulator::kNumOps; ++i) {
    if (static_cast<Op>(i) == Op::step_overhead) continue;
    const auto& c = st.ops[i];
    s += c.time_s * (prompt ? c.prefill_share : 1.0 - c.prefill_share);
  }
  return s;
}

}  // namespace

TEST_CASE("a prompt's slowdown multiplies its tokens' GPU time for the model's kind and leaves decodes as they were",
          "[step_time]") {
  const auto d = test::one_gpu("h200");
  const auto moe = specs::model_preset("gpt-oss-120b");
  const auto plain = calibration::datasheet_profile(d.hardware, "vllm");
  auto slow = plain;
  slow.prompt_slowdown = {{"moe", 3.0}};

  // A prompt alone: every op's time is the prompt's, so the GPU time triples; the host's step cost stays.
  const auto prompt = test::prefill(4096);
  const auto before = simulator::StepTimeModel(moe, d, plain).predict(prompt);
  const auto after = simulator::StepTimeModel(moe, d, slow).predict(prompt);
  CHECK(gpu_s(after) == Approx(3.0 * gpu_s(before)));
  CHECK(after.op(Op::step_overhead).time_s == before.op(Op::step_overhead).time_s);

  // Decodes alone: nothing changes.
  simulator::BatchShape decode;
  decode.decode_contexts = {2048, 2048, 2048, 2048};
  CHECK(simulator::StepTimeModel(moe, d, slow).predict(decode).total_s ==
        Approx(simulator::StepTimeModel(moe, d, plain).predict(decode).total_s));

  // A chunk beside decodes: the chunk's share of each op triples, the decodes' share stays.
  simulator::BatchShape mixed = decode;
  mixed.prefill.push_back({1024, 0, true});
  const auto mixed_before = simulator::StepTimeModel(moe, d, plain).predict(mixed);
  const auto mixed_after = simulator::StepTimeModel(moe, d, slow).predict(mixed);
  CHECK(gpu_share_s(mixed_after, true) == Approx(3.0 * gpu_share_s(mixed_before, true)));
  CHECK(gpu_share_s(mixed_after, false) == Approx(gpu_share_s(mixed_before, false)));
  CHECK(mixed_after.prefill_s - mixed_before.prefill_s == Approx(2.0 * gpu_share_s(mixed_before, true)));

  // The entry for MoE models leaves a dense model alone; its own entry slows it.
  const auto dense = test::dense_layer();
  CHECK(simulator::StepTimeModel(dense, d, slow).predict(prompt).total_s ==
        Approx(simulator::StepTimeModel(dense, d, plain).predict(prompt).total_s));
  slow.prompt_slowdown = {{"dense", 2.0}};
  CHECK(gpu_s(simulator::StepTimeModel(dense, d, slow).predict(prompt)) ==
        Approx(2.0 * gpu_s(simulator::StepTimeModel(dense, d, plain).predict(prompt))));
}

TEST_CASE("an eager prompt iteration waits for the launches less where its slowed GPU work takes longer",
          "[step_time]") {
  const auto d = test::one_gpu("h100");
  const auto model = test::dense_layer();
  auto eager = calibration::datasheet_profile(d.hardware, "trtllm");
  eager.eager_launch_s = 1e-3;  // 14 kernels: 14 ms of launching
  const auto prompt = test::prefill(512);
  const auto before = simulator::StepTimeModel(model, d, eager).predict(prompt);
  eager.prompt_slowdown = {{"dense", 2.0}};
  const auto after = simulator::StepTimeModel(model, d, eager).predict(prompt);
  // The launch floor holds the step at 14 ms either way; the GPU's share of it doubles.
  const double gpu_before = gpu_s(before) - before.op(Op::launch_wait).time_s;
  CHECK(after.total_s == Approx(before.total_s));
  CHECK(after.op(Op::launch_wait).time_s == Approx(before.op(Op::launch_wait).time_s - gpu_before));
}
