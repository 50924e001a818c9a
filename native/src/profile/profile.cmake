# Run mode (docs/PROFILE.md): runs a user's program and reports its dispatches and copies.
target_sources(sdma_probe_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/../util/child_process.cpp
  ${CMAKE_CURRENT_LIST_DIR}/csv_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_spans.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/import_mode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/library_log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rocm_sources.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rocpd_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/run_mode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_collector.cpp
)

# rocprofv3's rocpd databases are SQLite3. AUTO reads them when SQLite3 is found; ON insists;
# OFF leaves it out (the helper then says so when it meets a database: warning rocpd-unsupported).
set(SDMA_PROBE_WITH_SQLITE AUTO CACHE STRING "Read rocprofv3's rocpd (SQLite3) databases (AUTO, ON, OFF)")
set_property(CACHE SDMA_PROBE_WITH_SQLITE PROPERTY STRINGS AUTO ON OFF)
set(sdma_have_sqlite OFF)
if(NOT SDMA_PROBE_WITH_SQLITE STREQUAL "OFF")
  find_package(SQLite3)
  if(SQLite3_FOUND)
    set(sdma_have_sqlite ON)
  elseif(SDMA_PROBE_WITH_SQLITE STREQUAL "ON")
    message(FATAL_ERROR "SDMA_PROBE_WITH_SQLITE=ON but SQLite3 was not found (install libsqlite3-dev)")
  endif()
endif()
# CMake 4.1 renamed the imported target SQLite3::SQLite3 (the old name warns as deprecated).
if(TARGET SQLite3::SQLite3)
  set(sdma_sqlite_target SQLite3::SQLite3)
else()
  set(sdma_sqlite_target SQLite::SQLite3)
endif()
if(sdma_have_sqlite)
  target_compile_definitions(sdma_probe_core PRIVATE SDMA_PROBE_HAVE_SQLITE=1)
  target_link_libraries(sdma_probe_core PUBLIC ${sdma_sqlite_target})
else()
  message(WARNING "sdma-probe is built without SQLite3: it cannot read rocprofv3's rocpd databases "
                  "(install libsqlite3-dev and configure again)")
endif()
message(STATUS "sdma-probe rocpd reader (SQLite3): ${sdma_have_sqlite}")

if(SDMA_PROBE_BUILD_TESTS)
  enable_testing()
  add_executable(run_mode_test ${CMAKE_CURRENT_LIST_DIR}/../../tests/run_mode_test.cpp)
  target_link_libraries(run_mode_test PRIVATE sdma_probe_core sdma_probe_warnings sdma_doctest_main)
  if(sdma_have_sqlite)
    target_compile_definitions(run_mode_test PRIVATE SDMA_PROBE_HAVE_SQLITE=1)
    target_link_libraries(run_mode_test PRIVATE ${sdma_sqlite_target})
  endif()
  # The readers of outside data on hostile input (docs/PROFILE.md, "Reading what others hand you").
  foreach(reader csv_reader rocpd_reader trace_collector)
    add_executable(${reader}_test ${CMAKE_CURRENT_LIST_DIR}/../../tests/${reader}_test.cpp)
    target_include_directories(${reader}_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../../tests)
    target_link_libraries(${reader}_test PRIVATE sdma_probe_core sdma_probe_warnings)
    if(NOT reader STREQUAL "trace_collector")
      target_link_libraries(${reader}_test PRIVATE sdma_doctest_main)  # doctest, with the main that keeps FIXTURES
    endif()
    if(sdma_have_sqlite)
      target_compile_definitions(${reader}_test PRIVATE SDMA_PROBE_HAVE_SQLITE=1)
      target_link_libraries(${reader}_test PRIVATE ${sdma_sqlite_target})
    endif()
    add_test(NAME ${reader} COMMAND ${reader}_test ${CMAKE_CURRENT_LIST_DIR}/../../../test/fixtures)
    # A reader that loops or floods memory fails here instead of hanging the suite.
    set_tests_properties(${reader} PROPERTIES TIMEOUT 120)
  endforeach()
  add_test(NAME run_mode COMMAND run_mode_test ${CMAKE_CURRENT_LIST_DIR}/../../../test/fixtures/rocprofv3
           ${CMAKE_CURRENT_LIST_DIR}/../../../test/fixtures/rocpd)
endif()
