# The simulator's version goes into every report; the git commit too when the tree is a checkout.
execute_process(
  COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE FLEETCAST_GIT_COMMIT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT FLEETCAST_GIT_COMMIT)
  set(FLEETCAST_GIT_COMMIT "unknown")
endif()
