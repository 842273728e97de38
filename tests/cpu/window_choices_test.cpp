// The window's pure decisions: present mode (with the FIFO fallback and its reason), swapchain
// format, extent and image count; and the Performance panel's timing summaries.
#include "ui_panels.h"
#include "window.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(WindowPresentMode, RequestedModeIsUsedWhenTheSurfaceHasIt) {
    const std::vector<VkPresentModeKHR> all = {
        VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
    EXPECT_EQ(choosePresentMode(PresentMode::Mailbox, all).mode, VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(choosePresentMode(PresentMode::Immediate, all).mode, VK_PRESENT_MODE_IMMEDIATE_KHR);
    const PresentModeChoice fifo = choosePresentMode(PresentMode::Fifo, all);
    EXPECT_EQ(fifo.mode, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_TRUE(fifo.fallbackReason.empty());
}

TEST(WindowPresentMode, MissingModeFallsBackToFifoAndSaysWhy) {
    const PresentModeChoice choice = choosePresentMode(
        PresentMode::Mailbox, {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR});
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

TEST(WindowPerformanceStats, SkipsUnmeasuredFramesAndUsesNearestRank) {
    FrameHistory history(8);
    for (uint64_t f = 0; f < 12; ++f) { // the ring keeps frames 4..11
        FrameTiming t{f};
        t.cpuMs = double(f);
        t.renderMs = f == 11 ? kNotMeasured : double(f) * 2.0; // the newest GPU time is late
        history.push(t);
    }
    std::vector<double> scratch;
    const SeriesStats cpu = seriesStats(history, TimingSeries::Cpu, scratch);
    EXPECT_EQ(cpu.count, 8u);
    EXPECT_EQ(cpu.current, 11.0);
    EXPECT_EQ(cpu.p50, 7.0);  // rank ceil(0.5 * 8) = 4th of 4..11
    EXPECT_EQ(cpu.p99, 11.0); // rank 8
    const SeriesStats render = seriesStats(history, TimingSeries::Render, scratch);
    EXPECT_EQ(render.count, 7u);
    EXPECT_EQ(render.current, 20.0); // newest *measured*
    const SeriesStats wait = seriesStats(history, TimingSeries::Wait, scratch);
    EXPECT_EQ(wait.count, 0u);
    EXPECT_TRUE(std::isnan(wait.p50));
}

} // namespace
} // namespace estuary
