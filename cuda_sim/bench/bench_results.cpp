#include "bench_results.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace estuary::sim {

void writeBenchJson(const std::string& path, const BenchDevice& device, double bytesPerCellStep,
                    int stepsPerFrame, const std::vector<BenchResult>& results) {
    nlohmann::json report;
    report["device"] = {
        {"name", device.name}, {"smCount", device.smCount}, {"hbmPeakGBs", device.peakGBs}};
    report["bytesPerCellStep"] = bytesPerCellStep;
    report["stepsPerFrame"] = stepsPerFrame;
    nlohmann::json& list = report["results"] = nlohmann::json::array();
    for (const BenchResult& r : results) {
        nlohmann::json item = {{"kind", r.kind}, {"variant", r.variant}, {"size", r.size}};
        if (r.kind == "step" || r.kind == "step3d") {
            item["usPerStep"] = r.us;
            item["GBs"] = r.gbs;
            item["percentOfPeak"] = r.percentOfPeak;
        } else if (r.kind == "jacobi") {
            item["usPer39Sweeps"] = r.us;
            item["GBsAsIfOneSweepALaunch"] = r.gbs;
        } else if (r.kind == "pressure") {
            item["usPerStep"] = r.us;
            item["rmsDivergence"] = r.divergence;
        } else {
            item[r.kind.starts_with("mips") ? "usPerWrite" : "usPerFrame"] = r.us;
        }
        if (r.tiling) {
            item["stepsPerPass"] = r.tiling->stepsPerPass;
            item["threads"] = r.tiling->threads;
            item["rowsPerChunk"] = r.tiling->rowsPerChunk;
        }
        if (r.tiling3d) {
            item["stepsPerPass"] = r.tiling3d->stepsPerPass;
            item["threads"] = kPassBlockX3d * r.tiling3d->blockY;
            item["blockY"] = r.tiling3d->blockY;
            item["slicesPerChunk"] = r.tiling3d->slicesPerChunk;
        }
        if (r.launches) item["launches"] = r.launches;
        list.push_back(item);
    }
    const std::string temp = path + ".tmp";
    {
        std::ofstream file(temp, std::ios::binary | std::ios::trunc);
        file << report.dump(2) << '\n';
        if (!file.flush()) throw std::runtime_error("cannot write " + temp);
    }
    std::filesystem::rename(temp, path);
}

} // namespace estuary::sim
