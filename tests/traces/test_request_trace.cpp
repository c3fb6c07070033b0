// Request-trace readers on hand-made files with bad rows (counts, line numbers, strict mode), replay
// transformations, the workload fit, and the real Azure and Mooncake traces of ../shared/traces against the
// figures measured on them (shared/traces/README.md).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/request_trace.hpp"
#include "fleetcast/traces/workload_fit.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using traces::TraceFormat;

namespace {

const std::string kFixtures = FLEETCAST_TEST_FIXTURES;
const std::string kShared = FLEETCAST_SHARED_DIR;

traces::RequestTrace read(const std::string& file, TraceFormat f, bool strict = false) {
  traces::TraceReadOptions o;
  o.format = f;
  o.strict = strict;
  return traces::read_request_trace(kFixtures + "/" + file, o);
}

}  // namespace

TEST_CASE("Azure CSV: bad rows are skipped and counted with their lines, never read as zeros", "[request_trace]") {
  const auto t = read("azure_bad_rows.csv", TraceFormat::azure);
  CHECK(t.rows == 7);  // the blank line is not a row
  CHECK(t.skipped == 4);
  REQUIRE(t.requests.size() == 3);
  REQUIRE(t.first_bad_rows.size() == 4);
  CHECK(t.first_bad_rows[0].line == 4);  // ContextTokens "abc"
  CHECK(t.first_bad_rows[1].line == 5);  // GeneratedTokens 0
  CHECK(t.first_bad_rows[2].line == 7);  // two fields
  CHECK(t.first_bad_rows[3].line == 9);  // "not a time"
  CHECK(t.first_bad_rows[1].reason.find("GeneratedTokens") != std::string::npos);
  // Wall-clock text to seconds from the first request: 18:15:50.9951690 - 18:15:46.6805900.
  CHECK(t.requests[1].arrival_s == Approx(4.314579).epsilon(1e-9));
  CHECK(t.requests[2].arrival_s == Approx(7.0).epsilon(1e-9));
  CHECK(t.requests[2].input_tokens == 1000);
  CHECK(t.requests[2].output_tokens == 10);
  CHECK_THROWS_AS(read("azure_bad_rows.csv", TraceFormat::azure, true), InputError);
  CHECK_THROWS_WITH(read("azure_bad_rows.csv", TraceFormat::azure, true), Catch::Contains("line 4"));
}

TEST_CASE("Mooncake JSONL: hash ids, milliseconds, and rows that break the format", "[request_trace]") {
  const auto t = read("mooncake_bad_rows.jsonl", TraceFormat::mooncake);
  CHECK(t.rows == 7);
  CHECK(t.skipped == 4);  // 3 ids for 600 tokens, a string length, broken JSON, a missing input_length
  REQUIRE(t.requests.size() == 3);
  CHECK(t.prefix_block_tokens == 512);
  CHECK(t.requests[1].arrival_s == 0.5);
  CHECK(t.requests[2].arrival_s == 2.5);
  CHECK(t.requests[2].prefix_blocks == std::vector<std::uint64_t>{0, 1, 5});
  // Blocks seen before: request 2's block 0, request 3's blocks 0 and 1: 3 of 7 blocks, 3 x 512 of 3,236 tokens.
  const auto fit = traces::fit_workload(t);
  CHECK(fit.prefix_block_reuse == Approx(3.0 / 7.0));
  CHECK(fit.prefix_token_reuse == Approx(1536.0 / 3236.0));
}

TEST_CASE("BurstGPT: failed requests (0 response tokens) are skipped as failures", "[request_trace]") {
  const auto t = read("burstgpt_sample.csv", TraceFormat::burstgpt);
  CHECK(t.skipped == 1);
  REQUIRE(t.requests.size() == 2);
  CHECK(t.requests[1].arrival_s == 113.0);
  CHECK(t.first_bad_rows.at(0).reason.find("failed") != std::string::npos);
  CHECK(traces::detect_trace_format(kFixtures + "/burstgpt_sample.csv") == TraceFormat::burstgpt);
  CHECK(traces::detect_trace_format(kFixtures + "/mooncake_bad_rows.jsonl") == TraceFormat::mooncake);
  CHECK_THROWS_WITH(traces::detect_trace_format(kFixtures + "/generic.csv"), Catch::Contains("--columns"));
}

TEST_CASE("a generic CSV reads through its column mapping and unit; a missing column is named", "[request_trace]") {
  traces::TraceReadOptions o;
  o.format = TraceFormat::csv;
  o.columns = {"arrival, ms", "prompt", "completion", "", 1e-3};
  const auto t = traces::read_request_trace(kFixtures + "/generic.csv", o);
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[1].arrival_s == Approx(0.25));
  CHECK(t.requests[2].input_tokens == 300);
  o.columns.output = "tokens_out";
  CHECK_THROWS_WITH(traces::read_request_trace(kFixtures + "/generic.csv", o), Catch::Contains("tokens_out"));
}

TEST_CASE("replay: a window cuts and shifts, a rate scale divides gaps, loops repeat", "[request_trace]") {
  traces::RequestTrace t;
  for (int i = 0; i < 5; ++i) t.requests.push_back({2.0 * i, 100 + i, 10, {}});  // 0, 2, 4, 6, 8 s
  const auto cut = traces::replay(t, {3.0, 7.0, 1.0, 1});
  REQUIRE(cut.requests.size() == 2);  // 4 and 6 s
  CHECK(cut.requests[0].arrival_s == 1.0);
  CHECK(cut.requests[0].input_tokens == 102);
  const auto fast = traces::replay(t, {0.0, 0.0, 2.0, 1});
  CHECK(fast.duration_s() == 4.0);
  const auto looped = traces::replay(t, {0.0, 0.0, 1.0, 3});
  REQUIRE(looped.requests.size() == 15);
  CHECK(looped.requests[5].arrival_s == 10.0);  // one mean gap (2 s) after the first copy's last arrival
  CHECK(looped.duration_s() == 28.0);
  CHECK_THROWS_AS(traces::replay(t, {9.0, 10.0, 1.0, 1}), InputError);
}

TEST_CASE("the lognormal fit recovers the distribution it was drawn from", "[request_trace]") {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> draw(std::log(700.0), 0.9);
  traces::RequestTrace t;
  std::exponential_distribution<double> gap(4.0);
  double now = 0.0;
  for (int i = 0; i < 200000; ++i) {
    now += gap(rng);
    t.requests.push_back({now, std::max(1, static_cast<int>(std::lround(draw(rng)))), 50, {}});
  }
  const auto fit = traces::fit_workload(t);
  CHECK(fit.input.lognormal.median == Approx(700.0).epsilon(0.01));
  CHECK(fit.input.lognormal.sigma == Approx(0.9).epsilon(0.01));
  CHECK(fit.rate_per_s == Approx(4.0).epsilon(0.01));
  CHECK(fit.interarrival_cv == Approx(1.0).epsilon(0.01));  // exponential gaps
  CHECK(fit.workload("w", false).classes.front().arrival.kind == specs::ArrivalKind::poisson);
  // The empirical distribution keeps both ends and its quantiles in order.
  const auto& q = fit.input.empirical.values;
  CHECK(q.size() == 1000);
  CHECK(q.front() == fit.input.min);
  CHECK(q.back() == fit.input.max);
  CHECK(std::is_sorted(q.begin(), q.end()));
}

TEST_CASE("the shared Azure and Mooncake traces give the figures measured on them", "[request_trace][shared]") {
  if (!std::filesystem::exists(kShared + "/traces")) {
    WARN("skipped: " << kShared << "/traces is absent (the shared request traces are not on this machine)");
    return;
  }
  auto fit = [](const std::string& name) {
    const std::string path = kShared + "/traces/" + name;
    traces::TraceReadOptions o;
    o.format = traces::detect_trace_format(path);
    const auto t = traces::read_request_trace(path, o);
    CHECK(t.skipped == 0);
    return traces::fit_workload(t);
  };
  // shared/traces/README.md: rows, mean input / output, rate, inter-arrival CV, reusable prefix blocks.
  const auto conv = fit("AzureLLMInferenceTrace_conv_2023.csv");
  CHECK(conv.requests == 19366);
  CHECK(std::lround(conv.input.mean) == 1155);
  CHECK(std::lround(conv.output.mean) == 211);
  CHECK(conv.rate_per_s == Approx(5.53).margin(0.005));
  CHECK(conv.interarrival_cv == Approx(1.1).margin(0.05));
  const auto code = fit("AzureLLMInferenceTrace_code_2023.csv");
  CHECK(code.requests == 8819);
  CHECK(std::lround(code.input.mean) == 2048);
  CHECK(std::lround(code.output.mean) == 28);
  CHECK(code.rate_per_s == Approx(2.57).margin(0.005));
  CHECK(code.interarrival_cv == Approx(13.0).margin(0.5));
  CHECK(code.workload("code", false).classes.front().arrival.kind == specs::ArrivalKind::gamma);
  const auto mc = fit("mooncake_conversation_trace.jsonl");
  CHECK(mc.requests == 12031);
  CHECK(std::lround(mc.input.mean) == 12035);
  CHECK(std::lround(mc.output.mean) == 343);
  CHECK(mc.rate_per_s == Approx(3.4).margin(0.05));
  CHECK(mc.prefix_block_reuse == Approx(0.366).margin(0.0005));
  const auto syn = fit("mooncake_synthetic_trace.jsonl");
  CHECK(syn.requests == 3993);
  CHECK(std::lround(syn.input.mean) == 15325);
  CHECK(syn.prefix_block_reuse == Approx(0.64).margin(0.005));
}

TEST_CASE("a two-day wall-clock trace fits a diurnal rate profile by hour of day, its swings out of the CV",
          "[request_trace][rate_profile]") {
  // Azure-format CSV from 2023-11-16 18:00:00 for 48 h: Poisson arrivals whose rate follows hour of day h as
  // 0.5 x (1 + 0.8 sin(2 pi h / 24)) requests/s.
  const auto shape = [](int h) { return 1.0 + 0.8 * std::sin(2.0 * M_PI * h / 24.0); };
  const auto path = std::filesystem::temp_directory_path() / "fleetcast-diurnal-test.csv";
  {
    std::ofstream out(path);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    std::mt19937_64 rng(5);
    std::exponential_distribution<double> unit(1.0);
    double t = 0.0;
    while (t < 48 * 3600.0) {
      const double clock = 18 * 3600.0 + t;
      const int day = 16 + static_cast<int>(clock / 86400.0);
      const double in_day = std::fmod(clock, 86400.0);
      char line[96];
      std::snprintf(line, sizeof line, "2023-11-%02d %02d:%02d:%010.7f,100,10\n", day, static_cast<int>(in_day / 3600),
                    static_cast<int>(std::fmod(in_day, 3600.0) / 60), std::fmod(in_day, 60.0));
      out << line;
      // Thinning-free: the next gap at the current hour's rate (hours are long against the gaps).
      t += unit(rng) / (0.5 * shape(static_cast<int>(in_day / 3600.0)));
    }
  }
  traces::TraceReadOptions o;
  o.format = TraceFormat::azure;
  const auto trace = traces::read_request_trace(path.string(), o);
  std::filesystem::remove(path);
  CHECK(trace.start_time_of_day_s == 18 * 3600.0);
  const auto fit = traces::fit_workload(trace);
  const auto& p = fit.rate_profile;
  REQUIRE(p.period_s == 86400.0);
  REQUIRE(p.multipliers.size() == 24);
  CHECK(p.start_s == 18 * 3600.0);
  // Mean 1 over the day; each hour of day within 8% of the shape (~1,800 arrivals an hour, two days each).
  for (int h = 0; h < 24; ++h) {
    INFO("hour of day " << h);
    CHECK(p.multipliers[static_cast<std::size_t>(h)] == Approx(shape(h)).epsilon(0.08));
  }
  CHECK(fit.rate_per_s == Approx(0.5).epsilon(0.02));
  // The daily swing makes the raw gaps look bursty; with it taken out they are Poisson again.
  CHECK(fit.interarrival_cv_raw > 1.1);
  CHECK(fit.interarrival_cv == Approx(1.0).epsilon(0.03));
  const auto w = fit.workload("day", false);
  CHECK(w.classes.front().arrival.kind == specs::ArrivalKind::poisson);
  CHECK(w.classes.front().arrival.rate_profile == p);
}
