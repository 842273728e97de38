#include "gl_interop.h"
#include "errors.h"
#include "gl_context.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <unistd.h>

namespace estuary {
namespace {

// GL_NV_timeline_semaphore's tokens (Debian's libepoxy 1.5 predates the extension).
constexpr GLenum kSemaphoreTypeNV = 0x95B3;
constexpr GLint kSemaphoreTypeTimelineNV = 0x95B5;
constexpr GLenum kTimelineSemaphoreValueNV = 0x9595;

// The layout of every listed texture: GENERAL, the ring's layout between APIs. A fixed array, so
// the per-frame calls allocate nothing.
constexpr size_t kMaxTextures = 64;
const GLenum* generalLayouts(size_t count) {
    static const auto layouts = [] {
        std::array<GLenum, kMaxTextures> all{};
        all.fill(GL_LAYOUT_GENERAL_EXT);
        return all;
    }();
    if (count > kMaxTextures)
        throw runtimeError("a GL semaphore operation names " + std::to_string(count) +
                           " textures; at most " + std::to_string(kMaxTextures));
    return layouts.data();
}

} // namespace

const char* glErrorName(unsigned error) {
    switch (error) {
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default:
        return "GL error";
    }
}

// Errors still pending from earlier calls, dropped so that the next glGetError speaks of the next
// call only (an import's fd is closed by us only when that import itself failed).
void clearGlErrors() {
    for (int i = 0; i < 64 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

void throwIfGlError(const char* what) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    while (glGetError() != GL_NO_ERROR) {
    }
    throw runtimeError(std::string(what) + " failed: " + glErrorName(error));
}

uint32_t glInternalFormat(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R32_SFLOAT:
        return GL_R32F;
    case VK_FORMAT_R32G32_SFLOAT:
        return GL_RG32F;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return GL_RGBA32F;
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        return GL_RGBA16F;
    case VK_FORMAT_R8G8B8A8_UNORM:
        return GL_RGBA8;
    default:
        return 0;
    }
}

void readGlTexels(const GlImage& image, VkFormat format, uint32_t level, uint32_t x, uint32_t y,
                  uint32_t width, uint32_t height, void* destination, size_t bytes) {
    GLenum layout = GL_RGBA, type = GL_FLOAT;
    switch (format) {
    case VK_FORMAT_R32_SFLOAT:
        layout = GL_RED;
        break;
    case VK_FORMAT_R32G32_SFLOAT:
        layout = GL_RG;
        break;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        break;
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        type = GL_HALF_FLOAT;
        break;
    case VK_FORMAT_R8G8B8A8_UNORM:
        type = GL_UNSIGNED_BYTE;
        break;
    default:
        throw unsupported("readGlTexels: no OpenGL read for Vulkan format " +
                          std::to_string(int(format)));
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureSubImage(image.texture, GLint(level), GLint(x), GLint(y), 0, GLsizei(width),
                         GLsizei(height), 1, layout, type, GLsizei(bytes), destination);
    throwIfGlError("glGetTextureSubImage");
}

GlImage importGlImage(int fd, const GlImportedImageDesc& desc) {
    const GLenum internalFormat = glInternalFormat(desc.format);
    if (internalFormat == 0) {
        close(fd);
        throw unsupported("the OpenGL consumer cannot sample " + desc.name + " (VkFormat " +
                          std::to_string(int(desc.format)) +
                          "); allowed: R32, RG32, RGBA32 float, RGBA16 float, RGBA8 unorm");
    }
    GlImage image;
    image.extent = desc.extent;
    image.levels = desc.levels;
    clearGlErrors();
    glCreateMemoryObjectsEXT(1, &image.memory);
    const GLint dedicated = desc.dedicated ? GL_TRUE : GL_FALSE;
    glMemoryObjectParameterivEXT(image.memory, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        close(fd); // the import was not attempted
        glDeleteMemoryObjectsEXT(1, &image.memory);
        throw runtimeError("creating a GL memory object for " + desc.name +
                           " failed: " + glErrorName(error));
    }
    glImportMemoryFdEXT(image.memory, desc.allocationSize, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    if (const GLenum error = glGetError();
        error != GL_NO_ERROR || !glIsMemoryObjectEXT(image.memory)) {
        close(fd); // not taken: still ours
        glDeleteMemoryObjectsEXT(1, &image.memory);
        throw runtimeError("glImportMemoryFdEXT (" + desc.name + ", " +
                           std::to_string(desc.allocationSize) +
                           " bytes) failed: " + glErrorName(error));
    }
    glCreateTextures(GL_TEXTURE_2D, 1, &image.texture);
    glTextureParameteri(image.texture, GL_TEXTURE_TILING_EXT, GL_OPTIMAL_TILING_EXT);
    glTextureStorageMem2DEXT(image.texture, GLsizei(desc.levels), internalFormat,
                             GLsizei(desc.extent.width), GLsizei(desc.extent.height), image.memory,
                             0);
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        destroyGlImage(image);
        throw runtimeError("glTextureStorageMem2DEXT (" + desc.name + ", " +
                           std::to_string(desc.extent.width) + "x" +
                           std::to_string(desc.extent.height) + ", " + std::to_string(desc.levels) +
                           " levels) failed: " + glErrorName(error));
    }
    glObjectLabel(GL_TEXTURE, image.texture, -1, desc.name.c_str());
    return image;
}

void destroyGlImage(GlImage& image) {
    // The framebuffers, then the texture they render into, then the memory object it holds.
    if (!image.levelFramebuffers.empty())
        glDeleteFramebuffers(GLsizei(image.levelFramebuffers.size()),
                             image.levelFramebuffers.data());
    if (image.texture) glDeleteTextures(1, &image.texture);
    if (image.memory) glDeleteMemoryObjectsEXT(1, &image.memory);
    image = GlImage{};
}

void prepareGlMips(GlImage& image, const std::string& name) {
    if (!image.levelFramebuffers.empty() || image.levels < 2) return;
    clearGlErrors();
    image.levelFramebuffers.resize(image.levels);
    glCreateFramebuffers(GLsizei(image.levels), image.levelFramebuffers.data());
    for (uint32_t level = 0; level < image.levels; ++level) {
        const GLuint framebuffer = image.levelFramebuffers[level];
        glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, image.texture, GLint(level));
        glNamedFramebufferReadBuffer(framebuffer, GL_COLOR_ATTACHMENT0);
        glNamedFramebufferDrawBuffer(framebuffer, GL_COLOR_ATTACHMENT0);
        const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
        const GLenum error = glGetError();
        if (status != GL_FRAMEBUFFER_COMPLETE || error != GL_NO_ERROR) {
            glDeleteFramebuffers(GLsizei(image.levels), image.levelFramebuffers.data());
            image.levelFramebuffers.clear();
            char hex[16];
            std::snprintf(hex, sizeof(hex), "0x%04x", status);
            throw unsupported(
                name +
                ": ESTUARY_IMAGE_GENERATE_MIPS with the OpenGL consumer "
                "needs OpenGL to render into each level, and level " +
                std::to_string(level) + " is not a complete framebuffer (status " + hex +
                (error != GL_NO_ERROR ? std::string(", ") + glErrorName(error) : std::string()) +
                "); write the mip levels yourself");
        }
    }
}

void generateGlMips(const GlImage& image) {
    const auto side = [](uint32_t size, uint32_t level) {
        return GLint(std::max(1u, size >> level));
    };
    if (image.levelFramebuffers.size() != image.levels && image.levels > 1)
        throw runtimeError("generateGlMips: the image's level framebuffers were not made "
                           "(prepareGlMips)");
    for (uint32_t level = 1; level < image.levels; ++level)
        glBlitNamedFramebuffer(image.levelFramebuffers[level - 1], image.levelFramebuffers[level],
                               0, 0, side(image.extent.width, level - 1),
                               side(image.extent.height, level - 1), 0, 0,
                               side(image.extent.width, level), side(image.extent.height, level),
                               GL_COLOR_BUFFER_BIT, GL_LINEAR);
}

GlSemaphore importGlSemaphore(const GlContext& context, int fd, bool timeline, const char* name) {
    const GlInfo& info = context.info;
    const char* missing = !info.semaphoreFd                     ? "GL_EXT_semaphore_fd"
                          : timeline && !info.timelineSemaphore ? "GL_NV_timeline_semaphore"
                                                                : nullptr;
    if (missing) {
        close(fd);
        throw unsupported(describeGl(info) + " lacks " + missing + " (needed to import " + name +
                          ")");
    }
    GlSemaphore semaphore;
    semaphore.timeline = timeline;
    clearGlErrors();
    if (timeline) {
        info.createSemaphoresNV(1, &semaphore.handle);
        info.semaphoreParameterivNV(semaphore.handle, kSemaphoreTypeNV, &kSemaphoreTypeTimelineNV);
    } else {
        glGenSemaphoresEXT(1, &semaphore.handle);
    }
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        close(fd); // the import was not attempted
        if (semaphore.handle) glDeleteSemaphoresEXT(1, &semaphore.handle);
        throw runtimeError(std::string("creating a GL semaphore for ") + name +
                           " failed: " + glErrorName(error));
    }
    glImportSemaphoreFdEXT(semaphore.handle, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        close(fd);
        glDeleteSemaphoresEXT(1, &semaphore.handle);
        throw runtimeError(std::string("glImportSemaphoreFdEXT (") + name +
                           ") failed: " + glErrorName(error));
    }
    return semaphore;
}

void destroyGlSemaphore(GlSemaphore& semaphore) {
    if (semaphore.handle) glDeleteSemaphoresEXT(1, &semaphore.handle);
    semaphore = GlSemaphore{};
}

void glWaitSemaphore(const GlSemaphore& semaphore, uint64_t value,
                     std::span<const uint32_t> textures) {
    if (semaphore.timeline)
        glSemaphoreParameterui64vEXT(semaphore.handle, kTimelineSemaphoreValueNV, &value);
    glWaitSemaphoreEXT(semaphore.handle, 0, nullptr, GLuint(textures.size()), textures.data(),
                       generalLayouts(textures.size()));
}

void glSignalSemaphore(const GlSemaphore& semaphore, uint64_t value,
                       std::span<const uint32_t> textures) {
    if (semaphore.timeline)
        glSemaphoreParameterui64vEXT(semaphore.handle, kTimelineSemaphoreValueNV, &value);
    glSignalSemaphoreEXT(semaphore.handle, 0, nullptr, GLuint(textures.size()), textures.data(),
                         generalLayouts(textures.size()));
    glFlush();
}

} // namespace estuary
