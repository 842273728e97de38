// What a simulation is, to the rest of estuary: plain data describing its outputs, parameters,
// presets, brush and picture, and the CPU half of its interface. No CUDA and no Vulkan here, so
// the CPU backend, the UI, the command line and the tests use it everywhere; cuda_simulation.h adds
// the CUDA half. A simulation is one SimDefinition (usually returned by a function of its own),
// listed once in app/simulations.cpp. docs/SIMULATIONS.md walks through adding one.
//
// Life of a simulation object, CPU or CUDA alike: created for a grid by its factory, reset(seed)
// before the first step, then per frame step(params, steps) and writeOutputs(targets); brush()
// between frames. The CPU object computes exactly what the CUDA one does (shared per-cell code) and
// is the reference the GPU tests compare against, within the definition's stated tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace estuary::sim {

// ---- outputs ------------------------------------------------------------------------------------

// Texel formats a simulation may write (the app maps them to Vulkan formats). RGBA16Float texels
// are four IEEE binary16 values (half_float.h converts, identically on host and device).
enum class TexelFormat { R32Float, RG32Float, RGBA32Float, RGBA16Float };
uint32_t channelCount(TexelFormat format);
size_t texelBytes(TexelFormat format);
const char* texelFormatName(TexelFormat format);

// One image written every frame: level 0 and, unless levels == 1, its mip chain.
struct ImageOutput {
    std::string name;
    uint32_t width = 0, height = 0;
    uint32_t depth = 1; // > 1: a 3D image (a volume of width x height x depth texels)
    TexelFormat format = TexelFormat::R32Float;
    uint32_t levels = 0; // 0: the full chain down to 1x1
};

// One buffer written every frame (particles, meshes, ...). A buffer of particles the renderer draws
// (SimDefinition::points) holds one ParticleVertex per particle.
struct BufferOutput {
    std::string name;
    size_t bytes = 0;
};

struct OutputLayout {
    std::vector<ImageOutput> images;
    std::vector<BufferOutput> buffers;
};

// Levels of a full mip chain of a w x h (x d) image, floor(log2(max(w, h, d))) + 1, and the size
// of `level` along an axis: max(1, size >> level).
uint32_t fullMipLevels(uint32_t width, uint32_t height, uint32_t depth = 1);
uint32_t mipSize(uint32_t size, uint32_t level);
inline uint32_t levelCount(const ImageOutput& image) {
    return image.levels ? image.levels : fullMipLevels(image.width, image.height, image.depth);
}

// Where the CPU side writes: per image, one pointer per level to that level's texels, tightly
// packed, x fastest, then y, then z (a 3D image's level holds mipSize(depth, level) slices of
// mipSize(width, level) x mipSize(height, level) texels, one after another); per buffer, one
// pointer to `bytes` bytes.
struct HostImageTarget {
    std::span<void* const> levels;
};
struct HostTargets {
    std::span<const HostImageTarget> images;
    std::span<void* const> buffers;
};

// ---- parameters, presets, brush, picture --------------------------------------------------------

// One entry of the parameter table: the UI draws a slider from it, --param NAME=VALUE sets it.
struct ParamSpec {
    std::string name; // identifier-like, used on the command line
    std::string help; // one line
    float initial = 0, min = 0, max = 1;
    bool integer = false;
};
// Current values, in the order of SimDefinition::params.
using ParamValues = std::vector<float>;

// Named parameter values; applying one also resets the field.
struct Preset {
    std::string name;
    std::string help;
    std::vector<std::pair<std::string, float>> values;
};

// A stroke of the mouse in cell coordinates (x right, y down; cell (i, j) sits at (i, j)).
// `secondary` is the right button; what either does is the simulation's (BrushHelp says).
// (dx, dy): how far the stroke moved since its previous dab, in cells (0 for the first dab), for
// simulations that push things along the stroke.
struct Brush {
    float x = 0, y = 0;
    float radius = 8;
    bool secondary = false;
    float dx = 0, dy = 0;
};
struct BrushHelp {
    std::string primary, secondary; // e.g. "paint v", "erase"; empty primary: no brush
};

// One way the renderer shows the simulation (a view): image `image` through a colormap over
// [valueMin, valueMax] (channel 0, or the length of (channel 0, channel 1)), or channels 0..2 as
// colour; drawn by a fragment shader of shaders/ (field.frag, field_relief.frag for a lit relief,
// or the simulation's own, e.g. fluid_vorticity.frag, which derives the curl of a velocity image).
enum class Shading { Colormap, ColormapMagnitude, Rgb };
struct Visual {
    uint32_t image = 0;
    Shading shading = Shading::Colormap;
    float valueMin = 0, valueMax = 1;
    std::string valueLabel = "value";          // what the cursor probe shows, e.g. "v", "height"
    std::string fragmentShader = "field.frag"; // source name in shaders/
    std::string name = "field";                // --view NAME and the window's view selector
};

// Particles the renderer draws as points over any view: output buffer `buffer` holds one
// ParticleVertex per particle; the first activeParticles(count, share) of them are drawn, coloured
// by speed through the colormap over [0, speedMax], `sizeParam` pixels wide.
struct ParticleVertex {
    float x, y;   // cell coordinates: [0, width) x [0, height)
    float vx, vy; // cells per step
};
struct PointsVisual {
    int buffer = -1;     // -1: the simulation draws no particles
    float speedMax = 1;  // cells per step at the colormap's last entry
    int sizeParam = -1;  // index of the point size (pixels) in the parameter table; -1: 1 pixel
    int shareParam = -1; // index of the share of particles moved and drawn (0..1); -1: all
};

// Velocity arrows over the picture (the library's glyph view), for a simulation with a velocity
// image (channels 0 and 1, cells per step): one arrow every `spacing` cells, as long as its spacing
// at speedMax.
struct GlyphsVisual {
    int image = -1; // index into the outputs' images; -1: none
    float speedMax = 1;
    uint32_t spacing = 16;
};

// ---- the simulation objects ---------------------------------------------------------------------

// The size of a run: the grid, and how many particles for simulations that carry them
// (SimDefinition::particles; 0 for the others).
struct GridSize {
    uint32_t width = 0, height = 0, depth = 1;
    uint32_t particles = 0;
};

// How many of `count` particles are moved and drawn under the share parameter (0..1). The same
// host arithmetic everywhere, so the simulation and the draw agree on the number.
inline uint32_t activeParticles(uint32_t count, float share) {
    if (!(share > 0.0f)) return 0;
    if (share >= 1.0f) return count;
    return uint32_t(double(count) * double(share));
}

// What splitting a grid into slabs (slabs.h) needs of a simulation object: its state as float
// fields of `planes` x `planeCells` values, planes along the grid's slowest axis (rows of a 2D
// grid, z slices of a 3D one), in host or device memory as the object lives, and which of them
// writeOutputs reads. The pointers are the current state's: valid until the next step or reset.
struct SlabFields {
    std::vector<float*> fields;
    std::vector<uint32_t> shown;
};

class CpuSimulation {
  public:
    virtual ~CpuSimulation() = default;
    // Splitting (SimDefinition::splittable): the state as slab fields, and a reset that seeds the
    // object's grid as the planes from `firstPlane` on (wrapping) of the field of the `whole`
    // grid's reset(seed). Simulations that split override both.
    virtual SlabFields slabFields() { return {}; }
    virtual void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstPlane) {
        (void)whole;
        (void)firstPlane;
        reset(seed);
    }
    virtual void reset(uint64_t seed) = 0;
    // `steps` >= 0 steps with the current parameter values.
    virtual void step(const ParamValues& params, int steps) = 0;
    // The current state into every level of every output image and into every output buffer.
    virtual void writeOutputs(const HostTargets& targets) = 0;
    virtual void brush(const Brush& brush, const ParamValues& params) {
        (void)brush;
        (void)params;
    }
};

class CudaSimulation; // cuda_simulation.h

struct SimDefinition {
    std::string name;        // --sim NAME
    std::string description; // one line, for --list-sims
    std::vector<ParamSpec> params;
    std::vector<Preset> presets;
    BrushHelp brush;
    // Its views; the first is the default. Each names the output image it shows.
    std::vector<Visual> views;
    PointsVisual points;
    GlyphsVisual glyphs;
    uint32_t dimensions = 2; // 3: the grid has a depth (--size WxHxD)
    // Particles: --particles' default per backend (0: the simulation carries none, and
    // --particles is refused), and the most it accepts.
    struct Particles {
        uint32_t cpuDefault = 0, cudaDefault = 0, max = 0;
    } particles;
    int stepsPerFrame = 1; // default of --steps-per-frame
    // DRAM bytes per cell per step, the benchmark's roofline denominator.
    double bytesPerCellStep = 0;
    // Bytes of simulation state per cell (CUDA or host memory), for the memory check before a run.
    double stateBytesPerCell = 0;
    // The same per particle: DRAM bytes moved per particle per step, and state bytes per particle.
    double bytesPerParticleStep = 0;
    double stateBytesPerParticle = 0;
    // Whether a run can split the grid into slabs along its slowest axis (--slabs, --gpus):
    // a local stencil of radius 1 on a grid periodic along that axis, with slabFields and
    // resetAsPart on both objects.
    bool splittable = false;
    // Largest |CUDA - CPU| allowed in any output texel after many steps; 0: bit-identical.
    float cudaTolerance = 0;
    OutputLayout (*outputs)(const GridSize& grid) = nullptr;
    std::unique_ptr<CpuSimulation> (*createCpu)(const GridSize& grid) = nullptr;
    // nullptr in builds without CUDA. Allocates on the current CUDA device.
    std::unique_ptr<CudaSimulation> (*createCuda)(const GridSize& grid) = nullptr;
};

// ---- parameter table helpers (pure) -------------------------------------------------------------

ParamValues initialParams(const SimDefinition& def);
// Index of `name` in def.params, or -1.
int findParam(const SimDefinition& def, std::string_view name);
// "0..0.1", or "a whole number in 1..64" for integer parameters.
std::string paramRange(const ParamSpec& spec);
// Empty when `value` is allowed for `spec`, else "NAME=VALUE is outside MIN..MAX" and the like.
std::string checkParamValue(const ParamSpec& spec, float value);
// Index of the view named `name` in def.views, or -1.
int findView(const SimDefinition& def, std::string_view name);
// "dye, speed, vorticity" — for messages.
std::string viewNames(const SimDefinition& def);
// "F, k, Du, Dv" — for messages.
std::string paramNames(const SimDefinition& def);
// Sets every value the preset names. Returns the problems (unknown names, values out of range);
// empty when the preset applied cleanly.
std::string applyPreset(const SimDefinition& def, const Preset& preset, ParamValues& values);
// Problems with a definition (bad ranges, presets naming unknown parameters, no factories, ...);
// empty when it is usable. The tests run it on every registered simulation.
std::string checkDefinition(const SimDefinition& def);

// CPU side of the mip chain every image output carries: levels 1.. from level 0, each texel the
// 2x2 mean of the level above, or for a 3D image (depth > 1) the 2x2x2 mean (see mip_chain.h).
void writeMipChain(const ImageOutput& image, const HostImageTarget& target);

} // namespace estuary::sim
