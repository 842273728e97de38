// The OpenGL consumer in a session (--consumer opengl): Vulkan still allocates and exports the
// ring, the simulation still writes it; OpenGL imports every slot's images and the hand-off
// semaphores and draws instead of the Vulkan renderer. frame.h's functions call these when the
// session has an OpenGL consumer. A frame, in order:
//   wait (host: the frame that last used this ring entry is drawn, a GL fence) → simulate →
//   hand-off in (GL waits `written` ≥ f + 1 / the slot's binary semaphore / host waits) →
//   draw the slot's image → hand-off out (GL signals `released` = f + 1 / the slot's binary
//   semaphore / the host signals after GL finished) → fence.
// Backends that produce on the host (cpu, host-copy) upload with a Vulkan submission the host waits
// for; there is no GPU producer to signal, so their hand-off is always the host's.
#pragma once

#include "gl_context.h"
#include "session.h"

#include <cstdint>
#include <vector>

namespace estuary {

// After the Vulkan device exists, before the backend: the GL context (`window`: the current one
// a window made, loaded through `getProc`; otherwise a headless EGL one), checked against the
// Vulkan device, and the hand-off resolved (Session::glHandoff). Throws unsupported() (exit 3)
// when OpenGL cannot import from this device or lacks what --gl-handoff asked for.
void openGlConsumer(Session& session, bool window, GlGetProc getProc);
// After the backend: every slot's images (and semaphores) imported, the view's program built.
void openGlRenderer(Session& session);
// Before the backend goes (no frame in flight): the imports and the program.
void closeGlRenderer(Session& session);
// At close, once nothing is in flight: the context.
void closeGlConsumer(Session& session);

// frame.h's three, for the OpenGL consumer. `framebuffer`: the GL framebuffer drawn into (0: the
// window's); `inspect` (tests): called after the hand-off in (afterDraw false) and after the
// draw, before the hand-off out, with the texture of the slot's displayed image.
void drawFrameGl(
    Session& session, uint64_t frame, uint32_t framebuffer, VkExtent2D extent,
    const std::function<void(uint32_t texture, uint32_t slot, bool afterDraw)>& inspect);
void waitFrameDrawnGl(Session& session, uint64_t frame);
void finishFramesGl(Session& session);
// Whether every frame drawn so far has finished on the GPU, waiting up to `timeoutNs`.
bool glFramesDrawn(Session& session, uint64_t timeoutNs);

// "OpenGL: llvmpipe (...), hand-off host (OpenGL has no GL_EXT_semaphore_fd)": for the run's log.
std::string describeGlConsumer(const Session& session);
uint32_t glDebugMessages(const Session& session);

} // namespace estuary
