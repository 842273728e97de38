// The app as a job of several processes (app/rank_run.h), each rank its own estuary process
// meeting the others on loopback: two ranks draw the picture one process draws, in 2D and 3D at
// odd sizes (the exact equality of every output level is RankedSplit's, in ranks_test.cpp); a
// rank that never starts or is killed mid-run ends the others in bounded time, non-zero, naming
// it; bad job variables are exit 2 naming them.
#include "test_support.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

namespace estuary {
namespace {

using test::ControlledRun;
using test::RunControl;

RunControl rankControl(uint32_t rank, uint32_t size, const std::filesystem::path& dir,
                       const std::string& timeoutSeconds = "20") {
    RunControl c;
    c.env = {{"ESTUARY_RANKS", std::to_string(size)},
             {"ESTUARY_RANK", std::to_string(rank)},
             {"ESTUARY_RENDEZVOUS", (dir / "rendezvous").string()},
             {"ESTUARY_RANK_TIMEOUT", timeoutSeconds}};
    c.timeout = std::chrono::seconds(90);
    return c;
}

// Every rank of a job on its own thread, each with its control.
std::vector<ControlledRun> runRanks(const std::vector<std::string>& args,
                                    const std::vector<RunControl>& controls) {
    std::vector<std::future<ControlledRun>> futures;
    for (const RunControl& c : controls)
        futures.push_back(std::async(std::launch::async,
                                     [&args, c] { return test::runEstuaryControlled(args, c); }));
    std::vector<ControlledRun> runs;
    for (auto& f : futures)
        runs.push_back(f.get());
    return runs;
}

bool has(const ControlledRun& r, const std::string& text) {
    return r.out.find(text) != std::string::npos || r.err.find(text) != std::string::npos;
}

// `ranks` ranks, each also given `jobArgs`, draw the picture one process draws.
void expectRanksDrawTheOneProcessPicture(const std::string& name, std::vector<std::string> args,
                                         uint32_t ranks = 2,
                                         const std::vector<std::string>& jobArgs = {},
                                         const std::string& rankZeroSays = "") {
    const auto dir = test::scratchDir("app-ranks-" + name);
    args.insert(args.end(), {"--headless", "--backend", "cpu", "--validate", "--seed", "6"});
    std::vector<std::string> one = args, job = args;
    one.insert(one.end(), {"--screenshot", (dir / "one.png").string()});
    job.insert(job.end(), {"--screenshot", (dir / "job.png").string()});
    job.insert(job.end(), jobArgs.begin(), jobArgs.end());
    const ControlledRun whole = test::runEstuaryControlled(one);
    ASSERT_EQ(whole.exitCode, 0) << whole.out << whole.err;
    std::vector<RunControl> controls;
    for (uint32_t r = 0; r < ranks; ++r)
        controls.push_back(rankControl(r, ranks, dir));
    const auto runs = runRanks(job, controls);
    for (uint32_t r = 0; r < ranks; ++r)
        ASSERT_EQ(runs[r].exitCode, 0) << "rank " << r << ": " << runs[r].out << runs[r].err;
    const std::string on = "on " + std::to_string(ranks) + " ranks (one process each, the CPU)";
    EXPECT_TRUE(has(runs[0], on)) << runs[0].out;
    EXPECT_TRUE(has(runs[0], rankZeroSays)) << runs[0].out;
    EXPECT_TRUE(has(runs[0], "validation layer reported 0 message")) << runs[0].out;
    for (uint32_t r = 1; r < ranks; ++r) {
        EXPECT_TRUE(has(runs[r], "rank " + std::to_string(r) + " done: 1 run(s)")) << runs[r].out;
        EXPECT_FALSE(has(runs[r], "llvmpipe")) << "rank " << r << " opened a Vulkan device";
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "rendezvous")) << "rank 0 leaves no rendezvous";
    const auto a = test::loadPng(dir / "one.png"), b = test::loadPng(dir / "job.png");
    EXPECT_GT(test::countDistinctColors(a), 16u) << "the picture is (nearly) uniform";
    EXPECT_TRUE(a.pixels == b.pixels) << ranks << " ranks drew another picture than one process";
}

TEST(AppRanks, TwoRanksDrawTheOneProcessPictureIn2D) {
    expectRanksDrawTheOneProcessPicture("2d", {"--sim", "gray-scott", "--size", "97x61",
                                               "--resolution", "194x122", "--frames", "12"});
}

TEST(AppRanks, TwoRanksDrawTheOneProcessPictureIn3D) {
    expectRanksDrawTheOneProcessPicture("3d", {"--sim", "gray-scott-3d", "--size", "21x17x19",
                                               "--resolution", "160x120", "--frames", "6"});
}

// --display-share, refused in one process without --gpus, is rank 0's part of the planes in a
// job: 0.37 of 61 rows is 23 (the default, 0.4, would be 24), 0.5 of them on three ranks 31.
TEST(AppRanks, RanksWithADisplayShareDrawTheOneProcessPicture) {
    const std::vector<std::string> args{"--sim",        "gray-scott", "--size",   "97x61",
                                        "--resolution", "194x122",    "--frames", "12"};
    {
        SCOPED_TRACE("2 ranks, share 0.37");
        expectRanksDrawTheOneProcessPicture("share-2", args, 2, {"--display-share", "0.37"},
                                            "rank 0 holding 23 rows");
    }
    {
        SCOPED_TRACE("3 ranks, share 0.5");
        expectRanksDrawTheOneProcessPicture("share-3", args, 3, {"--display-share", "0.5"},
                                            "rank 0 holding 31 rows");
    }
}

TEST(AppRanks, AMissingRankEndsRankZeroInBoundedTimeNamingIt) {
    const auto dir = test::scratchDir("app-ranks-missing");
    const ControlledRun r = test::runEstuaryControlled(
        {"--headless", "--backend", "cpu", "--frames", "2", "--screenshot", "/dev/null"},
        rankControl(0, 2, dir, "2"));
    EXPECT_FALSE(r.timedOut);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_TRUE(has(r, "rank 1 of 2 did not reach the rendezvous")) << r.err;
    EXPECT_LT(r.seconds, 30.0);
}

// SIGKILL to one rank once it is linked and stepping: the other exits 1 naming it.
void expectKillingRankEndsTheOther(uint32_t killed) {
    const auto dir = test::scratchDir("app-ranks-killed");
    std::vector<RunControl> controls{rankControl(0, 2, dir), rankControl(1, 2, dir)};
    controls[killed].signal = SIGKILL;
    controls[killed].signalWhen = "linked to the job";
    controls[killed].signalDelay = std::chrono::milliseconds(1500);
    const auto runs = runRanks({"--headless", "--backend", "cpu", "--size", "64x64", "--frames",
                                "1000000", "--screenshot", "/dev/null"},
                               controls);
    const ControlledRun& other = runs[1 - killed];
    EXPECT_TRUE(runs[killed].signalled);
    EXPECT_EQ(runs[killed].exitCode, 128 + SIGKILL);
    EXPECT_FALSE(other.timedOut) << "the other rank hung";
    EXPECT_EQ(other.exitCode, 1) << other.out << other.err;
    EXPECT_TRUE(has(other, "rank " + std::to_string(killed) + " closed its link"))
        << other.out << other.err;
    EXPECT_LT(other.seconds - runs[killed].seconds, 20.0);
}

TEST(AppRanks, AKilledRankEndsTheOtherInBoundedTime) {
    {
        SCOPED_TRACE("rank 1 killed");
        expectKillingRankEndsTheOther(1);
    }
    {
        SCOPED_TRACE("rank 0 killed");
        expectKillingRankEndsTheOther(0);
    }
}

TEST(AppRanks, BadJobVariablesAreExit2NamingThem) {
    const struct {
        std::vector<std::pair<std::string, std::string>> env;
        std::vector<std::string> args;
        std::string expected;
    } cases[] = {
        {{{"ESTUARY_RANKS", "2"}, {"ESTUARY_RANK", "2"}, {"ESTUARY_RENDEZVOUS", "h:1"}},
         {},
         "ESTUARY_RANK=2 is not a rank in 0..1"},
        {{{"ESTUARY_RANKS", "0"}, {"ESTUARY_RANK", "0"}}, {}, "ESTUARY_RANKS=0"},
        {{{"ESTUARY_RANKS", "2"}, {"ESTUARY_RANK", "0"}, {"ESTUARY_RENDEZVOUS", "nowhere"}},
         {},
         "ESTUARY_RENDEZVOUS=nowhere is not host:port"},
        {{{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "1"}}, {}, "needs a rendezvous"},
        {{{"ESTUARY_RANKS", "2"}, {"ESTUARY_RANK", "0"}, {"ESTUARY_RENDEZVOUS", "h:1"}},
         {"--gpus", "2"},
         "--gpus 2 in a job of 2 ranks"},
    };
    for (const auto& c : cases) {
        RunControl control;
        control.env = c.env;
        control.timeout = std::chrono::seconds(30);
        std::vector<std::string> args{"--headless", "--frames", "1", "--screenshot", "/dev/null"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        const ControlledRun r = test::runEstuaryControlled(args, control);
        EXPECT_EQ(r.exitCode, 2) << c.expected << ": " << r.out << r.err;
        EXPECT_TRUE(has(r, c.expected)) << r.err;
    }
}

TEST(AppRanks, TheLauncherScriptRunsThreeRanksAndReturnsRankZerosCode) {
    const auto dir = test::scratchDir("app-ranks-script");
    const std::string script = std::string(ESTUARY_SOURCE_DIR) + "/scripts/estuary-ranks";
    const std::string shot = (dir / "three.png").string();
    const auto ok = test::runProgram("/bin/bash", "'" + script + "' 3 --estuary '" +
                                                      test::estuaryBinary().string() +
                                                      "' -- --headless --backend cpu --size "
                                                      "40x33 --frames 4 --screenshot '" +
                                                      shot + "'");
    EXPECT_EQ(ok.exitCode, 0) << ok.output;
    EXPECT_NE(ok.output.find("the grid in 3 slabs"), std::string::npos) << ok.output;
    EXPECT_NE(ok.output.find("rank 2 done"), std::string::npos) << ok.output;
    EXPECT_TRUE(std::filesystem::exists(shot));
    const auto bad = test::runProgram("/bin/bash", "'" + script + "' 2 --estuary '" +
                                                       test::estuaryBinary().string() +
                                                       "' -- --headless --size 3y4");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    const auto zero = test::runProgram("/bin/bash", "'" + script + "' 0 -- --headless");
    EXPECT_EQ(zero.exitCode, 2) << zero.output;
    EXPECT_NE(zero.output.find("N must be in 1..64"), std::string::npos) << zero.output;
}

} // namespace
} // namespace estuary
