// The hostile matrix of estuary's recordings and output files, through the executable (CPU
// backend, lavapipe, libx264 through the video module): full disks (an injected ENOSPC after N
// bytes, ESTUARY_FAULT_WRITE), file-size limits (a real RLIMIT_FSIZE in the child: EFBIG, SIGXFSZ
// being ignored by estuary), signals during a recording (SIGINT, a double SIGINT on a stuck run,
// SIGKILL), and paths a recording must not clobber (aliases, links, FIFOs, devices, descriptors,
// write-protected files, folders). Each case checks the exit code, the message naming the file,
// the previous file at the path and that no temporary file is left.
#include "test_support.h"
#include "video_module_beside.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace estuary {
namespace {

namespace fs = std::filesystem;
using test::listFolder;
using test::readFile;
using test::runEstuaryControlled;

constexpr const char* kPrevious = "the previous file";

const std::vector<std::string> kRecordRun = {
    "--headless", "--backend",    "cpu",       "--size",           "32x32",   "--resolution",
    "64x48",      "--screenshot", "/dev/null", "--record-encoder", "libx264", "--record-fps",
    "10"};

std::vector<std::string> with(std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

// The video module beside the test binary, for its decoder; null where estuary has no FFmpeg.
const EstuaryVideoApi* videoApi() {
    static const EstuaryVideoApi* api = [] {
        std::string why;
        return test::videoModuleBeside(why);
    }();
    return api;
}

// Video frames in `path`, or -1 where it does not decode.
long decodedFrames(const fs::path& path) {
    char error[512] = {};
    return videoApi()->decode(
        path.c_str(), [](void*, const uint8_t*, uint32_t, uint32_t) {}, nullptr, error,
        sizeof(error));
}

class AppRecordHostile : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!videoApi()) GTEST_SKIP() << "no libestuary_video.so: built without FFmpeg";
        dir = test::scratchDir(std::string("record-hostile-") +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        clip = dir / "clip.mp4";
        std::ofstream(clip) << kPrevious;
    }
    // The failed recording kept the previous file and left nothing else but `others`.
    void expectPreviousKept(std::vector<std::string> others = {}) {
        EXPECT_EQ(readFile(clip), kPrevious);
        others.push_back("clip.mp4");
        std::sort(others.begin(), others.end());
        EXPECT_EQ(listFolder(dir), others) << "a temporary file was left";
    }
    static void expectSays(const test::ControlledRun& r, const std::vector<std::string>& texts) {
        for (const std::string& text : texts)
            EXPECT_NE(r.err.find(text), std::string::npos) << "lacks '" << text << "': " << r.err;
    }
    fs::path dir, clip;
};

TEST_F(AppRecordHostile, AFullDiskMidRecordingIsExit1KeepingThePreviousFile) {
    test::RunControl control;
    control.env = {{"ESTUARY_FAULT_WRITE", "clip.mp4:3000"}}; // past the header, in the frames
    const auto r =
        runEstuaryControlled(with(kRecordRun, {"--frames", "60", "--record", clip}), control);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    expectSays(r, {clip.string(), std::strerror(ENOSPC), "left as it was"});
    expectPreviousKept();
}

TEST_F(AppRecordHostile, AFullDiskAtTheFilesHeaderIsExit1KeepingThePreviousFile) {
    test::RunControl control;
    control.env = {{"ESTUARY_FAULT_WRITE", "clip.mp4:0"}};
    const auto r =
        runEstuaryControlled(with(kRecordRun, {"--frames", "5", "--record", clip}), control);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    expectSays(r, {clip.string(), std::strerror(ENOSPC)});
    expectPreviousKept();
}

TEST_F(AppRecordHostile, AFileSizeLimitIsExit1EfbigNamingTheFileNotADeathBySigxfsz) {
    test::RunControl control;
    control.fileSizeLimit = 4096; // the recording passes it within a few frames
    const auto r =
        runEstuaryControlled(with(kRecordRun, {"--frames", "120", "--record", clip}), control);
    EXPECT_EQ(r.exitCode, 1) << "128 + 25 would be SIGXFSZ: " << r.out << r.err;
    expectSays(r, {clip.string(), std::strerror(EFBIG)});
    expectPreviousKept();
}

TEST_F(AppRecordHostile, AFileSizeLimitLosesTheCsvButNotTheBenchmarksReport) {
    const auto report = dir / "report.json", csv = dir / "frames.csv";
    std::ofstream(csv) << "old csv";
    test::RunControl control;
    control.fileSizeLimit = 16384; // the report fits, 2000 CSV rows do not
    const auto r = runEstuaryControlled({"--bench", "--backend", "cpu", "--size", "16x16",
                                         "--resolution", "16x16", "--frames", "2000", "--warmup",
                                         "2", "--report", report, "--csv", csv},
                                        control);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    expectSays(r, {csv.string(), std::strerror(EFBIG)});
    EXPECT_EQ(readFile(csv), "old csv");
    EXPECT_NE(readFile(report).find("\"schema_version\""), std::string::npos);
    expectPreviousKept({"frames.csv", "report.json"});
}

TEST_F(AppRecordHostile, SigintDuringARecordingFinishesTheFileAndExits130) {
    test::RunControl control;
    control.signal = SIGINT;
    control.signalWhen = "recording ";
    control.signalDelay = std::chrono::milliseconds(1500);
    control.timeout = std::chrono::seconds(60);
    const auto r = runEstuaryControlled(
        with(kRecordRun, {"--frames", "100000000", "--fps-cap", "30", "--record", clip}), control);
    ASSERT_TRUE(r.signalled) << r.out << r.err;
    EXPECT_EQ(r.exitCode, 130) << r.out << r.err;
    EXPECT_GT(decodedFrames(clip), 0) << "not a finished video";
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"clip.mp4"}) << "a .part was left";
}

TEST_F(AppRecordHostile, ADoubleSigintOnAStuckRecordingLeavesNoPartAndThePreviousFile) {
    test::RunControl control;
    control.env = {{"ESTUARY_FAULT", "vulkan-stall@20"}, {"ESTUARY_WAIT_TIMEOUT_S", "30"}};
    control.signal = SIGINT;
    control.signalWhen = "recording ";
    control.signalDelay = std::chrono::milliseconds(3000); // stuck at frame 20 by then
    control.signalCopies = 2;
    control.signalGap = std::chrono::milliseconds(1500); // past the grace period: deliberate
    control.timeout = std::chrono::seconds(60);
    const auto r =
        runEstuaryControlled(with(kRecordRun, {"--frames", "100", "--record", clip}), control);
    ASSERT_TRUE(r.signalled) << r.out << r.err;
    EXPECT_EQ(r.exitCode, 130) << r.out << r.err;
    expectSays(r, {"a second Ctrl-C: ending now"});
    expectPreviousKept();
}

TEST_F(AppRecordHostile, ARunKilledMidRecordingLeavesAPartThatPlaysItsFragments) {
    test::RunControl control;
    control.signal = SIGKILL;
    control.signalWhen = "recording ";
    control.signalDelay = std::chrono::milliseconds(2500); // 2 s of fragments at 10 fps
    control.timeout = std::chrono::seconds(60);
    const auto r = runEstuaryControlled(
        with(kRecordRun, {"--frames", "100000000", "--fps-cap", "30", "--record", clip}), control);
    ASSERT_TRUE(r.signalled) << r.out << r.err;
    EXPECT_EQ(r.exitCode, 128 + SIGKILL);
    EXPECT_EQ(readFile(clip), kPrevious) << "a crash must not replace the file";
    const fs::path part = clip.string() + ".part";
    ASSERT_TRUE(fs::exists(part)) << "a crash leaves the temporary file";
    // One fragment a second of the file (10 frames at --record-fps 10): flushed as written, so
    // at least the first is on disk (before, 28 bytes after 4 s).
    EXPECT_GE(decodedFrames(part), 10) << fs::file_size(part) << " bytes";
}

// Paths a recording refuses before any work: exit 2 naming the option and why, nothing touched.
TEST_F(AppRecordHostile, AliasesLinksFifosDevicesAndProtectedFilesAreRefusedAtOnce) {
    const auto shot = dir / "shot.mp4";
    fs::create_symlink(shot, dir / "dangling.mp4"); // shot.mp4 does not exist yet
    fs::create_symlink(clip, dir / "link.mp4");
    ASSERT_EQ(mkfifo((dir / "fifo.mp4").c_str(), 0600), 0);
    const auto protectedFile = dir / "protected.mp4";
    std::ofstream(protectedFile) << "keep";
    fs::permissions(protectedFile, fs::perms::owner_read);
    fs::create_directory(dir / "folder.mp4");
    fs::create_symlink("/dev/null", dir / "null.mp4"); // followed: a device, which no rename takes
    const std::vector<std::string> headless = {"--headless", "--backend", "cpu", "--size",
                                               "16x16",      "--frames",  "3000"};
    struct Case {
        std::vector<std::string> args;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases = {
        {{"--record", clip, "--screenshot", clip}, {"--screenshot", "--record", "same file"}},
        {{"--record", dir / "dangling.mp4", "--screenshot", shot},
         {"--screenshot", "--record", "same file"}},
        {{"--record", dir / "link.mp4", "--trace", clip}, {"--trace", "--record", "same file"}},
        {{"--record", dir / "fifo.mp4"}, {"--record", "FIFO"}},
        {{"--record", protectedFile}, {"--record", "write-protected"}},
        {{"--record", dir / "folder.mp4"}, {"--record", "folder"}},
        {{"--record", dir / "null.mp4"}, {"--record", "character device"}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args[1]);
        const auto r = runEstuaryControlled(with(headless, c.args));
        EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
        expectSays(r, c.says);
        EXPECT_EQ(r.out.find("on backend"), std::string::npos) << "work began: " << r.out;
    }
    EXPECT_EQ(readFile(clip), kPrevious);
    EXPECT_EQ(readFile(protectedFile), "keep");
    EXPECT_FALSE(fs::exists(shot));
    EXPECT_TRUE(fs::is_symlink(dir / "link.mp4"));
}

TEST_F(AppRecordHostile, ARecordingThroughALinkReplacesItsTargetAndKeepsTheLink) {
    fs::create_directory(dir / "real");
    const auto target = dir / "real" / "new.mp4";
    fs::create_symlink(target, dir / "dangling.mp4");
    fs::create_symlink(clip, dir / "link.mp4");
    for (const fs::path& link : {dir / "dangling.mp4", dir / "link.mp4"}) {
        const auto r = runEstuaryControlled(with(kRecordRun, {"--frames", "12", "--record", link}));
        EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
        EXPECT_TRUE(fs::is_symlink(link)) << link;
        EXPECT_EQ(decodedFrames(link), 12) << link;
    }
    EXPECT_EQ(decodedFrames(target), 12);
    EXPECT_EQ(decodedFrames(clip), 12);
    EXPECT_EQ(listFolder(dir / "real"), std::vector<std::string>{"new.mp4"}) << "no .part";
}

TEST_F(AppRecordHostile, ReportAndCsvAliasedThroughADanglingLinkAreRefusedBeforeAnyWork) {
    fs::create_symlink("same.out", dir / "lnk.out"); // relative, and same.out does not exist
    const auto r =
        runEstuaryControlled({"--bench", "--backend", "cpu", "--size", "16x16", "--frames", "30",
                              "--report", dir / "same.out", "--csv", dir / "lnk.out"});
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    expectSays(r, {"--report", "--csv", "same file"});
    EXPECT_FALSE(fs::exists(dir / "same.out"));
}

} // namespace
} // namespace estuary
