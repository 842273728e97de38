// The faulting kernel of ESTUARY_FAULT=cuda-fault@N (fault_injection.h).
#include "fault_injection.h"

#include <cstdint>

namespace estuary {
namespace {

__global__ void storeThroughABadPointer(int* bad) {
    *bad = 1;
}

} // namespace

void launchFaultingKernel(cudaStream_t stream) {
    // Not a null pointer (the compiler may treat that store as unreachable): an address no
    // allocation can have.
    storeThroughABadPointer<<<1, 1, 0, stream>>>(reinterpret_cast<int*>(uintptr_t(0x10)));
}

} // namespace estuary
