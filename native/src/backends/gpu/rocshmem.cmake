# AMD engine/device through rocSHMEM (docs/MEASUREMENT.md, "engine/device on AMD"): the PE
# program sdma-probe-rocshmem-pe, built when the hip backend is built and a usable rocSHMEM
# is found under SDMA_ROCSHMEM_ROOT, ROCM_PATH or /opt/rocm. The helper's launcher side
# (rocshmem_launcher.cpp) is plain C++ and always built, so that it is tested everywhere.
set(SDMA_PROBE_WITH_ROCSHMEM AUTO CACHE STRING "Build the rocSHMEM engine/device PE program (AUTO, ON, OFF)")
set_property(CACHE SDMA_PROBE_WITH_ROCSHMEM PROPERTY STRINGS AUTO ON OFF)
set(SDMA_ROCSHMEM_ROOT "" CACHE PATH "rocSHMEM install prefix searched before ROCM_PATH and /opt/rocm")
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/rocshmem_detect.cmake)

target_sources(sdma_probe_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/rocshmem_launcher.cpp)

set(sdma_have_rocshmem OFF)
if(sdma_have_hip AND NOT SDMA_PROBE_WITH_ROCSHMEM STREQUAL "OFF")
  sdma_detect_rocshmem(sdma_rocshmem SEARCH "${SDMA_ROCSHMEM_ROOT}" "${ROCM_PATH}" "$ENV{ROCM_PATH}" /opt/rocm)
  if(sdma_rocshmem_STATUS STREQUAL "found")
    find_package(rocshmem CONFIG QUIET HINTS "${sdma_rocshmem_PREFIX}")
    if(TARGET roc::rocshmem)
      set(sdma_have_rocshmem ON)
    else()
      set(sdma_rocshmem_STATUS no-package)
      set(sdma_rocshmem_REASON "the rocSHMEM headers at ${sdma_rocshmem_PREFIX} came without its CMake package (roc::rocshmem)")
    endif()
  endif()
  if(SDMA_PROBE_WITH_ROCSHMEM STREQUAL "ON" AND NOT sdma_have_rocshmem)
    message(FATAL_ERROR "SDMA_PROBE_WITH_ROCSHMEM=ON but no usable rocSHMEM: ${sdma_rocshmem_REASON}")
  endif()
  message(STATUS "sdma-probe rocSHMEM engine/device: ${sdma_rocshmem_STATUS} ${sdma_rocshmem_REASON}")
  if(NOT sdma_have_rocshmem AND NOT sdma_rocshmem_STATUS STREQUAL "not-found")
    # Found but unusable: the runtime error says why instead of "not found".
    target_compile_definitions(sdma_probe_core PRIVATE "SDMA_ROCSHMEM_UNUSABLE=\"${sdma_rocshmem_REASON}\"")
  endif()
endif()

if(sdma_have_rocshmem)
  # rocSHMEM's device API is linked as relocatable device code; only this program needs it.
  add_executable(sdma-probe-rocshmem-pe ${CMAKE_CURRENT_LIST_DIR}/rocshmem_pe.hip ${CMAKE_CURRENT_LIST_DIR}/../../backend/timing_plan.cpp
               ${CMAKE_CURRENT_LIST_DIR}/../../protocol/json_writer.cpp ${CMAKE_CURRENT_LIST_DIR}/../../util/ndjson_reader.cpp)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/rocshmem_pe.hip PROPERTIES LANGUAGE HIP)
  set_target_properties(sdma-probe-rocshmem-pe PROPERTIES HIP_SEPARABLE_COMPILATION ON)
  target_include_directories(sdma-probe-rocshmem-pe PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../..)
  target_compile_options(sdma-probe-rocshmem-pe PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
  target_link_options(sdma-probe-rocshmem-pe PRIVATE -fgpu-rdc --hip-link)
  target_link_libraries(sdma-probe-rocshmem-pe PRIVATE roc::rocshmem hip::device sdma_probe_warnings)
  target_compile_definitions(sdma_probe_core PRIVATE SDMA_HAVE_ROCSHMEM_PE=1)
  add_dependencies(sdma_probe_core sdma-probe-rocshmem-pe)
endif()
