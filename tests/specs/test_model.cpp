// parse_model / to_json(ModelSpec): defaults, round trips and every rejected input.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("a dense GQA model parses with its defaults", "[specs][model]") {
  const ModelSpec m = parse_model(gqa_model_json(), "m.json");
  CHECK(m.name == "dense-test");
  CHECK(m.assumed.empty());
  CHECK(m.num_layers == 32);
  CHECK(m.attention.type == AttentionType::gqa);
  CHECK(m.attention.num_kv_heads == 8);
  CHECK(m.attention.head_dim == 128);
  CHECK(m.attention.sliding_window_layers == 0);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK_FALSE(m.moe.has_value());
  CHECK_FALSE(m.lookup_memory.has_value());
  CHECK(m.mtp_layers == 0);
  CHECK(m.moe_layers() == 0);
  CHECK(m.precision.weights == Precision::bf16);
  CHECK(m.precision.experts == Precision::bf16);  // follows weights
  CHECK(m.precision.kv_cache == Precision::bf16);
  CHECK(m.precision.activations == Precision::bf16);
}

TEST_CASE("experts precision defaults to the weights'", "[specs][model]") {
  json j = gqa_model_json();
  j["precision"] = {{"weights", "fp8"}};
  CHECK(parse_model(j, "m.json").precision.experts == Precision::fp8);
  CHECK(parse_model(j, "m.json").precision.kv_cache == Precision::bf16);
}

TEST_CASE("an MLA MoE model parses", "[specs][model]") {
  const ModelSpec m = parse_model(mla_model_json(), "m.json");
  REQUIRE(m.moe.has_value());
  CHECK(m.moe->num_routed_experts == 256);
  CHECK(m.moe->top_k == 8);
  CHECK(m.moe->shared_expert_width == 0);
  CHECK(m.moe_layers() == 58);
  CHECK(m.attention.type == AttentionType::mla);
  CHECK(m.attention.kv_lora_rank == 512);
  CHECK(m.assumed.at("moe.top_k") == "guess");
  CHECK(m.precision.experts == Precision::nvfp4);
  CHECK(m.precision.kv_cache == Precision::fp8);
  CHECK(m.mtp_layers == 1);
}

TEST_CASE("a CSA model with lookup memory parses, ints accepted for double fields", "[specs][model]") {
  const ModelSpec m = parse_model(csa_model_json(), "m.json");
  CHECK(m.attention.type == AttentionType::csa);
  CHECK(m.attention.global_kv_bytes_per_token == 1200.0);
  CHECK(m.attention.compression_ratio == 4);
  CHECK(m.attention.sliding_window_tokens == 128);
  REQUIRE(m.lookup_memory.has_value());
  CHECK(m.lookup_memory->parameters == 27e9);
  CHECK_FALSE(m.lookup_memory->in_host_memory);
  CHECK(m.tie_word_embeddings);
  CHECK(m.precision.activations == Precision::fp16);
}

TEST_CASE("expert_inputs is unset unless given, round-trips, and must be a tensor-core input", "[specs][model]") {
  json j = mla_model_json();
  CHECK_FALSE(parse_model(j, "m.json").precision.expert_inputs.has_value());
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["precision"].contains("expert_inputs"));
  j["precision"]["expert_inputs"] = "fp8";
  const ModelSpec m = parse_model(j, "m.json");
  REQUIRE(m.precision.expert_inputs.has_value());
  CHECK(*m.precision.expert_inputs == Precision::fp8);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  j["precision"]["expert_inputs"] = "int4";
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "precision.expert_inputs", "", "must be bf16, fp16, fp8, fp4 or nvfp4");
  j["precision"]["expert_inputs"] = "fp6";
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "precision.expert_inputs", "\"fp6\"", "bf16");
}

namespace {
json sparse_mla_model_json() {
  json j = mla_model_json();
  j["attention"]["sparse_top_k_tokens"] = 2048;
  j["attention"]["indexer_heads"] = 64;
  j["attention"]["indexer_head_dim"] = 128;
  return j;
}
}  // namespace

TEST_CASE("mla takes DeepSeek Sparse Attention's indexer as three fields together", "[specs][model]") {
  const ModelSpec m = parse_model(sparse_mla_model_json(), "m.json");
  CHECK(m.attention.type == AttentionType::mla);
  CHECK(m.attention.sparse());
  CHECK(m.attention.sparse_top_k_tokens == 2048);
  CHECK(m.attention.indexer_heads == 64);
  CHECK(m.attention.indexer_head_dim == 128);
  CHECK_FALSE(parse_model(mla_model_json(), "m.json").attention.sparse());
  json partial = sparse_mla_model_json();
  partial["attention"].erase("indexer_heads");
  CHECK_INPUT_ERROR(parse_model(partial, "m.json"), "attention.sparse_top_k_tokens", "2048", "together");
}

namespace {
json sparse_gqa_model_json() {  // gqa_model_json's 32 layers with MiniMax Sparse Attention on the last 29
  json j = gqa_model_json();
  j["attention"]["sparse_top_k_tokens"] = 2048;
  j["attention"]["indexer_heads"] = 8;
  j["attention"]["indexer_head_dim"] = 128;
  j["attention"]["sparse_layers"] = 29;
  return j;
}
}  // namespace

TEST_CASE("gqa takes MiniMax Sparse Attention's indexer and its sparse layers", "[specs][model]") {
  const ModelSpec m = parse_model(sparse_gqa_model_json(), "m.json");
  CHECK(m.attention.sparse());
  CHECK(m.attention.sparse_layers == 29);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  json every = sparse_gqa_model_json();
  every["attention"].erase("sparse_layers");
  CHECK(parse_model(every, "m.json").attention.sparse_layers == 32);  // every layer when not given
  CHECK_FALSE(to_json(parse_model(gqa_model_json(), "m.json"))["attention"].contains("sparse_layers"));

  json j = sparse_gqa_model_json();
  j["attention"]["sparse_layers"] = 33;
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sparse_layers", "33", "must be <= num_layers (32)");
  j = sparse_gqa_model_json();
  j["attention"].erase("indexer_head_dim");
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sparse_top_k_tokens", "2048", "together");
  j = gqa_model_json();
  j["attention"]["sparse_layers"] = 4;
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sparse_layers", "4", "needs sparse_top_k_tokens");
  j = sparse_gqa_model_json();
  j["attention"]["sliding_window_tokens"] = 4096;
  j["attention"]["sliding_window_layers"] = 16;
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sliding_window_layers", "16", "not modelled together");
  j = sparse_gqa_model_json();
  j["linear_attention"] = {
      {"layers", 4}, {"num_key_heads", 16}, {"num_value_heads", 32}, {"key_head_dim", 128}, {"value_head_dim", 128}};
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.layers", "4", "attention.sparse_layers (29)");
}

TEST_CASE("a latent MoE and an MLA output gate parse, round-trip and are written only when set", "[specs][model]") {
  json j = mla_model_json();
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["moe"].contains("latent_width"));
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["attention"].contains("output_gate"));
  j["moe"]["latent_width"] = 3584;
  j["attention"]["output_gate"] = true;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK(m.moe->latent_width == 3584);
  CHECK(m.attention.output_gate);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  j["moe"]["latent_width"] = m.hidden_size + 1;
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "moe.latent_width", std::to_string(m.hidden_size + 1),
                    "must be <= hidden_size");
}

TEST_CASE("a chunked window needs a window", "[specs][model]") {
  json j = gqa_model_json();
  j["attention"]["sliding_window_chunked"] = true;
  CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sliding_window_chunked", "true",
                    "needs sliding_window_tokens");
  j["attention"]["sliding_window_tokens"] = 8192;
  j["attention"]["sliding_window_layers"] = 24;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK(m.attention.sliding_window_chunked);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  CHECK_FALSE(to_json(parse_model(gqa_model_json(), "m.json"))["attention"].contains("sliding_window_chunked"));
}

TEST_CASE("models round-trip through to_json", "[specs][model][roundtrip]") {
  for (const json& j :
       {gqa_model_json(), mla_model_json(), sparse_mla_model_json(), sparse_gqa_model_json(), csa_model_json()}) {
    const ModelSpec m = parse_model(j, "m.json");
    const json out = to_json(m);
    const ModelSpec back = parse_model(out, "echo.json");
    CHECK(back == m);
    CHECK(to_json(back) == out);
  }
}

TEST_CASE("to_json(ModelSpec) emits only the keys of the attention type", "[specs][model]") {
  const json gqa = to_json(parse_model(gqa_model_json(), "m.json"));
  CHECK(gqa["attention"].contains("num_kv_heads"));
  CHECK_FALSE(gqa["attention"].contains("kv_lora_rank"));
  CHECK(gqa["moe"].is_null());
  const json mla = to_json(parse_model(mla_model_json(), "m.json"));
  CHECK_FALSE(mla["attention"].contains("num_kv_heads"));
  CHECK_FALSE(mla["attention"].contains("indexer_heads"));
  CHECK(mla["moe"]["top_k"] == 8);
}

TEST_CASE("moe and lookup_memory may be null", "[specs][model]") {
  json j = gqa_model_json();
  j["moe"] = nullptr;
  j["lookup_memory"] = nullptr;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK_FALSE(m.moe.has_value());
  CHECK_FALSE(m.lookup_memory.has_value());
}

TEST_CASE("model errors name the field, the value and what is valid", "[specs][model][errors]") {
  SECTION("unknown key lists the valid keys") {
    json j = gqa_model_json();
    j["num_layer"] = 32;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "num_layer", "32", "valid keys: name, source");
    CHECK_THROWS_WITH(parse_model(j, "m.json"), Catch::Contains("num_layers") && Catch::Contains("m.json"));
  }
  SECTION("a key of another attention type is unknown") {
    json j = gqa_model_json();
    j["attention"]["kv_lora_rank"] = 512;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.kv_lora_rank", "512", "head_dim");
  }
  SECTION("missing required key") {
    json j = gqa_model_json();
    j.erase("hidden_size");
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "hidden_size", "", "missing");
    json k = mla_model_json();
    k["attention"].erase("v_head_dim");
    CHECK_INPUT_ERROR(parse_model(k, "m.json", "model"), "model.attention.v_head_dim", "", "missing");
  }
  SECTION("a float for an int field is a wrong type") {
    json j = gqa_model_json();
    j["num_layers"] = 1.5;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "num_layers", "1.5", "expected an integer");
    j["num_layers"] = "32";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "num_layers", "\"32\"", "expected an integer");
  }
  SECTION("wrong type for bool, string and object fields") {
    json j = gqa_model_json();
    j["tie_word_embeddings"] = 1;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "tie_word_embeddings", "1", "expected a boolean");
    j = gqa_model_json();
    j["name"] = 7;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "name", "7", "expected a string");
    j = gqa_model_json();
    j["attention"] = "gqa";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention", "\"gqa\"", "expected an object");
    j = gqa_model_json();
    j["assumed"] = {{"hidden_size", 1}};
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "assumed.hidden_size", "1", "expected a string");
  }
  SECTION("num_kv_heads must divide num_query_heads") {
    json j = gqa_model_json();
    j["attention"]["num_kv_heads"] = 6;
    CHECK_INPUT_ERROR(parse_model(j, "s.json", "model"), "model.attention.num_kv_heads", "6", "divide");
  }
  SECTION("top_k larger than the experts") {
    json j = mla_model_json();
    j["moe"]["top_k"] = 300;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "moe.top_k", "300", "num_routed_experts (256)");
  }
  SECTION("unknown precision lists the valid ones") {
    json j = gqa_model_json();
    j["precision"]["weights"] = "int8";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "precision.weights", "\"int8\"", "fp32, bf16, fp16, fp8, fp4, nvfp4");
  }
  SECTION("unknown attention type") {
    json j = gqa_model_json();
    j["attention"]["type"] = "mha";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.type", "\"mha\"", "gqa, mla, csa");
  }
  SECTION("impossible counts") {
    json j = gqa_model_json();
    j["num_layers"] = 0;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "num_layers", "0", ">= 1");
    j = gqa_model_json();
    j["dense_layers"] = 30;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "dense_layers", "30", "dense model");
    j = mla_model_json();
    j["dense_layers"] = 61;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "dense_layers", "61", "MoE");
    j = gqa_model_json();
    j["dense_ffn_width"] = 0;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "dense_ffn_width", "0", "> 0");
  }
  SECTION("sliding window: both set or neither, layers within the model") {
    json j = gqa_model_json();
    j["attention"]["sliding_window_tokens"] = 4096;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sliding_window_layers", "", "both 0 or both > 0");
    j["attention"]["sliding_window_layers"] = 33;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.sliding_window_layers", "33", "num_layers (32)");
  }
  SECTION("lookup memory layers within the model") {
    json j = csa_model_json();
    j["lookup_memory"]["lookup_layers"] = 41;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "lookup_memory.lookup_layers", "41", "num_layers (40)");
  }
  SECTION("the top level must be an object") {
    CHECK_INPUT_ERROR(parse_model(json::array(), "m.json", "model"), "model", "[]", "expected an object");
  }
}

TEST_CASE("qk_norm_across_heads parses, round-trips, is left out of files without it and is gqa's alone",
          "[specs][model]") {
  json j = gqa_model_json();
  CHECK_FALSE(parse_model(j, "m.json").attention.qk_norm_across_heads);
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["attention"].contains("qk_norm_across_heads"));
  j["attention"]["qk_norm_across_heads"] = true;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK(m.attention.qk_norm_across_heads);
  CHECK(to_json(m)["attention"]["qk_norm_across_heads"] == true);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  SECTION("not a boolean") {
    j["attention"]["qk_norm_across_heads"] = "yes";
    CHECK_THROWS_WITH(parse_model(j, "m.json"), Catch::Contains("attention.qk_norm_across_heads"));
  }
  SECTION("on MLA, whose norms act on the replicated latents") {
    json mla = mla_model_json();
    mla["attention"]["qk_norm_across_heads"] = true;
    CHECK_THROWS_WITH(parse_model(mla, "m.json"), Catch::Contains("qk_norm_across_heads"));
  }
}

TEST_CASE("linear_attention and output_gate parse, round-trip, and are left out of files without them",
          "[specs][model]") {
  json j = gqa_model_json();
  CHECK_FALSE(to_json(parse_model(j, "m.json")).contains("linear_attention"));
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["attention"].contains("output_gate"));
  const int layers = j["num_layers"].get<int>();
  j["attention"]["output_gate"] = true;
  j["linear_attention"] = {{"layers", layers - 1}, {"num_key_heads", 4},   {"num_value_heads", 8},
                           {"key_head_dim", 64},   {"value_head_dim", 32}, {"conv_kernel", 4}};
  const ModelSpec m = parse_model(j, "m.json");
  REQUIRE(m.linear_attention.has_value());
  CHECK(m.linear_attention->state == Precision::fp32);  // the default: engines accumulate the state in FP32
  CHECK(m.linear_attention_layers() == layers - 1);
  CHECK(m.attention.output_gate);
  const json out = to_json(m);
  CHECK(parse_model(out, "echo.json") == m);
  CHECK(out["linear_attention"]["state"] == "fp32");
  SECTION("more linear layers than the model has") {
    j["linear_attention"]["layers"] = layers + 1;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.layers", std::to_string(layers + 1),
                      "must be <= num_layers");
  }
  SECTION("value heads not a multiple of key heads") {
    j["linear_attention"]["num_value_heads"] = 6;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.num_value_heads", "6", "multiple of num_key_heads");
  }
  SECTION("a state format the recurrence cannot accumulate in") {
    j["linear_attention"]["state"] = "fp8";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.state", "\"fp8\"", "fp32, bf16 or fp16");
  }
  SECTION("with csa softmax layers") {
    json k = csa_model_json();
    k["linear_attention"] = j["linear_attention"];
    k["linear_attention"]["layers"] = 1;
    CHECK_INPUT_ERROR(parse_model(k, "m.json"), "linear_attention.layers", "1", "not csa");
  }
}

TEST_CASE("attention-free and FFN-free layers, squared-ReLU FFNs and Mamba-2 layers parse, round-trip and are checked",
          "[specs][model]") {
  json j = gqa_model_json();
  const int layers = j["num_layers"].get<int>();
  const json plain = to_json(parse_model(j, "m.json"));
  for (const char* key : {"attention_free_layers", "ffn_free_layers", "ffn_gated"}) CHECK_FALSE(plain.contains(key));
  // A Nemotron-H-like stack: half the blocks a Mamba-2 mixer alone, a quarter attention alone, a quarter an MLP alone.
  j["attention_free_layers"] = layers / 4;
  j["linear_attention"] = {{"kind", "mamba2"},    {"layers", layers / 2}, {"num_key_heads", 8}, {"num_value_heads", 64},
                           {"key_head_dim", 128}, {"value_head_dim", 64}, {"conv_kernel", 4}};
  j["ffn_free_layers"] = layers - layers / 4;
  j["dense_layers"] = layers / 4;
  j["ffn_gated"] = false;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK(m.softmax_attention_layers() == layers - layers / 2 - layers / 4);
  CHECK(m.linear_attention->kind == LinearAttentionKind::mamba2);
  CHECK(m.linear_attention->inputs_per_value_head() == 1.0);
  CHECK(m.ffn_matrices() == 2.0);
  CHECK(m.moe_layers() == 0);
  const json out = to_json(m);
  CHECK(out["linear_attention"]["kind"] == "mamba2");
  CHECK(parse_model(out, "echo.json") == m);
  SECTION("a dense model's FFN layers must be every layer with one") {
    j["dense_layers"] = layers;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "dense_layers", std::to_string(layers),
                      "must equal num_layers - ffn_free_layers");
  }
  SECTION("no layer may be left to attend") {
    j["attention_free_layers"] = layers;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention_free_layers", std::to_string(layers),
                      "must be < num_layers");
  }
  SECTION("linear layers among the attention-free ones") {
    j["attention_free_layers"] = layers - layers / 4;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.layers", std::to_string(layers / 2),
                      "num_layers - attention_free_layers");
  }
  SECTION("an unknown recurrence") {
    j["linear_attention"]["kind"] = "rwkv";
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "linear_attention.kind", "\"rwkv\"", "gated_deltanet");
  }
  SECTION("with csa, whose compressed cache spans every layer") {
    json k = csa_model_json();
    k["attention_free_layers"] = 1;
    CHECK_INPUT_ERROR(parse_model(k, "m.json"), "attention_free_layers", "1", "csa");
  }
  SECTION("an MoE model's FFN layers: dense ones first, the rest MoE, the FFN-free ones left out") {
    json e = mla_model_json();
    e["ffn_free_layers"] = 2;
    const ModelSpec moe = parse_model(e, "m.json");
    CHECK(moe.moe_layers() == moe.num_layers - moe.dense_layers - 2);
  }
}

TEST_CASE("a gqa model's global layers may have their own KV heads, head size and shared key and value",
          "[specs][model]") {
  json j = gqa_model_json();
  CHECK_FALSE(to_json(parse_model(j, "m.json"))["attention"].contains("global_num_kv_heads"));
  j["attention"]["sliding_window_tokens"] = 1024;
  j["attention"]["sliding_window_layers"] = j["num_layers"].get<int>() - 2;
  j["attention"]["global_num_kv_heads"] = 2;
  j["attention"]["global_head_dim"] = 512;
  j["attention"]["global_k_is_v"] = true;
  const ModelSpec m = parse_model(j, "m.json");
  CHECK(m.attention.full_kv_heads() == 2);
  CHECK(m.attention.full_head_dim() == 512);
  CHECK(parse_model(to_json(m), "echo.json") == m);
  SECTION("without sliding layers there are no global ones to set apart") {
    j["attention"]["sliding_window_tokens"] = 0;
    j["attention"]["sliding_window_layers"] = 0;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.global_num_kv_heads", "2", "sliding_window_layers");
  }
  SECTION("KV heads that do not divide the query heads") {
    j["attention"]["global_num_kv_heads"] = 3;
    CHECK_INPUT_ERROR(parse_model(j, "m.json"), "attention.global_num_kv_heads", "3", "must divide num_query_heads");
  }
}
