// The contract test on the CPU (lavapipe, validation on): seeded random sequences of legal calls
// (tests/support/contract_driver.h) with the host writing every frame. Every read and pick must
// hold its own frame's values when estuary_wait_frame or estuary_finish returns, stale handles are
// refused, and validation stays silent. ESTUARY_CONTRACT_SEED and ESTUARY_CONTRACT_FRAMES rerun a
// failing seed or run longer.
#include "contract_driver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace estuary {
namespace {

class HostWriter : public contract::ContractWriter {
  public:
    estuary_writer writer() const override { return ESTUARY_WRITER_HOST; }
    uint32_t streams() const override { return 0; }
    void* stream(uint32_t) const override { return nullptr; }
    void open(estuary_viewer*, uint32_t) override {}
    void close() override {}
    void privateWork(estuary_frame*, uint32_t) override {}
    bool write(estuary_frame* frame, const std::vector<contract::Allocation>& allocations,
               std::string& problem) override {
        const uint64_t f = estuary_frame_index(frame);
        for (const contract::Allocation& a : allocations) {
            const float value = float(f * 8 + a.id);
            void* data = nullptr;
            const estuary_status status = a.image
                                              ? estuary_frame_host_level(frame, a.image, 0, &data)
                                              : estuary_frame_host_pointer(frame, a.buffer, &data);
            if (status != ESTUARY_OK) {
                problem = std::string("writing: ") + estuary_last_error();
                return false;
            }
            auto* floats = static_cast<float*>(data);
            if (a.markers) {
                const float marker[8] = {0, 0, 0, value, 1, 0, 0, 1};
                std::memcpy(floats, marker, sizeof(marker));
                continue;
            }
            const uint64_t n = a.image ? uint64_t(a.width) * a.height : a.bytes / 4;
            for (uint64_t i = 0; i < n; ++i)
                floats[i] = value;
        }
        return true;
    }
};

uint64_t fromEnvironment(const char* name, uint64_t fallback) {
    const char* text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

TEST(Contract, EveryReadAndPickHoldsItsOwnFrameUnderRandomLegalSequences) {
    HostWriter writer;
    contract::ContractOptions options;
    options.seed = fromEnvironment("ESTUARY_CONTRACT_SEED", 32);
    options.sequences = 10;
    options.framesPerSequence = uint32_t(fromEnvironment("ESTUARY_CONTRACT_FRAMES", 40));
    const contract::ContractReport report = contract::runContract(writer, options);
    std::printf("contract (host writer, lavapipe): %s\n", report.summary().c_str());
    for (const std::string& failure : report.failures)
        ADD_FAILURE() << failure;
    EXPECT_EQ(report.sequences, options.sequences);
    EXPECT_EQ(report.frames, uint64_t(options.sequences) * options.framesPerSequence);
}

// The same with hand-off batches (handoff_batch): draws held and submitted a batch at a time must
// still each show their own frame, and the host waits of reads must submit what is held.
TEST(Contract, EveryReadAndPickHoldsItsOwnFrameWithHandoffBatches) {
    HostWriter writer;
    contract::ContractOptions options;
    options.seed = fromEnvironment("ESTUARY_CONTRACT_SEED", 32) + 1000;
    options.sequences = 8;
    options.framesPerSequence = uint32_t(fromEnvironment("ESTUARY_CONTRACT_FRAMES", 40));
    options.handoffBatches = true;
    const contract::ContractReport report = contract::runContract(writer, options);
    std::printf("contract (host writer, hand-off batches, lavapipe): %s\n",
                report.summary().c_str());
    for (const std::string& failure : report.failures)
        ADD_FAILURE() << failure;
    EXPECT_EQ(report.sequences, options.sequences);
    EXPECT_EQ(report.frames, uint64_t(options.sequences) * options.framesPerSequence);
}

} // namespace
} // namespace estuary
