// One process per slab, in one test process: the launcher's environment read into a job
// (ranks/job.h) and its refusals; the TCP bootstrap and links (ranks/links.h) between threads
// standing for ranks, a missing rank and a closed link ending in bounded time with errors naming
// them; and the ranked split run (cuda_sim/slabs_ranks.h) over 2 and 3 ranks equal to the
// one-process unsplit run in every output level, bit for bit.
#include "errors.h"
#include "links.h"
#include "simulations.h"
#include "slabs_ranks.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace estuary {
namespace {

using ranks::Job;
using Vars = std::map<std::string, std::string>;

std::optional<Job> jobOf(const Vars& vars) {
    return ranks::jobFromEnvironment([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

std::string errorOf(const Vars& vars) {
    try {
        (void)jobOf(vars);
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), ESTUARY_ERROR_INVALID_ARGUMENT) << e.what();
        return e.what();
    }
    return "(no error)";
}

TEST(RankJob, ReadsEachLaunchersVariables) {
    const auto own = jobOf({{"ESTUARY_RANKS", "4"},
                            {"ESTUARY_RANK", "2"},
                            {"ESTUARY_RENDEZVOUS", "127.0.0.1:29500"},
                            {"ESTUARY_RANK_TIMEOUT", "7"}});
    ASSERT_TRUE(own);
    EXPECT_EQ(own->size, 4u);
    EXPECT_EQ(own->rank, 2u);
    EXPECT_EQ(own->localRank, 2u) << "the local rank defaults to the rank";
    EXPECT_EQ(own->launcher, "estuary");
    EXPECT_EQ(own->rendezvous.host, "127.0.0.1");
    EXPECT_EQ(own->rendezvous.port, 29500);
    EXPECT_EQ(own->timeout, std::chrono::seconds(7));

    const auto mpi = jobOf({{"OMPI_COMM_WORLD_SIZE", "8"},
                            {"OMPI_COMM_WORLD_RANK", "5"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                            {"MASTER_ADDR", "node17"},
                            {"MASTER_PORT", "6000"}});
    ASSERT_TRUE(mpi);
    EXPECT_EQ(mpi->launcher, "mpirun");
    EXPECT_EQ(mpi->rank, 5u);
    EXPECT_EQ(mpi->localRank, 1u);
    EXPECT_EQ(mpi->rendezvous.host, "node17");
    EXPECT_EQ(mpi->rendezvous.port, 6000);
    EXPECT_EQ(mpi->timeout, ranks::kDefaultRankTimeout);

    const auto slurm = jobOf({{"SLURM_STEP_NUM_TASKS", "2"},
                              {"SLURM_PROCID", "1"},
                              {"SLURM_LOCALID", "0"},
                              {"SLURM_NTASKS", "2"},
                              {"ESTUARY_RENDEZVOUS", "/shared/job42/rendezvous"}});
    ASSERT_TRUE(slurm);
    EXPECT_EQ(slurm->launcher, "srun");
    EXPECT_EQ(slurm->rank, 1u);
    EXPECT_EQ(slurm->localRank, 0u);
    EXPECT_EQ(slurm->rendezvous.file, "/shared/job42/rendezvous");
}

TEST(RankJob, OneRankOrNoLauncherIsAPlainRun) {
    EXPECT_FALSE(jobOf({}));
    EXPECT_FALSE(jobOf({{"ESTUARY_RANKS", "1"}, {"ESTUARY_RANK", "0"}}));
    // An allocation's SLURM_NTASKS without srun's step variables is no job of ranks.
    EXPECT_FALSE(jobOf({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "0"}}));
}

TEST(RankJob, RefusesBadValuesNamingTheVariableAndWhatIsAllowed) {
    const Vars ok{{"ESTUARY_RANKS", "2"}, {"ESTUARY_RANK", "0"}, {"ESTUARY_RENDEZVOUS", "h:1"}};
    const auto with = [&](const std::string& name, const std::optional<std::string>& value) {
        Vars v = ok;
        if (value)
            v[name] = *value;
        else
            v.erase(name);
        return errorOf(v);
    };
    const struct {
        std::string name;
        std::optional<std::string> value;
        std::vector<std::string> expected;
    } cases[] = {
        {"ESTUARY_RANK", "2", {"ESTUARY_RANK=2", "0..1", "ESTUARY_RANKS=2"}},
        {"ESTUARY_RANK", "-1", {"ESTUARY_RANK=-1", "0..1"}},
        {"ESTUARY_RANK", std::nullopt, {"ESTUARY_RANK is not set"}},
        {"ESTUARY_RANKS", "0", {"ESTUARY_RANKS=0", "at least 1"}},
        {"ESTUARY_RANKS", "two", {"ESTUARY_RANKS=two", "1..4096"}},
        {"ESTUARY_RANKS", "5000", {"ESTUARY_RANKS=5000", "1..4096"}},
        {"ESTUARY_RENDEZVOUS", "localhost", {"ESTUARY_RENDEZVOUS=localhost", "host:port"}},
        {"ESTUARY_RENDEZVOUS", "h:0", {"ESTUARY_RENDEZVOUS=h:0", "1..65535"}},
        {"ESTUARY_RENDEZVOUS", "h:70000", {"h:70000", "1..65535"}},
        {"ESTUARY_RENDEZVOUS", ":5000", {"host:port"}},
        {"ESTUARY_RENDEZVOUS", std::nullopt, {"needs a rendezvous", "MASTER_ADDR"}},
        {"ESTUARY_RANK_TIMEOUT", "0", {"ESTUARY_RANK_TIMEOUT=0", "1..86400"}},
    };
    for (const auto& c : cases) {
        const std::string message = with(c.name, c.value);
        for (const std::string& part : c.expected)
            EXPECT_NE(message.find(part), std::string::npos)
                << c.name << "=" << c.value.value_or("(unset)") << ": " << message;
    }
}

// The job of rank `rank` of `size`, meeting at a file in `dir`.
Job testJob(uint32_t rank, uint32_t size, const std::filesystem::path& dir,
            std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    Job job;
    job.rank = rank;
    job.size = size;
    job.localRank = rank;
    job.launcher = "test";
    job.rendezvous.file = (dir / "rendezvous").string();
    job.timeout = timeout;
    return job;
}

// Every rank's bootstrap on its own thread; the links, or each rank's error.
struct Started {
    std::vector<ranks::Links> links;
    std::vector<std::string> errors; // empty where the rank linked
};
Started connectAll(uint32_t size, const std::filesystem::path& dir,
                   std::chrono::milliseconds timeout = std::chrono::seconds(20),
                   const std::vector<uint32_t>& absent = {}, uint64_t oddFingerprint = 0) {
    std::vector<std::future<ranks::Links>> futures(size);
    for (uint32_t r = 0; r < size; ++r) {
        if (std::find(absent.begin(), absent.end(), r) != absent.end()) continue;
        const uint64_t fingerprint = r == 1 && oddFingerprint ? oddFingerprint : 42;
        futures[r] = std::async(std::launch::async, [=] {
            return ranks::connectRanks(testJob(r, size, dir, timeout), fingerprint);
        });
    }
    Started started;
    started.links.resize(size);
    started.errors.resize(size);
    for (uint32_t r = 0; r < size; ++r) {
        if (!futures[r].valid()) continue;
        try {
            started.links[r] = futures[r].get();
        } catch (const Error& e) {
            started.errors[r] = e.what();
        }
    }
    return started;
}

TEST(RankLinks, BootstrapLinksRankZeroAndNeighboursWhoExchangeLargeBuffers) {
    for (uint32_t size : {2u, 4u}) {
        SCOPED_TRACE(std::to_string(size) + " ranks");
        Started s = connectAll(size, test::scratchDir("ranks-links"));
        for (uint32_t r = 0; r < size; ++r)
            ASSERT_EQ(s.errors[r], "") << "rank " << r;
        for (uint32_t r = 1; r < size; ++r) {
            EXPECT_TRUE(s.links[r].linked(0) && s.links[0].linked(r));
            EXPECT_TRUE(s.links[r].linked(r - 1) && s.links[r - 1].linked(r));
        }
        // Both ways at once, far more than a socket buffer: a rank that sent before receiving
        // would wait forever on its neighbour doing the same.
        const size_t count = size_t(4) << 20;
        std::vector<std::future<bool>> done;
        for (uint32_t r = 0; r < size; ++r)
            done.push_back(std::async(std::launch::async, [&, r] {
                const uint32_t up = (r + 1) % size, down = (r + size - 1) % size;
                std::vector<uint32_t> out(count, r), fromUp(count), fromDown(count);
                std::vector<ranks::Transfer> t{{up, true, out.data(), count * 4},
                                               {down, true, out.data(), count * 4},
                                               {up, false, fromUp.data(), count * 4},
                                               {down, false, fromDown.data(), count * 4}};
                s.links[r].transfer(t);
                return fromUp == std::vector<uint32_t>(count, up) &&
                       fromDown == std::vector<uint32_t>(count, down);
            }));
        for (uint32_t r = 0; r < size; ++r)
            EXPECT_TRUE(done[r].get()) << "rank " << r << " received the wrong bytes";
    }
}

TEST(RankLinks, AMissingRankEndsTheBootstrapInBoundedTimeNamingIt) {
    const auto start = std::chrono::steady_clock::now();
    Started s = connectAll(3, test::scratchDir("ranks-missing"), std::chrono::seconds(1), {2});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 10.0);
    EXPECT_NE(s.errors[0].find("rank 2 of 3 did not reach the rendezvous"), std::string::npos)
        << s.errors[0];
    EXPECT_NE(s.errors[0].find("within 1 s"), std::string::npos) << s.errors[0];
    EXPECT_NE(s.errors[1].find("rank 0 ended the bootstrap"), std::string::npos) << s.errors[1];

    const Started noLead =
        connectAll(2, test::scratchDir("ranks-no-lead"), std::chrono::seconds(1), {0});
    EXPECT_NE(noLead.errors[1].find("rank 0 did not open the rendezvous"), std::string::npos)
        << noLead.errors[1];
}

TEST(RankLinks, ARankWithAnotherCommandLineIsRefused) {
    const Started s =
        connectAll(2, test::scratchDir("ranks-fingerprint"), std::chrono::seconds(5), {}, 7);
    EXPECT_NE(s.errors[0].find("rank 1 was started with another command line"), std::string::npos)
        << s.errors[0];
    EXPECT_NE(s.errors[1], "") << "rank 1 must fail too";
}

TEST(RankLinks, AClosedLinkEndsATransferWithAnErrorNamingTheRank) {
    Started s = connectAll(2, test::scratchDir("ranks-closed"));
    ASSERT_EQ(s.errors[0] + s.errors[1], "");
    s.links[1] = ranks::Links(); // rank 1 is gone
    std::vector<float> buffer(1024);
    const auto start = std::chrono::steady_clock::now();
    try {
        s.links[0].receive(1, buffer.data(), buffer.size() * 4);
        FAIL() << "a receive from a closed link returned";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("rank 1 closed its link to rank 0"), std::string::npos)
            << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// ---- the ranked split run -----------------------------------------------------------------

// Every level of every output image, as bytes.
std::vector<std::vector<uint8_t>> outputs(sim::CpuSimulation& s, const sim::SimDefinition& def,
                                          const sim::GridSize& grid) {
    const sim::OutputLayout layout = def.outputs(grid);
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<void*>> levels(layout.images.size());
    std::vector<sim::HostImageTarget> targets;
    for (const sim::ImageOutput& image : layout.images)
        for (uint32_t level = 0; level < sim::levelCount(image); ++level)
            bytes.emplace_back(size_t(sim::mipSize(image.width, level)) *
                               sim::mipSize(image.height, level) *
                               sim::mipSize(image.depth, level) * sim::texelBytes(image.format));
    size_t next = 0;
    for (size_t i = 0; i < layout.images.size(); ++i) {
        for (uint32_t level = 0; level < sim::levelCount(layout.images[i]); ++level)
            levels[i].push_back(bytes[next++].data());
        targets.push_back({levels[i]});
    }
    s.writeOutputs({targets, {}});
    return bytes;
}

const sim::SimDefinition* find(std::string_view name) {
    return findSimulation(name);
}

TEST(RankedSplit, RankZeroHoldsItsShareOfThePlanesAndTheOthersTheRest) {
    // 2D 97x61: 61 rows. Two ranks: 0.37 of 61 is 22.57, rounded 23; the default is 0.4 (24.4).
    EXPECT_EQ(sim::planRankSlabs({97, 61}, 2, 2, 0.37).count, (std::vector<uint32_t>{23, 38}));
    EXPECT_EQ(sim::planRankSlabs({97, 61}, 2, 2, 0).count, (std::vector<uint32_t>{24, 37}));
    EXPECT_EQ(sim::planRankSlabs({97, 61}, 2, 2, 0.5).count, (std::vector<uint32_t>{31, 30}));
    // Three ranks, five slabs (ranks 0, 0, 1, 1, 2): rank 0's 0.5 in two slabs, 0.25 for each
    // of the others.
    const sim::SlabPlan five = sim::planRankSlabs({97, 61}, 5, 3, 0.5);
    EXPECT_EQ(five.count[0] + five.count[1], 31u);
    EXPECT_EQ(five.count[4], 61u - 46u);
    // One rank is the even cut; the share must be in (0, 1); every rank needs a slab.
    EXPECT_EQ(sim::planRankSlabs({97, 61}, 3, 1, 0.2).count, sim::planSlabs({97, 61}, 3).count);
    EXPECT_THROW(sim::planRankSlabs({97, 61}, 2, 2, 1.0), Error);
    EXPECT_THROW(sim::planRankSlabs({97, 61}, 2, 3, 0.3), Error);
    try {
        (void)sim::planRankSlabs({97, 8}, 2, 2, 0.05);
        FAIL() << "a share of fewer than 2 rows was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("fewer than 2"), std::string::npos) << e.what();
    }
}

// 2, 3, 4 and 8 ranks, one slab each or more, rank 0 holding the default share or a named one.
TEST(RankedSplit, RanksWithAnyShareEqualTheOneProcessRunBitForBit) {
    const struct {
        const char* simulation;
        sim::GridSize grid;
        uint32_t ranks, slabs;
        double share; // rank 0's part of the planes; 0: the default
    } cases[] = {
        {"gray-scott", {97, 61}, 2, 2, 0},        {"gray-scott", {97, 61}, 2, 2, 0.37},
        {"gray-scott", {97, 61}, 2, 2, 0.5},      {"gray-scott", {97, 61}, 3, 3, 0.37},
        {"gray-scott", {97, 61}, 3, 5, 0.5},      {"gray-scott", {97, 61}, 4, 4, 0},
        {"gray-scott-3d", {17, 19, 23}, 2, 3, 0}, {"gray-scott-3d", {17, 19, 23}, 3, 3, 0.37},
        {"gray-scott", {97, 61}, 8, 11, 0.3}};
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.simulation) + ", " + std::to_string(c.ranks) + " ranks, " +
                     std::to_string(c.slabs) + " slabs, share " + std::to_string(c.share));
        const sim::SimDefinition& def = *findSimulation(c.simulation);
        const sim::SlabPlan plan = sim::planRankSlabs(c.grid, c.slabs, c.ranks, c.share);
        if (c.share > 0 && c.share * c.ranks != 1) { // uneven where the share is not an even one
            EXPECT_NE(plan.count, sim::planSlabs(c.grid, c.slabs).count);
        }
        Started s = connectAll(c.ranks, test::scratchDir("ranks-split"));
        for (const std::string& e : s.errors)
            ASSERT_EQ(e, "");
        std::vector<std::future<sim::ServedRank>> served;
        for (uint32_t r = 1; r < c.ranks; ++r)
            served.push_back(std::async(std::launch::async,
                                        [&, r] { return sim::serveRank(s.links[r], find); }));
        const sim::ParamValues params = sim::initialParams(def);
        {
            auto ranked = sim::createRankedCpu(def, c.grid, c.slabs, s.links[0],
                                               sim::kDefaultSlabHalo, c.share);
            auto whole = def.createCpu(c.grid);
            ranked->reset(5);
            whole->reset(5);
            const auto initial = outputs(*whole, def, c.grid);
            EXPECT_EQ(outputs(*ranked, def, c.grid), initial);
            for (int steps : {1, 4, 7, 40}) {
                ranked->step(params, steps);
                whole->step(params, steps);
                EXPECT_EQ(outputs(*ranked, def, c.grid), outputs(*whole, def, c.grid))
                    << "after " << steps << " more steps";
            }
            EXPECT_NE(outputs(*whole, def, c.grid), initial) << "the run must change the field";
            // On the boundary between rank 0 and the next rank, and across the wrap.
            size_t rank1 = 0; // rank 1's first slab
            while (sim::rankOfSlab(rank1, c.slabs, c.ranks) == 0)
                ++rank1;
            const float boundary = float(plan.first[rank1]);
            for (const sim::Brush& b :
                 {sim::Brush{8, boundary, 5, false}, sim::Brush{9, 1, 4, true}}) {
                ranked->brush(b, params);
                whole->brush(b, params);
                ranked->step(params, 6);
                whole->step(params, 6);
                EXPECT_EQ(outputs(*ranked, def, c.grid), outputs(*whole, def, c.grid))
                    << "after a brush stroke at y " << b.y;
            }
        }
        sim::endRanks(s.links[0]);
        for (auto& f : served)
            EXPECT_EQ(f.get().runs, 1u);
    }
}

} // namespace
} // namespace estuary
