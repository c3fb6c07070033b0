// What a benchmark record says beyond its means (bench_parts.hpp).
#include "bench_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fleetcast/stats/summary.hpp"

namespace fleetcast::traces::detail {

using nlohmann::json;

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

}  // namespace fleetcast::traces::detail
