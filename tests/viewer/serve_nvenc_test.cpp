// NVENC for the served stream (viewer/serve/nvenc_encoder.h) where the driver's encoder is
// absent, as on machines without an NVIDIA driver: it is refused naming what is missing, so the
// server can say why once and serve by FFmpeg or JPEG. (Where it is present the GPU suite's
// Serve.NvencStreamsH264FromGpuMemory tests the encoder itself.)
#include "nvenc_encoder.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace {

TEST(ServeNvenc, WithoutTheDriversEncoderIsRefusedNamingWhatIsMissing) {
    if (void* lib = dlopen("libnvidia-encode.so.1", RTLD_NOW | RTLD_LOCAL)) {
        dlclose(lib);
        GTEST_SKIP() << "libnvidia-encode.so.1 is here";
    }
    const std::string problem = estuary::lib::nvencLibraryProblem();
    EXPECT_FALSE(problem.empty());
    const bool namesLibrary = problem.find("libnvidia-encode.so.1") != std::string::npos;
    const bool namesBuild = problem.rfind("built without", 0) == 0;
    EXPECT_TRUE(namesLibrary || namesBuild) << problem;
    EXPECT_EQ(problem, estuary::lib::nvencLibraryProblem()) << "loaded once, the same answer";
}

} // namespace
