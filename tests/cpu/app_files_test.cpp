// The files estuary writes, through the executable (CPU backend, lavapipe): output paths are
// checked before the first frame (exit 2, at once), a failed write keeps the previous file and
// frees what the run made, the report and the CSV are written independently, a FIFO without a
// reader fails instead of hanging, and a report on stdout leaves stdout holding only the report.
#include "test_support.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace estuary {
namespace {

namespace fs = std::filesystem;
using test::listFolder;
using test::readFile;
using test::runEstuaryControlled;

const std::vector<std::string> kSmallHeadless = {"--headless", "--backend",    "cpu",  "--size",
                                                 "32x32",      "--resolution", "48x48"};
const std::vector<std::string> kSmallBench = {"--bench", "--backend",    "cpu",   "--size",
                                              "16x16",   "--resolution", "16x16", "--frames",
                                              "30",      "--warmup",     "2"};

// A refusal before any work takes a fraction of a second; the bound only catches a run that did
// the work (or hung) and leaves room for a loaded machine. What proves "before any work" is that
// no device was opened (no "on backend" line).
constexpr double kRefusedBoundS = 20.0;

std::vector<std::string> with(std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

size_t lineCount(const std::string& text) {
    return size_t(std::count(text.begin(), text.end(), '\n'));
}

// "ok" when `text` is one JSON document (Python's json module) with "schema_version" 3.
std::string checkJson(const std::string& text, const fs::path& scratch) {
    const auto file = scratch / "check.json";
    std::ofstream(file, std::ios::binary) << text;
    const std::string command = test::python() +
                                " -c \"import json,sys; r=json.load(open(sys.argv[1])); "
                                "print('ok' if r['schema_version'] == 8 else 'schema')\" '" +
                                file.string() + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string verdict;
    char buffer[512];
    while (pipe && fgets(buffer, sizeof(buffer), pipe))
        verdict += buffer;
    if (pipe) pclose(pipe);
    return verdict;
}

void expectNamed(const test::ControlledRun& r, std::initializer_list<std::string> texts) {
    for (const std::string& text : texts)
        EXPECT_NE(r.err.find(text), std::string::npos) << "stderr lacks '" << text << "':\n"
                                                       << r.err;
}

TEST(AppFiles, AnUnwritableScreenshotExits2BeforeTheFirstFrame) {
    const auto dir = test::scratchDir("files-unwritable");
    std::ofstream(dir / "file") << "a regular file where a folder should be";
    const auto shot = dir / "file" / "shot.png";
    // 3000 frames would take a while; the check must come first.
    const auto r = runEstuaryControlled(
        with(kSmallHeadless, {"--frames", "3000", "--screenshot", shot.string()}));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    expectNamed(r, {"--screenshot", shot.string(), std::strerror(ENOTDIR)});
    EXPECT_EQ(r.out.find("on backend"), std::string::npos)
        << "a device was opened first: " << r.out;
    EXPECT_LT(r.seconds, kRefusedBoundS);
}

TEST(AppFiles, RecordWritesAFinishedVideoOrExits2NamingTheFolder) {
    const auto dir = test::scratchDir("files-record");
    const auto clip = dir / "clip.mp4";
    const auto r =
        runEstuaryControlled(with(kSmallHeadless, {"--frames", "20", "--record", clip.string(),
                                                   "--record-encoder", "libx264"}));
    if (r.err.find("did not load") != std::string::npos)
        GTEST_SKIP() << "built without FFmpeg: " << r.err;
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("recorded 20 frames to " + clip.string() + " with libx264"),
              std::string::npos)
        << r.out;
    EXPECT_GT(fs::file_size(clip), 1000u);
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"clip.mp4"}) << "no .part left";
    const auto missing = dir / "missing" / "clip.mp4";
    const auto bad = runEstuaryControlled(with(kSmallHeadless, {"--record", missing.string()}));
    EXPECT_EQ(bad.exitCode, 2) << bad.err;
    expectNamed(bad, {(dir / "missing").string(), "does not exist"});
}

TEST(AppFiles, AFolderGivenAsTheScreenshotOrReportExits2) {
    const auto dir = test::scratchDir("files-folder");
    const auto shot = runEstuaryControlled(with(kSmallHeadless, {"--screenshot", dir.string()}));
    EXPECT_EQ(shot.exitCode, 2) << shot.err;
    expectNamed(shot, {"--screenshot", dir.string(), "folder"});
    const auto report = runEstuaryControlled(with(kSmallBench, {"--csv", dir.string()}));
    EXPECT_EQ(report.exitCode, 2) << report.err;
    expectNamed(report, {"--csv", dir.string()});
}

TEST(AppFiles, ReportAndCsvNamingOneFileThroughALinkExit2) {
    // The parser sees two spellings; the check before the run sees one file.
    const auto dir = test::scratchDir("files-same");
    std::ofstream(dir / "out.json") << "{}";
    fs::create_symlink(dir / "out.json", dir / "link.csv");
    const auto r = runEstuaryControlled(with(kSmallBench, {"--report", (dir / "out.json").string(),
                                                           "--csv", (dir / "link.csv").string()}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    expectNamed(r, {"--report", "--csv", "same file"});
    EXPECT_EQ(readFile(dir / "out.json"), "{}");
}

TEST(AppFiles, AFifoWithoutAReaderExits2InsteadOfHanging) {
    const auto dir = test::scratchDir("files-fifo");
    const auto fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    test::RunControl control;
    control.timeout = std::chrono::seconds(20);
    const auto r = runEstuaryControlled(with(kSmallBench, {"--report", fifo.string()}), control);
    EXPECT_FALSE(r.timedOut) << "estuary hung on a FIFO nobody reads";
    EXPECT_EQ(r.exitCode, 2) << r.err;
    expectNamed(r, {"--report", fifo.string(), "no process is reading"});
    EXPECT_LT(r.seconds, kRefusedBoundS);
}

TEST(AppFiles, AFifoWithAReaderReceivesTheReport) {
    const auto dir = test::scratchDir("files-fifo-read");
    const auto fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // Opened before estuary starts, as `cat fifo &` would be; read until estuary closes its end.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    std::string received;
    std::thread drain([&] {
        fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) & ~O_NONBLOCK);
        char buffer[4096];
        // The first read may see no writer yet (0): wait for one to appear and finish.
        for (int idle = 0; idle < 600;) {
            const ssize_t n = read(reader, buffer, sizeof(buffer));
            if (n > 0) {
                received.append(buffer, size_t(n));
                idle = 0;
            } else if (n == 0 && !received.empty()) {
                break;
            } else {
                ++idle;
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        }
    });
    const auto r = runEstuaryControlled(with(kSmallBench, {"--report", fifo.string()}));
    drain.join();
    close(reader);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(checkJson(received, dir), "ok\n") << received.substr(0, 200);
}

TEST(AppFiles, AReportOnStdoutLeavesStdoutHoldingOnlyTheReport) {
    const auto dir = test::scratchDir("files-stdout");
    for (const char* path : {"-", "/dev/stdout"}) {
        SCOPED_TRACE(path);
        const auto csv = dir / "frames.csv";
        const auto r = runEstuaryControlled(
            with(kSmallBench, {"--validate", "--report", path, "--csv", csv.string()}));
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(r.out.front(), '{') << r.out.substr(0, 200);
        EXPECT_EQ(checkJson(r.out, dir), "ok\n") << r.out.substr(0, 400);
        // The messages that went to stdout before went to stderr instead.
        expectNamed(r, {"on backend cpu", "p50 ms", "wrote " + csv.string(), "reported 0"});
        EXPECT_EQ(lineCount(readFile(csv)), 31u);
    }
    // The CSV too, and a headless screenshot as PNG bytes.
    const auto csvOut = runEstuaryControlled(with(kSmallBench, {"--csv", "-"}));
    ASSERT_EQ(csvOut.exitCode, 0) << csvOut.err;
    EXPECT_EQ(csvOut.out.rfind("mode,frame,frame_ms", 0), 0u) << csvOut.out.substr(0, 200);
    EXPECT_EQ(lineCount(csvOut.out), 31u);
    const auto png =
        runEstuaryControlled(with(kSmallHeadless, {"--frames", "3", "--screenshot", "-"}));
    ASSERT_EQ(png.exitCode, 0) << png.err;
    EXPECT_EQ(png.out.substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST(AppFiles, AFailedScreenshotWriteKeepsThePreviousFileAndFreesTheRun) {
    const auto dir = test::scratchDir("files-fault");
    const auto shot = dir / "shot.png";
    std::ofstream(shot, std::ios::binary) << "the previous, good picture";
    test::RunControl control;
    control.env = {{"ESTUARY_FAULT_WRITE", "shot.png:100"}}; // a disk full after 100 bytes
    const auto r = runEstuaryControlled(
        with(kSmallHeadless, {"--validate", "--frames", "5", "--screenshot", shot.string()}),
        control);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    expectNamed(r, {shot.string(), std::strerror(ENOSPC)});
    EXPECT_EQ(readFile(shot), "the previous, good picture");
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"shot.png"}) << "a temporary was left";
    // The offscreen target is freed before the device: the layer has nothing to report.
    EXPECT_EQ(r.err.find("[vulkan"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("[vulkan"), std::string::npos) << r.out;
}

TEST(AppFiles, AFailedReportStillWritesTheCsvAndViceVersa) {
    const auto dir = test::scratchDir("files-independent");
    const auto json = dir / "report.json";
    const auto csv = dir / "frames.csv";
    // A device that is always full, and an injected full disk on a regular file.
    const auto badReport =
        runEstuaryControlled(with(kSmallBench, {"--report", "/dev/full", "--csv", csv.string()}));
    EXPECT_EQ(badReport.exitCode, 1) << badReport.err;
    expectNamed(badReport, {"/dev/full", std::strerror(ENOSPC)});
    EXPECT_EQ(lineCount(readFile(csv)), 31u);

    std::ofstream(json) << "previous report";
    test::RunControl control;
    control.env = {{"ESTUARY_FAULT_WRITE", "report.json:10"}};
    fs::remove(csv);
    const auto injected = runEstuaryControlled(
        with(kSmallBench, {"--report", json.string(), "--csv", csv.string()}), control);
    EXPECT_EQ(injected.exitCode, 1) << injected.err;
    expectNamed(injected, {json.string(), std::strerror(ENOSPC)});
    EXPECT_EQ(readFile(json), "previous report");
    EXPECT_EQ(lineCount(readFile(csv)), 31u);

    const auto badCsv =
        runEstuaryControlled(with(kSmallBench, {"--report", json.string(), "--csv", "/dev/full"}));
    EXPECT_EQ(badCsv.exitCode, 1) << badCsv.err;
    expectNamed(badCsv, {"/dev/full"});
    EXPECT_EQ(checkJson(readFile(json), dir), "ok\n");
    EXPECT_EQ(listFolder(dir),
              (std::vector<std::string>{"check.json", "frames.csv", "report.json"}));
}

TEST(AppFiles, AnOptionLikeScreenshotValueWritesNoFile) {
    // `--screenshot --no-ui` once wrote a file named --no-ui.
    const auto dir = test::scratchDir("files-option-like");
    const auto r = test::runEstuary("--headless --backend cpu --frames 1 --size 8x8 --resolution "
                                    "8x8 --screenshot --no-ui");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("'--no-ui'"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists("--no-ui"));
}

} // namespace
} // namespace estuary
