// Built with -ffp-contract=off (cuda_sim/CMakeLists.txt): writeMipChain must round like the GPU's.
#include "simulation.h"
#include "half_float.h"
#include "mip_chain.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace estuary::sim {

uint32_t channelCount(TexelFormat format) {
    switch (format) {
    case TexelFormat::R32Float:
        return 1;
    case TexelFormat::RG32Float:
        return 2;
    case TexelFormat::RGBA32Float:
    case TexelFormat::RGBA16Float:
        return 4;
    }
    return 0;
}

size_t texelBytes(TexelFormat format) {
    return channelCount(format) *
           (format == TexelFormat::RGBA16Float ? sizeof(uint16_t) : sizeof(float));
}

const char* texelFormatName(TexelFormat format) {
    switch (format) {
    case TexelFormat::R32Float:
        return "R32 float";
    case TexelFormat::RG32Float:
        return "RG32 float";
    case TexelFormat::RGBA32Float:
        return "RGBA32 float";
    case TexelFormat::RGBA16Float:
        return "RGBA16 float";
    }
    return "unknown";
}

uint32_t fullMipLevels(uint32_t width, uint32_t height, uint32_t depth) {
    return uint32_t(fullMipChainLength(int(width), int(height), int(depth)));
}

uint32_t mipSize(uint32_t size, uint32_t level) {
    return uint32_t(mipLevelSize(int(size), int(level)));
}

ParamValues initialParams(const SimDefinition& def) {
    ParamValues values;
    for (const ParamSpec& spec : def.params)
        values.push_back(spec.initial);
    return values;
}

int findParam(const SimDefinition& def, std::string_view name) {
    for (size_t i = 0; i < def.params.size(); ++i)
        if (def.params[i].name == name) return int(i);
    return -1;
}

namespace {

std::string number(float value) {
    std::ostringstream s;
    s << value;
    return s.str();
}

} // namespace

std::string paramRange(const ParamSpec& spec) {
    const std::string range = number(spec.min) + ".." + number(spec.max);
    return spec.integer ? "a whole number in " + range : range;
}

std::string checkParamValue(const ParamSpec& spec, float value) {
    if (!std::isfinite(value) || value < spec.min || value > spec.max ||
        (spec.integer && value != std::floor(value)))
        return spec.name + "=" + number(value) + " is outside the allowed range " +
               paramRange(spec);
    return {};
}

int findView(const SimDefinition& def, std::string_view name) {
    for (size_t i = 0; i < def.views.size(); ++i)
        if (def.views[i].name == name) return int(i);
    return -1;
}

std::string viewNames(const SimDefinition& def) {
    std::string names;
    for (const Visual& view : def.views)
        names += (names.empty() ? "" : ", ") + view.name;
    return names;
}

std::string paramNames(const SimDefinition& def) {
    std::string names;
    for (const ParamSpec& spec : def.params)
        names += (names.empty() ? "" : ", ") + spec.name;
    return names.empty() ? "(none)" : names;
}

std::string applyPreset(const SimDefinition& def, const Preset& preset, ParamValues& values) {
    std::string problems;
    for (const auto& [name, value] : preset.values) {
        const int index = findParam(def, name);
        std::string problem = index < 0 ? "preset " + preset.name + " names unknown parameter " +
                                              name + " (known: " + paramNames(def) + ")"
                                        : checkParamValue(def.params[size_t(index)], value);
        if (problem.empty() && size_t(index) < values.size()) values[size_t(index)] = value;
        if (!problem.empty()) problems += (problems.empty() ? "" : "; ") + problem;
    }
    return problems;
}

std::string checkDefinition(const SimDefinition& def) {
    std::string problems;
    const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
    if (def.name.empty() || def.name.find_first_of(" \t=,") != std::string::npos)
        add("name '" + def.name + "' must be a non-empty word");
    if (def.description.empty() || def.description.find('\n') != std::string::npos)
        add(def.name + ": description must be one line");
    for (size_t i = 0; i < def.params.size(); ++i) {
        const ParamSpec& p = def.params[i];
        if (p.name.empty() || p.name.find_first_of(" \t=,") != std::string::npos)
            add("parameter '" + p.name + "' must be a non-empty word");
        if (findParam(def, p.name) != int(i)) add("parameter " + p.name + " appears twice");
        if (!(p.min <= p.max)) add("parameter " + p.name + " has min > max");
        if (const std::string bad = checkParamValue(p, p.initial); !bad.empty())
            add("initial value: " + bad);
    }
    ParamValues scratch = initialParams(def);
    for (const Preset& preset : def.presets)
        if (const std::string bad = applyPreset(def, preset, scratch); !bad.empty()) add(bad);
    if (def.stepsPerFrame < 0) add("stepsPerFrame must be >= 0");
    if (def.dimensions != 2 && def.dimensions != 3)
        add(def.name + ": dimensions must be 2 or 3, got " + std::to_string(def.dimensions));
    if (def.views.empty()) add(def.name + ": no views");
    for (size_t i = 0; i < def.views.size(); ++i) {
        const Visual& view = def.views[i];
        if (view.fragmentShader.empty()) add("view " + view.name + " names no fragment shader");
        if (view.name.empty() || view.name.find_first_of(" \t=,") != std::string::npos)
            add("view '" + view.name + "' must be a non-empty word");
        if (findView(def, view.name) != int(i)) add("view " + view.name + " appears twice");
    }
    const auto isParam = [&](int index) { return index >= 0 && size_t(index) < def.params.size(); };
    const bool particles = def.particles.max > 0;
    if (particles && (def.particles.cpuDefault > def.particles.max ||
                      def.particles.cudaDefault > def.particles.max))
        add("default particle counts exceed particles.max");
    if (particles != (def.points.buffer >= 0))
        add("particles and points.buffer must come together");
    if ((def.points.sizeParam != -1 && !isParam(def.points.sizeParam)) ||
        (def.points.shareParam != -1 && !isParam(def.points.shareParam)))
        add("points names a parameter that is not in the table");
    if (!def.outputs || !def.createCpu) add(def.name + ": outputs and createCpu are required");
    if (def.outputs) {
        const OutputLayout layout =
            def.outputs({16, 16, def.dimensions == 3 ? 16u : 1u, particles ? 64u : 0u});
        for (const Visual& view : def.views)
            if (view.image >= layout.images.size())
                add("view " + view.name + " shows image " + std::to_string(view.image) +
                    ", which is not an output image");
        if (particles &&
            (size_t(def.points.buffer) >= layout.buffers.size() ||
             layout.buffers[size_t(def.points.buffer)].bytes != 64 * sizeof(ParticleVertex)))
            add("points.buffer must be an output buffer of one ParticleVertex per particle");
    }
    return problems;
}

namespace {

// Texels are read and written through these, so one loop serves floats and halves: halves are
// averaged as floats and the mean rounded back, the same as the GPU's chain.
float toFloat(float value) {
    return value;
}
float toFloat(uint16_t half) {
    return halfToFloat(half);
}
void store(float& texel, float value) {
    texel = value;
}
void store(uint16_t& texel, float value) {
    texel = floatToHalf(value);
}

// Levels 1.. of `target`, each channel of each texel the mean of its block in the level above:
// 2x2 for a 2D image, 2x2x2 for a 3D one (depth > 1), whatever the level's own depth.
template <class Channel>
void downsampleLevels(const ImageOutput& image, const HostImageTarget& target, size_t channels) {
    const int w = int(image.width), h = int(image.height), d = int(image.depth);
    for (size_t level = 1; level < target.levels.size(); ++level) {
        const auto* src = static_cast<const Channel*>(target.levels[level - 1]);
        auto* dst = static_cast<Channel*>(target.levels[level]);
        const int l = int(level);
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        const int srcD = mipLevelSize(d, l - 1);
        const int dstW = mipLevelSize(w, l), dstH = mipLevelSize(h, l), dstD = mipLevelSize(d, l);
        for (int z = 0; z < dstD; ++z)
            for (int y = 0; y < dstH; ++y)
                for (int x = 0; x < dstW; ++x)
                    for (size_t c = 0; c < channels; ++c) {
                        const auto read = [&](int sx, int sy, int sz) {
                            const size_t texel =
                                (size_t(sz) * size_t(srcH) + size_t(sy)) * size_t(srcW) +
                                size_t(sx);
                            return toFloat(src[texel * channels + c]);
                        };
                        const auto readSlice0 = [&](int sx, int sy) { return read(sx, sy, 0); };
                        const float mean = d > 1
                                               ? downsampleTexel3d(read, srcW, srcH, srcD, x, y, z)
                                               : downsampleTexel(readSlice0, srcW, srcH, x, y);
                        const size_t texel =
                            (size_t(z) * size_t(dstH) + size_t(y)) * size_t(dstW) + size_t(x);
                        store(dst[texel * channels + c], mean);
                    }
    }
}

} // namespace

void writeMipChain(const ImageOutput& image, const HostImageTarget& target) {
    if (target.levels.empty() || target.levels.size() > levelCount(image))
        throw std::invalid_argument("writeMipChain: image '" + image.name + "' has " +
                                    std::to_string(levelCount(image)) + " levels, got " +
                                    std::to_string(target.levels.size()) + " pointers");
    const size_t channels = channelCount(image.format);
    if (image.format == TexelFormat::RGBA16Float)
        downsampleLevels<uint16_t>(image, target, channels);
    else
        downsampleLevels<float>(image, target, channels);
}

} // namespace estuary::sim
