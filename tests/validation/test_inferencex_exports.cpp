// A run InferenceX exported twice, once with its expert-parallel layout and clients as run and once multiplied by ep
// with the clients divided by the attention DP it wrote: read back and mapped, both are the same deployment.
#include <catch2/catch.hpp>
#include <sstream>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

using namespace fleetcast;

TEST_CASE("mapping: one run in InferenceX's two exports is one 4-GPU worker either way", "[validation]") {
  // silicon-dev.csv, MiniMax-M2.5 FP8 on H100 under vLLM 0.18.0, 1,024 x 8,192 tokens, 4 clients, measured once
  // (TTFT 91.0 / 91.6 ms, TPOT 10.24 / 10.25 ms): the 2026-03-25 export writes tp 4, moe_ep 4, batch 4; the
  // 2026-04-06 export writes tp 4, attention_dp 4, moe_ep 16 and batch 1 (the 4 clients over the 4 it wrote).
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,precision,mode,isl,osl,batch_size,tp_size,pp_size,"
      "attention_dp_size,moe_tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms";
  std::istringstream in(header + "\n" +
                        "a_c4_tp4_0_ep4_0_215,source_file=2026-03-25.csv; silicon_concurrency=4; wip=False,vllm,"
                        "MiniMaxAI/MiniMax-M2.5,h100_sxm,fp8,agg,1024,8192,4,4,1,1,1,4,90.96,10.24\n" +
                        "b_c4_tp4_ep4_1338,source_file=2026-04-06.csv; silicon_concurrency=4; wip=False,vllm,"
                        "MiniMaxAI/MiniMax-M2.5,h100_sxm,fp8,agg,1024,8192,1,4,1,4,1,16,91.59,10.25\n");
  const auto runs = traces::parse_silicon_csv(in, "f.csv").runs;
  REQUIRE(runs.size() == 2);
  for (const auto& run : runs) {
    INFO(run.id);
    const auto m = validation::map_serving_run(run);
    REQUIRE(std::holds_alternative<validation::MappedRun>(m));
    const auto s = specs::parse_scenario(std::get<validation::MappedRun>(m).scenario, run.id);
    CHECK(s.deployment.replica == specs::ReplicaLayout{4, 1, 4, 1});  // tp 4, ep 4
    CHECK(s.deployment.num_replicas() == 1);
    CHECK(s.deployment.total_gpus() == 4);
    CHECK(s.deployment.scheduler.max_num_seqs == 4);
    CHECK(s.workload.classes.at(0).arrival.clients == 4);
  }
}
