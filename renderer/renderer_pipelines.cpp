#include "renderer_internal.h"
#include "input_file.h"
#include "vk_check.h"
#include "shared_layout.h"

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace estuary {

VkShaderModule loadShaderModule(const Device& device, const std::filesystem::path& path) {
    requireRegularFile(path, "shader");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw runtimeError("cannot open shader " + path.string() +
                           " (shaders/ must sit beside the executable, or in the data folder "
                           "given to the renderer)");
    const auto size = static_cast<size_t>(in.tellg());
    std::vector<uint32_t> code(size / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(code.data()), std::streamsize(code.size() * 4));
    // SPIR-V is a whole number of 32-bit words starting with its magic number; anything else
    // (truncated, another file) would reach the driver as an opaque failure.
    constexpr uint32_t kSpirvMagic = 0x07230203;
    if (!in || size == 0 || size % 4 != 0 || code[0] != kSpirvMagic)
        throw runtimeError("shader " + path.string() + " is not SPIR-V (" + std::to_string(size) +
                           " bytes; SPIR-V is whole 32-bit words starting with 0x07230203): "
                           "rebuild the project to regenerate it");
    // The instruction stream must tile the words exactly (each instruction's first word holds
    // its word count in the high half): a damaged file is named here, before a driver or the
    // validation layer is handed it (lavapipe under the layer was seen to hang on one).
    constexpr size_t kHeaderWords = 5;
    size_t at = kHeaderWords;
    while (at < code.size()) {
        const uint32_t words = code[at] >> 16;
        if (words == 0 || words > code.size() - at)
            throw runtimeError("shader " + path.string() + " is damaged: the instruction at word " +
                               std::to_string(at) + " claims " + std::to_string(words) +
                               " words, " + std::to_string(code.size() - at) +
                               " remain: rebuild the project (or reinstall) to regenerate it");
        at += words;
    }
    if (code.size() < kHeaderWords || code[3] == 0)
        throw runtimeError("shader " + path.string() +
                           " is damaged: its SPIR-V header is "
                           "incomplete or declares no ids: rebuild the project to regenerate it");
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = size;
    info.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    if (const VkResult r = vkCreateShaderModule(device.handle, &info, nullptr, &module);
        r != VK_SUCCESS)
        throwVkFailure(r, ("vkCreateShaderModule(" + path.string() + ")").c_str(), __FILE__,
                       __LINE__);
    nameObject(device, VK_OBJECT_TYPE_SHADER_MODULE, module, path.filename().string());
    return module;
}

std::filesystem::path shaderPath(const std::filesystem::path& dataDir, const std::string& name) {
    const std::filesystem::path path(name + ".spv");
    return path.is_absolute() ? path : dataDir / "shaders" / path;
}

VkPipelineLayout createPushLayout(const Device& device, VkDescriptorSetLayout setLayout,
                                  VkShaderStageFlags stages, const char* name) {
    const VkPushConstantRange push{stages, 0, kPushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &push;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VK_CHECK(vkCreatePipelineLayout(device.handle, &layoutInfo, nullptr, &layout));
    nameObject(device, VK_OBJECT_TYPE_PIPELINE_LAYOUT, layout, name);
    return layout;
}

VkPipeline createGraphicsPipeline(const Device& device, PipelineCache* cache, VkFormat targetFormat,
                                  VkPipelineLayout layout, const std::filesystem::path& dataDir,
                                  const PipelineShape& shape) {
    const VkShaderModule vert = loadShaderModule(device, shaderPath(dataDir, shape.vertexShader));
    VkShaderModule frag = VK_NULL_HANDLE;
    try {
        frag = loadShaderModule(device, shaderPath(dataDir, shape.fragmentShader));
    } catch (...) {
        vkDestroyShaderModule(device.handle, vert, nullptr);
        throw;
    }
    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[0].pSpecializationInfo = shape.vertexSpecialization;
    stages[1] = stages[0];
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag;
    stages[1].pSpecializationInfo = shape.fragmentSpecialization;

    VkPipelineVertexInputStateCreateInfo vertexInput{
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo inputAssembly{
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    inputAssembly.topology = shape.topology;
    VkPipelineViewportStateCreateInfo viewport{
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo raster{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo depth{
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    if (shape.depthFormat != VK_FORMAT_UNDEFINED) {
        depth.depthTestEnable = VK_TRUE;
        depth.depthWriteEnable = VK_TRUE;
        depth.depthCompareOp = VK_COMPARE_OP_GREATER;
    }
    VkPipelineColorBlendAttachmentState blendAttachment{};
    blendAttachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                     VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    if (shape.additive) {
        blendAttachment.blendEnable = VK_TRUE;
        blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
        blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
        blendAttachment.colorBlendOp = VK_BLEND_OP_ADD;
        blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
        blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD;
    } else if (shape.alphaBlend) {
        blendAttachment.blendEnable = VK_TRUE;
        blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
        blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
        blendAttachment.colorBlendOp = VK_BLEND_OP_ADD;
        blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
        blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD;
    }
    VkPipelineColorBlendStateCreateInfo blend{
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = 1;
    blend.pAttachments = &blendAttachment;
    const VkDynamicState dynamicStates[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamicStates;
    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &targetFormat;
    rendering.depthAttachmentFormat = shape.depthFormat;

    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &rendering};
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &vertexInput;
    info.pInputAssemblyState = &inputAssembly;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth;
    info.pColorBlendState = &blend;
    info.pDynamicState = &dynamic;
    info.layout = layout;
    VkPipelineCreationFeedback feedback{};
    VkPipelineCreationFeedbackCreateInfo feedbackInfo{
        VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
    feedbackInfo.pPipelineCreationFeedback = &feedback;
    rendering.pNext = &feedbackInfo;
    VkPipeline pipeline = VK_NULL_HANDLE;
    const auto start = std::chrono::steady_clock::now();
    const VkResult result = vkCreateGraphicsPipelines(
        device.handle, cache ? cache->handle : VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
    if (result == VK_SUCCESS) notePipelineCreated(cache, start, feedback);
    vkDestroyShaderModule(device.handle, frag, nullptr);
    vkDestroyShaderModule(device.handle, vert, nullptr);
    if (result != VK_SUCCESS)
        throwVkFailure(result,
                       ("vkCreateGraphicsPipelines (shaders/" + shape.vertexShader +
                        ".spv, shaders/" + shape.fragmentShader + ".spv)")
                           .c_str(),
                       __FILE__, __LINE__);
    nameObject(device, VK_OBJECT_TYPE_PIPELINE, pipeline, shape.name);
    return pipeline;
}

void createPipelines(const Device& device, Renderer& renderer, const RendererDesc& desc) {
    renderer.pipelineLayout =
        createPushLayout(device, renderer.setLayout,
                         VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, "field layout");
    const uint32_t shading = uint32_t(desc.shading);
    const VkSpecializationMapEntry shadingEntry{ESTUARY_SPEC_SHADING, 0, sizeof(shading)};
    const VkSpecializationInfo specialization{1, &shadingEntry, sizeof(shading), &shading};
    PipelineShape field;
    field.vertexShader = "fullscreen.vert";
    field.fragmentShader = desc.fragmentShader;
    field.fragmentSpecialization = &specialization;
    field.name = "field pipeline";
    // The compute draw replaces the field's pipeline.
    if (!desc.compute)
        renderer.pipeline =
            createGraphicsPipeline(device, &renderer.kit->pipelineCache, renderer.targetFormat,
                                   renderer.pipelineLayout, desc.dataDir, field);
}

void createComputeDraw(const Device& device, Renderer& renderer, const RendererDesc& desc) {
    VkDescriptorSetLayoutBinding bindings[3]{};
    bindings[0] = {ESTUARY_BINDING_FIELD, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    bindings[1] = {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    bindings[2] = {ESTUARY_BINDING_DRAW_TARGET, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = 3;
    setInfo.pBindings = bindings;
    VK_CHECK(
        vkCreateDescriptorSetLayout(device.handle, &setInfo, nullptr, &renderer.computeSetLayout));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, renderer.computeSetLayout,
               "compute draw set layout");
    renderer.computeLayout = createPushLayout(device, renderer.computeSetLayout,
                                              VK_SHADER_STAGE_COMPUTE_BIT, "compute draw layout");

    renderer.computeSets =
        allocateKitSets(device, *renderer.kit, renderer.computeSetLayout, bindings, desc.slotCount);
    const VkDescriptorImageInfo colormap{renderer.kit->colormapSampler, renderer.kit->atlas.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    for (VkDescriptorSet set : renderer.computeSets)
        writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormap);

    const uint32_t shading = uint32_t(desc.shading);
    const VkSpecializationMapEntry shadingEntry{ESTUARY_SPEC_SHADING, 0, sizeof(shading)};
    const VkSpecializationInfo specialization{1, &shadingEntry, sizeof(shading), &shading};
    renderer.computePipeline =
        createComputePipeline(device, &renderer.kit->pipelineCache, renderer.computeLayout,
                              shaderPath(desc.dataDir, desc.fragmentShader + ".compute"),
                              &specialization, "compute draw (" + desc.fragmentShader + ")");
}

std::vector<VkDescriptorSet> allocateSets(const Device& device, VkDescriptorPool pool,
                                          VkDescriptorSetLayout layout, uint32_t count) {
    const std::vector<VkDescriptorSetLayout> layouts(count, layout);
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pool;
    info.descriptorSetCount = count;
    info.pSetLayouts = layouts.data();
    std::vector<VkDescriptorSet> sets(count);
    VK_CHECK(vkAllocateDescriptorSets(device.handle, &info, sets.data()));
    return sets;
}

VkPipeline createComputePipeline(const Device& device, PipelineCache* cache,
                                 VkPipelineLayout layout, const std::filesystem::path& path,
                                 const VkSpecializationInfo* specialization,
                                 const std::string& name) {
    const VkShaderModule module = loadShaderModule(device, path);
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = specialization;
    info.layout = layout;
    VkPipelineCreationFeedback feedback{};
    VkPipelineCreationFeedbackCreateInfo feedbackInfo{
        VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
    feedbackInfo.pPipelineCreationFeedback = &feedback;
    info.pNext = &feedbackInfo;
    VkPipeline pipeline = VK_NULL_HANDLE;
    const auto start = std::chrono::steady_clock::now();
    const VkResult result = vkCreateComputePipelines(
        device.handle, cache ? cache->handle : VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
    if (result == VK_SUCCESS) notePipelineCreated(cache, start, feedback);
    vkDestroyShaderModule(device.handle, module, nullptr);
    if (result != VK_SUCCESS)
        throwVkFailure(result, ("vkCreateComputePipelines (" + path.string() + ")").c_str(),
                       __FILE__, __LINE__);
    nameObject(device, VK_OBJECT_TYPE_PIPELINE, pipeline, name);
    return pipeline;
}

} // namespace estuary
