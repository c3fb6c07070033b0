#include "fleetcast/simulator/simulation.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <simgrid/s4u.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/capacity.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/platform.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/simulator/request_generator.hpp"
#include "fleetcast/specs/error.hpp"
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

double resolve_rate(const specs::ScenarioSpec& s, const CapacityEstimate& capacity) {
  const auto& a = s.workload.arrival;
  if (a.kind == specs::ArrivalKind::closed_loop) return 0.0;
  return a.load > 0.0 ? a.load * capacity.requests_per_s : a.rate_per_s;
}

}  // namespace

nlohmann::json simulate(const specs::ScenarioSpec& s, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const calibration::Profile profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime);
  const MemoryPlan memory = plan_memory(s.model, s.deployment);
  require_fits(memory, s.model, s.deployment, options.file);
  const StepTimeModel step_model(s.model, s.deployment, profile);
  const CapacityEstimate capacity = estimate_capacity(s, step_model, memory);
  const double rate = resolve_rate(s, capacity);

  Recorder recorder(generate_requests(s.workload, s.num_requests, rate, s.seed, s.model.max_context_tokens));

  serving::Context ctx;
  ctx.scenario = &s;
  ctx.step_model = &step_model;
  ctx.recorder = &recorder;
  ctx.gauges.resize(static_cast<std::size_t>(s.deployment.num_replicas()));
  ctx.warmup_requests = static_cast<std::int64_t>(std::floor(s.measurement.warmup_fraction * s.num_requests));
  ctx.cooldown_requests = static_cast<std::int64_t>(std::floor(s.measurement.cooldown_fraction * s.num_requests));
  ctx.gpus_per_replica = s.deployment.replica.gpus();
  ctx.kv_capacity_bytes = memory.kv_bytes;
  ctx.progress_json = options.progress_json;

  {
    auto engine = make_engine();
    const Platform platform = build_platform(s.deployment, profile);
    const int replicas = s.deployment.num_replicas();
    sg4::Actor::create("router", platform.frontend, serving::router_actor, &ctx, replicas);
    if (s.workload.arrival.kind == specs::ArrivalKind::closed_loop) {
      const int clients = s.workload.arrival.clients;
      for (int c = 0; c < clients; ++c) {
        sg4::Actor::create("client." + std::to_string(c), platform.frontend, serving::client_actor, &ctx, c, clients);
      }
    } else {
      sg4::Actor::create("source", platform.frontend, serving::source_actor, &ctx);
    }
    for (int r = 0; r < replicas; ++r) {
      auto actor = sg4::Actor::create("replica." + std::to_string(r), platform.replicas[r][0],
                                      serving::replica_actor, &ctx, r);
      actor->daemonize();
      serving::replica_mailbox(r)->set_receiver(actor);
    }
    sg4::Actor::create("sampler", platform.frontend, serving::sampler_actor, &ctx,
                       s.measurement.sample_interval_s)
        ->daemonize();
    engine->run();
  }

  long long preemptions = 0;
  for (const auto& g : ctx.gauges) preemptions += g.preemptions;
  ReportInputs in{&s,
                  &profile,
                  &memory,
                  &capacity,
                  rate,
                  &recorder,
                  ctx.warmup_requests,
                  ctx.cooldown_requests,
                  preemptions,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count()};
  return build_report(in);
}

}  // namespace fleetcast::simulator
