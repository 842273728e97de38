// `estuary --bench` end to end with the CPU backend: every mode runs on a small grid, and the JSON
// report parses and holds every documented field with sane values; the plot script draws it.
#include "test_support.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace estuary {
namespace {

TEST(AppBench, EveryModeRunsOnCpuAndTheReportHoldsEveryField) {
    const auto dir = test::scratchDir("app-bench");
    const auto json = dir / "report.json";
    const auto csv = dir / "frames.csv";
    const auto r = test::runEstuary("--bench --backend cpu --mode all --size 48x48 --resolution "
                                    "64x64 --frames 60 --warmup 5 --validate --report '" +
                                    json.string() + "' --csv '" + csv.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("pipelined"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("host-copy"), std::string::npos) << r.output;

    EXPECT_EQ(test::checkBenchReport(json, 60), "ok\n");

    std::ifstream lines(csv);
    size_t rows = 0;
    for (std::string line; std::getline(lines, line);)
        ++rows;
    EXPECT_EQ(rows, 3u * 60u + 1u) << "one CSV row per measured frame per mode, plus the header";

    const auto png = dir / "plot.png";
    const std::string plot = test::python() + " '" ESTUARY_SOURCE_DIR "/scripts/plot_bench.py' '" +
                             png.string() + "' '" + json.string() + "' --csv '" + csv.string() +
                             "' 2>&1";
    EXPECT_EQ(std::system(plot.c_str()), 0);
    EXPECT_GT(std::filesystem::file_size(png), 10'000u);
}

} // namespace
} // namespace estuary
