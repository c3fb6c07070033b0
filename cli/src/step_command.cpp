// `fleetcast step`: what one engine iteration of a scenario's replica costs, operator by operator, and the
// memory plan behind it. The step-time model laid open, for checking it against a profiler trace.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "scenario_arg.hpp"

namespace fleetcast::cli {
namespace {

int parse_count(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= 0 && v <= 100000000) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw InputError("", flag, text, "expected a whole number from 0 to 100,000,000");
}

}  // namespace

int run_step(const Args& args) {
  std::string scenario_arg;
  int decode = 0, context = 0, prefill = 0, prefill_context = 0, prompt = 0;
  std::string pool_name;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--decode" && has_value) {
      decode = parse_count(a, args[++i]);
    } else if (a == "--context" && has_value) {
      context = parse_count(a, args[++i]);
    } else if (a == "--prefill" && has_value) {
      prefill = parse_count(a, args[++i]);
    } else if (a == "--prefill-context" && has_value) {
      prefill_context = parse_count(a, args[++i]);
    } else if (a == "--prompt" && has_value) {
      prompt = parse_count(a, args[++i]);
    } else if (a == "--pool" && has_value) {
      pool_name = args[++i];
      if (pool_name != "prefill" && pool_name != "decode")
        throw InputError("", "--pool", pool_name, "valid: prefill, decode");
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] != '-' && scenario_arg.empty()) {
      scenario_arg = a;
    } else {
      throw InputError("", "step", a,
                       "usage: fleetcast step SCENARIO [--decode N --context C] [--prefill T "
                       "[--prefill-context P | --prompt L]] [--pool prefill|decode] [--json]");
    }
  }
  if (scenario_arg.empty()) throw InputError("", "step", "", "a scenario file or preset name is required");
  if (decode == 0 && prefill == 0) throw InputError("", "step", "", "give --decode N and/or --prefill T");
  if (prompt > 0 && (decode > 0 || prefill == 0 || prefill_context > 0)) {
    throw InputError("", "--prompt", std::to_string(prompt),
                     "--prompt L averages the chunks of --prefill T over an L-token prompt: give it with --prefill "
                     "alone (no --decode, no --prefill-context)");
  }

  specs::ScenarioSpec s = load_scenario_arg(scenario_arg);
  select_pool(s, scenario_arg, pool_name);  // a disaggregated deployment: the one pool's replicas
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model);
  const simulator::StepTimeModel model(s.model, s.deployment, profile);
  simulator::BatchShape batch;
  batch.decode_contexts.assign(static_cast<std::size_t>(decode), context);
  if (prefill > 0) batch.prefill.push_back({prefill, prefill_context, true});
  batch.draft_tokens = decode > 0 && s.deployment.speculative ? s.deployment.speculative->num_draft_tokens : 0;
  const simulator::MemoryPlan mem = simulator::plan_memory(s.model, s.deployment);
  // Steady state as DeepInfer's sweeps count it: a decode-only step repeated, or a prompt's chunks averaged.
  nlohmann::json steady = nullptr;
  simulator::StepTime st;
  if (prompt > 0) {
    const auto p = simulator::prefill_point(model, s.deployment, prefill, prompt);
    st = p.last_step;
    steady = {{"kind", "prefill"},
              {"tokens_per_rank", prefill},
              {"prompt_tokens", prompt},
              {"prompts", p.prompts},
              {"steps", p.steps},
              {"mean_step_s", p.mean_step_s},
              {"mean_prompt_s", p.mean_prompt_s},
              {"input_tokens_per_s_per_gpu", p.input_tokens_per_s_per_gpu}};
  } else if (prefill == 0) {
    const auto p = simulator::decode_point(model, s.deployment, decode, context);
    st = p.step;
    steady = {{"kind", "decode"},
              {"requests_per_rank", decode},
              {"context_tokens", context},
              {"step_s", p.step_s},
              {"acceptance_length", p.acceptance_length},
              {"tokens_per_s_per_user", p.tokens_per_s_per_user},
              {"output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu}};
  } else {
    st = model.predict(batch);
  }

  if (json) {
    nlohmann::json ops = nlohmann::json::object();
    for (int i = 0; i < simulator::kNumOps; ++i) {
      const auto& c = st.ops[i];
      if (c.time_s == 0.0) continue;
      ops[std::string(simulator::to_string(static_cast<simulator::Op>(i)))] = {
          {"time_s", c.time_s}, {"flops", c.flops()}, {"bytes", c.bytes}, {"prefill_share", c.prefill_share}};
    }
    const nlohmann::json out = {{"total_s", st.total_s},
                                {"prefill_s", st.prefill_s},
                                {"decode_s", st.decode_s},
                                {"ops", ops},
                                {"weights_gb_per_gpu", mem.weight_bytes / 1e9},
                                {"kv_cache_gb_per_gpu", mem.kv_bytes / 1e9},
                                {"steady_state", steady}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  const auto& layout = s.deployment.replica;
  std::printf(
      "%s on %d x %s (dp %d tp %d pp %d ep %d), profile %s: one step of %d decodes at context %d and %d "
      "prefill tokens after %d%s\n",
      s.model.name.c_str(), layout.gpus(), s.deployment.hardware.name.c_str(), layout.dp, layout.tp, layout.pp,
      layout.ep, profile.kind.c_str(), decode, context, prefill,
      prompt > 0 ? prompt - (prompt - 1) % prefill - 1 : prefill_context,
      layout.dp > 1 ? " on every attention-DP rank" : "");
  std::printf("  %-15s %10s %7s %12s %12s %10s\n", "op", "time ms", "share", "GFLOP/GPU", "MB/GPU", "FLOP/byte");
  for (int i = 0; i < simulator::kNumOps; ++i) {
    const auto& c = st.ops[i];
    if (c.time_s == 0.0) continue;
    std::printf("  %-15s %10.4f %6.1f%% %12.2f %12.2f %10.1f\n",
                std::string(simulator::to_string(static_cast<simulator::Op>(i))).c_str(), 1e3 * c.time_s,
                100.0 * c.time_s / st.total_s, c.flops() / 1e9, c.bytes / 1e6,
                c.bytes > 0.0 ? c.flops() / c.bytes : 0.0);
  }
  std::printf("  %-15s %10.4f (prefill %.4f, decode %.4f)\n", "total", 1e3 * st.total_s, 1e3 * st.prefill_s,
              1e3 * st.decode_s);
  if (!steady.is_null() && steady["kind"] == "decode") {
    std::printf(
        "steady state: %.2f tokens per step per sequence, %.1f tokens/s per user, %.0f output tokens/s per "
        "GPU\n",
        steady["acceptance_length"].get<double>(), steady["tokens_per_s_per_user"].get<double>(),
        steady["output_tokens_per_s_per_gpu"].get<double>());
  } else if (!steady.is_null()) {
    std::printf(
        "steady state over %d steps of %d prompt(s) back to back (above: the last step completing one): mean step "
        "%.2f ms, %.1f ms per prompt, %.0f input tokens/s per GPU\n",
        steady["steps"].get<int>(), steady["prompts"].get<int>(), 1e3 * steady["mean_step_s"].get<double>(),
        1e3 * steady["mean_prompt_s"].get<double>(), steady["input_tokens_per_s_per_gpu"].get<double>());
  }
  std::printf(
      "memory per GPU: weights %.1f GB, activations %.1f GB, reserve %.1f GB, KV cache %.1f GB "
      "(%.0f tokens per replica)\n",
      mem.weight_bytes / 1e9, mem.activation_bytes / 1e9, mem.runtime_reserve_bytes / 1e9, mem.kv_bytes / 1e9,
      mem.kv_capacity_tokens);
  return 0;
}

}  // namespace fleetcast::cli
