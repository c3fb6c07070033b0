#pragma once
// Which model preset a published checkpoint's name stands for. Benchmark rows and files name the checkpoint they
// served ("nvidia/DeepSeek-R1-0528-FP4-v2", "meta-llama/Meta-Llama-3.1-405B"); the presets are named after the
// architecture ("deepseek-r1", "llama-3.1-405b"). Precision, tuning and release-date suffixes do not change the
// architecture; a few checkpoints under another name share one, and say so in the note.

#include <string>

namespace fleetcast::validation {

struct CheckpointModel {
  std::string preset;  // the model preset, "" when no preset has this architecture
  std::string name;    // the name looked up: the checkpoint's without organisation, case and suffixes
  std::string note;    // "" unless the preset is another checkpoint's of the same architecture (and which)
  // The weights' format the name's precision suffix states, as a quant mode ("fp8", "nvfp4", "mxfp4", "bf16"): the
  // last such suffix ("-FP8" of "...-Instruct-2507-FP8"); "" when the name states none.
  std::string quant_mode;
};

// The last part of model_path in lower case, without a leading "meta-" ("Meta-Llama-3.1-8B"), then without any
// trailing "-instruct", "-thinking", "-base", "-chat", "-preview", precision suffix ("-fp8", "-nvfp4", "-fp4",
// "-fp4-v2", "-mxfp4", "-bf16", "-fp8-dynamic", "-static-pertensor") or four-digit release date ("-0528",
// "-2507"), repeatedly; that name if it is a preset's, else the preset of the same architecture
// (checkpoint_names.cpp lists them, each with its source).
CheckpointModel model_for_checkpoint(const std::string& model_path);

}  // namespace fleetcast::validation
