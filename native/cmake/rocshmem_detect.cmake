# Finds a rocSHMEM that can carry the AMD engine/device path (docs/MEASUREMENT.md) by its
# installed headers, without building anything, so that it also runs in script mode
# (native/tests/rocshmem_detect_test.cmake feeds it fake prefixes).
#
# sdma_detect_rocshmem(<out> SEARCH <prefix>...)
#   <out>_STATUS       found | not-found | too-old | no-sdma
#   <out>_PREFIX       the prefix whose include/rocshmem/rocshmem.hpp was read
#   <out>_INCLUDE_DIR  <prefix>/include
#   <out>_REASON       one sentence for the runtime error where the status is not "found"
#
# "too-old": the headers have no unique-id initialization (ROCSHMEM_INIT_WITH_UNIQUEID,
# rocshmem_get_uniqueid), which the helper needs to start two PEs without MPI.
# "no-sdma": rocshmem_config.h does not define USE_SDMA, so ROCSHMEM_SDMA_ENABLED would
# have nothing to enable and puts would be load/store copies.
function(sdma_detect_rocshmem out)
  cmake_parse_arguments(ARG "" "" "SEARCH" ${ARGN})
  set(status not-found)
  set(prefix "")
  set(reason "no include/rocshmem/rocshmem.hpp under ${ARG_SEARCH}")
  foreach(dir IN LISTS ARG_SEARCH)
    if(dir AND EXISTS "${dir}/include/rocshmem/rocshmem.hpp")
      set(prefix "${dir}")
      break()
    endif()
  endforeach()
  if(prefix)
    file(GLOB headers "${prefix}/include/rocshmem/*.hpp" "${prefix}/include/rocshmem/*.h")
    set(uniqueid FALSE)
    foreach(header IN LISTS headers)
      file(STRINGS "${header}" hits REGEX "ROCSHMEM_INIT_WITH_UNIQUEID")
      if(hits)
        set(uniqueid TRUE)
      endif()
    endforeach()
    set(sdma FALSE)
    if(EXISTS "${prefix}/include/rocshmem/rocshmem_config.h")
      file(STRINGS "${prefix}/include/rocshmem/rocshmem_config.h" hits REGEX "^[ \t]*#[ \t]*define[ \t]+USE_SDMA([ \t]|$)")
      if(hits)
        set(sdma TRUE)
      endif()
    endif()
    if(NOT uniqueid)
      set(status too-old)
      set(reason "the rocSHMEM at ${prefix} has no unique-id initialization (ROCSHMEM_INIT_WITH_UNIQUEID), which sdma-probe needs to start its two PEs without MPI")
    elseif(NOT sdma)
      set(status no-sdma)
      set(reason "the rocSHMEM at ${prefix} was built without its SDMA transport (USE_SDMA is not defined in rocshmem_config.h)")
    else()
      set(status found)
      set(reason "")
    endif()
  endif()
  set(${out}_STATUS "${status}" PARENT_SCOPE)
  set(${out}_PREFIX "${prefix}" PARENT_SCOPE)
  if(prefix)
    set(${out}_INCLUDE_DIR "${prefix}/include" PARENT_SCOPE)
  else()
    set(${out}_INCLUDE_DIR "" PARENT_SCOPE)
  endif()
  set(${out}_REASON "${reason}" PARENT_SCOPE)
endfunction()
