# gconv::hip on AMD: ROCm's own HIP runtime and hipRTC.
find_package(hip REQUIRED CONFIG HINTS $ENV{ROCM_PATH} /opt/rocm PATH_SUFFIXES lib/cmake/hip)
find_library(GCONV_HIPRTC_LIBRARY NAMES hiprtc amdhip64
  HINTS $ENV{ROCM_PATH}/lib /opt/rocm/lib
  DOC "Library providing hiprtc* (libhiprtc since ROCm 5.3, libamdhip64 before)")
if(NOT GCONV_HIPRTC_LIBRARY)
  message(FATAL_ERROR "gconv: hipRTC library not found under $ROCM_PATH/lib or /opt/rocm/lib; set GCONV_HIPRTC_LIBRARY")
endif()

add_library(gconv_hip INTERFACE)
add_library(gconv::hip ALIAS gconv_hip)
target_compile_definitions(gconv_hip INTERFACE __HIP_PLATFORM_AMD__ GCONV_HIP_PLATFORM_AMD=1)
target_link_libraries(gconv_hip INTERFACE hip::host ${GCONV_HIPRTC_LIBRARY})
message(STATUS "gconv: AMD platform, HIP ${hip_VERSION}, hipRTC ${GCONV_HIPRTC_LIBRARY}")
