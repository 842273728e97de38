// NCCL as estuary uses it, loaded at run time (slabs_cuda.cu defines these): the one-process
// split run over several GPUs (slabs_cuda.h) and the ranked run (slabs_ranks_cuda.cu). Internal to
// cuda_sim; CUDA builds only. nccl.h is not part of every CUDA Toolkit (NCCL ships on its own, as
// libnccl2 or the nvidia-nccl wheels), and only the run-time library is needed: the types of the
// calls used are declared here, with the values nccl.h gives them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace estuary::sim {

using ncclResult_t = int;
constexpr ncclResult_t ncclSuccess = 0;
using ncclComm_t = struct ncclComm*;
using ncclDataType_t = int;
constexpr ncclDataType_t ncclFloat = 7; // ncclFloat32
struct ncclUniqueId {
    char internal[128]; // NCCL_UNIQUE_ID_BYTES
};

// The NCCL entry points estuary uses, from libnccl.so.2.
struct NcclApi {
    void* library = nullptr;
    std::string description;
    ncclResult_t (*getVersion)(int*) = nullptr;
    ncclResult_t (*commInitAll)(ncclComm_t*, int, const int*) = nullptr;
    ncclResult_t (*getUniqueId)(ncclUniqueId*) = nullptr;
    ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
    ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
    ncclResult_t (*groupStart)() = nullptr;
    ncclResult_t (*groupEnd)() = nullptr;
    ncclResult_t (*send)(const void*, size_t, ncclDataType_t, int, ncclComm_t,
                         cudaStream_t) = nullptr;
    ncclResult_t (*recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
    const char* (*errorString)(ncclResult_t) = nullptr;
};

// Loads NCCL once (NCCL_NVLS_ENABLE=0 first); throws unsupported naming the library and why.
const NcclApi& nccl();
// Throws runtimeError "WHAT failed: NCCL's reason" unless r is ncclSuccess.
void ncclCheck(ncclResult_t r, const char* what);

} // namespace estuary::sim
