// JSON -> WorkloadSpec: one class (top-level arrival and lengths) or a mix of named classes, each with its
// arrival process, input and output length distributions, optional SLOs and optional shared prompt prefix.

#include <filesystem>
#include <set>

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

constexpr double kMaxLoad = 10.0;

// A trace file named relative to the spec that names it (as model and deployment files are).
TraceReplaySpec parse_trace(JsonReader& r) {
  TraceReplaySpec t;
  t.file = r.require<std::string>("file");
  r.check(!t.file.empty(), "file", "must name a request trace file");
  const std::filesystem::path written(t.file);
  const std::filesystem::path folder = std::filesystem::path(r.file()).parent_path();
  t.path = written.is_absolute() || folder.empty() ? t.file : (folder / written).string();
  t.format = r.optional<std::string>("format", "");
  r.check(t.format.empty() || t.format == "azure" || t.format == "mooncake" || t.format == "burstgpt", "format",
          "valid: azure, mooncake, burstgpt (or leave it out to detect it; a generic CSV goes through "
          "`fleetcast workload fit --format csv --columns ...`)");
  t.rate_scale = r.optional_positive("rate_scale", 1.0);
  t.window_start_s = r.optional_at_least("window_start_s", 0.0, 0.0);
  t.window_end_s = r.optional_at_least("window_end_s", 0.0, 0.0);
  r.check(t.window_end_s == 0.0 || t.window_end_s > t.window_start_s, "window_end_s",
          "must be > window_start_s (" + std::to_string(t.window_start_s) + "), or 0 for the trace's end");
  t.loops = r.optional_at_least("loops", 1, 1);
  return t;
}

RateProfileSpec parse_rate_profile(JsonReader r) {
  RateProfileSpec p;
  p.period_s = r.require_positive("period_s");
  p.multipliers = r.number_array("multipliers", 0.0, 1e6);
  double sum = 0.0;
  for (double m : p.multipliers) sum += m;
  r.check(sum > 0.0, "multipliers", "at least one bin needs a rate above 0");
  p.start_s = r.optional_at_least("start_s", 0.0, 0.0);
  r.check(p.start_s < p.period_s, "start_s", "must be in [0, period_s)");
  r.finish();
  return p;
}

ArrivalSpec parse_arrival(JsonReader r) {
  ArrivalSpec a;
  a.kind = r.require_enum("kind", detail::kArrivalKindNames);
  if (a.kind == ArrivalKind::trace) {
    for (const char* key : {"rate_per_s", "load", "cv", "clients", "think_time_s", "start"})
      if (r.has(key))
        r.fail(key, "does not apply to trace arrivals: the trace sets the times (rate_scale scales them)");
    a.trace = parse_trace(r);
    r.finish();
    return a;
  }
  if (a.kind == ArrivalKind::closed_loop) {
    for (const char* key : {"rate_per_s", "load"})
      if (r.has(key)) r.fail(key, "does not apply to closed_loop arrivals: the clients set the rate");
    a.clients = r.require_at_least("clients", 1);
    a.think_time_s = r.optional_at_least("think_time_s", 0.0, 0.0);
    a.start = r.optional_enum("start", ArrivalStart::together, detail::kArrivalStartNames);
    r.finish();
    return a;
  }
  const bool has_rate = r.has("rate_per_s");
  const bool has_load = r.has("load");
  if (has_rate && has_load) r.fail("load", "give either rate_per_s or load, not both");
  if (!has_rate && !has_load)
    throw InputError(r.file(), r.path("rate_per_s"), "",
                     "missing: give rate_per_s (requests per second) or load (share of capacity, (0, 10])");
  if (has_rate) a.rate_per_s = r.require_positive("rate_per_s");
  if (has_load) {
    a.load = r.require_positive("load");
    r.check(a.load <= kMaxLoad, "load", "must be in (0, 10]");
  }
  if (a.kind == ArrivalKind::gamma) a.cv = r.require_positive("cv");
  if (r.has("start")) r.fail("start", "applies only to closed_loop arrivals (open-loop arrivals have no clients)");
  if (r.has("rate_profile")) a.rate_profile = parse_rate_profile(r.object("rate_profile"));
  r.finish();
  return a;
}

LengthDistribution parse_length(JsonReader r) {
  LengthDistribution l;
  l.kind = r.require_enum("kind", detail::kLengthKindNames);
  switch (l.kind) {
    case LengthKind::fixed:
      l.value = r.require_at_least("value", 1);
      break;
    case LengthKind::uniform:
      l.min = r.require_at_least("min", 1);
      l.max = r.require_at_least("max", 1);
      r.check(l.min <= l.max, "min", "must be <= max (" + std::to_string(l.max) + ")");
      break;
    case LengthKind::lognormal:
      l.median = r.require_positive("median");
      l.sigma = r.require_at_least("sigma", 0.0);
      l.min = r.optional_at_least("min", 1, 1);
      l.max = r.optional_at_least("max", 0, 0);
      r.check(l.max == 0 || l.min <= l.max, "min", "must be <= max (" + std::to_string(l.max) + ")");
      break;
    case LengthKind::empirical:
      l.values = r.int_array("values", 1);
      break;
  }
  r.finish();
  return l;
}

// Each objective is optional; a given one is > 0 (a zero would be an SLO no request can meet).
SloSpec parse_slo(JsonReader r) {
  SloSpec slo;
  if (r.has("ttft_ms")) slo.ttft_ms = r.require_positive("ttft_ms");
  if (r.has("tpot_ms")) slo.tpot_ms = r.require_positive("tpot_ms");
  r.finish();
  return slo;
}

// A prefix shorter than one block is never cached (a cache hits whole blocks), so it must span one at least.
PrefixSpec parse_prefix(JsonReader r, int block_tokens) {
  PrefixSpec p;
  p.groups = r.require_at_least("groups", 1);
  p.tokens = r.require_at_least("tokens", 1);
  r.check(p.tokens >= block_tokens, "tokens",
          "must be >= prefix_block_tokens (" + std::to_string(block_tokens) +
              "): a cache hits whole blocks, so a shorter prefix is never shared");
  p.popularity = r.optional_enum("popularity", PrefixPopularity::uniform, detail::kPrefixPopularityNames);
  if (p.popularity == PrefixPopularity::zipf) {
    p.zipf_s = r.optional_positive("zipf_s", p.zipf_s);
  } else if (r.has("zipf_s")) {
    r.fail("zipf_s", "applies only to popularity \"zipf\"");
  }
  r.finish();
  return p;
}

// The keys a class shares with the single-class form; `r` is the class object or the workload itself.
void parse_class_body(JsonReader& r, RequestClass& c, int prefix_block_tokens) {
  c.arrival = parse_arrival(r.object("arrival"));
  if (c.arrival.kind == ArrivalKind::trace) {
    // The trace gives every request's lengths; the simulator fills these from it before planning.
    for (const char* key : {"input_tokens", "output_tokens", "prefix"})
      if (r.has(key)) r.fail(key, "does not apply to a trace class: the trace gives the lengths and prefixes");
  } else {
    c.input_tokens = parse_length(r.object("input_tokens"));
    c.output_tokens = parse_length(r.object("output_tokens"));
  }
  if (auto slo = r.optional_object("slo")) c.slo = parse_slo(std::move(*slo));
  if (auto prefix = r.optional_object("prefix")) c.prefix = parse_prefix(std::move(*prefix), prefix_block_tokens);
}

constexpr const char* kSingleClassKeys[] = {"arrival", "input_tokens", "output_tokens", "slo", "prefix"};

std::vector<RequestClass> parse_classes(JsonReader& r, int prefix_block_tokens) {
  for (const char* key : kSingleClassKeys) {
    if (r.has(key))
      r.fail(key,
             "give either classes or the single-class keys (arrival, input_tokens, output_tokens, "
             "slo, prefix), not both: put them inside each class");
  }
  std::vector<RequestClass> classes;
  std::set<std::string> names;
  for (JsonReader c : r.object_array("classes")) {
    RequestClass rc;
    rc.name = c.require<std::string>("name");
    c.check(!rc.name.empty(), "name", "must not be empty");
    c.check(names.insert(rc.name).second, "name", "duplicate class name; class names must be unique");
    parse_class_body(c, rc, prefix_block_tokens);
    c.finish();
    classes.push_back(std::move(rc));
  }
  return classes;
}

}  // namespace

WorkloadSpec parse_workload(const nlohmann::json& j, const std::string& file, const std::string& prefix) {
  JsonReader r(j, file, prefix);
  WorkloadSpec w;
  w.name = r.optional<std::string>("name", "");
  w.prefix_block_tokens = r.optional_at_least("prefix_block_tokens", kDefaultPrefixBlockTokens, 1);
  if (r.has("classes")) {
    w.classes = parse_classes(r, w.prefix_block_tokens);
  } else {
    if (!r.has("arrival"))
      throw InputError(file, r.path("arrival"), "",
                       "missing: give arrival, input_tokens and output_tokens, or classes (a list of them)");
    RequestClass c;
    c.name = single_class_name(w.name);
    parse_class_body(r, c, w.prefix_block_tokens);
    w.classes.push_back(std::move(c));
  }
  r.finish();
  return w;
}

}  // namespace fleetcast::specs
