// cuda_side.h for builds without the CUDA Toolkit: no CUDA device is ever offered, so nothing
// below is reached except the queries, which report CUDA as absent.
#include "cuda_side.h"
#include "errors.h"

namespace estuary::lib {
namespace {

[[noreturn]] void noCuda() {
    throw unsupported("this estuary was built without CUDA (nvcc was not found when it was "
                      "configured): only host-written images and buffers are available");
}

} // namespace

struct CudaImageRing {};
struct CudaBufferRing {};
struct CudaSide {};

void Deleter::operator()(CudaImageRing* p) const {
    delete p;
}
void Deleter::operator()(CudaBufferRing* p) const {
    delete p;
}
void Deleter::operator()(CudaSide* p) const {
    delete p;
}

namespace {
bool noDevice(int&) {
    return false;
}
bool ignoreDevice(int) {
    return false;
}
} // namespace

CudaDeviceScope::CudaDeviceScope(const estuary_viewer*) : scope_({noDevice, ignoreDevice}, -1) {}

void checkHandoffOrder(estuary_viewer&) {}

bool cudaBuilt() {
    return false;
}
std::vector<CudaCandidate> cudaCandidates(const estuary_viewer&, int, std::string& problem) {
    problem = "this estuary was built without CUDA";
    return {};
}
void openCuda(estuary_viewer&, int, bool) {
    noCuda();
}
void closeCuda(estuary_viewer& v) {
    v.cuda.reset();
}
void* cudaStream(const estuary_viewer&) {
    return nullptr;
}
void createCudaImage(estuary_viewer&, estuary_image&, VkImageUsageFlags) {
    noCuda();
}
void createCudaBuffer(estuary_viewer&, estuary_buffer&, VkBufferUsageFlags) {
    noCuda();
}
void destroyCudaImage(estuary_viewer&, estuary_image& image) {
    image.cuda.reset();
}
void destroyCudaBuffer(estuary_viewer&, estuary_buffer& buffer) {
    buffer.cuda.reset();
}
const interop::ExportedImage& cudaExportedImage(const estuary_image&, uint32_t) {
    noCuda();
}
const interop::ExportedBuffer& cudaExportedBuffer(const estuary_buffer&, uint32_t) {
    noCuda();
}
uint64_t cudaSurface(const estuary_image&, uint32_t, uint32_t) {
    noCuda();
}
void* cudaArray(const estuary_image&, uint32_t, uint32_t) {
    noCuda();
}
void* cudaMipmappedArray(const estuary_image&, uint32_t) {
    noCuda();
}
void* cudaPointer(const estuary_buffer&, uint32_t) {
    noCuda();
}
void cudaBeginFrame(estuary_viewer&, estuary_frame&) {
    noCuda();
}
void cudaWaitSlot(estuary_viewer&, estuary_frame&) {
    noCuda();
}
void cudaWaitAllDrawn(estuary_viewer&, estuary_frame&) {
    noCuda();
}
void forgetGraphs(estuary_viewer&) {}
void cudaEndFrame(estuary_viewer&, estuary_frame&) {
    noCuda();
}
uint64_t cudaBatchLast(const estuary_viewer&, uint64_t frame) {
    return frame;
}
VkSemaphoreSubmitInfo cudaDrawWait(const estuary_viewer&, uint64_t, VkPipelineStageFlags2) {
    noCuda();
}
VkSemaphoreSubmitInfo cudaDrawSignal(const estuary_viewer&, uint64_t) {
    noCuda();
}
CudaHandoff cudaHandoff(const estuary_viewer&) {
    noCuda();
}
std::optional<std::array<double, 4>> cudaFrameTimes(estuary_viewer&, uint64_t, bool&) {
    return std::nullopt;
}
std::optional<ClockBracket> cudaClockBracket(estuary_viewer&, uint32_t) {
    return std::nullopt;
}
void cudaCopyToImage(estuary_frame&, const estuary_image&, uint32_t, const void*, uint64_t) {
    noCuda();
}
bool cudaSettled(estuary_viewer&, uint64_t) {
    return true;
}
bool releaseCudaWaits(estuary_viewer&, uint64_t, uint64_t) {
    return true;
}
bool releaseVulkanWaits(estuary_viewer&, uint64_t, uint64_t) {
    return true;
}
void throwIfCudaFailed(const estuary_viewer&) {}
std::string cudaWaitState(const estuary_viewer&) {
    return {};
}
void finishCudaStream(estuary_viewer&, uint64_t) {}
void cudaMemory(const estuary_viewer&, uint64_t& freeBytes, uint64_t& totalBytes) {
    freeBytes = totalBytes = 0;
}

} // namespace estuary::lib
