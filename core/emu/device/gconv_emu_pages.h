#pragma once
// Memory with inaccessible neighbours, for the emulator's shared memory, fiber stacks and global
// tensors: an access past the end (or, with a guard before, before the start) faults instead of
// touching another buffer. POSIX only; used by the emulated modules and the host alike.
#include <cstddef>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace gconv_emu {

// Pages with an inaccessible page after `bytes` (rounded up to 16): running past the end faults
// instead of reading a neighbour.
class GuardedPages {
public:
    GuardedPages(std::size_t bytes, bool guard_before) {
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        usable_ = (bytes + 15) / 16 * 16;
        const std::size_t body = (usable_ + page_ - 1) / page_ * page_;
        total_ = body + page_ * (guard_before ? 2 : 1);
        void* p =
            mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        base_ = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
        if (!base_) return;
        unsigned char* first = base_ + (guard_before ? page_ : 0);
        if (body > 0 && mprotect(first, body, PROT_READ | PROT_WRITE) != 0) {
            munmap(base_, total_);
            base_ = nullptr;
            return;
        }
        first_ = first;
        data_ = first + body - usable_;
    }
    ~GuardedPages() {
        if (base_) munmap(base_, total_);
    }
    GuardedPages(const GuardedPages&) = delete;
    GuardedPages& operator=(const GuardedPages&) = delete;
    bool ok() const { return base_ != nullptr; }
    // Whether every accessible byte outside the first `data_bytes` of the data still holds
    // `value` (a kernel that writes past a tensor but not past the page changes them).
    bool outside_holds(unsigned char value, std::size_t data_bytes) const {
        if (!base_) return true;
        for (const unsigned char* p = first_; p < data_; ++p)
            if (*p != value) return false;
        for (const unsigned char* p = data_ + data_bytes; p < data_ + usable_; ++p)
            if (*p != value) return false;
        return true;
    }
    // Fills every accessible byte, the slack around the data included (reading just outside the
    // data then shows the pattern, a NaN in every data type for 0xff, instead of zeros).
    void fill_all(unsigned char value) const {
        if (base_) std::memset(first_, value, static_cast<std::size_t>(data_ + usable_ - first_));
    }
    unsigned char* data() const { return data_; }
    // The top of the accessible bytes (a fiber stack grows down from here).
    unsigned char* end() const { return data_ + usable_; }

private:
    std::size_t page_ = 0, usable_ = 0, total_ = 0;
    unsigned char* base_ = nullptr;
    unsigned char* first_ = nullptr;
    unsigned char* data_ = nullptr;
};

} // namespace gconv_emu
