# Writes fleetcast_engine_version.hpp with the commit the engine is being built from, at build time rather
# than configure time: a trace names the commit that measured it, and a tree with uncommitted changes is
# marked "-dirty". The file is rewritten only when its text changes, so an unchanged tree rebuilds nothing.
# cmake -DSOURCE_DIR=... -DOUTPUT=... -DVERSION=... -P engine_commit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "#pragma once\n")
string(APPEND text "#define FLEETCAST_ENGINE_VERSION \"${VERSION}\"\n")
string(APPEND text "#define FLEETCAST_ENGINE_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
