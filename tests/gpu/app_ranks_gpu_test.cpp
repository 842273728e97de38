// Ranks on GPUs end to end (docs/SCALING.md, one process per GPU): estuary as two processes (and
// three and four where there are the GPUs), one CUDA device each, halos and the gather to rank 0
// through NCCL, rank 0 holding its display share, draws the picture one process draws, under
// validation, 2D and 3D at odd sizes. Needs two CUDA devices; skips saying so.
#include "test_support.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <string>
#include <vector>

namespace estuary::test {
namespace {

RunControl rankControl(uint32_t rank, uint32_t ranks, const std::filesystem::path& dir) {
    RunControl c;
    c.env = {{"ESTUARY_RANKS", std::to_string(ranks)},
             {"ESTUARY_RANK", std::to_string(rank)},
             {"ESTUARY_LOCAL_RANK", std::to_string(rank)},
             {"ESTUARY_RENDEZVOUS", (dir / "rendezvous").string()},
             {"ESTUARY_RANK_TIMEOUT", "120"}};
    // NCCL's own bootstrap needs a network interface: loopback, where nothing says otherwise.
    if (!std::getenv("NCCL_SOCKET_IFNAME")) c.env.push_back({"NCCL_SOCKET_IFNAME", "lo"});
    c.timeout = std::chrono::seconds(300);
    return c;
}

// `ranks` CUDA ranks, each also given `jobArgs`, against one process; every rank must exit 0.
void expectCudaRanksDrawTheOneProcessPicture(uint32_t ranks,
                                             const std::vector<std::string>& jobArgs) {
    for (const auto& [simulation, size] :
         {std::pair{"gray-scott", "515x389"}, std::pair{"gray-scott-3d", "96x80x70"}}) {
        SCOPED_TRACE(std::string(simulation) + " on " + std::to_string(ranks) + " ranks");
        const auto dir = scratchDir(std::string("app-gpu-ranks-") + simulation);
        const std::vector<std::string> args{"--sim",      simulation,  "--size", size,
                                            "--headless", "--backend", "cuda",   "--validate",
                                            "--frames",   "60",        "--seed", "3"};
        auto one = args, job = args;
        one.insert(one.end(), {"--screenshot", (dir / "one.png").string()});
        job.insert(job.end(), {"--screenshot", (dir / "job.png").string()});
        job.insert(job.end(), jobArgs.begin(), jobArgs.end());
        const ControlledRun whole = runEstuaryControlled(one);
        ASSERT_EQ(whole.exitCode, 0) << whole.out << whole.err;
        std::vector<std::future<ControlledRun>> others;
        for (uint32_t r = 1; r < ranks; ++r)
            others.push_back(std::async(std::launch::async, [&, r] {
                return runEstuaryControlled(job, rankControl(r, ranks, dir));
            }));
        const ControlledRun rank0 = runEstuaryControlled(job, rankControl(0, ranks, dir));
        std::printf("%s%s\n", rank0.out.c_str(), rank0.err.c_str());
        bool othersOk = true;
        for (auto& f : others) {
            const ControlledRun r = f.get();
            std::printf("%s%s\n", r.out.c_str(), r.err.c_str());
            othersOk = othersOk && r.exitCode == 0;
        }
        ASSERT_EQ(rank0.exitCode, 0);
        ASSERT_TRUE(othersOk) << "a rank above 0 failed";
        EXPECT_NE(rank0.out.find("between ranks through NCCL"), std::string::npos);
        EXPECT_NE(
            rank0.out.find("on " + std::to_string(ranks) + " ranks (one process each, a GPU each)"),
            std::string::npos);
        EXPECT_NE(rank0.out.find("validation layer reported 0 message"), std::string::npos);
        EXPECT_TRUE(loadPng(dir / "one.png").pixels == loadPng(dir / "job.png").pixels)
            << ranks << " CUDA ranks drew another picture than one process";
    }
}

int cudaDevices() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

TEST(AppGpuRanks, TwoCudaRanksDrawTheOneProcessPicture) {
    if (cudaDevices() < 2)
        GTEST_SKIP() << "two ranks on GPUs need two CUDA devices; this machine has "
                     << cudaDevices();
    expectCudaRanksDrawTheOneProcessPicture(2, {}); // rank 0 holds the default share, 0.4
}

TEST(AppGpuRanks, CudaRanksWithAnyDisplayShareDrawTheOneProcessPicture) {
    if (cudaDevices() < 2)
        GTEST_SKIP() << "ranks on GPUs need two CUDA devices; this machine has " << cudaDevices();
    for (const char* share : {"0.37", "0.5"}) {
        SCOPED_TRACE(std::string("--display-share ") + share);
        expectCudaRanksDrawTheOneProcessPicture(2, {"--display-share", share});
    }
    // Every rank count the machine allows up to 4: a rank in the middle has two neighbours.
    for (uint32_t ranks = 3; ranks <= uint32_t(std::min(4, cudaDevices())); ++ranks)
        expectCudaRanksDrawTheOneProcessPicture(ranks, {});
}

} // namespace
} // namespace estuary::test
