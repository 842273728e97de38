// NVENC from GPU memory for the served stream (nvenc_encoder.h has the design).
#include "nvenc_encoder.h"
#include "cuda_check.h"
#include "errors.h"
#include "stamp.h"
#include "viewer.h"

#include "estuary/interop/cuda_import.h"
#include "estuary/interop/exported.h"
#include "estuary/interop/frame_timelines.h"

#include <ffnvcodec/nvEncodeAPI.h>

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <mutex>

namespace estuary::lib {

namespace {

constexpr const char* kLibrary = "libnvidia-encode.so.1";
constexpr uint32_t kBitrate = 20'000'000; // bits a second at 1080p60: sharp text, a small queue
constexpr uint64_t kCopyWaitNs = 5'000'000'000; // a frame's copy, at most

// The library, loaded once and kept for the process (unloading a driver library is not safe
// while another thread may still be in it).
struct Library {
    NV_ENCODE_API_FUNCTION_LIST api{};
    std::string problem;
};

const Library& library() {
    static Library lib;
    static std::once_flag once;
    std::call_once(once, [] {
        void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* e = dlerror();
            lib.problem = std::string(kLibrary) + " did not load: " + (e ? e : "unknown error");
            return;
        }
        using MaxVersionFn = NVENCSTATUS(NVENCAPI*)(uint32_t*);
        using CreateFn = NVENCSTATUS(NVENCAPI*)(NV_ENCODE_API_FUNCTION_LIST*);
        auto maxVersion =
            reinterpret_cast<MaxVersionFn>(dlsym(handle, "NvEncodeAPIGetMaxSupportedVersion"));
        auto create = reinterpret_cast<CreateFn>(dlsym(handle, "NvEncodeAPICreateInstance"));
        uint32_t version = 0;
        if (!maxVersion || !create) {
            lib.problem = std::string(kLibrary) + " lacks NvEncodeAPICreateInstance";
            return;
        }
        // The driver's version is (major << 4) | minor; the header's (minor << 24) | major.
        const uint32_t built = (NVENCAPI_MAJOR_VERSION << 4) | NVENCAPI_MINOR_VERSION;
        if (maxVersion(&version) != NV_ENC_SUCCESS || version < built) {
            lib.problem = "the driver's NVENC API is " + std::to_string(version >> 4) + "." +
                          std::to_string(version & 15) + ", this build needs " +
                          std::to_string(NVENCAPI_MAJOR_VERSION) + "." +
                          std::to_string(NVENCAPI_MINOR_VERSION) + " or later";
            return;
        }
        lib.api.version = NV_ENCODE_API_FUNCTION_LIST_VER;
        if (create(&lib.api) != NV_ENC_SUCCESS || !lib.api.nvEncOpenEncodeSessionEx)
            lib.problem = std::string(kLibrary) + ": NvEncodeAPICreateInstance failed";
    });
    return lib;
}

// The CUDA context NVENC runs in: the runtime's primary one, read through the driver API (looked
// up here, so libestuary does not link libcuda).
void* currentCudaContext() {
    using GetFn = int (*)(void**);
    static GetFn get = [] {
        void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        return cuda ? reinterpret_cast<GetFn>(dlsym(cuda, "cuCtxGetCurrent")) : nullptr;
    }();
    void* context = nullptr;
    if (!get || get(&context) != 0) return nullptr;
    return context;
}

std::string nvencError(const NV_ENCODE_API_FUNCTION_LIST& api, void* session, NVENCSTATUS code,
                       const char* call) {
    std::string text =
        std::string(call) + " failed (NVENCSTATUS " + std::to_string(int(code)) + ")";
    if (session && api.nvEncGetLastErrorString) {
        const char* last = api.nvEncGetLastErrorString(session);
        if (last && *last) text += ": " + std::string(last);
    }
    return text;
}

} // namespace

struct NvencEncoder {
    estuary_viewer* viewer = nullptr;
    const NV_ENCODE_API_FUNCTION_LIST* api = nullptr;
    VkExtent2D extent{};
    bool bgra = false;
    int device = -1;
    void* session = nullptr;
    cudaStream_t stream = nullptr;
    interop::ExportedBuffer input;  // Vulkan writes the picture here
    interop::CudaBuffer cudaInput;  // the same memory, seen by CUDA
    interop::SharedTimeline copied; // signalled frame + 1 by each served frame's submission
    void* ownInput = nullptr;       // where NVENC refuses the imported memory: a copy (cudaMalloc)
    NV_ENC_REGISTERED_PTR registered = nullptr;
    std::string name = "nvenc (CUDA input)";
    NV_ENC_OUTPUT_PTR bitstream = nullptr;
    uint64_t encoded = 0;
    bool released = false; // the input was handed to CUDA once (loop thread only)

    void release() noexcept {
        if (device >= 0) (void)cudaSetDevice(device);
        if (stream) (void)interop::cudaStreamSettled(stream, kCopyWaitNs);
        if (session) {
            if (bitstream) api->nvEncDestroyBitstreamBuffer(session, bitstream);
            if (registered) api->nvEncUnregisterResource(session, registered);
            api->nvEncDestroyEncoder(session);
        }
        if (stream) (void)cudaStreamDestroy(stream);
        if (ownInput) (void)cudaFree(ownInput);
        interop::destroyCudaBuffer(cudaInput);
        interop::destroySharedTimeline(viewer->interop, copied);
        interop::destroyExportedBuffer(viewer->interop, input);
        session = nullptr;
        stream = nullptr;
    }
};

void NvencDeleter::operator()(NvencEncoder* encoder) const noexcept {
    if (!encoder) return;
    encoder->release();
    delete encoder;
}

std::string nvencLibraryProblem() {
    return library().problem;
}

const char* nvencName(const NvencEncoder& e) {
    return e.name.c_str();
}

VkExtent2D nvencExtent(const NvencEncoder& e) {
    return e.extent;
}

namespace {

NVENCSTATUS registerInput(NvencEncoder& e, void* pointer) {
    NV_ENC_REGISTER_RESOURCE reg{};
    reg.version = NV_ENC_REGISTER_RESOURCE_VER;
    reg.resourceType = NV_ENC_INPUT_RESOURCE_TYPE_CUDADEVICEPTR;
    reg.width = e.extent.width;
    reg.height = e.extent.height;
    reg.pitch = e.extent.width * 4;
    reg.resourceToRegister = pointer;
    // Word-ordered formats: bytes R, G, B, A are ABGR (R in the lowest 8 bits); B, G, R, A ARGB.
    reg.bufferFormat = e.bgra ? NV_ENC_BUFFER_FORMAT_ARGB : NV_ENC_BUFFER_FORMAT_ABGR;
    reg.bufferUsage = NV_ENC_INPUT_IMAGE;
    const NVENCSTATUS r = e.api->nvEncRegisterResource(e.session, &reg);
    if (r == NV_ENC_SUCCESS) e.registered = reg.registeredResource;
    return r;
}

// The session, its low-latency configuration, the output buffer and the registered input.
std::string openSession(NvencEncoder& e) {
    const NV_ENCODE_API_FUNCTION_LIST& api = *e.api;
    CUDA_CHECK(cudaSetDevice(e.device));
    CUDA_CHECK(cudaFree(nullptr)); // the primary context, current on this thread
    void* context = currentCudaContext();
    if (!context) return "the CUDA driver's current context could not be read";
    NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS open{};
    open.version = NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER;
    open.deviceType = NV_ENC_DEVICE_TYPE_CUDA;
    open.device = context;
    open.apiVersion = NVENCAPI_VERSION;
    NVENCSTATUS r = api.nvEncOpenEncodeSessionEx(&open, &e.session);
    if (r != NV_ENC_SUCCESS) {
        // NVENC's API asks for nvEncDestroyEncoder after a failed open too: release() does it
        // for whatever handle came back.
        // Measured on an H100 and an H200 (driver 580): NV_ENC_ERR_UNSUPPORTED_DEVICE, as those
        // data-centre GPUs (like the A100) carry NVDEC and JPEG decoders but no video encoder.
        return nvencError(api, nullptr, r, "nvEncOpenEncodeSessionEx") +
               (r == NV_ENC_ERR_UNSUPPORTED_DEVICE || r == NV_ENC_ERR_NO_ENCODE_DEVICE
                    ? std::string(" (this GPU has no NVENC encoder: data-centre GPUs such as the "
                                  "A100, H100 and H200 have none)")
                    : std::string(" (no NVENC on this device, or its sessions are all taken)"));
    }
    NV_ENC_PRESET_CONFIG preset{};
    preset.version = NV_ENC_PRESET_CONFIG_VER;
    preset.presetCfg.version = NV_ENC_CONFIG_VER;
    r = api.nvEncGetEncodePresetConfigEx(e.session, NV_ENC_CODEC_H264_GUID, NV_ENC_PRESET_P2_GUID,
                                         NV_ENC_TUNING_INFO_ULTRA_LOW_LATENCY, &preset);
    if (r != NV_ENC_SUCCESS) return nvencError(api, e.session, r, "nvEncGetEncodePresetConfigEx");
    NV_ENC_CONFIG config = preset.presetCfg;
    // Constrained baseline, as the page declares to WebCodecs (avc1.42E034) and FFmpeg's path
    // sends: every decoder a page may get takes it.
    config.profileGUID = NV_ENC_H264_PROFILE_BASELINE_GUID;
    config.gopLength = NVENC_INFINITE_GOPLENGTH; // IDRs only when a page needs one
    config.frameIntervalP = 1;                   // no B-frames: nothing waits for a later picture
    config.rcParams.rateControlMode = NV_ENC_PARAMS_RC_CBR;
    config.rcParams.averageBitRate = kBitrate;
    config.rcParams.maxBitRate = kBitrate;
    // One frame's worth of VBV: a frame leaves as soon as it is encoded, at a steady size.
    config.rcParams.vbvBufferSize = kBitrate / 60;
    config.rcParams.vbvInitialDelay = kBitrate / 60;
    NV_ENC_CONFIG_H264& h264 = config.encodeCodecConfig.h264Config;
    h264.idrPeriod = NVENC_INFINITE_GOPLENGTH;
    h264.repeatSPSPPS = 1; // every IDR carries SPS and PPS: a page may join at any IDR
    h264.chromaFormatIDC = 1;

    NV_ENC_INITIALIZE_PARAMS init{};
    init.version = NV_ENC_INITIALIZE_PARAMS_VER;
    init.encodeGUID = NV_ENC_CODEC_H264_GUID;
    init.presetGUID = NV_ENC_PRESET_P2_GUID;
    init.tuningInfo = NV_ENC_TUNING_INFO_ULTRA_LOW_LATENCY;
    init.encodeWidth = init.darWidth = init.maxEncodeWidth = e.extent.width;
    init.encodeHeight = init.darHeight = init.maxEncodeHeight = e.extent.height;
    init.frameRateNum = 60;
    init.frameRateDen = 1;
    init.enablePTD = 1;
    init.encodeConfig = &config;
    r = api.nvEncInitializeEncoder(e.session, &init);
    if (r != NV_ENC_SUCCESS) return nvencError(api, e.session, r, "nvEncInitializeEncoder");

    CUDA_CHECK(cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking));
    r = api.nvEncSetIOCudaStreams(e.session, reinterpret_cast<NV_ENC_CUSTREAM_PTR>(&e.stream),
                                  reinterpret_cast<NV_ENC_CUSTREAM_PTR>(&e.stream));
    if (r != NV_ENC_SUCCESS) return nvencError(api, e.session, r, "nvEncSetIOCudaStreams");

    NV_ENC_CREATE_BITSTREAM_BUFFER out{};
    out.version = NV_ENC_CREATE_BITSTREAM_BUFFER_VER;
    r = api.nvEncCreateBitstreamBuffer(e.session, &out);
    if (r != NV_ENC_SUCCESS) return nvencError(api, e.session, r, "nvEncCreateBitstreamBuffer");
    e.bitstream = out.bitstreamBuffer;

    r = registerInput(e, e.cudaInput.pointer);
    if (r == NV_ENC_SUCCESS) return "";
    // NVENC's documentation speaks of cuMemAlloc'd pointers; should a driver refuse memory
    // imported from Vulkan, NVENC reads a copy of it in CUDA's own memory instead (one
    // device-to-device copy on the encoder's stream, microseconds at 1080p).
    const std::string imported = nvencError(api, e.session, r, "nvEncRegisterResource");
    CUDA_CHECK(cudaMalloc(&e.ownInput, e.cudaInput.size));
    r = registerInput(e, e.ownInput);
    if (r != NV_ENC_SUCCESS)
        return imported + "; of CUDA's own memory too: " +
               nvencError(api, e.session, r, "nvEncRegisterResource");
    e.name = "nvenc (CUDA input, copied)";
    return "";
}

} // namespace

NvencPtr openNvenc(estuary_viewer& v, VkExtent2D extent, bool bgra, std::string& why) {
    const Library& lib = library();
    if (!lib.problem.empty()) {
        why = lib.problem;
        return nullptr;
    }
    if (v.cudaDevice < 0) {
        why = "the viewer has no CUDA device (" + v.cudaChoice + ")";
        return nullptr;
    }
    if (extent.width == 0 || extent.height == 0 || extent.width % 2 || extent.height % 2) {
        why = "the picture is " + std::to_string(extent.width) + "x" +
              std::to_string(extent.height) + ": NVENC's 4:2:0 needs even, non-zero sides";
        return nullptr;
    }
    NvencPtr e(new NvencEncoder);
    e->viewer = &v;
    e->api = &lib.api;
    e->extent = extent;
    e->bgra = bgra;
    e->device = v.cudaDevice;
    int previous = -1;
    (void)cudaGetDevice(&previous);
    try {
        e->input = interop::createExportedBuffer(
            v.interop, VkDeviceSize(extent.width) * extent.height * 4,
            VK_BUFFER_USAGE_TRANSFER_DST_BIT, "served picture (NVENC input)");
        CUDA_CHECK(cudaSetDevice(e->device));
        e->cudaInput = interop::importBuffer(v.interop, e->input);
        e->copied = interop::createSharedTimeline(v.interop, "served picture copied");
        why = openSession(*e);
    } catch (const std::exception& ex) {
        why = ex.what();
    }
    if (previous >= 0) (void)cudaSetDevice(previous);
    if (!why.empty()) return nullptr; // the deleter releases what was made
    return e;
}

void recordNvencCopy(estuary_viewer& v, NvencEncoder& e, VkCommandBuffer cmd, VkImage image) {
    // The encoder's last read of the input ended before this frame claimed it (serve.cpp waits
    // for nvEncLockBitstream's return on the host), so the acquire waits for nothing on the GPU.
    // The first copy has nothing to acquire: Vulkan's queue family owns a new buffer.
    if (e.released)
        interop::recordAcquireFromExternal(cmd, v.interop, e.input, VK_PIPELINE_STAGE_2_COPY_BIT,
                                           VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                           VK_PIPELINE_STAGE_2_NONE);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {e.extent.width, e.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, e.input.buffer.handle,
                           1, &region);
    interop::recordReleaseToExternal(cmd, v.interop, e.input, VK_PIPELINE_STAGE_2_COPY_BIT,
                                     VK_ACCESS_2_TRANSFER_WRITE_BIT);
    e.released = true;
}

VkSemaphoreSubmitInfo nvencSignal(const NvencEncoder& e, uint64_t frame) {
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = e.copied.semaphore;
    signal.value = frame + 1;
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT; // after the copy and its release
    return signal;
}

namespace {

// The frame's stamp (stamp.h) into NVENC's input on its stream: a memset a block, white or black
// in all four bytes (NVENC ignores the alpha byte), after the picture's copy and before NVENC.
void recordStamp(NvencEncoder& e, uint64_t frame) {
    using namespace stamp;
    if (!stampFits(e.extent.width, e.extent.height)) return;
    auto* input = static_cast<uint8_t*>(e.ownInput ? e.ownInput : e.cudaInput.pointer);
    const size_t pitch = size_t(e.extent.width) * 4;
    const uint32_t code = stampCode(frame);
    for (uint32_t row = 0; row < kStampRows; ++row)
        for (uint32_t column = 0; column < kStampColumns; ++column)
            CUDA_CHECK(cudaMemset2DAsync(input + row * kStampBlock * pitch +
                                             size_t(column) * kStampBlock * 4,
                                         pitch, stampBit(code, column, row) ? 0xFF : 0,
                                         size_t(kStampBlock) * 4, kStampBlock, e.stream));
}

} // namespace

bool nvencWaitCopied(NvencEncoder& e, uint64_t frame, bool stamp, std::string& error) {
    try {
        CUDA_CHECK(cudaSetDevice(e.device));
        // NVENC reads the input on e.stream (nvEncSetIOCudaStreams): after the frame's copy.
        interop::cudaWaitTimeline(e.copied, frame + 1, e.stream);
        if (e.ownInput)
            CUDA_CHECK(cudaMemcpyAsync(e.ownInput, e.cudaInput.pointer, e.cudaInput.size,
                                       cudaMemcpyDeviceToDevice, e.stream));
        if (stamp) recordStamp(e, frame);
        // The encoder thread (never the loop) waits too, so that the encode time it reports is
        // NVENC's own and not the rest of the frame's draw; bounded, so that a GPU that stopped
        // (a lost device never signals) cannot keep estuary_serve_stop waiting.
        interop::finishCudaStream(e.stream, kCopyWaitNs,
                                  "frame " + std::to_string(frame) + "'s copy for NVENC");
    } catch (const std::exception& ex) {
        error = ex.what();
        return false;
    }
    return true;
}

bool nvencEncode(NvencEncoder& e, bool idr, std::string& out, bool& key, std::string& error) {
    const NV_ENCODE_API_FUNCTION_LIST& api = *e.api;
    NV_ENC_MAP_INPUT_RESOURCE map{};
    map.version = NV_ENC_MAP_INPUT_RESOURCE_VER;
    map.registeredResource = e.registered;
    NVENCSTATUS r = api.nvEncMapInputResource(e.session, &map);
    if (r != NV_ENC_SUCCESS) {
        error = nvencError(api, e.session, r, "nvEncMapInputResource");
        return false;
    }
    NV_ENC_PIC_PARAMS pic{};
    pic.version = NV_ENC_PIC_PARAMS_VER;
    pic.inputWidth = e.extent.width;
    pic.inputHeight = e.extent.height;
    pic.inputPitch = e.extent.width * 4;
    pic.inputBuffer = map.mappedResource;
    pic.bufferFmt = map.mappedBufferFmt;
    pic.outputBitstream = e.bitstream;
    pic.pictureStruct = NV_ENC_PIC_STRUCT_FRAME;
    pic.inputTimeStamp = e.encoded;
    pic.frameIdx = uint32_t(e.encoded);
    if (idr) pic.encodePicFlags = NV_ENC_PIC_FLAG_FORCEIDR | NV_ENC_PIC_FLAG_OUTPUT_SPSPPS;
    r = api.nvEncEncodePicture(e.session, &pic);
    bool ok = r == NV_ENC_SUCCESS;
    if (!ok) error = nvencError(api, e.session, r, "nvEncEncodePicture");
    if (ok) {
        NV_ENC_LOCK_BITSTREAM lock{};
        lock.version = NV_ENC_LOCK_BITSTREAM_VER;
        lock.outputBitstream = e.bitstream;
        r = api.nvEncLockBitstream(e.session, &lock); // blocks until this picture is encoded
        ok = r == NV_ENC_SUCCESS;
        if (!ok) {
            error = nvencError(api, e.session, r, "nvEncLockBitstream");
        } else {
            out.append(static_cast<const char*>(lock.bitstreamBufferPtr),
                       lock.bitstreamSizeInBytes);
            key = lock.pictureType == NV_ENC_PIC_TYPE_IDR;
            api.nvEncUnlockBitstream(e.session, e.bitstream);
            ++e.encoded;
        }
    }
    api.nvEncUnmapInputResource(e.session, map.mappedResource);
    return ok;
}

} // namespace estuary::lib
