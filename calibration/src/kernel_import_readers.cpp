// Readers for the kernel-timing formats of kernel_import.hpp. CSV fields follow RFC 4180 (quoted fields may
// hold commas and doubled quotes, as nsys writes demangled C++ names); columns are found by their header
// name, so extra or reordered columns in other nsys versions are fine.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "fleetcast/calibration/kernel_import.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/number_text.hpp"

namespace fleetcast::calibration {
namespace {

std::vector<std::string> split_csv_line(const std::string& line, const std::string& where) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) throw InputError(where, "", line.substr(0, 60), "a quoted field is not closed (a truncated line?)");
  out.push_back(field);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

double number(const std::string& s, const std::string& where, const std::string& column) {
  if (const auto x = whole_text_number(s); x && std::isfinite(*x) && *x >= 0.0) return *x;
  throw InputError(where, column, "\"" + s + "\"", "expected a number >= 0");
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// The CSV's header row (nsys may print "Processing ..." lines before it) and each data row by column name.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::pair<int, std::vector<std::string>>> rows;  // (line number, fields)
};

Csv read_csv(const std::string& text, const std::string& file, const std::vector<std::string>& required) {
  Csv csv;
  const auto lines = lines_of(text);
  std::size_t i = 0;
  for (; i < lines.size(); ++i) {
    const auto fields = split_csv_line(lines[i], file + ":" + std::to_string(i + 1));
    if (std::all_of(required.begin(), required.end(),
                    [&](const std::string& r) { return std::find(fields.begin(), fields.end(), r) != fields.end(); })) {
      csv.header = fields;
      break;
    }
  }
  if (csv.header.empty()) {
    std::string cols;
    for (const auto& r : required) cols += (cols.empty() ? "\"" : ", \"") + r + "\"";
    throw InputError(file, "header", "", "no CSV header with the columns " + cols);
  }
  for (++i; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i] == "\r") continue;
    const std::string where = file + ":" + std::to_string(i + 1);
    auto fields = split_csv_line(lines[i], where);
    if (fields.size() != csv.header.size()) {
      throw InputError(where, "", std::to_string(fields.size()) + " fields",
                       "the header has " + std::to_string(csv.header.size()) + " columns (a truncated line?)");
    }
    csv.rows.push_back({static_cast<int>(i + 1), std::move(fields)});
  }
  return csv;
}

std::size_t column(const Csv& csv, const std::string& name) {
  return static_cast<std::size_t>(std::find(csv.header.begin(), csv.header.end(), name) - csv.header.begin());
}

std::vector<KernelTiming> read_kern_sum(const std::string& text, const std::string& file) {
  const Csv csv = read_csv(text, file, {"Total Time (ns)", "Instances", "Med (ns)", "Min (ns)", "Max (ns)", "Name"});
  std::vector<KernelTiming> out;
  for (const auto& [line, f] : csv.rows) {
    const std::string where = file + ":" + std::to_string(line);
    KernelTiming k;
    k.name = f[column(csv, "Name")];
    k.instances = static_cast<int>(number(f[column(csv, "Instances")], where, "Instances"));
    k.total_s = number(f[column(csv, "Total Time (ns)")], where, "Total Time (ns)") * 1e-9;
    k.median_s = number(f[column(csv, "Med (ns)")], where, "Med (ns)") * 1e-9;
    // A summary has no percentiles: min and max stand in for p10 and p90 (wider, never narrower).
    k.p10_s = number(f[column(csv, "Min (ns)")], where, "Min (ns)") * 1e-9;
    k.p90_s = number(f[column(csv, "Max (ns)")], where, "Max (ns)") * 1e-9;
    out.push_back(std::move(k));
  }
  return out;
}

// Durations by kernel name -> timings, in the order the names first appeared.
std::vector<KernelTiming> summarise(const std::vector<std::pair<std::string, double>>& launches) {
  std::map<std::string, std::vector<double>> by_name;
  std::vector<std::string> order;
  for (const auto& [name, d] : launches) {
    auto& v = by_name[name];
    if (v.empty()) order.push_back(name);
    v.push_back(d);
  }
  std::vector<KernelTiming> out;
  for (const auto& name : order) {
    const auto& v = by_name[name];
    KernelTiming k;
    k.name = name;
    k.instances = static_cast<int>(v.size());
    for (double d : v) k.total_s += d;
    k.median_s = quantile(v, 0.5);
    k.p10_s = quantile(v, 0.1);
    k.p90_s = quantile(v, 0.9);
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<KernelTiming> read_gpu_trace(const std::string& text, const std::string& file) {
  const Csv csv = read_csv(text, file, {"Start (ns)", "Duration (ns)", "Name"});
  std::vector<std::pair<std::string, double>> launches;
  for (const auto& [line, f] : csv.rows) {
    const std::string where = file + ":" + std::to_string(line);
    launches.push_back(
        {f[column(csv, "Name")], number(f[column(csv, "Duration (ns)")], where, "Duration (ns)") * 1e-9});
  }
  return summarise(launches);
}

std::vector<KernelTiming> read_chrome(const std::string& text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, "", "", std::string("not valid JSON (a truncated trace?): ") + e.what());
  }
  if (!j.is_object() || !j.contains("traceEvents") || !j.at("traceEvents").is_array()) {
    throw InputError(file, "traceEvents", "", "a Chrome trace is an object with a traceEvents array");
  }
  std::vector<std::pair<std::string, double>> launches;
  const auto& events = j.at("traceEvents");
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (!e.is_object() || e.value("ph", "") != "X" || e.value("cat", "") != "kernel") continue;
    const std::string where = "traceEvents[" + std::to_string(i) + "]";
    if (!e.contains("name") || !e.at("name").is_string()) throw InputError(file, where + ".name", "", "missing");
    if (!e.contains("dur") || !e.at("dur").is_number() || e.at("dur").get<double>() < 0.0) {
      throw InputError(file, where + ".dur", e.contains("dur") ? e.at("dur").dump() : "",
                       "expected a duration in microseconds >= 0");
    }
    launches.push_back({e.at("name").get<std::string>(), e.at("dur").get<double>() * 1e-6});
  }
  return summarise(launches);
}

}  // namespace

KernelFormat parse_kernel_format(const std::string& name) {
  if (name == "nsys-kern-sum") return KernelFormat::nsys_kern_sum;
  if (name == "nsys-trace") return KernelFormat::nsys_trace;
  if (name == "chrome") return KernelFormat::chrome;
  throw InputError("", "--format", name, "valid: nsys-kern-sum, nsys-trace, chrome");
}

KernelFormat detect_kernel_format(const std::string& text, const std::string& file) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return KernelFormat::chrome;
  const std::string head = text.substr(0, 4096);
  if (head.find("\"Instances\"") != std::string::npos || head.find(",Instances,") != std::string::npos) {
    return KernelFormat::nsys_kern_sum;
  }
  if (head.find("Start (ns)") != std::string::npos) return KernelFormat::nsys_trace;
  throw InputError(file, "--format", "", "cannot tell the format; give --format nsys-kern-sum|nsys-trace|chrome");
}

std::vector<KernelTiming> read_kernel_timings(const std::string& text, const std::string& file, KernelFormat f) {
  switch (f) {
    case KernelFormat::nsys_kern_sum:
      return read_kern_sum(text, file);
    case KernelFormat::nsys_trace:
      return read_gpu_trace(text, file);
    case KernelFormat::chrome:
      return read_chrome(text, file);
  }
  return {};
}

}  // namespace fleetcast::calibration
