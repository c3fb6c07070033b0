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
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <variant>

#include "engine_names.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/stats/summary.hpp"
#include "perf_export.hpp"

namespace fleetcast::traces {
namespace {

using nlohmann::json;

struct BadField {
  std::string field, value, reason;
};

// Python's json writes inf and nan as the bare words Infinity, -Infinity and NaN, which JSON does not have:
// outside strings they become the strings "inf", "-inf" and "nan" that the field readers accept.
std::string quote_python_specials(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const auto& [word, as_string] :
         {std::pair{"-Infinity", "\"-inf\""}, std::pair{"Infinity", "\"inf\""}, std::pair{"NaN", "\"nan\""}}) {
      const std::string w = word;
      if (text.compare(i, w.size(), w) == 0) {
        out += as_string;
        i += w.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string shown(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A number, or one of the strings the specials became; nullopt when absent or null.
std::variant<std::optional<double>, BadField> number(const json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || it->is_null()) return std::optional<double>{};
  if (it->is_number()) return std::optional<double>{it->get<double>()};
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    if (s == "inf") return std::optional<double>{std::numeric_limits<double>::infinity()};
    // vLLM's --metadata values are strings: "tp": "8".
    try {
      std::size_t used = 0;
      const double v = std::stod(s, &used);
      if (used == s.size()) return std::optional<double>{v};
    } catch (const std::exception&) {
    }
  }
  return BadField{key, shown(*it), "not a number"};
}

std::string text(const json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// What a speculative run measured: SGLang's accept_length (the server's mean accepted length per verify step, the
// verified token counted), vLLM's spec_decode_* keys (vllm/benchmarks/serve.py, the deltas of the server's counters
// over the run: acceptance_length = 1 + accepted / drafts, per_position_acceptance_rates[i] = drafts that accepted
// position i / drafts, draft_tokens / num_drafts the drafts proposed per step). A length of 0 or null: none.
std::optional<BadField> read_speculative(const json& r, MeasuredServingRun& run) {
  for (const char* key : {"accept_length", "spec_decode_acceptance_length"}) {
    auto v = number(r, key);
    if (auto* bad = std::get_if<BadField>(&v)) return *bad;
    const auto& length = std::get<std::optional<double>>(v);
    if (!length || *length == 0.0) continue;
    if (!(*length >= 1.0) || !std::isfinite(*length)) {
      return BadField{key, shown(r.at(key)), "a mean accepted length per step is >= 1 (the verified token counts)"};
    }
    run.spec_accept_length = *length;
  }
  auto drafts = number(r, "spec_decode_num_drafts"), tokens = number(r, "spec_decode_draft_tokens");
  for (const auto* v : {&drafts, &tokens}) {
    if (const auto* bad = std::get_if<BadField>(v)) return *bad;
  }
  const auto& d = std::get<std::optional<double>>(drafts);
  const auto& t = std::get<std::optional<double>>(tokens);
  if (d && t && *d > 0.0 && *t > 0.0) run.spec_draft_tokens = static_cast<int>(std::lround(*t / *d));
  const auto pos = r.find("spec_decode_per_position_acceptance_rates");
  if (pos != r.end() && pos->is_array()) {
    std::vector<double> shares;
    for (const json& p : *pos) {
      const double prior = shares.empty() ? 1.0 : shares.back();
      if (!p.is_number() || p.get<double>() < 0.0 || p.get<double>() > prior + 1e-9) {
        return BadField{"spec_decode_per_position_acceptance_rates", pos->dump(),
                        "shares of drafts in [0, 1], each at most the one before (a position is accepted only after "
                        "every one before it)"};
      }
      shares.push_back(p.get<double>());
    }
    run.spec_position_acceptance = std::move(shares);
  }
  return std::nullopt;
}

// Per-request lengths of the successful requests (a failed one has output length 0 in both writers).
void read_lengths(const json& r, MeasuredServingRun& run) {
  const auto in = r.find("input_lens"), out = r.find("output_lens");
  if (in == r.end() || out == r.end() || !in->is_array() || !out->is_array() || in->size() != out->size()) return;
  std::vector<int> ins, outs;
  for (std::size_t i = 0; i < in->size(); ++i) {
    const json &a = (*in)[i], &b = (*out)[i];
    if (!a.is_number_integer() || !b.is_number_integer()) return;
    if (a.get<long>() <= 0 || b.get<long>() <= 0) continue;
    ins.push_back(a.get<int>());
    outs.push_back(b.get<int>());
  }
  if (ins.empty()) return;
  const bool all_same = std::all_of(ins.begin(), ins.end(), [&](int v) { return v == ins[0]; }) &&
                        std::all_of(outs.begin(), outs.end(), [&](int v) { return v == outs[0]; });
  if (!all_same) {
    run.input_lens = std::move(ins);
    run.output_lens = std::move(outs);
  }
}

// The distributions' percentiles the client wrote: vLLM median_ttft_ms, p99_ttft_ms (and any pNN of
// --metric-percentiles), median_e2el_ms; SGLang median_ttft_ms, p90_ttft_ms, p99_ttft_ms, median_e2e_latency_ms.
// A value that is not a positive number is a bad record; an absent one is not reported.
std::optional<BadField> read_percentiles(const json& r, MeasuredServingRun& run) {
  for (const auto& [metric, suffixes] :
       {std::pair<const char*, std::vector<const char*>>{"ttft", {"_ttft_ms"}},
        std::pair<const char*, std::vector<const char*>>{"tpot", {"_tpot_ms"}},
        std::pair<const char*, std::vector<const char*>>{"e2e", {"_e2el_ms", "_e2e_latency_ms"}}}) {
    for (const auto& [prefix, percentile] : {std::pair{"median", 50}, std::pair{"p50", 50}, std::pair{"p90", 90},
                                             std::pair{"p95", 95}, std::pair{"p99", 99}}) {
      for (const char* suffix : suffixes) {
        const std::string key = std::string(prefix) + suffix;
        auto v = number(r, key.c_str());
        if (auto* bad = std::get_if<BadField>(&v)) return *bad;
        const auto& value = std::get<std::optional<double>>(v);
        if (!value) continue;
        if (!(*value > 0.0) || !std::isfinite(*value)) return BadField{key, shown(r.at(key)), "must be > 0"};
        const bool known = std::any_of(run.percentiles.begin(), run.percentiles.end(),
                                       [&](const auto& p) { return p.metric == metric && p.percentile == percentile; });
        if (!known) run.percentiles.push_back({metric, percentile, *value});
      }
    }
  }
  return std::nullopt;
}

// vLLM's --save-detailed and SGLang's --output-details list each request's TTFT and inter-token gaps in seconds
// (ttfts, itls; a failed request has output length 0). The percentiles the summary keys leave out (vLLM writes the
// median and p99 unless --metric-percentiles asks for more) come from them, as the writers compute theirs
// (np.percentile, linear): TTFT, TPOT = the gaps' sum / (output tokens - 1), end-to-end = TTFT + the gaps' sum.
void percentiles_from_details(const json& r, MeasuredServingRun& run) {
  const auto ttfts = r.find("ttfts"), outs = r.find("output_lens"), itls = r.find("itls");
  if (ttfts == r.end() || outs == r.end() || !ttfts->is_array() || !outs->is_array() || ttfts->size() != outs->size())
    return;
  const bool gaps = itls != r.end() && itls->is_array() && itls->size() == ttfts->size();
  std::map<std::string, std::vector<double>> values;
  for (std::size_t i = 0; i < ttfts->size(); ++i) {
    const json &t = (*ttfts)[i], &n = (*outs)[i];
    if (!t.is_number() || !n.is_number_integer() || n.get<long>() <= 0 || !(t.get<double>() > 0.0)) continue;
    values["ttft"].push_back(1e3 * t.get<double>());
    if (!gaps || !(*itls)[i].is_array()) continue;
    double sum = 0.0;
    for (const json& g : (*itls)[i]) sum += g.is_number() ? g.get<double>() : 0.0;
    values["e2e"].push_back(1e3 * (t.get<double>() + sum));
    if (n.get<long>() > 1) values["tpot"].push_back(1e3 * sum / static_cast<double>(n.get<long>() - 1));
  }
  for (auto& [metric, v] : values) {
    std::sort(v.begin(), v.end());
    for (const int p : {50, 90, 95, 99}) {
      const bool known = std::any_of(run.percentiles.begin(), run.percentiles.end(),
                                     [&](const auto& q) { return q.metric == metric && q.percentile == p; });
      if (!known) run.percentiles.push_back({metric, p, stats::percentile_sorted(v, p)});
    }
  }
}

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
