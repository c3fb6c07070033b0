// The marginal prompt's measured-over-predicted ratio by (GPU, runtime, kind of model): which splits it reads and
// the median it takes.
#include <catch2/catch.hpp>

#include "fleetcast/validation/marginal_prompt_ratio.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

validation::TtftDecomposition split(const std::string& group, int clients, int longest, double measured_k,
                                    double predicted_k) {
  validation::TtftDecomposition d;
  d.group = group;
  d.concurrency = clients;
  d.isls = {1024, longest};
  d.measured_prompts = measured_k;
  d.predicted_prompts = predicted_k;
  return d;
}

}  // namespace

TEST_CASE("the marginal prompt ratio is the median of k measured over k predicted per GPU, runtime and kind",
          "[decomposition]") {
  const std::vector<validation::TtftDecomposition> splits = {
      split("gpt-oss-120b | h200 | vllm | agg", 4, 8192, 3.0, 1.0),
      split("gpt-oss-120b | h200 | vllm | agg", 8, 8192, 6.0, 1.5),
      split("minimax-m2.5 | h200 | vllm | agg", 4, 8192, 2.4, 1.2),  // a second MoE model: the same entry
      split("llama-3.1-70b | h200 | vllm | agg", 4, 8192, 1.3, 1.0),
      split("gpt-oss-120b | h200 | vllm | agg", 64, 8192, 30.0, 3.0),      // many clients: left out
      split("gpt-oss-120b | h200 | vllm | agg", 4, 1024 + 512, 0.1, 1.0),  // short prompts only: left out
      split("gpt-oss-120b | h200 | vllm | agg", 4, 8192, -0.5, 1.0),       // no growth to read: left out
      split("gpt-oss-120b | gb200 | trtllm | disagg", 4, 8192, 3.0, 1.0),  // not aggregated: left out
      split("my-own-model | h200 | vllm | agg", 4, 8192, 3.0, 1.0),        // not a preset: its kind is unknown
      split("gpt-oss-120b | b200 | trtllm | agg", 4, 4096, 2.5, 1.0)};
  const auto ratios = validation::marginal_prompt_ratios(splits, 8, 4096);
  REQUIRE(ratios.size() == 3);
  CHECK(ratios[0].hardware == "b200");
  CHECK(ratios[0].runtime == "trtllm");
  CHECK(ratios[0].median == Approx(2.5));
  CHECK(ratios[1].model_kind == "dense");
  CHECK(ratios[1].median == Approx(1.3));
  CHECK(ratios[2].hardware == "h200");
  CHECK(ratios[2].model_kind == "moe");
  CHECK(ratios[2].ratios == std::vector<double>{2.0, 3.0, 4.0});
  CHECK(ratios[2].median == Approx(3.0));
  // A higher cap on the clients takes the 64-client split in: 2, 3, 4, 10.
  CHECK(validation::marginal_prompt_ratios(splits, 64, 4096)[2].median == Approx(3.5));
  // Without gpt-oss-120b's splits (a fold that never saw it): H200's MoE entry is MiniMax-M2.5's alone, B200's is gone.
  const auto without = validation::marginal_prompt_ratios(splits, 8, 4096, "gpt-oss-120b");
  REQUIRE(without.size() == 2);
  CHECK(without[0].hardware == "h200");
  CHECK(without[0].model_kind == "dense");
  CHECK(without[1].model_kind == "moe");
  CHECK(without[1].ratios == std::vector<double>{2.0});
}
