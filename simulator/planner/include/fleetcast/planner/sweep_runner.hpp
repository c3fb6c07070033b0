#pragma once
// Runs a sweep's points, each in its own worker process (SimGrid keeps one engine per process), up to `jobs` at
// once, and keeps sweeps/<tag>/results.jsonl: one JSON line per finished point, sorted by point index whatever
// order the workers finished in, rewritten atomically after every point.
//
// Every finished point is first written (atomically) to points/<index>.json in the sweep folder by its worker;
// results.jsonl is rebuilt from those files. A sweep started again in the same folder (after a crash or SIGKILL)
// reads what is there, skips those points and runs only the rest, so it ends with the bytes an uninterrupted run
// writes. A point whose work throws is recorded with its error and the sweep goes on; so is a worker that dies.

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fleetcast::planner {

struct SweepPoint {
  int index = 0;
  nlohmann::json parameters;  // what makes this point: {"deployment.replica.tp": 2} or {"requests_per_rank": 8}
};

// The work of one point, run inside its worker process: returns the fields of its line (besides "point" and
// "parameters"). Throwing records {"error": what()} (and "input_error": true for an InputError) instead.
using PointWork = std::function<nlohmann::json(const SweepPoint&)>;

struct SweepOptions {
  std::filesystem::path dir;   // sweeps/<tag>; created if missing
  int jobs = 1;                // workers at once
  bool progress_json = false;  // {"phase": "sweep", "done": D, "total": T} lines on stderr
};

struct SweepOutcome {
  int total = 0;
  int resumed = 0;                    // points found finished in `dir` and not run again
  int computed = 0;                   // points run by this call
  int failed = 0;                     // lines with an error (resumed ones included)
  std::vector<nlohmann::json> lines;  // every point's line, by index
};

// Throws InputError when `dir` holds a point whose parameters differ from this sweep's (another sweep under the
// same tag), or for jobs < 1.
SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const PointWork& work, const SweepOptions& options);

// The results.jsonl text of `lines`: one compact JSON object per line, in the given order.
std::string jsonl_text(const std::vector<nlohmann::json>& lines);

// Writes `contents` to a temporary name beside `path`, fsyncs and renames it into place.
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

}  // namespace fleetcast::planner
