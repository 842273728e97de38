// The OpenGL consumer's picture: a field texture drawn letterboxed through the colormap, from the
// very GLSL sources the Vulkan renderer compiles (shaders/*.vert, *.frag and their includes, copied
// to <dataDir>/shaders/glsl and compiled here at run time), so both APIs draw the same picture. A
// framebuffer-object target and its readback serve headless runs and tests; a window draws into
// its default framebuffer. Particles are not drawn here (the Vulkan renderer's points pipeline
// has no GL twin yet). Per-frame calls allocate nothing and never wait.
#pragma once

#include "context.h"  // MoveOnly, VkExtent2D
#include "kit.h"      // the colormaps
#include "renderer.h" // ViewParams, FieldShading

#include <filesystem>
#include <string>
#include <vector>

namespace estuary {

// A shader source with its `#include "..."` lines replaced by the included files (from the same
// folder, each at most once, as their include guards intend), the include-directive extension line
// dropped, and `defines` ("NAME VALUE") inserted after `#version`. Throws runtimeError naming a
// missing file.
std::string expandGlslSource(const std::filesystem::path& file,
                             const std::vector<std::string>& defines);

struct GlFieldDesc {
    FieldShading shading = FieldShading::Colormap;
    std::string fragmentShader = "field.frag"; // as RendererDesc::fragmentShader
    std::filesystem::path dataDir;             // holds shaders/glsl
    const Kit* kit = nullptr; // required: its colormaps (texels), outliving the renderer
};

struct GlFieldRenderer : MoveOnly {
    uint32_t program = 0;
    uint32_t vertexArray = 0;  // empty: the triangle comes from gl_VertexID
    uint32_t uniforms = 0;     // FieldPushConstants as a std140 uniform buffer
    uint32_t colormaps = 0;    // the kit's atlas, kColormapSize x kColormapAtlasRows RGBA8
    uint32_t fieldSampler = 0; // trilinear, clamp to edge, as the Vulkan renderer's
    uint32_t colormapSampler = 0;
    const Kit* kit = nullptr;
    uint32_t colormapRows = 0; // the kit's rows uploaded so far (later ones: at the next draw)
};

// Compiles the program on the current context and uploads the kit's colormaps. Throws runtimeError
// with the compiler's log, or naming a missing file.
GlFieldRenderer createGlFieldRenderer(const GlFieldDesc& desc);
void destroyGlFieldRenderer(GlFieldRenderer& renderer);

// Clears the bound draw framebuffer (of `target` pixels) to the background colour and draws
// `fieldTexture` (`field` texels) letterboxed into it, as recordDraw does.
void drawGlField(GlFieldRenderer& renderer, uint32_t fieldTexture, VkExtent2D field,
                 VkExtent2D target, const ViewParams& view);

// A headless colour target: an RGBA8 texture behind a framebuffer object.
struct GlTarget : MoveOnly {
    uint32_t framebuffer = 0;
    uint32_t texture = 0;
    VkExtent2D extent{};
};
GlTarget createGlTarget(VkExtent2D extent);
void destroyGlTarget(GlTarget& target);
// The target's pixels, RGBA8, rows top to bottom as the Vulkan readback has them. Waits for GL.
std::vector<uint8_t> readGlPixels(const GlTarget& target);
// The same for any framebuffer (0: a window's back buffer, before it is swapped).
std::vector<uint8_t> readGlFramebuffer(uint32_t framebuffer, VkExtent2D extent);

} // namespace estuary
