# Run mode (docs/RUN-MODE.md): runs a user's program and reports its dispatches and copies.
target_sources(sdma_probe_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/child_process.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mini_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rocm_sources.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_mode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_collector.cpp
)

if(SDMA_PROBE_BUILD_TESTS)
  enable_testing()
  add_executable(run_mode_test ${CMAKE_CURRENT_LIST_DIR}/run_mode_test.cpp)
  target_link_libraries(run_mode_test PRIVATE sdma_probe_core sdma_probe_warnings)
  add_test(NAME run_mode COMMAND run_mode_test ${CMAKE_CURRENT_LIST_DIR}/../../../test/fixtures/rocprofv3)
endif()
