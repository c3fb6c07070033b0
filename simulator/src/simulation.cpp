#include "fleetcast/simulator/simulation.hpp"

#include <chrono>
#include <cmath>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/capacity.hpp"
#include "fleetcast/simulator/chrome_trace.hpp"
#include "fleetcast/simulator/disaggregation.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/platform.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/simulator/request_generator.hpp"
#include "fleetcast/simulator/trace_classes.hpp"
#include "fleetcast/simulator/workload_plan.hpp"
#include "fleetcast/specs/error.hpp"
#include "report_timeline.hpp"
#include "serving/context.hpp"

namespace fleetcast::simulator {

namespace sg4 = simgrid::s4u;

namespace {

// SimGrid reads its settings from argv: keep it quiet and use the plain network model, whose links
// deliver exactly their bandwidth and latency (no TCP correction factors before calibration says so).
std::unique_ptr<sg4::Engine> make_engine() {
  static char arg0[] = "fleetcast";
  static char log[] = "--log=root.thresh:critical";
  static char net[] = "--cfg=network/model:CM02";
  static char* argv[] = {arg0, log, net, nullptr};
  int argc = 3;
  return std::make_unique<sg4::Engine>(&argc, argv);
}

// The closed-loop classes' blocks of requests, which follow the open-loop ones (request_generator.hpp).
void place_closed_loop(const specs::WorkloadSpec& w, const WorkloadPlan& plan, serving::Context& ctx) {
  std::size_t next = 0;
  for (std::size_t k = 0; k < w.classes.size(); ++k)
    if (w.classes[k].arrival.kind != specs::ArrivalKind::closed_loop)
      next += static_cast<std::size_t>(plan.classes[k].requests);
  ctx.open_loop_requests = next;
  int clients = 0;
  for (std::size_t k = 0; k < w.classes.size(); ++k) {
    const auto& a = w.classes[k].arrival;
    if (a.kind != specs::ArrivalKind::closed_loop) continue;
    const auto count = static_cast<std::size_t>(plan.classes[k].requests);
    ctx.closed_loop.push_back({next, next + count, a.clients, clients, a.think_time_s});
    next += count;
    clients += a.clients;
  }
}

StepLogSpec step_log_spec(const RunOptions& options) {
  StepLogSpec spec;
  spec.measurement_window = !options.trace_window.has_value();
  if (options.trace_window) {
    spec.start_s = options.trace_window->start_s;
    spec.end_s = options.trace_window->end_s;
  }
  spec.max_steps = options.trace_max_steps;
  return spec;
}

// Each replica's first GPU: where its engine loop runs (and, disaggregated, where its KV leaves or lands).
std::vector<sg4::Host*> replica_hosts(const specs::ScenarioSpec& s, const Platform& platform) {
  std::vector<sg4::Host*> hosts;
  if (!s.deployment.disaggregation) {
    for (const auto& gpus : platform.replicas) hosts.push_back(gpus[0]);
    return hosts;
  }
  for (specs::Pool pool : {specs::Pool::prefill, specs::Pool::decode}) {
    const specs::DeploymentSpec d = specs::pool_deployment(s.deployment, pool);
    const int first = specs::pool_first_gpu(s.deployment, pool);
    for (int r = 0; r < d.num_replicas(); ++r) hosts.push_back(platform.gpus[first + r * d.replica.gpus()]);
  }
  return hosts;
}

}  // namespace

// What `simulate --check` reports of a scenario that passed every check: the fleet, its memory and its traffic.
static nlohmann::json check_summary_json(const specs::ScenarioSpec& s, const MemoryPlan& memory,
                                         const WorkloadPlan& plan, std::size_t requests) {
  nlohmann::json classes = nlohmann::json::array();
  for (std::size_t i = 0; i < plan.classes.size(); ++i) {
    classes.push_back({{"name", s.workload.classes[i].name},
                       {"requests", plan.classes[i].requests},
                       {"expected_rate_per_s", plan.classes[i].expected_rate_per_s},
                       {"load", plan.classes[i].load}});
  }
  return {{"check",
           {{"scenario", s.name},
            {"gpus", s.deployment.total_gpus()},
            {"replicas", specs::serving_replicas(s.deployment)},
            {"weight_bytes_per_gpu", memory.weight_bytes},
            {"kv_bytes_per_gpu", memory.kv_bytes},
            {"kv_capacity_tokens_per_replica", memory.kv_capacity_tokens},
            {"requests", requests},
            {"classes", classes}}}};
}

SimulationResult run_simulation(const specs::ScenarioSpec& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // Trace classes take their lengths and rate from the trace before anything is planned.
  const specs::ScenarioSpec resolved = resolve_trace_classes(scenario);
  const specs::ScenarioSpec& s = resolved;
  const calibration::Profile profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model);
  // Disaggregated: each pool its own memory plan and step-time model; the report's memory is the decode pool's.
  std::optional<DisaggregatedPlan> pools;
  std::optional<StepTimeModel> aggregated_model;
  MemoryPlan memory;
  if (s.deployment.disaggregation) {
    pools = plan_pools(s, profile, options.file);
    memory = pools->decode.memory;
  } else {
    memory = plan_memory(s.model, s.deployment);
    require_fits(memory, s.model, s.deployment, options.file);
    aggregated_model.emplace(s.model, s.deployment, profile);
  }
  const WorkloadPlan plan = pools ? plan_workload(s, pools->decode.replicas,
                                                  [&](const specs::RequestClass& c, double max_batch) {
                                                    return estimate_disaggregated_capacity(s, c, *pools, max_batch);
                                                  })
                                  : plan_workload(s, *aggregated_model, memory);
  std::vector<std::int64_t> counts;
  std::vector<double> rates;
  for (const ClassPlan& cp : plan.classes) {
    counts.push_back(cp.requests);
    rates.push_back(cp.rate_per_s);
  }
  Recorder recorder(generate_requests(s.workload, counts, rates, s.seed, s.model.max_context_tokens),
                    static_cast<int>(s.workload.classes.size()));
  if (options.check_only) return {check_summary_json(s, memory, plan, recorder.requests().size()), {}};

  serving::Context ctx;
  ctx.scenario = &s;
  ctx.step_model = pools ? pools->decode.step_model.get() : &*aggregated_model;
  ctx.recorder = &recorder;
  ctx.gauges.resize(static_cast<std::size_t>(specs::serving_replicas(s.deployment)));
  ctx.warmup_requests = static_cast<std::int64_t>(std::floor(s.measurement.warmup_fraction * s.num_requests));
  ctx.cooldown_requests = static_cast<std::int64_t>(std::floor(s.measurement.cooldown_fraction * s.num_requests));
  ctx.gpus_per_replica = s.deployment.replica.gpus();
  ctx.kv_capacity_bytes = memory.kv_bytes;
  ctx.host_link_bytes_per_s = RateTable(s.deployment.hardware, profile).host_link_bytes_per_s();
  ctx.request_overhead_s = profile.request_overhead_s;
  ctx.progress_json = options.progress_json;
  place_closed_loop(s.workload, plan, ctx);
  if (options.chrome_trace) recorder.keep_step_log(step_log_spec(options));
  if (pools) {
    const PoolPlan& p = pools->prefill;
    const PoolPlan& d = pools->decode;
    ctx.pools.push_back(
        {serving::Role::prefill, &p.deployment, p.step_model.get(), p.memory.kv_bytes, 0, p.replicas, 0});
    ctx.pools.push_back(
        {serving::Role::decode, &d.deployment, d.step_model.get(), d.memory.kv_bytes, p.replicas, d.replicas, 1});
  } else {
    ctx.pools.push_back(
        {serving::Role::both, &s.deployment, ctx.step_model, memory.kv_bytes, 0, s.deployment.num_replicas(), -1});
  }

  {
    auto engine = make_engine();
    const Platform platform = build_platform(s.deployment, profile);
    const int replicas = specs::serving_replicas(s.deployment);
    ctx.replica_hosts = replica_hosts(s, platform);
    sg4::Actor::create("router", platform.frontend, serving::router_actor, &ctx, replicas);
    if (ctx.open_loop_requests > 0) sg4::Actor::create("source", platform.frontend, serving::source_actor, &ctx);
    if (!ctx.closed_loop.empty() && ctx.request_overhead_s > 0.0) {
      auto front_end = sg4::Actor::create("front_end", platform.frontend, serving::front_end_actor, &ctx);
      front_end->daemonize();
      serving::front_end_mailbox()->set_receiver(front_end);
    }
    for (std::size_t k = 0; k < ctx.closed_loop.size(); ++k) {
      const serving::ClosedLoopClass& c = ctx.closed_loop[k];
      for (int i = 0; i < c.clients; ++i) {
        sg4::Actor::create("client." + std::to_string(c.first_client + i), platform.frontend, serving::client_actor,
                           &ctx, static_cast<int>(k), i);
      }
    }
    for (int r = 0; r < replicas; ++r) {
      auto actor = sg4::Actor::create("replica." + std::to_string(r), ctx.replica_hosts[static_cast<std::size_t>(r)],
                                      serving::replica_actor, &ctx, r);
      actor->daemonize();
      serving::replica_mailbox(r)->set_receiver(actor);
    }
    sg4::Actor::create("sampler", platform.frontend, serving::sampler_actor, &ctx, s.measurement.sample_interval_s)
        ->daemonize();
    engine->run();
    // The timeline's last entry, so that its tokens per second cover every step; past the measurement window,
    // so no report figure sees it.
    recorder.record_sample(serving::current_sample(ctx));
  }

  long long preemptions = 0, evicted = 0;
  for (const auto& g : ctx.gauges) {
    preemptions += g.preemptions;
    evicted += g.prefix_evicted_blocks;
  }
  ReportInputs in{&s,
                  &profile,
                  &memory,
                  &plan,
                  &recorder,
                  ctx.warmup_requests,
                  ctx.cooldown_requests,
                  preemptions,
                  evicted,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(),
                  pools ? &*pools : nullptr};
  SimulationResult result{build_report(in), {}};
  if (options.timeline) {
    result.report["timeline"] =
        detail::timeline_json(recorder, specs::serving_replicas(s.deployment), s.measurement.sample_interval_s);
  }
  if (options.chrome_trace) {
    ChromeTraceInfo info;
    info.scenario = s.name;
    info.simulator = version_string();
    info.replicas = specs::serving_replicas(s.deployment);
    info.measurement_window = !options.trace_window.has_value();
    info.window_start_s = options.trace_window ? options.trace_window->start_s : recorder.window_start_s();
    info.window_end_s = options.trace_window ? options.trace_window->end_s : recorder.window_end_s();
    info.max_steps = options.trace_max_steps;
    result.chrome_trace = chrome_trace_json(recorder, info);
  }
  return result;
}

}  // namespace fleetcast::simulator
