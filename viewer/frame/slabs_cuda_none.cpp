// Slabs without CUDA (slabs.h): this build has no CUDA device, so only host memory's slabs exist;
// resolveSlabLayout refuses CUDA-written ones before any of these could be reached.
#include "slabs.h"
#include "errors.h"

namespace estuary::lib {

struct CudaSlabs {};

void CudaSlabsDeleter::operator()(CudaSlabs* p) const {
    delete p;
}

int cudaDeviceCount() {
    return 0;
}

namespace {
[[noreturn]] void noCuda() {
    throw unsupported("this estuary was built without CUDA: slabs live in host memory only");
}
} // namespace

void createCudaSlabs(estuary_slabs&, int) {
    noCuda();
}
estuary_slab cudaSlab(const estuary_slabs&, uint32_t) {
    noCuda();
}
void cudaExchangeSlabs(estuary_slabs&) {
    noCuda();
}
void cudaGatherSlabs(estuary_slabs&, void*, void*) {
    noCuda();
}
bool cudaSlabsIdle(estuary_slabs&, uint64_t) {
    return true;
}

} // namespace estuary::lib
