// Serving by NVENC from GPU memory (viewer/serve/nvenc_encoder.h) on a real GPU: a CUDA-written
// field drawn at 1280x720 is served as H.264 that NVENC encodes from the picture's copy in
// CUDA-imported Vulkan memory, and the headless page (viewer/serve/probe) checks what arrives:
// H.264 only, the first frame an IDR with SPS and PPS, a second page joining later gets its own
// IDR first, the server's encode times and latencies come back, the second page (asking for the
// frame stamp) reads the stamp NVENC's input was given back from every decoded frame, and no
// periodic keyframes (an infinite GOP). Validation on: any message fails. Skips without CUDA or
// libnvidia-encode.so.1, and on GPUs without an encoder (the H100 and H200 it was run on have
// none).
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"
#include "interop_kernels.h"
#include "decode.h"
#include "probe.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

namespace estuary {
namespace {

bool haveNvenc(std::string& why) {
    void* lib = dlopen("libnvidia-encode.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = dlerror();
        why = e ? e : "libnvidia-encode.so.1 did not load";
        return false;
    }
    dlclose(lib);
    return true;
}

serve_probe::ProbeResult watch(uint16_t port, double seconds, bool stamp = false) {
    serve_probe::ProbeOptions o;
    o.endpoint = {"127.0.0.1", port, "/ws"};
    o.seconds = seconds;
    o.h264 = true;
    o.stamp = stamp;
    return serve_probe::runProbe(o);
}

TEST(ServeNvencGpu, StreamsH264FromGpuMemoryWithAnIdrForEachPageThatJoins) {
    std::string why;
    if (interop::listCudaDevices().devices.empty()) GTEST_SKIP() << "no CUDA device here";
    if (!haveNvenc(why)) GTEST_SKIP() << "no NVENC here: " << why;
    ViewerDesc d;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.width = 1280;
    d.height = 720;
    d.cuda = ESTUARY_CUDA_REQUIRED;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    Viewer v(d);
    estuary_image_desc id{};
    id.format = ESTUARY_FORMAT_R32_FLOAT;
    id.kind = ESTUARY_IMAGE_2D;
    id.width = 256;
    id.height = 256;
    id.levels = 1;
    id.writer = ESTUARY_WRITER_CUDA;
    id.name = "field";
    const Image image = v.image(id);
    estuary_field_view_desc fd{};
    fd.image = image.get();
    const View view = v.fieldView(fd);
    estuary_serve_desc sd{};
    sd.codec = ESTUARY_SERVE_CODEC_H264;
    // The server logs (standard error) why NVENC did not open, also where libx264 serves instead.
    testing::internal::CaptureStderr();
    const estuary_status started = estuary_serve_start(v.get(), &sd);
    const std::string said = testing::internal::GetCapturedStderr();
    std::fputs(said.c_str(), stderr);
    if (started != ESTUARY_OK) {
        const std::string error = estuary_last_error();
        // The driver's library is there but the GPU has no encoder (H100, H200, A100): H.264 needs
        // FFmpeg then, and the server says so. Anything else is a failure.
        if (error.find("this GPU has no NVENC encoder") != std::string::npos) GTEST_SKIP() << error;
        FAIL() << error;
    }
    estuary_serve_info info{};
    info.struct_size = sizeof(info);
    ASSERT_EQ(estuary_get_serve_info(v.get(), &info), ESTUARY_OK);
    // "nvenc (CUDA input)", or "..., copied)" where NVENC refused Vulkan's memory (a copy then).
    const std::string encoder = info.encoder;
    if (encoder.rfind("nvenc", 0) != 0 &&
        said.find("this GPU has no NVENC encoder") != std::string::npos)
        GTEST_SKIP() << "this GPU has no NVENC encoder; " << encoder << " serves H.264 instead";
    EXPECT_EQ(encoder.rfind("nvenc (CUDA input", 0), 0u)
        << encoder << ": NVENC did not open (the log says why)";
    const uint16_t port = uint16_t(info.port);

    // The loop: each frame a new pattern written by CUDA, as a simulation would.
    std::atomic<bool> running{true};
    std::atomic<uint64_t> frames{0};
    std::string loopError;
    std::thread loop([&] {
        try {
            while (running) {
                const Frame frame = v.beginFrame();
                test::launchWritePattern(frame.surface(image), 256, 256, 4, 0,
                                         uint32_t(frame.index()), frame.stream());
                frame.end();
                ++frames;
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        } catch (const std::exception& e) {
            loopError = e.what();
        }
    });
    const serve_probe::ProbeResult first = watch(port, 3.0);
    // Joins a stream under way, and asks for the stamp (drawn into NVENC's input by CUDA).
    const serve_probe::ProbeResult second = watch(port, 1.5, true);
    running = false;
    loop.join();
    EXPECT_EQ(loopError, "");
    EXPECT_EQ(estuary_serve_stop(v.get()), ESTUARY_OK) << estuary_last_error();

    for (const auto* r : {&first, &second}) {
        const char* which = r == &first ? "first page" : "second page";
        EXPECT_EQ(r->error, "") << which;
        EXPECT_GT(r->h264Frames, 5u) << which;
        EXPECT_EQ(r->jpegFrames, 0u) << which;
        EXPECT_TRUE(r->firstH264Key) << which;
        EXPECT_TRUE(r->firstH264Sps) << which;
        EXPECT_TRUE(r->firstH264Pps) << which;
        EXPECT_TRUE(r->firstH264Idr) << which;
        EXPECT_EQ(r->width, 1280u) << which;
        EXPECT_EQ(r->height, 720u) << which;
    }
    EXPECT_EQ(first.encoder, encoder);
    EXPECT_FALSE(first.encodeMs.empty());
    EXPECT_FALSE(first.metadataLatencyMs.empty())
        << "the probe's reports of frames shown got no latency";
    if (std::string noDecoder; serve_probe::h264Decodable(&noDecoder)) {
        EXPECT_EQ(second.decodeError, "");
        EXPECT_GT(second.stampsRead, 5u);
        EXPECT_EQ(second.stampsMismatched, 0u);
        EXPECT_EQ(second.stampsBackwards, 0u);
        EXPECT_FALSE(second.stampLatencyMs.empty());
    } else {
        std::printf("the stamp is not read back here: %s\n", noDecoder.c_str());
    }
    // IDRs only when a page joins or misses a frame, never on a schedule.
    EXPECT_LT(first.keyframes * 4, first.h264Frames)
        << first.keyframes << " keyframes in " << first.h264Frames << " frames";
    EXPECT_EQ(v.close(), 0u) << "validation messages (printed above)";
}

} // namespace
} // namespace estuary
