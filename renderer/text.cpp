// The text renderer (text.h): the batch's quads built on the CPU, one instanced draw.
#include "text.h"
#include "text_compute.h"
#include "renderer_internal.h"
#include "shared_layout.h"
#include "vk_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace estuary {

FontImage createFontImage(const Device& device, const std::filesystem::path& dataDir,
                          const std::filesystem::path& fontFile) {
    FontImage font;
    try {
        font.atlas = FontAtlas::shared(fontFile.empty() ? defaultFontFile(dataDir) : fontFile);
    } catch (const std::exception& e) {
        throw runtimeError(e.what());
    }
    const FontAtlas& atlas = *font.atlas;
    try {
        font.image = createImage2D(
            device, {atlas.textureWidth(), atlas.textureHeight()}, VK_FORMAT_R8_UNORM, 1,
            VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "font atlas");
        font.staging =
            createBuffer(device, atlas.texels().size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "font atlas staging");
        std::memcpy(font.staging.mapped, atlas.texels().data(), atlas.texels().size());
    } catch (...) {
        destroyFontImage(device, font);
        throw;
    }
    return font;
}

void destroyFontImage(const Device& device, FontImage& font) {
    destroyBuffer(device, font.staging);
    destroyImage(device, font.image);
    font = FontImage{};
}

void recordFontUpload(FontImage& font, VkCommandBuffer cmd) {
    if (font.uploaded) return;
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {font.atlas->textureWidth(), font.atlas->textureHeight(), 1};
    recordUploadForSampling(cmd, font.staging.handle, font.image.handle, {&region, 1});
    font.uploaded = true;
}

namespace {

TextQuad quad(float ox, float oy, float ux, float uy, float vx, float vy,
              const std::array<float, 4>& local, const Rgba& colour,
              const std::array<float, 4>& params) {
    TextQuad q{};
    q.origin[0] = ox, q.origin[1] = oy;
    q.axisU[0] = ux, q.axisU[1] = uy;
    q.axisV[0] = vx, q.axisV[1] = vy;
    std::copy(local.begin(), local.end(), q.local);
    std::copy(colour.begin(), colour.end(), q.colour);
    std::copy(params.begin(), params.end(), q.params);
    return q;
}

bool finite(std::initializer_list<float> values) {
    return std::all_of(values.begin(), values.end(), [](float x) { return std::isfinite(x); });
}

} // namespace

void buildTextQuads(const FontAtlas& font, const Kit& kit, const AnnotationBatch& batch,
                    std::vector<TextQuad>& out, std::vector<PlacedGlyph>& glyphs) {
    out.clear();
    for (const AnnotationRect& r : batch.rects) {
        if (!finite({r.x0, r.y0, r.x1, r.y1}) || r.x1 <= r.x0 || r.y1 <= r.y0) continue;
        out.push_back(quad(r.x0, r.y0, r.x1 - r.x0, 0.0f, 0.0f, r.y1 - r.y0, {0, 0, 1, 1}, r.color,
                           {float(ESTUARY_TEXT_RECT), 0, 0, 0}));
    }
    for (const AnnotationRamp& r : batch.ramps) {
        if (!finite({r.x0, r.y0, r.x1, r.y1}) || r.x1 <= r.x0 || r.y1 <= r.y0 ||
            r.colormap >= kit.colormaps.size() || kit.colormaps[r.colormap].name.empty())
            continue;
        const float code =
            float(r.colormap) + float(r.entries) * float(ESTUARY_COLORMAP_CATEGORY_STRIDE);
        const std::array<float, 4> params{float(ESTUARY_TEXT_RAMP), code,
                                          float(ESTUARY_COLORMAP_ATLAS_ROWS), float(r.entries)};
        // local.x runs from the map's start: the bottom of a vertical ramp, the left of another.
        if (r.vertical)
            out.push_back(quad(r.x0, r.y1, 0.0f, r.y0 - r.y1, r.x1 - r.x0, 0.0f, {0, 0, 1, 1},
                               {1, 1, 1, 1}, params));
        else
            out.push_back(quad(r.x0, r.y0, r.x1 - r.x0, 0.0f, 0.0f, r.y1 - r.y0, {0, 0, 1, 1},
                               {1, 1, 1, 1}, params));
    }
    for (const AnnotationLine& l : batch.lines) {
        const float dx = l.x1 - l.x0, dy = l.y1 - l.y0, len = std::hypot(dx, dy);
        if (!finite({l.x0, l.y0, l.x1, l.y1, l.widthPixels}) || l.widthPixels <= 0.0f ||
            len <= 0.0f)
            continue;
        // The segment's quad reaches a pixel past its ends and edges, for the antialiasing.
        const float tx = dx / len, ty = dy / len, nx = -ty, ny = tx;
        const float half = 0.5f * l.widthPixels, across = half + 1.0f, pad = 1.0f;
        out.push_back(quad(l.x0 - tx * pad - nx * across, l.y0 - ty * pad - ny * across,
                           tx * (len + 2 * pad), ty * (len + 2 * pad), nx * 2 * across,
                           ny * 2 * across, {-pad, -across, len + pad, across}, l.color,
                           {float(ESTUARY_TEXT_LINE), half, len, 0}));
    }
    for (const AnnotationText& t : batch.texts) {
        if (!finite({t.x, t.y, t.sizePixels, t.rotationDegrees}) || t.sizePixels <= 0.0f) continue;
        glyphs.clear();
        font.layout(t.text, t.sizePixels, t.alignX, t.alignY, glyphs);
        // Counter-clockwise on the screen (y down): (x, y) -> (x c + y s, -x s + y c).
        const float a = t.rotationDegrees * 0.017453292f, c = std::cos(a), s = std::sin(a);
        for (const PlacedGlyph& g : glyphs) {
            const float w = g.x1 - g.x0, h = g.y1 - g.y0;
            out.push_back(quad(t.x + g.x0 * c + g.y0 * s, t.y - g.x0 * s + g.y0 * c, w * c, -w * s,
                               h * s, h * c, {g.u0, g.v0, g.u1, g.v1}, t.color,
                               {float(ESTUARY_TEXT_GLYPH), 0, 0, 0}));
        }
    }
}

uint32_t buildPanelQuads(TextRenderer& r, VkExtent2D extent, const AnnotationPanel& panel,
                         uint32_t used, VkRect2D& scissor) {
    if (!panel.batch) return 0;
    scissor = clipRect(extent, panel.area, panel.batch->clip);
    if (panel.batch->empty() || scissor.extent.width == 0) return 0;
    buildTextQuads(*r.font.atlas, *r.kit, *panel.batch, r.scratch, r.glyphScratch);
    const uint32_t count = uint32_t(std::min<size_t>(r.scratch.size(), r.quadCapacity - used));
    r.droppedQuads += r.scratch.size() - count;
    return count;
}

VkRect2D clipRect(VkExtent2D extent, VkRect2D area, const std::array<float, 4>& clip) {
    int64_t x0 = std::max<int64_t>(area.offset.x, 0), y0 = std::max<int64_t>(area.offset.y, 0);
    int64_t x1 = std::min<int64_t>(int64_t(area.offset.x) + area.extent.width, extent.width);
    int64_t y1 = std::min<int64_t>(int64_t(area.offset.y) + area.extent.height, extent.height);
    if (clip != std::array<float, 4>{} && finite({clip[0], clip[1], clip[2], clip[3]})) {
        x0 = std::max(x0, int64_t(std::floor(clip[0])));
        y0 = std::max(y0, int64_t(std::floor(clip[1])));
        x1 = std::min(x1, int64_t(std::ceil(clip[2])));
        y1 = std::min(y1, int64_t(std::ceil(clip[3])));
    }
    if (x1 <= x0 || y1 <= y0) return {{0, 0}, {0, 0}};
    return {{int32_t(x0), int32_t(y0)}, {uint32_t(x1 - x0), uint32_t(y1 - y0)}};
}

TextRenderer createTextRenderer(const Device& device, const TextDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createTextRenderer: slotCount must be >= 1");
    if (desc.quadCapacity == 0) throw runtimeError("createTextRenderer: quadCapacity must be >= 1");
    TextRenderer r;
    r.kit = &requireKit(desc.kit, "createTextRenderer");
    r.quadCapacity = desc.quadCapacity;
    try {
        r.font = createFontImage(device, desc.dataDir, desc.fontFile);
        const VkShaderStageFlags both = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
        const std::array<VkDescriptorSetLayoutBinding, 3> bindings{{
            {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
             VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
            {ESTUARY_BINDING_FONT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
             VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
            {ESTUARY_BINDING_TEXT_QUADS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
             VK_SHADER_STAGE_VERTEX_BIT, nullptr},
        }};
        VkDescriptorSetLayoutCreateInfo layoutInfo{
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        layoutInfo.bindingCount = uint32_t(bindings.size());
        layoutInfo.pBindings = bindings.data();
        VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.setLayout));
        nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.setLayout, "text set layout");
        r.slotSets = allocateKitSets(device, *r.kit, r.setLayout, bindings, desc.slotCount);
        const VkDescriptorImageInfo colormaps{r.kit->colormapSampler, r.kit->atlas.view,
                                              VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        const VkDescriptorImageInfo font{r.kit->colormapSampler, r.font.image.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        const VkDeviceSize bytes = VkDeviceSize(desc.quadCapacity) * sizeof(TextQuad);
        for (uint32_t slot = 0; slot < desc.slotCount; ++slot) {
            r.quads.push_back(createBuffer(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                           "text quads"));
            const VkDescriptorSet set = r.slotSets[slot];
            writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                                 VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormaps);
            writeImageDescriptor(device, set, ESTUARY_BINDING_FONT,
                                 VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, font);
            writeBufferDescriptor(device, set, ESTUARY_BINDING_TEXT_QUADS, r.quads.back().handle,
                                  bytes);
        }
        r.pipelineLayout = createPushLayout(device, r.setLayout, both, "text layout");
        PipelineShape shape;
        shape.vertexShader = "text.vert";
        shape.fragmentShader = "text.frag";
        shape.alphaBlend = true;
        shape.name = "text pipeline";
        r.pipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                            r.pipelineLayout, desc.dataDir, shape);
        if (desc.compute) createTextCompute(device, r, desc.dataDir, desc.slotCount);
    } catch (...) {
        destroyTextRenderer(device, r);
        throw;
    }
    return r;
}

void destroyTextRenderer(const Device& device, TextRenderer& r) {
    destroyTextCompute(device, r);
    vkDestroyPipeline(device.handle, r.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.pipelineLayout, nullptr);
    for (GpuBuffer& b : r.quads)
        destroyBuffer(device, b);
    if (r.kit) freeKitSets(device, *r.kit, r.slotSets);
    vkDestroyDescriptorSetLayout(device.handle, r.setLayout, nullptr);
    destroyFontImage(device, r.font);
    r = TextRenderer{};
}

void beginAnnotationPass(VkCommandBuffer cmd, VkImageView target, VkExtent2D extent) {
    beginTargetPass(cmd, target, extent, false, {0.0f, 0.0f, 0.0f});
}

void recordAnnotationsInPass(TextRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkExtent2D extent,
                             std::span<const AnnotationPanel> panels) {
    if (slot >= r.slotSets.size())
        throw runtimeError("recordAnnotations: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    // Each panel's quads after the last one's in the slot's buffer, drawn from there
    // (firstInstance), so no panel's draw reads quads another overwrote.
    auto* quads = static_cast<TextQuad*>(r.quads[slot].mapped);
    uint32_t used = 0;
    bool bound = false;
    for (const AnnotationPanel& panel : panels) {
        VkRect2D scissor{};
        const uint32_t count = buildPanelQuads(r, extent, panel, used, scissor);
        if (count == 0) continue;
        std::memcpy(quads + used, r.scratch.data(), count * sizeof(TextQuad));
        if (!bound) {
            const VkViewport viewport{0.0f, 0.0f, float(extent.width), float(extent.height),
                                      0.0f, 1.0f};
            vkCmdSetViewport(cmd, 0, 1, &viewport);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipeline);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                                    &r.slotSets[slot], 0, nullptr);
            const TextPushConstants pc{float(extent.width), float(extent.height)};
            vkCmdPushConstants(cmd, r.pipelineLayout,
                               VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                               sizeof(pc), &pc);
            bound = true;
        }
        vkCmdSetScissor(cmd, 0, 1, &scissor);
        vkCmdDraw(cmd, 6, count, 0, used);
        used += count;
    }
}

void recordAnnotations(TextRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                       VkExtent2D extent, std::span<const AnnotationPanel> panels) {
    recordFontUpload(r.font, cmd);
    beginAnnotationPass(cmd, target, extent);
    recordAnnotationsInPass(r, cmd, slot, extent, panels);
    vkCmdEndRendering(cmd);
}

void recordAnnotations(TextRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                       VkExtent2D extent, const AnnotationBatch& batch, VkRect2D area) {
    const AnnotationPanel panel{&batch, area};
    recordAnnotations(r, cmd, slot, target, extent, {&panel, 1});
}

} // namespace estuary
