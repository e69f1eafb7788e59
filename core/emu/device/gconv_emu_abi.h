#pragma once
// The one call between the host and an emulated module (gconv_emu_launch.h): a launch of one
// entry over a whole grid. Included by both sides after kernels/gconv_params.h.

struct GconvEmuLaunch {
    void* entry;        // the extern "C" entry, from dlsym
    int with_workspace; // (ConvParams, void*) when set, else (ConvParams)
    gconv::ConvParams params;
    void* workspace;
    unsigned grid[3];
    unsigned threads;
    unsigned long long shared_bytes; // dynamic shared memory of each block
    int descending;                  // run the threads of a block from the last to the first
};

// 0 when every block ran to its end; otherwise non-zero with the reason in `error`.
typedef int (*GconvEmuLaunchFn)(const GconvEmuLaunch* launch, char* error, int error_size);
#define GCONV_EMU_LAUNCH_SYMBOL "gconv_emu_launch"
