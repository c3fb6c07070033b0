// The held-out error table of the shipped profiles (measured_accuracy.hpp).
#include "fleetcast/calibration/measured_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "embedded_profiles.hpp"
#include "fleetcast/calibration/sha256.hpp"
#include "fleetcast/specs/error.hpp"
#include "json_member.hpp"

namespace fleetcast::calibration {
namespace {

constexpr const char* kShippedName = "accuracy/held-out";

using detail::member;

}  // namespace

ErrorFigures parse_error_figures(const nlohmann::json& j, const std::string& file, const std::string& where) {
  ErrorFigures e;
  e.median_ape = member(j, "median_ape", file, where, &nlohmann::json::is_number).get<double>();
  e.p90_ape = member(j, "p90_ape", file, where, &nlohmann::json::is_number).get<double>();
  e.median_ratio = member(j, "median_ratio", file, where, &nlohmann::json::is_number).get<double>();
  if (!(e.median_ape >= 0.0) || !std::isfinite(e.median_ape))
    throw InputError(file, where + "median_ape", std::to_string(e.median_ape), "an error is a finite share >= 0");
  if (!(e.p90_ape >= 0.0) || !std::isfinite(e.p90_ape))
    throw InputError(file, where + "p90_ape", std::to_string(e.p90_ape), "an error is a finite share >= 0");
  if (!(e.median_ratio > 0.0) || !std::isfinite(e.median_ratio))
    throw InputError(file, where + "median_ratio", std::to_string(e.median_ratio), "a ratio > 0");
  return e;
}

nlohmann::json to_json(const ErrorFigures& e) {
  return {{"median_ape", e.median_ape}, {"p90_ape", e.p90_ape}, {"median_ratio", e.median_ratio}};
}

ErrorSpread spread_of(const std::vector<const ErrorFigures*>& each) {
  const auto median_of = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  std::vector<double> ape, ratio;
  for (const ErrorFigures* e : each) {
    ape.push_back(e->median_ape);
    ratio.push_back(e->median_ratio);
  }
  return {median_of(ape), *std::min_element(ape.begin(), ape.end()), *std::max_element(ape.begin(), ape.end()),
          median_of(ratio)};
}

nlohmann::json to_json(const ErrorSpread& s) {
  return {{"median_ape", s.median_ape},
          {"lowest_ape", s.lowest_ape},
          {"highest_ape", s.highest_ape},
          {"median_ratio", s.median_ratio}};
}

ErrorSpread parse_error_spread(const nlohmann::json& j, const std::string& file, const std::string& at) {
  ErrorSpread s;
  s.median_ape = member(j, "median_ape", file, at, &nlohmann::json::is_number).get<double>();
  s.lowest_ape = member(j, "lowest_ape", file, at, &nlohmann::json::is_number).get<double>();
  s.highest_ape = member(j, "highest_ape", file, at, &nlohmann::json::is_number).get<double>();
  s.median_ratio = member(j, "median_ratio", file, at, &nlohmann::json::is_number).get<double>();
  if (!(s.lowest_ape >= 0.0 && s.lowest_ape <= s.median_ape && s.median_ape <= s.highest_ape))
    throw InputError(file, at + "median_ape", std::to_string(s.median_ape),
                     "expected 0 <= lowest_ape <= median_ape <= highest_ape");
  if (!(s.median_ratio > 0.0))
    throw InputError(file, at + "median_ratio", std::to_string(s.median_ratio), "a ratio > 0");
  return s;
}

std::string describe(const ErrorSpread& ttft, const ErrorSpread& tpot, const std::string& by) {
  // One measurement (or several that agree) has no spread to give: "103% (predicted/measured 2.03x)", not "103-103%".
  const bool one = ttft.lowest_ape == ttft.highest_ape && tpot.lowest_ape == tpot.highest_ape;
  char buf[256];
  if (one) {
    std::snprintf(buf, sizeof buf, "TTFT off by %.0f%% (predicted/measured %.2fx), TPOT %.0f%% (%.2fx)",
                  100.0 * ttft.median_ape, ttft.median_ratio, 100.0 * tpot.median_ape, tpot.median_ratio);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "TTFT off by a median %.0f%% (%.0f-%.0f%% by %s, predicted/measured %.2fx), TPOT %.0f%% (%.0f-%.0f%%, "
                "%.2fx)",
                100.0 * ttft.median_ape, 100.0 * ttft.lowest_ape, 100.0 * ttft.highest_ape, by.c_str(),
                ttft.median_ratio, 100.0 * tpot.median_ape, 100.0 * tpot.lowest_ape, 100.0 * tpot.highest_ape,
                tpot.median_ratio);
  return buf;
}

std::string profile_fingerprint(const Profile& p) { return sha256_hex(to_json(p).dump()).substr(0, 16); }

nlohmann::json to_json(const PairAccuracy& a) {
  nlohmann::json j = {{"hardware", a.hardware},
                      {"runtime", a.runtime},
                      {"profile_kind", a.profile_kind},
                      {"profile_fingerprint", a.profile_fingerprint},
                      {"rows", a.rows},
                      {"models", a.models},
                      {"ttft", to_json(a.ttft)},
                      {"tpot", to_json(a.tpot)}};
  if (!a.architecture.empty()) j["architecture"] = a.architecture;
  return j;
}

PairAccuracy parse_pair_accuracy(const nlohmann::json& e, const std::string& file, const std::string& at) {
  PairAccuracy a;
  a.hardware = member(e, "hardware", file, at, &nlohmann::json::is_string).get<std::string>();
  a.runtime = member(e, "runtime", file, at, &nlohmann::json::is_string).get<std::string>();
  a.profile_kind = member(e, "profile_kind", file, at, &nlohmann::json::is_string).get<std::string>();
  a.profile_fingerprint = member(e, "profile_fingerprint", file, at, &nlohmann::json::is_string).get<std::string>();
  a.rows = member(e, "rows", file, at, &nlohmann::json::is_number_integer).get<int>();
  if (a.rows < 1) throw InputError(file, at + "rows", std::to_string(a.rows), "at least one row");
  for (const auto& m : member(e, "models", file, at, &nlohmann::json::is_array)) {
    if (!m.is_string()) throw InputError(file, at + "models", m.dump(), "model names are strings");
    a.models.push_back(m.get<std::string>());
  }
  a.ttft = parse_error_figures(member(e, "ttft", file, at, &nlohmann::json::is_object), file, at + "ttft.");
  a.tpot = parse_error_figures(member(e, "tpot", file, at, &nlohmann::json::is_object), file, at + "tpot.");
  a.architecture = parse_architecture(e, file, at);
  return a;
}

std::vector<PairAccuracy> parse_accuracy_table(const nlohmann::json& j, const std::string& file, const char* schema) {
  if (!j.is_object() || j.value("schema", "") != schema)
    throw InputError(file, "schema", j.is_object() && j.contains("schema") ? j["schema"].dump() : "",
                     std::string("not an accuracy table of this kind (") + schema + ")");
  std::vector<PairAccuracy> out;
  const nlohmann::json& pairs = member(j, "pairs", file, "", &nlohmann::json::is_array);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "pairs[" + std::to_string(i) + "].";
    out.push_back(parse_pair_accuracy(pairs[i], file, at));
    if (out.back().architecture.empty())
      throw InputError(file, at + "architecture", "", "each entry of a table is for \"dense\" or \"moe\" models");
  }
  return out;
}

nlohmann::json merge_accuracy_table(std::vector<PairAccuracy> all, const std::vector<PairAccuracy>& fresh,
                                    const std::string& how, const char* schema) {
  auto key = [](const PairAccuracy& a) {
    return std::tie(a.hardware, a.runtime, a.architecture, a.profile_kind, a.profile_fingerprint);
  };
  // A GPU has one pick without its fit at a time: a fresh entry replaces its (hardware, runtime, architecture)'s,
  // stale or not.
  const bool one_per_pair = std::string(schema) == kUnfittedGpuAccuracySchema;
  const auto same = [&](const PairAccuracy& a, const PairAccuracy& f) {
    return one_per_pair ? a.hardware == f.hardware && a.runtime == f.runtime && a.architecture == f.architecture
                        : key(a) == key(f);
  };
  for (const PairAccuracy& f : fresh) {
    all.erase(std::remove_if(all.begin(), all.end(), [&](const PairAccuracy& a) { return same(a, f); }), all.end());
    all.push_back(f);
  }
  std::sort(all.begin(), all.end(), [&](const PairAccuracy& a, const PairAccuracy& b) { return key(a) < key(b); });
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairAccuracy& a : all) pairs.push_back(to_json(a));
  return {{"schema", schema}, {"how", how}, {"pairs", pairs}};
}

std::vector<PairAccuracy> compiled_in_accuracy_table(const std::string& name, const char* schema) {
  const char* json = detail::embedded_json(name);
  return json ? parse_accuracy_table(nlohmann::json::parse(json), "calibration/profiles/" + name + ".json", schema)
              : std::vector<PairAccuracy>{};
}

const std::vector<PairAccuracy>& shipped_accuracy() {
  // Parsed once: every report asks.
  static const std::vector<PairAccuracy> table = compiled_in_accuracy_table(kShippedName, kHeldOutAccuracySchema);
  return table;
}

std::string architecture_of(const specs::ModelSpec& model) { return model.moe ? "moe" : "dense"; }

bool is_architecture(const std::string& name) { return name == "dense" || name == "moe"; }

std::string parse_architecture(const nlohmann::json& j, const std::string& file, const std::string& at) {
  if (!j.contains("architecture")) return "";
  const std::string a = member(j, "architecture", file, at, &nlohmann::json::is_string).get<std::string>();
  if (!is_architecture(a))
    throw InputError(file, at + "architecture", nlohmann::json(a).dump(), "\"dense\" or \"moe\"");
  return a;
}

std::optional<PairAccuracy> measured_accuracy_for(const Profile& in_use, const std::string& runtime,
                                                  const std::string& architecture) {
  const std::string fingerprint = profile_fingerprint(in_use);
  for (const PairAccuracy& a : shipped_accuracy()) {
    if (a.hardware == in_use.hardware && a.runtime == runtime && a.architecture == architecture &&
        a.profile_fingerprint == fingerprint)
      return a;
  }
  return std::nullopt;
}

nlohmann::json measured_error_json(const Profile& in_use, const std::string& runtime, const specs::ModelSpec& model) {
  const auto a = measured_accuracy_for(in_use, runtime, architecture_of(model));
  return a ? to_json(*a) : nlohmann::json(nullptr);
}

std::string describe(const PairAccuracy& a) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "TTFT off by a median %.0f%% (p90 %.0f%%, predicted/measured %.2fx), TPOT %.0f%% (p90 %.0f%%, %.2fx) "
                "on %d held-out measured runs",
                100.0 * a.ttft.median_ape, 100.0 * a.ttft.p90_ape, a.ttft.median_ratio, 100.0 * a.tpot.median_ape,
                100.0 * a.tpot.p90_ape, a.tpot.median_ratio, a.rows);
  std::string models;
  for (const std::string& m : a.models) models += (models.empty() ? "" : ", ") + m;
  if (models.empty()) return buf;
  const std::string kind = a.architecture == "moe" ? "MoE models" : a.architecture == "dense" ? "dense models" : "";
  return std::string(buf) + " of " + (kind.empty() ? models : kind + " (" + models + ")");
}

}  // namespace fleetcast::calibration
