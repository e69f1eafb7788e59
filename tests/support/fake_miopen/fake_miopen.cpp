// A stand-in for libMIOpen.so with the entry points gconv's MIOpen baseline binds: it touches
// no device memory and records what it was asked, so that a test on a machine without ROCm can
// check every argument the baseline passes (descriptors, groups, the search's tensors and
// flags, which algorithm each candidate launches on which buffers). fake_miopen_state() hands
// the record to the test.
#include "fake_miopen_state.h"

#include <cstring>

namespace {

FakeMiopenState state;

FakeTensor* tensor(void* d) {
    return static_cast<FakeTensor*>(d);
}

void record_find(int direction, void* a, const void* a_data, void* b, const void* b_data, void* c,
                 void* c_data, int requested, int* returned, FakeAlgoPerf* perf, void* workspace,
                 size_t bytes, bool exhaustive) {
    FakeFind& f = state.find;
    f.direction = direction;
    f.tensors[0] = tensor(a)->id, f.tensors[1] = tensor(b)->id, f.tensors[2] = tensor(c)->id;
    f.data[0] = a_data, f.data[1] = b_data, f.data[2] = c_data;
    f.conv = c;
    f.requested = requested;
    f.workspace = workspace;
    f.workspace_bytes = bytes;
    f.exhaustive = exhaustive;
    const int n = state.results < requested ? state.results : requested;
    std::memcpy(perf, state.result, sizeof(FakeAlgoPerf) * size_t(n));
    *returned = n;
}

int record_run(int direction, const void* alpha, void* a, const void* a_data, void* b,
               const void* b_data, int algo, const void* beta, void* c, void* c_data,
               void* workspace, size_t bytes) {
    FakeRun& r = state.runs[state.run_count++ % 8];
    r.direction = direction;
    r.alpha = *static_cast<const float*>(alpha);
    r.beta = *static_cast<const float*>(beta);
    r.tensors[0] = tensor(a)->id, r.tensors[1] = tensor(b)->id, r.tensors[2] = tensor(c)->id;
    r.data[0] = a_data, r.data[1] = b_data, r.data[2] = c_data;
    r.algo = algo;
    r.workspace = workspace;
    r.workspace_bytes = bytes;
    return 0;
}

} // namespace

extern "C" {

FakeMiopenState* fake_miopen_state() {
    return &state;
}

int miopenCreate(void** handle) {
    *handle = &state;
    return 0;
}
int miopenDestroy(void*) {
    return 0;
}
int miopenSetStream(void*, void* stream) {
    state.stream = stream;
    return 0;
}
const char* miopenGetErrorString(int) {
    return "fake error";
}
int miopenGetVersion(size_t* major, size_t* minor, size_t* patch) {
    *major = 3, *minor = 1, *patch = 4;
    return 0;
}
int miopenCreateTensorDescriptor(void** d) {
    FakeTensor* t = &state.tensors[state.tensor_count];
    t->id = state.tensor_count++;
    *d = t;
    return 0;
}
int miopenDestroyTensorDescriptor(void* d) {
    tensor(d)->destroyed = true;
    return 0;
}
int miopenSetTensorDescriptor(void* d, int type, int dims, const int* lens, const int* strides) {
    FakeTensor* t = tensor(d);
    t->type = type;
    t->dims = dims;
    for (int i = 0; i < dims && i < 5; ++i) t->lens[i] = lens[i], t->strides[i] = strides[i];
    return 0;
}
int miopenCreateConvolutionDescriptor(void** d) {
    *d = &state.conv;
    return 0;
}
int miopenDestroyConvolutionDescriptor(void*) {
    state.conv.destroyed = true;
    return 0;
}
int miopenInitConvolutionNdDescriptor(void*, int spatial, const int* pad, const int* stride,
                                      const int* dilation, int mode) {
    FakeConv& c = state.conv;
    c.spatial = spatial;
    for (int i = 0; i < spatial && i < 3; ++i)
        c.pad[i] = pad[i], c.stride[i] = stride[i], c.dilation[i] = dilation[i];
    c.mode = mode;
    return 0;
}
int miopenSetConvolutionGroupCount(void*, int groups) {
    state.conv.groups = groups;
    return 0;
}
int miopenConvolutionForwardGetWorkSpaceSize(void*, void*, void*, void*, void*, size_t* bytes) {
    state.workspace_query = 0;
    *bytes = state.workspace_needed;
    return 0;
}
int miopenConvolutionBackwardDataGetWorkSpaceSize(void*, void*, void*, void*, void*,
                                                  size_t* bytes) {
    state.workspace_query = 1;
    *bytes = state.workspace_needed;
    return 0;
}
int miopenConvolutionBackwardWeightsGetWorkSpaceSize(void*, void*, void*, void*, void*,
                                                     size_t* bytes) {
    state.workspace_query = 2;
    *bytes = state.workspace_needed;
    return 0;
}
int miopenFindConvolutionForwardAlgorithm(void*, void* x, const void* xd, void* w, const void* wd,
                                          void* conv, void* y, void* yd, int requested,
                                          int* returned, FakeAlgoPerf* perf, void* ws, size_t bytes,
                                          bool exhaustive) {
    (void)conv;
    record_find(0, x, xd, w, wd, y, yd, requested, returned, perf, ws, bytes, exhaustive);
    return state.find_status;
}
int miopenFindConvolutionBackwardDataAlgorithm(void*, void* dy, const void* dyd, void* w,
                                               const void* wd, void* conv, void* dx, void* dxd,
                                               int requested, int* returned, FakeAlgoPerf* perf,
                                               void* ws, size_t bytes, bool exhaustive) {
    (void)conv;
    record_find(1, dy, dyd, w, wd, dx, dxd, requested, returned, perf, ws, bytes, exhaustive);
    return state.find_status;
}
int miopenFindConvolutionBackwardWeightsAlgorithm(void*, void* dy, const void* dyd, void* x,
                                                  const void* xd, void* conv, void* dw, void* dwd,
                                                  int requested, int* returned, FakeAlgoPerf* perf,
                                                  void* ws, size_t bytes, bool exhaustive) {
    (void)conv;
    record_find(2, dy, dyd, x, xd, dw, dwd, requested, returned, perf, ws, bytes, exhaustive);
    return state.find_status;
}
int miopenConvolutionForward(void*, const void* alpha, void* x, const void* xd, void* w,
                             const void* wd, void*, int algo, const void* beta, void* y, void* yd,
                             void* ws, size_t bytes) {
    return record_run(0, alpha, x, xd, w, wd, algo, beta, y, yd, ws, bytes);
}
int miopenConvolutionBackwardData(void*, const void* alpha, void* dy, const void* dyd, void* w,
                                  const void* wd, void*, int algo, const void* beta, void* dx,
                                  void* dxd, void* ws, size_t bytes) {
    return record_run(1, alpha, dy, dyd, w, wd, algo, beta, dx, dxd, ws, bytes);
}
int miopenConvolutionBackwardWeights(void*, const void* alpha, void* dy, const void* dyd, void* x,
                                     const void* xd, void*, int algo, const void* beta, void* dw,
                                     void* dwd, void* ws, size_t bytes) {
    return record_run(2, alpha, dy, dyd, x, xd, algo, beta, dw, dwd, ws, bytes);
}

} // extern "C"
