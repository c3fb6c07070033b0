#include "fleetcast/simulator/trace_classes.hpp"

#include "fleetcast/specs/error.hpp"

namespace fleetcast::simulator {

traces::RequestTrace load_class_trace(const specs::RequestClass& c) {
  const specs::TraceReplaySpec& t = c.arrival.trace;
  traces::TraceReadOptions read;
  read.format = t.format.empty() ? traces::detect_trace_format(t.path)
                                 : traces::trace_format_from(t.format, "workload.arrival.format");
  const traces::RequestTrace whole = traces::read_request_trace(t.path, read);
  traces::ReplayOptions replay;
  replay.window_start_s = t.window_start_s;
  replay.window_end_s = t.window_end_s;
  replay.rate_scale = t.rate_scale;
  replay.loops = t.loops;
  traces::RequestTrace out = traces::replay(whole, replay);
  if (out.requests.empty()) {
    throw InputError(t.path, "workload.arrival.window_start_s", std::to_string(t.window_start_s),
                     "no request of the trace arrives in [" + std::to_string(t.window_start_s) + ", " +
                         (t.window_end_s > 0 ? std::to_string(t.window_end_s) : std::string("end")) + ") s");
  }
  return out;
}

specs::ScenarioSpec resolve_trace_classes(const specs::ScenarioSpec& s) {
  specs::ScenarioSpec out = s;
  for (specs::RequestClass& c : out.workload.classes) {
    if (c.arrival.kind != specs::ArrivalKind::trace) continue;
    const traces::RequestTrace trace = load_class_trace(c);
    c.input_tokens = specs::LengthDistribution{};
    c.input_tokens.kind = specs::LengthKind::empirical;
    c.output_tokens = specs::LengthDistribution{};
    c.output_tokens.kind = specs::LengthKind::empirical;
    for (std::size_t i = 0; i < trace.requests.size(); ++i) {
      const traces::TraceRequest& r = trace.requests[i];
      if (r.input_tokens + r.output_tokens > s.model.max_context_tokens) {
        throw InputError(c.arrival.trace.path, "request " + std::to_string(i + 1),
                         std::to_string(r.input_tokens) + " + " + std::to_string(r.output_tokens) + " tokens",
                         "longer than model '" + s.model.name + "' max_context_tokens " +
                             std::to_string(s.model.max_context_tokens));
      }
      c.input_tokens.values.push_back(r.input_tokens);
      c.output_tokens.values.push_back(r.output_tokens);
    }
    if (trace.prefix_block_tokens > 0 && trace.prefix_block_tokens != out.workload.prefix_block_tokens) {
      throw InputError(c.arrival.trace.path, "workload.prefix_block_tokens",
                       std::to_string(out.workload.prefix_block_tokens),
                       "the trace's block ids stand for " + std::to_string(trace.prefix_block_tokens) +
                           "-token blocks: set prefix_block_tokens to that");
    }
    // The mean rate over the span the arrivals cover; one request alone gets one per second (it arrives at 0
    // whatever the rate).
    const double span_s = trace.duration_s();
    c.arrival.rate_per_s = span_s > 0.0 ? static_cast<double>(trace.requests.size() - 1) / span_s : 1.0;
  }
  return out;
}

}  // namespace fleetcast::simulator
