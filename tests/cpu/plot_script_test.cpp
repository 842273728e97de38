// scripts/plot_bench.py on the committed sample report: it draws a real PNG from the JSON with the
// per-frame CSV and from the JSON alone, and refuses missing or invalid input with exit code 2.
// matplotlib missing is a failure, not a skip: scripts/install-deps.sh installs python3-matplotlib.
#include "test_support.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace estuary {
namespace {

namespace fs = std::filesystem;

// Debian's matplotlib lives under /usr/bin/python3; a pyenv python3 earlier on PATH cannot see it.
std::string python() {
    return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

test::ProcessResult runShell(const std::string& command) {
    test::ProcessResult result;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return result;
    std::array<char, 4096> buffer{};
    while (size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
        result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

const fs::path kSource = ESTUARY_SOURCE_DIR;
const fs::path kSampleJson = kSource / "tests" / "data" / "sample_bench_report.json";
const fs::path kSampleCsv = kSource / "tests" / "data" / "sample_bench_report.csv";

test::ProcessResult plot(const std::string& args) {
    return runShell(python() + " " + quoted((kSource / "scripts" / "plot_bench.py").string()) +
                    " " + args);
}

void expectPng(const fs::path& path) {
    ASSERT_TRUE(fs::exists(path)) << path;
    std::ifstream in(path, std::ios::binary);
    std::array<char, 8> signature{};
    in.read(signature.data(), signature.size());
    EXPECT_EQ(std::string(signature.data(), signature.size()), "\x89PNG\r\n\x1a\n");
    EXPECT_GT(fs::file_size(path), 10u * 1024u) << "too small to hold the plots";
    const test::Rgba8Image image = test::loadPng(path);
    EXPECT_GT(test::countDistinctColors(image), 16u) << "a flat image, not a plot";
}

class BenchPlotScript : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto probe = runShell(python() + " -c 'import matplotlib'");
        ASSERT_EQ(probe.exitCode, 0)
            << python() << " cannot import matplotlib: install python3-matplotlib "
            << "(scripts/install-deps.sh installs it)\n"
            << probe.output;
    }
};

TEST_F(BenchPlotScript, DrawsPngFromReportAndPerFrameCsv) {
    const fs::path out = test::scratchDir("bench_plot_csv") / "bench.png";
    const auto result = plot(quoted(out.string()) + " " + quoted(kSampleJson.string()) + " --csv " +
                             quoted(kSampleCsv.string()));
    ASSERT_EQ(result.exitCode, 0) << result.output;
    expectPng(out);
}

TEST_F(BenchPlotScript, DrawsPercentileBarsFromReportsAlone) {
    const fs::path out = test::scratchDir("bench_plot_json") / "sub" / "bench.png";
    const auto result = plot(quoted(out.string()) + " " + quoted(kSampleJson.string()) + " " +
                             quoted(kSampleJson.string()));
    ASSERT_EQ(result.exitCode, 0) << result.output;
    expectPng(out);
}

TEST_F(BenchPlotScript, MissingInputExitsWithCode2NamingTheFile) {
    const fs::path dir = test::scratchDir("bench_plot_missing");
    const auto missing = (dir / "no_such_report.json").string();
    const auto result = plot(quoted((dir / "x.png").string()) + " " + quoted(missing));
    EXPECT_EQ(result.exitCode, 2) << result.output;
    EXPECT_NE(result.output.find(missing), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(dir / "x.png"));

    const auto missingCsv = plot(quoted((dir / "x.png").string()) + " " +
                                 quoted(kSampleJson.string()) + " --csv " + quoted(missing));
    EXPECT_EQ(missingCsv.exitCode, 2) << missingCsv.output;
}

TEST_F(BenchPlotScript, InvalidReportExitsWithCode2) {
    const fs::path dir = test::scratchDir("bench_plot_invalid");
    std::ofstream(dir / "broken.json") << "{\"modes\": [";
    std::ofstream(dir / "other.json") << "{\"something\": 1}";
    for (const char* name : {"broken.json", "other.json"}) {
        const auto result =
            plot(quoted((dir / "x.png").string()) + " " + quoted((dir / name).string()));
        EXPECT_EQ(result.exitCode, 2) << name << "\n" << result.output;
        EXPECT_NE(result.output.find(name), std::string::npos) << result.output;
    }
}

} // namespace
} // namespace estuary
