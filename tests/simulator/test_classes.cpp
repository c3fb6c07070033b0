// Request classes through whole simulations: per-class figures that follow each class's rate and lengths,
// and goodput against SLOs crafted to be always met, never met, or met by half the requests.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/simulation.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// Short chat at 6 req/s and long documents at 1 req/s on one H100: documents take several prefill chunks.
nlohmann::json mix_scenario(const nlohmann::json& chat_slo, const nlohmann::json& document_slo) {
  auto j = test::small_scenario();
  j["num_requests"] = 4000;
  nlohmann::json chat = {{"name", "chat"},
                         {"arrival", {{"kind", "poisson"}, {"rate_per_s", 6.0}}},
                         {"input_tokens", {{"kind", "uniform"}, {"min", 100}, {"max", 300}}},
                         {"output_tokens", {{"kind", "uniform"}, {"min", 20}, {"max", 80}}}};
  nlohmann::json document = {{"name", "document"},
                             {"arrival", {{"kind", "poisson"}, {"rate_per_s", 1.0}}},
                             {"input_tokens", {{"kind", "uniform"}, {"min", 5000}, {"max", 7000}}},
                             {"output_tokens", {{"kind", "uniform"}, {"min", 100}, {"max", 200}}}};
  if (!chat_slo.is_null()) chat["slo"] = chat_slo;
  if (!document_slo.is_null()) document["slo"] = document_slo;
  j["workload"] = {{"name", "mix"}, {"classes", {chat, document}}};
  return j;
}

double num(const nlohmann::json& j) { return j.get<double>(); }

}  // namespace

TEST_CASE("a two-class mix: counts follow the rates, TTFT follows the lengths, figures add up", "[classes]") {
  const auto report = simulator::simulate_in_child(test::parse(mix_scenario(nullptr, nullptr)));
  const auto& m = report["metrics"];
  const auto& chat = m["by_class"]["chat"];
  const auto& doc = m["by_class"]["document"];
  CHECK(report["derived"]["by_class"]["chat"]["requests"] == 3429);  // 4000 x 6/7, rounded
  CHECK(report["derived"]["by_class"]["document"]["requests"] == 571);
  CHECK(num(report["derived"]["arrival_rate_per_s"]) == 7.0);

  // Measured counts and rates follow the 6:1 ratio of the classes' rates.
  CHECK(num(chat["requests_measured"]) / num(doc["requests_measured"]) == Approx(6.0).epsilon(0.08));
  CHECK(num(chat["arrival_rate_per_s"]) == Approx(6.0).epsilon(0.08));
  CHECK(num(doc["arrival_rate_per_s"]) == Approx(1.0).epsilon(0.08));
  CHECK(num(chat["requests_measured"]) + num(doc["requests_measured"]) == num(m["requests_measured"]));
  CHECK(num(chat["throughput"]["requests_per_s"]) + num(doc["throughput"]["requests_per_s"]) ==
        Approx(num(m["throughput"]["requests_per_s"])));
  CHECK(num(chat["throughput"]["output_tokens_per_s"]) + num(doc["throughput"]["output_tokens_per_s"]) ==
        Approx(num(m["throughput"]["output_tokens_per_s"])));
  CHECK(num(chat["throughput"]["input_tokens_per_s"]) + num(doc["throughput"]["input_tokens_per_s"]) ==
        Approx(num(m["throughput"]["input_tokens_per_s"])));
  // Output tokens per second follow rate x mean output: 6 x 50 for chat, 1 x 150 for documents.
  CHECK(num(chat["throughput"]["output_tokens_per_s"]) == Approx(300.0).epsilon(0.1));
  CHECK(num(doc["throughput"]["output_tokens_per_s"]) == Approx(150.0).epsilon(0.1));

  // A document's prompt is ~30x a chat's: its first token comes far later. The overall median lies between.
  CHECK(num(doc["ttft_ms"]["p50"]) > 3.0 * num(chat["ttft_ms"]["p50"]));
  CHECK(num(m["ttft_ms"]["p50"]) >= num(chat["ttft_ms"]["p50"]));
  CHECK(num(m["ttft_ms"]["p50"]) <= num(doc["ttft_ms"]["p50"]));
  CHECK(num(m["success_rate"]) == 1.0);

  // No SLO anywhere: every successful request counts.
  CHECK(num(m["slo_attainment"]) == 1.0);
  CHECK(num(m["goodput_requests_per_s"]) == num(m["throughput"]["requests_per_s"]));
  CHECK(chat["slo"]["ttft_ms"].is_null());
}

TEST_CASE("goodput: SLOs every request meets, none meets, and half meets", "[classes]") {
  // Generous for both: goodput is the request throughput, class by class and overall.
  const auto easy = simulator::simulate_in_child(
      test::parse(mix_scenario({{"ttft_ms", 1e6}, {"tpot_ms", 1e6}}, {{"ttft_ms", 1e6}})))["metrics"];
  CHECK(num(easy["slo_attainment"]) == 1.0);
  CHECK(num(easy["goodput_requests_per_s"]) == num(easy["throughput"]["requests_per_s"]));
  for (const char* c : {"chat", "document"}) {
    CHECK(num(easy["by_class"][c]["goodput_requests_per_s"]) ==
          num(easy["by_class"][c]["throughput"]["requests_per_s"]));
  }

  // Impossible for chat (no TTFT is a microsecond): chat's goodput is 0; documents, without SLO, keep theirs.
  const auto hard = simulator::simulate_in_child(test::parse(mix_scenario({{"ttft_ms", 1e-3}}, nullptr)))["metrics"];
  CHECK(num(hard["by_class"]["chat"]["goodput_requests_per_s"]) == 0.0);
  CHECK(num(hard["by_class"]["chat"]["slo_attainment"]) == 0.0);
  CHECK(num(hard["by_class"]["document"]["goodput_requests_per_s"]) ==
        num(hard["by_class"]["document"]["throughput"]["requests_per_s"]));
  CHECK(num(hard["goodput_requests_per_s"]) == num(hard["by_class"]["document"]["goodput_requests_per_s"]));
  // SLOs do not change the simulation: the same requests, the same times.
  CHECK(hard["ttft_ms"] == easy["ttft_ms"]);

  // At each class's measured median TTFT (and for documents also the median TPOT, a second, independent
  // objective): about half of the chat requests meet theirs, and about a quarter of the documents meet both.
  const double chat_p50 = num(easy["by_class"]["chat"]["ttft_ms"]["p50"]);
  const double doc_ttft_p50 = num(easy["by_class"]["document"]["ttft_ms"]["p50"]);
  const double doc_tpot_p50 = num(easy["by_class"]["document"]["tpot_ms"]["p50"]);
  const auto half = simulator::simulate_in_child(test::parse(
      mix_scenario({{"ttft_ms", chat_p50}}, {{"ttft_ms", doc_ttft_p50}, {"tpot_ms", doc_tpot_p50}})))["metrics"];
  const auto& chat = half["by_class"]["chat"];
  const auto& doc = half["by_class"]["document"];
  CHECK(num(chat["slo_attainment"]) == Approx(0.5).margin(1.0 / num(chat["requests_measured"])));
  CHECK(num(chat["goodput_requests_per_s"]) ==
        Approx(0.5 * num(chat["throughput"]["requests_per_s"])).epsilon(0.1));
  // Both objectives: no more than either alone allows, and more than none.
  CHECK(num(doc["slo_attainment"]) <= 0.5 + 1.0 / num(doc["requests_measured"]));
  CHECK(num(doc["slo_attainment"]) > 0.1);
  // Overall: every measured request against its own class's SLOs.
  const double overall = (num(chat["slo_attainment"]) * num(chat["requests_measured"]) +
                          num(doc["slo_attainment"]) * num(doc["requests_measured"])) /
                         num(half["requests_measured"]);
  CHECK(num(half["slo_attainment"]) == Approx(overall));
}

TEST_CASE("open and closed classes mix; the same seed gives the same bytes", "[classes]") {
  auto j = mix_scenario(nullptr, {{"ttft_ms", 2000}});
  j["num_requests"] = 1500;
  j["workload"]["classes"][1]["arrival"] = {{"kind", "closed_loop"}, {"clients", 2}, {"think_time_s", 0.5}};
  const auto s = test::parse(j);
  const auto report = simulator::simulate_in_child(s);
  const auto& m = report["metrics"];
  CHECK(num(m["success_rate"]) == 1.0);
  CHECK(num(m["by_class"]["document"]["requests_measured"]) > 50);
  CHECK(num(m["by_class"]["chat"]["requests_measured"]) > 500);
  CHECK(report["derived"]["by_class"]["document"]["arrival_rate_per_s"].is_null());
  CHECK(report["benchmark_record"]["concurrency"] == 2);
  CHECK(simulator::simulate_in_child(s).dump() == report.dump());
}
