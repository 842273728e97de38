// What the library's CPU tests share (library_test.cpp, library_markers_test.cpp): a headless
// viewer's description, the fixture that opens one and fails the test on any validation message,
// reading the picture back, and EXPECT_REFUSED for the errors bad arguments get.
#pragma once

#include "estuary/estuary.hpp"
#include "test_support.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace estuary {

// A value outside a C enum's named ones, as a C caller can pass it (a conversion from the
// integer, not from a constant the compiler would flag).
template <class Enum> Enum outOfRange(int value) {
    return static_cast<Enum>(value);
}

inline ViewerDesc headless(uint32_t framesInFlight = 2, uint32_t width = 128,
                           uint32_t height = 96) {
    ViewerDesc d;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.cuda = ESTUARY_CUDA_OFF;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    d.width = width;
    d.height = height;
    d.frames_in_flight = framesInFlight;
    return d;
}

// The status and message of what `call` throws (ESTUARY_OK and "" when it does not).
template <class Call> std::pair<estuary_status, std::string> failure(Call&& call) {
    try {
        call();
    } catch (const Error& e) {
        return {e.status(), e.what()};
    }
    return {ESTUARY_OK, ""};
}

#define EXPECT_REFUSED(call, status, ...)                                                          \
    do {                                                                                           \
        const auto [got, message] = failure([&] { (void)(call); });                                \
        EXPECT_EQ(got, status) << #call << ": " << message;                                        \
        for (const char* part : {__VA_ARGS__})                                                     \
            EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;    \
    } while (0)

inline estuary_image_desc hostImage(uint32_t width, uint32_t height, const char* name = "field") {
    estuary_image_desc d{.format = ESTUARY_FORMAT_R32_FLOAT,
                         .kind = ESTUARY_IMAGE_2D,
                         .width = width,
                         .height = height};
    d.writer = ESTUARY_WRITER_HOST;
    d.name = name;
    return d;
}

// Closes the viewer at the end of a test: no validation message may have been reported.
class LibraryTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (viewer) {
            EXPECT_EQ(viewer->close(), 0u) << "validation messages (printed above)";
        }
    }
    Viewer& open(const estuary_viewer_desc& desc = headless()) {
        viewer.emplace(desc);
        return *viewer;
    }
    std::vector<uint8_t> pixels() {
        const estuary_viewer_info info = viewer->info();
        std::vector<uint8_t> rgba(size_t(info.width) * info.height * 4);
        check(estuary_read_pixels(viewer->get(), rgba.data(), rgba.size()));
        return rgba;
    }
    std::array<int, 3> pixelAt(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
        const size_t i = (size_t(y) * viewer->info().width + x) * 4;
        return {rgba[i], rgba[i + 1], rgba[i + 2]};
    }
    std::optional<Viewer> viewer;
};

// While it lives, viewers opened run the validation layer's synchronization checks too (hazards
// between the draw's passes are validation messages, which fail the test).
struct SyncValidation {
    SyncValidation() {
        setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
               1);
    }
    ~SyncValidation() { unsetenv("VK_LAYER_ENABLES"); }
    SyncValidation(const SyncValidation&) = delete;
    SyncValidation& operator=(const SyncValidation&) = delete;
};

// `rgba` (width x height) against tests/golden/<name>.png: a channel may differ by `tolerance` on
// all but 0.5% of pixels (rasterizers differ on edges and coverage), by no more than 48 anywhere.
// With ESTUARY_UPDATE_GOLDEN=1 writes the golden instead and skips. A failure writes the picture
// drawn into the test's scratch folder.
void expectMatchesGolden(const std::vector<uint8_t>& rgba, uint32_t width, uint32_t height,
                         const std::string& name, int tolerance = 2);

inline bool near(const std::array<int, 3>& got, std::array<int, 3> want, int tolerance = 3) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(got[c] - want[c]) > tolerance) return false;
    return true;
}

} // namespace estuary
