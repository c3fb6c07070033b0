// Golden reports: `golden_json trim IN OUT` drops a report's volatile fields (kVolatile) and writes it
// canonically; `golden_json compare EXPECTED ACTUAL` compares two reports field by field, numbers to a relative
// tolerance of 1e-9, and prints the first differing JSON paths (exit 1 when any differ, 2 on bad usage).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Fields that change with the build and not with the model: the simulator's version and git commit. A report
// holds no wall time, host or date (report.hpp).
const char* const kVolatile[] = {"simulator"};
constexpr double kRelativeTolerance = 1e-9;
constexpr std::size_t kPathsShown = 20;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::json::parse(in);
}

nlohmann::json trim(nlohmann::json report) {
  for (const char* key : kVolatile) report.erase(key);
  // The errors on record for the report's profile (calibration/profiles/accuracy/held-out.json and
  // unseen-models.json, unfitted-gpus.json): data about the validation set, rewritten with it, not an output of the
  // model under test.
  if (report.contains("derived") && report["derived"].is_object()) {
    report["derived"].erase("profile_measured_error");
    report["derived"].erase("profile_unseen_model_error");
    report["derived"].erase("profile_unfitted_gpu_error");
  }
  return report;
}

bool numbers_close(double a, double b) {
  if (a == b) return true;
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::abs(a - b) <= kRelativeTolerance * std::max(std::abs(a), std::abs(b));
}

std::string brief(const nlohmann::json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// Every differing path, in document order; `count` counts them all, `shown` keeps the first kPathsShown.
void compare(const nlohmann::json& want, const nlohmann::json& got, const std::string& path, std::size_t& count,
             std::vector<std::string>& shown) {
  const auto differ = [&](const std::string& what) {
    if (shown.size() < kPathsShown) shown.push_back((path.empty() ? "/" : path) + ": " + what);
    ++count;
  };
  if (want.is_number() && got.is_number()) {
    if (!numbers_close(want.get<double>(), got.get<double>()))
      differ("expected " + brief(want) + ", got " + brief(got));
    return;
  }
  if (want.type() != got.type()) return differ("expected " + brief(want) + ", got " + brief(got));
  if (want.is_object()) {
    for (const auto& [key, value] : want.items()) {
      const std::string child = path + "/" + key;
      if (!got.contains(key)) {
        if (shown.size() < kPathsShown) shown.push_back(child + ": missing");
        ++count;
        continue;
      }
      compare(value, got[key], child, count, shown);
    }
    for (const auto& [key, value] : got.items()) {
      if (want.contains(key)) continue;
      if (shown.size() < kPathsShown) shown.push_back(path + "/" + key + ": not expected, got " + brief(value));
      ++count;
    }
  } else if (want.is_array()) {
    if (want.size() != got.size()) {
      differ("expected " + std::to_string(want.size()) + " entries, got " + std::to_string(got.size()));
    }
    for (std::size_t i = 0; i < std::min(want.size(), got.size()); ++i)
      compare(want[i], got[i], path + "/" + std::to_string(i), count, shown);
  } else if (want != got) {
    differ("expected " + brief(want) + ", got " + brief(got));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: golden_json trim IN OUT | golden_json compare EXPECTED ACTUAL\n";
  if (argc != 4) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const std::string verb = argv[1];
  try {
    if (verb == "trim") {
      std::ofstream out(argv[3]);
      out << trim(read_json(argv[2])).dump(2) << "\n";
      return out ? 0 : 1;
    }
    if (verb == "compare") {
      std::size_t count = 0;
      std::vector<std::string> shown;
      compare(trim(read_json(argv[2])), trim(read_json(argv[3])), "", count, shown);
      if (count == 0) return 0;
      std::printf("%zu fields differ from %s (relative tolerance %g); the first:\n", count, argv[2],
                  kRelativeTolerance);
      for (const std::string& s : shown) std::printf("  %s\n", s.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "golden_json: %s\n", e.what());
    return 2;
  }
  std::fputs(usage.c_str(), stderr);
  return 2;
}
