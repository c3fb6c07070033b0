#pragma once
// SGLang's defaults that follow the GPU's memory (python/sglang/srt/server_args.py, _handle_gpu_memory_settings):
// the deployment parser's scheduler defaults and the simulator's memory rule (simulator/sglang_memory.hpp) read them
// here.

namespace fleetcast::specs {

// --chunked-prefill-size on a GPU of this many GiB: 2,048 below 35 (T4, A10, 4090), 4,096 below 60 (A100-40G,
// L40), 8,192 below 160 (H100, H200), 16,384 above (B200, MI300).
constexpr int sglang_chunked_prefill_tokens(double device_gib) {
  return device_gib < 35.0 ? 2048 : device_gib < 60.0 ? 4096 : device_gib < 160.0 ? 8192 : 16384;
}

}  // namespace fleetcast::specs
