#pragma once
// Shared by the specs tests: valid sample specs as JSON, a scratch folder, and a check for InputError.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::specs::test {

using nlohmann::json;

// Runs `f`, which must throw InputError, and returns that error.
template <class F>
InputError input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  throw std::runtime_error("expected an InputError, but nothing was thrown");
}

}  // namespace fleetcast::specs::test

// The expression throws InputError naming `field_path` with a value containing `value_part` and a problem
// containing `problem_part`; what() carries the field and the value too.
#define CHECK_INPUT_ERROR(expr, field_path, value_part, problem_part)                                 \
  do {                                                                                                \
    const auto err_ = ::fleetcast::specs::test::input_error_of([&] { (void)(expr); });                \
    INFO("what(): " << err_.what());                                                                  \
    CHECK(err_.field() == std::string(field_path));                                                   \
    CHECK_THAT(err_.value(), Catch::Contains(value_part));                                            \
    CHECK_THAT(err_.problem(), Catch::Contains(problem_part));                                        \
    CHECK_THAT(std::string(err_.what()), Catch::Contains(field_path) && Catch::Contains(value_part)); \
  } while (false)

namespace fleetcast::specs::test {

inline json hardware_json() {
  return json::parse(R"({
    "name": "hw-test", "source": "test figures", "assumed": {"price_usd_per_gpu_hour": "made up"},
    "arch": "sm_90", "peak_tflops": {"bf16": 989, "fp8": 1979},
    "hbm_gb": 80, "hbm_tb_per_s": 3.35, "nvlink_gb_per_s": 900, "scale_up_domain_gpus": 8, "gpus_per_node": 8,
    "nic_gbit_per_s": 400, "host_link_gb_per_s": 64, "host_memory_gb": 2048, "power_w": 700,
    "price_usd_per_gpu_hour": 2.5})");
}

inline json gqa_model_json() {
  return json::parse(R"({
    "name": "dense-test", "source": "test figures",
    "num_layers": 32, "hidden_size": 4096, "vocab_size": 128256, "max_context_tokens": 131072,
    "attention": {"type": "gqa", "num_query_heads": 32, "num_kv_heads": 8, "head_dim": 128},
    "dense_layers": 32, "dense_ffn_width": 14336,
    "precision": {"weights": "bf16"}})");
}

inline json mla_model_json() {
  return json::parse(R"({
    "name": "moe-test", "source": "test figures", "assumed": {"moe.top_k": "guess"},
    "num_layers": 61, "hidden_size": 7168, "vocab_size": 129280, "max_context_tokens": 163840,
    "tie_word_embeddings": false,
    "attention": {"type": "mla", "num_query_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
                  "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128},
    "dense_layers": 3, "dense_ffn_width": 18432,
    "moe": {"num_routed_experts": 256, "top_k": 8, "num_shared_experts": 1, "expert_width": 2048},
    "mtp_layers": 1,
    "precision": {"weights": "fp8", "experts": "nvfp4", "kv_cache": "fp8", "activations": "bf16"}})");
}

inline json csa_model_json() {
  return json::parse(R"({
    "name": "csa-test", "source": "test figures", "assumed": {},
    "num_layers": 40, "hidden_size": 4096, "vocab_size": 100000, "max_context_tokens": 1000000,
    "tie_word_embeddings": true,
    "attention": {"type": "csa", "num_query_heads": 64, "q_lora_rank": 0, "kv_lora_rank": 512,
                  "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                  "global_kv_bytes_per_token": 1200, "sparse_top_k_tokens": 2048, "indexer_heads": 64,
                  "indexer_head_dim": 128, "compression_ratio": 4,
                  "sliding_window_tokens": 128, "sliding_window_layers": 40},
    "dense_layers": 1, "dense_ffn_width": 11008,
    "moe": {"num_routed_experts": 64, "top_k": 6, "num_shared_experts": 2, "expert_width": 1408,
            "shared_expert_width": 2816},
    "lookup_memory": {"parameters": 27000000000, "lookup_layers": 2, "row_bytes": 1024, "in_host_memory": false},
    "precision": {"weights": "bf16", "experts": "fp4", "kv_cache": "fp8", "activations": "fp16"}})");
}

inline json deployment_json() {
  return json{{"name", "dep-test"}, {"hardware", hardware_json()}, {"nodes", 2}, {"replica", {{"tp", 4}}}};
}

inline json workload_json() {
  return json::parse(R"({
    "name": "chat",
    "arrival": {"kind": "poisson", "rate_per_s": 12.5},
    "input_tokens": {"kind": "uniform", "min": 100, "max": 3000},
    "output_tokens": {"kind": "fixed", "value": 256}})");
}

inline json scenario_json() {
  return json{{"name", "scenario-test"},
              {"model", gqa_model_json()},
              {"deployment", deployment_json()},
              {"workload", workload_json()},
              {"num_requests", 1000}};
}

// A fresh folder under the system's temp folder, removed at the end of the scope.
class ScratchDir {
public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("fleetcast-specs-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& relative, const std::string& text) const {
    const auto p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

private:
  std::filesystem::path path_;
};

}  // namespace fleetcast::specs::test
