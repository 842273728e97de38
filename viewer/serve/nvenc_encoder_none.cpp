// Builds without CUDA or without NVENC's header (nvenc_encoder.h): NVENC is never offered, and
// the server says why once.
#include "nvenc_encoder.h"

namespace estuary::lib {

struct NvencEncoder {};

void NvencDeleter::operator()(NvencEncoder* encoder) const noexcept {
    delete encoder;
}

std::string nvencLibraryProblem() {
#ifdef ESTUARY_NVENC_NO_HEADER
    return "built without NVENC's header (Debian's libffmpeg-nvenc-dev)";
#else
    return "built without CUDA";
#endif
}

NvencPtr openNvenc(estuary_viewer&, VkExtent2D, bool, std::string& why) {
    why = nvencLibraryProblem();
    return nullptr;
}

const char* nvencName(const NvencEncoder&) {
    return "nvenc";
}

VkExtent2D nvencExtent(const NvencEncoder&) {
    return {};
}

void recordNvencCopy(estuary_viewer&, NvencEncoder&, VkCommandBuffer, VkImage) {}

VkSemaphoreSubmitInfo nvencSignal(const NvencEncoder&, uint64_t) {
    return {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
}

bool nvencWaitCopied(NvencEncoder&, uint64_t, bool, std::string& error) {
    error = nvencLibraryProblem();
    return false;
}

bool nvencEncode(NvencEncoder&, bool, std::string&, bool&, std::string& error) {
    error = nvencLibraryProblem();
    return false;
}

} // namespace estuary::lib
