#include "png.h"
#include "errors.h"
#include "output_file.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace estuary {

std::string encodePng(uint32_t width, uint32_t height, const uint8_t* rgba) {
    std::string bytes;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
    };
    const int stride = int(width) * 4;
    if (!stbi_write_png_to_func(append, &bytes, int(width), int(height), 4, rgba, stride))
        throw runtimeError("PNG encoding of a " + std::to_string(width) + "x" +
                           std::to_string(height) + " image failed");
    return bytes;
}

void appendJpeg(std::string& out, uint32_t width, uint32_t height, const uint8_t* rgba,
                int quality) {
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
    };
    if (!stbi_write_jpg_to_func(append, &out, int(width), int(height), 4, rgba, quality))
        throw runtimeError("JPEG encoding of a " + std::to_string(width) + "x" +
                           std::to_string(height) + " image failed");
}

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height,
              const uint8_t* rgba) {
    writeFileAtomically(path, encodePng(width, height, rgba));
}

} // namespace estuary
