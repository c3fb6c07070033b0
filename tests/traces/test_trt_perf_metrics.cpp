// TensorRT-LLM's /perf_metrics records: the reader, the summary of one run's requests, and what it puts on the run.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/trt_perf_metrics.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// One entry as trtllm-serve writes it; times in seconds.
std::string entry(long id, long first_iter, long last_iter, double server_arrival, double arrival, double scheduled,
                  double first_token, double server_first_token, double last_token) {
  char text[600];
  std::snprintf(text, sizeof text,
                R"({"request_id": %ld, "perf_metrics": {"first_iter": %ld, "last_iter": %ld, "timing_metrics": )"
                R"({"server_arrival_time": %.6f, "arrival_time": %.6f, "first_scheduled_time": %.6f, )"
                R"("first_token_time": %.6f, "server_first_token_time": %.6f, "last_token_time": %.6f}, )"
                R"("kv_cache_metrics": {"num_total_allocated_blocks": 8}}})",
                id, first_iter, last_iter, server_arrival, arrival, scheduled, first_token, server_first_token,
                last_token);
  return text;
}

// A warm-up (id 2) and three measured requests (ids 3-5, listed out of order as they finished): front ends of 4, 6 and
// 8 ms, waits of 1, 2 and 3 ms, prompt iterations of 50, 60 and 70 ms, responses of 0.5 ms, and 100, 150 and 250
// decode iterations of 10, 12 and 14 ms.
const std::string kRun = "[" + entry(2, 1, 40, 0.0, 0.010, 0.011, 0.100, 0.1005, 0.500) + ", " +
                         entry(4, 45, 195, 1.000, 1.006, 1.008, 1.068, 1.0685, 1.068 + 150 * 0.012) + ", " +
                         entry(3, 42, 142, 0.900, 0.904, 0.905, 0.955, 0.9555, 0.955 + 100 * 0.010) + ", " +
                         entry(5, 50, 300, 1.100, 1.108, 1.111, 1.181, 1.1815, 1.181 + 250 * 0.014) + "]";

}  // namespace

TEST_CASE("perf_metrics: the measured requests' engine-side medians and tokens per decode iteration",
          "[traces][perf_metrics]") {
  const auto entries = traces::parse_trt_perf_metrics(kRun, "perf.json");
  REQUIRE(entries.size() == 4);
  CHECK(entries[1].request_id == 4);
  CHECK(entries[1].last_iter == 195);
  // 3 measured requests gave 1,003 tokens: 1,000 after their first ones over 100 + 150 + 250 = 500 iterations.
  const auto t = traces::summarize_engine_timing(entries, 3, 1003, "perf.json");
  CHECK(t.requests == 3);
  CHECK(t.warmups_left_out == 1);
  CHECK(t.decode_iterations == 500);
  CHECK(t.tokens_per_iteration == Approx(2.0));
  CHECK(t.front_end_ms == Approx(6.0).margin(1e-6));
  CHECK(t.wait_ms == Approx(2.0).margin(1e-6));
  CHECK(t.context_ms == Approx(60.0).margin(1e-6));
  CHECK(t.response_ms == Approx(0.5).margin(1e-6));
  CHECK(t.decode_iteration_ms == Approx(12.0).margin(1e-6));

  // A speculative run without an accepted length of its own takes the iterations'; one with its own keeps it.
  traces::MeasuredServingRun mtp;
  mtp.spec_method = "mtp";
  mtp.spec_draft_tokens = 3;
  traces::apply_engine_timing(t, mtp);
  CHECK(mtp.spec_accept_length == Approx(2.0));
  CHECK(mtp.notes.find("prompt iteration 60.0 ms") != std::string::npos);
  mtp.spec_accept_length = 2.6;
  traces::apply_engine_timing(t, mtp);
  CHECK(mtp.spec_accept_length == 2.6);
  // A run that does not draft only gets the note: one token per iteration is what it should show.
  traces::MeasuredServingRun plain;
  traces::apply_engine_timing(t, plain);
  CHECK(plain.spec_accept_length == 0.0);
  CHECK(plain.notes.find("2.00 tokens per decode iteration") != std::string::npos);
}

TEST_CASE("perf_metrics: null server times, too few entries and bad entries are named", "[traces][perf_metrics]") {
  // A request that did not come through the HTTP server has null server times: its front end is not given.
  const std::string nulls =
      R"([{"request_id": 1, "perf_metrics": {"first_iter": 1, "last_iter": 11, "timing_metrics": )"
      R"({"server_arrival_time": null, "arrival_time": 1.0, "first_scheduled_time": 1.001, "first_token_time": 1.05, )"
      R"("server_first_token_time": null, "last_token_time": 1.15}}}])";
  const auto t = traces::summarize_engine_timing(traces::parse_trt_perf_metrics(nulls, "n.json"), 1, 11, "n.json");
  CHECK(std::isnan(t.front_end_ms));
  CHECK(t.context_ms == Approx(49.0).margin(1e-6));
  traces::MeasuredServingRun run;
  traces::apply_engine_timing(t, run);
  CHECK(run.notes.find("front end not given") != std::string::npos);

  // trtllm-serve keeps perf_metrics_max_requests: fewer entries than the run measured cannot be its requests.
  CHECK_THROWS_WITH(traces::summarize_engine_timing(traces::parse_trt_perf_metrics(kRun, "p.json"), 5, 100, "p.json"),
                    Catch::Contains("measured 5"));
  const auto error = [](const std::string& text) {
    try {
      traces::parse_trt_perf_metrics(text, "bad.json");
    } catch (const InputError& e) {
      return e.field() + " = " + e.value();
    }
    return std::string("no error");
  };
  CHECK(error(R"([{"request_id": 1, "perf_metrics": {"first_iter": 5, "last_iter": 4, "timing_metrics": {}}}])") ==
        "entry 0, last_iter = 4");
  CHECK(error(R"([{"request_id": 1, "perf_metrics": {"first_iter": 1, "last_iter": 4}}])") ==
        "entry 0, timing_metrics = ");
  CHECK(error("[" + entry(1, 1, 2, 0.0, 0.5, 0.4, 0.6, 0.6, 0.7) + "]") == "entry 0, first_scheduled_time = 0.400000");
  CHECK_THROWS_WITH(traces::parse_trt_perf_metrics(R"({"request_id": 1})", "o.json"), Catch::Contains("JSON list"));
  CHECK_THROWS_AS(traces::parse_trt_perf_metrics("[1, 2", "t.json"), InputError);
}
