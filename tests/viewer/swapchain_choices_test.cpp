// The window's pure decisions: present mode (with the FIFO fallback and its reason), swapchain
// format, extent and image count; and the nearest-rank percentile of the Performance panel.
#include "swapchain.h"
#include "viewer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace estuary {
namespace {

TEST(WindowPresentMode, RequestedModeIsUsedWhenTheSurfaceHasIt) {
    const std::vector<VkPresentModeKHR> all = {
        VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
    EXPECT_EQ(choosePresentMode(ESTUARY_PRESENT_MAILBOX, all).mode, VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(choosePresentMode(ESTUARY_PRESENT_IMMEDIATE, all).mode,
              VK_PRESENT_MODE_IMMEDIATE_KHR);
    const PresentModeChoice fifo = choosePresentMode(ESTUARY_PRESENT_FIFO, all);
    EXPECT_EQ(fifo.mode, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_TRUE(fifo.fallbackReason.empty());
}

TEST(WindowPresentMode, MissingModeFallsBackToFifoAndSaysWhy) {
    const PresentModeChoice choice = choosePresentMode(
        ESTUARY_PRESENT_MAILBOX, {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR});
    EXPECT_EQ(choice.mode, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_NE(choice.fallbackReason.find("mailbox"), std::string::npos) << choice.fallbackReason;
    EXPECT_NE(choice.fallbackReason.find("fifo, immediate"), std::string::npos)
        << choice.fallbackReason;
}

TEST(WindowSurfaceFormat, PrefersUnormBgraAndRejectsSrgbOnly) {
    const VkColorSpaceKHR srgb = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    const auto chosen = chooseSurfaceFormat({{VK_FORMAT_B8G8R8A8_SRGB, srgb},
                                             {VK_FORMAT_R8G8B8A8_UNORM, srgb},
                                             {VK_FORMAT_B8G8R8A8_UNORM, srgb}});
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->format, VK_FORMAT_B8G8R8A8_UNORM);
    EXPECT_FALSE(chooseSurfaceFormat({{VK_FORMAT_B8G8R8A8_SRGB, srgb}}));
}

TEST(WindowSwapchainExtent, SurfaceExtentWinsElseFramebufferIsClamped) {
    VkSurfaceCapabilitiesKHR caps{};
    caps.currentExtent = {300, 200};
    VkExtent2D e = chooseSwapchainExtent(caps, {640, 480});
    EXPECT_EQ(e.width, 300u);
    EXPECT_EQ(e.height, 200u);
    caps.currentExtent = {UINT32_MAX, UINT32_MAX};
    caps.minImageExtent = {1, 1};
    caps.maxImageExtent = {500, 500};
    e = chooseSwapchainExtent(caps, {640, 1});
    EXPECT_EQ(e.width, 500u);
    EXPECT_EQ(e.height, 1u);
}

TEST(WindowSwapchainImageCount, OneAboveMinimumWithinMaximum) {
    VkSurfaceCapabilitiesKHR caps{};
    caps.minImageCount = 2;
    caps.maxImageCount = 0; // no limit
    EXPECT_EQ(chooseImageCount(caps), 3u);
    caps.maxImageCount = 2;
    EXPECT_EQ(chooseImageCount(caps), 2u);
}

TEST(PerformancePanel, PercentilesAreNearestRankOverTheMeasuredValues) {
    // Frames 4..11 of a series; `late` leaves the newest not measured yet (NaN).
    const auto series = [](bool late) {
        std::vector<double> values;
        for (int f = 4; f < 12; ++f)
            values.push_back(late && f == 11 ? std::nan("") : double(f));
        return values;
    };
    std::vector<double> v = series(false);
    EXPECT_EQ(lib::percentile(v, 50), 7.0); // rank ceil(0.5 * 8) = 4th
    v = series(false);
    EXPECT_EQ(lib::percentile(v, 99), 11.0); // rank 8
    v = series(true);
    EXPECT_EQ(lib::percentile(v, 99), 10.0); // rank 7 of the 7 measured
    v = {std::nan(""), std::nan("")};
    EXPECT_TRUE(std::isnan(lib::percentile(v, 50)));
}

} // namespace
} // namespace estuary
