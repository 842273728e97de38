#include "stamped_run.h"
#include "app_viewer.h"
#include "counter_simulation.h"
#include "half_float.h"
#include "sim_run.h"
#include "simulations.h"

#include <cstring>
#include <memory>

namespace estuary::test {
namespace {

// Channel 0 of a stamped texel of `format`, as a float.
float stampValue(const uint8_t* texel, estuary_format format) {
    if (format == ESTUARY_FORMAT_RGBA16_FLOAT) {
        uint16_t half = 0;
        std::memcpy(&half, texel, sizeof(half));
        return sim::halfToFloat(half);
    }
    float value = 0;
    std::memcpy(&value, texel, sizeof(value));
    return value;
}

template <typename T> std::array<T, 4> read4(const uint8_t* bytes) {
    std::array<T, 4> out{};
    std::memcpy(out.data(), bytes, sizeof(out));
    return out;
}

// Per frame, 16-byte slots the reads land in (a texel is at most 16 bytes).
enum Slot : size_t {
    kStampBefore,
    kStampAfter,
    kShownTexel,
    kShownLast,
    kSecondTexel,
    kSecondLast,
    kWords,
    kTailBefore,
    kTailAfter,
    kSlots
};
constexpr size_t kSlotBytes = 16;

} // namespace

uint32_t StampedRun::wrongOutputs(uint64_t stepsPerFrame) const {
    uint32_t wrong = 0;
    for (size_t f = 0; f < displayTexel.size(); ++f) {
        // The frame's steps are taken before its outputs are written.
        const uint64_t n = (f + 1) * stepsPerFrame;
        const float v = counterImageValue(n);
        bool ok = displayTexel[f][0] == v && displayLastLevel[f][0] == v;
        if (f < secondTexel.size())
            ok = ok && secondTexel[f][0] == v && secondTexel[f][1] == -v &&
                 secondLastLevel[f][0] == v && secondLastLevel[f][1] == -v;
        if (f < bufferWords.size())
            for (uint32_t i = 0; i < 4; ++i)
                ok = ok && bufferWords[f][i] == counterBufferWord(n, i);
        wrong += !ok;
    }
    return wrong;
}

uint32_t StampedRun::wrongFrames() const {
    uint32_t wrong = 0;
    for (size_t f = 0; f < seenBefore.size(); ++f) {
        bool bad = seenBefore[f] != float(f) || seenAfter[f] != float(f);
        if (f < bufferTailBefore.size())
            bad = bad || bufferTailBefore[f][3] != float(f) || bufferTailAfter[f][3] != float(f);
        wrong += bad;
    }
    return wrong;
}

StampedRun runStampedFrames(const Options& options, uint32_t frames,
                            const sim::SimDefinition* simulation, bool hostCopy) {
    Options o = options;
    o.validate = true;
    o.headless = true;
    const sim::SimDefinition& def = simulation ? *simulation : *findSimulation(o.simulation);
    Viewer viewer = openAppViewer(o, {false, hostCopy});
    const bool gl = o.consumer == Consumer::OpenGL;

    SimRunConfig config;
    config.simulation = &def;
    config.grid = o.grid;
    config.kind = runKindFor(viewer, hostCopy);
    config.particles = def.particles.max == 0         ? 0
                       : o.particles >= 0             ? uint32_t(o.particles)
                       : config.kind == RunKind::Cuda ? def.particles.cudaDefault
                                                      : def.particles.cpuDefault;
    config.seed = o.seed;
    config.cudaGraphs = o.cudaGraphs;
    config.stampFrames = true;
    (void)checkedOutputs(config);
    std::unique_ptr<SimRun> run = SimRun::create(viewer, config);
    const sim::ParamValues params = sim::initialParams(def);
    const int steps = o.stepsPerFrame >= 0 ? o.stepsPerFrame : def.stepsPerFrame;

    const Image& shown = run->image(def.views[run->viewIndex()].image);
    const estuary_image_info shownInfo = shown.info();
    const bool second = !gl && run->layout().images.size() > 1;
    const bool words = !gl && !run->layout().buffers.empty();
    estuary_image_info secondInfo{};
    if (second) secondInfo = run->image(1).info();
    const uint64_t bufferBytes = words ? run->buffer(0).size() : 0;

    std::vector<uint8_t> seen(size_t(frames) * kSlots * kSlotBytes);
    const auto at = [&](uint64_t frame, Slot slot) {
        return seen.data() + (frame * kSlots + slot) * kSlotBytes;
    };
    for (uint32_t f = 0; f < frames; ++f)
        run->frame(params, steps, [&](const Frame& frame) {
            const uint64_t i = frame.index();
            frame.readImage(shown, 0, 0, 0, 1, 1, at(i, kStampBefore));
            frame.readImage(shown, 0, 0, 0, 1, 1, at(i, kStampAfter), ESTUARY_READ_AFTER_DRAW);
            if (gl) return;
            frame.readImage(shown, 0, 1, 1, 1, 1, at(i, kShownTexel));
            frame.readImage(shown, shownInfo.levels - 1, 0, 0, 1, 1, at(i, kShownLast));
            if (second) {
                frame.readImage(run->image(1), 0, 1, 1, 1, 1, at(i, kSecondTexel));
                frame.readImage(run->image(1), secondInfo.levels - 1, 0, 0, 1, 1,
                                at(i, kSecondLast));
            }
            if (words) {
                const Buffer& buffer = run->buffer(0);
                frame.readBuffer(buffer, 0, kSlotBytes, at(i, kWords));
                frame.readBuffer(buffer, bufferBytes - kSlotBytes, kSlotBytes, at(i, kTailBefore));
                frame.readBuffer(buffer, bufferBytes - kSlotBytes, kSlotBytes, at(i, kTailAfter),
                                 ESTUARY_READ_AFTER_DRAW);
            }
        });
    viewer.finish();

    StampedRun result;
    for (uint32_t f = 0; f < frames; ++f) {
        result.seenBefore.push_back(stampValue(at(f, kStampBefore), shownInfo.format));
        result.seenAfter.push_back(stampValue(at(f, kStampAfter), shownInfo.format));
        if (gl) continue;
        result.displayTexel.push_back(read4<float>(at(f, kShownTexel)));
        result.displayLastLevel.push_back(read4<float>(at(f, kShownLast)));
        if (second) {
            result.secondTexel.push_back(read4<float>(at(f, kSecondTexel)));
            result.secondLastLevel.push_back(read4<float>(at(f, kSecondLast)));
        }
        if (words) {
            result.bufferWords.push_back(read4<uint32_t>(at(f, kWords)));
            result.bufferTailBefore.push_back(read4<float>(at(f, kTailBefore)));
            result.bufferTailAfter.push_back(read4<float>(at(f, kTailAfter)));
        }
    }
    run.reset();
    result.validationMessages = viewer.close();
    return result;
}

} // namespace estuary::test
