// Plan JSON -> Plan, strictly, and the expansion of its sweeps into cases.

#include "fleetcast/engine/plan.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"

namespace fleetcast::engine {
namespace {

using nlohmann::json;

std::string shorten(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// "fp32, bf16, fp8": the precisions a model_step entry may ask for, for messages.
std::string valid_step_precisions() {
  std::string valid;
  for (const char* p : kStepPrecisions) valid += (valid.empty() ? "" : ", ") + std::string(p);
  return valid;
}

std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

// Reads one object's keys; finish() rejects the keys no one asked for, listing the valid ones.
class ObjectReader {
 public:
  ObjectReader(const json& j, const std::string& file, std::string prefix) : j_(j), file_(file), prefix_(prefix) {
    if (!j.is_object()) throw InputError(file, prefix, shorten(j), "expected a JSON object");
  }
  const json* get(const std::string& key) {
    asked_.push_back(key);
    return j_.contains(key) ? &j_.at(key) : nullptr;
  }
  std::string path(const std::string& key) const { return join(prefix_, key); }
  [[noreturn]] void fail(const std::string& key, const json& v, const std::string& problem) const {
    throw InputError(file_, path(key), shorten(v), problem);
  }
  std::string text(const std::string& key, const std::string* fallback) {
    const json* v = get(key);
    if (v == nullptr) {
      if (fallback == nullptr) throw InputError(file_, path(key), "", "missing");
      return *fallback;
    }
    if (!v->is_string()) fail(key, *v, "expected a string");
    return v->get<std::string>();
  }
  int integer(const std::string& key, int fallback, int min_value, int max_value) {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_number_integer()) fail(key, *v, "expected an integer");
    const auto x = v->get<std::int64_t>();
    if (x < min_value || x > max_value)
      fail(key, *v, "must be between " + std::to_string(min_value) + " and " + std::to_string(max_value));
    return static_cast<int>(x);
  }
  double number(const std::string& key, double fallback, double min_value, double max_value) {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) fail(key, *v, "expected a number");
    const double x = v->get<double>();
    if (!(x >= min_value && x <= max_value))
      fail(key, *v, "must be between " + json(min_value).dump() + " and " + json(max_value).dump());
    return x;
  }
  bool boolean(const std::string& key, bool fallback) {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(key, *v, "expected true or false");
    return v->get<bool>();
  }
  std::vector<std::string> strings(const std::string& key, bool required) {
    const json* v = get(key);
    if (v == nullptr) {
      if (required) throw InputError(file_, path(key), "", "missing");
      return {};
    }
    if (!v->is_array() || v->empty()) fail(key, *v, "expected a non-empty list of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string())
        throw InputError(file_, path(key) + "[" + std::to_string(i) + "]", shorten((*v)[i]), "expected a string");
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) {
        std::string valid;
        for (const auto& k : asked_) valid += (valid.empty() ? "" : ", ") + k;
        throw InputError(file_, path(key), shorten(value), "unknown key; valid: " + valid);
      }
    }
  }

 private:
  const json& j_;
  const std::string& file_;
  std::string prefix_;
  std::vector<std::string> asked_;
};

PlanEntry parse_entry(const json& j, const std::string& file, const std::string& field, const Plan& plan) {
  ObjectReader r(j, file, field);
  PlanEntry e;
  e.field = field;
  e.op = r.text("op", nullptr);
  const OpInfo* op = find_op(e.op);
  if (op == nullptr) r.fail("op", j.at("op"), "unknown op; valid: " + valid_op_names());
  e.dtypes = r.strings("dtypes", op->dtypes.size() > 1);
  if (e.dtypes.empty()) e.dtypes = op->dtypes;
  for (std::size_t i = 0; i < e.dtypes.size(); ++i) {
    if (std::find(op->dtypes.begin(), op->dtypes.end(), e.dtypes[i]) == op->dtypes.end()) {
      std::string valid;
      for (const auto& d : op->dtypes) valid += (valid.empty() ? "" : ", ") + d;
      throw InputError(file, r.path("dtypes") + "[" + std::to_string(i) + "]", e.dtypes[i],
                       "not a precision of " + e.op + "; valid: " + valid);
    }
  }
  e.models = r.strings("models", false);
  const std::string fp32 = "fp32";
  e.precision = r.text("precision", &fp32);
  if (j.contains("precision")) {
    if (e.op != "model_step")
      r.fail("precision", j.at("precision"), "only applies to model_step (other ops: \"dtypes\")");
    if (std::find(std::begin(kStepPrecisions), std::end(kStepPrecisions), e.precision) == std::end(kStepPrecisions))
      r.fail("precision", j.at("precision"), "not a precision of model_step; valid: " + valid_step_precisions());
  }
  e.tp = r.integer("tp", 1, 1, 64);
  if (e.tp != 1 && e.models.empty()) r.fail("tp", j.at("tp"), "only applies with \"models\"");
  e.warmup = r.integer("warmup", plan.warmup, 0, 10000);
  e.repetitions = r.integer("repetitions", plan.repetitions, 1, 100000);
  const json* sweep = r.get("sweep");
  if (sweep != nullptr) {
    if (!sweep->is_object()) r.fail("sweep", *sweep, "expected an object of lists of integers");
    for (const auto& [key, values] : sweep->items()) {
      const std::string path = r.path("sweep") + "." + key;
      if (std::find(op->fields.begin(), op->fields.end(), key) == op->fields.end()) {
        std::string valid;
        for (const auto& f : op->fields) valid += (valid.empty() ? "" : ", ") + f;
        throw InputError(file, path, shorten(values), "not a shape field of " + e.op + "; valid: " + valid);
      }
      if (!values.is_array() || values.empty())
        throw InputError(file, path, shorten(values), "expected a non-empty list of integers");
      std::vector<std::int64_t> list;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i].is_number_integer())
          throw InputError(file, path + "[" + std::to_string(i) + "]", shorten(values[i]), "expected an integer");
        list.push_back(values[i].get<std::int64_t>());
      }
      e.sweep.emplace_back(key, std::move(list));
    }
    // The op's field order, whatever the file's: the same plan always expands in the same order.
    auto rank = [op](const std::string& f) {
      return std::find(op->fields.begin(), op->fields.end(), f) - op->fields.begin();
    };
    std::sort(e.sweep.begin(), e.sweep.end(),
              [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  }
  r.finish();
  return e;
}

// A model_step case in the contract's order: the model from the entry's "models", the rest as expanded.
Shape model_step_shape(const Shape& base, const Shape& fields, const std::string& precision) {
  for (const auto& f : find_op("model_step")->fields)
    if (!fields.has(f)) return fields;  // validate_shape names the missing field
  StepShape s;
  s.model = base.text_at("model");
  s.tp = fields.at("tp");
  s.ep = fields.at("ep");
  s.layers = fields.at("layers");
  s.batch = fields.at("batch");
  s.context = fields.at("context");
  s.new_tokens = fields.at("new_tokens");
  s.precision = precision;
  return engine::model_step_shape(s);
}

// The entry's cases, validated; `out` collects them across entries without repeats.
void expand_entry(const Plan& plan, const PlanEntry& e, std::vector<PlannedCase>& out, std::set<std::string>& seen) {
  const OpInfo& op = *find_op(e.op);
  if (e.op == "model_step" && e.models.empty())
    throw InputError(plan.file, e.field + ".models", "",
                     "missing: model_step runs a model preset (\"models\"), on one GPU of \"tp\"");
  std::vector<Shape> bases = {Shape{}};
  if (!e.models.empty()) {
    bases.clear();
    for (std::size_t i = 0; i < e.models.size(); ++i) {
      const std::string field = e.field + ".models[" + std::to_string(i) + "]";
      const auto shapes = model_shapes(e.op, e.models[i], e.tp, plan.file, field);
      bases.insert(bases.end(), shapes.begin(), shapes.end());
    }
  }
  for (const auto& [key, values] : e.sweep) {
    if (!bases.empty() && bases.front().has(key))
      throw InputError(plan.file, e.field + ".sweep." + key, "", "given by the models; remove it from the sweep");
  }
  constexpr std::size_t kMaxCases = 100000;
  for (const auto& dtype : e.dtypes) {
    for (const auto& base : bases) {
      // Odometer over the sweep lists, last list fastest.
      std::vector<std::size_t> at(e.sweep.size(), 0);
      while (true) {
        Shape shape;
        for (const auto& f : op.fields) {  // the op's field order, whichever side gives the value
          if (base.has(f)) shape.set(f, base.at(f));
          for (std::size_t s = 0; s < e.sweep.size(); ++s)
            if (e.sweep[s].first == f) shape.set(f, e.sweep[s].second[at[s]]);
        }
        // model_step's record shape is a fixed contract with the model's name in it (model_step.hpp).
        if (e.op == "model_step" && base.has_text("model")) shape = model_step_shape(base, shape, e.precision);
        validate_shape(op, shape, plan.file, e.field + ".sweep");
        const std::string key = e.op + "|" + dtype + "|" + shape.text();
        if (seen.insert(key).second) out.push_back({{e.op, dtype, shape}, e.warmup, e.repetitions, e.field});
        if (out.size() > kMaxCases)
          throw InputError(plan.file, e.field, "", "the plan expands to more than 100000 cases");
        std::size_t s = e.sweep.size();
        while (s > 0 && ++at[s - 1] == e.sweep[s - 1].second.size()) at[--s] = 0;
        if (s == 0) break;
      }
    }
  }
}

}  // namespace

Plan parse_plan(const json& j, const std::string& file) {
  Plan p;
  p.file = file;
  ObjectReader r(j, file, "");
  p.name = r.text("name", nullptr);
  if (p.name.empty()) r.fail("name", j.at("name"), "must not be empty");
  const std::string none;
  p.description = r.text("description", &none);
  p.warmup = r.integer("warmup", p.warmup, 0, 10000);
  p.repetitions = r.integer("repetitions", p.repetitions, 1, 100000);
  p.flush_cache = r.boolean("flush_cache", p.flush_cache);
  p.case_budget_s = r.number("case_budget_s", p.case_budget_s, 0.0, 3600.0);
  const json* ops = r.get("ops");
  if (ops == nullptr) throw InputError(file, "ops", "", "missing: a plan lists the ops to measure");
  if (!ops->is_array() || ops->empty()) r.fail("ops", *ops, "expected a non-empty list of op entries");
  for (std::size_t i = 0; i < ops->size(); ++i)
    p.ops.push_back(parse_entry((*ops)[i], file, "ops[" + std::to_string(i) + "]", p));
  r.finish();
  expand_plan(p);  // every shape validated now, before anything runs
  return p;
}

Plan load_plan(const std::filesystem::path& path) { return parse_plan(specs::read_json_file(path), path.string()); }

std::vector<PlannedCase> expand_plan(const Plan& plan) {
  std::vector<PlannedCase> out;
  std::set<std::string> seen;
  for (const auto& e : plan.ops) expand_entry(plan, e, out, seen);
  return out;
}

}  // namespace fleetcast::engine
