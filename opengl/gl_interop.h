// Vulkan-exported objects seen by OpenGL: memory imported as a memory object and bound to a texture
// with the image's full mip chain (GL_EXT_memory_object_fd), and semaphores imported for GPU-side
// waits and signals (GL_EXT_semaphore_fd; timelines with GL_NV_timeline_semaphore). The GL twin of
// estuary/interop/cuda_import.h.
//
// fd ownership as the extensions say: a successful import owns the fd; on failure it is still ours
// and is closed here. The texture's format, extent, levels and tiling must be those of the Vulkan
// image (Vulkan's optimal tiling is GL_OPTIMAL_TILING_EXT). Between the APIs the images are in
// VK_IMAGE_LAYOUT_GENERAL (GL_LAYOUT_GENERAL_EXT), the layout in which CUDA writes them: a wait
// names that layout as the source, a signal as the destination, so every API sees them the same.
#pragma once

#include "context.h" // MoveOnly, VkFormat

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace estuary {

struct GlContext;

// The GL sized internal format of a Vulkan format the renderer samples (R32F, RG32F, RGBA32F,
// RGBA16F, RGBA8); 0 for any other.
uint32_t glInternalFormat(VkFormat format);

struct GlImportedImageDesc {
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    uint32_t levels = 1;
    uint64_t allocationSize = 0; // of the whole Vulkan memory object
    bool dedicated = false;      // the Vulkan memory was a dedicated allocation
    std::string name;            // for messages and the debug label
};

struct GlImage : MoveOnly {
    uint32_t memory = 0;  // memory object (0: storage GL allocated itself)
    uint32_t texture = 0; // GL_TEXTURE_2D over it, all levels
    VkExtent2D extent{};
    uint32_t levels = 0;
    std::vector<uint32_t> levelFramebuffers; // one per level, made by prepareGlMips
};

// Takes `fd` (see above). Throws unsupported() for a format GL has no match for, runtimeError
// naming the GL error when the driver refuses the import.
GlImage importGlImage(int fd, const GlImportedImageDesc& desc);
void destroyGlImage(GlImage& image);

// Makes `image` ready for generateGlMips: a framebuffer over each of its levels. Throws
// unsupported() naming `name` and the level when the driver cannot render into one.
void prepareGlMips(GlImage& image, const std::string& name);
// Levels 1.. of `image` from level 0, each a linear blit of the one above: the 2x2 means of even
// sizes, and at odd sizes the same weights as the Vulkan side's vkCmdBlitImage (VK_FILTER_LINEAR),
// which samples at the same scaled texel centres. A GL command like any other: later GL commands
// (the draw, reads, a semaphore signal) see its result. Needs prepareGlMips first.
void generateGlMips(const GlImage& image);
// Copies texels [x, x + width) x [y, y + height) of `level` of the image, tightly packed in its
// own format, to `destination` (`bytes` long). A GL command like any other: it sees what the GL
// commands before it left, and returns once it has.
void readGlTexels(const GlImage& image, VkFormat format, uint32_t level, uint32_t x, uint32_t y,
                  uint32_t width, uint32_t height, void* destination, size_t bytes);

struct GlSemaphore : MoveOnly {
    uint32_t handle = 0;
    bool timeline = false;
};

// A Vulkan semaphore exported as an opaque fd: a timeline (needs GL_NV_timeline_semaphore) or a
// binary one. Takes `fd`. Throws unsupported() naming the missing extension.
GlSemaphore importGlSemaphore(const GlContext& context, int fd, bool timeline, const char* name);
void destroyGlSemaphore(GlSemaphore& semaphore);

// Queued in the GL command stream: later GL commands wait until the semaphore is signalled (a
// timeline: reaches `value`); `textures` are the images they read, in GENERAL layout until then.
void glWaitSemaphore(const GlSemaphore& semaphore, uint64_t value,
                     std::span<const uint32_t> textures);
// Signals after the GL commands before it (a timeline: to `value`), leaving `textures` in GENERAL.
// Flushes, so the signal reaches the GPU without another GL call.
void glSignalSemaphore(const GlSemaphore& semaphore, uint64_t value,
                       std::span<const uint32_t> textures);

// Throws runtimeError("<what>: GL_INVALID_OPERATION ...") when GL has recorded an error.
// "GL_INVALID_OPERATION", ...
const char* glErrorName(unsigned error); // a GLenum
void throwIfGlError(const char* what);

} // namespace estuary
