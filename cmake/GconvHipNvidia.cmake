# gconv::hip on NVIDIA: HIP's CUDA backend (header-only wrappers over the CUDA runtime, the
# driver API and NVRTC). The HIP headers (HIP 5.2 from Debian's libamdhip64-dev, or a copy of
# them under GCONV_DEPS_DIR) are copied into the build tree and patched for CUDA 13 by
# GconvPatchHipHeaders.cmake; nothing from AMD is linked.
find_package(CUDAToolkit REQUIRED)
if(CUDAToolkit_VERSION_MAJOR LESS 13)
  message(FATAL_ERROR "gconv: the NVIDIA platform needs CUDA 13 or newer (found ${CUDAToolkit_VERSION} "
                      "at ${CUDAToolkit_BIN_DIR}); the HIP header patch is written for CUDA 13")
endif()

find_path(GCONV_HIP_INCLUDE_DIR hip/hip_runtime_api.h
  HINTS ${GCONV_DEPS_DIR}/hip/include
  PATHS /usr/include /opt/rocm/include
  DOC "Directory holding hip/hip_runtime_api.h (HIP 5.2 headers with nvidia_detail/)")
if(NOT GCONV_HIP_INCLUDE_DIR OR NOT EXISTS ${GCONV_HIP_INCLUDE_DIR}/hip/nvidia_detail/nvidia_hip_runtime_api.h)
  message(FATAL_ERROR "gconv: HIP headers with the CUDA backend (hip/nvidia_detail/) not found. "
                      "Install libamdhip64-dev, run scripts/device/bundle_deps.sh and pass "
                      "-DGCONV_DEPS_DIR=<repo>/.deps, or set GCONV_HIP_INCLUDE_DIR (now '${GCONV_HIP_INCLUDE_DIR}')")
endif()

include(GconvPatchHipHeaders)
set(GCONV_HIP_PATCHED_INCLUDE_DIR ${CMAKE_BINARY_DIR}/hip-nvidia/include)
gconv_patch_hip_nvidia_headers(SOURCE_DIR ${GCONV_HIP_INCLUDE_DIR} BINARY_DIR ${GCONV_HIP_PATCHED_INCLUDE_DIR})

add_library(gconv_hip INTERFACE)
add_library(gconv::hip ALIAS gconv_hip)
# SYSTEM: the HIP 5.2 wrappers call many APIs CUDA 13 deprecates; their warnings are not ours.
target_include_directories(gconv_hip SYSTEM INTERFACE ${GCONV_HIP_PATCHED_INCLUDE_DIR})
target_compile_definitions(gconv_hip INTERFACE __HIP_PLATFORM_NVIDIA__ __HIP_PLATFORM_NVCC__
                                               GCONV_HIP_PLATFORM_NVIDIA=1)
target_link_libraries(gconv_hip INTERFACE CUDA::cudart CUDA::cuda_driver CUDA::nvrtc)
message(STATUS "gconv: NVIDIA platform, CUDA ${CUDAToolkit_VERSION}, HIP headers from ${GCONV_HIP_INCLUDE_DIR}")

# On machines without an NVIDIA driver (CI) programs linked to libcuda.so.1 would not even
# start. For tests there, GCONV_CUDA_STUB_DIR holds libcuda.so.1 pointing at the toolkit's stub,
# whose calls fail cleanly (device_count() is then 0 and GPU tests skip). It is set only when no
# real driver library is found, so that it can never shadow one.
find_library(_gconv_real_libcuda NAMES libcuda.so.1
  PATHS /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/lib/wsl/lib
  NO_DEFAULT_PATH NO_CACHE)
set(GCONV_CUDA_STUB_DIR "")
if(NOT _gconv_real_libcuda AND EXISTS ${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so)
  set(GCONV_CUDA_STUB_DIR ${CMAKE_BINARY_DIR}/cuda-stub)
  file(MAKE_DIRECTORY ${GCONV_CUDA_STUB_DIR})
  file(CREATE_LINK ${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so ${GCONV_CUDA_STUB_DIR}/libcuda.so.1 SYMBOLIC)
  message(STATUS "gconv: no NVIDIA driver here; GPU tests load the stub from ${GCONV_CUDA_STUB_DIR}")
endif()
