// JSON -> WorkloadSpec: the arrival process and the input and output length distributions.

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

constexpr double kMaxLoad = 10.0;

ArrivalSpec parse_arrival(JsonReader r) {
  ArrivalSpec a;
  a.kind = r.require_enum("kind", detail::kArrivalKindNames);
  if (a.kind == ArrivalKind::closed_loop) {
    for (const char* key : {"rate_per_s", "load"})
      if (r.has(key)) r.fail(key, "does not apply to closed_loop arrivals: the clients set the rate");
    a.clients = r.require_at_least("clients", 1);
    a.think_time_s = r.optional_at_least("think_time_s", 0.0, 0.0);
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

}  // namespace

WorkloadSpec parse_workload(const nlohmann::json& j, const std::string& file, const std::string& prefix) {
  JsonReader r(j, file, prefix);
  WorkloadSpec w;
  w.name = r.optional<std::string>("name", "");
  w.arrival = parse_arrival(r.object("arrival"));
  w.input_tokens = parse_length(r.object("input_tokens"));
  w.output_tokens = parse_length(r.object("output_tokens"));
  r.finish();
  return w;
}

}  // namespace fleetcast::specs
