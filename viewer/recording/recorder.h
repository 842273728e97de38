// Recording the picture to a video file (estuary_record_start / estuary_record_stop). Each frame's
// draw also copies the picture into a host-visible buffer of the recorder's picture tap; when the
// frame is known drawn (the host waits for its ring entry anyway before reusing it), the buffer
// itself is queued for a worker thread, which encodes straight from it through
// libestuary_video.so (video/video_module.h; BGRA targets converted by its swscale, no swizzle),
// loaded on the first recording, and hands the buffer back. The frame loop touches no pixel: its
// cost per frame is the copy's command and a queue push. It waits for the encoder only when the
// tap's buffers beyond the frames in flight (kQueueFrames) are all queued. The file is
// written beside its name ("<path>.part"; beside a symbolic link's target, which is the file
// replaced) and renamed when the recording stops. The path gets the checks of estuary's other
// outputs (output_file.h: no folder, FIFO, device or write-protected file). The first write error
// (a full disk, a file-size limit) ends the recording: its temporary file is deleted at once, the
// target keeps its previous file, the loop logs it once and estuary_record_stop returns it.
#pragma once

#include "estuary/estuary.h"
#include "picture_tap.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct estuary_viewer;
struct EstuaryVideoApi;

namespace estuary::lib {

struct Recorder {
    Recorder() = default;
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;
    // Stops the worker and deletes an unfinished file (stopRecording finishes it first).
    ~Recorder();

    const EstuaryVideoApi* api = nullptr;
    void* video = nullptr;
    std::string path, encoder;
    uint32_t width = 0, height = 0;
    bool bgra = false; // the target's bytes are B, G, R, A
    // The worker's queue of pictures (the tap's buffers it holds), and what it found.
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<const PictureTap::Staged*> queue;
    bool closing = false;
    std::string failure; // the first encoding error; later pictures are dropped
    bool failureReported = false;
    std::thread worker;
    // ESTUARY_FAULT_ENCODE_DELAY_MS: the worker holds each picture this long before encoding it,
    // so that tests can make the encoder fall behind the loop and see the loop wait.
    uint32_t encodeDelayMs = 0;
    // Counts, for estuary_record_info and the stop's log line. encodeMs: the worker's time per
    // picture (conversion and encoder), whose mean says whether it keeps up with a frame rate.
    uint64_t framesQueued = 0, framesWritten = 0;
    double copyMs = 0, encodeMs = 0, encodeMaxMs = 0;
    PictureTap tap; // each frame's picture, copied out by its draw
};

// libestuary_video.so, loaded once (beside libestuary, else wherever the loader looks); throws an
// unsupported-environment error naming what did not load. The server's H.264 uses it too.
const EstuaryVideoApi* loadVideoModule();
// Starts a recording (throws a usage error or an unsupported-environment error naming the cause).
void startRecording(estuary_viewer& v, const estuary_record_desc& desc);
// Waits for the frames in flight, encodes what is queued, finishes and renames the file.
void stopRecording(estuary_viewer& v, estuary_record_info* info);
// In a frame's draw, after the picture is complete: copies `image` (TRANSFER_SRC_OPTIMAL,
// `extent`) into the entry's recording buffer, when a recording runs.
void recordPictureCopy(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint64_t frame,
                       VkImage image, VkExtent2D extent);
// Once frame `frame` is drawn: queues its picture for the encoder, if it has one.
void collectRecordedPicture(estuary_viewer& v, uint64_t frame);
// The viewer's destruction: a recording still running is finished.
void closeRecorder(estuary_viewer& v) noexcept;

} // namespace estuary::lib
