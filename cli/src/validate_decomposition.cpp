// `fleetcast validate --decompose` output (validate_decomposition.hpp).
#include "validate_decomposition.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace fleetcast::cli {
namespace {

// The median of `v` (validation::summarise_errors's), NaN for none.
double median_of(const std::vector<double>& v) { return v.empty() ? NAN : validation::summarise_errors(v).median; }

// Per group, medians over its splits: X / (C - 1) as a share of the model's marginal prompt time, measured and
// predicted, and the decode step predicted / measured.
struct SplitMedians {
  std::string group;
  std::size_t splits = 0;
  double measured_share = NAN, predicted_share = NAN, step_ratio = NAN;
};

std::vector<SplitMedians> split_medians(const std::vector<validation::TpotDecomposition>& splits) {
  std::map<std::string, std::vector<double>> measured_share, predicted_share, step_ratio;
  for (const auto& d : splits) {
    const double others = d.concurrency - 1;
    if (std::isfinite(d.model_prefill_ms) && d.model_prefill_ms > 0.0) {
      measured_share[d.group].push_back(d.measured_interference_ms / others / d.model_prefill_ms);
      predicted_share[d.group].push_back(d.predicted_interference_ms / others / d.model_prefill_ms);
    }
    if (d.measured_step_ms > 0.0) step_ratio[d.group].push_back(d.predicted_step_ms / d.measured_step_ms);
  }
  std::vector<SplitMedians> out;
  for (const auto& [group, ratios] : step_ratio) {
    out.push_back(
        {group, ratios.size(), median_of(measured_share[group]), median_of(predicted_share[group]), median_of(ratios)});
  }
  return out;
}

// The measured and predicted TPOTs split into decode step and other clients' prefills (tpot_decomposition.hpp),
// each key, then each group's medians: where the simulation puts the prefill time against where the engine did.
void print_tpot(const std::vector<validation::TpotDecomposition>& splits) {
  std::printf(
      "\nTPOT split by output length, TPOT = d + X / (osl - 1): d the decode step, X the other clients' prefill "
      "time inside one request's decode; X / (C - 1) against the model's marginal time of one prompt beside the "
      "decodes (near it: clients out of phase; near 0: in lockstep)\n");
  if (splits.empty()) {
    std::printf("  (no rows differing only in output length)\n");
    return;
  }
  std::printf("%-44s %6s %-26s %5s %-16s %8s %8s %10s %8s %8s\n", "group", "isl", "layout", "C", "osls", "d meas",
              "d pred", "X/(C-1) ms", "pred", "model");
  for (const auto& d : splits) {
    std::string osls;
    for (int o : d.osls) osls += (osls.empty() ? "" : ",") + std::to_string(o);
    const double others = d.concurrency - 1;
    std::printf("%-44.44s %6d %-26.26s %5d %-16.16s %8.2f %8.2f %10.1f %8.1f %8.1f\n", d.group.c_str(), d.isl,
                d.layout.c_str(), d.concurrency, osls.c_str(), d.measured_step_ms, d.predicted_step_ms,
                d.measured_interference_ms / others, d.predicted_interference_ms / others, d.model_prefill_ms);
  }
  std::printf(
      "\nper group, medians over its splits: X / (C - 1) as a share of the model's marginal prefill, "
      "measured and predicted; d predicted / measured\n");
  std::printf("%-52s %6s %9s %9s %9s\n", "group", "splits", "X meas", "X pred", "d p/m");
  for (const SplitMedians& m : split_medians(splits)) {
    std::printf("%-52.52s %6zu %9.2f %9.2f %9.2f\n", m.group.c_str(), m.splits, m.measured_share, m.predicted_share,
                m.step_ratio);
  }
}

// The per-group medians as Markdown, under the group table (docs/VALIDATION.md).
std::string markdown_tpot(const std::vector<validation::TpotDecomposition>& splits) {
  std::string out =
      "\nTPOT split by output length (`--decompose`; TPOT = d + X / (osl - 1), over rows differing only in osl): "
      "per group, the medians of X / (C - 1), the other clients' prefill time per client inside a request's decode, "
      "as a share of the step model's marginal time of one prompt (near 1: the clients ran out of phase; near 0: in "
      "lockstep), measured and predicted, and of the decode step d predicted / measured. Splits of 1k against 8k "
      "outputs are confounded by the longer context (negative shares).\n\n"
      "| model | system | backend | mode | splits | X / (C - 1) measured | predicted | d predicted / measured |\n"
      "|---|---|---|---|---:|---:|---:|---:|\n";
  for (const SplitMedians& m : split_medians(splits)) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "| %s | %zu | %.2f | %.2f | %.2f |\n", m.group.c_str(), m.splits, m.measured_share,
                  m.predicted_share, m.step_ratio);
    out += buf;
  }
  return out;
}

// Per group, medians over its splits: the prompts each TTFT holds (k) and the rest (a), measured and predicted.
struct TtftMedians {
  std::string group;
  std::size_t splits = 0;
  double measured_prompts = NAN, predicted_prompts = NAN, measured_base_ms = NAN, predicted_base_ms = NAN;
};

std::vector<TtftMedians> ttft_medians(const std::vector<validation::TtftDecomposition>& splits) {
  std::map<std::string, std::vector<double>> km, kp, am, ap;
  for (const auto& d : splits) {
    km[d.group].push_back(d.measured_prompts);
    kp[d.group].push_back(d.predicted_prompts);
    am[d.group].push_back(d.measured_base_ms);
    ap[d.group].push_back(d.predicted_base_ms);
  }
  std::vector<TtftMedians> out;
  for (const auto& [group, k] : km) {
    out.push_back({group, k.size(), median_of(k), median_of(kp[group]), median_of(am[group]), median_of(ap[group])});
  }
  return out;
}

// The measured and predicted TTFTs split into the prompts' prefill time and the rest (ttft_decomposition.hpp).
void print_ttft(const std::vector<validation::TtftDecomposition>& splits) {
  std::printf(
      "\nTTFT split by prompt length, TTFT = a + k x p(isl): p the model's marginal time of one prompt beside the "
      "other clients' decodes, k how many prompts' prefill a request waits for (near 1: each prompt prefilled as it "
      "arrives; near the cohort's size: clients in lockstep), a the rest (front end, the wait for a step)\n");
  if (splits.empty()) {
    std::printf("  (no rows differing only in prompt length)\n");
    return;
  }
  std::printf("%-44s %6s %-26s %5s %-16s %-18s %8s %8s %9s %9s\n", "group", "osl", "layout", "C", "isls", "p ms",
              "k meas", "k pred", "a meas", "a pred");
  for (const auto& d : splits) {
    std::string isls, prompt;
    for (int i : d.isls) isls += (isls.empty() ? "" : ",") + std::to_string(i);
    for (double p : d.prompt_ms) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", p);
      prompt += (prompt.empty() ? "" : ",") + std::string(buf);
    }
    std::printf("%-44.44s %6d %-26.26s %5d %-16.16s %-18.18s %8.2f %8.2f %9.1f %9.1f\n", d.group.c_str(), d.osl,
                d.layout.c_str(), d.concurrency, isls.c_str(), prompt.c_str(), d.measured_prompts, d.predicted_prompts,
                d.measured_base_ms, d.predicted_base_ms);
  }
  std::printf("\nper group, medians over its splits: k and a, measured and predicted\n");
  std::printf("%-52s %6s %8s %8s %9s %9s\n", "group", "splits", "k meas", "k pred", "a meas", "a pred");
  for (const TtftMedians& m : ttft_medians(splits)) {
    std::printf("%-52.52s %6zu %8.2f %8.2f %9.1f %9.1f\n", m.group.c_str(), m.splits, m.measured_prompts,
                m.predicted_prompts, m.measured_base_ms, m.predicted_base_ms);
  }
}

std::string markdown_ttft(const std::vector<validation::TtftDecomposition>& splits) {
  std::string out =
      "\nTTFT split by prompt length (`--decompose`; TTFT = a + k x p(isl), over rows differing only in isl, p the "
      "step model's marginal time of one prompt beside the other clients' decodes): per group, the medians of k, the "
      "prompts' prefill a request waits for (near 1: each prompt prefilled as it arrives; near the cohort's size: "
      "clients in lockstep), and of a, the rest in ms, measured and predicted.\n\n"
      "| model | system | backend | mode | splits | k measured | k predicted | a measured (ms) | a predicted (ms) |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const TtftMedians& m : ttft_medians(splits)) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "| %s | %zu | %.2f | %.2f | %.0f | %.0f |\n", m.group.c_str(), m.splits,
                  m.measured_prompts, m.predicted_prompts, m.measured_base_ms, m.predicted_base_ms);
    out += buf;
  }
  return out;
}

}  // namespace

Decompositions decompose(const validation::ValidationResult& result) {
  return {validation::decompose_tpot(result), validation::decompose_ttft(result)};
}

void print_decompositions(const Decompositions& d) {
  print_tpot(d.tpot);
  print_ttft(d.ttft);
}

std::string markdown_decompositions(const Decompositions& d) {
  return (d.tpot.empty() ? "" : markdown_tpot(d.tpot)) + (d.ttft.empty() ? "" : markdown_ttft(d.ttft));
}

}  // namespace fleetcast::cli
