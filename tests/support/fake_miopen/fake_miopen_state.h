#pragma once
// What the fake MIOpen (fake_miopen.cpp) records, shared with the test that drives it.
#include <cstddef>

struct FakeTensor {
    int id = -1;
    int type = -1;
    int dims = 0;
    int lens[5] = {}, strides[5] = {};
    bool destroyed = false;
};

struct FakeConv {
    int spatial = 0, mode = -1, groups = 0;
    int pad[3] = {}, stride[3] = {}, dilation[3] = {};
    bool destroyed = false;
};

// miopenConvAlgoPerf_t's layout.
struct FakeAlgoPerf {
    int algo;
    float time;
    size_t memory;
};

// A search: its direction (0 forward, 1 bwd_data, 2 bwd_weights), its three tensors' ids and
// data in argument order, and its flags.
struct FakeFind {
    int direction = -1;
    int tensors[3] = {-1, -1, -1};
    const void* data[3] = {};
    void* conv = nullptr;
    int requested = 0;
    void* workspace = nullptr;
    size_t workspace_bytes = 0;
    bool exhaustive = false;
};

// A run: its direction, alpha and beta, tensors and data in argument order, algorithm and
// workspace.
struct FakeRun {
    int direction = -1;
    float alpha = -1, beta = -1;
    int tensors[3] = {-1, -1, -1};
    const void* data[3] = {};
    int algo = -1;
    void* workspace = nullptr;
    size_t workspace_bytes = 0;
};

struct FakeMiopenState {
    void* stream = nullptr;
    FakeTensor tensors[8];
    int tensor_count = 0;
    FakeConv conv;
    int workspace_query = -1;
    size_t workspace_needed = 0;
    // What the searches return (set by the test), and their status.
    FakeAlgoPerf result[8] = {};
    int results = 0;
    int find_status = 0;
    FakeFind find;
    FakeRun runs[8];
    int run_count = 0;
};
