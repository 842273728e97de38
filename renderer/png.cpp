#include "png.h"
#include "errors.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

namespace estuary {

namespace {

struct PngSink {
    FILE* file = nullptr;
    int error = 0; // errno of the first failed write
};

void writeToSink(void* context, void* data, int size) {
    auto* sink = static_cast<PngSink*>(context);
    if (sink->error == 0 && std::fwrite(data, 1, size_t(size), sink->file) != size_t(size))
        sink->error = errno != 0 ? errno : EIO;
}

} // namespace

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height,
              const uint8_t* rgba) {
    const auto fail = [&](const std::string& why) {
        return runtimeError("cannot write PNG " + path.string() + ": " + why);
    };
    if (path.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) throw fail(ec.message());
    }
    // The file is opened here rather than by stbi_write_png so that errno says why it failed.
    PngSink sink;
    sink.file = std::fopen(path.c_str(), "wb");
    if (!sink.file) throw fail(std::strerror(errno));
    const int stride = int(width) * 4;
    const int ok =
        stbi_write_png_to_func(writeToSink, &sink, int(width), int(height), 4, rgba, stride);
    if (std::fclose(sink.file) != 0 && sink.error == 0) sink.error = errno;
    if (!ok) throw fail("PNG encoding failed");
    if (sink.error != 0) throw fail(std::strerror(sink.error));
}

} // namespace estuary
