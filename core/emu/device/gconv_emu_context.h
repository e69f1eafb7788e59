#pragma once
// Switching between the fibers of a block and the scheduler. On x86-64 a switch saves the
// callee-saved registers on the stack it leaves and loads the other stack pointer (the
// asm body is in gconv_emu_launch.h, once per module): no system call, where swapcontext makes
// one per switch to save the signal mask and a block switches at every barrier and collective.
// Elsewhere: ucontext.
#include <cstddef>
#include <cstdint>
#include <cstring>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace gconv_emu {

#if defined(__x86_64__)
extern "C" void gconv_emu_swap(void** save_sp, void* load_sp);

struct FiberContext {
    void* sp = nullptr;
};
inline void switch_fiber(FiberContext& from, const FiberContext& to) {
    gconv_emu_swap(&from.sp, to.sp);
}
// The first switch to `c` enters `entry` on the stack [stack, stack + bytes), as if called.
inline void start_fiber(FiberContext& c, unsigned char* stack, std::size_t bytes, void (*entry)()) {
    auto* top = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(stack + bytes) &
                                                 ~std::uintptr_t{15});
    // From the top down: a zero return address for entry (so it starts with the stack as a call
    // leaves it), entry itself for gconv_emu_swap's ret, and six zero callee-saved registers.
    void** frame = reinterpret_cast<void**>(top) - 8;
    std::memset(frame, 0, 8 * sizeof(void*));
    frame[6] = reinterpret_cast<void*>(entry);
    c.sp = frame;
}
#else
struct FiberContext {
    ucontext_t uc;
};
inline void switch_fiber(FiberContext& from, const FiberContext& to) {
    swapcontext(&from.uc, &to.uc);
}
inline void start_fiber(FiberContext& c, unsigned char* stack, std::size_t bytes, void (*entry)()) {
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack;
    c.uc.uc_stack.ss_size = bytes;
    c.uc.uc_link = nullptr;
    makecontext(&c.uc, entry, 0);
}
#endif

} // namespace gconv_emu
