// The silicon CSV of ai-dynamo/aiconfigurator (systems/silicon_sample.csv): one measured benchmark point per
// row, the layout in *_size columns, the closed-loop concurrency inside silicon_data_source.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <variant>

#include "csv_fields.hpp"
#include "engine_names.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/serving_results.hpp"
#include "inferencex_launch.hpp"
#include "lower.hpp"
#include "request_trace_rows.hpp"

namespace fleetcast::traces {
namespace {

// Rows measured by InferenceX (SemiAnalysis's nightly serving benchmark), as aiconfigurator's file names them: its
// database dump ("db-dump/2026-04-27; config_id=...; workflow_run_id=...") and its dashboard export
// ("source_file=2026-03-25.csv; model=...; silicon_concurrency=...; measured=...; wip=...").
bool measured_by_inferencex(const std::string& source) {
  static const std::regex db_dump("^db-dump/[^;]*;.*\\bworkflow_run_id=[0-9]+");
  static const std::regex dashboard("^source_file=[0-9]{4}-[0-9]{2}-[0-9]{2}\\.csv;.*\\bwip=(True|False)");
  return std::regex_search(source, db_dump) || std::regex_search(source, dashboard);
}

// Rows aiconfigurator's team measured for its gap analyses ("source_file=.../aic-auto-gap-analysis/data/...",
// "source_file=qwen3.5-397b-gap-analysis.csv").
bool measured_by_aiconfigurator(const std::string& source) {
  static const std::regex gap_analysis("^source_file=[^;]*gap-analysis");
  return std::regex_search(source, gap_analysis);
}

// InferenceX's later exports (its 2026-04-06 dashboard file and its database dump) write an expert-parallel run's
// layout multiplied by its EP degree: a 4-GPU run at tp 4, ep 4 comes out as tp_size 16, moe_tp_size 4, moe_ep_size 4
// (SGLang, TensorRT-LLM), as tp_size 1, attention_dp_size 16 with attention data parallelism (TensorRT-LLM), or as
// tp_size 4, attention_dp_size 4, moe_ep_size 16 (vLLM). The same measurements exported correctly show it (equal
// TTFT to 0.1 ms: Qwen3.5-397B on B200 under SGLang, 2026-03-25 export and aiconfigurator's gap analysis tp 4,
// moe_tp 1, moe_ep 4; the dump and the 2026-04-06 file tp 16, moe_tp 4, moe_ep 4), and so do the 2026-04-06 ids,
// which name the run's "_tp4_ep4". InferenceX's tp is the run's GPU count (one node); its ep divides it.
// The layout is read back as tp X (or attention DP X where the export wrote tp_size 1), moe_ep Y, moe_tp X / Y:
// from the id where it names tp and ep, else, for the database dump (whose ids name only a config number), from the
// three export patterns, each only where the columns match it exactly; a run whose columns already give X GPUs is
// left as it is. Returns what was read, for the row's notes.
std::string restore_expert_parallel_layout(MeasuredServingRun& r, const std::string& source) {
  MeasuredLayout& l = r.agg;
  if (r.mode != "agg" || l.moe_ep <= 1 || l.tp <= 0) return "";
  const int tp = l.tp, dp = std::max(l.attention_dp, 1), moe_tp = l.moe_tp, ep = l.moe_ep;
  int gpus = 0, ep_degree = 0;
  bool attention_dp = false;
  static const std::regex id_layout("_tp([0-9]+)_ep([0-9]+)_");
  std::smatch m;
  const bool dump = source.starts_with("db-dump/");
  if (std::regex_search(r.id, m, id_layout)) {
    gpus = std::stoi(m[1].str());
    ep_degree = std::stoi(m[2].str());
    attention_dp = tp == 1 && dp > 1;
  } else if (!dump) {
    return "";
  } else if (dp == 1 && moe_tp > 1 && tp == moe_tp * ep) {
    gpus = moe_tp;
    ep_degree = ep;
  } else if (tp == 1 && moe_tp > 1 && dp == moe_tp * ep) {
    gpus = moe_tp;
    ep_degree = ep;
    attention_dp = true;
  } else if (moe_tp <= 1 && tp > 1 && dp > 1 && ep == tp * dp) {
    gpus = tp;
    ep_degree = dp;
  }
  if (gpus <= 0 || ep_degree <= 0 || gpus % ep_degree != 0 || tp * dp == gpus) return "";
  const std::string was = "tp_size " + std::to_string(tp) + ", attention_dp_size " + std::to_string(dp) +
                          ", moe_tp_size " + std::to_string(moe_tp) + ", moe_ep_size " + std::to_string(ep);
  // batch_size is per attention-DP rank, and the exports divided the clients by the attention_dp_size they wrote
  // (the vLLM pattern's tp 4, attention_dp 4 comes with batch_size = concurrency / 4): a worker's clients, batch_size
  // x attention_dp_size, are what the run had, so the batch is rescaled to the restored attention DP. Left as it was,
  // the mapping would split the clients over attention_dp_size workers, a run on that many times the GPUs.
  const int restored_dp = attention_dp ? gpus : 1;
  const int written_batch = l.batch_size, worker_clients = written_batch * dp;
  if (worker_clients % restored_dp != 0) return "";
  l.batch_size = worker_clients / restored_dp;
  l.tp = attention_dp ? 1 : gpus;
  l.attention_dp = restored_dp;
  l.moe_ep = ep_degree;
  l.moe_tp = gpus / ep_degree;
  return "layout " + std::to_string(gpus) + " GPUs, ep " + std::to_string(ep_degree) +
         (attention_dp ? " with attention DP" : "") + ", " + std::to_string(l.batch_size) +
         " clients per attention rank: the InferenceX export wrote " + was + ", batch_size " +
         std::to_string(written_batch) + ", the GPU count times ep";
}

using detail::lower;

// The backend column's engine under the names the mapping knows (vllm, sglang, trtllm, atom): other spellings of the
// same (case, "TensorRT-LLM", "trt") and an engine behind an orchestrator ("dynamo-trt", "mori-sglang") read as
// them; anything else is kept, lower-cased, and left unmapped.
std::string canonical_backend(const std::string& backend) {
  const std::string b = lower(backend), engine = detail::engine_of(b);
  return engine.empty() ? b : engine;
}

// The engine settings aiconfigurator's generator writes for the servers its gap analyses measure.
void set_generator_launch_settings(MeasuredServingRun& r) {
  if (r.backend == "sglang" && r.mode == "agg" &&
      (r.backend_version == "0.5.4.post3" || r.backend_version == "0.5.6.post2")) {
    // The generator's SGLang rule sets enable_mixed_chunk for agg workers, and its argument templates for
    // these two versions pass it as --enable-mixed-chunk (generator/config/backend_templates/sglang/
    // cli_args.0.5.4.post3.j2, cli_args.0.5.6.post2.j2); 0.5.1.post1's and the generic template spell the key
    // enable-mix-chunk, which the rule never sets, so other versions run without it. The rule's
    // max_prefill_tokens = isl + 1500 is not taken: at that budget Llama-3.1-8B on H200 could not have served
    // its measured 448 clients of 1,000 tokens (3.6 prompts per step needed, at most 2 fit).
    r.server_mixed_chunk = true;
    r.notes = "SGLang as aiconfigurator's generator starts it: --enable-mixed-chunk";
  }
  if (r.backend == "sglang" && r.mode == "agg" && r.agg.batch_size > 0) {
    // The rule's cuda_graph_batch_sizes = range(1, max_batch_size + 1), which every SGLang template passes as
    // --cuda-graph-bs: SGLang's largest CUDA graph, which its default --mem-fraction-static reserves room for, is the
    // batch, not its default for the GPU.
    r.server_cuda_graph_max_bs = r.agg.batch_size;
  }
  if (r.backend == "trtllm" && r.mode == "agg") {
    // The gap analyses deploy what aiconfigurator's generator writes (generator/rule_plugin/trtllm.rule and
    // its extra_engine_args templates, TensorRT-LLM 1.0 to 1.3): enable_chunked_prefill false, so a prompt is
    // prefilled whole, and max_num_tokens = ceil32(max_batch_size + isl + 1500), room for one prompt beside
    // the running decodes, where the rules have first raised max_batch_size to 512 (to 2 x batch from 512 up).
    const int engine_batch = r.agg.batch_size < 512 ? 512 : 2 * r.agg.batch_size;
    r.server_whole_prompts = true;
    r.server_max_num_tokens = (engine_batch + r.isl + 1500 + 31) / 32 * 32;
    // No rule sets kv_cache_config.free_gpu_memory_fraction: the templates' default, 0.80.
    r.server_free_gpu_memory_fraction = 0.8;
    r.notes = "TensorRT-LLM as aiconfigurator's generator starts it: prompts whole, max_num_tokens " +
              std::to_string(r.server_max_num_tokens) + ", free_gpu_memory_fraction 0.8";
  }
}

struct BadCell {
  std::string column, value, reason;
};

class SiliconRowReader {
 public:
  SiliconRowReader(const std::vector<std::string>& header, const std::string& file) : file_(file) {
    for (std::size_t i = 0; i < header.size(); ++i) index_[header[i]] = i;
    for (const char* required :
         {"id", "backend", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"}) {
      if (!index_.count(required)) {
        throw InputError(file, "header", required, "the silicon CSV has no such column");
      }
    }
  }

  // The row as a run, or the first cell that makes it unusable.
  std::variant<MeasuredServingRun, BadCell> read(const std::vector<std::string>& f, long line) const {
    MeasuredServingRun r;
    r.line = line;
    r.id = text(f, "id");
    if (r.id.empty()) return BadCell{"id", "", "empty: every row needs its id"};
    r.backend = canonical_backend(text(f, "backend"));
    r.backend_version = text(f, "backend_version");
    r.model_path = text(f, "model_path");
    r.system = text(f, "system");
    r.precision = text(f, "precision");
    r.gemm_quant_mode = text(f, "gemm_quant_mode");
    r.moe_quant_mode = text(f, "moe_quant_mode");
    r.mode = text(f, "mode");
    std::optional<BadCell> bad;
    auto whole = [&](const std::string& column, bool required) -> int {
      const std::string v = text(f, column);
      if (v.empty()) {
        if (required && !bad) bad = BadCell{column, v, "empty"};
        return 0;
      }
      const auto n = detail::parse_integer(v);
      if (!n || *n < 0 || *n > 100000000) {
        if (!bad) bad = BadCell{column, v, "not a whole number >= 0"};
        return 0;
      }
      return static_cast<int>(*n);
    };
    auto positive = [&](const std::string& column) -> double {
      const std::string v = text(f, column);
      const auto x = detail::parse_number(v);
      if (!x || *x <= 0.0) {
        if (!bad) bad = BadCell{column, v, "not a positive number"};
        return 0.0;
      }
      return *x;
    };
    r.isl = whole("isl", true);
    r.osl = whole("osl", true);
    if (!bad && r.isl < 1) bad = BadCell{"isl", text(f, "isl"), "must be >= 1"};
    if (!bad && r.osl < 1) bad = BadCell{"osl", text(f, "osl"), "must be >= 1"};
    auto layout = [&](const std::string& prefix, bool with_workers) {
      MeasuredLayout l;
      l.batch_size = whole(prefix + "batch_size", false);
      if (with_workers) l.num_workers = whole(prefix + "num_workers", false);
      l.tp = whole(prefix + "tp_size", false);
      l.pp = whole(prefix + "pp_size", false);
      l.attention_dp = whole(prefix + "attention_dp_size", false);
      l.moe_tp = whole(prefix + "moe_tp_size", false);
      l.moe_ep = whole(prefix + "moe_ep_size", false);
      return l;
    };
    r.agg = layout("", false);
    r.prefill = layout("prefill_", true);
    r.decode = layout("decode_", true);
    r.ttft_ms = positive("silicon_ttft_ms");
    r.tpot_ms = positive("silicon_tpot_ms");
    // "...; silicon_concurrency=128; ..." inside the provenance text.
    static const std::regex concurrency_re("silicon_concurrency=([0-9]+)");
    std::smatch m;
    const std::string source = text(f, "silicon_data_source");
    if (std::regex_search(source, m, concurrency_re)) r.concurrency = std::stoi(m[1].str());
    if (measured_by_inferencex(source)) {
      // InferenceX's client (benchmarks/benchmark_lib.sh, run_benchmark_serving: its benchmark_serving.py with
      // --dataset-name random --random-range-ratio 0.8 --num-prompts 10 x CONC --max-concurrency CONC
      // --request-rate inf --ignore-eos, no warm-up): lengths uniform in [0.8 x, 1 x] the nominal ones
      // (sample_uniform: randint(int(len x r), len + 1)), every request averaged.
      r.length_range_ratio = 0.8;
      r.requests_per_client = 10;
      r.notes = restore_expert_parallel_layout(r, source);
      detail::set_inferencex_launch_settings(r);
    } else if (measured_by_aiconfigurator(source)) {
      // aiconfigurator's evaluation client (aiconfigurator eval, its default runner genai_perf_runner.py):
      // genai-perf at fixed lengths (stddev 0, min_tokens = max_tokens = osl, ignore_eos), --warmup-request-count
      // 2 x C, then --request-count 10 x C measured: a steady state past the first wave.
      r.warmup_requests_per_client = 2;
      r.requests_per_client = 10;
      set_generator_launch_settings(r);
    }
    if (r.backend != text(f, "backend")) {
      r.notes += (r.notes.empty() ? "" : "; ") + std::string("backend ") + text(f, "backend") + " read as " + r.backend;
    }
    if (bad) return *bad;
    return r;
  }

 private:
  std::string text(const std::vector<std::string>& f, const std::string& column) const {
    const auto it = index_.find(column);
    if (it == index_.end() || it->second >= f.size()) return "";
    return f[it->second];
  }

  std::string file_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

MeasuredServingResults parse_silicon_csv(std::istream& in, const std::string& file, bool strict) {
  MeasuredServingResults out;
  out.file = file;
  std::string line;
  long number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") != std::string::npos) header = detail::split_csv(line);
  }
  if (header.empty()) throw InputError(file, "header", "", "the file is empty: a silicon CSV starts with its header");
  const SiliconRowReader reader(header, file);
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    ++out.rows;
    const std::vector<std::string> fields = detail::split_csv(line);
    std::variant<MeasuredServingRun, BadCell> row =
        fields.size() == header.size()
            ? reader.read(fields, number)
            : std::variant<MeasuredServingRun, BadCell>(BadCell{"row", std::to_string(fields.size()) + " fields",
                                                                "the header has " + std::to_string(header.size())});
    if (auto* run = std::get_if<MeasuredServingRun>(&row)) {
      out.runs.push_back(std::move(*run));
      continue;
    }
    const BadCell& b = std::get<BadCell>(row);
    if (strict) throw InputError(file, b.column, b.value, "line " + std::to_string(number) + ": " + b.reason);
    ++out.skipped;
    if (out.first_bad_rows.size() < kBadRowsKept) {
      out.first_bad_rows.push_back({number, b.column + " = " + b.value + ": " + b.reason});
    }
  }
  return out;
}

MeasuredServingResults read_silicon_csv(const std::filesystem::path& path, bool strict) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string(), "", "", "cannot open the file");
  return parse_silicon_csv(in, path.string(), strict);
}

void forget_benchmark_clients(MeasuredServingResults& results) {
  for (MeasuredServingRun& run : results.runs) {
    run.length_range_ratio = 1.0;
    run.warmup_requests_per_client = 0;
    run.requests_per_client = 0;
  }
}

int shortest_drawn_length(int nominal, double length_range_ratio) {
  return std::max(1, static_cast<int>(std::floor(length_range_ratio * nominal)));
}

void apply_client_mapping(MeasuredServingResults& results, CsvClientMapping mapping) {
  switch (mapping) {
    case CsvClientMapping::drawn_lengths:
      for (MeasuredServingRun& run : results.runs) {
        if (run.length_range_ratio < 1.0) continue;  // a client that draws lengths keeps them and its request count
        run.warmup_requests_per_client = 0;
        run.requests_per_client = 0;
      }
      return;
    case CsvClientMapping::fixed_lengths:
      forget_benchmark_clients(results);
      return;
    case CsvClientMapping::as_run:
      return;
  }
}

}  // namespace fleetcast::traces
