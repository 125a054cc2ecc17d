# The CUDA backend's prebuilt kernel store (docs/cuda.md, "Prebuilt kernels"; issue 37):
# at build time, offline_programs --cuda lists the programs the CUDA backend asks for with
# the default tuning (host contexts posing as NVIDIA GPUs), and gala-cuda-store compiles
# them with gala's own NVRTC path, on several threads, for the architectures of
# GALA_CUDA_ARCHS into gala-cuda-kernels/ beside the library (build tree, install, wheel).
# At run time a program is looked up in the user's kernel cache, then in the store, then
# compiled with NVRTC.
#
# GALA_CUDA_ARCHS: as CMAKE_CUDA_ARCHITECTURES spells them ("90" = CUBIN for sm_90 and PTX
# for compute_90, "90-real" = CUBIN only, "90-virtual" = PTX only), "native" (the GPUs
# nvidia-smi lists, CUBIN only) or "none" (no store: fast development builds).
set(GALA_CUDA_ARCHS "80-real;90" CACHE STRING
    "Prebuilt CUDA kernels for these architectures (e.g. 80-real;90, native, none)")
include(ProcessorCount)
ProcessorCount(_gala_ncpu)
if(_gala_ncpu LESS 1)
  set(_gala_ncpu 2)
endif()
set(GALA_CUDA_STORE_JOBS ${_gala_ncpu} CACHE STRING "Parallel NVRTC compilations of the kernel store")

set(GALA_CUDA_STORE_ARCHS "")
if(GALA_HAVE_CUDA AND NOT GALA_CUDA_ARCHS STREQUAL "none" AND NOT GALA_CUDA_ARCHS STREQUAL ""
   AND NOT GALA_CUDA_ARCHS STREQUAL "OFF")
  if(GALA_CUDA_ARCHS STREQUAL "native")
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _gala_caps RESULT_VARIABLE _gala_rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_gala_rc EQUAL 0 AND _gala_caps)
      string(REPLACE "." "" _gala_caps "${_gala_caps}")
      string(REGEX REPLACE "[\r\n]+" ";" _gala_caps "${_gala_caps}")
      list(REMOVE_DUPLICATES _gala_caps)
      foreach(c ${_gala_caps})
        list(APPEND GALA_CUDA_STORE_ARCHS "${c}-real")
      endforeach()
    else()
      message(WARNING "GALA_CUDA_ARCHS=native but nvidia-smi lists no GPU: no prebuilt CUDA kernels")
    endif()
  else()
    set(GALA_CUDA_STORE_ARCHS "${GALA_CUDA_ARCHS}")
  endif()
endif()

# The program lister, built from the test's sources without Check (the wheel builds no tests).
if(GALA_BUILD_TESTS OR GALA_CUDA_STORE_ARCHS)
  add_executable(offline_programs tests/offline_programs.c tests/ops.c)
  target_link_libraries(offline_programs PRIVATE gala_static)
  target_include_directories(offline_programs PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(offline_programs PRIVATE _GNU_SOURCE=1)
  target_compile_options(offline_programs PRIVATE ${GALA_WARNINGS})
endif()

if(GALA_HAVE_CUDA)
  # the tool also serves tests/test_cuda_store.c when the store itself is off
  add_executable(gala-cuda-store tools/gala-cuda-store.c)
  target_link_libraries(gala-cuda-store PRIVATE gala_static)
  target_include_directories(gala-cuda-store PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(gala-cuda-store PRIVATE _GNU_SOURCE=1)
  target_compile_options(gala-cuda-store PRIVATE ${GALA_WARNINGS})
  target_compile_definitions(gala_obj PRIVATE
    GALA_CUDA_STORE_INSTALL_DIR="${CMAKE_INSTALL_FULL_LIBDIR}/gala-cuda-kernels")
endif()

if(GALA_CUDA_STORE_ARCHS)
  set(GALA_CUDA_STORE_DIR ${PROJECT_BINARY_DIR}/gala-cuda-kernels)
  set(_gala_list ${PROJECT_BINARY_DIR}/gala-cuda-programs.txt)
  add_custom_command(OUTPUT ${GALA_CUDA_STORE_DIR}/index.txt
    COMMAND offline_programs --cuda ${_gala_list}
    COMMAND gala-cuda-store --list ${_gala_list} --out ${GALA_CUDA_STORE_DIR}
            --archs "${GALA_CUDA_STORE_ARCHS}" --jobs ${GALA_CUDA_STORE_JOBS}
    DEPENDS offline_programs gala-cuda-store ${GALA_CL_FILES}
    COMMENT "Prebuilt CUDA kernels for ${GALA_CUDA_STORE_ARCHS} (GALA_CUDA_ARCHS=none skips them)"
    VERBATIM)
  add_custom_target(gala_cuda_kernels ALL DEPENDS ${GALA_CUDA_STORE_DIR}/index.txt)
  install(DIRECTORY ${GALA_CUDA_STORE_DIR}/ DESTINATION ${CMAKE_INSTALL_LIBDIR}/gala-cuda-kernels
          FILES_MATCHING PATTERN "*.bin" PATTERN "index.txt")
  if(GALA_BUILD_PYTHON) # beside gala._ext, which links the library statically
    install(DIRECTORY ${GALA_CUDA_STORE_DIR}/ DESTINATION gala/gala-cuda-kernels COMPONENT python
            FILES_MATCHING PATTERN "*.bin" PATTERN "index.txt")
  endif()
  message(STATUS "gala: prebuilt CUDA kernels for ${GALA_CUDA_STORE_ARCHS}")
else()
  message(STATUS "gala: no prebuilt CUDA kernels (NVRTC compiles at first use)")
endif()
