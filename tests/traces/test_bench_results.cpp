// The benchmark-client result readers (vllm bench serve --save-result, SGLang bench_serving --output-file) on
// records written in their writers' formats: traffic, lengths, the deployment from flags and metadata, bad
// records. The fixtures' figures are made up (not measurements); their keys and layout are the writers'.
#include <catch2/catch.hpp>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/bench_results.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {
const std::string kFixtures = FLEETCAST_TEST_FIXTURES;

traces::MeasuredServingResults parse(const std::string& text, const traces::BenchDeployment& given = {},
                                     bool strict = false) {
  std::istringstream in(text);
  return traces::parse_bench_results(in, "mem.json", given, strict);
}

// The smallest record each writer produces, as a prefix to which a test adds fields.
const std::string kVllmCore =
    R"({"endpoint_type": "vllm", "model_id": "Qwen/Qwen3-32B", "num_prompts": 10, "completed": 10, )"
    R"("total_input_tokens": 1000, "total_output_tokens": 500, "mean_ttft_ms": 50.0, "mean_tpot_ms": 10.0)";
// The run's reported percentile of a metric in ms, -1 when it has none.
double percentile_ms(const traces::MeasuredServingRun& run, const std::string& metric, int p) {
  for (const auto& q : run.percentiles) {
    if (q.metric == metric && q.percentile == p) return q.ms;
  }
  return -1.0;
}
}  // namespace

TEST_CASE("vllm bench serve result: concurrency at an unbounded rate is closed loop, metadata gives the layout",
          "[traces][bench]") {
  traces::BenchDeployment given;
  given.hardware = "h200";  // the record's own "hardware" key wins
  given.tp = 8;
  const auto r = traces::read_bench_results(kFixtures + "/vllm-bench-result.json", given);
  REQUIRE(r.rows == 1);
  REQUIRE(r.skipped == 0);
  REQUIRE(r.runs.size() == 1);
  const auto& run = r.runs[0];
  CHECK(run.id == "vllm-bench-result.json#1");
  CHECK(run.line == 1);
  CHECK(run.backend == "vllm");
  CHECK(run.model_path == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(run.system == "h100_sxm");
  CHECK(run.mode == "agg");
  CHECK(run.agg.tp == 1);  // "tp": "1", a string as --metadata writes it
  CHECK(run.agg.pp == 1);
  CHECK(run.agg.batch_size == 0);  // not given: the mapping takes the engine's default for the GPU, noted
  CHECK(run.notes.find("max_num_seqs not given") != std::string::npos);
  CHECK(run.isl == 1024);  // 65536 / 64
  CHECK(run.osl == 128);   // 8192 / 64
  CHECK(run.concurrency == 16);
  CHECK(run.request_rate_per_s == 0.0);
  CHECK(run.num_requests == 64);
  CHECK(run.ttft_ms == 118.4);
  CHECK(run.tpot_ms == 9.42);
  CHECK(run.input_lens.empty());
}

TEST_CASE("sglang bench_serving lines: Infinity, open loop, bad and truncated records, speculative decoding",
          "[traces][bench]") {
  traces::BenchDeployment given;
  given.hardware = "h100_sxm";
  given.model = "meta-llama/Llama-3.1-8B-Instruct";
  given.tp = 2;
  const auto r = traces::read_bench_results(kFixtures + "/sglang-bench-serving.jsonl", given);
  CHECK(r.rows == 5);  // the blank line is not a record
  CHECK(r.skipped == 2);
  REQUIRE(r.first_bad_rows.size() == 2);
  CHECK(r.first_bad_rows[0].line == 3);
  CHECK(r.first_bad_rows[0].reason.find("mean_tpot_ms") != std::string::npos);
  CHECK(r.first_bad_rows[1].line == 6);
  REQUIRE(r.runs.size() == 3);

  const auto& closed = r.runs[0];
  CHECK(closed.id == "sglang-bench-serving.jsonl#1");
  CHECK(closed.backend == "sglang");
  CHECK(closed.model_path == given.model);
  CHECK(closed.agg.tp == 2);
  CHECK(closed.request_rate_per_s == 0.0);  // Infinity
  CHECK(closed.concurrency == 8);
  CHECK(closed.num_requests == 40);  // completed: SGLang writes no num_prompts
  CHECK(closed.isl == 2048);
  CHECK(closed.osl == 256);

  const auto& open = r.runs[1];
  CHECK(open.backend == "sglang");  // client backend sglang-oai talks to an SGLang server
  CHECK(open.request_rate_per_s == 4.0);
  CHECK(open.concurrency == 0);
  CHECK(open.burstiness == 1.0);
  CHECK(open.isl == 1024);  // random_input_len; 153600 / 200 = 768 is the mean of 512..1024
  CHECK(open.osl == 128);
  CHECK(open.length_range_ratio == 0.5);

  CHECK(r.runs[2].line == 5);
  CHECK(r.runs[2].spec_accept_length == Approx(2.61));

  traces::BenchDeployment none;
  REQUIRE_THROWS_WITH(traces::read_bench_results(kFixtures + "/sglang-bench-serving.jsonl", none, true),
                      Catch::Contains("line 3, field mean_tpot_ms") && Catch::Contains("missing"));
}

TEST_CASE("bench results: rates, burstiness, detailed lengths and words inside strings", "[traces][bench]") {
  SECTION("a finite rate with burstiness is gamma-distributed open loop") {
    const auto r = parse(kVllmCore + R"(, "request_rate": 2.5, "burstiness": 4.0, "max_concurrency": null})");
    REQUIRE(r.runs.size() == 1);
    CHECK(r.runs[0].request_rate_per_s == 2.5);
    CHECK(r.runs[0].burstiness == 4.0);
    CHECK(r.runs[0].concurrency == 0);
  }
  SECTION("no cap at an unbounded rate: every request at once") {
    const auto r = parse(kVllmCore + R"(, "request_rate": "inf", "max_concurrency": null})");
    CHECK(r.runs[0].concurrency == 10);
    CHECK(r.runs[0].notes.find("all 10 requests at once") != std::string::npos);
  }
  SECTION("--save-detailed lengths are kept when they vary, failed requests (output 0) left out") {
    const auto r = parse(kVllmCore + R"(, "input_lens": [90, 110, 100, 7], "output_lens": [40, 60, 50, 0]})");
    CHECK(r.runs[0].input_lens == std::vector<int>{90, 110, 100});
    CHECK(r.runs[0].output_lens == std::vector<int>{40, 60, 50});
    const auto same = parse(kVllmCore + R"(, "input_lens": [100, 100], "output_lens": [50, 50]})");
    CHECK(same.runs[0].input_lens.empty());
  }
  SECTION("a random_range_ratio key: lengths uniform in [floor(r x L), L], L recovered from the means") {
    // InferenceX's client at r = 0.8 and L = 1024: integers 819..1024, mean 921.5; 10 requests, 9215 tokens.
    const std::string core = R"({"endpoint_type": "vllm", "model_id": "Qwen/Qwen3-32B", "num_prompts": 10, )"
                             R"("completed": 10, "total_input_tokens": 9215, "total_output_tokens": 4610, )"
                             R"("mean_ttft_ms": 50.0, "mean_tpot_ms": 10.0)";
    const auto r = parse(core + R"(, "random_range_ratio": 0.8})");
    CHECK(r.runs[0].length_range_ratio == 0.8);
    CHECK(r.runs[0].isl == 1024);
    CHECK(r.runs[0].osl == 512);  // 461 = (409 + 512) / 2
    CHECK(r.runs[0].notes.find("819-1024 in") != std::string::npos);
    const auto fixed = parse(core + R"(, "random_range_ratio": "1.0"})");  // --metadata writes strings
    CHECK(fixed.runs[0].length_range_ratio == 1.0);
    CHECK(fixed.runs[0].isl == 922);  // the mean, as without the key
    const auto sharegpt = parse(core + R"(, "random_range_ratio": 0.8, "dataset_name": "sharegpt"})");
    CHECK(sharegpt.runs[0].length_range_ratio == 1.0);  // SGLang writes the key for every dataset
    CHECK(sharegpt.runs[0].isl == 922);
    // SGLang's default ratio 0: uniform in [1, L], L = 2 x mean.
    const auto zero = parse(core + R"(, "random_range_ratio": 0.0, "random_input_len": 1843})");
    CHECK(zero.runs[0].length_range_ratio == 0.0);
    CHECK(zero.runs[0].isl == 1843);
    CHECK(zero.runs[0].osl == 922);  // 2 x 461
    CHECK(zero.runs[0].notes.find("1-1843 in") != std::string::npos);
    REQUIRE_THROWS_WITH(parse(core + R"(, "random_range_ratio": 1.5})", {}, true),
                        Catch::Contains("random_range_ratio") && Catch::Contains("1.5"));
    // Per-request lengths say more than the ratio: they win.
    const auto listed = parse(core + R"(, "random_range_ratio": 0.8, "input_lens": [900, 1000], )"
                                     R"("output_lens": [450, 500]})");
    CHECK(listed.runs[0].length_range_ratio == 1.0);
    CHECK(listed.runs[0].input_lens == std::vector<int>{900, 1000});
  }
  SECTION("Infinity and NaN inside strings stay words; NaN as a value is not a number") {
    const auto r = parse(kVllmCore + R"(, "id": "Infinity NaN run", "std_ttft_ms": NaN})");
    CHECK(r.runs[0].id == "Infinity NaN run");
    REQUIRE_THROWS_WITH(parse(kVllmCore + R"(, "max_concurrency": NaN})", {}, true),
                        Catch::Contains("max_concurrency") && Catch::Contains("nan"));
  }
  SECTION("record keys win over the caller's deployment; a JSON array holds several records") {
    traces::BenchDeployment given;
    given.tp = 4;
    given.runtime = "vllm";
    const auto r = parse("[" + kVllmCore + R"(, "tp": 2, "runtime": "sglang"}, )" + kVllmCore + "}]", given);
    REQUIRE(r.runs.size() == 2);
    CHECK(r.runs[0].agg.tp == 2);
    CHECK(r.runs[0].backend == "sglang");
    CHECK(r.runs[1].agg.tp == 4);
    CHECK(r.runs[1].backend == "vllm");
    CHECK(r.runs[1].id == "mem.json#2");
  }
  SECTION("not a benchmark result, or empty, is an error naming the file") {
    CHECK(parse(R"({"completed": 3})").skipped == 1);
    REQUIRE_THROWS_WITH(parse("\n\n"), Catch::Contains("mem.json") && Catch::Contains("no benchmark result"));
    REQUIRE_THROWS_WITH(parse(kVllmCore + R"(, "tp": 0})", {}, true), Catch::Contains("field tp"));
    REQUIRE_THROWS_WITH(parse(kVllmCore + R"(, "tp": "eight"})", {}, true), Catch::Contains("field tp"));
    // A value naming the engine's default is not given: the caller's, else the engine's own.
    traces::BenchDeployment given;
    given.max_num_seqs = 64;
    const auto d = parse(kVllmCore + R"(, "max_num_seqs": "atom_default"})", given, true);
    CHECK(d.runs[0].agg.batch_size == 64);
    CHECK(d.runs[0].notes.find("max_num_seqs atom_default: not given") != std::string::npos);
  }
}

TEST_CASE("bench results: the percentiles each writer reports beside the means", "[traces][bench]") {
  // vLLM: median_ and p99_ (its default --metric-percentiles) of TTFT, TPOT and end-to-end latency (e2el).
  const auto v = traces::read_bench_results(kFixtures + "/vllm-bench-result.json", {});
  REQUIRE(v.runs.size() == 1);
  const auto find = percentile_ms;
  CHECK(find(v.runs[0], "ttft", 50) == Approx(96.2));
  CHECK(find(v.runs[0], "ttft", 99) == Approx(301.5));
  CHECK(find(v.runs[0], "tpot", 99) == Approx(10.6));
  CHECK(find(v.runs[0], "e2e", 50) == Approx(1301.2));
  CHECK(find(v.runs[0], "ttft", 90) == -1.0);  // not written: not reported
  CHECK(v.runs[0].percentiles.size() == 6);
  // SGLang: its end-to-end latency is e2e_latency; every --metric-percentiles key of vLLM's is read too.
  const auto s = traces::read_bench_results(kFixtures + "/sglang-bench-serving.jsonl", {});
  CHECK(find(s.runs[0], "e2e", 99) == Approx(7060.3));
  CHECK(find(s.runs[0], "ttft", 50) == Approx(190.4));
  const auto p95 = parse(kVllmCore + R"(, "p95_ttft_ms": 80.5, "p90_tpot_ms": 12.0})");
  CHECK(find(p95.runs[0], "ttft", 95) == Approx(80.5));
  CHECK(find(p95.runs[0], "tpot", 90) == Approx(12.0));
  // A percentile that is not a positive number is a bad record, named.
  const auto bad = parse(kVllmCore + R"(, "p99_ttft_ms": -3})");
  CHECK(bad.skipped == 1);
  REQUIRE(bad.first_bad_rows.size() == 1);
  CHECK(bad.first_bad_rows[0].reason.find("p99_ttft_ms -3: must be > 0") != std::string::npos);
  // A CSV row has none; a mean alone is what the validator compares there.
  CHECK(parse(kVllmCore + "}").runs[0].percentiles.empty());
}

TEST_CASE("AIPerf and genai-perf exports: metric blocks, the run's configuration, warm-up left out of the means",
          "[traces][bench]") {
  traces::BenchDeployment given;
  given.hardware = "h100";
  given.runtime = "vllm";
  given.tp = 1;
  SECTION("AIPerf: request_count, loadgen's concurrency and warm-up, TPOT from inter_token_latency") {
    const auto r = traces::read_bench_results(kFixtures + "/aiperf-profile-export.json", given);
    REQUIRE(r.runs.size() == 1);
    const auto& run = r.runs[0];
    CHECK(run.model_path == "meta-llama/Llama-3.1-8B-Instruct");
    CHECK(run.concurrency == 8);
    CHECK(run.request_rate_per_s == 0.0);
    CHECK(run.num_requests == 216);  // 200 measured after 16 warm-up requests
    CHECK(run.warmup_requests == 16);
    CHECK(run.isl == 1024);
    CHECK(run.osl == 128);
    CHECK(run.ttft_ms == Approx(180.2));
    CHECK(run.tpot_ms == Approx(19.1));
    CHECK(run.percentiles.size() == 12);  // p50, p90, p95, p99 of TTFT, TPOT and end-to-end
    CHECK(run.notes.find("aiperf export") != std::string::npos);
    CHECK(run.notes.find("2 failed requests") != std::string::npos);
  }
  SECTION("genai-perf: the request count from perf_analyzer's measurement, its stimulus' concurrency") {
    const auto r = traces::read_bench_results(kFixtures + "/genai-perf-profile-export.json", given);
    REQUIRE(r.runs.size() == 1);
    const auto& run = r.runs[0];
    CHECK(run.model_path == "Qwen/Qwen3-32B");
    CHECK(run.concurrency == 16);
    CHECK(run.num_requests == 192);
    CHECK(run.warmup_requests == 32);
    CHECK(run.isl == 2048);
    CHECK(run.notes.find("genai-perf export") != std::string::npos);
  }
  SECTION("genai-perf's argparse-era flat input_config, microseconds, a rate") {
    const auto r =
        parse(R"({"time_to_first_token": {"unit": "us", "avg": 95000.0, "p99": 200000.0}, )"
              R"("inter_token_latency": {"unit": "us", "avg": 12000.0}, "request_latency": {"unit": "us", "avg": 1e6},)"
              R"("input_config": {"model": ["m"], "request_rate": 4.0, "synthetic_input_tokens_mean": 512,)"
              R"("synthetic_input_tokens_stddev": 50, "output_tokens_mean": 64, "num_prompts": 100}})",
              given);
    REQUIRE(r.runs.size() == 1);
    CHECK(r.runs[0].ttft_ms == Approx(95.0));
    CHECK(r.runs[0].tpot_ms == Approx(12.0));
    CHECK(r.runs[0].request_rate_per_s == Approx(4.0));
    CHECK(r.runs[0].num_requests == 100);
    CHECK(r.runs[0].isl == 512);
    CHECK(r.runs[0].notes.find("simulated at the means") != std::string::npos);
  }
  SECTION("AIPerf's first releases: metrics under records, TTFT tagged ttft") {
    const auto r = parse(R"({"records": {"ttft": {"unit": "ms", "avg": 50.0}, )"
                         R"("inter_token_latency": {"unit": "ms", "avg": 9.0}, "request_count": {"avg": 40},)"
                         R"("input_sequence_length": {"avg": 300}, "output_sequence_length": {"avg": 30}},)"
                         R"("input_config": {"loadgen": {"concurrency": 4}}})",
                         given);
    REQUIRE(r.runs.size() == 1);
    CHECK(r.runs[0].ttft_ms == Approx(50.0));
    CHECK(r.runs[0].concurrency == 4);
    CHECK(r.runs[0].num_requests == 40);
  }
  SECTION("what cannot be read is a bad record that says why") {
    const std::string ttft = R"({"time_to_first_token": {"unit": "ms", "avg": 50.0}, )";
    const std::string rest = R"("inter_token_latency": {"unit": "ms", "avg": 9.0}, "request_count": {"avg": 40},)"
                             R"("input_sequence_length": {"avg": 300}, "output_sequence_length": {"avg": 30},)";
    const auto sweep = parse(ttft + rest + R"("input_config": {"loadgen": {"concurrency": [1, 2]}}})", given);
    REQUIRE(sweep.first_bad_rows.size() == 1);
    CHECK(sweep.first_bad_rows[0].reason.find("one concurrency per file") != std::string::npos);
    const auto minutes =
        parse(R"({"time_to_first_token": {"unit": "min", "avg": 1.0}, )" + rest + R"("input_config": {}})", given);
    REQUIRE(minutes.first_bad_rows.size() == 1);
    CHECK(minutes.first_bad_rows[0].reason.find("a time unit") != std::string::npos);
    const auto no_count =
        parse(ttft + R"("inter_token_latency": {"unit": "ms", "avg": 9.0}, "input_config": {}})", given);
    REQUIRE(no_count.first_bad_rows.size() == 1);
    CHECK(no_count.first_bad_rows[0].reason.find("how many requests") != std::string::npos);
    traces::BenchDeployment no_runtime = given;
    no_runtime.runtime.clear();
    const auto engine = parse(ttft + rest + R"("input_config": {}})", no_runtime);
    REQUIRE(engine.first_bad_rows.size() == 1);
    CHECK(engine.first_bad_rows[0].reason.find("give --runtime") != std::string::npos);
  }
}

TEST_CASE("bench results: a record's own launch (server_cmd or server_args, config_yaml or server_config)",
          "[traces][bench]") {
  // A harness that keeps the serve command and the options file beside each result: each record is mapped as it
  // was launched, whatever the command line says for the others.
  const std::string launch =
      R"(, "server_cmd": "mpirun -n 1 trtllm-serve /models/DeepSeek-R1-0528-NVFP4-v2 --tp_size=8 --ep_size=8",)"
      R"( "config_yaml": "enable_attention_dp: true\nbatch_wait_timeout_iters: 40\nmax_batch_size: 64\n"})";
  traces::BenchDeployment given;
  given.hardware = "b200";
  const auto r = parse(kVllmCore + R"(, "max_concurrency": 64, "request_rate": "inf")" + launch, given);
  REQUIRE(r.runs.size() == 1);
  const auto& run = r.runs[0];
  CHECK(run.backend == "trtllm");  // the launch's engine, not the client's
  CHECK(run.agg.tp == 1);
  CHECK(run.agg.attention_dp == 8);
  CHECK(run.agg.moe_ep == 8);
  CHECK(run.agg.batch_size == 64);
  CHECK(run.server_batch_wait_iters == 40);
  CHECK(run.server_whole_prompts);
  CHECK(run.model_path == "Qwen/Qwen3-32B");  // the record's model_id still wins
  // A launch that cannot be read is this record's problem: skipped and counted, the others read.
  const auto bad = parse(kVllmCore + R"(, "config_yaml": "max_batch_size: [1, 2\n"})" + "\n" + kVllmCore + "}", given);
  CHECK(bad.rows == 2);
  CHECK(bad.skipped == 1);
  CHECK(bad.runs.size() == 1);
}

TEST_CASE("bench results: percentiles the summary leaves out, from the per-request details", "[traces][bench]") {
  // vLLM --save-detailed: five requests (one failed), TTFTs and inter-token gaps in seconds. The summary gives the
  // median and p99 of TTFT, which stay; the rest is computed as np.percentile (linear) does.
  const auto r =
      parse(kVllmCore + R"(, "median_ttft_ms": 55.0, "p99_ttft_ms": 99.0,)"
                        R"( "ttfts": [0.010, 0.020, 0.0, 0.040, 0.030], "output_lens": [3, 2, 0, 5, 4],)"
                        R"( "input_lens": [100, 100, 100, 100, 100],)"
                        R"( "itls": [[0.01, 0.03], [0.02], [], [0.01, 0.01, 0.01, 0.01], [0.02, 0.02, 0.02]]})");
  REQUIRE(r.runs.size() == 1);
  const auto find = [&](const std::string& metric, int p) { return percentile_ms(r.runs[0], metric, p); };
  CHECK(find("ttft", 50) == Approx(55.0));  // the summary's own
  CHECK(find("ttft", 99) == Approx(99.0));
  // TTFT of the four that succeeded, sorted: 10, 20, 30, 40 ms; p90 at index 2.7: 30 + 0.7 x 10.
  CHECK(find("ttft", 90) == Approx(37.0));
  CHECK(find("ttft", 95) == Approx(38.5));
  // TPOT per request: 40/2 = 20, 20/1 = 20, 40/4 = 10, 60/3 = 20 ms; sorted 10, 20, 20, 20: the median 20.
  CHECK(find("tpot", 50) == Approx(20.0));
  // End to end: 50, 40, 80, 90 ms; sorted 40, 50, 80, 90: the median 65, p99 at index 2.97: 80 + 0.97 x 10.
  CHECK(find("e2e", 50) == Approx(65.0));
  CHECK(find("e2e", 99) == Approx(89.7));
}

TEST_CASE("vllm bench serve's spec_decode keys: drafts per step, accepted length and per-position shares",
          "[traces][bench]") {
  // The deltas of the server's counters as vllm/benchmarks/serve.py writes them: 1,000 steps of 3 drafts each that
  // accepted 900, 540 and 162 of positions 1, 2 and 3: 1 + 1,602 / 1,000 = 2.602 tokens per step.
  const std::string spec = R"(, "max_concurrency": 4, "spec_decode_acceptance_rate": 53.4, )"
                           R"("spec_decode_acceptance_length": 2.602, "spec_decode_num_drafts": 1000, )"
                           R"("spec_decode_draft_tokens": 3000, "spec_decode_accepted_tokens": 1602, )";
  const auto r = parse(kVllmCore + spec + R"("spec_decode_per_position_acceptance_rates": [0.9, 0.54, 0.162]})");
  REQUIRE(r.runs.size() == 1);
  const auto& run = r.runs[0];
  CHECK(run.spec_accept_length == Approx(2.602));
  CHECK(run.spec_draft_tokens == 3);
  REQUIRE(run.spec_position_acceptance.size() == 3);
  CHECK(run.spec_position_acceptance[2] == Approx(0.162));
  CHECK(run.spec_method.empty());  // the file does not say how the drafts were made

  // A later position accepted more often than an earlier one cannot happen: a bad record, named.
  const auto rising = parse(kVllmCore + spec + R"("spec_decode_per_position_acceptance_rates": [0.5, 0.7, 0.2]})");
  REQUIRE(rising.first_bad_rows.size() == 1);
  CHECK(rising.first_bad_rows[0].reason.find("spec_decode_per_position_acceptance_rates") != std::string::npos);
  const auto short_length = parse(kVllmCore + R"(, "max_concurrency": 4, "accept_length": 0.6})");
  REQUIRE(short_length.first_bad_rows.size() == 1);
  CHECK(short_length.first_bad_rows[0].reason.find("accept_length") != std::string::npos);

  // A client that records no acceptance (TensorRT-LLM's) takes --acceptance-length; a file's own figure wins.
  traces::BenchDeployment given;
  given.accept_length = 3.4;
  CHECK(parse(kVllmCore + R"(, "max_concurrency": 4})", given).runs.at(0).spec_accept_length == Approx(3.4));
  CHECK(parse(kVllmCore + spec + "\"x\": 0}", given).runs.at(0).spec_accept_length == Approx(2.602));
}
