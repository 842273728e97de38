// The viewer's drawing kit (renderer/kit.h) and estuary_create_colormap: a colormap of the
// caller's checked, built into an atlas row and staged; the next frame's draw uploads it.
#include "viewer.h"
#include "errors.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary::lib {

void openKit(estuary_viewer& v, bool keepPipelineCache) {
    KitDesc desc;
    desc.dataDir = v.dataDir;
    if (keepPipelineCache) desc.pipelineCacheDir = pipelineCacheDir().value_or("");
    desc.warn = [&v](const std::string& text) { logMessage(v, ESTUARY_LOG_WARNING, text); };
    v.kit = createKit(v.device, v.pool, desc);
}

void closeKit(estuary_viewer& v) {
    if (v.kit.atlas.handle || v.kit.pipelineCache.handle) destroyKit(v.device, v.kit);
}

namespace {

std::vector<float> samplesAsFloats(const estuary_colormap_desc& d) {
    std::vector<float> rgba(size_t(d.sample_count) * 4);
    if (d.sample_format == ESTUARY_COLORMAP_SAMPLES_RGBA8) {
        const auto* bytes = static_cast<const uint8_t*>(d.samples);
        for (size_t i = 0; i < rgba.size(); ++i)
            rgba[i] = float(bytes[i]) / 255.0f;
    } else {
        std::memcpy(rgba.data(), d.samples, rgba.size() * sizeof(float));
    }
    return rgba;
}

} // namespace

estuary_colormap createColormap(estuary_viewer& v, const estuary_colormap_desc& d) {
    constexpr uint32_t kFlags = ESTUARY_COLORMAP_CATEGORICAL | ESTUARY_COLORMAP_LINEAR_BLEND;
    if (d.flags & ~kFlags)
        throw usageError("flags has unknown bits " + std::to_string(d.flags & ~kFlags) +
                         " (allowed: ESTUARY_COLORMAP_CATEGORICAL, _LINEAR_BLEND)");
    const bool fromStops = d.stops || d.stop_count, fromSamples = d.samples || d.sample_count;
    if (fromStops == fromSamples)
        throw usageError(fromStops ? "give stops or samples, not both"
                                   : "no stops and no samples: give one of them (stops with "
                                     "stop_count, or samples with sample_count)");
    if (fromStops && (!d.stops || d.stop_count == 0))
        throw usageError(!d.stops ? "stops is NULL with stop_count " + std::to_string(d.stop_count)
                                  : std::string("stop_count is 0: give at least one stop"));
    if (fromSamples && (!d.samples || d.sample_count == 0))
        throw usageError(!d.samples
                             ? "samples is NULL with sample_count " + std::to_string(d.sample_count)
                             : std::string("sample_count is 0: give at least one sample"));
    if (fromSamples && d.sample_format != ESTUARY_COLORMAP_SAMPLES_RGBA8 &&
        d.sample_format != ESTUARY_COLORMAP_SAMPLES_RGBA32F)
        throw usageError("sample_format " + std::to_string(int(d.sample_format)) +
                         " is not ESTUARY_COLORMAP_SAMPLES_RGBA8 or _RGBA32F");
    constexpr uint32_t kMaxSamples = 1u << 20;
    if (fromSamples && d.sample_count > kMaxSamples)
        throw usageError("sample_count " + std::to_string(d.sample_count) + " is above " +
                         std::to_string(kMaxSamples));
    if (v.kit.colormaps.size() >= kColormapAtlasRows)
        throw usageError("the viewer holds " + std::to_string(kColormapAtlasRows) + " colormaps (" +
                         std::to_string(kColormapCount) + " built in, " +
                         std::to_string(kColormapAtlasRows - kColormapCount) +
                         " of yours) and all are made");
    const bool categorical = d.flags & ESTUARY_COLORMAP_CATEGORICAL;
    const bool linear = d.flags & ESTUARY_COLORMAP_LINEAR_BLEND;
    ColormapRow row{};
    uint32_t entries = 0;
    if (fromStops) {
        std::vector<ColormapStop> stops(d.stop_count);
        for (uint32_t i = 0; i < d.stop_count; ++i) {
            stops[i].position = d.stops[i].position;
            std::memcpy(stops[i].rgba.data(), d.stops[i].rgba, sizeof(stops[i].rgba));
        }
        row = colormapRowFromStops(stops, linear, categorical);
        entries = d.stop_count;
    } else {
        row = colormapRowFromSamples(samplesAsFloats(d), linear, categorical);
        entries = d.sample_count;
    }
    const uint32_t index = uint32_t(v.kit.colormaps.size());
    const std::string name =
        d.name && *d.name ? std::string(d.name) : "user " + std::to_string(index);
    addColormap(v.kit, name, row, categorical ? entries : 0);
    ++v.drawVersion; // the next frame records the upload
    return estuary_colormap(index);
}

std::string colormapName(const estuary_viewer& v, uint32_t colormap) {
    return colormap < v.kit.colormaps.size() ? v.kit.colormaps[colormap].name : std::string();
}

} // namespace estuary::lib
