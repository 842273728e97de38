#include "cuda_frame_graphs.h"
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace estuary {
namespace {

// The one wait and the one signal node of a captured frame, and their semaphores.
struct SemaphoreNodes {
    cudaGraphNode_t wait = nullptr, signal = nullptr;
    cudaExternalSemaphore_t waitSemaphore = nullptr, signalSemaphore = nullptr;
};

SemaphoreNodes findSemaphoreNodes(cudaGraph_t graph) {
    size_t count = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
    SemaphoreNodes found;
    int waits = 0, signals = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeExtSemaphoreWait) {
            cudaExternalSemaphoreWaitNodeParams p{};
            CUDA_CHECK(cudaGraphExternalSemaphoresWaitNodeGetParams(node, &p));
            waits += p.numExtSems == 1 ? 1 : 2; // more than one semaphore: refused below
            found.wait = node;
            if (p.numExtSems >= 1) found.waitSemaphore = p.extSemArray[0];
        } else if (type == cudaGraphNodeTypeExtSemaphoreSignal) {
            cudaExternalSemaphoreSignalNodeParams p{};
            CUDA_CHECK(cudaGraphExternalSemaphoresSignalNodeGetParams(node, &p));
            signals += p.numExtSems == 1 ? 1 : 2;
            found.signal = node;
            if (p.numExtSems >= 1) found.signalSemaphore = p.extSemArray[0];
        }
    }
    if (waits != 1 || signals != 1)
        throw std::logic_error("FrameGraphs: a frame must hold one semaphore wait and one signal "
                               "of one semaphore each; the capture holds " +
                               std::to_string(waits) + " wait(s), " + std::to_string(signals) +
                               " signal(s)");
    return found;
}

} // namespace

bool FrameGraphs::holds(uint32_t entry, uint32_t slot, uint64_t simState,
                        std::span<const float> params, int steps) const {
    if (entry >= entries_.size() || !entries_[entry].exec) return false;
    const FrameGraphKey& k = entries_[entry].key;
    return k.slot == slot && k.simState == simState && k.steps == steps &&
           std::equal(k.params.begin(), k.params.end(), params.begin(), params.end());
}

void FrameGraphs::capture(uint32_t entry, FrameGraphKey key, cudaStream_t stream,
                          const std::function<void()>& enqueue) {
    forget(entry);
    // Thread-local: only this thread's calls are checked for capture-unsafe APIs.
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
        enqueue();
    } catch (...) {
        (void)cudaStreamEndCapture(stream, &graph);
        if (graph) (void)cudaGraphDestroy(graph);
        throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    Entry& e = entries_.at(entry);
    try {
        const SemaphoreNodes nodes = findSemaphoreNodes(graph);
        CUDA_CHECK(cudaGraphInstantiate(&e.exec, graph, 0));
        e.waitNode = nodes.wait;
        e.signalNode = nodes.signal;
        e.waitSemaphore = nodes.waitSemaphore;
        e.signalSemaphore = nodes.signalSemaphore;
    } catch (...) {
        (void)cudaGraphDestroy(graph);
        forget(entry);
        throw;
    }
    // Kept: cudaGraphExec*NodeSetParams names a node by its handle in the graph the exec was
    // made from.
    e.graph = graph;
    e.key = std::move(key);
}

void FrameGraphs::launch(uint32_t entry, uint64_t waitValue, uint64_t signalValue,
                         cudaStream_t stream) {
    Entry& e = entries_.at(entry);
    cudaExternalSemaphoreWaitParams wait{};
    wait.params.fence.value = waitValue;
    const cudaExternalSemaphoreWaitNodeParams waitNode{&e.waitSemaphore, &wait, 1};
    CUDA_CHECK(cudaGraphExecExternalSemaphoresWaitNodeSetParams(e.exec, e.waitNode, &waitNode));
    cudaExternalSemaphoreSignalParams signal{};
    signal.params.fence.value = signalValue;
    const cudaExternalSemaphoreSignalNodeParams signalNode{&e.signalSemaphore, &signal, 1};
    CUDA_CHECK(
        cudaGraphExecExternalSemaphoresSignalNodeSetParams(e.exec, e.signalNode, &signalNode));
    CUDA_CHECK(cudaGraphLaunch(e.exec, stream));
}

void FrameGraphs::forget(uint32_t entry) {
    Entry& e = entries_.at(entry);
    if (e.exec) (void)cudaGraphExecDestroy(e.exec);
    if (e.graph) (void)cudaGraphDestroy(e.graph);
    e = Entry{};
}

void FrameGraphs::clear() {
    for (uint32_t i = 0; i < entries_.size(); ++i)
        forget(i);
}

} // namespace estuary
