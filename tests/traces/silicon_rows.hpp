#pragma once
// Hand-made silicon CSV rows for the reader's tests: a file from a header and rows, read, and InferenceX's provenance.

#include <cstddef>
#include <sstream>
#include <string>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::test {

// A silicon CSV from its header and rows, one per line.
template <std::size_t N>
std::string csv_text(const std::string& header, const std::string (&rows)[N]) {
  std::string text = header + "\n";
  for (const std::string& row : rows) text += row + "\n";
  return text;
}

// A silicon CSV of `header` and `rows`, read as file "f.csv".
template <std::size_t N>
traces::MeasuredServingResults parse_rows(const std::string& header, const std::string (&rows)[N]) {
  std::istringstream in(csv_text(header, rows));
  return traces::parse_silicon_csv(in, "f.csv");
}

// The columns InferenceX's launch rules read (attention DP among them), and the provenance that names InferenceX
// (its dashboard export) with the row's clients.
inline const std::string kInferenceXHeader =
    "id,silicon_data_source,backend,model_path,system,precision,mode,isl,osl,batch_size,tp_size,attention_dp_size,"
    "silicon_ttft_ms,silicon_tpot_ms";
inline std::string inferencex_source(int clients) {
  return "source_file=2026-06-06.csv; model=X; silicon_concurrency=" + std::to_string(clients) + "; wip=False";
}

}  // namespace fleetcast::test
