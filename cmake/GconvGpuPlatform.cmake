# Resolves GCONV_GPU_PLATFORM (auto | nvidia | amd | none) into GCONV_GPU_PLATFORM_RESOLVED
# and, for nvidia/amd, an imported target gconv::hip carrying the HIP host API.
# auto: ROCm if present, else the CUDA toolkit, else none.

set(_platform ${GCONV_GPU_PLATFORM})
if(NOT _platform MATCHES "^(auto|nvidia|amd|none)$")
  message(FATAL_ERROR "GCONV_GPU_PLATFORM must be auto, nvidia, amd or none (got '${_platform}')")
endif()

if(_platform STREQUAL "auto")
  if(EXISTS /opt/rocm/lib/libamdhip64.so OR DEFINED ENV{ROCM_PATH})
    set(_platform amd)
  else()
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
      set(_platform nvidia)
    else()
      set(_platform none)
    endif()
  endif()
endif()

if(_platform STREQUAL "nvidia")
  include(GconvHipNvidia)
elseif(_platform STREQUAL "amd")
  include(GconvHipAmd)
endif()
set(GCONV_GPU_PLATFORM_RESOLVED ${_platform})

# ROCm's hipRTC as a file to dlopen (jit/amd_hiprtc.*): lets any GPU build compile-check the
# AMD path. Debian 12 ships ROCm 5.2's inside libamdhip64.so.5; ROCm 5.3+ has libhiprtc.so.
if(NOT _platform STREQUAL "none")
  find_library(GCONV_AMD_HIPRTC_LIBRARY NAMES libhiprtc.so libamdhip64.so.5
    PATHS /opt/rocm/lib /usr/lib/x86_64-linux-gnu
    DOC "ROCm hipRTC library loaded at run time for AMD compile checks (optional)")
  mark_as_advanced(GCONV_AMD_HIPRTC_LIBRARY)
  # A real ROCm hipRTC has its device-library builtins beside it; anything else that answers
  # to the name (a CUDA machine's stray libhiprtc.so) is not used.
  if(GCONV_AMD_HIPRTC_LIBRARY)
    get_filename_component(_hiprtc_dir ${GCONV_AMD_HIPRTC_LIBRARY} DIRECTORY)
    file(GLOB _hiprtc_builtins ${_hiprtc_dir}/libhiprtc-builtins.so*)
    if(NOT _hiprtc_builtins)
      message(STATUS "gconv: ${GCONV_AMD_HIPRTC_LIBRARY} has no libhiprtc-builtins beside it: no AMD compile checks")
      set(GCONV_AMD_HIPRTC_LIBRARY "" CACHE FILEPATH "" FORCE)
    endif()
  endif()
endif()
