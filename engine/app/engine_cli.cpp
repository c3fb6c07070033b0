#include "engine_cli.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "fleetcast/engine/datasheet.hpp"
#include "fleetcast/engine/harness.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/engine/summary.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast_engine_version.hpp"

namespace fleetcast::engine::cli {

std::string usage() {
  std::string s = R"(usage: fleetcast-engine COMMAND [ARGS]

Measure the kernels an LLM inference step is made of on this machine's GPU (or CPU), checking every
result against a CPU reference before timing it, and write a calibration trace (JSON Lines) for the
calibration stage.

commands:
  run PLAN -o TRACE.jsonl [--backend cuda|cpu] [--quiet]
        Run a sweep plan (a JSON file; shipped ones in engine/plans/) and write the trace atomically:
        nothing is written unless every case passed its check. The CUDA backend (the default) times with
        CUDA events, flushing L2 between repetitions; the CPU backend runs the same plan with CPU kernels in
        fp32 and records fp32. Progress goes to stderr (--quiet: none), the summary to stdout.
  device [--backend cuda|cpu] [--slug]
        Print the device a run would measure, and the folder name its traces go under in traces/data/
        (--slug: that name alone, for scripts).
  ops   List the ops a plan may name, with their shape fields and precisions.
  version
        Print the version and the commit the engine was built from.

Under an MPI launcher (mpirun -np N fleetcast-engine run PLAN ...; a build with MPI) the ranks measure the
plan's collectives between them at gpus = N, skipping every other op: MPI between CPU ranks with --backend
cpu, NCCL across the GPUs of all ranks with --backend cuda (one rank per GPU). Rank 0 alone logs and
writes the trace; a single rank skips the collectives with the reason.

examples:
  fleetcast-engine run engine/plans/cpu-smoke.json --backend cpu -o /tmp/cpu.jsonl
  fleetcast-engine run engine/plans/node-default.json -o traces/data/h200/node-default.jsonl
  engine/scripts/calibrate-node.sh

exit codes: 0 ok, 1 the run failed (a CUDA error, a result that fails its check), 2 bad input or usage
(the message names the file, field and value), 3 the hardware the command needs is absent (no GPU, or a
build without the CUDA backend).
)";
  return s;
}

namespace {

int run_ops() {
  for (const auto& op : all_ops()) {
    std::string fields, dtypes;
    for (const auto& f : op.fields) fields += (fields.empty() ? "" : ", ") + f;
    for (const auto& d : op.dtypes) dtypes += (dtypes.empty() ? "" : ", ") + d;
    std::printf("  %-22s %s\n  %-22s shape: %s; dtypes: %s\n", op.name.c_str(), op.summary.c_str(), "", fields.c_str(),
                dtypes.c_str());
  }
  return 0;
}

int run_device(const std::vector<std::string>& args, Ranks* ranks) {
  std::string backend_name = "cuda";
  bool slug_only = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--backend" && i + 1 < args.size()) {
      backend_name = args[++i];
    } else if (args[i] == "--slug") {
      slug_only = true;
    } else {
      throw InputError("", "argument", args[i], "valid: --backend cuda|cpu, --slug");
    }
  }
  const auto backend = make_backend(backend_name, ranks);
  const auto h = backend->describe();
  if (slug_only) {
    std::printf("%s\n", device_slug(h.device).c_str());
    return 0;
  }
  std::printf("backend: %s\ndevice: %s\n", h.backend.c_str(), h.device.c_str());
  if (h.backend == "cuda") {
    std::printf("SMs: %d, SM clock %.0f MHz, memory clock %.0f MHz\n", h.sm_count, h.sm_clock_mhz, h.memory_clock_mhz);
    std::printf("driver %s, CUDA %s, cuBLASLt %s, NCCL %s\n", h.driver_version.c_str(), h.cuda_version.c_str(),
                h.cublas_version.c_str(), h.nccl_version.empty() ? "(none)" : h.nccl_version.c_str());
  }
  std::printf("host: %s, CPU %s (%d logical CPUs)\n", h.host.c_str(), h.cpu_model.c_str(), h.cpu_cores);
  const auto sheet = backend->datasheet();
  std::printf("datasheet: %s\ntraces folder: traces/data/%s/\n", sheet ? sheet->name.c_str() : "(no preset)",
              device_slug(h.device).c_str());
  return 0;
}

int run_run(const std::vector<std::string>& args, Ranks* ranks) {
  std::string plan_path, out_path, backend_name = "cuda";
  bool quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) {
      if (i + 1 >= args.size()) throw InputError("", flag, "", "needs a value");
      return args[++i];
    };
    if (a == "-o" || a == "--output") {
      out_path = value("-o");
    } else if (a == "--backend") {
      backend_name = value("--backend");
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      throw InputError("", "option", a, "unknown option; valid: -o, --backend, --quiet");
    } else if (plan_path.empty()) {
      plan_path = a;
    } else {
      throw InputError("", "argument", a, "one plan only");
    }
  }
  if (plan_path.empty()) throw InputError("", "PLAN", "", "missing: fleetcast-engine run PLAN -o TRACE.jsonl");
  if (out_path.empty()) throw InputError("", "-o", "", "missing: where to write the trace");
  if (backend_name != "cuda" && backend_name != "cpu")
    throw InputError("", "--backend", backend_name, "valid: cuda, cpu");
  // Everything a user can get wrong is checked before the hardware is touched or anything is timed.
  const Plan plan = load_plan(plan_path);
  const auto folder = std::filesystem::absolute(out_path).parent_path();
  if (!std::filesystem::is_directory(folder)) throw InputError(out_path, "-o", "", "the folder does not exist");
  auto backend = make_backend(backend_name, ranks);
  const bool rank0 = ranks == nullptr || ranks->rank() == 0;
  auto log = [quiet, rank0](const std::string& line) {
    if (!quiet && rank0) std::fprintf(stderr, "%s\n", line.c_str());
  };
  if (multi_rank(ranks))
    log("MPI launch: " + std::to_string(ranks->size()) + " ranks, collectives over " +
        (backend->collective_transport().empty() ? std::string("(none)") : backend->collective_transport()));
  const RunOutcome outcome = run_plan(plan, *backend, log);
  if (!rank0) return 0;  // every rank measured the same records; rank 0 writes them
  traces::write_calibration_trace(out_path, outcome.trace);
  std::fputs(summary_text(outcome, backend->datasheet()).c_str(), stdout);
  std::printf("trace: %s (%zu measurements)\n", out_path.c_str(), outcome.trace.measurements.size());
  return 0;
}

}  // namespace

int dispatch(int argc, char** argv, Ranks* ranks) {
  if (argc < 2) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (cmd == "version" || cmd == "--version") {
    std::printf("fleetcast-engine %s (%s)\n", FLEETCAST_ENGINE_VERSION, FLEETCAST_ENGINE_GIT_COMMIT);
    return 0;
  }
  if (cmd == "run") return run_run(args, ranks);
  if (cmd == "ops") return run_ops();
  if (cmd == "device") return run_device(args, ranks);
  throw InputError("", "command", cmd, "unknown command; valid: run, device, ops, version, --help");
}

}  // namespace fleetcast::engine::cli
