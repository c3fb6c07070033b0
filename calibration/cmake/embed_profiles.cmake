# Writes OUTPUT, a C++ file holding every PROFILES_DIR/*.json, PROFILES_DIR/fitted/*.json,
# PROFILES_DIR/serving/*.json and PROFILES_DIR/accuracy/*.json (measured_accuracy.hpp's tables, not profiles) as a raw
# string literal named by its path under PROFILES_DIR without the extension
# ("h100", "fitted/h100", "serving/h200-vllm").
# Run as: cmake -DPROFILES_DIR=... -DOUTPUT=... -P embed_profiles.cmake
file(GLOB files RELATIVE "${PROFILES_DIR}" "${PROFILES_DIR}/*.json" "${PROFILES_DIR}/fitted/*.json"
     "${PROFILES_DIR}/serving/*.json" "${PROFILES_DIR}/accuracy/*.json")
list(SORT files)
set(entries "")
foreach(relative IN LISTS files)
  set(path "${PROFILES_DIR}/${relative}")
  string(REGEX REPLACE "\\.json$" "" name "${relative}")
  file(READ "${path}" text)
  string(FIND "${text}" ")fcprofile\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )fcprofile\"")
  endif()
  string(APPEND entries "    {\"${name}\", R\"fcprofile(${text})fcprofile\"},\n")
endforeach()
set(content "// Generated from ${PROFILES_DIR} by calibration/cmake/embed_profiles.cmake: do not edit.\n")
string(APPEND content "#include \"embedded_profiles.hpp\"\n\nnamespace fleetcast::calibration::detail {\n")
if(entries STREQUAL "")
  string(APPEND content "std::span<const EmbeddedProfile> embedded_profiles() { return {}; }\n")
else()
  string(APPEND content "namespace {\nconst EmbeddedProfile kProfiles[] = {\n${entries}};\n}  // namespace\n")
  string(APPEND content "std::span<const EmbeddedProfile> embedded_profiles() { return kProfiles; }\n")
endif()
string(APPEND content "}  // namespace fleetcast::calibration::detail\n")
file(WRITE "${OUTPUT}" "${content}")
