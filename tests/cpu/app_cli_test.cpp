// estuary's command line: the parser's rules (pure) and the executable's exit codes and messages,
// plus headless runs of the CPU backend under the validation layer (lavapipe where there is no
// GPU).
#include "options.h"
#include "serving.h"
#include "simulations.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace estuary {
namespace {

ParseOutcome parse(std::vector<const char*> args) {
    args.insert(args.begin(), "estuary");
    return parseOptions(int(args.size()), args.data());
}

TEST(AppOptions, DefaultsAreUsable) {
    const auto out = parse({});
    EXPECT_FALSE(out.exitNow);
    EXPECT_EQ(out.options.grid.width, 512u);
    EXPECT_EQ(out.options.backend, Backend::Auto);
    EXPECT_EQ(out.options.framesInFlight, 2u);
    EXPECT_FALSE(out.options.validate);
}

// Every option that takes part in a run, each set away from its default, over two command lines:
// the window's and the benchmark's (an option the chosen mode ignores is refused, so no single line
// holds them all). Options that end the program at once (--help, --version, --list-sims) have their
// own tests.
const std::vector<const char*> kEveryWindowOption = {"--sim",
                                                     "wave",
                                                     "--axes",
                                                     "off",
                                                     "--param",
                                                     "speed=0.25",
                                                     "--param",
                                                     "sources=3",
                                                     "--frames",
                                                     "12",
                                                     "--size",
                                                     "300x200",
                                                     "--resolution",
                                                     "64x48",
                                                     "--steps-per-frame",
                                                     "3",
                                                     "--backend",
                                                     "cuda",
                                                     "--device",
                                                     "1",
                                                     "--colormap",
                                                     "magma",
                                                     "--screenshot",
                                                     "x.png",
                                                     "--validate",
                                                     "--frames-in-flight",
                                                     "4",
                                                     "--seed",
                                                     "9",
                                                     "--serve",
                                                     "0.0.0.0:8080",
                                                     "--serve-allow-remote",
                                                     "--serve-token",
                                                     "abcdefghijklmnop1234",
                                                     "--serve-stats",
                                                     "--present-mode",
                                                     "mailbox",
                                                     "--no-ui",
                                                     "--colorbar",
                                                     "off",
                                                     "--consumer",
                                                     "opengl",
                                                     "--gl-handoff",
                                                     "binary",
                                                     "--record",
                                                     "clip.mkv",
                                                     "--record-fps",
                                                     "30",
                                                     "--record-quality",
                                                     "18",
                                                     "--record-encoder",
                                                     "libx265",
                                                     "--arrows"};
const std::vector<const char*> kEveryBenchOption = {
    "--bench",         "--headless", "--sim",         "fluid",  "--particles", "4096",
    "--view",          "speed",      "--frames",      "12",     "--warmup",    "7",
    "--mode",          "host-copy",  "--report",      "r.json", "--csv",       "c.csv",
    "--trace",         "t.json",     "--cuda-graphs", "off",    "--fps-cap",   "240",
    "--handoff-batch", "4"};

// The options of 3D simulations, which the 2D command lines above refuse.
// A window run: headless, the options of the view not drawn are refused.
const std::vector<const char*> kEveryVolumeOption = {
    "--sim",           "gray-scott-3d", "--size",       "40x32x24", "--camera",         "-30,60",
    "--opacity",       "3.5",           "--slice-axis", "x",        "--slice-position", "0.75",
    "--draw",          "raster",        "--slabs",      "3",        "--gpus",           "2",
    "--display-share", "0.4",           "--halo",       "2",        "--composite",      "gather"};

TEST(AppOptions, EveryVolumeOptionIsParsed) {
    const auto out = parse(kEveryVolumeOption);
    ASSERT_FALSE(out.exitNow) << out.message;
    const Options& o = out.options;
    EXPECT_EQ(o.grid.width, 40u);
    EXPECT_EQ(o.grid.height, 32u);
    EXPECT_EQ(o.grid.depth, 24u);
    EXPECT_EQ(o.cameraYawDegrees, -30.0f);
    EXPECT_EQ(o.cameraPitchDegrees, 60.0f);
    EXPECT_EQ(o.opacity, 3.5f);
    EXPECT_EQ(o.sliceAxis, 0u);
    EXPECT_EQ(o.slicePosition, 0.75f);
    EXPECT_EQ(o.draw, DrawPath::Raster);
    EXPECT_EQ(o.slabs, 3u);
    EXPECT_EQ(o.halo, 2u);
    EXPECT_EQ(o.gpus, 2u);
    EXPECT_EQ(o.displayShare, 0.4);
    EXPECT_EQ(o.composite, Composite::Gather);
}

TEST(AppOptions, EveryWindowOptionIsParsed) {
    const auto out = parse(kEveryWindowOption);
    ASSERT_FALSE(out.exitNow) << out.message;
    const Options& o = out.options;
    EXPECT_EQ(o.simulation, "wave");
    ASSERT_EQ(o.params.size(), 2u);
    EXPECT_EQ(o.params[0].name, "speed");
    EXPECT_EQ(o.params[0].value, 0.25f);
    EXPECT_EQ(o.params[1].name, "sources");
    EXPECT_EQ(o.params[1].value, 3.0f);
    EXPECT_FALSE(o.headless);
    EXPECT_EQ(o.frames, 12u);
    EXPECT_EQ(o.grid.width, 300u);
    EXPECT_EQ(o.grid.height, 200u);
    EXPECT_EQ(o.resolution.width, 64u);
    EXPECT_EQ(o.resolution.height, 48u);
    EXPECT_EQ(o.stepsPerFrame, 3);
    EXPECT_EQ(o.backend, Backend::Cuda);
    EXPECT_EQ(o.device, 1);
    EXPECT_EQ(o.colormap, "magma");
    EXPECT_EQ(o.screenshot, "x.png");
    EXPECT_TRUE(o.validate);
    EXPECT_EQ(o.framesInFlight, 4u);
    EXPECT_EQ(o.seed, 9u);
    EXPECT_EQ(o.presentMode, PresentMode::Mailbox);
    EXPECT_TRUE(o.noUi);
    EXPECT_FALSE(o.colorbar) << "--colorbar off, where the window's default is on";
    EXPECT_EQ(o.consumer, Consumer::OpenGL);
    EXPECT_EQ(o.glHandoff, GlHandoff::Binary);
    EXPECT_EQ(o.record, "clip.mkv");
    EXPECT_EQ(o.recordFps, 30u);
    EXPECT_EQ(o.recordQuality, 18u);
    EXPECT_EQ(o.recordEncoder, "libx265");
    EXPECT_TRUE(o.arrows);
    EXPECT_EQ(o.serve, "0.0.0.0:8080");
    EXPECT_TRUE(o.serveAllowRemote);
    EXPECT_EQ(o.serveToken, "abcdefghijklmnop1234");
    EXPECT_TRUE(o.serveStats);
    EXPECT_FALSE(o.bench);
}

TEST(AppOptions, RecordingOptionsAreCheckedBeforeAnyWork) {
    const auto refused = [](std::vector<const char*> args, const std::string& part) {
        const auto out = parse(args);
        EXPECT_TRUE(out.exitNow);
        EXPECT_NE(out.message.find(part), std::string::npos) << out.message;
    };
    refused({"--record", "clip.avi"}, ".mp4 or .mkv");
    refused({"--record-fps", "30"}, "add --record PATH");
    refused({"--record", "clip.mp4", "--record-quality", "60"}, "--record-quality");
    refused({"--bench", "--record", "clip.mp4"}, "--record is ignored by --bench");
}

TEST(AppOptions, ServeAddressesAreParsedAndBadOnesRefused) {
    const auto at = [](const char* text) {
        const auto a = parseServeAddress(text);
        return a ? a->address + " " + std::to_string(a->port) : std::string("refused");
    };
    EXPECT_EQ(at("8080"), "127.0.0.1 8080");
    EXPECT_EQ(at("0"), "127.0.0.1 0");
    EXPECT_EQ(at("0.0.0.0:9000"), "0.0.0.0 9000");
    EXPECT_EQ(at("[::1]:8080"), "::1 8080");
    for (const char* bad :
         {"", "http", "65536", "-1", ":8080", "::1:8080", "[::1]8080", "1.2.3.4:", "123456"})
        EXPECT_EQ(at(bad), "refused") << bad;
    const auto refused = [](std::vector<const char*> args, const std::string& part) {
        const auto out = parse(args);
        EXPECT_TRUE(out.exitNow);
        EXPECT_NE(out.message.find(part), std::string::npos) << out.message;
    };
    refused({"--serve", "localhost:80"}, "numeric address");
    refused({"--serve-token", "abcdefghijklmnop"}, "add --serve");
    refused({"--serve-stats"}, "add --serve");
    refused({"--bench", "--serve", "8080"}, "--serve is not for --bench");
    refused({"--headless", "--serve", "8080", "--trace", "t.json"}, "needs --frames");
}

TEST(AppOptions, ColorbarIsOnInTheWindowAndOffHeadlessUnlessAsked) {
    EXPECT_TRUE(parse({"--sim", "wave"}).options.colorbar);
    EXPECT_FALSE(parse({"--headless"}).options.colorbar);
    EXPECT_TRUE(parse({"--headless", "--colorbar", "on"}).options.colorbar);
    const auto bad = parse({"--colorbar", "yes"});
    ASSERT_TRUE(bad.exitNow);
    EXPECT_EQ(*bad.exitNow, 2);
    EXPECT_NE(bad.message.find("--colorbar"), std::string::npos) << bad.message;
}

TEST(AppOptions, AxesAreOnButOffInTheBenchUnlessAsked) {
    EXPECT_TRUE(parse({"--sim", "wave"}).options.axes);
    EXPECT_TRUE(parse({"--headless"}).options.axes);
    EXPECT_FALSE(parse({"--headless", "--axes", "off"}).options.axes);
    EXPECT_FALSE(parse({"--bench"}).options.axes);
    EXPECT_TRUE(parse({"--bench", "--axes", "on"}).options.axes);
    const auto bad = parse({"--axes", "maybe"});
    ASSERT_TRUE(bad.exitNow);
    EXPECT_EQ(*bad.exitNow, 2);
    EXPECT_NE(bad.message.find("--axes"), std::string::npos) << bad.message;
}

TEST(AppOptions, EveryBenchOptionIsParsed) {
    const auto out = parse(kEveryBenchOption);
    ASSERT_FALSE(out.exitNow) << out.message;
    const Options& o = out.options;
    EXPECT_TRUE(o.bench);
    EXPECT_TRUE(o.headless);
    EXPECT_EQ(o.simulation, "fluid");
    EXPECT_EQ(o.particles, 4096);
    EXPECT_EQ(o.view, "speed");
    EXPECT_EQ(o.frames, 12u);
    EXPECT_EQ(o.framesInFlight, kBenchFramesInFlight);
    EXPECT_EQ(o.benchModes, std::vector<BenchMode>{BenchMode::HostCopy});
    EXPECT_EQ(o.warmup, 7u);
    EXPECT_EQ(o.reportPath, "r.json");
    EXPECT_EQ(o.csvPath, "c.csv");
    EXPECT_EQ(o.tracePath, "t.json");
    EXPECT_FALSE(o.cudaGraphs);
    EXPECT_EQ(o.fpsCap, 240u);
    EXPECT_EQ(o.handoffBatch, 4u);
    EXPECT_EQ(parse({"--bench"}).options.handoffBatch, 1u);
    EXPECT_TRUE(parse({"--bench"}).options.cudaGraphs);
}

TEST(AppOptions, EveryOptionInTheHelpIsCoveredByTheTestsHere) {
    // So a new option cannot be added without being added to one of the command lines above (or
    // to the list of options that exit at once, tested on their own below).
    const std::string help = parse({"--help"}).message;
    std::vector<std::string> inHelp;
    for (size_t at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
        size_t end = at + 2;
        while (end < help.size() &&
               (std::isalnum(static_cast<unsigned char>(help[end])) || help[end] == '-'))
            ++end;
        inHelp.push_back(help.substr(at, end - at));
    }
    ASSERT_GT(inHelp.size(), 20u) << help;
    const auto in = [](const std::vector<const char*>& line, const std::string& option) {
        return std::find(line.begin(), line.end(), option) != line.end();
    };
    for (const std::string& option : inHelp) {
        const bool exitsAtOnce =
            option == "--help" || option == "--version" || option == "--list-sims";
        EXPECT_TRUE(exitsAtOnce || in(kEveryWindowOption, option) ||
                    in(kEveryBenchOption, option) || in(kEveryVolumeOption, option))
            << option << " is in none of kEveryWindowOption, kEveryBenchOption, kEveryVolumeOption";
    }
}

TEST(AppOptions, SimulationDefaultsToTheFirstListedAndStepsToTheSimulations) {
    const auto out = parse({});
    EXPECT_EQ(out.options.simulation, simulations().front().name);
    EXPECT_EQ(out.options.simulation, "gray-scott");
    EXPECT_TRUE(out.options.params.empty());
    EXPECT_EQ(out.options.stepsPerFrame, -1) << "-1 means: the simulation's own default";
}

TEST(AppOptions, ListSimsPrintsOneNameAndDescriptionPerLineAndExits0) {
    const auto out = parse({"--list-sims"});
    ASSERT_TRUE(out.exitNow);
    EXPECT_EQ(*out.exitNow, 0);
    std::istringstream lines(out.message);
    std::vector<std::string> names;
    for (std::string line; std::getline(lines, line);) {
        const size_t space = line.find(' ');
        ASSERT_NE(space, std::string::npos) << "no description on: " << line;
        names.push_back(line.substr(0, space));
        EXPECT_GT(line.find_first_not_of(' ', space), space) << line;
    }
    std::vector<std::string> registered;
    for (const sim::SimDefinition& def : simulations())
        registered.push_back(def.name);
    EXPECT_EQ(names, registered);
    EXPECT_NE(std::find(names.begin(), names.end(), "gray-scott"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "wave"), names.end());
}

TEST(AppOptions, ParamsAreCheckedAgainstTheChosenSimulationsTable) {
    // F belongs to gray-scott, not to wave: the same text is fine for one and refused for the
    // other.
    EXPECT_FALSE(parse({"--param", "F=0.03"}).exitNow);
    const auto wrongSim = parse({"--sim", "wave", "--param", "F=0.03"});
    ASSERT_TRUE(wrongSim.exitNow);
    EXPECT_EQ(*wrongSim.exitNow, 2);
    for (const char* m : {"--param", "F", "wave", "speed", "damping"})
        EXPECT_NE(wrongSim.message.find(m), std::string::npos) << m << ": " << wrongSim.message;
    // Integer parameters take whole numbers only.
    const auto fraction = parse({"--sim", "wave", "--param", "sources=1.5"});
    ASSERT_TRUE(fraction.exitNow);
    EXPECT_NE(fraction.message.find("whole number"), std::string::npos) << fraction.message;
    // The last setting of a parameter wins, as with every other option.
    const auto twice = parse({"--param", "k=0.05", "--param", "k=0.06"});
    ASSERT_FALSE(twice.exitNow) << twice.message;
    EXPECT_EQ(twice.options.params.back().value, 0.06f);
}

TEST(AppOptions, ParticlesAndViewsAreCheckedAgainstTheChosenSimulation) {
    // --particles belongs to simulations that carry particles; its range is theirs.
    const auto none = parse({"--sim", "wave", "--particles", "1000"});
    ASSERT_TRUE(none.exitNow);
    EXPECT_EQ(*none.exitNow, 2);
    for (const char* m : {"--particles", "wave", "carries no particles", "fluid"})
        EXPECT_NE(none.message.find(m), std::string::npos) << m << ": " << none.message;
    const auto fluid = estuary::findSimulation("fluid");
    ASSERT_NE(fluid, nullptr);
    const std::string tooMany = std::to_string(uint64_t(fluid->particles.max) + 1);
    const auto over = parse({"--sim", "fluid", "--particles", tooMany.c_str()});
    ASSERT_TRUE(over.exitNow);
    EXPECT_EQ(*over.exitNow, 2);
    EXPECT_NE(over.message.find("0.." + std::to_string(fluid->particles.max)), std::string::npos)
        << over.message;
    const auto negative = parse({"--sim", "fluid", "--particles", "-5"});
    ASSERT_TRUE(negative.exitNow);
    EXPECT_EQ(*negative.exitNow, 2);
    const auto zero = parse({"--sim", "fluid", "--particles", "0"});
    ASSERT_FALSE(zero.exitNow) << zero.message;
    EXPECT_EQ(zero.options.particles, 0);
    EXPECT_EQ(parse({"--sim", "fluid"}).options.particles, -1) << "-1: the backend's default";
    // --view names one of the simulation's views.
    const auto view = parse({"--sim", "fluid", "--view", "vorticity"});
    ASSERT_FALSE(view.exitNow) << view.message;
    EXPECT_EQ(view.options.view, "vorticity");
    const auto badView = parse({"--sim", "gray-scott", "--view", "vorticity"});
    ASSERT_TRUE(badView.exitNow);
    EXPECT_EQ(*badView.exitNow, 2);
    for (const char* m : {"--view", "vorticity", "gray-scott", "allowed: v"})
        EXPECT_NE(badView.message.find(m), std::string::npos) << m << ": " << badView.message;
}

TEST(AppOptions, FluidParametersRoundTripThroughTheCommandLine) {
    const auto fluid = estuary::findSimulation("fluid");
    ASSERT_NE(fluid, nullptr);
    // Every parameter at its maximum, by name, lands in the options as given.
    std::vector<std::string> args = {"--sim", "fluid"};
    for (const sim::ParamSpec& spec : fluid->params) {
        std::ostringstream value;
        value << spec.max;
        args.push_back("--param");
        args.push_back(spec.name + "=" + value.str());
    }
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());
    const auto out = parse(argv);
    ASSERT_FALSE(out.exitNow) << out.message;
    ASSERT_EQ(out.options.params.size(), fluid->params.size());
    for (size_t i = 0; i < fluid->params.size(); ++i) {
        EXPECT_EQ(out.options.params[i].name, fluid->params[i].name);
        EXPECT_EQ(out.options.params[i].value, fluid->params[i].max) << fluid->params[i].name;
    }
    // Each preset's values are in range, so each can be given back on the command line.
    for (const sim::Preset& preset : fluid->presets)
        for (const auto& [name, value] : preset.values) {
            std::ostringstream text;
            text << name << "=" << value;
            const std::string setting = text.str();
            const auto again = parse({"--sim", "fluid", "--param", setting.c_str()});
            ASSERT_FALSE(again.exitNow) << preset.name << ": " << again.message;
            EXPECT_EQ(again.options.params.back().value, value) << preset.name << " " << name;
        }
}

TEST(AppOptions, ExtentParserAcceptsOnlyWxHInRange) {
    EXPECT_TRUE(parseExtent("1x1", 1, 10));
    EXPECT_TRUE(parseExtent("10x3", 1, 10));
    for (const char* bad :
         {"", "x", "10", "0x5", "5x0", "11x2", "2x11", "3x4x5", "ax3", "3x-1", " 3x3", "3x3 "})
        EXPECT_FALSE(parseExtent(bad, 1, 10)) << bad;
}

struct BadUsage {
    std::vector<const char*> args;
    std::vector<const char*> mentions; // the message names option, value and what is allowed
};

// `before` then the case's arguments must be exit 2 with a message naming every mention.
void expectBadUsage(const BadUsage& c, std::vector<const char*> before = {}) {
    before.insert(before.end(), c.args.begin(), c.args.end());
    std::string line;
    for (const char* arg : before)
        line += std::string(line.empty() ? "" : " ") + arg;
    SCOPED_TRACE(line);
    const auto out = parse(before);
    ASSERT_TRUE(out.exitNow) << "accepted";
    EXPECT_EQ(*out.exitNow, 2);
    for (const char* m : c.mentions)
        EXPECT_NE(out.message.find(m), std::string::npos)
            << "message lacks '" << m << "': " << out.message;
}

TEST(AppOptions, BadValuesExitWith2NamingOptionValueAndAllowed) {
    const BadUsage cases[] = {
        {{"--size", "0x5"}, {"--size", "0x5", "1..16384"}},
        {{"--size", "big"}, {"--size", "big", "WxH"}},
        {{"--frames", "abc"}, {"--frames", "abc"}},
        {{"--frames", "0"}, {"--frames", "0", "1"}},
        {{"--backend", "gpu"}, {"--backend", "gpu", "cuda"}},
        {{"--colormap", "jet"}, {"--colormap", "jet", "viridis", "magma"}},
        {{"--frames-in-flight", "33"}, {"--frames-in-flight", "33", "1..32"}},
        {{"--handoff-batch", "0"}, {"--handoff-batch", "0", "1..32"}},
        {{"--bench", "--frames-in-flight", "4", "--handoff-batch", "8"},
         {"--handoff-batch 8", "frames in flight (4)"}},
        {{"--steps-per-frame", "-1"}, {"--steps-per-frame", "-1"}},
        {{"--sim", "lava"}, {"--sim", "lava", "gray-scott", "wave"}},
        {{"--param", "F=0.5"}, {"--param", "F=0.5", "0..0.1"}},
        {{"--param", "G=0.5"}, {"--param", "G", "F, k, Du, Dv, dt"}},
        {{"--param", "F=x"}, {"--param", "F=x", "not a number", "0..0.1"}},
        {{"--param", "F"}, {"--param", "F", "NAME=VALUE"}},
        {{"--bogus"}, {"--bogus"}},
    };
    for (const auto& c : cases)
        expectBadUsage(c);
}

TEST(AppOptions, IntegersAreDecimalDigitsOnly) {
    // CLI11 alone reads 010 as octal 8, 0x10 as 16 and 0b11 as 3; here digits are decimal.
    const auto leadingZero = parse({"--frames", "010", "--seed", "007"});
    ASSERT_FALSE(leadingZero.exitNow) << leadingZero.message;
    EXPECT_EQ(leadingZero.options.frames, 10u);
    EXPECT_EQ(leadingZero.options.seed, 7u);
    const BadUsage cases[] = {
        {{"--frames", "0x10"}, {"--frames", "0x10", "decimal", "1..100000000"}},
        {{"--frames", "0b11"}, {"--frames", "0b11", "decimal"}},
        {{"--frames", "+5"}, {"--frames", "+5", "decimal"}},
        {{"--frames", "1e3"}, {"--frames", "1e3", "decimal"}},
        {{"--frames", " 5"}, {"--frames", "' 5'", "decimal"}},
        {{"--frames-in-flight", "0x2"}, {"--frames-in-flight", "0x2", "1..32"}},
        {{"--device", "0o1"}, {"--device", "0o1", "0..255"}},
        {{"--steps-per-frame", "1.5"}, {"--steps-per-frame", "1.5", "0..10000"}},
        {{"--seed", "0x10"}, {"--seed", "0x10", "decimal"}},
        {{"--bench", "--warmup", "0x10"}, {"--warmup", "0x10", "0..1000000"}},
    };
    for (const auto& c : cases)
        expectBadUsage(c);
}

TEST(AppOptions, DecimalsAreDecimalNumbersOnlyAndFinite) {
    // CLI11 alone took nan (a wrong picture, or a silent 0), hex floats and leading spaces.
    const auto good = parse({"--sim", "gray-scott-3d", "--opacity", "1e-1", "--slice-position",
                             ".5", "--camera", "-30,5."});
    ASSERT_FALSE(good.exitNow) << good.message;
    EXPECT_FLOAT_EQ(good.options.opacity, 0.1f);
    EXPECT_FLOAT_EQ(good.options.slicePosition, 0.5f);
    const BadUsage cases[] = {
        {{"--opacity", "nan"}, {"--opacity", "'nan'", "decimal number", "0..50"}},
        {{"--opacity", "inf"}, {"--opacity", "'inf'", "decimal number"}},
        {{"--opacity", "0x1p-1"}, {"--opacity", "0x1p-1", "decimal number"}},
        {{"--opacity", " 0.5"}, {"--opacity", "' 0.5'", "decimal number"}},
        {{"--opacity", "0.5 "}, {"--opacity", "'0.5 '", "decimal number"}},
        {{"--opacity", "+0.5"}, {"--opacity", "+0.5", "decimal number"}},
        {{"--opacity", "51"}, {"--opacity", "51", "out of range", "0..50"}},
        {{"--slice-position", "nan"}, {"--slice-position", "'nan'", "0..1"}},
        {{"--slice-position", "0x0"}, {"--slice-position", "0x0", "decimal number"}},
        {{"--slice-position", "1.5"}, {"--slice-position", "out of range", "0..1"}},
        {{"--camera", "nan,3"}, {"--camera", "nan,3", "YAW,PITCH"}},
        {{"--camera", "0x10,3"}, {"--camera", "0x10,3", "YAW,PITCH"}},
        {{"--param", "F=nan"}, {"--param F=nan", "'nan' is not a number"}},
        {{"--param", "F= 0.03"}, {"--param", "' 0.03' is not a number"}},
    };
    for (const auto& c : cases)
        expectBadUsage(
            c, {"--sim", std::string(c.args[0]) == "--param" ? "gray-scott" : "gray-scott-3d"});
}

// Options that the run would ignore are refused (they were silently dropped): CUDA options on the
// CPU backend, the other 3D view's options where the view cannot change, a trace too long to
// hold; and a 3D grid of depth 1 is told what is wrong with it.
TEST(AppOptions, OptionsTheRunWouldIgnoreAreRefusedNamingWhy) {
    const BadUsage cases[] = {
        {{"--headless", "--backend", "cpu", "--device", "0"}, {"--device", "--backend cpu"}},
        {{"--headless", "--backend", "cpu", "--cuda-graphs", "on"},
         {"--cuda-graphs", "--backend cpu"}},
        {{"--headless", "--sim", "gray-scott-3d", "--view", "volume", "--slice-position", "0.3"},
         {"--slice-position", "volume view", "slice view's"}},
        {{"--headless", "--sim", "gray-scott-3d", "--slice-axis", "x"},
         {"--slice-axis", "volume view"}},
        {{"--bench", "--sim", "gray-scott-3d", "--view", "slice", "--camera", "10,10"},
         {"--camera", "slice view", "volume view's"}},
        {{"--headless", "--sim", "gray-scott-3d", "--view", "slice", "--opacity", "2"},
         {"--opacity", "slice view"}},
        {{"--headless", "--frames", "300000", "--trace", "t.json"},
         {"--trace", "300000 frames", "200000"}},
        {{"--bench", "--mode", "all", "--frames", "100000", "--trace", "t.json"},
         {"--trace", "300000 frames"}},
        {{"--sim", "gray-scott-3d", "--size", "2x1x1"},
         {"--size 2x1x1", "depth of 1", "at least 2"}},
    };
    for (const auto& c : cases)
        expectBadUsage(c);
    // In the window the view can change, so both views' options are kept.
    const auto window = parse({"--sim", "gray-scott-3d", "--slice-axis", "x", "--camera", "10,10"});
    EXPECT_FALSE(window.exitNow) << window.message;
    const auto cuda = parse({"--headless", "--backend", "cuda", "--device", "0"});
    EXPECT_FALSE(cuda.exitNow) << cuda.message;
}

TEST(AppOptions, SeedsOutsideUint64AreRefusedNotClamped) {
    const auto largest = parse({"--seed", "18446744073709551615"});
    ASSERT_FALSE(largest.exitNow) << largest.message;
    EXPECT_EQ(largest.options.seed, UINT64_MAX);
    for (const char* bad : {"18446744073709551616", "99999999999999999999999", "-1"}) {
        const auto out = parse({"--seed", bad});
        ASSERT_TRUE(out.exitNow) << bad << " gave seed " << out.options.seed;
        EXPECT_EQ(*out.exitNow, 2);
        EXPECT_NE(out.message.find("--seed"), std::string::npos) << out.message;
        EXPECT_NE(out.message.find(bad), std::string::npos) << out.message;
    }
}

TEST(AppOptions, PathOptionsRefuseValuesThatLookLikeOptionsAndEmptyValues) {
    const BadUsage cases[] = {
        {{"--headless", "--screenshot", "--no-ui"}, {"--screenshot", "'--no-ui'", "./--no-ui"}},
        {{"--screenshot", "-x.png"}, {"--screenshot", "'-x.png'", "option"}},
        {{"--bench", "--report", "--csv"}, {"--report", "'--csv'"}},
        {{"--bench", "--csv", "-v"}, {"--csv", "'-v'"}},
        {{"--headless", "--screenshot", ""}, {"--screenshot", "empty"}},
        {{"--bench", "--report", ""}, {"--report", "empty"}},
        {{"--sim", ""}, {"--sim", "empty"}},
        {{"--colormap", ""}, {"--colormap", "''"}}, // the colormap's own check comes first
    };
    for (const auto& c : cases)
        expectBadUsage(c);
    // "-" alone is the standard output, and ./-name a file whose name starts with '-'.
    const auto stdoutReport = parse({"--bench", "--report", "-", "--csv", "./-frames.csv"});
    ASSERT_FALSE(stdoutReport.exitNow) << stdoutReport.message;
    EXPECT_EQ(stdoutReport.options.reportPath, "-");
    EXPECT_EQ(stdoutReport.options.csvPath, "./-frames.csv");
}

TEST(AppOptions, OptionsTheModeIgnoresAreRefusedNamingOptionAndMode) {
    const BadUsage cases[] = {
        {{"--bench", "--screenshot", "x.png"}, {"--screenshot", "--bench"}},
        {{"--bench", "--colormap", "magma"}, {"--colormap", "--bench"}},
        {{"--bench", "--present-mode", "mailbox"}, {"--present-mode", "--bench"}},
        {{"--bench", "--no-ui"}, {"--no-ui", "--bench"}},
        {{"--headless", "--present-mode", "fifo"}, {"--present-mode", "--headless"}},
        {{"--headless", "--no-ui"}, {"--no-ui", "--headless"}},
        {{"--headless", "--report", "r.json"}, {"--report", "--bench"}},
        {{"--mode", "all"}, {"--mode", "--bench"}},
        {{"--warmup", "3"}, {"--warmup", "--bench"}},
        {{"--csv", "c.csv"}, {"--csv", "--bench"}},
    };
    for (const auto& c : cases)
        expectBadUsage(c);
    // What each mode does use stays allowed.
    EXPECT_FALSE(parse({"--headless", "--screenshot", "x.png", "--colormap", "magma"}).exitNow);
    EXPECT_FALSE(
        parse({"--present-mode", "immediate", "--no-ui", "--screenshot", "x.png"}).exitNow);
    EXPECT_FALSE(parse({"--bench", "--headless", "--resolution", "64x64"}).exitNow);
}

TEST(AppOptions, TheSameFileForReportAndCsvExits2) {
    for (const auto& [report, csv] :
         std::vector<std::pair<const char*, const char*>>{{"out.json", "out.json"},
                                                          {"out.json", "./out.json"},
                                                          {"a/../out", "out"},
                                                          {"-", "/dev/stdout"},
                                                          {"/dev/fd/1", "-"}}) {
        const auto out = parse({"--bench", "--report", report, "--csv", csv});
        SCOPED_TRACE(std::string(report) + " vs " + csv);
        ASSERT_TRUE(out.exitNow);
        EXPECT_EQ(*out.exitNow, 2);
        EXPECT_NE(out.message.find("same file"), std::string::npos) << out.message;
        EXPECT_NE(out.message.find(report), std::string::npos) << out.message;
    }
    EXPECT_FALSE(parse({"--bench", "--report", "-", "--csv", "/dev/stderr"}).exitNow);
}

TEST(AppOptions, BenchFramesAboveTheCapExit2NamingTheCapAndWhy) {
    // Every measured frame is kept: the cap bounds the memory (the 100M frames once
    // reserved 4.8 GB before the first frame and died of std::bad_alloc).
    const auto out =
        parse({"--bench", "--frames", "100000000", "--warmup", "1000000", "--size", "8x8"});
    ASSERT_TRUE(out.exitNow);
    EXPECT_EQ(*out.exitNow, 2);
    for (const char* m : {"--frames", "100000000", "1000000", "percentiles"})
        EXPECT_NE(out.message.find(m), std::string::npos) << m << ": " << out.message;
    const auto atCap = parse({"--bench", "--frames", "1000000", "--warmup", "1000000"});
    EXPECT_FALSE(atCap.exitNow) << atCap.message;
    // Without --bench nothing is kept per frame: the headless limit stays.
    EXPECT_FALSE(parse({"--headless", "--frames", "100000000"}).exitNow);
}

TEST(AppOptions, SlabsAndGpusAreCheckedAgainstTheSimulationGridAndBackend) {
    const BadUsage cases[] = {
        {{"--sim", "fluid", "--slabs", "2"}, {"--slabs", "fluid", "gray-scott, gray-scott-3d"}},
        {{"--sim", "wave", "--gpus", "2"}, {"--gpus", "wave", "gray-scott"}},
        {{"--size", "64x9", "--slabs", "5"}, {"--slabs 5", "9 rows", "allowed: 1..4"}},
        {{"--sim", "gray-scott-3d", "--size", "8x8x8", "--slabs", "5"},
         {"--slabs 5", "8 slices", "1..4"}},
        {{"--slabs", "2", "--gpus", "3"}, {"--slabs 2", "--gpus 3", "--slabs 3 or more"}},
        {{"--backend", "cpu", "--gpus", "2"}, {"--gpus", "--backend cpu"}},
        {{"--slabs", "0"}, {"--slabs", "0"}},
        {{"--gpus", "0"}, {"--gpus", "0"}},
        {{"--display-share", "0.4"}, {"--display-share", "--gpus 2 or more"}},
        {{"--gpus", "2", "--display-share", "0.99"}, {"--display-share", "0.99"}},
        {{"--fps-cap", "0"}, {"--fps-cap", "0"}},
        {{"--fps-cap", "1e3"}, {"--fps-cap", "1e3"}},
        {{"--slabs", "2", "--halo", "0"}, {"--halo", "0"}},
        {{"--slabs", "2", "--halo", "65"}, {"--halo", "65"}},
        {{"--size", "64x40", "--slabs", "4", "--halo", "11"},
         {"--halo 11", "10 rows", "allowed: 1..10"}},
        {{"--sim", "gray-scott-3d", "--size", "8x8x40", "--gpus", "4", "--halo", "10"},
         {"--halo 10", "8 slices", "allowed: 1..8"}}, // the display GPU's 0.2 of 40 slices
    };
    for (const auto& c : cases)
        expectBadUsage(c);
    const Options deep = parse({"--gpus", "4", "--halo", "8"}).options;
    EXPECT_EQ(deep.halo, 8u);
    EXPECT_EQ(deep.slabs, 4u);
    EXPECT_EQ(parse({"--slabs", "2"}).options.halo, 0u) << "0: the automatic halo";
    const Options o = parse({"--gpus", "2"}).options;
    EXPECT_EQ(o.slabs, 2u) << "--slabs defaults to one per GPU";
    EXPECT_EQ(parse({}).options.slabs, 1u);
}

TEST(AppOptions, HelpAndVersionExitWith0) {
    const auto help = parse({"--help"});
    ASSERT_TRUE(help.exitNow);
    EXPECT_EQ(*help.exitNow, 0);
    EXPECT_NE(help.message.find("--backend"), std::string::npos);
    EXPECT_NE(help.message.find("Exit codes"), std::string::npos);
    EXPECT_NE(help.message.find("130/143"), std::string::npos) << help.message;
    const auto version = parse({"--version"});
    ASSERT_TRUE(version.exitNow);
    EXPECT_EQ(*version.exitNow, 0);
    EXPECT_NE(version.message.find("estuary 0."), std::string::npos);
}

using test::runEstuary;

TEST(AppRun, BadOptionExitsWith2AndSaysWhy) {
    const auto r = runEstuary("--headless --size 3y4");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("3y4"), std::string::npos) << r.output;
}

TEST(AppRun, WindowWithoutDisplaySuggestsHeadlessAndExits3) {
    // Hide any display (Xvfb under ctest) from the child for this one run.
    const auto r = [] {
        const test::ScopedEnv noDisplay(
            {{"DISPLAY", std::nullopt}, {"WAYLAND_DISPLAY", std::nullopt}});
        return runEstuary("--frames 1 --backend cpu");
    }();
    EXPECT_EQ(r.exitCode, 3) << r.output;
    EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
}

TEST(AppRun, CudaBackendWithoutUsableGpuExits3WithTheReason) {
    // Meaningful only where no NVIDIA GPU is usable; on a GPU machine the GPU suite covers cuda.
    const auto probe = runEstuary("--headless --backend cuda --frames 1 --size 16x16 "
                                  "--resolution 16x16 --screenshot /dev/null");
    if (probe.exitCode == 0) GTEST_SKIP() << "CUDA works here; the GPU suite covers --backend cuda";
    EXPECT_EQ(probe.exitCode, 3) << probe.output;
    EXPECT_NE(probe.output.find("--backend cuda cannot run"), std::string::npos) << probe.output;
}

// The split run end to end on the CPU backend (its bit equality is SimSlabs'): the same
// screenshot as the unsplit run, and --gpus without CUDA is exit 3 naming why.
TEST(AppRun, ASplitCpuRunDrawsTheUnsplitPicture) {
    const auto dir = test::scratchDir("app-slabs");
    const std::string common = "--headless --backend cpu --validate --frames 12 --size 90x70 "
                               "--resolution 180x140 --seed 6 --screenshot ";
    const auto whole = runEstuary(common + "'" + (dir / "whole.png").string() + "'");
    ASSERT_EQ(whole.exitCode, 0) << whole.output;
    const auto split = runEstuary(common + "'" + (dir / "split.png").string() + "' --slabs 4");
    ASSERT_EQ(split.exitCode, 0) << split.output;
    EXPECT_NE(split.output.find("the grid in 4 slabs of 17..18 rows (halos of 4)"),
              std::string::npos)
        << split.output;
    EXPECT_NE(split.output.find("validation layer reported 0 message"), std::string::npos);
    EXPECT_EQ(test::loadPng(dir / "whole.png").pixels, test::loadPng(dir / "split.png").pixels);
    // One exchange a frame: --halo 8 covers the frame's 8 steps.
    const auto deep =
        runEstuary(common + "'" + (dir / "deep.png").string() + "' --slabs 3 --halo 8");
    ASSERT_EQ(deep.exitCode, 0) << deep.output;
    EXPECT_NE(deep.output.find("the grid in 3 slabs of 23..24 rows (halos of 8)"),
              std::string::npos)
        << deep.output;
    EXPECT_EQ(test::loadPng(dir / "whole.png").pixels, test::loadPng(dir / "deep.png").pixels);
    const auto gpus = runEstuary("--headless --frames 2 --size 64x64 --gpus 2 --screenshot "
                                 "/dev/null");
    if (gpus.exitCode == 0) return; // a machine with two GPUs: the GPU suite covers it
    EXPECT_EQ(gpus.exitCode, 3) << gpus.output;
    EXPECT_NE(gpus.output.find("--gpus 2"), std::string::npos) << gpus.output;
}

TEST(AppRun, HeadlessCpuRunWithValidationIsCleanAndDrawsAPicture) {
    const auto dir = test::scratchDir("app-run");
    const auto shot = dir / "shot.png";
    const auto r = runEstuary("--headless --backend cpu --validate --frames 40 --size 128x96 "
                              "--resolution 160x120 --screenshot '" +
                              shot.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("backend cpu"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("reported 0 message"), std::string::npos) << r.output;
    const auto image = test::loadPng(shot);
    EXPECT_EQ(image.width, 160);
    EXPECT_EQ(image.height, 120);
    EXPECT_GT(test::countDistinctColors(image), 16u) << "the screenshot is (nearly) uniform";
}

TEST(AppRun, ListSimsFromTheExecutableExits0) {
    const auto r = runEstuary("--list-sims");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(r.output.rfind("gray-scott ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("\nwave "), std::string::npos) << r.output;
}

TEST(AppRun, WaveRunsHeadlessOnTheCpuBackendWithValidationAndDrawsALivePicture) {
    const auto dir = test::scratchDir("app-wave");
    const auto shot = dir / "wave.png";
    const auto r = runEstuary("--sim wave --headless --backend cpu --validate --frames 200 "
                              "--size 160x120 --resolution 160x120 --screenshot '" +
                              shot.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("wave on backend cpu"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("reported 0 message"), std::string::npos) << r.output;
    const auto image = test::loadPng(shot);
    EXPECT_GT(test::countDistinctColors(image), 64u) << "the waves' picture is (nearly) uniform";
    // Alive: the sources keep driving, so 20 frames later the picture has moved.
    const auto later = dir / "later.png";
    ASSERT_EQ(runEstuary("--sim wave --headless --backend cpu --frames 220 --size 160x120 "
                         "--resolution 160x120 --screenshot '" +
                         later.string() + "'")
                  .exitCode,
              0);
    EXPECT_GT(test::compareRgba8(image.pixels, test::loadPng(later).pixels, 8).failingFraction,
              0.05);
}

TEST(AppRun, ParamsReachTheSimulation) {
    // Gray-Scott with F = k = 0 only decays: no pattern survives, unlike the default.
    const auto dir = test::scratchDir("app-params");
    const auto run = [&](const std::string& extra, const char* name) {
        const auto path = dir / name;
        const auto r = runEstuary("--headless --backend cpu --frames 60 --size 96x96 "
                                  "--resolution 96x96 --screenshot '" +
                                  path.string() + "' " + extra);
        EXPECT_EQ(r.exitCode, 0) << r.output;
        return test::loadPng(path);
    };
    const auto normal = run("", "normal.png");
    const auto starved = run("--param F=0 --param k=0.1", "starved.png");
    EXPECT_GT(test::countDistinctColors(normal), 16u);
    EXPECT_GT(test::compareRgba8(normal.pixels, starved.pixels, 8).failingFraction, 0.01);
}

TEST(AppRun, SameSeedGivesTheSameScreenshotAndAnotherSeedDoesNot) {
    const auto dir = test::scratchDir("app-seed");
    auto shot = [&](const char* name, int seed, int framesInFlight) {
        const auto path = dir / name;
        const auto r =
            runEstuary("--headless --backend cpu --frames 20 --size 96x96 "
                       "--resolution 96x96 --seed " +
                       std::to_string(seed) + " --frames-in-flight " +
                       std::to_string(framesInFlight) + " --screenshot '" + path.string() + "'");
        EXPECT_EQ(r.exitCode, 0) << r.output;
        return test::loadPng(path);
    };
    const auto a = shot("a.png", 5, 2);
    const auto b = shot("b.png", 5, 3); // frames in flight must not change what is drawn
    const auto c = shot("c.png", 6, 2);
    EXPECT_EQ(a.pixels, b.pixels);
    EXPECT_NE(a.pixels, c.pixels);
}

} // namespace
} // namespace estuary
