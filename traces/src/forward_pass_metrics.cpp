// Dynamo's forward-pass metrics as CSV: one measured engine iteration per row (forward_pass_metrics.hpp).
#include "fleetcast/traces/forward_pass_metrics.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "csv_fields.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::traces {
namespace {

struct Layout {
  int prefill_tokens = -1, prefill_requests = -1, prefill_kv = -1;
  int decode_tokens = -1, decode_requests = -1, decode_kv = -1;
  int latency_ms = -1, phase = -1, segment = -1, dp_rank = -1;
};

int column(const std::map<std::string, int>& names, std::initializer_list<const char*> candidates) {
  for (const char* c : candidates) {
    const auto it = names.find(c);
    if (it != names.end()) return it->second;
  }
  return -1;
}

Layout layout_of(const std::vector<std::string>& header, const std::string& file) {
  std::map<std::string, int> names;
  for (std::size_t i = 0; i < header.size(); ++i) names[header[i]] = static_cast<int>(i);
  Layout l;
  l.prefill_tokens = column(names, {"ctx_tokens", "sum_prefill_tokens"});
  l.prefill_requests = column(names, {"ctx_requests", "num_prefill_requests"});
  l.prefill_kv = column(names, {"ctx_kv_tokens", "sum_prefill_kv_tokens"});
  l.decode_tokens = column(names, {"decode_tokens"});
  l.decode_requests = column(names, {"decode_requests", "num_decode_requests"});
  l.decode_kv = column(names, {"decode_kv_tokens", "sum_decode_kv_tokens"});
  l.latency_ms = column(names, {"latency_ms"});
  l.phase = column(names, {"phase"});
  l.segment = column(names, {"workload_segment"});
  l.dp_rank = column(names, {"dp_rank"});
  const std::pair<int, const char*> required[] = {{l.prefill_tokens, "ctx_tokens (or sum_prefill_tokens)"},
                                                  {l.prefill_requests, "ctx_requests (or num_prefill_requests)"},
                                                  {l.prefill_kv, "ctx_kv_tokens (or sum_prefill_kv_tokens)"},
                                                  {l.decode_requests, "decode_requests (or num_decode_requests)"},
                                                  {l.decode_kv, "decode_kv_tokens (or sum_decode_kv_tokens)"},
                                                  {l.latency_ms, "latency_ms"}};
  std::string missing;
  for (const auto& [index, name] : required) {
    if (index < 0) missing += (missing.empty() ? "" : ", ") + std::string(name);
  }
  if (!missing.empty()) {
    throw InputError(file + ":1", missing, "(missing)",
                     "not a forward-pass metrics CSV this reader costs: it needs the prefill and decode token, "
                     "request and KV-cache columns and latency_ms (the phase or detail layout of aiconfigurator's "
                     "FPM collector)");
  }
  return l;
}

long long count_field(const std::vector<std::string>& f, int index, const std::string& where, const char* name) {
  const std::string& text = f[static_cast<std::size_t>(index)];
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < 0 || v > 1'000'000'000'000LL) {
    throw InputError(where, name, text.empty() ? "(empty)" : text, "expected a whole number >= 0");
  }
  return v;
}

}  // namespace

ForwardPassMetrics parse_forward_pass_metrics(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) throw InputError(file, "", "", "empty file: no header line");
  const Layout l = layout_of(detail::split_csv(line), file);
  int max_index = 0;
  for (int i : {l.prefill_tokens, l.prefill_requests, l.prefill_kv, l.decode_tokens, l.decode_requests, l.decode_kv,
                l.latency_ms, l.phase, l.segment, l.dp_rank}) {
    max_index = std::max(max_index, i);
  }
  ForwardPassMetrics out;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> f = detail::split_csv(line);
    const std::string where = file + ":" + std::to_string(number);
    if (static_cast<int>(f.size()) <= max_index) {
      throw InputError(where, "", std::to_string(f.size()) + " fields",
                       "fewer fields than the header names (" + std::to_string(max_index + 1) + " needed)");
    }
    MeasuredStep s;
    s.line = number;
    s.prefill_tokens = static_cast<int>(count_field(f, l.prefill_tokens, where, "prefill tokens"));
    s.prefill_requests = static_cast<int>(count_field(f, l.prefill_requests, where, "prefill requests"));
    s.prefill_kv_tokens = count_field(f, l.prefill_kv, where, "prefill KV tokens");
    s.decode_requests = static_cast<int>(count_field(f, l.decode_requests, where, "decode requests"));
    s.decode_tokens = l.decode_tokens >= 0 ? static_cast<int>(count_field(f, l.decode_tokens, where, "decode tokens"))
                                           : s.decode_requests;
    s.decode_kv_tokens = count_field(f, l.decode_kv, where, "decode KV tokens");
    if ((s.prefill_tokens > 0) != (s.prefill_requests > 0)) {
      throw InputError(where, "prefill tokens / requests",
                       std::to_string(s.prefill_tokens) + " / " + std::to_string(s.prefill_requests),
                       "prompt tokens need a request to belong to, and a prefill request computes at least one");
    }
    if (s.decode_tokens < s.decode_requests || (s.decode_requests == 0 && s.decode_tokens > 0)) {
      throw InputError(where, "decode tokens / requests",
                       std::to_string(s.decode_tokens) + " / " + std::to_string(s.decode_requests),
                       "each decoding request runs at least one token, and tokens need a request");
    }
    const std::string& latency = f[static_cast<std::size_t>(l.latency_ms)];
    char* end = nullptr;
    const double ms = std::strtod(latency.c_str(), &end);
    if (latency.empty() || *end != '\0' || !std::isfinite(ms) || ms <= 0.0) {
      throw InputError(where, "latency_ms", latency.empty() ? "(empty)" : latency, "expected a time > 0");
    }
    s.latency_s = ms / 1e3;
    if (l.segment >= 0) s.segment = f[static_cast<std::size_t>(l.segment)];
    if (l.dp_rank >= 0) s.dp_rank = static_cast<int>(count_field(f, l.dp_rank, where, "dp_rank"));
    if (s.prefill_requests == 0 && s.decode_requests == 0) {
      ++out.empty_steps;
      continue;
    }
    if (l.phase >= 0 && !f[static_cast<std::size_t>(l.phase)].empty()) {
      s.phase = f[static_cast<std::size_t>(l.phase)];
    } else {
      s.phase = s.decode_requests == 0 ? "context" : s.prefill_requests == 0 ? "decode" : "mixed";
    }
    out.steps.push_back(std::move(s));
  }
  if (out.steps.empty()) throw InputError(file, "", "", "no engine iteration with prefill or decode work");
  return out;
}

ForwardPassMetrics read_forward_pass_metrics(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_forward_pass_metrics(ss.str(), path.string());
}

}  // namespace fleetcast::traces
