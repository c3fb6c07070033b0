#include "fleetcast/traces/benchmark_record.hpp"

#include <cmath>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::traces {
namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

template <typename T>
void read(const nlohmann::json& j, const char* key, T& out, const std::string& file) {
  if (!j.contains(key)) throw InputError(file, key, "", "missing in benchmark record");
  const auto& v = j.at(key);
  if constexpr (std::is_same_v<T, double>) {
    if (v.is_null()) {
      out = NAN;
      return;
    }
    if (!v.is_number()) throw InputError(file, key, v.dump(), "expected a number");
  } else if constexpr (std::is_same_v<T, int>) {
    if (!v.is_number_integer()) throw InputError(file, key, v.dump(), "expected an integer");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw InputError(file, key, v.dump(), "expected true or false");
  } else {
    if (!v.is_string()) throw InputError(file, key, v.dump(), "expected a string");
  }
  out = v.get<T>();
}

}  // namespace

#define FLEETCAST_RECORD_FIELDS(X)                                                                              \
  X(source) X(checkpoint) X(runtime) X(gpu) X(gpu_count) X(interconnect) X(precision) X(tp) X(pp) X(ep) X(dp) \
  X(input_lengths) X(output_lengths) X(arrival) X(concurrency) X(warm) X(duration_s) X(success_rate)            \
  X(total_tokens_per_s) X(output_tokens_per_s) X(output_tokens_per_s_per_gpu) X(tokens_per_s_per_user)          \
  X(ttft_mean_ms) X(ttft_p50_ms) X(ttft_p95_ms) X(tpot_mean_ms) X(e2e_p50_ms) X(e2e_p95_ms)

nlohmann::json to_json(const BenchmarkRecord& r) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&j](const char* key, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>) {
      j[key] = number(value);
    } else {
      j[key] = value;
    }
  };
#define X(field) put(#field, r.field);
  FLEETCAST_RECORD_FIELDS(X)
#undef X
  return j;
}

BenchmarkRecord benchmark_record_from_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "", j.dump().substr(0, 40), "a benchmark record is a JSON object");
  BenchmarkRecord r;
#define X(field) read(j, #field, r.field, file);
  FLEETCAST_RECORD_FIELDS(X)
#undef X
  return r;
}

}  // namespace fleetcast::traces
