// Serving the live picture to browsers (estuary_serve_start / estuary_serve_stop; estuary.h has
// the contract). Three threads meet here: the frame loop copies each picture out (picture_tap.h)
// and, once the frame is drawn, hands it to the encoder thread only when that thread is idle, or
// drops it; the encoder sends what it made to the network thread (net.h), which drops it for each
// page still taking the previous one. The page's input comes back from the network thread as
// estuary_events, taken by the loop at the next poll (deliverInjected). Nothing here makes the
// loop wait.
#pragma once

#include "estuary/estuary.h"

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <memory>

struct estuary_viewer;

namespace estuary::lib {

struct Server;
struct ServerDeleter {
    void operator()(Server* server) const noexcept;
};
using ServerPtr = std::unique_ptr<Server, ServerDeleter>;

// Throws a usage error naming a bad field, unsupported for an OpenGL viewer, a runtime error when
// the address cannot be bound. Prints nothing: the caller shows estuary_serve_info.url.
void startServing(estuary_viewer& v, const estuary_serve_desc& desc);
// Between frames: closes the pages (1001), joins the threads, frees the copies' buffers.
void stopServing(estuary_viewer& v);
estuary_serve_info serveInfo(estuary_viewer& v);
// In a frame's draw, after the picture is complete (TRANSFER_SRC_OPTIMAL): its copy, when serving.
void servePictureCopy(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint64_t frame,
                      VkImage image, VkExtent2D extent);
// In a frame's submission: NVENC's signal that its picture was copied (true: add `signal`).
bool servedSignal(const estuary_viewer& v, uint64_t frame, VkSemaphoreSubmitInfo& signal);
// Once frame `frame` is submitted: its picture, copied for NVENC, to the encoder thread.
void servedFrameSubmitted(estuary_viewer& v, uint64_t frame);
// Once frame `frame` is drawn: its picture to the encoder, if idle and a page watches.
void collectServedPicture(estuary_viewer& v, uint64_t frame);
// At each poll: the steering page's events join v.injected; its pick readout is sent back.
void takeServedInput(estuary_viewer& v);
// At a frame's begin, headless: the picture at the steering page's size, once it has held (the
// page's "resize"; a window keeps its own size).
void applyServedSize(estuary_viewer& v);
// The viewer's destruction.
void closeServer(estuary_viewer& v) noexcept;

} // namespace estuary::lib
