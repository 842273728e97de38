/* Plain C on estuary.h alone: a field computed on the host each frame (two interfering waves),
 * written into the frame's host memory, which estuary uploads and draws with a colorbar. Runs
 * with or without an NVIDIA GPU. */
#include <estuary/estuary.h>

#include <math.h>
#include <stdio.h>

#define SIZE 256

/* Says what failed; the exit code is the status (3: this machine cannot run it). */
static int fail(const char* what, estuary_status status) {
    fprintf(stderr, "c_field: %s: %s\n", what, estuary_last_error());
    return (int)status;
}

/* One frame: the field at time t into the frame's host memory of level 0 (mips by estuary). */
static int draw(estuary_frame* frame, void* user) {
    estuary_image* image = (estuary_image*)user;
    float* texels = NULL;
    if (estuary_frame_host_level(frame, image, 0, (void**)&texels) != ESTUARY_OK) return 1;
    const float t = 0.05f * (float)estuary_frame_index(frame);
    for (int y = 0; y < SIZE; ++y)
        for (int x = 0; x < SIZE; ++x) {
            const float a = hypotf(x - 0.3f * SIZE, y - 0.5f * SIZE);
            const float b = hypotf(x - 0.7f * SIZE, y - 0.5f * SIZE);
            texels[y * SIZE + x] = 0.5f + 0.25f * (sinf(0.2f * a - t) + sinf(0.2f * b - t));
        }
    return 0;
}

int main(void) {
    estuary_viewer_desc desc = {.struct_size = sizeof desc, .api_version = ESTUARY_API_VERSION};
    desc.cuda = ESTUARY_CUDA_OFF;
    desc.title = "estuary from C";
    estuary_viewer* viewer = NULL;
    estuary_status status = estuary_create_viewer(&desc, &viewer);
    if (status != ESTUARY_OK) return fail("viewer", status);
    estuary_image_desc field = {.struct_size = sizeof field,
                                .format = ESTUARY_FORMAT_R32_FLOAT,
                                .kind = ESTUARY_IMAGE_2D,
                                .width = SIZE,
                                .height = SIZE};
    field.writer = ESTUARY_WRITER_HOST;
    field.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    field.name = "two waves";
    estuary_image* image = NULL;
    if ((status = estuary_create_image(viewer, &field, &image)) != ESTUARY_OK)
        return fail("image", status);
    estuary_field_view_desc view = {.struct_size = sizeof view, .image = image};
    view.colormap = ESTUARY_COLORMAP_MAGMA;
    if ((status = estuary_add_field_view(viewer, &view, NULL)) != ESTUARY_OK)
        return fail("view", status);
    if ((status = estuary_display(viewer, draw, image, 0)) != ESTUARY_OK)
        return fail("display", status);
    uint32_t messages = 0;
    if ((status = estuary_destroy_viewer(viewer, &messages)) != ESTUARY_OK)
        return fail("teardown", status);
    return 0;
}
