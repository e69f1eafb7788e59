#pragma once
// SHA-256 (FIPS 180-4), for content-addressed keys such as the kernel cache's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gconv {

class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    Sha256& update(const void* data, std::size_t size);
    Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
    // Ends the message; the object must not be updated afterwards.
    Digest digest();
    std::string hex_digest();

private:
    void compress(const std::uint8_t* block);

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view data);
std::string to_hex(const Sha256::Digest& digest);

} // namespace gconv
