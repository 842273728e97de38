#include "gl_context.h"
#include "errors.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <cstdio>
#include <cstring>
#include <string_view>

namespace estuary {
namespace {

// GL_NV_timeline_semaphore's entry points, loaded by name (Debian's libepoxy 1.5 predates it).
using CreateSemaphoresNV = void (*)(int, unsigned*);
using SemaphoreParameterivNV = void (*)(unsigned, unsigned, const int*);

bool hasGlExtension(std::string_view name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const auto* ext = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
        if (ext && name == ext) return true;
    }
    return false;
}

std::string glString(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s ? s : "";
}

// Errors and undefined behaviour, and anything the driver calls high severity, count as failures;
// performance hints and notifications (NVIDIA sends many) do not.
void GLAPIENTRY onGlDebugMessage(GLenum, GLenum type, GLuint, GLenum severity, GLsizei,
                                 const GLchar* message, const void* user) {
    const bool failure = type == GL_DEBUG_TYPE_ERROR || type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR ||
                         severity == GL_DEBUG_SEVERITY_HIGH;
    if (!failure) return;
    auto* log = const_cast<GlDebugLog*>(static_cast<const GlDebugLog*>(user));
    log->count.fetch_add(1);
    std::fprintf(stderr, "estuary: OpenGL debug output: %s\n", message);
    const std::lock_guard lock(log->mutex);
    if (log->firstMessages.size() < 8) log->firstMessages.emplace_back(message);
}

void enableDebugOutput(GlContext& context) {
    context.debug = new GlDebugLog;
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS); // the message arrives inside the call that caused it
    glDebugMessageCallback(onGlDebugMessage, context.debug);
}

const char* eglErrorName(EGLint error) {
    switch (error) {
    case EGL_SUCCESS:
        return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
        return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
        return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
        return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
        return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
        return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
        return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
        return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
        return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
        return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
        return "EGL_BAD_SURFACE";
    default:
        return "EGL error";
    }
}

struct Candidate {
    EGLDisplay display = EGL_NO_DISPLAY;
    std::string platform;
};

// Every display worth trying, best first: each EGL device (the NVIDIA driver's way to a headless
// GPU), Mesa's surfaceless platform, the default display.
std::vector<Candidate> candidateDisplays() {
    std::vector<Candidate> out;
    const char* clientExts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    const std::string_view exts = clientExts ? clientExts : "";
    if (exts.find("EGL_EXT_device_enumeration") != std::string_view::npos &&
        exts.find("EGL_EXT_platform_device") != std::string_view::npos) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (eglQueryDevicesEXT(16, devices, &count))
            for (EGLint i = 0; i < count; ++i)
                if (EGLDisplay d =
                        eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr))
                    out.push_back({d, "EGL device " + std::to_string(i)});
    }
    if (exts.find("EGL_MESA_platform_surfaceless") != std::string_view::npos)
        if (EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
                                                    EGL_DEFAULT_DISPLAY, nullptr))
            out.push_back({d, "EGL surfaceless"});
    if (EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY)) out.push_back({d, "EGL default"});
    return out;
}

// A GL 4.5 core context on `display`, current; the reason in `why` when there is none.
bool makeContext(EGLDisplay display, bool debug, GlContext& out, std::string& why) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
        why = std::string("eglInitialize: ") + eglErrorName(eglGetError());
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        why = "no desktop OpenGL on this display";
        eglTerminate(display);
        return false;
    }
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE,
                                    EGL_PBUFFER_BIT,
                                    EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,
                                    8,
                                    EGL_GREEN_SIZE,
                                    8,
                                    EGL_BLUE_SIZE,
                                    8,
                                    EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, configAttribs, &config, 1, &configs) || configs == 0) {
        why = "no pbuffer-capable OpenGL config";
        eglTerminate(display);
        return false;
    }
    const EGLint contextAttribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                     4,
                                     EGL_CONTEXT_MINOR_VERSION,
                                     5,
                                     EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                     EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                     EGL_CONTEXT_OPENGL_DEBUG,
                                     debug ? EGL_TRUE : EGL_FALSE,
                                     EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttribs);
    if (context == EGL_NO_CONTEXT) {
        why = std::string("no OpenGL 4.5 core context (") + eglErrorName(eglGetError()) + ")";
        eglTerminate(display);
        return false;
    }
    // Drawing goes to framebuffer objects; a surface is only needed where contexts cannot be
    // current without one.
    EGLSurface surface = EGL_NO_SURFACE;
    if (!epoxy_has_egl_extension(display, "EGL_KHR_surfaceless_context")) {
        const EGLint pbufferAttribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        surface = eglCreatePbufferSurface(display, config, pbufferAttribs);
    }
    if (!eglMakeCurrent(display, surface, surface, context)) {
        why = std::string("eglMakeCurrent: ") + eglErrorName(eglGetError());
        if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
        eglDestroyContext(display, context);
        eglTerminate(display);
        return false;
    }
    out.display = display;
    out.context = context;
    out.surface = surface;
    return true;
}

std::string hex(const GlUuid& uuid) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (uint8_t b : uuid) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

GlProc eglProc(const char* name) {
    return reinterpret_cast<GlProc>(eglGetProcAddress(name));
}

} // namespace

GlInfo queryGlInfo(GlGetProc getProc) {
    GlInfo info;
    info.vendor = glString(GL_VENDOR);
    info.renderer = glString(GL_RENDERER);
    info.version = glString(GL_VERSION);
    info.memoryObjectFd =
        hasGlExtension("GL_EXT_memory_object") && hasGlExtension("GL_EXT_memory_object_fd");
    info.semaphoreFd = hasGlExtension("GL_EXT_semaphore") && hasGlExtension("GL_EXT_semaphore_fd");
    info.timelineSemaphore = info.semaphoreFd && hasGlExtension("GL_NV_timeline_semaphore");
    if (info.memoryObjectFd || info.semaphoreFd) {
        glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, info.driverUuid.data());
        GLint devices = 0;
        glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &devices);
        info.deviceUuids.resize(size_t(std::max(devices, 0)));
        for (GLint i = 0; i < devices; ++i)
            glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, GLuint(i), info.deviceUuids[i].data());
    }
    if (info.timelineSemaphore) {
        info.createSemaphoresNV =
            reinterpret_cast<CreateSemaphoresNV>(getProc("glCreateSemaphoresNV"));
        info.semaphoreParameterivNV =
            reinterpret_cast<SemaphoreParameterivNV>(getProc("glSemaphoreParameterivNV"));
        info.timelineSemaphore = info.createSemaphoresNV && info.semaphoreParameterivNV;
    }
    while (glGetError() != GL_NO_ERROR) {
    } // a query the driver does not know leaves an error; the flags above already say so
    return info;
}

std::string glDeviceMismatch(const GlInfo& info, const GlUuid& deviceUuid,
                             const GlUuid& driverUuid) {
    if (!info.memoryObjectFd)
        return "OpenGL lacks GL_EXT_memory_object_fd (it cannot import Vulkan's memory)";
    bool sameDevice = false;
    for (const GlUuid& uuid : info.deviceUuids)
        sameDevice = sameDevice || uuid == deviceUuid;
    if (!sameDevice) {
        std::string seen;
        for (const GlUuid& uuid : info.deviceUuids)
            seen += (seen.empty() ? "" : ", ") + hex(uuid);
        return "OpenGL runs on another device (GL device UUIDs " +
               (seen.empty() ? std::string("none") : seen) + ", Vulkan's " + hex(deviceUuid) + ")";
    }
    if (info.driverUuid != driverUuid)
        return "OpenGL and Vulkan are different drivers (GL driver UUID " + hex(info.driverUuid) +
               ", Vulkan's " + hex(driverUuid) + "): memory cannot be shared between them";
    return {};
}

std::string describeGl(const GlInfo& info) {
    return info.renderer + ", OpenGL " + info.version + ", " + info.platform;
}

GlContext createHeadlessGlContext(const GlUuid& deviceUuid, const GlUuid& driverUuid, bool debug) {
    std::string tried;
    for (const Candidate& candidate : candidateDisplays()) {
        GlContext context;
        std::string why;
        if (makeContext(candidate.display, debug, context, why)) {
            context.info = queryGlInfo(eglProc);
            context.info.platform = candidate.platform;
            why = glDeviceMismatch(context.info, deviceUuid, driverUuid);
            if (why.empty()) {
                if (debug) enableDebugOutput(context);
                return context;
            }
            why = describeGl(context.info) + ": " + why;
            destroyGlContext(context);
        }
        tried += "\n  " + candidate.platform + ": " + why;
    }
    throw unsupported("no OpenGL context can import this Vulkan device's memory; tried:" +
                      (tried.empty() ? std::string("\n  no EGL display at all") : tried));
}

GlContext adoptCurrentGlContext(GlGetProc getProc, const char* platform, const GlUuid& deviceUuid,
                                const GlUuid& driverUuid, bool debug) {
    GlContext context;
    context.info = queryGlInfo(getProc);
    context.info.platform = platform;
    if (const std::string why = glDeviceMismatch(context.info, deviceUuid, driverUuid);
        !why.empty())
        throw unsupported(describeGl(context.info) + ": " + why);
    if (debug) enableDebugOutput(context);
    return context;
}

void destroyGlContext(GlContext& context) {
    if (context.debug) glDebugMessageCallback(nullptr, nullptr); // the context is still current
    if (context.display) {
        auto display = static_cast<EGLDisplay>(context.display);
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context.surface) eglDestroySurface(display, static_cast<EGLSurface>(context.surface));
        if (context.context) eglDestroyContext(display, static_cast<EGLContext>(context.context));
        eglTerminate(display);
    }
    delete context.debug;
    context = GlContext{};
}

uint32_t glDebugMessageCount(const GlContext& context) {
    return context.debug ? context.debug->count.load() : 0;
}

} // namespace estuary
