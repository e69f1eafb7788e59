#pragma once
// A function of NVIDIA's driver library (libcuda.so.1, opened once), looked up at run time:
// gconv links only HIP, yet a few driver calls have no HIP form (the tensor-map encoders, the
// cluster occupancy query).
#include <string>

namespace gconv::worker {

// nullptr on an AMD build, without the library or without the symbol; `why` (if given) then
// says which.
void* cuda_driver_symbol(const char* name, std::string* why = nullptr);

} // namespace gconv::worker
