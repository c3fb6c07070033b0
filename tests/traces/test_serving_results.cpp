// The silicon CSV reader on a hand-made file (every column kind, bad rows, strict mode) and on the real
// development set of ../shared/validation when it is present.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/serving_results.hpp"
#include "silicon_rows.hpp"

using namespace fleetcast;
using test::parse_rows;

namespace {
const std::string kValidationFixtures = FLEETCAST_TEST_FIXTURES "/../../validation/fixtures";
const std::string kShared = FLEETCAST_SHARED_DIR;

}  // namespace

TEST_CASE("silicon CSV: layouts, concurrency and measured means are read as written", "[traces][silicon]") {
  const auto r = traces::read_silicon_csv(kValidationFixtures + "/silicon-small.csv");
  REQUIRE(r.rows == 6);
  REQUIRE(r.runs.size() == 5);
  const auto& a = r.runs[0];
  CHECK(a.line == 2);
  CHECK(a.id == "llama8b_h100_trtllm_agg_512x64_c4");
  CHECK(a.backend == "trtllm");
  CHECK(a.model_path == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(a.system == "h100_sxm");
  CHECK(a.precision.empty());
  CHECK(a.mode == "agg");
  CHECK(a.isl == 512);
  CHECK(a.osl == 64);
  CHECK(a.concurrency == 4);
  CHECK(a.agg == traces::MeasuredLayout{4, 0, 1, 1, 1, 1, 1});
  CHECK(a.ttft_ms == 40.0);
  CHECK(a.tpot_ms == 6.0);
  const auto& q = r.runs[1];
  CHECK(q.agg == traces::MeasuredLayout{4, 0, 4, 1, 2, 1, 8});
  CHECK(q.gemm_quant_mode == "fp8_block");
  const auto& d = r.runs[4];
  CHECK(d.mode == "disagg");
  CHECK(d.concurrency == 0);  // no silicon_concurrency in its source text
  CHECK(d.agg == traces::MeasuredLayout{});
  CHECK(d.prefill == traces::MeasuredLayout{1, 2, 1, 1, 1, 1, 1});
  CHECK(d.decode == traces::MeasuredLayout{16, 1, 4, 1, 1, 1, 4});
  // The row without a measured TTFT is skipped and counted with its line.
  REQUIRE(r.skipped == 1);
  REQUIRE(r.first_bad_rows.size() == 1);
  CHECK(r.first_bad_rows[0].line == 6);
  CHECK(r.first_bad_rows[0].reason.find("silicon_ttft_ms") != std::string::npos);
}

TEST_CASE("silicon CSV: strict reading fails on the first bad row, naming line, column and value",
          "[traces][silicon]") {
  try {
    traces::read_silicon_csv(kValidationFixtures + "/silicon-small.csv", true);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.field() == "silicon_ttft_ms");
    CHECK(e.problem().find("line 6") != std::string::npos);
  }
}

TEST_CASE("silicon CSV: a missing required column or a short row is named", "[traces][silicon]") {
  std::istringstream no_tpot(
      "id,backend,model_path,system,mode,isl,osl,silicon_ttft_ms\nx,vllm,m,h100_sxm,agg,1,1,1\n");
  CHECK_THROWS_WITH(traces::parse_silicon_csv(no_tpot, "f.csv"), Catch::Contains("silicon_tpot_ms"));
  std::istringstream short_row(
      "id,backend,model_path,system,mode,isl,osl,silicon_ttft_ms,silicon_tpot_ms\nx,vllm,m,h100_sxm,agg,1,1,1\n");
  const auto r = traces::parse_silicon_csv(short_row, "f.csv");
  CHECK(r.runs.empty());
  CHECK(r.skipped == 1);
  CHECK(r.first_bad_rows.at(0).reason.find("8 fields") != std::string::npos);
  std::istringstream bad_layout(
      "id,backend,model_path,system,mode,isl,osl,tp_size,silicon_ttft_ms,silicon_tpot_ms\n"
      "x,vllm,m,h100_sxm,agg,1,1,two,1,1\n");
  CHECK_THROWS_WITH(traces::parse_silicon_csv(bad_layout, "f.csv", true), Catch::Contains("tp_size"));
}

TEST_CASE("silicon CSV: the backend column reads the engines under their other spellings and orchestrators",
          "[traces][silicon]") {
  std::istringstream in(
      "id,backend,model_path,system,mode,isl,osl,silicon_ttft_ms,silicon_tpot_ms\n"
      "a,TensorRT-LLM,m,h100_sxm,agg,1,1,1,1\nb,vLLM,m,h100_sxm,agg,1,1,1,1\nc,sglang,m,h100_sxm,agg,1,1,1,1\n"
      "d,TGI,m,h100_sxm,agg,1,1,1,1\n"
      "e,mori-sglang,m,mi355x,agg,1,1,1,1\nf,dynamo-trt,m,gb200,agg,1,1,1,1\ng,mooncake-atom,m,mi355x,agg,1,1,1,1\n"
      "h,llmd-vllm,m,b200_sxm,agg,1,1,1,1\ni,ATOM,m,mi355x,agg,1,1,1,1\nj,dynamo-tgi,m,h100_sxm,agg,1,1,1,1\n");
  const auto r = traces::parse_silicon_csv(in, "f.csv");
  REQUIRE(r.runs.size() == 10);
  CHECK(r.runs[0].backend == "trtllm");
  CHECK(r.runs[0].notes == "backend TensorRT-LLM read as trtllm");
  CHECK(r.runs[1].backend == "vllm");
  CHECK(r.runs[2].backend == "sglang");
  CHECK(r.runs[2].notes.empty());     // written as the mapping names it: no note
  CHECK(r.runs[3].backend == "tgi");  // no engine model: kept for the mapping to refuse by name
  // InferenceX's engine behind an orchestrator or transfer library: the engine's scheduler forms the steps.
  CHECK(r.runs[4].backend == "sglang");
  CHECK(r.runs[4].notes == "backend mori-sglang read as sglang");
  CHECK(r.runs[5].backend == "trtllm");
  CHECK(r.runs[6].backend == "atom");
  CHECK(r.runs[7].backend == "vllm");
  CHECK(r.runs[8].backend == "atom");
  CHECK(r.runs[9].backend == "dynamo-tgi");  // no part names an engine
}

TEST_CASE("silicon CSV: rows InferenceX measured carry its client's length spread and request count",
          "[traces][silicon]") {
  const auto r = traces::read_silicon_csv(kValidationFixtures + "/silicon-clients.csv");
  REQUIRE(r.runs.size() == 4);
  // Its database dump and its dashboard export: lengths in [0.8 x, 1 x], 10 requests per client, all measured.
  for (std::size_t i : {0u, 1u}) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].length_range_ratio == 0.8);
    CHECK(r.runs[i].requests_per_client == 10);
  }
  for (std::size_t i : {0u, 1u}) CHECK(r.runs[i].warmup_requests_per_client == 0);
  // aiconfigurator's gap-analysis runs (its genai-perf client): fixed lengths, 2 warm-up and 10 measured per client.
  CHECK(r.runs[2].length_range_ratio == 1.0);
  CHECK(r.runs[2].warmup_requests_per_client == 2);
  CHECK(r.runs[2].requests_per_client == 10);
  // A dated file without the export's fields names no client: nothing assumed.
  CHECK(r.runs[3].length_range_ratio == 1.0);
  CHECK(r.runs[3].warmup_requests_per_client == 0);
  CHECK(r.runs[3].requests_per_client == 0);
}

TEST_CASE("silicon CSV: TensorRT-LLM rows of the gap analyses carry the generator's step settings",
          "[traces][silicon]") {
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,"
      "silicon_tpot_ms";
  const std::string gap = "source_file=/x/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.0.0rc3/Qwen_Qwen3-32B.csv";
  const std::string rows[] = {
      "small," + gap + "; silicon_concurrency=16,trtllm,Qwen/Qwen3-32B,h100_sxm,agg,1024,128,16,1,1,1",
      "large," + gap + "; silicon_concurrency=600,trtllm,Qwen/Qwen3-32B,h100_sxm,agg,1024,128,600,1,1,1",
      "vllm," + gap + "; silicon_concurrency=16,vllm,Qwen/Qwen3-32B,h100_sxm,agg,1024,128,16,1,1,1",
      "ix,db-dump/2026-04-27; config_id=1; silicon_concurrency=16; workflow_run_id=2,trtllm,Qwen/Qwen3-32B,h100_sxm,"
      "agg,1024,128,16,1,1,1"};
  const auto r = parse_rows(header, rows);
  REQUIRE(r.runs.size() == 4);
  // max_batch_size raised to 512 below 512: ceil32(512 + 1024 + 1500) = 3040; from 512 up to 2 x batch:
  // ceil32(1200 + 1024 + 1500) = 3744. Whole prompts in both.
  CHECK(r.runs[0].server_whole_prompts);
  CHECK(r.runs[0].server_max_num_tokens == 3040);
  CHECK(r.runs[1].server_max_num_tokens == 3744);
  CHECK(r.runs[0].notes.find("max_num_tokens 3040") != std::string::npos);
  // No rule sets the KV cache's share of free memory: the templates' 0.80.
  CHECK(r.runs[0].server_free_gpu_memory_fraction == 0.8);
  // Other engines of the same analyses, and TensorRT-LLM rows from elsewhere, keep the engine's defaults.
  for (std::size_t i : {2u, 3u}) {
    INFO(r.runs[i].id);
    CHECK_FALSE(r.runs[i].server_whole_prompts);
    CHECK(r.runs[i].server_max_num_tokens == 0);
    CHECK(r.runs[i].server_free_gpu_memory_fraction == 0.0);
  }
  // The server's settings are not the client's: forgetting the benchmark clients keeps them.
  auto forgotten = r;
  traces::forget_benchmark_clients(forgotten);
  CHECK(forgotten.runs[0].server_max_num_tokens == 3040);
}

TEST_CASE("silicon CSV: SGLang rows of the gap analyses run mixed chunks where the generator passes the flag",
          "[traces][silicon]") {
  const std::string header =
      "id,silicon_data_source,backend,backend_version,model_path,system,mode,isl,osl,batch_size,tp_size,"
      "silicon_ttft_ms,silicon_tpot_ms";
  const std::string gap = "source_file=/x/aic-auto-gap-analysis/data/h200_sxm/sglang/v/m.csv; silicon_concurrency=8";
  const std::string rows[] = {
      "new," + gap + ",sglang,0.5.6.post2,m,h200_sxm,agg,1000,100,8,1,1,1",
      "old," + gap + ",sglang,0.5.1.post1,m,h200_sxm,agg,1000,100,8,1,1,1",
      "ix,db-dump/2026-04-27; config_id=1; silicon_concurrency=8; workflow_run_id=2,sglang,0.5.6.post2,m,h200_sxm,agg,"
      "1000,100,8,1,1,1"};
  const auto r = parse_rows(header, rows);
  REQUIRE(r.runs.size() == 3);
  CHECK(r.runs[0].server_mixed_chunk);
  CHECK(r.runs[0].server_max_num_tokens == 0);  // the engine's default budget
  CHECK(r.runs[0].notes.find("--enable-mixed-chunk") != std::string::npos);
  CHECK_FALSE(r.runs[1].server_mixed_chunk);  // that version's template never passes it
  CHECK_FALSE(r.runs[2].server_mixed_chunk);  // InferenceX's launch scripts, not the generator
  CHECK(r.runs[0].server_recv_interval == 0);
}

TEST_CASE("silicon CSV: the shared development set reads whole", "[traces][silicon][shared]") {
  const std::string file = kShared + "/validation/silicon-dev.csv";
  if (!std::filesystem::exists(file)) {
    WARN("skipped: " << file << " is absent (../shared is not checked out)");
    return;
  }
  const auto r = traces::read_silicon_csv(file);
  // shared/validation/README.md: 2,634 measured benchmark points.
  CHECK(r.rows == 2634);
  CHECK(r.runs.size() + static_cast<std::size_t>(r.skipped) == 2634);
  CHECK(r.skipped == 0);
  long with_concurrency = 0;
  for (const auto& run : r.runs) with_concurrency += run.concurrency > 0;
  CHECK(with_concurrency == 2616);  // 18 rows' source text has no silicon_concurrency
  // Every row attributed to InferenceX has one of the three (isl, osl) pairs its sweeps run (1k/1k, 1k/8k, 8k/1k):
  // the provenance rule picks out that benchmark's rows and no one else's.
  long inferencex = 0, other_shapes = 0, aiconfigurator = 0;
  for (const auto& run : r.runs) {
    aiconfigurator += run.warmup_requests_per_client > 0;
    if (run.length_range_ratio == 1.0) continue;
    ++inferencex;
    const bool sweep_shape = (run.isl == 1024 && run.osl == 1024) || (run.isl == 1024 && run.osl == 8192) ||
                             (run.isl == 8192 && run.osl == 1024);
    other_shapes += sweep_shape ? 0 : 1;
  }
  CHECK(inferencex == 1719);  // 325 from its database dump, 1,394 from its dashboard export
  CHECK(other_shapes == 0);
  CHECK(aiconfigurator == 915);  // the rest: 839 rows of aic-auto-gap-analysis, 76 of qwen3.5-397b-gap-analysis.csv
}

TEST_CASE("silicon CSV: forgetting the benchmark clients leaves fixed lengths and no request counts",
          "[traces][silicon]") {
  auto r = traces::read_silicon_csv(kValidationFixtures + "/silicon-clients.csv");
  traces::forget_benchmark_clients(r);
  for (const auto& run : r.runs) {
    INFO(run.id);
    CHECK(run.length_range_ratio == 1.0);
    CHECK(run.warmup_requests_per_client == 0);
    CHECK(run.requests_per_client == 0);
  }
}

TEST_CASE("silicon CSV: --drawn-lengths keeps InferenceX's drawn lengths and drops genai-perf's warm-up",
          "[traces][silicon]") {
  const auto read = traces::read_silicon_csv(kValidationFixtures + "/silicon-clients.csv");
  const auto by_id = [](const traces::MeasuredServingResults& r, const std::string& id) {
    for (const auto& run : r.runs) {
      if (run.id == id) return run;
    }
    FAIL("no row " << id);
    return traces::MeasuredServingRun{};
  };
  auto drawn = read;
  traces::apply_client_mapping(drawn, traces::CsvClientMapping::drawn_lengths);
  for (const char* id : {"ix_db_dump", "ix_dashboard"}) {
    INFO(id);
    // InferenceX's benchmark_serving.py: lengths uniform in [0.8 x, 1 x], 10 x C requests, every one averaged.
    CHECK(by_id(drawn, id).length_range_ratio == 0.8);
    CHECK(by_id(drawn, id).requests_per_client == 10);
    CHECK(by_id(drawn, id).warmup_requests_per_client == 0);
  }
  // genai-perf's fixed lengths stay fixed and its 2 x C warm-up is dropped: the default window instead.
  const auto gap = by_id(drawn, "aic_genai_perf");
  CHECK(gap.length_range_ratio == 1.0);
  CHECK(gap.warmup_requests_per_client == 0);
  CHECK(gap.requests_per_client == 0);

  auto as_run = read;
  traces::apply_client_mapping(as_run, traces::CsvClientMapping::as_run);
  CHECK(by_id(as_run, "aic_genai_perf").warmup_requests_per_client == 2);
  CHECK(by_id(as_run, "aic_genai_perf").requests_per_client == 10);
  CHECK(by_id(as_run, "ix_db_dump").length_range_ratio == 0.8);

  auto fixed = read;
  traces::apply_client_mapping(fixed, traces::CsvClientMapping::fixed_lengths);
  for (const auto& run : fixed.runs) {
    INFO(run.id);
    CHECK(run.length_range_ratio == 1.0);
    CHECK(run.requests_per_client == 0);
  }
}

TEST_CASE("silicon CSV: InferenceX exports that multiplied an EP run's layout by ep are read back",
          "[traces][silicon]") {
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,batch_size,tp_size,attention_dp_size,"
      "moe_tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n";
  const std::string dump = "db-dump/2026-04-27; config_id=1; silicon_concurrency=8; workflow_run_id=2";
  const std::string dash = "source_file=2026-04-06.csv; model=M; silicon_concurrency=8; wip=False";
  const std::string dash32 = "source_file=2026-04-06.csv; model=M; silicon_concurrency=32; wip=False";
  std::istringstream in(head +
                        // The id names tp 4, ep 4; the columns say 16 GPUs (tp x ep), then 16 with attention DP
                        // (32 clients as 2 per attention rank: 8 per rank of the 4 restored).
                        "a_tp4_ep4_1," + dash + ",sglang,m,b200_sxm,agg,1024,1024,8,16,1,4,4,1,1\n" + "b_tp4_ep4_2," +
                        dash32 + ",trtllm,m,b200_sxm,agg,1024,1024,2,1,16,4,4,1,1\n" +
                        // No layout in the id: the three export patterns (SGLang / TRT-LLM, attention DP, vLLM),
                        // each with the 8 clients divided by the attention_dp_size it wrote.
                        "c_cfg1," + dump + ",sglang,m,b300_sxm,agg,1024,1024,8,4,1,2,2,1,1\n" + "d_cfg2," + dump +
                        ",trtllm,m,b200_sxm,agg,1024,1024,1,1,8,4,2,1,1\n" + "e_cfg3," + dump +
                        ",vllm,m,b200_sxm,agg,1024,1024,2,4,4,1,16,1,1\n" +
                        // Already consistent: kept (the id's 4 GPUs, and a correct EP export).
                        "f_tp4_ep4_3," + dash + ",sglang,m,b200_sxm,agg,1024,1024,8,4,1,1,4,1,1\n" + "g_cfg4," + dump +
                        ",sglang,m,b200_sxm,agg,1024,1024,8,8,1,1,8,1,1\n" +
                        // Not InferenceX's: whatever its columns say is its layout.
                        "h_tp4_ep4_4,source_file=x-gap-analysis.csv,sglang,m,b200_sxm,agg,1024,1024,8,16,1,4,4,1,1\n" +
                        // A dashboard export's row without a layout in its id: the patterns are the dump's only.
                        "i_cfg5," + dash + ",trtllm,m,b200_sxm,agg,1024,1024,8,4,1,2,2,1,1\n");
  const auto r = traces::parse_silicon_csv(in, "f.csv");
  REQUIRE(r.runs.size() == 9);
  // {batch, workers, tp, pp, attention dp, moe_tp, moe_ep}
  CHECK(r.runs[0].agg == traces::MeasuredLayout{8, 0, 4, 0, 1, 1, 4});
  CHECK(r.runs[1].agg == traces::MeasuredLayout{8, 0, 1, 0, 4, 1, 4});  // 32 clients: one worker of 4 ranks x 8
  CHECK(r.runs[2].agg == traces::MeasuredLayout{8, 0, 2, 0, 1, 1, 2});
  CHECK(r.runs[3].agg == traces::MeasuredLayout{2, 0, 1, 0, 4, 2, 2});
  CHECK(r.runs[4].agg == traces::MeasuredLayout{8, 0, 4, 0, 1, 1, 4});  // batch 2 x attention DP 4 -> 8 x 1
  CHECK(r.runs[5].agg == traces::MeasuredLayout{8, 0, 4, 0, 1, 1, 4});
  CHECK(r.runs[6].agg == traces::MeasuredLayout{8, 0, 8, 0, 1, 1, 8});
  CHECK(r.runs[7].agg == traces::MeasuredLayout{8, 0, 16, 0, 1, 4, 4});
  CHECK(r.runs[8].agg == traces::MeasuredLayout{8, 0, 4, 0, 1, 2, 2});
  CHECK_THAT(r.runs[0].notes, Catch::Contains("4 GPUs, ep 4") && Catch::Contains("tp_size 16"));
  CHECK_THAT(r.runs[1].notes, Catch::Contains("with attention DP") && Catch::Contains("batch_size 2"));
  CHECK_THAT(r.runs[4].notes, Catch::Contains("8 clients per attention rank") && Catch::Contains("batch_size 2"));
  for (std::size_t i : {5u, 6u, 7u, 8u}) {
    INFO(r.runs[i].id);  // the rows left alone say nothing of a layout read back (SGLang's poll interval aside)
    CHECK_THAT(r.runs[i].notes, !Catch::Contains("GPUs, ep") && !Catch::Contains("attention DP"));
  }
}

TEST_CASE("silicon CSV: a measurement exported twice has one layout once the EP exports are read back",
          "[traces][silicon][shared]") {
  const std::string file = kShared + "/validation/silicon-dev.csv";
  if (!std::filesystem::exists(file)) {
    WARN("skipped: " << file << " is absent (../shared is not checked out)");
    return;
  }
  // The same measurement (model, system, backend, lengths, clients, TTFT and TPOT to 0.1 ms) in two exports must
  // have run on the same number of GPUs with the same EP degree.
  const auto r = traces::read_silicon_csv(file);
  std::map<std::string, const traces::MeasuredServingRun*> seen;
  int pairs = 0, restored_pairs = 0, ep_differs = 0;
  for (const auto& run : r.runs) {
    if (run.mode != "agg" || run.concurrency == 0) continue;
    char key[512];
    std::snprintf(key, sizeof key, "%s|%s|%s|%d|%d|%d|%.1f|%.1f", run.model_path.c_str(), run.system.c_str(),
                  run.backend.c_str(), run.isl, run.osl, run.concurrency, run.ttft_ms, run.tpot_ms);
    auto [it, first] = seen.emplace(key, &run);
    if (first) continue;
    const auto& a = it->second->agg;
    const auto& b = run.agg;
    INFO(it->second->id << " and " << run.id);
    CHECK(a.tp * std::max(a.attention_dp, 1) == b.tp * std::max(b.attention_dp, 1));
    // ... and one worker's clients (batch_size per attention rank): otherwise the mapping deploys several workers.
    CHECK(a.batch_size * std::max(a.attention_dp, 1) == b.batch_size * std::max(b.attention_dp, 1));
    ep_differs += std::max(a.moe_ep, 1) != std::max(b.moe_ep, 1);
    ++pairs;
    restored_pairs += !it->second->notes.empty() || !run.notes.empty();
  }
  CHECK(pairs >= 40);
  CHECK(restored_pairs >= 10);
  WARN(pairs << " pairs, " << restored_pairs << " restored, " << ep_differs << " with another ep");
}
