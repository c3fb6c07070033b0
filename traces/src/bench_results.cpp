// Benchmark clients' result files as measured serving runs. The formats follow their writers:
//   vLLM (vllm/benchmarks/serve.py, main_async): result_json holds date, endpoint_type, backend, label,
//     model_id, tokenizer_id, num_prompts, the --metadata KEY=VALUE pairs, request_rate (a number or "inf"),
//     burstiness, max_concurrency (null when unset), then the benchmark's duration, completed, failed,
//     total_input_tokens, total_output_tokens, ..., mean/median/std/pNN _ttft_ms, _tpot_ms, _itl_ms, _e2el_ms,
//     and with --save-detailed the per-request input_lens and output_lens; json.dump, one object per line with
//     --append-result.
//   SGLang (python/sglang/bench_serving.py, benchmark): one json.dumps line per run with backend, dataset_name,
//     request_rate (a float: inf is written as Infinity), max_concurrency, random_input_len, random_output_len,
//     random_range_ratio, duration, completed, total_input_tokens, total_output_tokens, ..., mean_e2e_latency_ms,
//     mean/median/std/p99 _ttft_ms and _tpot_ms, concurrency, accept_length, and with --output-details the
//     per-request input_lens and output_lens.
#include "fleetcast/traces/bench_results.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <variant>

#include "bench_fields.hpp"
#include "bench_parts.hpp"
#include "engine_names.hpp"
#include "fleetcast/specs/error.hpp"
#include "perf_export.hpp"

namespace fleetcast::traces {
namespace {

using nlohmann::json;
using namespace detail;

class RecordReader {
 public:
  RecordReader(const std::string& file, const BenchDeployment& given) : file_(file), given_(given) {}

  std::variant<MeasuredServingRun, BadField> read(const json& raw, long line, long record) const {
    if (!raw.is_object()) return BadField{"", raw.dump().substr(0, 40), "a record is a JSON object"};
    // AIPerf's and genai-perf's exports read as the vLLM record they say the same as.
    json translated;
    const bool perf_export = detail::is_perf_export(raw);
    if (perf_export) {
      auto t = detail::perf_export_as_bench_record(raw);
      if (const auto* p = std::get_if<detail::PerfExportProblem>(&t)) return BadField{p->field, p->value, p->reason};
      translated = std::move(std::get<json>(t));
    }
    const json& r = perf_export ? translated : raw;
    const bool vllm = r.contains("model_id") || r.contains("endpoint_type") || r.contains("mean_e2el_ms");
    const bool sglang = r.contains("mean_e2e_latency_ms") || r.contains("total_output_tokens_retokenized");
    if (!vllm && !sglang) {
      return BadField{"", "",
                      "neither a vllm bench serve result (model_id, endpoint_type, mean_e2el_ms), an sglang "
                      "bench_serving one (mean_e2e_latency_ms, total_output_tokens_retokenized) nor an AIPerf or "
                      "genai-perf export (time_to_first_token)"};
    }
    MeasuredServingRun run;
    run.line = line;
    auto note = [&](const std::string& n) { run.notes += (run.notes.empty() ? "" : "; ") + n; };

    double completed = 0, input_total = 0, output_total = 0;
    for (const auto& [key, target] :
         {std::pair{"completed", &completed}, std::pair{"total_input_tokens", &input_total},
          std::pair{"total_output_tokens", &output_total}, std::pair{"mean_ttft_ms", &run.ttft_ms},
          std::pair{"mean_tpot_ms", &run.tpot_ms}}) {
      auto v = number(r, key);
      if (auto* bad = std::get_if<BadField>(&v)) return *bad;
      const auto& value = std::get<std::optional<double>>(v);
      if (!value) return BadField{key, "", "missing: every result has it"};
      if (!(*value > 0.0) || !std::isfinite(*value)) return BadField{key, shown(r.at(key)), "must be > 0"};
      *target = *value;
    }
    if (auto bad = read_percentiles(r, run)) return *bad;
    percentiles_from_details(r, run);
    run.isl = static_cast<int>(std::lround(input_total / completed));
    run.osl = static_cast<int>(std::lround(output_total / completed));
    run.output_tokens = std::lround(output_total);
    if (run.osl < 2)
      return BadField{"total_output_tokens", shown(r.at("total_output_tokens")),
                      "TPOT needs >= 2 output tokens per request"};
    read_lengths(r, run);
    // SGLang's bench_serving and InferenceX's benchmark_serving.py draw a random dataset's lengths uniform in
    // [floor(r x L), L] (sample_random_requests: randint(max(int(L x r), 1), L + 1)) and write r as
    // random_range_ratio; SGLang writes L as random_input_len and random_output_len, InferenceX only the means, about
    // (1 + r) / 2 of L. The mapping takes L as isl and osl with the spread. vLLM's own bench serve draws L x (1 +- r)
    // and does not write the key. Another dataset (SGLang writes the key for ShareGPT too), or per-request lengths
    // in the file, leave the means as they are.
    auto range = number(r, "random_range_ratio");
    if (auto* bad = std::get_if<BadField>(&range)) return *bad;
    const std::string dataset = text(r, "dataset_name");
    const bool random_dataset = dataset.empty() || dataset == "random" || dataset == "random-ids";
    if (const auto& ratio = std::get<std::optional<double>>(range); ratio && random_dataset && run.input_lens.empty()) {
      // SGLang's default is 0: lengths uniform in [1, L].
      if (!(*ratio >= 0.0 && *ratio <= 1.0))
        return BadField{"random_range_ratio", shown(r.at("random_range_ratio")), "must be in [0, 1]"};
      if (*ratio < 1.0) {
        const auto nominal = [&](const char* key, double total) {
          auto given_len = number(r, key);
          if (const auto* v = std::get_if<std::optional<double>>(&given_len); v && *v && **v >= 1.0)
            return static_cast<int>(std::lround(**v));
          return static_cast<int>(std::lround(2.0 * total / completed / (1.0 + *ratio)));
        };
        run.length_range_ratio = *ratio;
        run.isl = nominal("random_input_len", input_total);
        run.osl = nominal("random_output_len", output_total);
        const auto least = [&](int nominal) { return std::max(1, static_cast<int>(std::floor(*ratio * nominal))); };
        note("lengths uniform in " + std::to_string(least(run.isl)) + "-" + std::to_string(run.isl) + " in, " +
             std::to_string(least(run.osl)) + "-" + std::to_string(run.osl) + " out (random_range_ratio " +
             shown(r.at("random_range_ratio")) + ")");
      }
    }

    // Traffic: an unbounded rate sends every request at once and max_concurrency holds them back, which is
    // max_concurrency closed-loop clients; a finite rate is open loop.
    auto rate = number(r, "request_rate");
    if (auto* bad = std::get_if<BadField>(&rate)) return *bad;
    auto concurrency = number(r, "max_concurrency");
    if (auto* bad = std::get_if<BadField>(&concurrency)) return *bad;
    auto prompts = number(r, "num_prompts");
    if (auto* bad = std::get_if<BadField>(&prompts)) return *bad;
    auto burst = number(r, "burstiness");
    if (auto* bad = std::get_if<BadField>(&burst)) return *bad;
    const auto& rate_v = std::get<std::optional<double>>(rate);
    const auto& conc_v = std::get<std::optional<double>>(concurrency);
    const auto& prompts_v = std::get<std::optional<double>>(prompts);
    run.num_requests = static_cast<long>(prompts_v ? *prompts_v : completed);
    if (perf_export) {
      run.warmup_requests = r.value("warmup_requests", 0L);
      note(text(r, "benchmark_tool") +
           " export: inter_token_latency read as TPOT (per request, (latency - TTFT) / "
           "(output tokens - 1))");
      if (r.contains("lengths_note")) note(text(r, "lengths_note"));
    }
    if (conc_v) {
      if (*conc_v < 1 || *conc_v != std::floor(*conc_v))
        return BadField{"max_concurrency", shown(r.at("max_concurrency")), "a whole number >= 1 or null"};
      run.concurrency = static_cast<int>(*conc_v);
    }
    if (rate_v && std::isfinite(*rate_v)) {
      if (*rate_v <= 0.0) return BadField{"request_rate", shown(r.at("request_rate")), "must be > 0 or inf"};
      run.request_rate_per_s = *rate_v;
      if (const auto& b = std::get<std::optional<double>>(burst)) {
        if (!(*b > 0.0)) return BadField{"burstiness", shown(r.at("burstiness")), "must be > 0"};
        run.burstiness = *b;
      }
    } else if (run.concurrency == 0) {
      run.concurrency = static_cast<int>(run.num_requests);
      note("no max_concurrency and an unbounded rate: all " + std::to_string(run.num_requests) + " requests at once");
    }
    auto failed = number(r, "failed");
    if (const auto* f = std::get_if<std::optional<double>>(&failed); f && *f && **f > 0) {
      note(std::to_string(static_cast<long>(**f)) + " failed requests in the benchmark");
    }
    if (auto bad = read_speculative(r, run)) return *bad;
    if (run.spec_accept_length == 0.0 && given_.accept_length > 0.0) {
      run.spec_accept_length = given_.accept_length;
      note("accepted length per step from --acceptance-length");
    }

    // The deployment: the record's own keys, else the caller's.
    auto pick = [&](const char* key, const std::string& fallback) {
      const std::string v = text(r, key);
      return v.empty() ? fallback : v;
    };
    run.system = pick("hardware", pick("system", given_.hardware));
    const std::string model = pick("model", vllm ? pick("model_id", given_.model) : given_.model);
    run.model_path = model;
    run.precision = pick("precision", given_.precision);
    // The record's own launch, where its writer kept it beside the result (vLLM's --metadata server_args="...", a
    // harness that stores the serve command and the options file): for this record it replaces the command line's.
    ServerSettings settings = given_.server;
    const bool own_launch = !text(r, "server_args").empty() || !text(r, "server_cmd").empty() ||
                            !text(r, "server_config").empty() || !text(r, "config_yaml").empty();
    if (own_launch) {
      const auto first = [&](const char* a, const char* b) { return text(r, a).empty() ? text(r, b) : text(r, a); };
      const std::string cmd = first("server_args", "server_cmd"), yaml = first("server_config", "config_yaml");
      const std::string where = file_ + " line " + std::to_string(line);
      try {
        settings =
            merge_server_settings(cmd.empty() ? ServerSettings{} : parse_server_command(cmd, where + " launch"),
                                  yaml.empty() ? ServerSettings{} : parse_server_config(yaml, where + " config"));
      } catch (const InputError& e) {
        return BadField{e.field(), e.value(), e.problem()};
      }
      if (run.model_path.empty()) run.model_path = settings.model;
    }
    std::string runtime = pick("runtime", given_.runtime);
    if (runtime.empty()) runtime = settings.engine;
    if (runtime.empty() && perf_export) {
      return BadField{"", "",
                      "an AIPerf or genai-perf export does not say which engine served the run: give --runtime "
                      "(or the launch, --server-args)"};
    }
    if (runtime.empty()) {
      runtime = detail::engine_of(text(r, "backend"));
      if (runtime.empty()) {
        runtime = vllm ? "vllm" : "sglang";
        note("runtime " + runtime + ": the benchmark's own server (client backend " + text(r, "backend") + ")");
      }
    }
    run.backend = runtime;
    run.backend_version = text(r, "backend_version");
    run.mode = "agg";
    int layout[5] = {given_.tp, given_.pp, given_.dp, given_.ep, given_.max_num_seqs};
    if (own_launch) {
      try {
        const ServerLayout l = server_layout(settings, runtime);
        for (const auto& [k, v] : {std::pair{0, l.tp}, std::pair{1, l.pp}, std::pair{2, l.attention_dp},
                                   std::pair{3, l.moe_ep}, std::pair{4, l.max_num_seqs}}) {
          if (v > 0) layout[k] = v;
        }
      } catch (const InputError& e) {
        return BadField{e.field(), e.value(), e.problem()};
      }
    }
    const char* keys[5] = {"tp", "pp", "dp", "ep", "max_num_seqs"};
    for (int k = 0; k < 5; ++k) {
      // A launcher's metadata may name the engine's own default instead of a number (ATOM runs write
      // "max_num_seqs": "atom_default"): not given.
      if (const std::string v = text(r, keys[k]); v.ends_with("default")) {
        note(std::string(keys[k]) + " " + v + ": not given");
        continue;
      }
      auto v = number(r, keys[k]);
      if (auto* bad = std::get_if<BadField>(&v)) return *bad;
      if (const auto& x = std::get<std::optional<double>>(v)) {
        if (*x < 1 || *x != std::floor(*x)) return BadField{keys[k], shown(r.at(keys[k])), "a whole number >= 1"};
        layout[k] = static_cast<int>(*x);
      }
    }
    run.agg.tp = layout[0];
    run.agg.pp = layout[1];
    run.agg.attention_dp = layout[2];
    run.agg.moe_ep = layout[3];
    run.agg.batch_size = layout[4];
    // No max_num_seqs given: left 0 for the mapping, which knows the GPU and gives the engine's own cap there
    // (the deployment spec's scheduler defaults).
    if (run.agg.batch_size == 0) note("max_num_seqs not given: " + runtime + "'s default for the GPU");
    try {
      apply_server_settings(settings, run);
    } catch (const InputError& e) {
      if (!own_launch) throw;  // the command line's launch: a mistake there fails the command
      return BadField{e.field(), e.value(), e.problem()};
    }
    run.id = text(r, "id");
    if (run.id.empty()) {
      run.id = std::filesystem::path(file_).filename().string() + "#" + std::to_string(record);
    }
    return run;
  }

 private:
  std::string file_;
  BenchDeployment given_;
};

}  // namespace

void take_server_settings(ServerSettings settings, BenchDeployment& given, const LayoutFieldsGiven& set_by_caller) {
  if (settings.empty()) return;
  const std::string engine = server_engine(settings, given.runtime);
  if (engine.empty()) {
    throw InputError(settings.source, "", "",
                     "whose settings these are is not clear (no engine program, no key only one engine reads): give "
                     "--runtime");
  }
  given.runtime = engine;
  if (given.model.empty()) given.model = settings.model;
  const ServerLayout layout = server_layout(settings, engine);
  const auto merge = [&](const char* flag, bool caller_set, int& field, int from_settings, const char* what) {
    if (from_settings == 0) return;
    if (caller_set && field != from_settings) {
      throw InputError(settings.source, what, std::to_string(from_settings),
                       std::string("the command line says ") + flag + " " + std::to_string(field));
    }
    field = from_settings;
  };
  merge("--tp", set_by_caller.tp, given.tp, layout.tp, "tensor parallel (per attention-DP rank)");
  merge("--pp", set_by_caller.pp, given.pp, layout.pp, "pipeline parallel");
  merge("--dp", set_by_caller.dp, given.dp, layout.attention_dp, "attention DP");
  merge("--ep", set_by_caller.ep, given.ep, layout.moe_ep, "expert parallel");
  merge("--max-num-seqs", set_by_caller.max_num_seqs, given.max_num_seqs, layout.max_num_seqs, "batch cap");
  given.server = std::move(settings);
}

MeasuredServingResults parse_bench_results(std::istream& in, const std::string& file, const BenchDeployment& given,
                                           bool strict) {
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string content = quote_python_specials(ss.str());
  MeasuredServingResults out;
  out.file = file;
  const RecordReader reader(file, given);
  long record = 0;
  auto take = [&](const json& j, long line) {
    ++out.rows;
    ++record;
    auto run = reader.read(j, line, record);
    if (auto* bad = std::get_if<BadField>(&run)) {
      const std::string where = "line " + std::to_string(line) + (bad->field.empty() ? "" : ", field " + bad->field);
      if (strict) throw InputError(file, where, bad->value, bad->reason);
      ++out.skipped;
      if (out.first_bad_rows.size() < kBadRowsKept) {
        out.first_bad_rows.push_back(
            {line, (bad->field.empty() ? "" : bad->field + (bad->value.empty() ? "" : " " + bad->value) + ": ") +
                       bad->reason});
      }
      return;
    }
    out.runs.push_back(std::move(std::get<MeasuredServingRun>(run)));
  };

  // One JSON value (an object, or an array of them), else one object per line.
  const json whole = json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (!whole.is_discarded()) {
    if (whole.is_array()) {
      for (const json& j : whole) take(j, 1);
    } else {
      take(whole, 1);
    }
  } else {
    std::istringstream lines(content);
    std::string line;
    long number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const json j = json::parse(line, nullptr, false);
      if (j.is_discarded()) {
        if (strict) throw InputError(file, "line " + std::to_string(number), line.substr(0, 40), "not valid JSON");
        ++out.rows;
        ++record;
        ++out.skipped;
        if (out.first_bad_rows.size() < kBadRowsKept) out.first_bad_rows.push_back({number, "not valid JSON"});
        continue;
      }
      take(j, number);
    }
  }
  if (out.rows == 0) throw InputError(file, "", "", "no benchmark result records in the file");
  return out;
}

MeasuredServingResults read_bench_results(const std::filesystem::path& path, const BenchDeployment& given,
                                          bool strict) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the benchmark result file");
  return parse_bench_results(in, path.string(), given, strict);
}

}  // namespace fleetcast::traces
