// The pipeline cache kept between runs: a viewer writes it to the cache folder at its end, the
// next viewer on the same device reads it back and creates its pipelines with it (a warm start;
// the creation times are printed, not compared: machines are noisy), and a damaged or foreign file
// is ignored with a warning. Each test points ESTUARY_CACHE_DIR at a scratch folder.
#include "library_support.h"
#include "pipeline_cache.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace estuary {
namespace {

struct Warnings {
    std::vector<std::string> lines;
    static void log(void* user, estuary_log_level level, const char* message) {
        if (level == ESTUARY_LOG_WARNING) static_cast<Warnings*>(user)->lines.push_back(message);
    }
    bool any(const std::string& part) const {
        for (const std::string& line : lines)
            if (line.find(part) != std::string::npos) return true;
        return false;
    }
};

class PipelineCacheTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir = test::scratchDir("pipeline-cache");
        std::filesystem::remove_all(dir);
        setenv("ESTUARY_CACHE_DIR", dir.c_str(), 1);
        unsetenv("ESTUARY_PIPELINE_CACHE"); // the test environment turns it off elsewhere
    }
    void TearDown() override {
        unsetenv("ESTUARY_CACHE_DIR");
        setenv("ESTUARY_PIPELINE_CACHE", "0", 1);
    }
    // A viewer with a field, markers and lines view, one frame drawn; its metrics at the end.
    estuary_metrics run(Warnings& warnings, uint32_t flags = 0) {
        ViewerDesc d = headless();
        d.flags |= flags;
        d.log = Warnings::log;
        d.log_user = &warnings;
        Viewer v(d);
        Image image = v.image(hostImage(8, 8));
        Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST});
        const View field = v.fieldView({.image = image.get()});
        const View markers = v.markersView({.buffer = buffer.get()});
        const View lines = v.linesView({.vertices = buffer.get()});
        {
            const Frame frame = v.beginFrame();
            std::fill_n(frame.hostLevel<float>(image), 64, 0.5f);
            std::fill_n(frame.hostPointer<float>(buffer), 16, 0.5f);
            frame.end();
        }
        v.finish();
        const estuary_metrics m = v.metrics();
        EXPECT_EQ(v.close(), 0u) << "validation messages (printed above)";
        return m;
    }
    std::vector<std::filesystem::path> files() const {
        std::vector<std::filesystem::path> found;
        if (std::filesystem::exists(dir))
            for (const auto& entry : std::filesystem::directory_iterator(dir))
                found.push_back(entry.path());
        return found;
    }
    std::filesystem::path dir;
};

TEST_F(PipelineCacheTest, ASecondViewerStartsWarmFromTheFirstOnesFile) {
    Warnings first, second;
    const estuary_metrics cold = run(first);
    EXPECT_EQ(cold.pipeline_cache_loaded_bytes, 0u) << "an empty folder: a cold start";
    EXPECT_GT(cold.pipelines_created, 0u);
    const auto written = files();
    ASSERT_EQ(written.size(), 1u) << "one file per device, written at the viewer's end";
    EXPECT_EQ(written[0].filename().string().rfind("pipelines-", 0), 0u) << written[0];
    const estuary_metrics warm = run(second);
    EXPECT_GT(warm.pipeline_cache_loaded_bytes, 0u) << "the second viewer read the file";
    EXPECT_EQ(warm.pipelines_created, cold.pipelines_created);
    EXPECT_TRUE(first.lines.empty() && second.lines.empty()) << "no warning on a good file";
    std::printf("pipelines: %u created; cold %.1f ms (%u cache hits), warm %.1f ms (%u cache hits, "
                "%llu bytes read)\n",
                cold.pipelines_created, cold.pipeline_create_ms, cold.pipeline_cache_hits,
                warm.pipeline_create_ms, warm.pipeline_cache_hits,
                static_cast<unsigned long long>(warm.pipeline_cache_loaded_bytes));
    RecordProperty("cold_ms", std::to_string(cold.pipeline_create_ms));
    RecordProperty("warm_ms", std::to_string(warm.pipeline_create_ms));
}

std::vector<char> readAll(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void writeAll(const std::filesystem::path& file, const std::vector<char>& bytes) {
    std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

TEST_F(PipelineCacheTest, ADamagedOrForeignFileIsIgnoredWithAWarning) {
    Warnings made;
    run(made);
    const auto written = files();
    ASSERT_EQ(written.size(), 1u);
    const std::vector<char> good = readAll(written[0]);
    ASSERT_GT(good.size(), 80u);

    std::vector<char> damaged = good;
    damaged.back() ^= 0x5A; // a byte of the driver's data: the checksum no longer matches
    writeAll(written[0], damaged);
    Warnings onDamaged;
    EXPECT_EQ(run(onDamaged).pipeline_cache_loaded_bytes, 0u);
    EXPECT_TRUE(onDamaged.any("ignoring the pipeline cache") && onDamaged.any("damaged"));

    std::vector<char> foreign = good;
    foreign[16] ^= 0x01; // estuary's header: the device id (after magic, size and vendor)
    writeAll(written[0], foreign);
    Warnings onForeign;
    EXPECT_EQ(run(onForeign).pipeline_cache_loaded_bytes, 0u);
    EXPECT_TRUE(onForeign.any("another device or driver"));

    writeAll(written[0], {'n', 'o', 'p', 'e'});
    Warnings onGarbage;
    EXPECT_EQ(run(onGarbage).pipeline_cache_loaded_bytes, 0u);
    EXPECT_TRUE(onGarbage.any("shorter than its header"));
    // Each of those runs rewrote a good file.
    Warnings after;
    EXPECT_GT(run(after).pipeline_cache_loaded_bytes, 0u);
    EXPECT_TRUE(after.lines.empty());
}

TEST_F(PipelineCacheTest, TurnedOffByTheFlagOrTheEnvironmentNothingIsKept) {
    Warnings w;
    EXPECT_EQ(run(w, ESTUARY_VIEWER_NO_PIPELINE_CACHE).pipeline_cache_loaded_bytes, 0u);
    EXPECT_TRUE(files().empty());
    setenv("ESTUARY_PIPELINE_CACHE", "0", 1);
    run(w);
    EXPECT_TRUE(files().empty());
}

TEST(PipelineCacheFile, DataOfAnotherDriverVersionIsRefusedBeforeTheDriverSeesIt) {
    VkPhysicalDeviceProperties p{};
    p.vendorID = 0x10de;
    p.deviceID = 0x2330;
    p.driverVersion = 7;
    for (uint8_t i = 0; i < VK_UUID_SIZE; ++i)
        p.pipelineCacheUUID[i] = i;
    VkPipelineCacheHeaderVersionOne vk{};
    vk.headerSize = sizeof(vk);
    vk.headerVersion = VK_PIPELINE_CACHE_HEADER_VERSION_ONE;
    vk.vendorID = p.vendorID;
    vk.deviceID = p.deviceID;
    std::memcpy(vk.pipelineCacheUUID, p.pipelineCacheUUID, VK_UUID_SIZE);
    std::vector<uint8_t> data(sizeof(vk) + 10, 0xAB);
    std::memcpy(data.data(), &vk, sizeof(vk));
    const std::vector<uint8_t> file = packPipelineCache(p, data);
    std::string why;
    EXPECT_EQ(unpackPipelineCache(p, file, why), data);
    VkPhysicalDeviceProperties newer = p;
    newer.driverVersion = 8;
    EXPECT_TRUE(unpackPipelineCache(newer, file, why).empty());
    EXPECT_NE(why.find("another device or driver"), std::string::npos) << why;
    EXPECT_NE(pipelineCacheFileName(p), pipelineCacheFileName(newer));
    // Estuary's header intact but Vulkan's naming another device: refused too.
    std::vector<uint8_t> otherVk = data;
    otherVk[8] ^= 1; // VkPipelineCacheHeaderVersionOne::vendorID
    EXPECT_TRUE(unpackPipelineCache(p, packPipelineCache(p, otherVk), why).empty());
    EXPECT_NE(why.find("Vulkan header"), std::string::npos) << why;
}

} // namespace
} // namespace estuary
