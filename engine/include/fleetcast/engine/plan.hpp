#pragma once
// A sweep plan: which ops to measure, at which shapes and precisions, with how many warm-up and timed
// repetitions. JSON; the shipped ones are in engine/plans/. Parsed strictly: an unknown key, a wrong
// type or an impossible shape is an InputError naming the file and the field ("ops[2].sweep.m").
//
//   {"name": "cpu-smoke", "description": "...", "warmup": 2, "repetitions": 10, "flush_cache": true,
//    "case_budget_s": 0.25,
//    "ops": [
//      {"op": "gemm", "dtypes": ["bf16"], "sweep": {"m": [1, 64], "n": [1024], "k": [1024]}},
//      {"op": "gemm", "dtypes": ["bf16", "fp8"], "models": ["llama-3.1-8b"], "sweep": {"m": [1, 128]}},
//      {"op": "rmsnorm", "dtypes": ["bf16"], "sweep": {"tokens": [1, 256], "hidden": [4096]}, "repetitions": 20}]}
//
// Each entry's cases are the cartesian product of its sweep lists. With "models", the model presets give
// the fields a model decides (a GEMM's n and k for every projection and expert, attention head counts,
// hidden sizes) for each GPU of a tensor-parallel group of "tp" GPUs, and the sweep gives the rest.
//
// "precision" (model_step entries only; "fp32", the default, or "bf16"): what the step stores weights, caches and
// activations in. A model_step's "dtypes" do not choose it (the shipped plans ask for bf16 and have always run
// an fp32 step); a bf16 step's record shape ends in "precision": "bf16", an fp32 one's has no such field.
//
// "case_budget_s" (default 0: none) caps the timing of one case: after the warm-up one run is timed, and
// the timed repetitions are cut to fit the budget, though never below 5. A sweep from one token to many
// thousands then spends its time evenly rather than on its largest shapes.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleetcast/engine/shape.hpp"

namespace fleetcast::engine {

struct PlanEntry {
  std::string op;
  std::vector<std::string> dtypes;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> sweep;  // in the op's field order
  std::vector<std::string> models;
  int tp = 1;
  std::string precision = "fp32";  // model_step only
  int warmup = 0;                  // the entry's own or the plan's
  int repetitions = 1;             // the entry's own or the plan's
  std::string field;               // "ops[2]", for messages
};

struct Plan {
  std::string file;
  std::string name;
  std::string description;
  int warmup = 3;
  int repetitions = 20;
  bool flush_cache = true;
  double case_budget_s = 0.0;
  std::vector<PlanEntry> ops;
};

struct PlannedCase {
  OpCase op_case;
  int warmup = 0;
  int repetitions = 1;
  std::string field;  // the plan entry it came from
};

// Parses and validates, expanding every entry once so that a bad shape fails here, before any run.
Plan parse_plan(const nlohmann::json& j, const std::string& file);
Plan load_plan(const std::filesystem::path& path);

// Every case of the plan in order: entries in file order; within one, dtypes outermost, then the model
// shapes, then the sweep lists in the op's field order, the last fastest. A case that repeats an earlier
// one is dropped.
std::vector<PlannedCase> expand_plan(const Plan& plan);

// The shapes a model preset decides for `op` on each GPU of a `tp`-way tensor-parallel group (partial:
// the sweep fills the rest). Throws InputError naming `file` and `field` for an op that takes no model
// fields or a model the op cannot use (MLA heads for GQA attention, ...).
std::vector<Shape> model_shapes(const std::string& op, const std::string& model, int tp, const std::string& file,
                                const std::string& field);

}  // namespace fleetcast::engine
