// 3D simulations as a user runs them (CPU backend, lavapipe, validation on): --size WxHxD and the
// volume options are parsed and refused with clear messages, the headless run of the issue's
// command shows the volume, the slice view shows a slice, and the window's camera math is tested
// with the view mapping (tests/viewer/window_view_mapping_test.cpp).
#include "options.h"
#include "shared_layout.h" // ESTUARY_BACKGROUND_COLOR, the viewer's default
#include "simulations.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace estuary {
namespace {

using test::runEstuary;

ParseOutcome parse(std::vector<const char*> args) {
    args.insert(args.begin(), "estuary");
    return parseOptions(int(args.size()), args.data());
}

const sim::SimDefinition* volumeSimulation() {
    for (const sim::SimDefinition& def : simulations())
        if (def.dimensions == 3) return &def;
    return nullptr;
}

void expectUsageError(const ParseOutcome& out, std::initializer_list<const char*> mentions) {
    ASSERT_TRUE(out.exitNow);
    EXPECT_EQ(*out.exitNow, 2);
    for (const char* m : mentions)
        EXPECT_NE(out.message.find(m), std::string::npos) << "'" << m << "' in: " << out.message;
}

TEST(AppVolume, SizeParsesWxHxDForA3dSimulationAndDefaultsTo128Cubed) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr) << "no 3D simulation is registered";
    const auto given = parse({"--sim", def->name.c_str(), "--size", "48x40x32"});
    ASSERT_FALSE(given.exitNow) << given.message;
    EXPECT_EQ(given.options.grid.width, 48u);
    EXPECT_EQ(given.options.grid.height, 40u);
    EXPECT_EQ(given.options.grid.depth, 32u);
    const auto byDefault = parse({"--sim", def->name.c_str()});
    ASSERT_FALSE(byDefault.exitNow) << byDefault.message;
    EXPECT_EQ(byDefault.options.grid.depth, 128u);
    EXPECT_EQ(byDefault.options.grid.width, 128u);
    EXPECT_EQ(parse({}).options.grid.depth, 1u) << "2D simulations keep a 2D default";
    EXPECT_EQ(gridName({48, 40, 32}), "48x40x32");
    EXPECT_EQ(gridName({512, 512}), "512x512");
}

TEST(AppVolume, SizesThatDoNotFitTheSimulationsDimensionsAreUsageErrors) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr);
    expectUsageError(parse({"--sim", "gray-scott", "--size", "64x64x64"}),
                     {"--size 64x64x64", "gray-scott", "2D", "WxH", def->name.c_str()});
    expectUsageError(parse({"--sim", def->name.c_str(), "--size", "64x64"}),
                     {"--size 64x64", def->name.c_str(), "3D", "WxHxD"});
    expectUsageError(parse({"--sim", def->name.c_str(), "--size", "64x64x4096"}), {"2048"});
    for (const char* bad : {"64x64x", "64xx64", "64x64x0", "x64x64", "64x64x64x64", "64x-1x8"})
        expectUsageError(parse({"--sim", def->name.c_str(), "--size", bad}), {bad, "WxHxD"});
    // --resolution stays 2D.
    expectUsageError(parse({"--resolution", "64x64x64"}), {"64x64x64"});
}

TEST(AppVolume, VolumeOptionsParseAndAreRefusedFor2dSimulations) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr);
    const auto out = parse({"--sim", def->name.c_str(), "--camera", "-120.5,40", "--opacity", "2",
                            "--slice-axis", "x", "--slice-position", "0.25"});
    ASSERT_FALSE(out.exitNow) << out.message;
    EXPECT_FLOAT_EQ(out.options.cameraYawDegrees, -120.5f);
    EXPECT_FLOAT_EQ(out.options.cameraPitchDegrees, 40.0f);
    EXPECT_FLOAT_EQ(out.options.opacity, 2.0f);
    EXPECT_EQ(out.options.sliceAxis, 0u);
    EXPECT_FLOAT_EQ(out.options.slicePosition, 0.25f);
    for (const char* bad : {"35", "35,90", "a,b", "35,", ",20", "nan,3"})
        expectUsageError(parse({"--sim", def->name.c_str(), "--camera", bad}),
                         {"--camera", "YAW,PITCH"});
    expectUsageError(parse({"--sim", def->name.c_str(), "--opacity", "-1"}), {"--opacity"});
    expectUsageError(parse({"--sim", def->name.c_str(), "--slice-axis", "w"}), {"--slice-axis"});
    expectUsageError(parse({"--sim", def->name.c_str(), "--slice-position", "1.5"}),
                     {"--slice-position"});
    for (const char* option : {"--camera", "--opacity", "--slice-axis", "--slice-position"}) {
        const char* value = std::string(option) == "--camera"       ? "10,10"
                            : std::string(option) == "--slice-axis" ? "y"
                                                                    : "0.5";
        expectUsageError(parse({"--sim", "wave", option, value}), {option, "3D", "wave"});
    }
    expectUsageError(parse({"--sim", def->name.c_str(), "--consumer", "opengl"}),
                     {"--consumer opengl", def->name.c_str(), "3D"});
}

// The command: the volume must show (not just the background), with 0 validation
// messages; the compute march draws the same picture; the slice view of the run shows a slice.
TEST(AppVolume, HeadlessCpuRunShowsTheVolumeAndItsSlice) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr);
    const auto dir = test::scratchDir("app-volume");
    const std::string common = "--sim " + def->name +
                               " --headless --backend cpu --size 48x48x48 --frames 60 "
                               "--validate --resolution 256x256 ";
    const auto volume =
        runEstuary(common + "--draw raster --screenshot '" + (dir / "volume.png").string() + "'");
    ASSERT_EQ(volume.exitCode, 0) << volume.output;
    EXPECT_NE(volume.output.find("reported 0 message"), std::string::npos) << volume.output;
    const test::Rgba8Image shot = test::loadPng(dir / "volume.png");
    const float background[3] = {ESTUARY_BACKGROUND_COLOR};
    size_t lit = 0, corners = 0;
    for (int y = 0; y < shot.height; ++y)
        for (int x = 0; x < shot.width; ++x) {
            const uint8_t* p = &shot.pixels[(size_t(y) * size_t(shot.width) + size_t(x)) * 4];
            bool isBackground = true;
            for (int c = 0; c < 3; ++c)
                isBackground &= std::abs(float(p[c]) - background[c] * 255.0f) <= 1.0f;
            if (!isBackground) ++lit;
            if ((x < 8 || x >= shot.width - 8) && (y < 8 || y >= shot.height - 8) && !isBackground)
                ++corners;
        }
    // The box at the default camera covers a good part of the picture; the corners stay empty.
    EXPECT_GT(lit, size_t(shot.width * shot.height) / 20) << "the volume hardly shows";
    EXPECT_EQ(corners, 0u) << "the volume reaches the picture's corners";
    EXPECT_GT(test::countDistinctColors(shot), 32u) << "the volume is (nearly) flat";

    // The compute march (headless runs' default) draws the same picture: same march, same pixel
    // centres.
    const auto compute =
        runEstuary(common + "--screenshot '" + (dir / "compute.png").string() + "'");
    ASSERT_EQ(compute.exitCode, 0) << compute.output;
    EXPECT_NE(compute.output.find("reported 0 message"), std::string::npos) << compute.output;
    const test::Rgba8Image marched = test::loadPng(dir / "compute.png");
    const test::ImageDiff same = test::compareRgba8(marched.pixels, shot.pixels, 1);
    EXPECT_LE(same.maxAbsDiff, 1);
    EXPECT_EQ(same.failingFraction, 0.0);

    const auto slice = runEstuary(common + "--view slice --slice-axis y --screenshot '" +
                                  (dir / "slice.png").string() + "'");
    ASSERT_EQ(slice.exitCode, 0) << slice.output;
    EXPECT_NE(slice.output.find("reported 0 message"), std::string::npos) << slice.output;
    const test::Rgba8Image cut = test::loadPng(dir / "slice.png");
    EXPECT_GT(test::countDistinctColors(cut), 16u) << "the slice is (nearly) flat";
    EXPECT_GT(test::compareRgba8(cut.pixels, shot.pixels, 8).failingFraction, 0.3)
        << "the slice view draws what the volume view draws";
}

// --composite: sort-last where a run can draw it, refused naming what is missing elsewhere; auto
// takes it for large volumes over GPUs.
TEST(AppVolume, SortLastCompositingIsParsedAndRefusedWhereItCannotDraw) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr);
    const char* name = def->name.c_str();
    EXPECT_EQ(parse({"--sim", name}).options.composite, Composite::Gather);
    // auto: sort-last (on CUDA) for volumes of kSortLastCells and more over GPUs, where it can
    // draw; gather everywhere else.
    const auto composite = [&](std::vector<const char*> args) {
        args.insert(args.begin(), {"--sim", name});
        const auto parsed = parse(args);
        EXPECT_FALSE(parsed.exitNow) << parsed.message;
        return parsed.options.composite;
    };
    EXPECT_EQ(composite({"--bench", "--gpus", "2", "--size", "768x768x768"}), Composite::Auto);
    EXPECT_EQ(composite({"--headless", "--gpus", "2", "--size", "512x512x1024"}), Composite::Auto);
    EXPECT_EQ(composite({"--bench", "--gpus", "2", "--size", "512x512x1023"}), Composite::Gather);
    EXPECT_EQ(composite({"--bench", "--gpus", "2", "--size", "512x512x512"}), Composite::Gather);
    EXPECT_EQ(composite({"--bench", "--slabs", "2", "--size", "768x768x768"}), Composite::Gather)
        << "one GPU";
    EXPECT_EQ(composite({"--gpus", "2", "--size", "768x768x768"}), Composite::Gather) << "a window";
    EXPECT_EQ(composite({"--bench", "--gpus", "2", "--size", "768x768x768", "--view", "slice"}),
              Composite::Gather);
    EXPECT_EQ(
        composite({"--bench", "--gpus", "2", "--size", "768x768x768", "--composite", "gather"}),
        Composite::Gather);
    const auto ok =
        parse({"--sim", name, "--headless", "--slabs", "4", "--composite", "sort-last"});
    ASSERT_FALSE(ok.exitNow) << ok.message;
    EXPECT_EQ(ok.options.composite, Composite::SortLast);
    EXPECT_EQ(parse({"--sim", name, "--composite", "gather"}).options.composite, Composite::Gather);
    expectUsageError(parse({"--sim", name, "--composite", "sideways"}), {"--composite"});
    expectUsageError(
        parse({"--sim", "gray-scott", "--headless", "--slabs", "2", "--composite", "sort-last"}),
        {"sort-last", "3D simulation"});
    expectUsageError(parse({"--sim", name, "--headless", "--composite", "sort-last"}),
                     {"sort-last", "--slabs or --gpus of 2"});
    expectUsageError(parse({"--sim", name, "--slabs", "2", "--composite", "sort-last"}),
                     {"sort-last", "headless"});
    expectUsageError(parse({"--sim", name, "--headless", "--slabs", "2", "--view", "slice",
                            "--composite", "sort-last"}),
                     {"sort-last", "ray-marched volume view"});
    expectUsageError(parse({"--sim", name, "--headless", "--slabs", "2", "--backend", "cpu",
                            "--composite", "sort-last"}),
                     {"sort-last", "CUDA backend"});
}

// --camera turns the orbit camera of a headless run: the picture at another yaw differs, and the
// default equals --camera 35,25.
TEST(AppVolume, TheCameraOptionTurnsTheHeadlessPicture) {
    const sim::SimDefinition* def = volumeSimulation();
    ASSERT_NE(def, nullptr);
    const auto dir = test::scratchDir("app-volume-camera");
    const std::string common = "--sim " + def->name +
                               " --headless --backend cpu --size 40x40x40 --frames 20 "
                               "--validate --resolution 160x160 --axes off ";
    const auto shoot = [&](const std::string& name, const std::string& args) {
        const auto path = dir / (name + ".png");
        const auto run = runEstuary(common + args + " --screenshot '" + path.string() + "'");
        EXPECT_EQ(run.exitCode, 0) << run.output;
        return test::loadPng(path);
    };
    const test::Rgba8Image standard = shoot("default", "");
    const test::Rgba8Image same = shoot("same", "--camera 35,25");
    const test::Rgba8Image turned = shoot("turned", "--camera 125,-40");
    EXPECT_EQ(standard.pixels, same.pixels);
    EXPECT_GT(test::compareRgba8(turned.pixels, standard.pixels, 8).failingFraction, 0.05)
        << "--camera 125,-40 drew the default camera's picture";
}

} // namespace
} // namespace estuary
