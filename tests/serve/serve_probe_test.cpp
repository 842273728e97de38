// The headless page (viewer/serve/probe): its pure parts, and the probe against a served viewer
// on this machine's Vulkan (lavapipe in CI): JPEG frames and the server's own stats reach it; the
// H.264 stream (FFmpeg's, where built) starts with a keyframe carrying SPS and PPS.
#include "probe.h"
#include "serve_support.h"

#include <dlfcn.h>

#include <string>

namespace estuary::serve_test {
namespace {

using namespace estuary::serve_probe;

TEST(ServeProbeUrl, TakesThePrintedUrlWithItsToken) {
    std::string why;
    const auto e = parseServeUrl("http://127.0.0.1:8080/?token=abcdefabcdefabcdef", why);
    ASSERT_TRUE(e) << why;
    EXPECT_EQ(e->host, "127.0.0.1");
    EXPECT_EQ(e->port, 8080);
    EXPECT_EQ(e->target, "/ws?token=abcdefabcdefabcdef");
    const auto v6 = parseServeUrl("http://[::1]:9/", why);
    ASSERT_TRUE(v6) << why;
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->target, "/ws");
}

TEST(ServeProbeUrl, RefusesWhatIsNotAServedPageNamingWhy) {
    for (const char* bad : {"ws://127.0.0.1:80/", "http://127.0.0.1/", "http://127.0.0.1:0/",
                            "http://127.0.0.1:70000/", "http://[::1/", "http://:80/"}) {
        std::string why;
        EXPECT_FALSE(parseServeUrl(bad, why)) << bad;
        EXPECT_FALSE(why.empty()) << bad;
    }
}

TEST(ServeProbeNal, FindsEachUnitAfterThreeAndFourByteStartCodes) {
    const uint8_t au[] = {0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 9, 9};
    EXPECT_EQ(nalTypes(au, sizeof(au)), (std::vector<int>{7, 8, 5}));
    EXPECT_TRUE(nalTypes(au, 3).empty());
}

TEST(ServeProbePercentiles, AreNearestRankOfTheSamples) {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i)
        v.push_back(i);
    const Percentiles p = percentiles(v);
    EXPECT_EQ(p.count, 100u);
    EXPECT_DOUBLE_EQ(p.p50, 50);
    EXPECT_DOUBLE_EQ(p.p95, 95);
    EXPECT_DOUBLE_EQ(p.max, 100);
    EXPECT_DOUBLE_EQ(p.mean, 50.5);
    EXPECT_EQ(percentiles({}).count, 0u);
}

ProbeOptions optionsFor(uint16_t port, bool h264, double seconds) {
    ProbeOptions o;
    o.endpoint = {"127.0.0.1", port, "/ws"};
    o.h264 = h264;
    o.seconds = seconds;
    return o;
}

TEST(ServeProbe, GetsJpegFramesAndTheServersEncodeTimesAndLatencies) {
    estuary_serve_desc d{};
    d.codec = ESTUARY_SERVE_CODEC_JPEG;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    const ProbeResult r = runProbe(optionsFor(served.port, false, 3.0));
    EXPECT_TRUE(r.connected);
    EXPECT_EQ(r.error, "");
    EXPECT_GE(r.frames, 5u);
    EXPECT_EQ(r.jpegFrames, r.frames);
    EXPECT_EQ(r.width, 256u);
    EXPECT_EQ(r.height, 192u);
    EXPECT_EQ(r.encoder, "jpeg");
    // Its reports of frames shown came back as the server's latencies (it steers: it is first).
    EXPECT_FALSE(r.encodeMs.empty());
    EXPECT_FALSE(r.metadataLatencyMs.empty());
    for (double ms : r.metadataLatencyMs)
        EXPECT_GT(ms, 0.0);
    const nlohmann::json report = reportJson(r, "http://127.0.0.1/");
    EXPECT_EQ(report["codec"], "jpeg");
    EXPECT_GT(report["fps"].get<double>(), 0.0);
    EXPECT_EQ(report["server"]["metadata_latency_ms"]["count"].get<size_t>(),
              r.metadataLatencyMs.size());
}

// Several JPEG encoders at once (ESTUARY_SERVE_JPEG_THREADS; by default a quarter of the hardware
// threads, one on a 2-core machine): frames still arrive in order, and the server counts what it
// encoded and dropped.
TEST(ServeProbe, SeveralJpegEncodersSendFramesInOrder) {
    ASSERT_EQ(setenv("ESTUARY_SERVE_JPEG_THREADS", "3", 1), 0);
    struct Unset {
        ~Unset() { unsetenv("ESTUARY_SERVE_JPEG_THREADS"); }
    } unset;
    estuary_serve_desc d{};
    d.codec = ESTUARY_SERVE_CODEC_JPEG;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    const ProbeResult r = runProbe(optionsFor(served.port, false, 3.0));
    EXPECT_EQ(r.error, "");
    EXPECT_GE(r.frames, 5u);
    EXPECT_EQ(r.outOfOrder, 0u);
    EXPECT_GT(r.framesEncoded, 0u);
}

TEST(ServeProbe, AJpegEncoderCountOutsideOneTo16IsRefusedNamingIt) {
    for (const char* bad : {"0", "17", "four", "2x"}) {
        SCOPED_TRACE(bad);
        ASSERT_EQ(setenv("ESTUARY_SERVE_JPEG_THREADS", bad, 1), 0);
        estuary_serve_desc d{};
        d.codec = ESTUARY_SERVE_CODEC_JPEG;
        ServedViewer served(d);
        EXPECT_EQ(served.status, ESTUARY_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(served.error.find(std::string("ESTUARY_SERVE_JPEG_THREADS=") + bad),
                  std::string::npos)
            << served.error;
        EXPECT_NE(served.error.find("1 to 16"), std::string::npos) << served.error;
    }
    unsetenv("ESTUARY_SERVE_JPEG_THREADS");
}

TEST(ServeProbe, H264StartsWithAKeyframeCarryingSpsAndPps) {
    ServedViewer served({});
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    if (std::string(served.info().encoder) == "jpeg")
        GTEST_SKIP() << "no H.264 encoder in this build (FFmpeg's libraries absent)";
    const ProbeResult r = runProbe(optionsFor(served.port, true, 2.0));
    EXPECT_EQ(r.error, "");
    ASSERT_GT(r.h264Frames, 0u);
    EXPECT_TRUE(r.firstH264Key);
    EXPECT_TRUE(r.firstH264Sps);
    EXPECT_TRUE(r.firstH264Pps);
    EXPECT_TRUE(r.firstH264Idr);
}

TEST(ServeProbe, WithoutTheDriversEncoderNvencIsNotOfferedAndServingGoesOn) {
    if (void* lib = dlopen("libnvidia-encode.so.1", RTLD_NOW | RTLD_LOCAL)) {
        dlclose(lib);
        GTEST_SKIP() << "libnvidia-encode.so.1 is here (the GPU suite tests NVENC)";
    }
    estuary_serve_desc d{};
    d.codec = ESTUARY_SERVE_CODEC_AUTO;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    EXPECT_EQ(std::string(served.info().encoder).find("nvenc"), std::string::npos)
        << served.info().encoder;
    const ProbeResult r = runProbe(optionsFor(served.port, true, 3.0));
    EXPECT_GT(r.frames, 0u) << r.error << " connected " << r.connected << " close " << r.closeCode;
}

} // namespace
} // namespace estuary::serve_test
