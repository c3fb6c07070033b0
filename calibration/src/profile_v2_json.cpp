#include "profile_v2_json.hpp"

#include <cmath>
#include <set>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::calibration::detail {
namespace {

using nlohmann::json;

std::string shorten(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// One JSON object at `path` in `file`: typed fields, and finish() rejects keys nobody asked for.
class Obj {
 public:
  Obj(const json& j, std::string file, std::string path) : j_(j), file_(std::move(file)), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(file_, path_, shorten(j_), "expected an object");
  }
  std::string where(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const json& at(const std::string& key) {
    asked_.insert(key);
    if (!j_.contains(key)) throw InputError(file_, where(key), "", "missing");
    return j_.at(key);
  }
  std::string text(const std::string& key) {
    const json& v = at(key);
    if (!v.is_string()) throw InputError(file_, where(key), shorten(v), "expected a string");
    return v.get<std::string>();
  }
  // A finite number in [lo, hi] (lo_open: (lo, hi]).
  double number(const std::string& key, double lo, double hi, bool lo_open = false) {
    const json& v = at(key);
    if (!v.is_number()) throw InputError(file_, where(key), shorten(v), "expected a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi || (lo_open && x == lo)) {
      throw InputError(
          file_, where(key), shorten(v),
          "must be in " + std::string(lo_open ? "(" : "[") + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return x;
  }
  int integer(const std::string& key, int lo) {
    const json& v = at(key);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > 1'000'000'000) {
      throw InputError(file_, where(key), shorten(v), "expected an integer >= " + std::to_string(lo));
    }
    return v.get<int>();
  }
  const json& array(const std::string& key) {
    const json& v = at(key);
    if (!v.is_array()) throw InputError(file_, where(key), shorten(v), "expected an array");
    return v;
  }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!asked_.count(key)) {
        std::string valid;
        for (const auto& k : asked_) valid += (valid.empty() ? "" : ", ") + k;
        throw InputError(file_, where(key), shorten(value), "unknown key; valid: " + valid);
      }
    }
  }
  const std::string& file() const { return file_; }

 private:
  const json& j_;
  std::string file_, path_;
  std::set<std::string> asked_;
};

std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

constexpr double kHuge = 1e30;

json to_json(const EfficiencyTrend& t) {
  return {{"a", t.a}, {"b", t.b}, {"min", t.min}, {"max", t.max}, {"points", t.points}};
}

EfficiencyTrend read_trend(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  EfficiencyTrend t;
  t.a = o.number("a", -kHuge, kHuge);
  t.b = o.number("b", -kHuge, kHuge);
  t.min = o.number("min", 0.0, 1.0, true);
  t.max = o.number("max", 0.0, 1.0, true);
  t.points = o.integer("points", 0);
  o.finish();
  if (t.min > t.max) throw InputError(file, path + ".min", std::to_string(t.min), "must not exceed max");
  return t;
}

json to_json(const OpPredictor& p) {
  json pts = json::array();
  for (const auto& pt : p.points) {
    pts.push_back({{"dims", pt.dims}, {"time_s", pt.time_s}, {"flops", pt.flops}, {"bytes", pt.bytes}});
  }
  const auto& r = p.roofline;
  return {{"op", p.op},
          {"dtype", p.dtype},
          {"variant", p.variant},
          {"dims", p.dims},
          {"points", pts},
          {"roofline",
           {{"peak_flops_per_s", r.peaks.flops_per_s},
            {"peak_bytes_per_s", r.peaks.bytes_per_s},
            {"peak_source", r.peaks.source},
            {"compute", to_json(r.compute)},
            {"memory", to_json(r.memory)},
            {"t0_s", r.t0_s}}}};
}

OpPredictor read_predictor(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  OpPredictor p;
  p.op = o.text("op");
  p.dtype = o.text("dtype");
  p.variant = o.text("variant");
  const json& dims = o.array("dims");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_string()) throw InputError(file, item(path + ".dims", i), shorten(dims[i]), "expected a string");
    p.dims.push_back(dims[i].get<std::string>());
  }
  const json& pts = o.array("points");
  if (pts.empty()) throw InputError(file, path + ".points", "[]", "a predictor needs at least one point");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    Obj q(pts[i], file, item(path + ".points", i));
    PredictorPoint pt;
    const json& d = q.array("dims");
    if (d.size() != p.dims.size()) {
      throw InputError(file, q.where("dims"), shorten(d), "needs one value per predictor dim");
    }
    for (const auto& v : d) {
      if (!v.is_number()) throw InputError(file, q.where("dims"), shorten(d), "expected numbers");
      pt.dims.push_back(v.get<double>());
    }
    pt.time_s = q.number("time_s", 0.0, kHuge, true);
    pt.flops = q.number("flops", 0.0, kHuge);
    pt.bytes = q.number("bytes", 0.0, kHuge);
    q.finish();
    p.points.push_back(std::move(pt));
  }
  Obj r(o.at("roofline"), file, path + ".roofline");
  p.roofline.peaks.flops_per_s = r.number("peak_flops_per_s", 0.0, kHuge, true);
  p.roofline.peaks.bytes_per_s = r.number("peak_bytes_per_s", 0.0, kHuge, true);
  p.roofline.peaks.source = r.text("peak_source");
  p.roofline.compute = read_trend(r.at("compute"), file, path + ".roofline.compute");
  p.roofline.memory = read_trend(r.at("memory"), file, path + ".roofline.memory");
  p.roofline.t0_s = r.number("t0_s", 0.0, 1e3);
  r.finish();
  o.finish();
  return p;
}

json to_json(const CollectiveModel& c) {
  json bands = json::array();
  for (const auto& b : c.bands) {
    bands.push_back(
        {{"min_bytes", b.min_bytes}, {"latency_factor", b.latency_factor}, {"bandwidth_factor", b.bandwidth_factor}});
  }
  return {{"op", c.op},
          {"gpus", c.gpus},
          {"transport", c.transport},
          {"latency_s", c.latency_s},
          {"bytes_per_s", c.bytes_per_s},
          {"bus_bytes_per_s", c.bus_bytes_per_s},
          {"bands", bands},
          {"points", c.points},
          {"source", c.source}};
}

CollectiveModel read_collective(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  CollectiveModel c;
  c.op = o.text("op");
  if (c.op != "all_reduce" && c.op != "all_gather" && c.op != "reduce_scatter" && c.op != "all_to_all" &&
      c.op != "send_recv") {
    throw InputError(file, o.where("op"), c.op, "valid: all_reduce, all_gather, reduce_scatter, all_to_all, send_recv");
  }
  c.gpus = o.integer("gpus", 2);
  c.transport = o.text("transport");
  if (c.transport != "nvlink" && c.transport != "nic") {
    throw InputError(file, o.where("transport"), c.transport, "valid: nvlink, nic");
  }
  c.latency_s = o.number("latency_s", 0.0, 1.0);
  c.bytes_per_s = o.number("bytes_per_s", 0.0, kHuge, true);
  c.bus_bytes_per_s = o.number("bus_bytes_per_s", 0.0, kHuge, true);
  const json& bands = o.array("bands");
  for (std::size_t i = 0; i < bands.size(); ++i) {
    Obj b(bands[i], file, item(path + ".bands", i));
    CollectiveModel::Band band;
    band.min_bytes = b.number("min_bytes", 0.0, kHuge);
    band.latency_factor = b.number("latency_factor", 0.0, 1e6);
    band.bandwidth_factor = b.number("bandwidth_factor", 0.0, 1e6, true);
    b.finish();
    c.bands.push_back(band);
  }
  c.points = o.integer("points", 0);
  c.source = o.text("source");
  o.finish();
  return c;
}

json to_json(const NetworkFactors& f) {
  json bands = json::array();
  for (const auto& b : f.bands) {
    bands.push_back(
        {{"min_bytes", b.min_bytes}, {"latency_factor", b.latency_factor}, {"bandwidth_factor", b.bandwidth_factor}});
  }
  return {{"transport", f.transport},
          {"route_latency_s", f.route_latency_s},
          {"route_bytes_per_s", f.route_bytes_per_s},
          {"bands", bands},
          {"points", f.points},
          {"range_bytes", {f.min_bytes, f.max_bytes}},
          {"median_ape", f.median_ape},
          {"max_ape", f.max_ape},
          {"source", f.source}};
}

NetworkFactors read_network_factors(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  NetworkFactors f;
  f.transport = o.text("transport");
  if (f.transport != "nvlink" && f.transport != "nic") {
    throw InputError(file, o.where("transport"), f.transport, "valid: nvlink, nic");
  }
  f.route_latency_s = o.number("route_latency_s", 0.0, 1.0, true);
  f.route_bytes_per_s = o.number("route_bytes_per_s", 0.0, kHuge, true);
  const json& bands = o.array("bands");
  if (bands.empty()) throw InputError(file, o.where("bands"), "[]", "needs at least one band");
  for (std::size_t i = 0; i < bands.size(); ++i) {
    Obj b(bands[i], file, item(path + ".bands", i));
    NetworkFactorBand band;
    band.min_bytes = b.number("min_bytes", 0.0, kHuge);
    band.latency_factor = b.number("latency_factor", 0.0, 1e6);
    band.bandwidth_factor = b.number("bandwidth_factor", 0.0, 1e6, true);
    b.finish();
    const std::string at = item(path + ".bands", i) + ".min_bytes";
    if (i == 0 && band.min_bytes != 0.0)
      throw InputError(file, at, std::to_string(band.min_bytes), "the first band starts at 0");
    if (i > 0 && band.min_bytes <= f.bands.back().min_bytes) {
      throw InputError(file, at, std::to_string(band.min_bytes), "bands must be in ascending min_bytes");
    }
    f.bands.push_back(band);
  }
  f.points = o.integer("points", 0);
  const json& range = o.at("range_bytes");
  if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number() || range[0] > range[1]) {
    throw InputError(file, o.where("range_bytes"), shorten(range), "expected [min, max]");
  }
  f.min_bytes = range[0].get<double>();
  f.max_bytes = range[1].get<double>();
  f.median_ape = o.number("median_ape", 0.0, kHuge);
  f.max_ape = o.number("max_ape", 0.0, kHuge);
  f.source = o.text("source");
  o.finish();
  return f;
}

json to_json(const OpQuality& q) {
  json range = json::object();
  for (const auto& [dim, r] : q.range) range[dim] = {r.first, r.second};
  return {{"op", q.op},
          {"dtype", q.dtype},
          {"points", q.points},
          {"loo_median_ape", q.loo_median_ape},
          {"loo_max_ape", q.loo_max_ape},
          {"held_out_median_ape", q.held_out_median_ape},
          {"held_out_max_ape", q.held_out_max_ape},
          {"held_out_points", q.held_out_points},
          {"range", range}};
}

OpQuality read_quality(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  OpQuality q;
  q.op = o.text("op");
  q.dtype = o.text("dtype");
  q.points = o.integer("points", 0);
  q.loo_median_ape = o.number("loo_median_ape", 0.0, kHuge);
  q.loo_max_ape = o.number("loo_max_ape", 0.0, kHuge);
  q.held_out_median_ape = o.number("held_out_median_ape", 0.0, kHuge);
  q.held_out_max_ape = o.number("held_out_max_ape", 0.0, kHuge);
  q.held_out_points = o.integer("held_out_points", 0);
  const json& range = o.at("range");
  if (!range.is_object()) throw InputError(file, o.where("range"), shorten(range), "expected dim -> [min, max]");
  for (const auto& [dim, r] : range.items()) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() || r[0] > r[1]) {
      throw InputError(file, o.where("range." + dim), shorten(r), "expected [min, max]");
    }
    q.range[dim] = {r[0].get<double>(), r[1].get<double>()};
  }
  o.finish();
  return q;
}

json to_json(const TraceSource& t) {
  return {{"file", t.file}, {"sha256", t.sha256}, {"device", t.device}, {"measurements", t.measurements}};
}

TraceSource read_trace_source(const json& j, const std::string& file, const std::string& path) {
  Obj o(j, file, path);
  TraceSource t;
  t.file = o.text("file");
  t.sha256 = o.text("sha256");
  if (t.sha256.size() != 64 || t.sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    throw InputError(file, o.where("sha256"), t.sha256, "expected 64 lowercase hex digits");
  }
  t.device = o.text("device");
  t.measurements = o.integer("measurements", 0);
  o.finish();
  return t;
}

template <typename T, typename Read>
void read_list(const json& j, const std::string& key, const std::string& file, std::vector<T>& out, Read read) {
  if (!j.contains(key)) return;
  const json& a = j.at(key);
  if (!a.is_array()) throw InputError(file, key, shorten(a), "expected an array");
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read(a[i], file, item(key, i)));
}

template <typename T>
void write_list(const std::vector<T>& v, const std::string& key, json& j) {
  if (v.empty()) return;
  json a = json::array();
  for (const auto& x : v) a.push_back(to_json(x));
  j[key] = a;
}

}  // namespace

void write_v2(const Profile& p, json& j) {
  write_list(p.predictors, "predictors", j);
  write_list(p.collectives, "collectives", j);
  write_list(p.quality, "quality", j);
  write_list(p.traces, "traces", j);
  write_list(p.network_factors, "network_factors", j);
}

void read_v2(const json& j, const std::string& file, Profile& p) {
  read_list(j, "predictors", file, p.predictors, read_predictor);
  read_list(j, "collectives", file, p.collectives, read_collective);
  read_list(j, "quality", file, p.quality, read_quality);
  read_list(j, "traces", file, p.traces, read_trace_source);
  read_list(j, "network_factors", file, p.network_factors, read_network_factors);
  if (p.kind == "fitted" && !p.predictors.empty() && p.traces.empty()) {
    throw InputError(file, "traces", "", "a fitted profile names the traces (with SHA-256) it was fitted to");
  }
}

}  // namespace fleetcast::calibration::detail
