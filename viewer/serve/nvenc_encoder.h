// The served stream's H.264 by NVENC straight from GPU memory, with no FFmpeg. The frame's draw
// copies its picture into an exportable Vulkan buffer (the encoder's one input) that CUDA imports
// and NVENC reads as an ABGR/ARGB CUDA device pointer (NVENC converts the colour). Order is kept on
// the GPU: each frame's submission signals the encoder's own exported timeline (frame + 1), and
// the encoder's CUDA stream waits for that value before NVENC reads; the frame loop never waits
// (the encoder thread does, bounded, to time NVENC alone). libnvidia-encode.so.1 is loaded at run
// time (dlopen): where it, CUDA or an NVENC-capable device is missing, openNvenc says why and the
// server falls back to FFmpeg or JPEG. Low latency: preset P2, ultra-low-latency tuning, no
// B-frames, an infinite GOP with an IDR (and SPS/PPS) on request. Who calls it: serve.cpp; the
// loop thread copies and signals, the encoder thread encodes.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <memory>
#include <string>

struct estuary_viewer;

namespace estuary::lib {

struct NvencEncoder;
struct NvencDeleter {
    void operator()(NvencEncoder* encoder) const noexcept;
};
using NvencPtr = std::unique_ptr<NvencEncoder, NvencDeleter>;

// "" when libnvidia-encode.so.1 loads and offers the API this build was compiled against; else
// why not ("libnvidia-encode.so.1 did not load: ..."; "built without CUDA"). No device is touched.
std::string nvencLibraryProblem();

// On the viewer's CUDA device, for pictures of `extent` (`bgra`: the picture's bytes are B, G, R,
// A). Null with `why` set when NVENC cannot encode here.
NvencPtr openNvenc(estuary_viewer& v, VkExtent2D extent, bool bgra, std::string& why);
// "nvenc (CUDA input)"; "nvenc (CUDA input, copied)" where NVENC refused the memory imported from
// Vulkan and reads a device-to-device copy of it.
const char* nvencName(const NvencEncoder& e);
VkExtent2D nvencExtent(const NvencEncoder& e);

// Loop thread, in a frame's draw after the picture is complete (TRANSFER_SRC_OPTIMAL): copies it
// into the encoder's input. Only while the encoder does not read that input (serve.cpp's hand-off).
void recordNvencCopy(estuary_viewer& v, NvencEncoder& e, VkCommandBuffer cmd, VkImage image);
// Loop thread: every served frame's submission signals this (frame + 1, after all its commands).
VkSemaphoreSubmitInfo nvencSignal(const NvencEncoder& e, uint64_t frame);

// Encoder thread, once frame `frame` is submitted: the encoder's stream waits for its copy (and,
// so that the encode time measured after is NVENC's alone, the thread too), then, with `stamp`,
// draws the frame's stamp (stamp.h) into the input. False with `error`.
bool nvencWaitCopied(NvencEncoder& e, uint64_t frame, bool stamp, std::string& error);
// Encoder thread, then: encodes the input (an IDR with SPS and PPS when `idr`); the access unit
// (Annex B) is appended to `out`, `key` says whether it is an IDR. False with `error` on failure.
bool nvencEncode(NvencEncoder& e, bool idr, std::string& out, bool& key, std::string& error);

} // namespace estuary::lib
