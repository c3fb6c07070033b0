// The forward-pass metrics reader (Dynamo's per-iteration metrics as aiconfigurator's FPM collector writes them):
// both header layouts, columns in any order, idle iterations counted, and bad files refused with the line, the
// column and the value named. The rows are made up; the column names are the collector's.
#include <catch2/catch.hpp>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/forward_pass_metrics.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {
const std::string kPhaseHeader =
    "phase,workload_segment,counter_id,worker_id,dp_rank,ctx_tokens,ctx_requests,ctx_kv_tokens,decode_tokens,"
    "decode_requests,decode_kv_tokens,mean_decode_kv_tokens,queued_ctx_tokens,queued_ctx_requests,"
    "queued_decode_requests,queued_decode_kv_tokens,latency_ms\n";

std::string message_of(const std::string& text) {
  try {
    traces::parse_forward_pass_metrics(text, "fpm.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("forward-pass metrics, phase layout: counts, cached tokens and latency per iteration", "[traces][fpm]") {
  const auto m =
      traces::parse_forward_pass_metrics(kPhaseHeader +
                                             "context,sweep,1,7,0,4096,1,0,0,0,0,0.000,0,0,0,0,204.237\n"
                                             "mixed,sweep,2,7,1,8189,3,4094,3,3,12291,4097.000,32768,8,0,0,408.291\n"
                                             "decode,real_workload,3,7,0,0,0,0,32,32,160000,5000.000,0,0,0,0,21.0\n",
                                         "fpm.csv");
  REQUIRE(m.steps.size() == 3);
  CHECK(m.empty_steps == 0);
  const auto& mixed = m.steps[1];
  CHECK(mixed.line == 3);
  CHECK(mixed.phase == "mixed");
  CHECK(mixed.segment == "sweep");
  CHECK(mixed.dp_rank == 1);
  CHECK(mixed.prefill_tokens == 8189);
  CHECK(mixed.prefill_requests == 3);
  CHECK(mixed.prefill_kv_tokens == 4094);
  CHECK(mixed.decode_tokens == 3);
  CHECK(mixed.decode_requests == 3);
  CHECK(mixed.decode_kv_tokens == 12291);
  CHECK(mixed.latency_s == Approx(0.408291));
  CHECK(m.steps[2].segment == "real_workload");
  CHECK(m.steps[2].decode_kv_tokens == 160000);
}

TEST_CASE(
    "forward-pass metrics, detail layout in another column order: one token per decoding request, the "
    "phase from the counts, idle iterations counted",
    "[traces][fpm]") {
  const auto m = traces::parse_forward_pass_metrics(
      "latency_ms,num_decode_requests,sum_decode_kv_tokens,sum_prefill_tokens,num_prefill_requests,"
      "sum_prefill_kv_tokens\n"
      "14.25,4,16387,0,0,0\n"
      "1.5,0,0,0,0,0\n"
      "\n"
      "211.1,1,4096,4096,1,0\n",
      "fpm.csv");
  REQUIRE(m.steps.size() == 2);
  CHECK(m.empty_steps == 1);
  CHECK(m.steps[0].phase == "decode");
  CHECK(m.steps[0].decode_tokens == 4);
  CHECK(m.steps[0].segment.empty());
  CHECK(m.steps[1].phase == "mixed");
  CHECK(m.steps[1].line == 5);
  CHECK(m.steps[1].latency_s == Approx(0.2111));
}

TEST_CASE("forward-pass metrics: bad files are refused naming the line, the column and the value", "[traces][fpm]") {
  // The collector's summary file has no KV-cache columns: its steps cannot be costed.
  const std::string compact = message_of("num_context_tokens,num_decode_tokens,latency_ms\n128,0,17.1\n");
  CHECK_THAT(compact, Catch::Contains("fpm.csv:1") && Catch::Contains("ctx_tokens"));
  const std::string not_number = message_of(kPhaseHeader +
                                            "context,sweep,1,7,0,4096,1,0,0,0,0,0,0,0,0,0,204\n"
                                            "context,sweep,1,7,0,40x6,1,0,0,0,0,0,0,0,0,0,204\n");
  CHECK_THAT(not_number, Catch::Contains("fpm.csv:3") && Catch::Contains("prefill tokens") && Catch::Contains("40x6"));
  CHECK_THAT(message_of(kPhaseHeader + "context,sweep,1,7,0,4096,0,0,0,0,0,0,0,0,0,0,204\n"),
             Catch::Contains("fpm.csv:2") && Catch::Contains("4096 / 0"));
  CHECK_THAT(message_of(kPhaseHeader + "decode,sweep,1,7,0,0,0,0,1,2,8192,0,0,0,0,0,14\n"),
             Catch::Contains("decode tokens / requests") && Catch::Contains("1 / 2"));
  CHECK_THAT(message_of(kPhaseHeader + "decode,sweep,1,7,0,0,0,0,1,1,4096,0,0,0,0,0,0\n"),
             Catch::Contains("latency_ms") && Catch::Contains("= 0"));
  CHECK_THAT(message_of(kPhaseHeader + "decode,sweep,1,7,0,0,0,0,1,1,4096\n"), Catch::Contains("fewer fields"));
  CHECK_THAT(message_of(kPhaseHeader), Catch::Contains("no engine iteration"));
  CHECK_THAT(message_of(""), Catch::Contains("no header"));
}
