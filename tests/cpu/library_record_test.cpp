// Recording (estuary_record_start / estuary_record_stop) headless on lavapipe under validation:
// the file is decoded back (through the video module's own decoder) and each frame compared with
// the picture read back after that frame; odd sizes, the temporary name, a viewer destroyed while
// recording, and the errors bad requests get; a stop inside a frame changes nothing, a full disk
// keeps the previous file, and paths a rename must not replace are refused (links followed).
#include "library_support.h"
#include "video_module_beside.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace estuary {
namespace {

struct Decoded {
    uint32_t width = 0, height = 0;
    std::vector<std::vector<uint8_t>> frames;
};

// The video module beside the test binary, for its decoder; null where estuary has no FFmpeg.
const EstuaryVideoApi* videoApi() {
    static const EstuaryVideoApi* api = [] {
        std::string why;
        return test::videoModuleBeside(why);
    }();
    return api;
}

Decoded decode(const std::filesystem::path& path) {
    Decoded d;
    char error[512] = {};
    const long count = videoApi()->decode(
        path.c_str(),
        [](void* user, const uint8_t* rgba, uint32_t w, uint32_t h) {
            auto& out = *static_cast<Decoded*>(user);
            out.width = w;
            out.height = h;
            out.frames.emplace_back(rgba, rgba + size_t(w) * h * 4);
        },
        &d, error, sizeof(error));
    EXPECT_GE(count, 0) << error;
    return d;
}

// Mean |difference| over the colour channels of the w x h picture's pixels (the decoded frame may
// be wider or taller: padding).
double meanDifference(const std::vector<uint8_t>& picture, uint32_t w, uint32_t h,
                      const std::vector<uint8_t>& frame, uint32_t frameWidth) {
    double sum = 0;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                sum += std::abs(int(picture[(size_t(y) * w + x) * 4 + c]) -
                                int(frame[(size_t(y) * frameWidth + x) * 4 + c]));
    return sum / (double(w) * h * 3);
}

class RecordTest : public LibraryTest {
  protected:
    void SetUp() override {
        if (!videoApi()) GTEST_SKIP() << "no libestuary_video.so: built without FFmpeg";
        folder = std::filesystem::temp_directory_path() /
                 ("estuary-record-" + std::to_string(::getpid()));
        std::filesystem::create_directories(folder);
    }
    void TearDown() override {
        LibraryTest::TearDown();
        std::filesystem::remove_all(folder);
    }

    // A field view over a host image whose pattern moves with the frame: every frame differs.
    void openField(uint32_t width, uint32_t height) {
        open(headless(2, width, height));
        image.emplace(viewer->image(hostImage(32, 32)));
        estuary_field_view_desc field{.image = image->get()};
        field.flags = ESTUARY_VIEW_NO_COLORBAR;
        shown.emplace(viewer->fieldView(field));
    }
    // Draws `count` frames, returning each frame's picture as read back after it (unless not
    // `read`: then the frames follow each other as fast as the loop goes, nothing returned).
    std::vector<std::vector<uint8_t>> drawFrames(int count, int first = 0, bool read = true) {
        std::vector<std::vector<uint8_t>> pictures;
        for (int f = first; f < first + count; ++f) {
            const Frame frame = viewer->beginFrame();
            float* texels = frame.hostLevel<float>(*image);
            for (int y = 0; y < 32; ++y)
                for (int x = 0; x < 32; ++x)
                    texels[y * 32 + x] =
                        0.5f + 0.5f * std::sin(0.2f * float(x + 3 * f) + 0.1f * float(y));
            frame.end();
            if (read) pictures.push_back(pixels());
        }
        return pictures;
    }

    std::filesystem::path folder;
    std::optional<Image> image;
    std::optional<View> shown; // after the image it draws: destroyed before it
};

TEST_F(RecordTest, EveryFrameDrawnWhileRecordingIsInTheFileInOrder) {
    openField(96, 64);
    drawFrames(3); // before the recording: not in the file
    const std::filesystem::path path = folder / "clip.mp4";
    estuary_record_desc desc{.path = path.c_str()};
    desc.fps = 30;
    desc.quality = 10;
    desc.encoder = "libx264";
    check(estuary_record_start(viewer->get(), &desc));
    const auto pictures = drawFrames(12, 3);
    EXPECT_FALSE(std::filesystem::exists(path)) << "the file appears only when it is finished";
    estuary_record_info info{};
    check(estuary_record_stop(viewer->get(), &info));
    EXPECT_EQ(info.frames, 12u);
    EXPECT_STREQ(info.encoder, "libx264");
    EXPECT_GE(info.copy_ms_mean, 0.0);
    ASSERT_TRUE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".part"));

    const Decoded d = decode(path);
    ASSERT_EQ(d.frames.size(), 12u);
    EXPECT_EQ(d.width, 96u);
    EXPECT_EQ(d.height, 64u);
    for (size_t i = 0; i < d.frames.size(); ++i) {
        // 4:2:0 and a CRF of 10 keep the mean channel error of these smooth pictures near 2-4.
        const double same = meanDifference(pictures[i], 96, 64, d.frames[i], d.width);
        EXPECT_LT(same, 4.0) << "frame " << i;
        // And closer to its own picture than to the neighbours': the order is kept.
        for (size_t j : {i - 1, i + 1}) {
            if (j < pictures.size()) {
                EXPECT_LT(same, meanDifference(pictures[j], 96, 64, d.frames[i], d.width))
                    << "frame " << i << " against picture " << j;
            }
        }
    }
}

TEST_F(RecordTest, FramesDrawnFasterThanTheEncoderTakesThemAreAllInTheFileInOrder) {
    // No read-back between frames, and an encoder made slow (20 ms a picture): the loop runs
    // ahead of it, its held pictures fill the tap's spare buffers, and the draws wait for it
    // (stall_ms_total) instead of dropping or overwriting a picture it has not read yet.
    constexpr uint32_t kW = 160, kH = 96;
    constexpr int kFrames = 40;
    openField(kW, kH);
    const std::filesystem::path path = folder / "fast.mp4";
    estuary_record_desc desc{.path = path.c_str()};
    desc.quality = 10;
    desc.encoder = "libx264";
    ::setenv("ESTUARY_FAULT_ENCODE_DELAY_MS", "20", 1);
    const estuary_status started = estuary_record_start(viewer->get(), &desc);
    ::unsetenv("ESTUARY_FAULT_ENCODE_DELAY_MS");
    check(started);
    drawFrames(kFrames, 0, /*read=*/false);
    estuary_record_info info{};
    check(estuary_record_stop(viewer->get(), &info));
    EXPECT_EQ(info.frames, uint64_t(kFrames));
    // 40 pictures at 20 ms are 800 ms of encoding; at most the spare buffers and the frames in
    // flight (about 10) are held without a wait, so the loop waited at least ~500 ms of it.
    EXPECT_GT(info.stall_ms_total, 200.0) << "the loop never waited for the encoder";
    // The same frames drawn again, each read back: the pictures the file must hold.
    const auto pictures = drawFrames(kFrames);
    const Decoded d = decode(path);
    ASSERT_EQ(d.frames.size(), size_t(kFrames));
    for (size_t i = 0; i < d.frames.size(); ++i) {
        const double same = meanDifference(pictures[i], kW, kH, d.frames[i], d.width);
        EXPECT_LT(same, 4.0) << "frame " << i;
        for (size_t j : {i - 1, i + 1}) {
            if (j < pictures.size()) {
                EXPECT_LT(same, meanDifference(pictures[j], kW, kH, d.frames[i], d.width))
                    << "frame " << i << " against picture " << j;
            }
        }
    }
}

TEST_F(RecordTest, OddPicturesArePaddedToEvenSidesAndAViewerClosedWhileRecordingFinishes) {
    openField(75, 41);
    const std::filesystem::path path = folder / "odd.mkv";
    estuary_record_desc desc{.path = path.c_str()};
    desc.quality = 10;
    desc.encoder = "libx264";
    check(estuary_record_start(viewer->get(), &desc));
    const auto pictures = drawFrames(5);
    EXPECT_EQ(viewer->close(), 0u) << "validation messages";
    viewer.reset(); // destroyed while recording: the file is finished
    ASSERT_TRUE(std::filesystem::exists(path));
    const Decoded d = decode(path);
    ASSERT_EQ(d.frames.size(), 5u);
    EXPECT_EQ(d.width, 76u);
    EXPECT_EQ(d.height, 42u);
    for (size_t i = 0; i < d.frames.size(); ++i)
        EXPECT_LT(meanDifference(pictures[i], 75, 41, d.frames[i], d.width), 6.0) << i;
}

TEST_F(RecordTest, AWindowIsRecordedAtItsFirstSizeThroughAResize) {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) GTEST_SKIP() << "no display: run under xvfb-run -a";
    ViewerDesc d = headless(2, 96, 64);
    d.display = ESTUARY_DISPLAY_WINDOW;
    open(d);
    image.emplace(viewer->image(hostImage(32, 32)));
    estuary_field_view_desc field{.image = image->get()};
    field.flags = ESTUARY_VIEW_NO_COLORBAR;
    shown.emplace(viewer->fieldView(field));
    drawFrames(1); // the window has its swapchain, and so a picture to copy
    const std::filesystem::path path = folder / "window.mp4";
    estuary_record_desc desc{.path = path.c_str()};
    desc.quality = 10;
    desc.encoder = "libx264";
    check(estuary_record_start(viewer->get(), &desc));
    const auto before = drawFrames(4, 1);
    check(estuary_set_window_size(viewer->get(), 128, 96));
    drawFrames(4, 5);
    estuary_record_info info{};
    check(estuary_record_stop(viewer->get(), &info));
    EXPECT_EQ(info.frames, 8u);
    const Decoded decoded = decode(path);
    ASSERT_EQ(decoded.frames.size(), 8u);
    EXPECT_EQ(decoded.width, 96u) << "the size the recording started at";
    EXPECT_EQ(decoded.height, 64u);
    // The window's own bytes (B, G, R, A where its surface is BGRA) come out as RGB.
    for (size_t i = 0; i < before.size(); ++i)
        EXPECT_LT(meanDifference(before[i], 96, 64, decoded.frames[i], decoded.width), 6.0) << i;
}

TEST_F(RecordTest, BadRequestsAreRefusedNamingTheValue) {
    openField(32, 32);
    const auto start = [&](const std::string& path, uint32_t fps = 0, uint32_t quality = 0,
                           const char* encoder = nullptr) {
        estuary_record_desc d{
            .path = path.c_str(), .fps = fps, .quality = quality, .encoder = encoder};
        check(estuary_record_start(viewer->get(), &d));
    };
    EXPECT_REFUSED(start((folder / "clip.avi").string()), ESTUARY_ERROR_INVALID_ARGUMENT,
                   ".mp4 or .mkv", ".avi");
    EXPECT_REFUSED(start((folder / "missing" / "clip.mp4").string()),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "does not exist");
    EXPECT_REFUSED(start((folder / "clip.mp4").string(), 500), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "fps 500");
    EXPECT_REFUSED(start((folder / "clip.mp4").string(), 0, 60), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "quality 60");
    EXPECT_REFUSED(start((folder / "clip.mp4").string(), 0, 0, "no_such_encoder"),
                   ESTUARY_ERROR_UNSUPPORTED, "no_such_encoder");
    EXPECT_REFUSED(check(estuary_record_stop(viewer->get(), nullptr)),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "nothing is being recorded");
    start((folder / "clip.mp4").string(), 0, 0, "libx264");
    EXPECT_REFUSED(start((folder / "other.mp4").string()), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "already recording");
    drawFrames(2);
    check(estuary_record_stop(viewer->get(), nullptr));
    EXPECT_EQ(decode(folder / "clip.mp4").frames.size(), 2u);
    EXPECT_FALSE(std::filesystem::exists(folder / "other.mp4"));
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST_F(RecordTest, AStopInsideAFrameFailsAndTheRecordingGoesOn) {
    openField(32, 32);
    const std::filesystem::path path = folder / "clip.mp4";
    estuary_record_desc desc{.path = path.c_str()};
    desc.encoder = "libx264";
    check(estuary_record_start(viewer->get(), &desc));
    drawFrames(2);
    {
        const Frame frame = viewer->beginFrame();
        frame.hostLevel<float>(*image)[0] = 0.5f;
        EXPECT_REFUSED(check(estuary_record_stop(viewer->get(), nullptr)),
                       ESTUARY_ERROR_INVALID_ARGUMENT, "between frames", "goes on");
        frame.end();
    }
    drawFrames(2, 3);
    estuary_record_info info{};
    check(estuary_record_stop(viewer->get(), &info)); // the recording was still there
    EXPECT_EQ(info.frames, 5u);
    EXPECT_EQ(decode(path).frames.size(), 5u);
}

TEST_F(RecordTest, AFullDiskEndsTheRecordingKeepingThePreviousFileAndNoPart) {
    openField(64, 48);
    const std::filesystem::path path = folder / "clip.mp4";
    std::ofstream(path) << "previous";
    const test::ScopedEnv fault(
        test::ScopedEnv::Settings{{"ESTUARY_FAULT_WRITE", std::string("clip.mp4:2000")}});
    estuary_record_desc desc{.path = path.c_str()};
    desc.encoder = "libx264";
    check(estuary_record_start(viewer->get(), &desc));
    drawFrames(30);
    EXPECT_REFUSED(check(estuary_record_stop(viewer->get(), nullptr)), ESTUARY_ERROR_RUNTIME,
                   "clip.mp4", static_cast<const char*>(std::strerror(ENOSPC)), "left as it was");
    EXPECT_EQ(readText(path), "previous");
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".part"));
    EXPECT_REFUSED(check(estuary_record_stop(viewer->get(), nullptr)),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "nothing is being recorded");
}

TEST_F(RecordTest, PathsARenameMustNotReplaceAreRefusedAndLinksAreFollowed) {
    openField(32, 32);
    const auto start = [&](const std::filesystem::path& path) {
        estuary_record_desc d{.path = path.c_str(), .encoder = "libx264"};
        check(estuary_record_start(viewer->get(), &d));
    };
    ASSERT_EQ(mkfifo((folder / "fifo.mp4").c_str(), 0600), 0);
    EXPECT_REFUSED(start(folder / "fifo.mp4"), ESTUARY_ERROR_INVALID_ARGUMENT, "fifo.mp4", "FIFO");
    std::ofstream(folder / "protected.mp4") << "keep";
    std::filesystem::permissions(folder / "protected.mp4", std::filesystem::perms::owner_read);
    EXPECT_REFUSED(start(folder / "protected.mp4"), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "write-protected");
    EXPECT_EQ(readText(folder / "protected.mp4"), "keep");
    std::filesystem::create_directory(folder / "folder.mp4");
    EXPECT_REFUSED(start(folder / "folder.mp4"), ESTUARY_ERROR_INVALID_ARGUMENT, "folder");
    // A dangling link: its target is written, the link stays.
    std::filesystem::create_directory(folder / "real");
    std::filesystem::create_symlink(folder / "real" / "clip.mp4", folder / "link.mp4");
    start(folder / "link.mp4");
    drawFrames(3);
    check(estuary_record_stop(viewer->get(), nullptr));
    EXPECT_TRUE(std::filesystem::is_symlink(folder / "link.mp4"));
    EXPECT_EQ(decode(folder / "real" / "clip.mp4").frames.size(), 3u);
    EXPECT_FALSE(std::filesystem::exists(folder / "real" / "clip.mp4.part"));
}

// The app's --screenshot of a folder is a usage error (exit 2); the library's is the same kind.
TEST_F(RecordTest, AScreenshotOfAFolderIsAnInvalidArgument) {
    openField(32, 32);
    drawFrames(1);
    EXPECT_REFUSED(check(estuary_screenshot(viewer->get(), folder.c_str())),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "folder");
}

} // namespace
} // namespace estuary
