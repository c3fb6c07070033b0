// Engine launch settings read from a YAML file or a serve command line (server_config.hpp).
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/server_config.hpp"
#include "lower.hpp"
#include "server_keys.hpp"

namespace fleetcast::traces {
namespace {

using namespace detail;

void flatten(const YAML::Node& node, const std::string& prefix, const std::string& source,
             std::vector<ServerSetting>& out);

// One setting; a value written as a JSON object (vLLM's --speculative-config '{"method": "mtp", ...}', a YAML string
// holding one) becomes its keys under the setting's name, as a nested YAML mapping does. Other text that starts with
// a brace (a chat template) stays as written, except where the key is one whose settings are modelled.
void add_setting(const std::string& key, const std::string& value, const std::string& source,
                 std::vector<ServerSetting>& out) {
  YAML::Node object;
  if (value.starts_with("{") && value.ends_with("}")) {
    try {
      object = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      if (key == "speculative_config") throw InputError(source, key, value, "not a JSON object: " + e.msg);
    }
  }
  if (object.IsMap()) {
    flatten(object, key, source, out);
  } else if (key == "speculative_config") {
    throw InputError(source, key, value, "a JSON object of speculative decoding settings");
  } else {
    out.push_back({key, value});
  }
}

// Nested mappings as dotted keys down to their scalars; a list as its items joined by ',' (a mapping item as {...}).
void flatten(const YAML::Node& node, const std::string& prefix, const std::string& source,
             std::vector<ServerSetting>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = normal_key(kv.first.as<std::string>());
      flatten(kv.second, prefix.empty() ? key : prefix + "." + key, source, out);
    }
  } else if (node.IsSequence()) {
    std::string joined;
    for (const auto& item : node) {
      joined += (joined.empty() ? "" : ",") + (item.IsScalar() ? item.as<std::string>() : std::string("{...}"));
    }
    out.push_back({prefix, joined});
  } else if (node.IsScalar()) {
    add_setting(prefix, node.as<std::string>(), source, out);
  }
  // null: not given
}

// Shell words: quotes, backslash escapes and `\` + newline joins, as a launch script writes them.
std::vector<std::string> shell_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < command.size() &&
                 std::string("\"\\$`").find(command[i + 1]) != std::string::npos) {
        word += command[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      if (command[i + 1] != '\n') {
        word += command[i + 1];
        in_word = true;
      }
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw InputError("", "--server-args", command.substr(0, 60), "an unclosed quote");
  if (in_word) words.push_back(word);
  return words;
}

bool is_bool_text(const std::string& v) {
  const std::string l = lower(v);
  return l == "true" || l == "false";
}

// A flag that takes no value unless `true` or `false` follows: the engines' switches.
bool switch_flag(const std::string& key) {
  if (key.starts_with("enable_") || key.starts_with("disable_") || key.starts_with("no_")) return true;
  for (const char* k : {"trust_remote_code", "enforce_eager", "async_scheduling", "print_iter_log"}) {
    if (key == k) return true;
  }
  return false;
}

bool is_number(const std::string& w) {
  return !w.empty() && w.find_first_not_of("0123456789.-") == std::string::npos &&
         std::isdigit(static_cast<unsigned char>(w.back()));
}

bool looks_like_flag(const std::string& w) {
  return w.size() > 1 && w[0] == '-' && !(std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.');
}

}  // namespace

ServerSettings parse_server_config(const std::string& yaml_text, const std::string& source) {
  ServerSettings s;
  s.source = source;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw InputError(source, "line " + std::to_string(e.mark.line + 1), "", "not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return s;
  if (!root.IsMap()) throw InputError(source, "", "", "the settings are a YAML mapping of key: value");
  try {
    flatten(root, "", source, s.entries);
  } catch (const YAML::Exception& e) {
    throw InputError(source, "line " + std::to_string(e.mark.line + 1), "", "not a key: value setting: " + e.msg);
  }
  s.engine = engine_from_keys(s.entries);
  if (const std::string named = model_key(s.entries); !named.empty()) s.model = named;
  return s;
}

ServerSettings read_server_config(const std::filesystem::path& yaml) {
  std::ifstream in(yaml, std::ios::binary);
  if (!in) throw InputError(yaml.string(), "", "", "cannot open the server settings file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_server_config(text.str(), yaml.string());
}

ServerSettings parse_server_command(const std::string& command, const std::string& source) {
  ServerSettings s;
  s.source = source;
  std::vector<std::string> words;
  try {
    words = shell_words(command);
  } catch (const InputError& e) {
    throw InputError(source, "", e.value(), e.problem());
  }
  // The engine's program: trtllm-serve, `vllm serve`, `python -m sglang.launch_server`, `sglang serve`. Flags before
  // it belong to launchers (mpirun, env).
  std::size_t first = 0;
  bool positional_model = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string base = std::filesystem::path(words[i]).filename().string();
    const bool serve_next = i + 1 < words.size() && words[i + 1] == "serve";
    if (base == "trtllm-serve") {
      s.engine = "trtllm";
      first = i + (serve_next ? 2 : 1);  // `trtllm-serve serve MODEL` as well as `trtllm-serve MODEL`
      positional_model = true;
    } else if ((base == "vllm" || base == "sglang") && serve_next) {
      s.engine = base;
      first = i + 2;
      positional_model = true;
    } else if (base.find("sglang.launch_server") != std::string::npos) {
      s.engine = "sglang";
      first = i + 1;
    } else if (base.find("vllm.entrypoints.openai.api_server") != std::string::npos) {
      s.engine = "vllm";
      first = i + 1;
    } else {
      continue;
    }
    break;
  }
  if (s.engine.empty()) {
    // Only flags were given: they start at the first word that is one.
    first = words.size();
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (looks_like_flag(words[i])) {
        first = i;
        break;
      }
    }
  }
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!looks_like_flag(w)) {
      if (positional_model && s.model.empty()) s.model = w;
      continue;
    }
    std::string key = w.substr(w.find_first_not_of('-'));
    std::string value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      key = normal_key(key);
    } else {
      key = normal_key(key);
      const bool next_is_value = i + 1 < words.size() && !looks_like_flag(words[i + 1]);
      if (switch_flag(key)) {
        value = next_is_value && is_bool_text(words[i + 1]) ? words[++i] : "true";
      } else if (next_is_value) {
        value = words[++i];
        // A list flag (SGLang's --cuda-graph-bs 1 2 4 8) takes the numbers after it; a word that is not one is a
        // positional argument.
        while (is_number(words[i]) && i + 1 < words.size() && is_number(words[i + 1])) value += "," + words[++i];
      } else {
        value = "true";
      }
    }
    // vLLM's negated switches: --no-enable-prefix-caching.
    if (key.starts_with("no_") && switch_flag(key.substr(3)) && value == "true") {
      key = key.substr(3);
      value = "false";
    }
    add_setting(key, value, source, s.entries);
  }
  // A short alias vLLM and SGLang share (-tp) names no engine; only the program or a specific key does.
  if (s.engine.empty()) s.engine = engine_from_keys(s.entries);
  if (const std::string named = model_key(s.entries); !named.empty()) s.model = named;
  return s;
}

}  // namespace fleetcast::traces
