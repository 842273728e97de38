// Ranks on GPUs end to end (docs/SCALING.md, one process per GPU): estuary as two processes, one
// CUDA device each, halos and the gather to rank 0 through NCCL, draws the picture one process
// draws, under validation, 2D and 3D at odd sizes. Needs two CUDA devices; skips saying so.
#include "test_support.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <string>
#include <vector>

namespace estuary::test {
namespace {

RunControl rankControl(uint32_t rank, const std::filesystem::path& dir) {
    RunControl c;
    c.env = {{"ESTUARY_RANKS", "2"},
             {"ESTUARY_RANK", std::to_string(rank)},
             {"ESTUARY_RENDEZVOUS", (dir / "rendezvous").string()},
             {"ESTUARY_RANK_TIMEOUT", "120"}};
    // NCCL's own bootstrap needs a network interface: loopback, where nothing says otherwise.
    if (!std::getenv("NCCL_SOCKET_IFNAME")) c.env.push_back({"NCCL_SOCKET_IFNAME", "lo"});
    c.timeout = std::chrono::seconds(300);
    return c;
}

TEST(AppGpuRanks, TwoCudaRanksDrawTheOneProcessPicture) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
        GTEST_SKIP() << "two ranks on GPUs need two CUDA devices; this machine has " << count;
    for (const auto& [simulation, size] :
         {std::pair{"gray-scott", "515x389"}, std::pair{"gray-scott-3d", "96x80x70"}}) {
        SCOPED_TRACE(simulation);
        const auto dir = scratchDir(std::string("app-gpu-ranks-") + simulation);
        const std::vector<std::string> args{"--sim",      simulation,  "--size", size,
                                            "--headless", "--backend", "cuda",   "--validate",
                                            "--frames",   "60",        "--seed", "3"};
        auto one = args, two = args;
        one.insert(one.end(), {"--screenshot", (dir / "one.png").string()});
        two.insert(two.end(), {"--screenshot", (dir / "two.png").string()});
        const ControlledRun whole = runEstuaryControlled(one);
        ASSERT_EQ(whole.exitCode, 0) << whole.out << whole.err;
        auto rank1 = std::async(std::launch::async,
                                [&] { return runEstuaryControlled(two, rankControl(1, dir)); });
        const ControlledRun rank0 = runEstuaryControlled(two, rankControl(0, dir));
        const ControlledRun r1 = rank1.get();
        std::printf("%s%s\n%s%s\n", rank0.out.c_str(), rank0.err.c_str(), r1.out.c_str(),
                    r1.err.c_str());
        ASSERT_EQ(rank0.exitCode, 0);
        ASSERT_EQ(r1.exitCode, 0);
        EXPECT_NE(rank0.out.find("between ranks through NCCL"), std::string::npos);
        EXPECT_NE(rank0.out.find("on 2 ranks (one process each, a GPU each)"), std::string::npos);
        EXPECT_NE(rank0.out.find("validation layer reported 0 message"), std::string::npos);
        EXPECT_TRUE(loadPng(dir / "one.png").pixels == loadPng(dir / "two.png").pixels)
            << "two CUDA ranks drew another picture than one process";
    }
}

} // namespace
} // namespace estuary::test
