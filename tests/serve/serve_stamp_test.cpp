// The frame stamp (viewer/serve/stamp.h): drawn and read back on raw pixels, through JPEG and
// through the server's own H.264 encoder (libx264 zero-latency, by the video module beside this
// binary) decoded by the probe's decoder; a stamp with one block flipped is refused by its check.
// Then end to end: the probe asks a served viewer for the stamp and reads it from every frame.
#include "decode.h"
#include "probe.h"
#include "serve_support.h"
#include "stamp.h"
#include "png.h"
#include "video_module_beside.h"

#include <string>
#include <vector>

namespace estuary::serve_test {
namespace {

using namespace estuary::stamp;
using namespace estuary::serve_probe;

// A busy RGBA picture (gradients and a moving stripe, as a simulation's would be): the stamp must
// read against anything around it.
std::vector<uint8_t> busyPicture(uint32_t width, uint32_t height, uint32_t phase) {
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            uint8_t* p = &rgba[(size_t(y) * width + x) * 4];
            p[0] = uint8_t(x * 3 + phase * 7);
            p[1] = uint8_t(y * 5 + x);
            p[2] = ((x + phase * 4) / 8) % 2 ? 220 : 40;
            p[3] = 255;
        }
    return rgba;
}

// Inverts block (column, row) of a stamp: one bit flipped.
void flipBlock(std::vector<uint8_t>& rgba, uint32_t width, uint32_t column, uint32_t row) {
    for (uint32_t y = 0; y < kStampBlock; ++y)
        for (uint32_t x = 0; x < kStampBlock; ++x) {
            uint8_t* p =
                &rgba[(size_t(row * kStampBlock + y) * width + column * kStampBlock + x) * 4];
            for (int c = 0; c < 3; ++c)
                p[c] = uint8_t(255 - p[c]);
        }
}

TEST(ServeStamp, ReadsBackTheLow16BitsOfEveryFrameDrawn) {
    const uint32_t w = 256, h = 192;
    for (const uint64_t frame : {0ull, 1ull, 255ull, 4660ull, 65535ull, 65536ull, 1234567ull}) {
        SCOPED_TRACE(frame);
        std::vector<uint8_t> rgba = busyPicture(w, h, uint32_t(frame));
        drawStamp(rgba.data(), size_t(w) * 4, 4, w, h, frame);
        const StampRead r = readStamp(rgba.data(), size_t(w) * 4, 4, w, h);
        EXPECT_TRUE(r.ok);
        EXPECT_EQ(r.id, frame & 0xFFFF);
        // A luma plane (the probe's H.264 and JPEG pictures) reads the same stamp.
        std::vector<uint8_t> luma(size_t(w) * h);
        drawStamp(luma.data(), w, 1, w, h, frame);
        const StampRead l = readStamp(luma.data(), w, 1, w, h);
        EXPECT_TRUE(l.ok);
        EXPECT_EQ(l.id, frame & 0xFFFF);
    }
}

TEST(ServeStamp, AnyOneBlockFlippedFailsTheCheck) {
    const uint32_t w = 200, h = 40;
    for (uint32_t row = 0; row < kStampRows; ++row)
        for (uint32_t column = 0; column < kStampColumns; ++column) {
            std::vector<uint8_t> rgba = busyPicture(w, h, 3);
            drawStamp(rgba.data(), size_t(w) * 4, 4, w, h, 4242);
            flipBlock(rgba, w, column, row);
            EXPECT_FALSE(readStamp(rgba.data(), size_t(w) * 4, 4, w, h).ok)
                << "block " << column << ", " << row;
        }
}

TEST(ServeStamp, APictureWithoutOneOrTooSmallForOneIsUnreadable) {
    for (const uint8_t level : {uint8_t(0), uint8_t(255)}) { // all-black, all-white corners
        std::vector<uint8_t> flat(size_t(256) * 64 * 4, level);
        EXPECT_FALSE(readStamp(flat.data(), 256 * 4, 4, 256, 64).ok) << int(level);
    }
    // Too small: nothing drawn, nothing read.
    std::vector<uint8_t> small = busyPicture(kStampWidth - 2, 64, 0);
    const std::vector<uint8_t> before = small;
    drawStamp(small.data(), size_t(kStampWidth - 2) * 4, 4, kStampWidth - 2, 64, 77);
    EXPECT_EQ(small, before);
    EXPECT_FALSE(readStamp(small.data(), size_t(kStampWidth - 2) * 4, 4, kStampWidth - 2, 64).ok);
    EXPECT_TRUE(stampFits(kStampWidth, kStampHeight));
    EXPECT_FALSE(stampFits(kStampWidth, kStampHeight - 1));
}

// Decodes `bytes` (codec 1 JPEG, 2 H.264) and checks the stamp read: frame's low bits when
// intact, refused when a block was flipped. Returns whether it read.
bool expectStamp(FrameDecoder& decoder, int codec, const std::string& bytes, uint32_t width,
                 bool flipped, uint64_t frame) {
    const StampedFrame f =
        decoder.decode(codec, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT_TRUE(f.decoded) << f.error;
    EXPECT_EQ(f.width, width);
    EXPECT_EQ(f.stamp.ok, !flipped);
    if (f.stamp.ok) {
        EXPECT_EQ(f.stamp.id, frame & 0xFFFF);
    }
    return f.stamp.ok;
}

TEST(ServeStamp, SurvivesTheServersJpegAndAFlippedBlockDoesNot) {
    const uint32_t w = 320, h = 240;
    FrameDecoder decoder;
    for (const int quality : {80, 30}) {
        for (const bool flipped : {false, true}) {
            SCOPED_TRACE(std::to_string(quality) + (flipped ? " flipped" : ""));
            std::vector<uint8_t> rgba = busyPicture(w, h, 9);
            drawStamp(rgba.data(), size_t(w) * 4, 4, w, h, 51966);
            if (flipped) flipBlock(rgba, w, 5, 1);
            std::string jpeg;
            appendJpeg(jpeg, w, h, rgba.data(), quality);
            expectStamp(decoder, 1, jpeg, w, flipped, 51966);
        }
    }
}

TEST(ServeStamp, SurvivesLibx264ZeroLatencyAndItsDecodeAndAFlippedBlockDoesNot) {
    std::string why;
    const EstuaryVideoApi* video = test::videoModuleBeside(why);
    if (!video) GTEST_SKIP() << "no video module here: " << why;
    if (!h264Decodable()) GTEST_SKIP() << "this build's probe decodes no H.264 (no libavcodec)";
    const uint32_t w = 320, h = 240;
    char error[256] = {};
    const char* name = nullptr;
    void* stream = video->streamOpen(w, h, 60, "libx264", &name, error, sizeof(error));
    if (!stream) GTEST_SKIP() << "libx264 did not open: " << error;
    FrameDecoder decoder;
    // The picture moves every frame, so each is coded against a changing reference; every 7th
    // frame's stamp has one block flipped and must read as unreadable.
    uint32_t read = 0, refused = 0;
    for (uint64_t frame = 1000; frame < 1030; ++frame) {
        SCOPED_TRACE(frame);
        std::vector<uint8_t> rgba = busyPicture(w, h, uint32_t(frame));
        drawStamp(rgba.data(), size_t(w) * 4, 4, w, h, frame);
        const bool flipped = frame % 7 == 0;
        if (flipped) flipBlock(rgba, w, uint32_t(frame % kStampColumns), uint32_t(frame % 2));
        std::string unit;
        const int code = video->streamEncode(
            stream, rgba.data(), frame == 1000 ? 1 : 0,
            [](void* user, const uint8_t* data, size_t size, int) {
                static_cast<std::string*>(user)->append(reinterpret_cast<const char*>(data), size);
            },
            &unit, error, sizeof(error));
        ASSERT_EQ(code, 0) << error;
        ASSERT_FALSE(unit.empty()) << "zero latency: every picture gives its access unit";
        const bool ok = expectStamp(decoder, 2, unit, w, flipped, frame);
        read += ok;
        refused += !ok;
    }
    video->streamClose(stream);
    EXPECT_EQ(read, 25u); // 1001, 1008, 1015, 1022 and 1029 flipped
    EXPECT_EQ(refused, 5u);
}

ProbeOptions stampProbe(uint16_t port, bool h264) {
    ProbeOptions o;
    o.endpoint = {"127.0.0.1", port, "/ws"};
    o.h264 = h264;
    o.seconds = 3.0;
    o.stamp = true;
    return o;
}

void expectStampsReadBack(const ProbeResult& r) {
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.decodeError, "");
    EXPECT_GE(r.stampsRead, 5u);
    EXPECT_EQ(r.stampsUnreadable, 0u);
    EXPECT_EQ(r.stampsMismatched, 0u);
    EXPECT_EQ(r.stampsBackwards, 0u);
    EXPECT_EQ(r.decodeMs.size(), r.framesDecoded);
    // The server took its reports: latencies of the frames read, and the same verdicts.
    EXPECT_FALSE(r.stampLatencyMs.empty());
    for (double ms : r.stampLatencyMs)
        EXPECT_GT(ms, 0.0);
    EXPECT_GT(r.serverStampsRead, 0u);
    EXPECT_EQ(r.serverStampsMismatched, 0u);
    EXPECT_EQ(r.serverStampsUnreadable, 0u);
}

TEST(ServeStampProbe, ReadsTheStampFromEveryJpegFrameAndTheServerTimesThem) {
    estuary_serve_desc d{};
    d.codec = ESTUARY_SERVE_CODEC_JPEG;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    const ProbeResult r = runProbe(stampProbe(served.port, false));
    EXPECT_GT(r.jpegFrames, 0u);
    expectStampsReadBack(r);
}

TEST(ServeStampProbe, ReadsTheStampFromEveryDecodedH264Frame) {
    ServedViewer served({});
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    if (std::string(served.info().encoder) == "jpeg")
        GTEST_SKIP() << "no H.264 encoder in this build (FFmpeg's libraries absent)";
    if (!h264Decodable()) GTEST_SKIP() << "this build's probe decodes no H.264 (no libavcodec)";
    const ProbeResult r = runProbe(stampProbe(served.port, true));
    EXPECT_GT(r.h264Frames, 0u);
    EXPECT_EQ(r.jpegFrames, 0u);
    expectStampsReadBack(r);
}

TEST(ServeStampProbe, WithoutAPageAskingThePictureHasNoStamp) {
    estuary_serve_desc d{};
    d.codec = ESTUARY_SERVE_CODEC_JPEG;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    // The probe decodes (stamp) but says it does not want one: every frame reads as unreadable.
    ProbeOptions o = stampProbe(served.port, false);
    o.seconds = 2.0;
    o.announceStamp = false;
    const ProbeResult r = runProbe(o);
    EXPECT_GT(r.framesDecoded, 0u);
    EXPECT_EQ(r.stampsRead, 0u);
    EXPECT_EQ(r.stampsUnreadable, r.framesDecoded);
}

} // namespace
} // namespace estuary::serve_test
