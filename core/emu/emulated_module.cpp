#include "emu/emulated_module.h"

#include "codegen/embedded_files.h"
#include "sweep/process.h"
#include "util/error.h"
#include "util/sha256.h"

#include "emu/device/gconv_emu_abi.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gconv::emu_embedded {
const std::vector<gconv::EmbeddedFile>& files();
} // namespace gconv::emu_embedded

namespace gconv::emu {

namespace {

namespace fs = std::filesystem;

std::string find_executable(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    throw Error("the emulator's compiler '" + name + "' is not on PATH (set GCONV_EMU_CXX)");
}

// Runs argv to its end; its stdout and stderr go to `log`. True when it exited with 0.
bool run_to_end(const std::vector<std::string>& argv, const fs::path& log, std::string& why) {
    ProcessOptions options;
    options.argv = argv;
    options.stderr_log = log;
    ChildProcess child(options);
    child.send_and_close_stdin("");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    std::string line, out;
    while (child.read_line(line, deadline) == ChildProcess::ReadStatus::Line) out += line + "\n";
    const ProcessExit exit = child.wait(deadline);
    if (!out.empty()) std::ofstream(log, std::ios::app) << out;
    why = exit.describe();
    return exit.exited && exit.signal == 0 && exit.code == 0;
}

// The first line argv prints on stdout (empty when it cannot be run).
std::string first_line_of(const std::vector<std::string>& argv) {
    ProcessOptions options;
    options.argv = argv;
    options.stderr_log = fs::temp_directory_path() / "gconv-emu-version.log";
    try {
        ChildProcess child(options);
        child.send_and_close_stdin("");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        std::string line;
        const bool got = child.read_line(line, deadline) == ChildProcess::ReadStatus::Line;
        child.wait(deadline);
        return got ? line : std::string();
    } catch (const std::exception&) {
        return {};
    }
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw Error("cannot write " + path.string());
}

} // namespace

EmulatorToolchain EmulatorToolchain::host_default() {
    EmulatorToolchain t;
    const char* env = std::getenv("GCONV_EMU_CXX");
    t.compiler = find_executable(env && *env ? env : GCONV_EMU_DEFAULT_CXX);
    t.version = first_line_of({t.compiler, "--version"});
    t.flags = {"-std=c++20",     "-O1", "-g0", "-w", "-fPIC", "-shared", "-fvisibility=hidden",
               "-fno-gnu-unique"};
    return t;
}

std::string EmulatorToolchain::identity() const {
    std::string id = compiler + " (" + version + ")";
    for (const std::string& f : flags) id += " " + f;
    return id;
}

EmulatedModule::EmulatedModule(const std::string& source, const fs::path& work_dir,
                               const EmulatorToolchain& toolchain) {
    Sha256 hash;
    hash.update(source).update(toolchain.identity());
    for (const auto* table : {&embedded::files(), &emu_embedded::files()})
        for (const EmbeddedFile& f : *table) hash.update(f.name).update(f.contents);
    const std::string key = to_hex(hash.digest());
    const fs::path dir = work_dir / key.substr(0, 16);
    const fs::path library = dir / "module.so";
    if (fs::exists(library)) {
        from_cache_ = true;
    } else {
        fs::create_directories(dir);
        for (const auto* table : {&embedded::files(), &emu_embedded::files()})
            for (const EmbeddedFile& f : *table) write_text(dir / std::string(f.name), f.contents);
        write_text(dir / "kernel.hip", source);
        write_text(dir / "module.cpp",
                   "#include \"kernel.hip\"\n#include \"gconv_emu_launch.h\"\n");
        const fs::path partial = dir / ("module.so." + std::to_string(getpid()));
        std::vector<std::string> argv{toolchain.compiler};
        argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
        argv.insert(argv.end(),
                    {"-DGCONV_EMU=1", "-include", (dir / "gconv_emu_device.h").string(), "-I",
                     dir.string(), (dir / "module.cpp").string(), "-o", partial.string()});
        const auto start = std::chrono::steady_clock::now();
        std::string why;
        const fs::path log = dir / "compile.log";
        if (!run_to_end(argv, log, why))
            throw Error("the emulated module in " + dir.string() + " did not compile (" + why +
                        "):\n" + read_text(log).substr(0, 4000));
        compile_seconds_ =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        fs::rename(partial, library);
    }
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw Error("cannot load " + library.string() + ": " + dlerror());
    launch_fn_ = dlsym(handle_, GCONV_EMU_LAUNCH_SYMBOL);
    if (!launch_fn_) throw Error(library.string() + " has no " GCONV_EMU_LAUNCH_SYMBOL);
}

EmulatedModule::~EmulatedModule() {
    if (handle_) dlclose(handle_);
}

bool EmulatedModule::has_entry(const std::string& entry) const {
    return dlsym(handle_, entry.c_str()) != nullptr;
}

void EmulatedModule::launch(const EmulatedLaunch& l) const {
    void* entry = dlsym(handle_, l.entry.c_str());
    if (!entry) throw Error("the emulated module has no entry " + l.entry);
    GconvEmuLaunch call{};
    call.entry = entry;
    call.with_workspace = l.with_workspace ? 1 : 0;
    call.params = l.params;
    call.workspace = l.workspace;
    for (int i = 0; i < 3; ++i) call.grid[i] = l.grid[i];
    call.threads = l.threads;
    call.shared_bytes = l.shared_bytes;
    call.descending = l.order == ThreadOrder::Descending ? 1 : 0;
    char error[1024] = {0};
    if (reinterpret_cast<GconvEmuLaunchFn>(launch_fn_)(&call, error, sizeof error) != 0)
        throw Error(l.entry + ": " + error);
}

} // namespace gconv::emu
