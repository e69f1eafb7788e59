# gconv_patch_hip_nvidia_headers(SOURCE_DIR <dir holding hip/> BINARY_DIR <dir>)
# Copies HIP's headers into BINARY_DIR/hip and edits the spots in
# hip/nvidia_detail/nvidia_hip_runtime_api.h that no longer compile against CUDA 13
# (HIP 5.2 predates it). Each edit replaces one exact snippet; a snippet that is not found
# stops the configure, because a silently unpatched header would fail later and far away.
# The patched file is rewritten only when its text changes, so re-configuring does not
# rebuild everything that includes HIP.

function(_gconv_hip_replace content_var file what old new)
  string(FIND "${${content_var}}" "${old}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR
      "gconv: cannot patch ${file} for CUDA 13: the snippet for '${what}' was not found. "
      "These HIP headers differ from the HIP 5.2 headers the patch was written for; set "
      "GCONV_HIP_INCLUDE_DIR to a HIP 5.2 include directory (Debian's libamdhip64-dev).")
  endif()
  string(REPLACE "${old}" "${new}" patched "${${content_var}}")
  set(${content_var} "${patched}" PARENT_SCOPE)
endfunction()

function(gconv_patch_hip_nvidia_headers)
  cmake_parse_arguments(ARG "" "SOURCE_DIR;BINARY_DIR" "" ${ARGN})
  set(api_rel hip/nvidia_detail/nvidia_hip_runtime_api.h)
  set(src ${ARG_SOURCE_DIR}/${api_rel})
  set(dst ${ARG_BINARY_DIR}/${api_rel})
  if(NOT EXISTS ${src})
    message(FATAL_ERROR "gconv: ${src} not found: HIP's CUDA backend headers are missing from ${ARG_SOURCE_DIR}")
  endif()

  file(COPY ${ARG_SOURCE_DIR}/hip DESTINATION ${ARG_BINARY_DIR}
       PATTERN nvidia_hip_runtime_api.h EXCLUDE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src} ${CMAKE_CURRENT_FUNCTION_LIST_FILE})

  file(READ ${src} text)

  # --- cudaMemAdvise / cudaMemPrefetchAsync take a cudaMemLocation since CUDA 13.
  _gconv_hip_replace(text ${src} "hipMemAdvise helper"
    "inline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,"
    "// gconv CUDA 13 patch: HIP's device ordinal (cudaCpuDeviceId for the host) as a location.
inline static struct cudaMemLocation gconvHipDeviceToMemLocation(int device) {
    struct cudaMemLocation location;
    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    location.id = device == cudaCpuDeviceId ? 0 : device;
    return location;
}

inline static hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,")
  _gconv_hip_replace(text ${src} "hipMemAdvise call"
    "        hipMemoryAdviseTocudaMemoryAdvise(advice), device));"
    "        hipMemoryAdviseTocudaMemoryAdvise(advice), gconvHipDeviceToMemLocation(device)));")
  _gconv_hip_replace(text ${src} "hipMemPrefetchAsync call"
    "cudaMemPrefetchAsync(dev_ptr, count, device, stream)"
    "cudaMemPrefetchAsync(dev_ptr, count, gconvHipDeviceToMemLocation(device), 0, stream)")

  # --- hipChooseDevice: cudaDeviceProp lost clockRate, computeMode, memoryClockRate.
  foreach(field clockRate computeMode memoryClockRate)
    _gconv_hip_replace(text ${src} "hipChooseDevice ${field}"
      "    cdprop.${field} = prop->${field};\n"
      "    /* gconv CUDA 13 patch: cudaDeviceProp::${field} removed */\n")
  endforeach()

  # --- hipGetDeviceProperties: read the removed fields as device attributes.
  _gconv_hip_replace(text ${src} "hipGetDeviceProperties clock rates"
    "    p_prop->clockRate = cdprop.clockRate;\n    p_prop->memoryClockRate = cdprop.memoryClockRate;\n"
    "    /* gconv CUDA 13 patch: clock rates are device attributes now */
    cudaDeviceGetAttribute(&p_prop->clockRate, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&p_prop->memoryClockRate, cudaDevAttrMemoryClockRate, device);\n")
  _gconv_hip_replace(text ${src} "hipGetDeviceProperties computeMode"
    "    p_prop->computeMode = cdprop.computeMode;\n    p_prop->clockInstructionRate = cdprop.clockRate; // Same as clock-rate:\n"
    "    /* gconv CUDA 13 patch: computeMode is a device attribute now */
    cudaDeviceGetAttribute(&p_prop->computeMode, cudaDevAttrComputeMode, device);
    p_prop->clockInstructionRate = p_prop->clockRate; // Same as clock-rate:\n")
  _gconv_hip_replace(text ${src} "hipGetDeviceProperties cooperativeMultiDeviceLaunch"
    "p_prop->cooperativeMultiDeviceLaunch = cdprop.cooperativeMultiDeviceLaunch;"
    "p_prop->cooperativeMultiDeviceLaunch = 0; /* gconv CUDA 13 patch: removed from CUDA */")
  _gconv_hip_replace(text ${src} "hipGetDeviceProperties kernelExecTimeoutEnabled"
    "p_prop->kernelExecTimeoutEnabled = cdprop.kernelExecTimeoutEnabled;"
    "cudaDeviceGetAttribute(&p_prop->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout, device); /* gconv CUDA 13 patch */")

  # --- hipDeviceGetAttribute: cudaDevAttrCooperativeMultiDeviceLaunch removed.
  _gconv_hip_replace(text ${src} "hipDeviceGetAttribute CooperativeMultiDeviceLaunch"
    "            cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;\n            break;"
    "            *pi = 0; /* gconv CUDA 13 patch: multi-device cooperative launch removed */\n            return hipSuccess;")

  # --- cuCtxCreate gained a CUctxCreateParams* argument.
  _gconv_hip_replace(text ${src} "hipCtxCreate"
    "cuCtxCreate(ctx, flags, device)"
    "cuCtxCreate(ctx, NULL, flags, device) /* gconv CUDA 13 patch */")

  # --- Removed runtime functions: the wrappers report hipErrorNotSupported.
  _gconv_hip_replace(text ${src} "hipBindTexture"
    "    return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));"
    "    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)size;
    return hipErrorNotSupported; /* gconv CUDA 13 patch: cudaBindTexture removed */")
  _gconv_hip_replace(text ${src} "hipBindTexture2D"
    "    return hipCUDAErrorTohipError(cudaBindTexture2D(offset, tex, devPtr, desc, width, height, pitch));"
    "    (void)offset; (void)tex; (void)devPtr; (void)desc; (void)width; (void)height; (void)pitch;
    return hipErrorNotSupported; /* gconv CUDA 13 patch: cudaBindTexture2D removed */")
  _gconv_hip_replace(text ${src} "hipGetTextureAlignmentOffset"
    "    return hipCUDAErrorTohipError(cudaGetTextureAlignmentOffset(offset,texref));"
    "    (void)offset; (void)texref;
    return hipErrorNotSupported; /* gconv CUDA 13 patch: cudaGetTextureAlignmentOffset removed */")
  _gconv_hip_replace(text ${src} "hipLaunchCooperativeKernelMultiDevice"
    "    return hipCUDAErrorTohipError(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, numDevices, flags));"
    "    (void)launchParamsList; (void)numDevices; (void)flags;
    return hipErrorNotSupported; /* gconv CUDA 13 patch: cudaLaunchCooperativeKernelMultiDevice removed */")

  file(WRITE ${dst}.tmp "${text}")
  file(COPY_FILE ${dst}.tmp ${dst} ONLY_IF_DIFFERENT)
  file(REMOVE ${dst}.tmp)
endfunction()
