// SLO headroom against the error on record (slo_margin.hpp): the headroom by hand, the headroom an error needs, which
// error a profile quotes first, and what the plan's text says of them.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/planner/plan_report.hpp"
#include "fleetcast/planner/slo_margin.hpp"

using namespace fleetcast;

namespace {

specs::PlanSpec two_classes() {
  specs::PlanSpec plan;
  specs::RequestClass chat;
  chat.name = "chat";
  chat.slo = {1000.0, 50.0};  // TTFT and TPOT objectives, ms
  specs::RequestClass code;
  code.name = "code";
  code.slo = {2000.0, 0.0};  // TTFT only
  plan.workload_spec.classes = {chat, code};
  return plan;
}

nlohmann::json error(double ape, double ratio) { return {{"median_ape", ape}, {"median_ratio", ratio}}; }

}  // namespace

TEST_CASE("the headroom is the least over the classes with that objective of 1 - p95 / target", "[planner][margin]") {
  const nlohmann::json figures = {{"classes",
                                   {{"chat", {{"ttft_p95_ms", 800.0}, {"tpot_p95_ms", 40.0}}},
                                    {"code", {{"ttft_p95_ms", 1800.0}, {"tpot_p95_ms", 100.0}}}}}};
  const planner::SloHeadroom h = planner::slo_headroom(two_classes(), figures);
  CHECK(h.ttft == Approx(0.1));  // chat 1 - 800/1000 = 0.2, code 1 - 1800/2000 = 0.1
  CHECK(h.tpot == Approx(0.2));  // chat only: code sets no TPOT objective, its 100 ms does not count
  specs::PlanSpec no_tpot = two_classes();
  no_tpot.workload_spec.classes[0].slo.tpot_ms = 0.0;
  CHECK(std::isnan(planner::slo_headroom(no_tpot, figures).tpot));
}

TEST_CASE("the headroom an error needs is the median error less what ran high", "[planner][margin]") {
  CHECK(planner::needed_headroom(0.31, 1.13) == Approx(0.18));
  CHECK(planner::needed_headroom(0.16, 0.94) == Approx(0.16));  // forecasts ran low: all of it
  CHECK(planner::needed_headroom(1.09, 2.55) == 0.0);           // they ran 2.5x high: none
  CHECK(planner::needed_headroom(1.50, 0.50) == 1.0);           // capped: no headroom is enough
  CHECK(std::isnan(planner::needed_headroom(NAN, 1.0)));
}

TEST_CASE("a profile's error on record is the one its forecasts quote first, and flags the thin headroom",
          "[planner][margin]") {
  const nlohmann::json measured = {{"ttft", error(0.20, 0.95)}, {"tpot", error(0.10, 1.00)}};
  const nlohmann::json unseen = {{"ttft", error(0.31, 1.13)}, {"tpot", error(0.14, 1.11)}};
  nlohmann::json profile = {{"hardware", "b200"},
                            {"measured_error", measured},
                            {"unseen_model_error", unseen},
                            {"unfitted_gpu_error", nullptr}};
  planner::ErrorOnRecord e = planner::error_on_record(profile);
  CHECK(e.figure == "unseen_model");  // a model outside the fit: the folds, not the fit's own models' held-out runs
  CHECK(e.ttft == Approx(0.31));
  CHECK(e.tpot_ratio == Approx(1.11));
  profile["unseen_model_error"] = nullptr;
  CHECK(planner::error_on_record(profile).figure == "measured");
  CHECK(planner::error_on_record({{"hardware", "gb200"}}).figure.empty());

  // TTFT 10% below its objective needs 18%: flagged; TPOT 20% below needs 14 - 11 = 3%: clear.
  const std::vector<std::string> within = planner::within_error({0.10, 0.20}, e);
  CHECK(within == std::vector<std::string>{"ttft"});
  CHECK(planner::within_error({0.10, 0.20}, planner::ErrorOnRecord{}).empty());  // nothing on record: no flag
  const nlohmann::json j = planner::margin_json({0.10, NAN}, e);
  CHECK(j["slo_headroom"]["tpot"].is_null());
  CHECK(j["error_on_record"]["ttft_needed"].get<double>() == Approx(0.18));
  CHECK(j["within_error"] == nlohmann::json{"ttft"});
}

TEST_CASE("the plan's text marks the thin headroom and names the cheapest configuration beyond the error",
          "[planner][margin]") {
  // The profile's error on record: TTFT 25% at 1.05x needs 20%, TPOT 10% at 1.00x needs 10%.
  const calibration::PairAccuracy measured{
      "b200", "vllm", "fitted", "0123456789abcdef", 30, {"gpt-oss-120b"}, {0.25, 0.5, 1.05}, {0.1, 0.2, 1.0}, "moe"};
  const auto entry = [](int rank, int config, double ttft_headroom, bool flagged) {
    return nlohmann::json{
        {"rank", rank},
        {"config", config},
        {"description", "b200 x8 tp8 config " + std::to_string(config)},
        {"gpus", 8},
        {"usd_per_hour", 30.0},
        {"figures", {{"usd_per_m_blended", 0.1 * rank}, {"classes", {{"chat", {{"ttft_p95_ms", 900.0}}}}}}},
        {"pareto", false},
        {"slo_headroom", {{"ttft", ttft_headroom}, {"tpot", nullptr}}},
        {"error_on_record", {{"figure", "measured"}}},
        {"within_error", flagged ? nlohmann::json{"ttft"} : nlohmann::json::array()}};
  };
  nlohmann::json out = {{"summary",
                         {{"candidates", 2},
                          {"invalid_combinations", 0},
                          {"pruned", 0},
                          {"simulated", 2},
                          {"feasible", 2},
                          {"pruned_by_reason", nlohmann::json::object()},
                          {"rejected_after_simulation_by_reason", nlohmann::json::object()}}},
                        {"feasible", {entry(1, 4, 0.05, true), entry(2, 9, 0.40, false)}},
                        {"rejected", nlohmann::json::array()},
                        {"profiles",
                         {{{"hardware", "b200"},
                           {"runtime", "vllm"},
                           {"kind", "fitted"},
                           {"kernel_caveats", nlohmann::json::array()},
                           {"measured_error", calibration::to_json(measured)}}}}};
  out["best_beyond_error"] = out["feasible"][1];
  const std::string text = planner::plan_text(out, 5);
  CHECK(text.find(" 5%!/-") != std::string::npos);
  CHECK(text.find(" 40%/-") != std::string::npos);
  CHECK(text.find("headroom needed: b200 vllm 20%/10% (held-out runs)\n") != std::string::npos);
  CHECK(text.find("cheapest beyond the error on record: rank 2, config 9 b200 x8 tp8 config 9 (0.2000 $/M tok)\n") !=
        std::string::npos);
  out["best_beyond_error"] = nullptr;
  CHECK(planner::plan_text(out, 5).find("no feasible configuration clears its profile's error on record") !=
        std::string::npos);

  // An AMD GPU's pick quotes the fitted (NVIDIA) GPUs' figure: what it needs is at least that.
  const calibration::UnfittedGpuError amd{
      "mi355x", "vllm", {"b200", "h100"}, 40, {0.3, 0.2, 0.4, 0.9}, {0.1, 0.05, 0.15, 1.0}, "moe", "AMD", "mesh"};
  out["profiles"][0] = nlohmann::json{{"hardware", "mi355x"},
                                      {"runtime", "vllm"},
                                      {"kind", "datasheet"},
                                      {"kernel_caveats", nlohmann::json::array()},
                                      {"unfitted_gpu_error", calibration::to_json(amd)}};
  CHECK(planner::plan_text(out, 5).find(
            "headroom needed: mi355x vllm 30%/10% (fitted GPUs given its pick, none of them AMD's or on a mesh scale-up: "
            "at least this)\n") != std::string::npos);
  // A PCIe-only NVIDIA part: the maker is scored, its fabric is not.
  calibration::UnfittedGpuError pcie = amd;
  pcie.hardware = "rtx6000pro";
  pcie.unscored_vendor = "";
  pcie.unscored_scale_up = "pcie";
  out["profiles"][0]["hardware"] = "rtx6000pro";
  out["profiles"][0]["unfitted_gpu_error"] = calibration::to_json(pcie);
  CHECK(planner::plan_text(out, 5).find("(fitted GPUs given its pick, none of them on a pcie scale-up: at least "
                                        "this)\n") != std::string::npos);
}
