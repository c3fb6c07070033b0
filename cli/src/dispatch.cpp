#include "dispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "commands.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::cli {

std::string usage() {
  return R"(usage: fleetcast [--datasheet-profiles | --unfitted-profiles] COMMAND [ARGS]

Forecast what an LLM inference fleet delivers for a traffic mix: TTFT, TPOT, percentiles, throughput per
GPU and cost per million tokens, from a discrete-event simulation of the serving engine on SimGrid.

profiles: every command takes the most specific step-time profile for a (hardware, runtime): one in
  FLEETCAST_PROFILE_DIR, then the shipped fitted ones (calibration/profiles/serving/, fitted to measured serving
  runs), then the datasheet ones (with the figures that carry over from the runtime's fits on other GPUs).
  --datasheet-profiles (or FLEETCAST_PROFILES=datasheet) uses the datasheet ones only, for every command and
  its worker processes. --unfitted-profiles (FLEETCAST_PROFILES=unfitted) gives every GPU the profile it would
  take without a fit of its own (its datasheet one with what the other GPUs' shipped fits carry; no
  FLEETCAST_PROFILE_DIR): what GB200 gets today, and what its quoted error is measured with.

commands:
  simulate SCENARIO [-o REPORT.json] [--timeline] [--chrome-trace TRACE.json [--trace-window START_S:END_S]]
           [--progress json] [--quiet]
        Simulate a scenario (a JSON file, or the name of a shipped scenario preset) and print a summary;
        -o writes the full JSON report (atomically). --timeline adds the sampled time series (queue, batch,
        KV use, tokens/s) to the report. --chrome-trace writes every step of every replica in the
        measurement window (or START_S:END_S of simulated time; at most 100,000 steps) as a Chrome trace for
        ui.perfetto.dev or chrome://tracing. --progress json prints one JSON object per line on stderr with
        done, total and phase. --quiet prints no summary. --check makes every check a simulation makes before
        its first event (specs, trace files, memory, pools, request draw), prints one line and simulates nothing.
  step SCENARIO [--decode N --context C] [--prefill T [--prefill-context P | --prompt L]] [--pool P] [--json]
        One engine iteration of the scenario's replica, operator by operator (time, FLOPs, bytes per GPU),
        and its memory plan: the step-time model laid open. Counts are per attention-DP rank. A decode-only
        step also gives its steady state (tokens/s per user and output tokens/s per GPU, drafts included);
        --prompt L averages T-token steps over L-token prompts back to back (input tokens/s per GPU). A
        disaggregated deployment needs --pool prefill or --pool decode.
  sweep grid SCENARIO TAG --set PATH=V1,V2,... [--set ...] [--axes SWEEP.json]
  sweep decode TAG CONTEXT NEXTN ACCEPTANCE [--scenario S] [--points N1,N2,...]
  sweep prefill TAG CONTEXT [--scenario S] [--batches T1,T2,...]      (all: [-j N] [--out DIR] [--progress json])
        Run every point of a sweep in its own worker process (-j at once) and write DIR/TAG/results.jsonl (one
        line per point, sorted by point: its parameters and benchmark record, or its error) and the Pareto chart
        DIR/TAG/pareto.svg (DIR: sweeps). grid: the scenario with each combination of field values (paths
        into the scenario with its defaults filled in, e.g. deployment.replica.tp=1,2,4), simulated end to end.
        decode / prefill: DeepInfer's steady-state sweeps (as `step`: requests per DP rank at CONTEXT with NEXTN
        MTP drafts at ACCEPTANCE; tokens per rank per step over CONTEXT-token prompts back to back); scenarios
        deepinfer-decode-gb200 and deepinfer-prefill-gb200 unless --scenario. Run again after an interruption:
        finished points are kept.
  plan PLAN.json [-o OUT.json] [-j N] [--progress json] [--no-prune] [--rows N] [--quiet]
        The cheapest fleet that meets the plan's SLOs: every combination of its search space (hardware, serving
        engine, GPUs, TP/DP/EP, aggregated or disaggregated P:D, batch caps, MTP) within its budget or GPU limit;
        configurations that cannot fit the memory, reach the latency objectives alone or carry the offered rate are
        rejected analytically, the rest simulated in N worker processes. Prints the feasible ones ranked by $/M tokens,
        the Pareto frontier and why each rejected one failed; -o writes it all as JSON. --no-prune simulates
        every configuration (to check the pruning). docs/PLANNER.md.
  calibrate show HARDWARE|PROFILE.json [--runtime R] [--models dense|moe] | calibrate datasheet HARDWARE
        The profile a simulation of HARDWARE under runtime R uses (the most specific one: FLEETCAST_PROFILE_DIR,
        then calibration/profiles/serving/ and fitted/, then the datasheet ones), or the datasheet-derived profile;
        --models KIND: the pair's fit for that kind of model alone, where one ships (dense models on h100 and h200
        under vLLM, h200 under TensorRT-LLM), which simulations of such models take instead.
  calibrate fit TRACE... [--hardware NAME] [--runtime R] -o PROFILE.json
        Fit a profile from calibration traces: per-op predictors, collectives, fit quality, trace SHA-256.
  calibrate check PROFILE.json [--threshold 0.15]
        Per op: leave-one-out and held-out-shape median/max APE, points, range; ops above the threshold flagged.
  calibrate import FILE [--format nsys-kern-sum|nsys-trace|chrome] [--map PATTERNS.json] [--device NAME]
                   -o TRACE.jsonl
        Kernel timings from nsys stats CSV or a PyTorch-profiler Chrome trace, mapped to op classes by name.
  calibrate compose TRACE.jsonl [--json] [--max-median-ape X]
        Fit the trace's device from its ops and predict its model_step records with the step-time model.
  calibrate steps SCENARIO FPM.csv [SCENARIO FPM.csv ...] [--pool prefill|decode] [--json]
                  [-o PROFILE.json [--iterations N]]
        The step-time model, with the profile the scenario uses, against engine iterations a serving engine
        measured: Dynamo's forward-pass metrics as CSV (prefill and decode tokens, requests and KV-cache tokens
        and the latency of each iteration). Per phase the median measured and predicted step, their ratio and
        the median and p90 error: the step model checked apart from clients, scheduler and front end.
        -o fits a profile to the steps first (GEMM, attention, HBM, host time per step and per sequence, NVLink,
        collective latency, a MoE model's experts; at most the kernel-level figures; every fifth step held out),
        one profile for every pair given (one hardware and runtime), writes it as kind measured
        (FLEETCAST_PROFILE_DIR makes it the hardware's profile) and checks the steps with it.
  calibrate serving (--silicon FILE [--hardware H --runtime R] | --bench FILE... --hardware H [--runtime R]
                    [--tp N] [--pp N] [--dp N] [--ep N] [--model M] [--precision P] [--max-num-seqs N]
                    [--server-args CMD] [--server-config YAML] [--acceptance-length L]) [-o DIR] [--train-rows N]
                    [--iterations N]
                    [--bounded] [--robust] [--fixed-lengths | --benchmark-clients] [--refine | --from-datasheet] [--no-experts]
                    [--expert-memory] [--eager-launch] [--prompt-slowdown] [--models dense|moe] [--max-step-ms X] [--ttft-weight W] [--leave-out-model M | --cross-validate [--accuracy FILE]]
        Fit each (hardware, runtime) profile's GEMM, attention, memory and NVLink efficiencies, step, sequence
        and request overheads, and the routed experts' kernel efficiency per expert weight format, to the
        measured runs (Levenberg-Marquardt on log TTFT and TPOT; a fifth of the rows, by id hash, held out);
        print the error before and after; -o writes DIR/<hardware>-<runtime>.json. The fit starts from the
        datasheet profile and, where the pair has a fit in use, from that one too, and keeps the end of lower
        training cost (--refine: from the fit in use alone; --from-datasheet: from the datasheet one alone);
        --bounded keeps every efficiency at or below the best kernel-level figure and pulls it towards the
        datasheet one (a log-normal prior); --robust weighs errors beyond a factor 1.5 linearly (Huber) rather
        than squared; --max-step-ms X keeps the host time
        per step at or below X ms (default 100: free); --ttft-weight W in (0, 1] weighs the TTFT residuals W
        times the TPOT ones (default 1), leaning on the decode steps the model holds.
        --leave-out-model M holds out every row of model preset M instead; --cross-validate does so for each
        model of the pair in turn (the error on models the fit never saw); with --accuracy FILE it merges
        each pair's folds into that table (calibration/profiles/accuracy/unseen-models.json is the one
        forecasts of a model outside a fit's runs quote; needs --datasheet-profiles, since a fit in use saw
        the left-out models).
        --iterations 0 fits nothing: the fast replay's error of the profile in use, on the same rows.
        --bench: your own benchmark files (as validate --bench reads them, closed-loop runs; at least 6 training
        rows) instead of a silicon CSV, fitted for every (hardware, runtime) pair they hold.
        --fixed-lengths, --benchmark-clients: as validate's. --no-experts fits no experts' efficiency (the routed experts at
        the GEMM rate: a format's figure set by one model's rows does not carry to another model; the shipped
        refits made with --prompt-slowdown, whose slowdown stands in for it, and those of dense models fit none). --expert-memory, where the training rows hold dense and MoE models both,
        also fits the routed experts' weight streaming apart from the dense weights' (expert_memory_efficiency,
        a factor on the HBM efficiency; without it one HBM efficiency serves both, as in the shipped profiles).
        --eager-launch also fits the host time per kernel of a step with prompt tokens (eager_launch_s: a
        step lasts at least its kernels times it; TensorRT-LLM launches prompt iterations without CUDA graphs).
        --prompt-slowdown slows the prompts by the pair's measured marginal prompt ratio (calibrate
        prompt-ratio's, read from its profile in use), kept fixed while the rest is fitted, and keeps the ratio in
        the fit, where it carries to a GPU without a fit; under --cross-validate each fold measures the ratio
        again without the left-out model's runs (the pair's runs simulated once with the datasheet profiles).
        --models dense|moe fits on that kind of model's rows alone and writes DIR/<hardware>-<runtime>-<kind>.json
        (model_kind set), which forecasts of that kind of model take over the pair's fit; with --cross-validate
        only that kind's models are left out in turn.
  calibrate prompt-ratio --silicon FILE [--fixed-lengths | --benchmark-clients] [--max-clients N]
                         [--min-prompt TOKENS] [-j N] [--profiles DIR]
        How much longer each (hardware, runtime)'s engine took for a longer prompt than the datasheet profile's
        step model says, by kind of model: every row simulated with the datasheet profiles (clients mapped as
        validate maps them), the TTFT split by prompt length (validate --decompose), and per (hardware, runtime,
        dense or MoE) the median of k measured over k predicted over the splits at no more than N clients
        (default 8: a short queue) whose longest prompt has at least TOKENS tokens (default 4096: short prompts
        alone wait on the host's kernel launches). --profiles DIR writes each ratio into the fitted profiles of
        DIR (marginal_prompt_ratio); a GPU without a fit of the runtime takes their median as its prompt's
        slowdown (prompt_slowdown).
  workload fit TRACE [--format F] [--columns ROLE=NAME,...] [--time-unit s|ms] [--strict]
               [--window START:END] [--rate-scale X] [--loops N] [--empirical] [--name N] [-o WORKLOAD.json] [--json]
        Read a request trace (azure, mooncake, burstgpt, or a generic csv/jsonl with a column mapping; the
        format is detected from the first line when not given), optionally cut, rescale or loop it, and fit
        a one-class workload spec: lognormal (or, --empirical, the trace's own quantile) lengths, Poisson or
        gamma arrivals at the measured rate and inter-arrival CV; prints skipped rows, the hourly rate and
        prefix-block reuse. Bad rows are skipped and counted (--strict: the first is an error).
  validate --silicon FILE [--json OUT] [-j N] [--strict] [--match TEXT] [--every K] [--split all|held-out|train]
           [--markdown FILE] [--scenarios DIR] [--progress json] [--summary-only] [--fixed-lengths | --benchmark-clients]
           [--decompose] [--accuracy TABLE]
        Predict every measured serving run of a silicon CSV (aiconfigurator's format: closed-loop clients at
        fixed lengths, layout and backend per row) in N worker processes; print per row the measured and
        predicted mean TTFT and TPOT with the absolute percentage error, per group (model, system, backend,
        mode) the count, median and 90th-percentile error, the coverage, and every row not predicted with
        the reason; and every closed-loop run whose measured rate needs more prompt FLOPs than its GPUs' best
        GEMM (the datasheet profile's kernel-level figure) delivers: prompts served from a prefix cache or
        shorter than stated (JSON: prompt_compute_share, that need over the best GEMM rate; a note on the row
        above 1); and every closed-loop run with under half the simulation's clients decoding at a time
        (Little's law on the means: C x D / (TTFT + D), D = (osl - 1) x TPOT; JSON measured_ and
        predicted_decoding_clients): a cap the run does not state (a client's connection limit, a lower
        max_num_seqs, less KV cache). --every K and --match TEXT (id, model, system or backend) run a repeatable subset;
        --split held-out the rows `calibrate serving` never fits (a fifth, by id hash); --markdown writes the
        group table as Markdown; --scenarios DIR writes the scenario each mapped row becomes as DIR/ID.json.
        A row measured by InferenceX's client is simulated as that client ran it (lengths uniform in 0.8-1 x
        isl and osl, 10 x clients requests, all measured), as the shipped fits were made (--drawn-lengths, the
        default); every other row is a fixed-length closed loop measured over the middle of 5 waves.
        --fixed-lengths maps every row so (the default until session 47: its lockstep hid how slowly the
        engines prefill); --benchmark-clients also gives aiconfigurator's genai-perf rows their client (2 x
        clients warm-up, then 10 x clients measured; fits made under it:
        FLEETCAST_PROFILE_DIR=calibration/profiles/candidates/benchmark-clients). docs/ACCURACY.md, "Benchmark
        clients", "InferenceX's drawn lengths alone" and "A prompt's slowdown".
        --decompose splits the
        measured and predicted TPOT of rows that differ only in osl into the decode step d and the other
        clients' prefill time X per request (TPOT = d + X / (osl - 1)), X / (C - 1) beside the model's
        marginal time of one prompt: near it the clients ran out of phase, near 0 in lockstep (JSON:
        tpot_decomposition); and the TTFT of rows that differ only in isl into a + k x p(isl), k the prompts'
        prefill a request waits for (near 1: each prompt on its own; near the cohort's size: lockstep), a the
        rest (JSON: ttft_decomposition); InferenceX's rows too (not under --fixed-lengths), each prompt priced at
        the mean length its client drew (k measured over k predicted: the engine's longer prompt against the
        model's).
        --accuracy TABLE (with --split held-out) merges each (hardware, runtime)'s error
        with the profile in use into the table forecasts quote (calibration/profiles/accuracy/held-out.json);
        under --unfitted-profiles (every row) into the one forecasts on a GPU without a fit quote
        (calibration/profiles/accuracy/unfitted-gpus.json).
  validate --bench FILE... --hardware H --tp N [--pp N] [--dp N] [--ep N] [--model M] [--runtime R]
           [--precision P] [--max-num-seqs N] [--server-args CMD] [--server-config YAML]
           [--acceptance-length L | --perf-metrics FILE] [--json OUT] [-j N] [--strict]
        The same for the result files of `vllm bench serve --save-result`, SGLang's bench_serving
        --output-file (one record or one per line), AIPerf's profile_export_aiperf.json and genai-perf's
        profile_export_genai_perf.json (their warm-up simulated and left out; they do not name the engine:
        give --runtime or --server-args; a directory stands for every such export under it): what the files
        do not say (GPU, layout) comes from the
        flags or from a record's own keys (vLLM --metadata hardware=h200 tp=8 ...), which win. Max
        concurrency at an unbounded rate is that many closed-loop clients; a finite rate is Poisson (gamma
        with --burstiness); every request the benchmark sent is simulated and measured. A random dataset's
        random_range_ratio r (SGLang's bench_serving, InferenceX's benchmark_serving.py) gives each request
        lengths uniform in [floor(r x L), L], as the client drew them. How the engine was started:
        --server-args "trtllm-serve M --tp_size 8 ..." (or `vllm serve ...`, `python -m sglang.launch_server ...`)
        and --server-config FILE (TensorRT-LLM's --extra_llm_api_options YAML, vLLM's or SGLang's --config YAML)
        give the layout, batch cap, step budget, chunking, memory fraction, KV format and block size, TensorRT-LLM's
        batch waiting and attention-DP balance; each record's notes list what was taken and what is not modelled.
        A record that keeps its own launch (keys server_args or server_cmd, server_config or config_yaml, e.g.
        vllm bench serve --metadata server_args="...") is mapped with it. Speculative decoding by the model's own
        MTP layers (TensorRT-LLM's speculative_config, vLLM's --speculative-config, SGLang's --speculative-*) is
        simulated with the drafts per step the launch gives and the acceptance the run measured (vLLM's
        spec_decode_* keys, per position where given; SGLang's accept_length; else --acceptance-length L, the mean
        tokens per step the engine's log reports); other drafting methods are listed unmapped. --perf-metrics
        FILE: TensorRT-LLM's GET /perf_metrics list for the one run given (return_perf_metrics: true): the
        engine's own medians of front end, wait, prompt iteration, response and decode iteration go in the
        row's notes, and its tokens per decode iteration are a speculative run's accepted length.
        The percentiles a file reports beside the means (median, p90, p95, p99 of TTFT, TPOT and end-to-end
        latency; those the summary leaves out from the per-request ttfts and itls of --save-detailed or
        --output-details) are compared with the simulation's own (JSON: each row's "percentiles" and a summary).
  scenario --server-args CMD [--server-config YAML] --hardware H [--model M] [--precision P] [--runtime R]
           [--tp N] [--pp N] [--dp N] [--ep N] [--max-num-seqs N] [--acceptance-length L] [--nodes N]
           [--from SCENARIO] [-o OUT]
        A deployment as its serve command starts it (the launch read as validate --bench reads it: layout,
        batch cap, step budget, chunking, memory, KV format, the engine's defaults for the GPU where it says
        nothing; the layout flags fill what it leaves out and may not contradict it), with the workload, seed,
        request count and cost of SCENARIO (default: the shipped default; a launch with MTP speculative
        decoding needs --acceptance-length L, the mean tokens per step your traffic gets), as
        a scenario for simulate, sweep and plan. --nodes N: that many nodes of replicas. Change a flag in the
        command, write it again and simulate both to see what the flag does.
  presets [models|hardware|scenarios]
        List the shipped presets with a one-line summary.
  bench sim [--requests N] [--replicas N]
        Simulator speed benchmark: N requests (default 1,000,000) with Azure-conversation-like lengths,
        Poisson arrivals at 80% of the estimated capacity, over 16 replicas; prints simulated requests per
        wall second and peak resident memory.
  version
        Print the version.

examples:
  fleetcast simulate default
  fleetcast simulate my-scenario.json -o report.json
  fleetcast simulate default -o report.json --timeline --chrome-trace steps.json --trace-window 100:101
  fleetcast step default --decode 64 --context 4096
  fleetcast presets models
  fleetcast sweep decode ce-128k 131072 3 0.75 --points 8,64,256

exit codes: 0 ok, 1 the run failed, 2 bad input or usage (the message names the file, field and value).
)";
}

// The entries of usage()'s command list for one command: each line "  CMD ..." and the more deeply indented lines
// under it. One text serves `fleetcast --help` and `fleetcast CMD --help`, so the two cannot disagree.
std::string command_help(const std::string& cmd) {
  std::istringstream in(usage());
  std::string line, out;
  bool in_commands = false, in_entry = false;
  while (std::getline(in, line)) {
    if (line == "commands:") {
      in_commands = true;
      continue;
    }
    if (!in_commands) continue;
    if (line.empty() || line[0] != ' ') break;  // the end of the command list
    const bool entry_start = line.size() > 2 && line[2] != ' ';
    if (entry_start) in_entry = line.compare(2, cmd.size() + 1, cmd + " ") == 0 || line.substr(2) == cmd;
    if (in_entry) out += (entry_start ? "  fleetcast " + line.substr(2) : line) + "\n";
  }
  return out;
}

int dispatch(int argc, char** argv) {
  // A global option before the command: the environment carries it to every worker process a command starts.
  if (argc >= 2 && (std::string(argv[1]) == "--datasheet-profiles" || std::string(argv[1]) == "--unfitted-profiles")) {
    setenv("FLEETCAST_PROFILES", std::string(argv[1]) == "--datasheet-profiles" ? "datasheet" : "unfitted", 1);
    ++argv;
    --argc;
  }
  if (argc < 2) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  const Args args(argv + 2, argv + argc);
  if (cmd == "--help" || cmd == "-h" || (cmd == "help" && args.empty())) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  // `fleetcast CMD --help` (or -h, or `fleetcast help CMD`): that command's part of the usage, exit 0.
  const bool asks_help =
      std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (asks_help || cmd == "help") {
    const std::string topic = cmd == "help" && !args.empty() ? args.front() : cmd;
    const std::string text = command_help(topic);
    if (text.empty()) {
      throw InputError("", "command", topic,
                       "unknown command; valid: simulate, step, sweep, plan, calibrate, workload, validate, scenario, "
                       "presets, bench, version");
    }
    std::fputs(("usage:\n" + text).c_str(), stdout);
    return 0;
  }
  if (cmd == "version" || cmd == "--version") {
    std::printf("%s\n", simulator::version_string().c_str());
    return 0;
  }
  if (cmd == "simulate") return run_simulate(args);
  if (cmd == "presets") return run_presets(args);
  if (cmd == "bench") return run_bench(args);
  if (cmd == "step") return run_step(args);
  if (cmd == "calibrate") return run_calibrate(args);
  if (cmd == "workload") return run_workload(args);
  if (cmd == "validate") return run_validate(args);
  if (cmd == "sweep") return run_sweep(args);
  if (cmd == "plan") return run_plan(args);
  if (cmd == "scenario") return run_scenario(args);
  throw InputError(
      "", "command", cmd,
      "unknown command; valid: simulate, step, sweep, plan, calibrate, workload, validate, scenario, presets, "
      "bench, version, --help");
}

}  // namespace fleetcast::cli
