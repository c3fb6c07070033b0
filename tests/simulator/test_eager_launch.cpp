// The eager prompt iteration's launch floor (Profile::eager_launch_s): a step with prompt tokens lasts at least its
// kernels' host launches; decode steps and long prompts do not wait.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "step_support.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;

using test::dense_layer;
using test::prefill;

TEST_CASE("an eager prompt iteration lasts at least its kernels' launches; decode steps and long prompts do not wait",
          "[step_time]") {
  // One Llama-3.1-70B layer on one H100: the datasheet profile's kernel count for a step, read off op_latency_s (each
  // kernel adds it to its op: 1 s a kernel makes the step's time its kernel count, in seconds, plus the work).
  const auto model = dense_layer();
  const auto d = test::one_gpu("h100");
  auto counting = calibration::datasheet_profile(d.hardware, "trtllm");
  counting.op_latency_s = 1.0;
  const auto short_prompt = prefill(16);
  const double kernels = std::floor(simulator::StepTimeModel(model, d, counting).predict(short_prompt).total_s);
  // Embedding 1, projections 4, attention 1, elementwise 3, FFN 3, head 2: 14 kernels for a one-layer model.
  CHECK(kernels == 14.0);

  auto eager = calibration::datasheet_profile(d.hardware, "trtllm");
  const auto graphed = simulator::StepTimeModel(model, d, eager).predict(short_prompt);
  eager.eager_launch_s = 1e-3;  // 14 kernels: 14 ms of launching, far above a 16-token prompt's GPU work
  const simulator::StepTimeModel m(model, d, eager);
  const auto st = m.predict(short_prompt);
  CHECK(st.op(Op::launch_wait).time_s == Approx(14e-3 - (graphed.total_s - graphed.op(Op::step_overhead).time_s)));
  CHECK(st.total_s == Approx(14e-3 + graphed.op(Op::step_overhead).time_s));
  CHECK(st.op(Op::launch_wait).prefill_share == 1.0);
  // A decode-only step runs as a CUDA graph: no wait.
  simulator::BatchShape decode;
  decode.decode_contexts = {512, 512};
  CHECK(m.predict(decode).op(Op::launch_wait).time_s == 0.0);
  // A prompt whose GPU work outlasts the launches does not wait either.
  eager.eager_launch_s = 1e-6;
  CHECK(simulator::StepTimeModel(model, d, eager).predict(prefill(4096)).op(Op::launch_wait).time_s == 0.0);
}
