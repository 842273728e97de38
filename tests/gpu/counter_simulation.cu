// The CUDA half of the test-only counter simulation (tests/support/counter_simulation.h).
#include "counter_simulation.h"
#include "cuda_check.h"
#include "cuda_simulation.h"

namespace estuary::test {
namespace {

__global__ void fillCountKernel(cudaSurfaceObject_t count, cudaSurfaceObject_t pair, int w, int h,
                                float n) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    surf2Dwrite(n, count, x * int(sizeof(float)), y);
    surf2Dwrite(make_float2(n, -n), pair, x * int(sizeof(float2)), y);
}

__global__ void fillWordsKernel(uint32_t* words, uint32_t steps) {
    const uint32_t i = threadIdx.x;
    if (i < kCounterBufferWords) words[i] = steps * kCounterBufferWords + i;
}

class CudaCounter final : public sim::CudaSimulation {
  public:
    explicit CudaCounter(const sim::GridSize& grid) : layout_(counterSimulation().outputs(grid)) {}
    void reset(uint64_t, cudaStream_t) override { steps_ = 0; }
    void step(const sim::ParamValues&, int steps, cudaStream_t) override {
        steps_ += uint64_t(steps);
    }
    void writeOutputs(const sim::DeviceTargets& targets, cudaStream_t stream) override {
        const sim::ImageOutput& image = layout_.images[0];
        const dim3 block(16, 16);
        const dim3 grid((image.width + 15) / 16, (image.height + 15) / 16);
        fillCountKernel<<<grid, block, 0, stream>>>(targets.images[0].levels[0],
                                                    targets.images[1].levels[0], int(image.width),
                                                    int(image.height), counterImageValue(steps_));
        CUDA_CHECK(cudaGetLastError());
        for (size_t i = 0; i < layout_.images.size(); ++i)
            sim::writeMipChain(layout_.images[i], targets.images[i], stream);
        fillWordsKernel<<<1, kCounterBufferWords, 0, stream>>>(
            static_cast<uint32_t*>(targets.buffers[0]), uint32_t(steps_));
        CUDA_CHECK(cudaGetLastError());
    }

  private:
    sim::OutputLayout layout_;
    uint64_t steps_ = 0;
};

} // namespace

sim::SimDefinition counterSimulationWithCuda() {
    sim::SimDefinition def = counterSimulation();
    def.createCuda = [](const sim::GridSize& grid) -> std::unique_ptr<sim::CudaSimulation> {
        return std::make_unique<CudaCounter>(grid);
    };
    return def;
}

} // namespace estuary::test
