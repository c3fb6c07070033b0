#include "fleetcast/engine/harness.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "fleetcast/engine/host_info.hpp"
#include "fleetcast/engine/stats.hpp"

namespace fleetcast::engine {
namespace {

std::string case_name(const std::string& op, const std::string& dtype, const Shape& shape) {
  return op + " " + dtype + " " + shape.text();
}

std::string format_rates(const traces::CalibrationMeasurement& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "median %.4g us (p10 %.4g, p90 %.4g), %.4g GFLOPS, %.4g GB/s, max rel err %.2g",
                m.median_s * 1e6, m.p10_s * 1e6, m.p90_s * 1e6, m.achieved_tflops * 1e3, m.achieved_gb_per_s,
                m.max_rel_error);
  return buf;
}

// Warms up and times one run, then returns options for the timed repetitions that fit `budget_s`: no
// more than asked for, no fewer than kMinRepetitions, no further warm-up.
TimingOptions fit_budget(Backend& backend, PreparedOp& op, TimingOptions t, double budget_s) {
  constexpr int kMinRepetitions = 5;
  TimingOptions probe = t;
  probe.repetitions = 1;
  const double one = backend.time(op, probe).front();
  t.warmup = 0;
  if (one > 0.0 && budget_s / one < t.repetitions)
    t.repetitions = std::max(std::min(kMinRepetitions, t.repetitions), static_cast<int>(budget_s / one));
  return t;
}

}  // namespace

traces::CalibrationMeasurement make_measurement(const OpInfo& op, const std::string& dtype, const Shape& shape,
                                                const std::vector<double>& seconds, const CheckResult& check) {
  const Percentiles p = percentiles(seconds);
  const Cost cost = op_cost(op, shape, dtype);
  traces::CalibrationMeasurement m;
  m.op = op.name;
  m.dtype = dtype;
  m.shape = shape.to_json();
  m.gpus = shape.has("gpus") ? static_cast<int>(shape.at("gpus")) : 1;  // collectives span several
  m.repetitions = static_cast<int>(seconds.size());
  m.median_s = p.median;
  m.p10_s = p.p10;
  m.p90_s = p.p90;
  m.flops = cost.flops;
  m.bytes = cost.bytes;
  // A timer cannot read zero for real work; guard anyway so a broken timer gives 0, not infinity.
  m.achieved_tflops = p.median > 0.0 ? cost.flops / p.median / 1e12 : 0.0;
  m.achieved_gb_per_s = p.median > 0.0 ? cost.bytes / p.median / 1e9 : 0.0;
  m.checked = true;
  m.max_rel_error = check.max_rel_error;
  return m;
}

RunOutcome run_plan(const Plan& plan, Backend& backend, const std::function<void(const std::string&)>& log) {
  auto say = [&log](const std::string& line) {
    if (log) log(line);
  };
  RunOutcome out;
  out.trace.header = backend.describe();
  out.trace.header.git_commit = engine_commit();
  out.trace.header.date = utc_date_now();
  out.trace.header.plan = plan.name;

  // What runs, as what: a bf16 request runs as fp32 on the CPU, and two requests that run the same way
  // are measured once.
  struct Runnable {
    PlannedCase planned;
    std::string dtype;
  };
  std::vector<Runnable> runnable;
  std::set<std::string> seen;
  for (const auto& pc : expand_plan(plan)) {
    const OpInfo& op = *find_op(pc.op_case.op);
    const Support s = backend.support(op, pc.op_case.dtype, pc.op_case.shape);
    if (!s.supported) {
      out.skipped.push_back({pc.op_case, s.reason});
      continue;
    }
    if (seen.insert(case_name(op.name, s.dtype, pc.op_case.shape)).second) runnable.push_back({pc, s.dtype});
  }
  for (const auto& sk : out.skipped)
    say("skip " + case_name(sk.op_case.op, sk.op_case.dtype, sk.op_case.shape) + ": " + sk.reason);

  // Each op and precision in full on a small shape before any of its sweep runs.
  std::set<std::pair<std::string, std::string>> checked;
  for (const auto& r : runnable) {
    const OpInfo& op = *find_op(r.planned.op_case.op);
    if (!checked.insert({op.name, r.dtype}).second) continue;
    if (!backend.support(op, r.dtype, op.small_check).supported) continue;  // the sampled checks remain
    auto prepared = backend.prepare(op, r.dtype, op.small_check);
    const CheckResult c = prepared->check(true);
    out.small_checks.push_back({op.name, r.dtype, op.small_check, c});
    char buf[96];
    std::snprintf(buf, sizeof buf, ": all %zu outputs match, max rel err %.2g", c.compared, c.max_rel_error);
    say("check " + case_name(op.name, r.dtype, op.small_check) + buf);
  }

  const TimingOptions base{0, 1, plan.flush_cache};
  for (std::size_t i = 0; i < runnable.size(); ++i) {
    const auto& r = runnable[i];
    const OpInfo& op = *find_op(r.planned.op_case.op);
    const Shape& shape = r.planned.op_case.shape;
    auto prepared = backend.prepare(op, r.dtype, shape);
    const CheckResult c = prepared->check(false);
    auto expert_rows = prepared->expert_rows();
    TimingOptions t = base;
    t.warmup = r.planned.warmup;
    t.repetitions = r.planned.repetitions;
    if (plan.case_budget_s > 0.0) t = fit_budget(backend, *prepared, t, plan.case_budget_s);
    const auto seconds = backend.time(*prepared, t);
    prepared.reset();  // free device memory before the next case allocates
    Shape recorded = shape;
    if (const auto transport = backend.collective_transport(); op.op_class == OpClass::collective && !transport.empty())
      recorded.set_text("transport", transport);
    out.trace.measurements.push_back(make_measurement(op, r.dtype, recorded, seconds, c));
    out.trace.measurements.back().expert_rows = std::move(expert_rows);
    say("[" + std::to_string(i + 1) + "/" + std::to_string(runnable.size()) + "] " +
        case_name(op.name, r.dtype, shape) + ": " + format_rates(out.trace.measurements.back()));
  }
  return out;
}

}  // namespace fleetcast::engine
