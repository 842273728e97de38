#include "gl_field.h"
#include "colormap.h"
#include "errors.h"
#include "gl_interop.h"
#include "input_file.h"
#include "shared_layout.h"

#include <epoxy/gl.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace estuary {
namespace {

std::string readText(const std::filesystem::path& file) {
    requireRegularFile(file, "shader source");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw runtimeError("cannot read the shader source " + file.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void expandInto(const std::filesystem::path& file, std::set<std::string>& seen, std::string& out,
                const std::vector<std::string>* defines) {
    std::istringstream in(readText(file));
    std::string line;
    while (std::getline(in, line)) {
        const size_t first = line.find_first_not_of(" \t");
        const std::string_view text =
            first == std::string::npos ? std::string_view{} : std::string_view(line).substr(first);
        if (text.starts_with("#extension GL_GOOGLE_include_directive")) {
            out += '\n'; // keeps the line numbers of the compiler's log
            continue;
        }
        if (text.starts_with("#include")) {
            const size_t open = text.find('"'), close = text.rfind('"');
            if (open == std::string_view::npos || close <= open)
                throw runtimeError(file.string() + ": malformed #include: " + line);
            const std::string name(text.substr(open + 1, close - open - 1));
            if (seen.insert(name).second) expandInto(file.parent_path() / name, seen, out, nullptr);
            out += '\n';
            continue;
        }
        out += line;
        out += '\n';
        if (defines && text.starts_with("#version"))
            for (const std::string& d : *defines)
                out += "#define " + d + "\n";
    }
}

uint32_t compileShader(GLenum stage, const std::string& source, const std::string& name) {
    const GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok) return shader;
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(size_t(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw runtimeError("OpenGL could not compile " + name + ":\n" + log);
}

uint32_t linkProgram(uint32_t vertex, uint32_t fragment, const std::string& name) {
    const GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex); // flagged: freed with the program
    glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok) return program;
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(size_t(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    glDeleteProgram(program);
    throw runtimeError("OpenGL could not link " + name + ":\n" + log);
}

// The kit's atlas as the Vulkan renderers sample it: the same texels, rows and size.
uint32_t createColormapTexture() {
    GLuint texture = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    glTextureStorage2D(texture, 1, GL_RGBA8, GLsizei(kColormapSize), GLsizei(kColormapAtlasRows));
    glObjectLabel(GL_TEXTURE, texture, -1, "colormap atlas");
    return texture;
}

// The kit's rows from `first` on, into the texture (GL orders it before later draws).
void uploadColormapRows(const Kit& kit, uint32_t texture, uint32_t first) {
    const uint32_t rows = uint32_t(kit.colormaps.size());
    if (first >= rows) return;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(texture, 0, 0, GLint(first), GLsizei(kColormapSize), GLsizei(rows - first),
                        GL_RGBA, GL_UNSIGNED_BYTE,
                        kit.texels.data() + size_t(first) * kColormapSize * 4);
}

uint32_t createSampler(bool mipmapped) {
    GLuint sampler = 0;
    glCreateSamplers(1, &sampler);
    glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER,
                        mipmapped ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glSamplerParameteri(sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glSamplerParameteri(sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return sampler;
}

} // namespace

std::string expandGlslSource(const std::filesystem::path& file,
                             const std::vector<std::string>& defines) {
    std::set<std::string> seen;
    std::string out;
    expandInto(file, seen, out, &defines);
    return out;
}

GlFieldRenderer createGlFieldRenderer(const GlFieldDesc& desc) {
    if (!desc.kit) throw runtimeError("createGlFieldRenderer: the desc names no kit (kit.h)");
    const std::filesystem::path dir = desc.dataDir / "shaders" / "glsl";
    const std::vector<std::string> defines = {"ESTUARY_GL_SHADING " +
                                              std::to_string(uint32_t(desc.shading))};
    GlFieldRenderer r;
    try {
        const uint32_t vertex =
            compileShader(GL_VERTEX_SHADER, expandGlslSource(dir / "fullscreen.vert", defines),
                          "fullscreen.vert");
        uint32_t fragment = 0;
        try {
            fragment = compileShader(GL_FRAGMENT_SHADER,
                                     expandGlslSource(dir / desc.fragmentShader, defines),
                                     desc.fragmentShader);
        } catch (...) {
            glDeleteShader(vertex);
            throw;
        }
        r.program = linkProgram(vertex, fragment, "fullscreen.vert + " + desc.fragmentShader);
        glCreateVertexArrays(1, &r.vertexArray);
        glCreateBuffers(1, &r.uniforms);
        glNamedBufferStorage(r.uniforms, sizeof(FieldPushConstants), nullptr,
                             GL_DYNAMIC_STORAGE_BIT);
        r.kit = desc.kit;
        r.colormaps = createColormapTexture();
        uploadColormapRows(*r.kit, r.colormaps, 0);
        r.colormapRows = uint32_t(r.kit->colormaps.size());
        r.fieldSampler = createSampler(true);
        r.colormapSampler = createSampler(false);
        throwIfGlError("creating the OpenGL field renderer");
    } catch (...) {
        destroyGlFieldRenderer(r);
        throw;
    }
    return r;
}

void destroyGlFieldRenderer(GlFieldRenderer& r) {
    if (r.colormapSampler) glDeleteSamplers(1, &r.colormapSampler);
    if (r.fieldSampler) glDeleteSamplers(1, &r.fieldSampler);
    if (r.colormaps) glDeleteTextures(1, &r.colormaps);
    if (r.uniforms) glDeleteBuffers(1, &r.uniforms);
    if (r.vertexArray) glDeleteVertexArrays(1, &r.vertexArray);
    if (r.program) glDeleteProgram(r.program);
    r = GlFieldRenderer{};
}

void drawGlField(GlFieldRenderer& r, uint32_t fieldTexture, VkExtent2D field, VkExtent2D target,
                 const ViewParams& view) {
    const float colormapCode = colormapCodeOf(*r.kit, view.colormap, "drawGlField");
    if (r.colormapRows < r.kit->colormaps.size()) { // made since the last draw
        uploadColormapRows(*r.kit, r.colormaps, r.colormapRows);
        r.colormapRows = uint32_t(r.kit->colormaps.size());
    }
    FieldPushConstants pc{};
    pc.targetWidth = float(target.width);
    pc.targetHeight = float(target.height);
    pc.fieldWidth = float(field.width);
    pc.fieldHeight = float(field.height);
    pc.panX = view.panX;
    pc.panY = view.panY;
    pc.zoom = view.zoom;
    pc.backgroundR = view.background[0];
    pc.backgroundG = view.background[1];
    pc.backgroundB = view.background[2];
    pc.mipBias = view.mipBias;
    pc.valueMin = view.valueMin;
    pc.valueMax = view.valueMax;
    pc.colormapIndex = colormapCode;
    pc.colormapCount = float(kColormapAtlasRows);
    glNamedBufferSubData(r.uniforms, 0, sizeof(pc), &pc);

    glViewport(0, 0, GLsizei(target.width), GLsizei(target.height));
    const float background[] = {view.background[0], view.background[1], view.background[2], 1.0f};
    glClearColor(background[0], background[1], background[2], background[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(r.program);
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, r.uniforms);
    glBindTextureUnit(ESTUARY_BINDING_FIELD, fieldTexture);
    glBindSampler(ESTUARY_BINDING_FIELD, r.fieldSampler);
    glBindTextureUnit(ESTUARY_BINDING_COLORMAP, r.colormaps);
    glBindSampler(ESTUARY_BINDING_COLORMAP, r.colormapSampler);
    glBindVertexArray(r.vertexArray);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

GlTarget createGlTarget(VkExtent2D extent) {
    GlTarget t;
    t.extent = extent;
    glCreateTextures(GL_TEXTURE_2D, 1, &t.texture);
    glTextureStorage2D(t.texture, 1, GL_RGBA8, GLsizei(extent.width), GLsizei(extent.height));
    glCreateFramebuffers(1, &t.framebuffer);
    glNamedFramebufferTexture(t.framebuffer, GL_COLOR_ATTACHMENT0, t.texture, 0);
    const GLenum status = glCheckNamedFramebufferStatus(t.framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        destroyGlTarget(t);
        throw runtimeError("the OpenGL target " + std::to_string(extent.width) + "x" +
                           std::to_string(extent.height) + " is not a complete framebuffer");
    }
    return t;
}

void destroyGlTarget(GlTarget& t) {
    if (t.framebuffer) glDeleteFramebuffers(1, &t.framebuffer);
    if (t.texture) glDeleteTextures(1, &t.texture);
    t = GlTarget{};
}

std::vector<uint8_t> readGlPixels(const GlTarget& t) {
    return readGlFramebuffer(t.framebuffer, t.extent);
}

std::vector<uint8_t> readGlFramebuffer(uint32_t framebuffer, VkExtent2D extent) {
    const size_t row = size_t(extent.width) * 4;
    std::vector<uint8_t> bottomUp(row * extent.height);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    if (framebuffer == 0) glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadnPixels(0, 0, GLsizei(extent.width), GLsizei(extent.height), GL_RGBA, GL_UNSIGNED_BYTE,
                  GLsizei(bottomUp.size()), bottomUp.data());
    throwIfGlError("reading back the OpenGL picture");
    // GL's row 0 is the bottom one; the shaders draw with Vulkan's origin (row 0 at the top).
    std::vector<uint8_t> pixels(bottomUp.size());
    for (uint32_t y = 0; y < extent.height; ++y)
        std::copy_n(bottomUp.data() + size_t(extent.height - 1 - y) * row, row,
                    pixels.data() + size_t(y) * row);
    return pixels;
}

} // namespace estuary
