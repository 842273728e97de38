/* estuary.h: the stable C API of libestuary, an embeddable viewer for CUDA programs.
 *
 * Vulkan allocates images and buffers, exports them, and CUDA sees them as mipmapped arrays with
 * a surface per level and as device pointers. Your CUDA code writes them every frame on its own
 * stream; estuary draws them (fields through a colormap with a colorbar, volumes, points) in a
 * window or headless, with the hand-off between the two APIs done on the GPU: the frame's wait
 * (its ring slot is free) is enqueued on your stream before your work and its signal after it.
 * The host never waits except for the frames-in-flight limit. Without CUDA (no NVIDIA GPU, or
 * ESTUARY_CUDA_OFF), images and buffers written from host memory work the same way.
 *
 *   estuary_viewer_desc desc = {.struct_size = sizeof desc, .api_version = ESTUARY_API_VERSION};
 *   estuary_create_viewer(&desc, &viewer);
 *   estuary_image_desc field = {.struct_size = sizeof field, .format = ESTUARY_FORMAT_R32_FLOAT,
 *                               .kind = ESTUARY_IMAGE_2D, .width = 512, .height = 512};
 *   estuary_create_image(viewer, &field, &image);
 *   estuary_field_view_desc view = {.struct_size = sizeof view, .image = image};
 *   estuary_add_field_view(viewer, &view, NULL);
 *   estuary_display(viewer, my_frame_callback, my_data, 0);   until the window closes
 *   estuary_destroy_viewer(viewer, NULL);
 *
 * The contract
 * - Every draw sees exactly its own frame's writes. Frame f's draw waits on the GPU for the
 *   signal estuary enqueues after your work on frame f's stream; CUDA's writes into a slot wait
 *   for the draw of the slot's previous frame.
 * - Streams: any CUDA stream per frame, any number of streams, mixed with graph replay and
 *   deferred waits. Each frame's signal is ordered after the previous frame's (an event recorded
 *   after frame f's signal is waited by frame f + 1's stream before its signal), so the hand-off
 *   timeline only rises and no draw starts before its own frame is written, whichever streams
 *   finish first. Copies (estuary_frame_copy_to_image) and the OpenGL consumer follow the same
 *   order. A replayed or captured frame on another stream than the previous frame waits for that
 *   frame's signal before its graph starts.
 * - Devices: every call that touches CUDA runs on the viewer's CUDA device and gives the calling
 *   thread back the device that was current before it; your current device never changes under
 *   you, and a viewer works whatever device is current. Enqueue your own work for a frame on a
 *   stream of the viewer's device (estuary_viewer_info.cuda_device).
 * - Threads: a viewer and everything made from it belong to the thread that created the viewer;
 *   viewers on different threads are independent. estuary_last_error is per thread.
 * - Results: reads and picks of frame k are filled when estuary_wait_frame(v, k),
 *   estuary_finish, or the estuary_begin_frame that waits for frame k returns; until then a pick
 *   reads hit = -1 (not known yet), never a miss.
 * - Lifetimes and handles: handles carry a generation. A destroyed, foreign (another viewer's or
 *   another kind's) or garbage handle makes a call return ESTUARY_ERROR_INVALID_HANDLE, never
 *   crash; destroying twice is harmless (the second call reports the stale handle). Destroying a
 *   viewer invalidates everything made from it. A frame handle is valid from its
 *   estuary_begin_frame to its estuary_end_frame.
 * - Versions: ESTUARY_API_VERSION is the version of this header; estuary_create_viewer refuses a
 *   header whose major version (or, below 1.0, minor version) differs from the library's, or that
 *   is newer than the library (ESTUARY_ERROR_UNSUPPORTED), and the soname carries the same pair
 *   (libestuary.so.0.3). Within one soname structs only grow at
 *   their end (struct_size tells the library which fields a caller has), enums are 32 bits, and
 *   entry points are only added; CI's ABI check (abidiff against docs/abi/) enforces it.
 *
 * Conventions
 * - Every call returns an estuary_status; on anything but ESTUARY_OK (and ESTUARY_NOT_READY),
 *   estuary_last_error() says what went wrong: which argument or value, why, what is allowed.
 *   Failed calls change nothing.
 * - Descriptions are plain structs in which 0 (or NULL) means the documented default, so a struct
 *   zero-initialized but for struct_size and its required fields is valid (C: designated
 *   initializers, C++: `{}` or designated initializers, ctypes: the default).
 * - CUDA types appear as plain values, so this header needs no CUDA headers: a stream is a
 *   cudaStream_t passed as void*, a surface a cudaSurfaceObject_t as uint64_t, device pointers
 *   and arrays as void*. estuary.hpp gives them their CUDA types.
 */
#ifndef ESTUARY_H
#define ESTUARY_H

#include <stddef.h>
#include <stdint.h>

#if defined(ESTUARY_BUILDING_LIBRARY)
#define ESTUARY_API __attribute__((visibility("default")))
#else
#define ESTUARY_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions, status, errors ---------------------------------------------------------------- */

#define ESTUARY_MAKE_VERSION(major, minor, patch)                                                  \
    ((((uint32_t)(major)) << 22) | (((uint32_t)(minor)) << 12) | ((uint32_t)(patch)))
#define ESTUARY_VERSION_MAJOR(version) ((uint32_t)(version) >> 22)
#define ESTUARY_VERSION_MINOR(version) (((uint32_t)(version) >> 12) & 0x3FFu)
#define ESTUARY_VERSION_PATCH(version) ((uint32_t)(version)&0xFFFu)
#define ESTUARY_API_VERSION ESTUARY_MAKE_VERSION(0, 3, 5)

/* Every description and info struct starts with `struct_size`, the sizeof the caller's header
 * gave it, so later versions append fields and the library reads (and writes) only the bytes the
 * caller has. C++ sets it by itself (and refuses positional initializers); C sets it by hand:
 *   estuary_image_desc d = {.struct_size = sizeof d, .format = ..., .width = 512};
 * A struct_size of 0 (a C struct zeroed and not set) is refused, naming the struct. */
#ifdef __cplusplus
/* C++: a uint32_t that sets itself and that no plain value initializes, so a positional
 * initializer written for 0.2 (whose first value would land in struct_size) does not compile. */
struct estuary_struct_size {
    uint32_t value;
    explicit constexpr estuary_struct_size(uint32_t size) noexcept : value(size) {}
    constexpr operator uint32_t() const noexcept { return value; }
    estuary_struct_size& operator=(uint32_t size) noexcept {
        value = size;
        return *this;
    }
};
#define ESTUARY_STRUCT_SIZE(type)                                                                  \
    estuary_struct_size struct_size {                                                              \
        uint32_t(sizeof(type))                                                                     \
    }
#else
#define ESTUARY_STRUCT_SIZE(type) uint32_t struct_size
#endif

typedef enum estuary_status {
    ESTUARY_OK = 0,
    /* Something failed while running: a CUDA kernel faulted, the GPU hung (every wait is bounded),
     * a file could not be written. The message names what and where. */
    ESTUARY_ERROR_RUNTIME = 1,
    /* The call's arguments are wrong; the message names the argument, the value and what is
     * allowed. Nothing was changed. */
    ESTUARY_ERROR_INVALID_ARGUMENT = 2,
    /* This machine cannot do it: no suitable GPU or display, an extension or format the driver
     * lacks, no CUDA device that Vulkan also sees, not enough GPU memory. */
    ESTUARY_ERROR_UNSUPPORTED = 3,
    /* Not an error: nothing to report yet (estuary_next_frame_stats). */
    ESTUARY_NOT_READY = 4,
    /* GPU (or host) memory ran out for an allocation; smaller sizes or fewer frames in flight may
     * fit. The viewer is intact: retry, or go on without the allocation. */
    ESTUARY_ERROR_OUT_OF_MEMORY = 5,
    /* The GPU device was lost (a fault, a hang, a driver reset) or a CUDA context became
     * unusable (a sticky error): the viewer refuses further frames; destroy and recreate it. */
    ESTUARY_ERROR_DEVICE_LOST = 6,
    /* A bounded wait for the GPU ran out (ESTUARY_WAIT_TIMEOUT_S sets the bound): the viewer
     * untangled both APIs and refuses further frames; destroy it. */
    ESTUARY_ERROR_TIMEOUT = 7,
    /* A handle that is NULL where one is required, was destroyed, belongs to another viewer or
     * kind, or was never made by estuary. Nothing was changed. */
    ESTUARY_ERROR_INVALID_HANDLE = 8,
    ESTUARY_STATUS_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_status;

/* The version of the library (ESTUARY_MAKE_VERSION). */
ESTUARY_API uint32_t estuary_version(void);
/* "ESTUARY_OK", "ESTUARY_ERROR_INVALID_ARGUMENT", ... */
ESTUARY_API const char* estuary_status_name(estuary_status status);
/* The message of the last call on this thread that failed; "" once a later call on this thread
 * succeeded (every call returning a status clears it on success). Valid until the next call. */
ESTUARY_API const char* estuary_last_error(void);
/* Whether a viewer was destroyed while its GPU work would not settle (a hung or faulted GPU): its
 * objects were left to the driver, and the process should end with _exit() rather than exit(),
 * whose handlers may wait for the broken CUDA context. */
ESTUARY_API int estuary_gpu_work_abandoned(void);

/* ---- handles ----------------------------------------------------------------------------------
 */

typedef struct estuary_viewer estuary_viewer;
typedef struct estuary_image estuary_image;
typedef struct estuary_buffer estuary_buffer;
typedef struct estuary_view estuary_view;
typedef struct estuary_frame estuary_frame;

/* ---- the viewer --------------------------------------------------------------------------------
 */

typedef enum estuary_display_mode {
    ESTUARY_DISPLAY_AUTO = 0,     /* a window where there is a display, else headless */
    ESTUARY_DISPLAY_WINDOW = 1,   /* a window; ESTUARY_ERROR_UNSUPPORTED without a display */
    ESTUARY_DISPLAY_HEADLESS = 2, /* offscreen: estuary_screenshot, estuary_read_pixels */
    ESTUARY_DISPLAY_MODE_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_display_mode;

typedef enum estuary_cuda_mode {
    ESTUARY_CUDA_AUTO = 0, /* the first CUDA device whose UUID a Vulkan device shares, else none */
    ESTUARY_CUDA_REQUIRED = 1, /* the same, but ESTUARY_ERROR_UNSUPPORTED (saying why) when none */
    ESTUARY_CUDA_DEVICE = 2,   /* exactly CUDA device `cuda_device` */
    ESTUARY_CUDA_OFF = 3,      /* no CUDA: host-written images and buffers only */
    ESTUARY_CUDA_MODE_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_cuda_mode;

typedef enum estuary_present_mode {
    ESTUARY_PRESENT_FIFO = 0, /* vsync; always available */
    ESTUARY_PRESENT_MAILBOX = 1,
    ESTUARY_PRESENT_IMMEDIATE = 2,             /* FIFO where the surface lacks it, saying so */
    ESTUARY_PRESENT_MODE_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_present_mode;

typedef enum estuary_draw_path {
    ESTUARY_DRAW_AUTO = 0,    /* by measurement: compute on GPUs headless, raster elsewhere */
    ESTUARY_DRAW_RASTER = 1,  /* fragment shaders */
    ESTUARY_DRAW_COMPUTE = 2, /* the same pictures from compute shaders; points, markers and
                                 lines splatted (headless) */
    ESTUARY_DRAW_PATH_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_draw_path;

typedef enum estuary_consumer {
    ESTUARY_CONSUMER_VULKAN = 0,
    /* OpenGL imports the same Vulkan-exported memory and semaphores and draws field views. */
    ESTUARY_CONSUMER_OPENGL = 1,
    ESTUARY_CONSUMER_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_consumer;

typedef enum estuary_gl_handoff {
    ESTUARY_GL_HANDOFF_AUTO = 0,             /* the best the OpenGL context has */
    ESTUARY_GL_HANDOFF_TIMELINE = 1,         /* GL_NV_timeline_semaphore */
    ESTUARY_GL_HANDOFF_BINARY = 2,           /* GL_EXT_semaphore_fd, a binary pair per slot */
    ESTUARY_GL_HANDOFF_HOST = 3,             /* host waits (drivers without GL semaphores) */
    ESTUARY_GL_HANDOFF_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_gl_handoff;

typedef enum estuary_log_level {
    ESTUARY_LOG_INFO = 0,
    ESTUARY_LOG_WARNING = 1,
    ESTUARY_LOG_ERROR = 2,
    ESTUARY_LOG_LEVEL_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_log_level;
typedef void (*estuary_log_fn)(void* user, estuary_log_level level, const char* message);

/* estuary_viewer_desc.flags */
/* The Khronos validation layer; messages are logged and counted. ESTUARY_VALIDATION=1 in the
 * environment turns it on for any program, and estuary_destroy_viewer then fails
 * (ESTUARY_ERROR_RUNTIME) when there were messages. */
#define ESTUARY_VIEWER_VALIDATION 0x1u
/* the window (or a served headless picture) starts with its panels hidden (H shows them) */
#define ESTUARY_VIEWER_NO_UI 0x2u
/* no built-in panels: only colorbars and your UI callback */
#define ESTUARY_VIEWER_NO_PANELS 0x4u
/* the window leaves every key to you (Esc included) */
#define ESTUARY_VIEWER_NO_HOTKEYS 0x8u
/* pipelines are not kept between runs (else in $ESTUARY_CACHE_DIR, $XDG_CACHE_HOME/estuary or
 * ~/.cache/estuary; ESTUARY_PIPELINE_CACHE=0 in the environment turns it off too) */
#define ESTUARY_VIEWER_NO_PIPELINE_CACHE 0x10u

typedef struct estuary_viewer_desc {
    ESTUARY_STRUCT_SIZE(estuary_viewer_desc);
    uint32_t api_version; /* required: ESTUARY_API_VERSION */
    estuary_display_mode display;
    uint32_t width, height;    /* the window, or the headless picture; 0: 1024 x 768 */
    const char* title;         /* NULL: "estuary" */
    uint32_t frames_in_flight; /* 1..32 slots in each ring; 0: 2 */
    estuary_present_mode present_mode;
    estuary_cuda_mode cuda;
    int32_t cuda_device; /* ESTUARY_CUDA_DEVICE only */
    estuary_draw_path draw_path;
    estuary_consumer consumer;
    estuary_gl_handoff gl_handoff;
    uint32_t flags; /* ESTUARY_VIEWER_* */
    /* Where estuary's shaders/ and assets/ are; NULL: $ESTUARY_DATA_DIR, else beside the library
     * (a build tree or bundle), else the install tree's share/estuary. */
    const char* data_dir;
    /* Where F12 writes estuary-screenshot-NNN.png; NULL: the working folder. */
    const char* screenshot_dir;
    estuary_log_fn log; /* what estuary has to say; NULL: standard error */
    void* log_user;
    /* since 0.3.5: frames whose draws go to the GPU together (headless Vulkan viewers;
     * 1..frames_in_flight, 0: 1). Frames are grouped by number, this many to a batch: the draws of
     * a batch are submitted at once when its last frame ends, each waiting for that frame's CUDA
     * work, and the CUDA work of a batch waits for the slots the whole batch needs before its first
     * frame, so the GPU switches between CUDA and Vulkan once per batch instead of once per frame.
     * Every draw still shows its own frame. A host wait for a frame (estuary_wait_frame, a read,
     * estuary_finish) submits what is held first. */
    uint32_t handoff_batch;
} estuary_viewer_desc;

/* Creates the viewer: Vulkan instance and device (the CUDA device's twin where CUDA is used), the
 * frame timelines, and a window or an offscreen target. The caller's current CUDA device is left
 * as it was (estuary_viewer_info.cuda_device names the viewer's). */
ESTUARY_API estuary_status estuary_create_viewer(const estuary_viewer_desc* desc,
                                                 estuary_viewer** viewer);
/* Waits (bounded) for the GPU, then frees everything made from the viewer. `validation_messages`
 * (may be NULL) receives how many messages the validation layer reported over its whole life.
 * NULL viewer: nothing happens. */
ESTUARY_API estuary_status estuary_destroy_viewer(estuary_viewer* viewer,
                                                  uint32_t* validation_messages);

typedef struct estuary_viewer_info {
    ESTUARY_STRUCT_SIZE(estuary_viewer_info);
    int has_cuda;        /* CUDA-written images and buffers are available */
    int32_t cuda_device; /* the CUDA ordinal; -1 without CUDA */
    int headless;
    uint32_t frames_in_flight;
    uint32_t width, height;      /* the picture now (a window's follows its size) */
    estuary_draw_path draw_path; /* as resolved */
    estuary_consumer consumer;
    estuary_gl_handoff gl_handoff; /* as resolved (OpenGL only) */
    const char* device_name;       /* the Vulkan device */
    const char* device_uuid;       /* "5f1c…" */
    const char* device_type;       /* "discrete GPU", "CPU", ... */
    const char* cuda_choice;       /* why CUDA is (not) used, in words */
    const char *vulkan_version, *driver_version;
    const char* data_dir;
    uint32_t gl_debug_messages; /* OpenGL debug errors so far (OpenGL consumer only) */
} /* strings owned by the viewer, valid until it is destroyed */ estuary_viewer_info;
ESTUARY_API estuary_status estuary_get_viewer_info(estuary_viewer* viewer,
                                                   estuary_viewer_info* info);
/* Validation-layer messages so far, and OpenGL debug errors for the OpenGL consumer (0 without
 * ESTUARY_VIEWER_VALIDATION). */
ESTUARY_API uint32_t estuary_validation_messages(estuary_viewer* viewer);

/* ---- images and buffers -------------------------------------------------------------------------
 */

typedef enum estuary_format {
    ESTUARY_FORMAT_R32_FLOAT = 0,
    ESTUARY_FORMAT_RG32_FLOAT = 1,
    ESTUARY_FORMAT_RGBA32_FLOAT = 2,
    ESTUARY_FORMAT_RGBA16_FLOAT = 3, /* IEEE binary16 */
    ESTUARY_FORMAT_RGBA8_UNORM = 4,
    ESTUARY_FORMAT_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_format;

typedef enum estuary_image_kind {
    ESTUARY_IMAGE_2D = 0,
    ESTUARY_IMAGE_3D = 1,       /* width x height x depth; drawn by volume views */
    ESTUARY_IMAGE_2D_ARRAY = 2, /* `layers` 2D images; CUDA writes layered surfaces */
    ESTUARY_IMAGE_CUBE = 3,     /* 6 square faces; CUDA writes cubemap surfaces */
    ESTUARY_IMAGE_1D = 4,
    ESTUARY_IMAGE_KIND_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_image_kind;

typedef enum estuary_writer {
    ESTUARY_WRITER_AUTO = 0,             /* CUDA where the viewer has it, else the host */
    ESTUARY_WRITER_CUDA = 1,             /* Vulkan-exported memory written by your CUDA code */
    ESTUARY_WRITER_HOST = 2,             /* host memory estuary uploads in the frame's draw */
    ESTUARY_WRITER_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_writer;

/* estuary_image_desc.flags and estuary_buffer_desc.flags */
/* One image (buffer) for all frames instead of one per frame in flight. Obtaining its surface or
 * pointer in a frame makes that frame's work wait, on your stream, until every earlier frame is
 * drawn: frames that write it are serialized with the drawing (Mìmir's mode). */
#define ESTUARY_ALLOC_SINGLE 0x1u
/* Images: estuary builds levels 1.. from level 0 (2x2 means, linear blits on the GPU) in every
 * frame's draw, so your code writes level 0 only. */
#define ESTUARY_IMAGE_GENERATE_MIPS 0x2u

typedef struct estuary_image_desc {
    ESTUARY_STRUCT_SIZE(estuary_image_desc);
    estuary_format format;
    estuary_image_kind kind;
    uint32_t width, height; /* height 1 (or 0) for 1D images */
    uint32_t depth;         /* 3D only; 0: 1 */
    uint32_t layers;        /* 2D arrays; 0: 1 (cubes: 6) */
    uint32_t levels;        /* mip levels; 0: the full chain down to 1x1(x1) */
    estuary_writer writer;
    uint32_t flags;   /* ESTUARY_ALLOC_SINGLE, ESTUARY_IMAGE_GENERATE_MIPS */
    const char* name; /* for messages, debuggers, and the colorbar's default label */
    /* Since 0.3.2: where the cells are in your units (metres, mm, ...), which axes, scale bars and
     * box axes read: cell (i, j, k)'s centre is at origin + (i, j, k) * spacing. Spacing 0 is 1
     * (so a zeroed or 0.3 struct reads cells); a negative or non-finite spacing or a non-finite
     * origin is refused. */
    float origin[3];
    float spacing[3];
} estuary_image_desc;

typedef struct estuary_buffer_desc {
    ESTUARY_STRUCT_SIZE(estuary_buffer_desc);
    uint64_t size; /* bytes */
    estuary_writer writer;
    uint32_t flags; /* ESTUARY_ALLOC_SINGLE */
    const char* name;
} estuary_buffer_desc;

/* Allocates one image (or one per frame in flight) and, for CUDA writers, exports it and maps it
 * into CUDA as a mipmapped array with a surface per level. Checks format, kind, extent, layers and
 * levels against what the driver can export first: ESTUARY_ERROR_UNSUPPORTED names what it
 * refused. Between frames; waits for frames in flight. */
ESTUARY_API estuary_status estuary_create_image(estuary_viewer* viewer,
                                                const estuary_image_desc* desc,
                                                estuary_image** image);
ESTUARY_API estuary_status estuary_create_buffer(estuary_viewer* viewer,
                                                 const estuary_buffer_desc* desc,
                                                 estuary_buffer** buffer);
/* Between frames; waits for frames in flight. A view still drawing it is refused (destroy the view
 * first). NULL: nothing happens. */
ESTUARY_API estuary_status estuary_destroy_image(estuary_viewer* viewer, estuary_image* image);
ESTUARY_API estuary_status estuary_destroy_buffer(estuary_viewer* viewer, estuary_buffer* buffer);

typedef struct estuary_image_info {
    ESTUARY_STRUCT_SIZE(estuary_image_info);
    estuary_format format;
    estuary_image_kind kind;
    uint32_t width, height, depth, layers, levels;
    uint32_t copies;       /* 1 for ESTUARY_ALLOC_SINGLE, else frames in flight */
    estuary_writer writer; /* as resolved */
    uint32_t texel_bytes;
    float origin[3], spacing[3]; /* since 0.3.2: as resolved (spacing 0 given: 1) */
} estuary_image_info;
ESTUARY_API estuary_status estuary_get_image_info(estuary_image* image, estuary_image_info* info);
/* The bytes of level `level` (all layers or slices, texels tightly packed): what
 * estuary_frame_copy_to_image takes and estuary_frame_host_level holds. */
ESTUARY_API estuary_status estuary_get_image_level_bytes(estuary_image* image, uint32_t level,
                                                         uint64_t* bytes);
typedef struct estuary_buffer_info {
    ESTUARY_STRUCT_SIZE(estuary_buffer_info);
    uint64_t size;         /* bytes of one copy */
    uint32_t copies;       /* 1 for ESTUARY_ALLOC_SINGLE, else frames in flight */
    estuary_writer writer; /* as resolved */
} estuary_buffer_info;
ESTUARY_API estuary_status estuary_get_buffer_info(estuary_buffer* buffer,
                                                   estuary_buffer_info* info);

/* ---- views
 * --------------------------------------------------------------------------------------- */

/* The built-in colormaps (matplotlib's perceptual maps, Google's turbo, a cyclic and a diverging
 * map) and categorical palettes for integer data: a palette of n entries draws integer value v
 * (rounded) as entry v mod n, exactly, whatever the view's value range. Values from
 * ESTUARY_COLORMAP_USER_FIRST on are the viewer's own (estuary_create_colormap). */
typedef enum estuary_colormap {
    ESTUARY_COLORMAP_VIRIDIS = 0,
    ESTUARY_COLORMAP_MAGMA = 1,
    ESTUARY_COLORMAP_CIVIDIS = 2,
    ESTUARY_COLORMAP_INFERNO = 3,
    ESTUARY_COLORMAP_PLASMA = 4,
    ESTUARY_COLORMAP_TURBO = 5,
    ESTUARY_COLORMAP_TWILIGHT = 6,  /* cyclic: both ends the same colour (phases, angles) */
    ESTUARY_COLORMAP_COOLWARM = 7,  /* diverging: blue, grey-white at the middle, red */
    ESTUARY_COLORMAP_TAB10 = 8,     /* categorical, 10 entries (Tableau 10) */
    ESTUARY_COLORMAP_OKABE_ITO = 9, /* categorical, 8 colour-blind-safe entries */
    ESTUARY_COLORMAP_USER_FIRST = 10,
    ESTUARY_COLORMAP_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_colormap;

typedef enum estuary_field_shading {
    ESTUARY_FIELD_SCALAR = 0,                   /* channel 0 through the colormap */
    ESTUARY_FIELD_MAGNITUDE = 1,                /* |(channel 0, channel 1)| through the colormap */
    ESTUARY_FIELD_RGB = 2,                      /* channels 0-2 as colour, clamped to [0, 1] */
    ESTUARY_FIELD_SHADING_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_field_shading;

/* view flags */
#define ESTUARY_VIEW_HIDDEN 0x1u      /* made hidden (estuary_set_view_params shows it) */
#define ESTUARY_VIEW_NO_COLORBAR 0x2u /* fields and volumes show a colorbar unless this is set */

/* A 2D image (level 0 and its mips, sampled trilinearly) letterboxed into the picture; the 2D
 * camera zooms and pans it. Views draw in the order they were added; a field covers the picture. */
typedef struct estuary_field_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_field_view_desc);
    estuary_image* image; /* required: a 2D image */
    estuary_field_shading shading;
    estuary_colormap colormap;
    float value_min, value_max; /* mapped to the colormap's ends; both 0: 0..1 */
    const char* label;          /* the colorbar's name; NULL: the image's name */
    uint32_t flags;             /* ESTUARY_VIEW_* */
    /* A picture shader of your own instead of estuary's: a path to the SPIR-V of a GLSL fragment
     * shader that includes estuary's field_common.glsl and draw_main.glsl (relative paths are
     * looked up in the data folder's shaders/; "field_relief.frag" is a lit relief). The compute
     * draw path loads "<shader>.compute.spv" beside it. NULL: estuary's field shader. */
    const char* shader;
} estuary_field_view_desc;

typedef enum estuary_volume_style {
    ESTUARY_VOLUME_MARCH = 0, /* ray-marched front to back through a transfer function */
    ESTUARY_VOLUME_SLICE = 1, /* one slice, letterboxed like a field */
    ESTUARY_VOLUME_STYLE_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_volume_style;

/* A 3D image under the orbit camera (or cut by a slice). */
typedef struct estuary_volume_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_volume_view_desc);
    estuary_image* image; /* required: a 3D image */
    estuary_volume_style style;
    estuary_colormap colormap;
    float value_min, value_max; /* both 0: 0..1 */
    float opacity;              /* extinction per voxel at the colormap's end; 0: 0.5 */
    const char* label;
    uint32_t flags;
} estuary_volume_view_desc;

/* ---- Attribute descriptors: a buffer view's data as it lies ----
 * Each channel of a buffer view (position, value, size, direction, normal, index) may name its own
 * buffer, byte offset, stride and format, so separate arrays (SoA), half-precision values or a
 * struct of one's own draw with no copy. attributes[ESTUARY_CHANNEL_*] of a points, markers,
 * lines or mesh view desc; a channel left all 0 (format ESTUARY_ATTRIBUTE_DEFAULT) takes its place
 * in the view's preset layout (the 16- or 32-byte elements its desc describes) in the main buffer
 * (`buffer`, `vertices`) when the view has one, else its default: value 0; size the view's; no
 * direction; normals computed as without a normals buffer; indices consecutive. The main buffer
 * may be NULL when the position channel names its own buffer.
 * Channels by view: position (F32X2..4, F16X2..4; 2D views read x, y): points, markers, lines,
 * meshes. value (F32, F16; I32, U32 as numbers; UNORM8X4 a colour, R in the low byte; with the
 * view's *_RGBA flag the value's 32 bits are the colour: F32, U32 or UNORM8X4): markers, lines,
 * meshes, and points (F32, F16, I32, U32). size (F32, F16; > 0 multiplies the view's size):
 * markers. direction (F32X2..4, F16X2..4): markers; for points the velocity, whose length colours
 * a point that has no value channel (how ESTUARY_POINTS_XY_VELOCITY is expressed). normal
 * (F32X3..4, F16X3..4): meshes. index (U32 only): lines and meshes.
 * Checked when the view is added: offset and stride multiples of 4 for 32-bit formats and
 * UNORM8X4, of 2 for F16 ones; a stride of 0 or at least the format's size; buffers of the same
 * viewer; count (0: as many as every channel's buffer holds) within every channel's buffer.
 * Every buffer a view reads is drawn (acquired from CUDA, released, kept from destruction) as its
 * main buffer is. */
typedef enum estuary_attribute_format {
    ESTUARY_ATTRIBUTE_DEFAULT = 0, /* channel not described: the preset layout (or its default) */
    ESTUARY_ATTRIBUTE_F32 = 1,
    ESTUARY_ATTRIBUTE_F32X2 = 2,
    ESTUARY_ATTRIBUTE_F32X3 = 3,
    ESTUARY_ATTRIBUTE_F32X4 = 4,
    ESTUARY_ATTRIBUTE_F16 = 5,
    ESTUARY_ATTRIBUTE_F16X2 = 6,
    ESTUARY_ATTRIBUTE_F16X3 = 7,
    ESTUARY_ATTRIBUTE_F16X4 = 8,
    ESTUARY_ATTRIBUTE_UNORM8X4 = 9, /* a colour (value channel): RGBA8, R in the low byte */
    ESTUARY_ATTRIBUTE_I32 = 10,
    ESTUARY_ATTRIBUTE_U32 = 11,
    ESTUARY_ATTRIBUTE_FORMAT_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_attribute_format;

typedef enum estuary_channel {
    ESTUARY_CHANNEL_POSITION = 0,
    ESTUARY_CHANNEL_VALUE = 1,
    ESTUARY_CHANNEL_SIZE = 2,
    ESTUARY_CHANNEL_DIRECTION = 3,
    ESTUARY_CHANNEL_NORMAL = 4,
    ESTUARY_CHANNEL_INDEX = 5,
    ESTUARY_CHANNEL_COUNT = 8,            /* the attributes array's length (room to grow) */
    ESTUARY_CHANNEL_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_channel;

/* Embedded by value in the view descs, so frozen (docs/ABI.md): no struct_size. */
typedef struct estuary_attribute {
    estuary_buffer* buffer; /* NULL: the view's main buffer (buffer / vertices) */
    uint64_t offset;        /* bytes to element 0 */
    uint32_t stride;        /* bytes from one element to the next; 0: the format's size */
    estuary_attribute_format format;
} estuary_attribute;

typedef enum estuary_points_layout {
    /* vec4 (x, y, vx, vy) per point in 2D, coloured by the speed |(vx, vy)|. */
    ESTUARY_POINTS_XY_VELOCITY = 0,
    /* vec4 (x, y, z, s) per point in 3D under the orbit camera, coloured by the scalar s. */
    ESTUARY_POINTS_XYZ_SCALAR = 1,
    ESTUARY_POINTS_LAYOUT_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_points_layout;

/* Points pulled from a buffer on the GPU (no vertex input), blended additively over what is
 * below. 2D points are in the cells of the field drawn below (cell (i, j) at (i, j)) or, without
 * one, in `bounds` (x0, y0, x1, y1); 3D points in `bounds` (x0, y0, z0, x1, y1, z1), the box the
 * orbit camera frames (all 0: the unit cube [-0.5, 0.5]^3). */
typedef struct estuary_points_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_points_view_desc);
    estuary_buffer* buffer; /* required unless attributes name the position's buffer */
    estuary_points_layout layout;
    uint32_t count; /* points drawn; 0: as many as the buffer holds */
    float size;     /* pixels; 0: 1 */
    /* Each point's share of its colour, added up where points overlap (0..1); 0: chosen from
     * the count and the picture's area, for points spread over it. Dense clouds want less. */
    float intensity;
    estuary_colormap colormap;
    float value_min, value_max; /* speed or scalar at the colormap's ends; both 0: 0..1 */
    float bounds[6];
    const char* label;
    uint32_t flags; /* ESTUARY_VIEW_HIDDEN; points show a colorbar only when asked:
                       ESTUARY_POINTS_COLORBAR */
    estuary_attribute attributes[ESTUARY_CHANNEL_COUNT]; /* see estuary_attribute; all 0: preset */
} estuary_points_view_desc;
#define ESTUARY_POINTS_COLORBAR 0x4u

typedef enum estuary_marker_shape {
    ESTUARY_MARKER_SHAPE_DISC = 0,
    ESTUARY_MARKER_SHAPE_SQUARE = 1,
    ESTUARY_MARKER_SHAPE_TRIANGLE = 2, /* its tip along the direction */
    ESTUARY_MARKER_SHAPE_DIAMOND = 3,
    ESTUARY_MARKER_SHAPE_CROSS = 4, /* a plus sign */
    ESTUARY_MARKER_SHAPE_RING = 5,
    ESTUARY_MARKER_SHAPE_ARROW = 6,            /* tail to tip along the direction */
    ESTUARY_MARKER_SHAPE_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_marker_shape;

/* markers view flags (besides ESTUARY_VIEW_HIDDEN and ESTUARY_POINTS_COLORBAR) */
#define ESTUARY_MARKERS_3D 0x10u      /* positions (x, y, z) under the orbit camera; else (x, y) */
#define ESTUARY_MARKERS_OUTLINE 0x20u /* the shape's outline, line_width wide, not the shape */
#define ESTUARY_MARKERS_WORLD_SIZE 0x40u      /* size in the positions' units, not in pixels */
#define ESTUARY_MARKERS_SCALE_BY_LENGTH 0x80u /* size times |direction| (vector glyphs) */
#define ESTUARY_MARKERS_RGBA 0x100u /* value's bits are an RGBA8 colour (R in the low byte) */

/* Markers pulled from a buffer on the GPU: 32 bytes each, float (x, y, z, value) then float
 * (dx, dy, dz, size). Each is a shape of `size` times its own size (where > 0), turned so that its
 * +x (a triangle's tip, an arrow's head) runs along (dx, dy, dz) as the camera shows it (a zero
 * direction: along the picture's +x), coloured by value through the colormap (or by its bits with
 * ESTUARY_MARKERS_RGBA), antialiased and blended over the picture in buffer order (no depth test).
 * Placed as points are: 2D in the cells of the field below or in `bounds`, 3D in `bounds`. With
 * ESTUARY_DRAW_COMPUTE (up to 2^24 - 1 markers) each pixel shows its topmost marker only: one
 * below does not show through the top one's antialiased edge or translucent colour. */
typedef struct estuary_markers_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_markers_view_desc);
    estuary_buffer* buffer; /* required unless attributes name the position's buffer */
    estuary_marker_shape shape;
    uint32_t count;   /* markers drawn; 0: as many as the buffer holds */
    float size;       /* pixels (ESTUARY_MARKERS_WORLD_SIZE: position units); 0: 8 pixels */
    float line_width; /* outlines, pixels; 0: 1.5 */
    estuary_colormap colormap;
    float value_min, value_max; /* both 0: 0..1 */
    float bounds[6];
    const char* label;
    uint32_t flags;
    estuary_attribute attributes[ESTUARY_CHANNEL_COUNT]; /* see estuary_attribute; all 0: preset */
} estuary_markers_view_desc;

typedef enum estuary_line_topology {
    ESTUARY_LINES_SEGMENTS = 0, /* vertices (or indices) 0-1, 2-3, ... */
    ESTUARY_LINES_STRIP = 1,    /* 0-1, 1-2, ...; an index of 0xFFFFFFFF breaks the strip */
    ESTUARY_LINE_TOPOLOGY_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_line_topology;

/* lines view flags (besides ESTUARY_VIEW_HIDDEN and ESTUARY_POINTS_COLORBAR) */
#define ESTUARY_LINES_3D 0x10u    /* vertices (x, y, z) under the orbit camera; else (x, y) */
#define ESTUARY_LINES_RGBA 0x100u /* value's bits are an RGBA8 colour (R in the low byte) */

/* Lines between vertices pulled from a buffer on the GPU: 16 bytes each, float (x, y, z, value),
 * coloured by value through the colormap (or by its bits with ESTUARY_LINES_RGBA), blended
 * between a segment's ends; `width` pixels wide, antialiased, blended over the picture in order.
 * With an index buffer (uint32 each) segments join the vertices it names; an index past the
 * vertices drops its segment. Placed as points are: 2D in the cells of the field below or in
 * `bounds`, 3D in `bounds`. For graphs (segments), trajectories and streamlines (strips). With
 * ESTUARY_DRAW_COMPUTE (up to 2^24 - 1 segments) a pixel where segments of different colours
 * overlap takes the colour of the one covering it most. */
typedef struct estuary_lines_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_lines_view_desc);
    estuary_buffer* vertices; /* required unless attributes name the position's buffer */
    estuary_buffer* indices;  /* NULL: consecutive vertices (or the index channel's) */
    estuary_line_topology topology;
    uint32_t count; /* vertices (or indices) used; 0: as many as the buffer holds */
    float width;    /* pixels; 0: 1.5 */
    estuary_colormap colormap;
    float value_min, value_max; /* both 0: 0..1 */
    float bounds[6];
    const char* label;
    uint32_t flags;
    estuary_attribute attributes[ESTUARY_CHANNEL_COUNT]; /* see estuary_attribute; all 0: preset */
} estuary_lines_view_desc;

/* Vector glyphs of a 2D velocity image: one marker every `spacing` cells (at the middle cell of
 * each square of spacing x spacing), turned along the velocity in channels 0 and 1 (cells per unit,
 * rows down), as long as `size` times the speed over value_max, coloured by the speed through the
 * colormap. Placed in the image's cells, so they line up with a field view of an image of the
 * same size below. Of a 3D image (4 channels, the velocity in 0, 1 and 2): one every `spacing`
 * cells along each side, under the orbit camera where a volume view of the image shows those
 * cells. */
typedef struct estuary_glyph_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_glyph_view_desc);
    estuary_image* image;       /* required: 2D, with 2 or more channels; or 3D with 4 */
    estuary_marker_shape shape; /* usually ESTUARY_MARKER_SHAPE_ARROW */
    uint32_t spacing;           /* cells between glyphs; 0: 8 */
    float size;                 /* pixels at speed value_max; 0: 16 */
    estuary_colormap colormap;
    float value_min, value_max; /* speeds; both 0: 0..1 */
    const char* label;
    uint32_t flags; /* ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MARKERS_OUTLINE */
} estuary_glyph_view_desc;

typedef enum estuary_mesh_shading {
    ESTUARY_MESH_SMOOTH = 0, /* a normal per vertex, blended across each triangle */
    ESTUARY_MESH_FLAT = 1,   /* one normal per triangle, from its corners */
    ESTUARY_MESH_SHADING_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_mesh_shading;

/* mesh view flags (besides ESTUARY_VIEW_HIDDEN and ESTUARY_POINTS_COLORBAR) */
#define ESTUARY_MESH_WIREFRAME 0x20u /* the triangles' edges drawn over their faces */
#define ESTUARY_MESH_RGBA 0x100u     /* value's bits are an RGBA8 colour (R in the low byte) */

/* A triangle mesh pulled from buffers on the GPU, under the orbit camera in `bounds` as 3D points
 * are (all 0: the unit cube [-0.5, 0.5]^3). Vertices of 16 bytes, float (x, y, z, value), coloured
 * by value through the colormap (or by its bits with ESTUARY_MESH_RGBA; alpha unused) and lit by
 * one white light from the viewer's upper left (diffuse over a fifth of ambient; both sides of a
 * triangle are lit). A triangle is three consecutive vertices, or three uint32 indices; one with an
 * index past the vertices is not drawn. The mesh hides its own far side (depth-tested) and is
 * drawn opaque over what is below; views added after it are drawn over it. Smooth shading reads
 * `normals` (16 bytes a vertex, float (nx, ny, nz, unused); a zero normal: the triangle's), or,
 * without them, adds up each frame the unit normals of the triangles around each vertex. Write
 * the vertices every frame for a surface that moves. */
typedef struct estuary_mesh_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_mesh_view_desc);
    estuary_buffer* vertices; /* required unless attributes name the position's buffer */
    estuary_buffer* indices;  /* NULL: consecutive vertices (or the index channel's) */
    estuary_buffer* normals;  /* NULL: summed from the triangles each frame (smooth shading) */
    estuary_mesh_shading shading;
    uint32_t count;   /* indices (or vertices) used, 3 a triangle; 0: as many as the buffer holds */
    float wire_width; /* ESTUARY_MESH_WIREFRAME: pixels; 0: 1 */
    float wire_color[4]; /* RGBA in 0..1, blended over the faces by its alpha; all 0: black */
    estuary_colormap colormap;
    float value_min, value_max; /* both 0: 0..1 */
    float bounds[6];
    const char* label;
    uint32_t flags;
    estuary_attribute attributes[ESTUARY_CHANNEL_COUNT]; /* see estuary_attribute; all 0: preset */
} estuary_mesh_view_desc;

/* Each returns the view in `view` (may be NULL). Between frames. Views that OpenGL cannot draw
 * (volumes, points, markers, lines, glyphs, meshes) are ESTUARY_ERROR_UNSUPPORTED with
 * ESTUARY_CONSUMER_OPENGL. */
ESTUARY_API estuary_status estuary_add_field_view(estuary_viewer* viewer,
                                                  const estuary_field_view_desc* desc,
                                                  estuary_view** view);
ESTUARY_API estuary_status estuary_add_volume_view(estuary_viewer* viewer,
                                                   const estuary_volume_view_desc* desc,
                                                   estuary_view** view);
ESTUARY_API estuary_status estuary_add_points_view(estuary_viewer* viewer,
                                                   const estuary_points_view_desc* desc,
                                                   estuary_view** view);
ESTUARY_API estuary_status estuary_add_markers_view(estuary_viewer* viewer,
                                                    const estuary_markers_view_desc* desc,
                                                    estuary_view** view);
ESTUARY_API estuary_status estuary_add_lines_view(estuary_viewer* viewer,
                                                  const estuary_lines_view_desc* desc,
                                                  estuary_view** view);
ESTUARY_API estuary_status estuary_add_glyph_view(estuary_viewer* viewer,
                                                  const estuary_glyph_view_desc* desc,
                                                  estuary_view** view);
ESTUARY_API estuary_status estuary_add_mesh_view(estuary_viewer* viewer,
                                                 const estuary_mesh_view_desc* desc,
                                                 estuary_view** view);
ESTUARY_API estuary_status estuary_destroy_view(estuary_viewer* viewer, estuary_view* view);

/* What may change between frames, for every kind of view (fields ignore the points' and volumes'
 * fields and so on). Get, change, set. */
typedef struct estuary_view_params {
    ESTUARY_STRUCT_SIZE(estuary_view_params);
    int visible;
    estuary_colormap colormap;
    float value_min, value_max;
    float mip_bias;             /* fields and volumes: added to the level the sampler picks */
    float opacity;              /* volumes */
    estuary_volume_style style; /* volumes */
    uint32_t slice_axis;        /* volumes: 0 x, 1 y, 2 z */
    float slice_position;       /* volumes: 0..1 */
    uint32_t point_count;       /* points, markers, labels; lines, meshes: vertices (or indices) */
    float point_size;           /* points, pixels; markers, as their desc's size; lines' width;
                                   text and labels: em size, pixels */
    float point_intensity;      /* points: 0..1, 0: automatic */
    uint32_t panel;             /* the panel it draws in (estuary_set_layout); 0 by default */
} estuary_view_params;
ESTUARY_API estuary_status estuary_get_view_params(estuary_view* view, estuary_view_params* params);
ESTUARY_API estuary_status estuary_set_view_params(estuary_view* view,
                                                   const estuary_view_params* params);
/* Since 0.3.2: names of a categorical palette's entries (entry i is names[i]), which the view's
 * colorbar shows beside its colours instead of numbers while its colormap is categorical. Copied;
 * count 0 (names may then be NULL) clears them. At most 256 names, each non-NULL, valid UTF-8 and
 * at most 256 bytes. */
ESTUARY_API estuary_status estuary_set_view_legend(estuary_view* view, const char* const* names,
                                                   uint32_t count);

/* ---- text and labels
 * --------------------------------------------------------------------------------------- */

/* Text drawn with a signed-distance-field font built at run time from DejaVu Sans (installed
 * with estuary; FreeType renders it): crisp at any size, antialiased, blended over the views
 * below it in the order views are added. UTF-8; '\n' breaks lines; characters outside ASCII,
 * Latin-1, Greek and the units' symbols (such as µ ° Å ² ³ ± × − ·) and malformed UTF-8 draw
 * as the replacement glyph. Colours are sRGB-encoded RGBA, 0..1; all 0: opaque white. The
 * OpenGL consumer draws no text: ESTUARY_ERROR_UNSUPPORTED. */
typedef enum estuary_text_align {
    ESTUARY_TEXT_ALIGN_LEFT = 0, /* the anchor at the text's left (start) */
    ESTUARY_TEXT_ALIGN_CENTER = 1,
    ESTUARY_TEXT_ALIGN_RIGHT = 2,
    ESTUARY_TEXT_ALIGN_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_text_align;

typedef enum estuary_text_valign {
    ESTUARY_TEXT_VALIGN_BASELINE = 0, /* the anchor on the first line's baseline */
    ESTUARY_TEXT_VALIGN_TOP = 1,      /* at the top of the tallest glyphs */
    ESTUARY_TEXT_VALIGN_MIDDLE = 2,   /* halfway from the top to the bottom of all lines */
    ESTUARY_TEXT_VALIGN_BOTTOM = 3,   /* at the bottom of the last line's descenders */
    ESTUARY_TEXT_VALIGN_MAX_ENUM = 0x7FFFFFFF
} estuary_text_valign;

/* text view flags (besides ESTUARY_VIEW_HIDDEN) */
#define ESTUARY_TEXT_WORLD 0x10u /* position is a point in the view's coordinates, not pixels */
#define ESTUARY_TEXT_3D 0x20u    /* position (x, y, z) under the orbit camera (implies WORLD) */

/* One run of text. Screen-anchored (the default): `position` x, y in pixels from the picture's
 * (the panel's) top-left corner, y down. World-anchored (ESTUARY_TEXT_WORLD): a point placed as
 * the buffer views place their elements, 2D in the cells of the field below or in `bounds`,
 * followed through zoom and pan; with ESTUARY_TEXT_3D a point in `bounds`' box under the orbit
 * camera, projected each frame (not drawn while behind the eye). The size is the em size in
 * pixels whatever the zoom. estuary_view_params.point_size changes the size between frames. */
typedef struct estuary_text_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_text_view_desc);
    const char* text;         /* UTF-8, copied; NULL: empty (estuary_set_text fills it later) */
    float position[3];        /* pixels (x, y), or the view's coordinates (ESTUARY_TEXT_WORLD) */
    float size;               /* em size, pixels; 0: 14 */
    float color[4];           /* sRGB-encoded RGBA 0..1; all 0: opaque white */
    estuary_text_align align; /* where the anchor lies along the text */
    estuary_text_valign valign;
    float rotation; /* degrees counter-clockwise about the anchor (90: reads bottom to top) */
    float bounds[6];
    const char* label;
    uint32_t flags; /* ESTUARY_VIEW_HIDDEN, ESTUARY_TEXT_WORLD, ESTUARY_TEXT_3D */
} estuary_text_view_desc;
ESTUARY_API estuary_status estuary_add_text_view(estuary_viewer* viewer,
                                                 const estuary_text_view_desc* desc,
                                                 estuary_view** view);
/* A text view's text from the next frame on (UTF-8, copied; NULL: empty). Between frames. */
ESTUARY_API estuary_status estuary_set_text(estuary_view* text_view, const char* utf8);

/* labels view flags (besides ESTUARY_VIEW_HIDDEN) */
#define ESTUARY_LABELS_3D 0x10u /* anchors (x, y, z) under the orbit camera; else (x, y) */

/* Labels at anchors a buffer holds, each one of the desc's strings: written on the GPU (a CUDA
 * kernel, every frame if they move) and never read by the host, so a simulation can tag
 * particles or vortices. An anchor is 16 bytes, float (x, y, z) then a uint32 string index into
 * `strings` (an index past the table: that label is not drawn), or its position and index
 * channels described by `attributes` (POSITION: F32X2..4, F16X2..4; INDEX: U32). Anchors are
 * placed as markers are (2D in the cells of the field below or in `bounds`, 3D in `bounds`), the
 * label `offset` pixels from its anchor, aligned on that point; a NaN anchor draws nothing.
 * estuary_view_params.point_count is the labels drawn, point_size their em size in pixels. */
typedef struct estuary_labels_view_desc {
    ESTUARY_STRUCT_SIZE(estuary_labels_view_desc);
    estuary_buffer* buffer;     /* required unless attributes name the position's buffer */
    const char* const* strings; /* string_count UTF-8 strings, copied (NULL entries: empty) */
    uint32_t string_count;      /* at least 1 */
    uint32_t count;             /* labels drawn; 0: as many as the buffer holds */
    float size;                 /* em size, pixels; 0: 14 */
    float color[4];             /* sRGB-encoded RGBA 0..1; all 0: opaque white */
    float offset[2];            /* pixels from the anchor to the label's alignment point, y down */
    estuary_text_align align;
    estuary_text_valign valign;
    float bounds[6];
    const char* label;
    uint32_t flags; /* ESTUARY_VIEW_HIDDEN, ESTUARY_LABELS_3D */
    estuary_attribute attributes[ESTUARY_CHANNEL_COUNT]; /* POSITION and INDEX; all 0: preset */
} estuary_labels_view_desc;
ESTUARY_API estuary_status estuary_add_labels_view(estuary_viewer* viewer,
                                                   const estuary_labels_view_desc* desc,
                                                   estuary_view** view);

/* ---- colormaps
 * ----------------------------------------------------------------------------------- A colormap of
 * the caller's, usable wherever an estuary_colormap is (view descs, estuary_set_view_params) from
 * the next frame on. Made from RGBA stops (positions 0..1, strictly increasing; interpolated to 256
 * entries, clamped before the first and after the last) or from `sample_count` RGBA samples (8-bit
 * or float, resampled linearly to 256 entries). Colours are sRGB-encoded values 0..1 (as CSS and
 * matplotlib write them); they are interpolated in those values, or in linear light with
 * ESTUARY_COLORMAP_LINEAR_BLEND. A categorical one is a palette: its stops' colours (in order) or
 * its samples, at most 256, drawn by integer value v as entry v mod n, never blended. A viewer
 * holds 64 colormaps: the 10 built in and 54 of yours. Between frames; the next frame's draw
 * uploads it (no wait for the frames in flight, which keep their colours). */
typedef struct estuary_colormap_stop {
    float position; /* 0..1 */
    float rgba[4];  /* sRGB-encoded, 0..1 (alpha is kept; the views draw the colour opaque) */
} estuary_colormap_stop;

typedef enum estuary_colormap_samples {
    ESTUARY_COLORMAP_SAMPLES_RGBA8 = 0,   /* 4 bytes a sample, 0..255 */
    ESTUARY_COLORMAP_SAMPLES_RGBA32F = 1, /* 4 floats a sample, 0..1 */
    ESTUARY_COLORMAP_SAMPLES_MAX_ENUM = 0x7FFFFFFF
} estuary_colormap_samples;

/* colormap flags */
#define ESTUARY_COLORMAP_CATEGORICAL 0x1u  /* a palette for integer values */
#define ESTUARY_COLORMAP_LINEAR_BLEND 0x2u /* interpolate in linear light, not sRGB values */

typedef struct estuary_colormap_desc {
    ESTUARY_STRUCT_SIZE(estuary_colormap_desc);
    const char* name; /* shown in colorbars and panels; NULL or "": "user <value>" */
    uint32_t flags;   /* ESTUARY_COLORMAP_* */
    /* Exactly one of: */
    const estuary_colormap_stop* stops;
    uint32_t stop_count;
    const void* samples; /* sample_count samples of sample_format */
    uint32_t sample_count;
    estuary_colormap_samples sample_format;
} estuary_colormap_desc;
ESTUARY_API estuary_status estuary_create_colormap(estuary_viewer* viewer,
                                                   const estuary_colormap_desc* desc,
                                                   estuary_colormap* colormap);

/* The camera of panel 0 (every view's with the default layout; estuary_get_panel_camera and
 * estuary_set_panel_camera: any panel's): 2D zoom (1: the field fits) and pan (field-normalised:
 * the point (0.5 + pan_x, 0.5 + pan_y) is at the centre); 3D orbit yaw and pitch in degrees, with
 * zoom bringing it closer. The window moves it with the mouse. */
typedef struct estuary_camera {
    ESTUARY_STRUCT_SIZE(estuary_camera);
    float zoom;
    float pan_x, pan_y;
    float yaw_degrees, pitch_degrees;
} estuary_camera;
ESTUARY_API estuary_status estuary_get_camera(estuary_viewer* viewer, estuary_camera* camera);
ESTUARY_API estuary_status estuary_set_camera(estuary_viewer* viewer, const estuary_camera* camera);

/* ---- panels -------------------------------------------------------------------------------------
 * The picture as a grid of rows by columns of panels, numbered row by row (panel = row * columns +
 * column; row 0 at the top), `gap_pixels` apart, sized by relative heights and widths. Each panel
 * draws the views whose estuary_view_params.panel names it, under its own camera, as if it were
 * the whole picture (letterboxing, the 2D placement over its own field, the orbit camera); the
 * gaps show the background. The default is one panel, the whole picture. A layout leaving out a
 * panel some view draws in is refused (move the view first); panels kept keep their cameras and
 * settings, new ones start with the default camera. With several panels a window needs a
 * swapchain that can be copied into (offered by every desktop driver), and the OpenGL consumer
 * draws one panel only. Between frames. */
#define ESTUARY_LAYOUT_MAX 16 /* rows and columns, each */
#define ESTUARY_PANEL_NONE 0xFFFFFFFFu
typedef struct estuary_layout_desc {
    ESTUARY_STRUCT_SIZE(estuary_layout_desc);
    uint32_t rows, columns;     /* 0: 1; at most ESTUARY_LAYOUT_MAX */
    const float* row_heights;   /* `rows` relative sizes, finite and > 0; NULL: equal */
    const float* column_widths; /* `columns` relative sizes; NULL: equal */
    float gap_pixels;           /* between panels, 0..256 (shrunk where the picture is too small) */
} estuary_layout_desc;
ESTUARY_API estuary_status estuary_set_layout(estuary_viewer* viewer,
                                              const estuary_layout_desc* desc);
/* A panel's settings. Panels with the same non-zero camera_link share one camera: a panel joining
 * a link takes the camera of the link's others, and moving one (the mouse, set_panel_camera)
 * moves all. What a panel says is drawn over its views with the text renderer, after them: its
 * title, its views' colorbars (each view that shows one, stacked at the right edge), and what its
 * flags ask for. Axes read the user's units: a field's or volume's image origin and spacing
 * (estuary_image_desc), a buffer view's bounds. Titles and units: valid UTF-8, at most 256 bytes.
 */
#define ESTUARY_PANEL_AXES                                                                         \
    0x1u /* 2D axes with ticks and labels around a field or buffer views, or                       \
            3D box axes and an orientation gizmo around a volume or 3D view */
#define ESTUARY_PANEL_GRID 0x2u       /* faint lines at the major ticks (2D) */
#define ESTUARY_PANEL_LOG_X 0x4u      /* x ticks at decades: the values drawn are log10 of x */
#define ESTUARY_PANEL_LOG_Y 0x8u      /* the same for y */
#define ESTUARY_PANEL_SCALE_BAR 0x10u /* a bar of a round length at the bottom left (2D) */
/* Since 0.3.3: x is time, in seconds after time_origin; ticks on calendar boundaries (UTC), the
 * labels' common date written once at the axis's end. Not with ESTUARY_PANEL_LOG_X. */
#define ESTUARY_PANEL_TIME_X 0x20u
typedef struct estuary_panel_desc {
    ESTUARY_STRUCT_SIZE(estuary_panel_desc);
    const char* title;    /* drawn above the panel; NULL: none (copied) */
    uint32_t camera_link; /* 0: its own camera */
    uint32_t flags;       /* ESTUARY_PANEL_* */
    const char*
        axis_titles[3]; /* x, y, z titles with units ("x [mm]"; copied); NULL: "x", "y", "z" */
    const char* scale_bar_unit; /* the scale bar's unit ("mm"; copied); NULL: none */
    double time_origin; /* since 0.3.3: seconds since 1970-01-01 00:00 UTC at x = 0 (TIME_X) */
} estuary_panel_desc;
ESTUARY_API estuary_status estuary_set_panel(estuary_viewer* viewer, uint32_t panel,
                                             const estuary_panel_desc* desc);
/* A panel's camera (estuary_get_camera and estuary_set_camera: panel 0's). */
ESTUARY_API estuary_status estuary_get_panel_camera(estuary_viewer* viewer, uint32_t panel,
                                                    estuary_camera* camera);
ESTUARY_API estuary_status estuary_set_panel_camera(estuary_viewer* viewer, uint32_t panel,
                                                    const estuary_camera* camera);
/* The panel at framebuffer pixel (x, y) of the picture: ESTUARY_PANEL_NONE in a gap or outside. */
ESTUARY_API estuary_status estuary_panel_at(estuary_viewer* viewer, float x, float y,
                                            uint32_t* panel);
/* The picture's background, linear RGB in [0, 1]. */
ESTUARY_API estuary_status estuary_set_background(estuary_viewer* viewer, float red, float green,
                                                  float blue);

/* ---- recording ----------------------------------------------------------------------------------
 * The pictures drawn from now on, one video frame each, into an H.264 or HEVC file through FFmpeg's
 * libraries (loaded at the first recording from libestuary_video.so beside the library; a machine
 * without FFmpeg gets ESTUARY_ERROR_UNSUPPORTED naming what did not load). The draw copies each
 * picture out; a worker thread encodes it once the frame is drawn, so the loop waits only when
 * the encoder falls 8 frames behind. The file is written as "<path>.part" and renamed by
 * estuary_record_stop (or by estuary_destroy_viewer); MP4 is written in one-second fragments, so
 * even the part of a run that crashed plays. Odd picture sides are padded by one repeated row or
 * column (4:2:0 needs even ones). Not with ESTUARY_CONSUMER_OPENGL. */
typedef struct estuary_record_desc {
    ESTUARY_STRUCT_SIZE(estuary_record_desc);
    const char* path; /* required: ending in .mp4 or .mkv, in an existing folder */
    uint32_t fps;     /* the file's frame rate; 0: 60 */
    uint32_t quality; /* 1..51, lower is better (x264/x265 CRF, NVENC CQ); 0: 23 */
    /* An FFmpeg encoder name; NULL: the first of h264_nvenc, hevc_nvenc, libx264, libx265 and
     * libopenh264 that opens (NVENC needs a GPU and driver that have it). */
    const char* encoder;
} estuary_record_desc;

typedef struct estuary_record_info {
    ESTUARY_STRUCT_SIZE(estuary_record_info);
    uint64_t frames;       /* written to the file */
    double copy_ms_mean;   /* host time a frame, taking its picture out for the encoder */
    double stall_ms_total; /* host time the loop waited for the encoder's queue */
    const char* encoder;   /* the encoder that ran; owned by the viewer, valid until it goes */
} estuary_record_info;

/* Between frames. Refuses a second recording, a bad path, fps or quality, naming the value. The
 * path gets the checks of the other outputs: a symbolic link (dangling or not) is followed and its
 * target is the file replaced; a folder, FIFO, device or write-protected file is refused. */
ESTUARY_API estuary_status estuary_record_start(estuary_viewer* viewer,
                                                const estuary_record_desc* desc);
/* Waits for the frames in flight, encodes them, finishes and renames the file; `info` may be
 * NULL. Between frames: called inside one it fails and the recording goes on. ESTUARY_ERROR_
 * INVALID_ARGUMENT when nothing records; an encoding or writing failure (a full disk; a file-size
 * limit, where SIGXFSZ is ignored) ends the recording when it happens and is reported here
 * (ESTUARY_ERROR_RUNTIME), the path keeping the file it had before and no "<path>.part" left. */
ESTUARY_API estuary_status estuary_record_stop(estuary_viewer* viewer, estuary_record_info* info);

/* ---- serving (since 0.3.3) ----------------------------------------------------------------------
 * The live picture to browsers (and notebooks): an HTTP and WebSocket server on a thread of its
 * own serves one page at "/" (compiled into the library; no file is ever read) and the stream at
 * "/ws"; every other path gets 404. Each frame's picture is copied out as for a recording and,
 * when the encoder is free, encoded on a worker thread (JPEG; H.264 where asked and offered) and
 * sent to every page whose last frame has left; otherwise the frame is dropped, never queued.
 * The page's pointer, wheel and keys come back as estuary_events, delivered at the next
 * estuary_begin_frame as estuary_inject_event's are, from the one page that steers (the first; a
 * page may take control; its Escape is dropped); the pick readout under its cursor is sent back
 * to it. A headless viewer that serves draws the window's panels and the estuary_set_ui callback
 * into its picture, driven by that page (ESTUARY_VIEWER_NO_UI hides them), and its picture takes
 * the page's size (even, 64x64 to 3840x2160, once the size has held; not while recording). Binds
 * 127.0.0.1 by default; any other address needs allow_remote and a token, required by the page and
 * the WebSocket (?token=). Requests, messages and connections are bounded; a bad one is answered
 * with an error and closed, and the frames go on. Not with ESTUARY_CONSUMER_OPENGL. */
typedef enum estuary_serve_codec {
    /* H.264 where an encoder opens and the page decodes it, else JPEG */
    ESTUARY_SERVE_CODEC_AUTO = 0,
    ESTUARY_SERVE_CODEC_H264 = 1,
    ESTUARY_SERVE_CODEC_JPEG = 2,
    ESTUARY_SERVE_CODEC_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_serve_codec;
typedef struct estuary_serve_desc {
    ESTUARY_STRUCT_SIZE(estuary_serve_desc);
    const char* address; /* a numeric IPv4 or IPv6 address; NULL: "127.0.0.1" */
    uint32_t port;       /* 0: a free one (estuary_serve_info.port says which) */
    /* Non-zero: an address other than 127.0.0.1 or ::1 may be bound (a token is then needed). */
    int allow_remote;
    /* The page's and the WebSocket's ?token= (16 to 128 of [A-Za-z0-9_-]); NULL: none on
     * 127.0.0.1 and ::1, a random one (getrandom) on any other address. */
    const char* token;
    estuary_serve_codec codec;
    uint32_t max_clients;  /* pages at once, 1..64; 0: 8 */
    uint32_t jpeg_quality; /* 1..100; 0: 80 */
} estuary_serve_desc;
typedef struct estuary_serve_info {
    ESTUARY_STRUCT_SIZE(estuary_serve_info);
    int running;
    uint32_t port;
    const char* url;     /* the page's address, token included; owned by the viewer, valid until
                            the server stops */
    const char* encoder; /* "jpeg", or the H.264 encoder that opened: "nvenc (CUDA input)"
                            (NVENC from GPU memory), or FFmpeg's h264_nvenc or libx264 */
    uint32_t clients;    /* pages connected now */
    uint64_t frames_encoded, frames_sent;
    uint64_t frames_dropped;   /* pictures not encoded: the encoder was busy */
    uint64_t sends_dropped;    /* encoded frames a page missed: its previous one had not left */
    uint64_t requests_refused; /* HTTP requests and WebSocket messages answered with an error */
    double encode_ms_mean, encode_ms_last; /* the encoder thread's time a frame */
    double latency_ms_last; /* the steering page's last report of frame-to-screen time (?stats) */
} estuary_serve_info;
/* Between frames. Refuses a second server, a bad address, port, token or limit (naming it), and a
 * non-loopback address without allow_remote; a port in use is ESTUARY_ERROR_RUNTIME. */
ESTUARY_API estuary_status estuary_serve_start(estuary_viewer* viewer,
                                               const estuary_serve_desc* desc);
/* Closes every page's WebSocket (1001, going away) and joins the threads, in bounded time (about
 * a second). ESTUARY_ERROR_INVALID_ARGUMENT when nothing is served. estuary_destroy_viewer stops
 * a server still running. */
ESTUARY_API estuary_status estuary_serve_stop(estuary_viewer* viewer);
/* The server's address and counts; running 0 (the rest 0) when none runs. Unlike the other calls,
 * it may be made from any thread while the loop runs on another (not during start or stop). */
ESTUARY_API estuary_status estuary_get_serve_info(estuary_viewer* viewer, estuary_serve_info* info);

/* ---- frames -------------------------------------------------------------------------------------
 */

/* estuary_frame_desc.flags */
/* The frame's wait for its slot is not enqueued by estuary_begin_frame but by estuary_frame_wait:
 * work on your own memory enqueued in between overlaps the drawing of the slot's previous
 * frame. Write the frame's images and buffers only after estuary_frame_wait. */
#define ESTUARY_FRAME_DEFER_WAIT 0x1u

typedef struct estuary_frame_desc {
    ESTUARY_STRUCT_SIZE(estuary_frame_desc);
    /* The CUDA stream (cudaStream_t) your work for the frame goes on: estuary enqueues the frame's
     * wait and signal there. NULL: the viewer's own stream (estuary_frame_stream). */
    void* stream;
    uint32_t flags; /* ESTUARY_FRAME_* */
    /* Non-zero: what the frame enqueues on the stream between begin and end is captured as a CUDA
     * graph the first time, and replayed with one launch in later frames with the same key (and
     * ring entry): estuary_frame_replayed then says so, and you enqueue nothing. Change the key
     * whenever your work would differ (parameters, buffers, step counts), and never reuse one
     * for work on other memory: estuary forgets its graphs when an image or buffer is destroyed,
     * but cannot see your own memory. Needs a stream of your own (not the legacy default
     * stream). */
    uint64_t replay_key;
} estuary_frame_desc;

/* Starts frame estuary_frame_index(frame): waits on the host only while the frame that last used
 * this entry of the command ring is not drawn (the frames-in-flight limit), polls the window's
 * events, and enqueues on the stream the wait until the slot's previous frame is drawn (unless
 * ESTUARY_FRAME_DEFER_WAIT). `desc` may be NULL. A minimized window still gets frames, at most
 * ~30 a second, with nothing drawn. */
ESTUARY_API estuary_status estuary_begin_frame(estuary_viewer* viewer,
                                               const estuary_frame_desc* desc,
                                               estuary_frame** frame);
/* ESTUARY_FRAME_DEFER_WAIT: enqueues the slot's wait now. Otherwise (and a second time) a no-op. */
ESTUARY_API estuary_status estuary_frame_wait(estuary_frame* frame);
/* Enqueues the frame's signal on its stream and submits its draw, which waits for that signal on
 * the GPU. Host-written images are uploaded by the draw. */
ESTUARY_API estuary_status estuary_end_frame(estuary_frame* frame);

ESTUARY_API uint64_t estuary_frame_index(const estuary_frame* frame);
/* The index the next estuary_begin_frame gives its frame (the number of frames begun so far). */
ESTUARY_API uint64_t estuary_next_frame_index(estuary_viewer* viewer);
/* The frame's ring slot (index % frames in flight). */
ESTUARY_API uint32_t estuary_frame_slot(const estuary_frame* frame);
/* The stream (cudaStream_t) the frame's work goes on; NULL without CUDA. */
ESTUARY_API void* estuary_frame_stream(const estuary_frame* frame);
/* 1 when the frame's CUDA work was replayed from a graph (estuary_frame_desc.replay_key): enqueue
 * nothing more for it. */
ESTUARY_API int estuary_frame_replayed(const estuary_frame* frame);

/* The frame's copy of a CUDA-written image: the surface of one level (cudaSurfaceObject_t; 3D
 * images: surf3Dwrite, arrays: layered, cubes: cubemap surfaces), the level's cudaArray_t, or the
 * whole cudaMipmappedArray_t. */
ESTUARY_API estuary_status estuary_frame_surface(estuary_frame* frame, estuary_image* image,
                                                 uint32_t level, uint64_t* surface);
ESTUARY_API estuary_status estuary_frame_array(estuary_frame* frame, estuary_image* image,
                                               uint32_t level, void** cuda_array);
ESTUARY_API estuary_status estuary_frame_mipmapped_array(estuary_frame* frame, estuary_image* image,
                                                         void** cuda_mipmapped_array);
/* The frame's copy of a CUDA-written buffer, as a device pointer. */
ESTUARY_API estuary_status estuary_frame_device_pointer(estuary_frame* frame,
                                                        estuary_buffer* buffer, void** pointer);
/* The frame's host memory of a host-written image level (texels tightly packed: x, then y, then
 * slices or layers) or buffer: write it before estuary_end_frame. */
ESTUARY_API estuary_status estuary_frame_host_level(estuary_frame* frame, estuary_image* image,
                                                    uint32_t level, void** data);
ESTUARY_API estuary_status estuary_frame_host_pointer(estuary_frame* frame, estuary_buffer* buffer,
                                                      void** data);
/* Copies `bytes` of tightly packed texels into level `level` of the frame's image, from host
 * memory or (CUDA-written images) CUDA device memory, on the frame's stream. The convenience for
 * data that already exists elsewhere (a NumPy or PyTorch array). */
ESTUARY_API estuary_status estuary_frame_copy_to_image(estuary_frame* frame, estuary_image* image,
                                                       uint32_t level, const void* source,
                                                       uint64_t bytes);

/* Reads, in the frame's own draw submission, what the draw sees of the image: texels [x, x + w) x
 * [y, y + h) of level `level` (slice or layer 0), or of the buffer: bytes [offset, offset + bytes),
 * before the draw (or after it, with ESTUARY_READ_AFTER_DRAW, before the slot goes back to CUDA).
 * `destination` is filled once the frame is drawn (estuary_wait_frame, or the begin_frame that
 * waits for it) and must stay valid until then. For tests and probes. */
#define ESTUARY_READ_AFTER_DRAW 0x1u
ESTUARY_API estuary_status estuary_frame_read_image(estuary_frame* frame, estuary_image* image,
                                                    uint32_t level, uint32_t x, uint32_t y,
                                                    uint32_t width, uint32_t height, uint32_t flags,
                                                    void* destination);
ESTUARY_API estuary_status estuary_frame_read_buffer(estuary_frame* frame, estuary_buffer* buffer,
                                                     uint64_t offset, uint64_t bytes,
                                                     uint32_t flags, void* destination);

/* Picking: which element of a buffer view (points, markers, lines, glyphs, mesh) the frame's
 * draw shows at the point (x, y) of the picture (framebuffer pixels, the top-left corner at 0, 0,
 * as estuary_input's cursor), or lies nearest it within `radius` pixels (0 to 64) of its drawn
 * shape. Where several cover the point, the one the draw leaves on top: in a mesh the nearest the
 * eye (its depth test), else the last in buffer order (views are blended in order). Found on the
 * GPU over all the view's elements, in the frame's own draw submission; `result` is filled once
 * the frame is drawn (estuary_wait_frame, or the begin_frame that waits for it) and must stay
 * valid until then. A hidden view, or one drawing nothing, picks nothing. Vulkan consumer only.
 * The window's View panel shows what each buffer view has under the cursor this way. */
typedef struct estuary_pick {
    ESTUARY_STRUCT_SIZE(estuary_pick);
    int32_t hit;      /* 1: an element within the radius; 0: none (the rest is 0); -1: not yet known
                         (set by estuary_frame_pick, replaced once the frame is drawn) */
    uint32_t element; /* the point, marker, glyph, segment or triangle (its index) */
    uint32_t vertex;  /* lines, meshes: the vertex nearest the point (its index in the vertex
                         buffer); else the element */
    float distance;   /* pixels from the point to the element's shape; 0: it covers the point */
    float value;      /* its value there (lines, meshes: interpolated as the colour is; glyphs:
                         the speed; 2D points: |(vx, vy)|; RGBA views: the colour's bits) */
    float position[3]; /* where, in the view's positions (lines, meshes: the point of the element
                          nearest the point; glyphs: the cell; 2D: z = 0) */
    uint32_t panel;    /* the panel under the point (ESTUARY_PANEL_NONE: a gap); a view is found
                          only in its own panel */
} estuary_pick;
#define ESTUARY_PICK_RADIUS_MAX 64.0f
ESTUARY_API estuary_status estuary_frame_pick(estuary_frame* frame, estuary_view* view, float x,
                                              float y, float radius, estuary_pick* result);

/* The loop for the simple case: until the window closes or `frames` frames (0: no limit; headless
 * runs until estuary_request_close), begin a frame on the viewer's stream, call `callback`, end
 * it; then waits for the last frame. A callback returning non-zero stops the loop after its frame.
 * For running programs unchanged in tests: $ESTUARY_FRAMES caps the frames, and
 * $ESTUARY_SCREENSHOT names a PNG the last frame's picture is written to. */
typedef int (*estuary_frame_fn)(estuary_frame* frame, void* user);
ESTUARY_API estuary_status estuary_display(estuary_viewer* viewer, estuary_frame_fn callback,
                                           void* user, uint64_t frames);

/* Blocks (bounded) until frame `frame` and all before it are drawn. */
ESTUARY_API estuary_status estuary_wait_frame(estuary_viewer* viewer, uint64_t frame);
/* Waits for every frame ended so far, collects their times and aligns the clocks again (the
 * hand-off latencies of estuary_next_frame_stats are most exact after it). */
ESTUARY_API estuary_status estuary_finish(estuary_viewer* viewer);

/* ---- pictures
 * ------------------------------------------------------------------------------------ */

/* Writes the picture of the last frame ended (with the window's UI) as a PNG, atomically: a
 * temporary file beside `path`, then a rename; an existing file is replaced only by a complete
 * one. Waits for that frame. A folder as `path` is ESTUARY_ERROR_INVALID_ARGUMENT. */
ESTUARY_API estuary_status estuary_screenshot(estuary_viewer* viewer, const char* path);
/* The same picture as RGBA8 rows, top row first, into `pixels` (width * height * 4 bytes of
 * estuary_viewer_info). */
ESTUARY_API estuary_status estuary_read_pixels(estuary_viewer* viewer, void* pixels,
                                               uint64_t bytes);

/* ---- the window ---------------------------------------------------------------------------------
 */

/* Called once per frame in estuary_end_frame with the Dear ImGui (1.86) context current in
 * estuary: call ImGui::SetCurrentContext(imgui_context) in your code, then ImGui::Begin and so
 * on (estuary.hpp does the first step for you). Window only. */
typedef void (*estuary_ui_fn)(void* user, void* imgui_context);
ESTUARY_API estuary_status estuary_set_ui_callback(estuary_viewer* viewer, estuary_ui_fn callback,
                                                   void* user);

#define ESTUARY_MOUSE_LEFT 0x1u
#define ESTUARY_MOUSE_RIGHT 0x2u
#define ESTUARY_MOUSE_MIDDLE 0x4u
#define ESTUARY_MOD_SHIFT 0x1u
#define ESTUARY_MOD_CONTROL 0x2u
#define ESTUARY_MOD_ALT 0x4u

/* The window's input as of the last estuary_begin_frame (or estuary_poll_events). Positions are
 * framebuffer pixels; `field_x, field_y` is the point under the cursor in the cells of the topmost
 * visible field view (or slice), `over_field` whether it lies inside it. Keys are GLFW key codes,
 * pressed since the previous poll, in order. estuary itself uses the wheel (zoom), middle- and
 * Ctrl+left-drag (pan), any drag over a 3D view (orbit) and, unless ESTUARY_VIEWER_NO_HOTKEYS,
 * Esc, F12, H, C, Home, X/Y/Z, PgUp/PgDn. */
typedef struct estuary_input {
    ESTUARY_STRUCT_SIZE(estuary_input);
    float cursor_x, cursor_y; /* -1 when outside the window */
    int over_field;
    float field_x, field_y;
    uint32_t buttons;   /* ESTUARY_MOUSE_* held now */
    uint32_t pressed;   /* pressed since the previous poll */
    uint32_t mods;      /* ESTUARY_MOD_* */
    float scroll;       /* wheel steps since the previous poll */
    int ui_wants_mouse; /* the pointer is over the UI: leave it alone */
    int ui_wants_keyboard;
    uint32_t key_count;
    const int32_t* keys;    /* key_count codes; owned by the viewer, valid until the next poll */
    uint32_t width, height; /* the framebuffer */
} estuary_input;
ESTUARY_API estuary_status estuary_get_input(estuary_viewer* viewer, estuary_input* input);
/* Processes window events without starting a frame. */
ESTUARY_API estuary_status estuary_poll_events(estuary_viewer* viewer);

typedef enum estuary_event_kind {
    ESTUARY_EVENT_CURSOR = 0,  /* x, y in window coordinates */
    ESTUARY_EVENT_BUTTON = 1,  /* code: 0 left, 1 right, 2 middle; action 1 press, 0 release */
    ESTUARY_EVENT_SCROLL = 2,  /* y: steps */
    ESTUARY_EVENT_KEY = 3,     /* code: GLFW key; action 1 press, 0 release */
    ESTUARY_EVENT_CHAR = 4,    /* code: a Unicode code point */
    ESTUARY_EVENT_ICONIFY = 5, /* action 1: minimized, 0: restored */
    ESTUARY_EVENT_KIND_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_event_kind;
typedef struct estuary_event {
    ESTUARY_STRUCT_SIZE(estuary_event);
    estuary_event_kind kind;
    int32_t code;
    int32_t action;
    uint32_t mods; /* ESTUARY_MOD_* */
    double x, y;
} estuary_event;
/* Feeds an event as if the window system had sent it (tests, scripted demos): it is delivered,
 * in order with the others, at the next estuary_begin_frame or estuary_poll_events. */
ESTUARY_API estuary_status estuary_inject_event(estuary_viewer* viewer, const estuary_event* event);

/* Resizes the window (window coordinates); the swapchain follows at the next frame. */
ESTUARY_API estuary_status estuary_set_window_size(estuary_viewer* viewer, uint32_t width,
                                                   uint32_t height);
/* Whether the window was closed (or estuary_request_close called). */
ESTUARY_API int estuary_should_close(estuary_viewer* viewer);
ESTUARY_API estuary_status estuary_request_close(estuary_viewer* viewer);
/* A line shown at the bottom of the window for a few seconds (red when is_error). */
ESTUARY_API estuary_status estuary_notify(estuary_viewer* viewer, const char* text, int is_error);

/* ---- measurements -------------------------------------------------------------------------------
 */

/* One frame's times, once it is drawn. Durations in ms (NaN where not measured); marks in µs on
 * the host's steady clock (CLOCK_MONOTONIC), the GPU clocks aligned onto it. */
typedef struct estuary_frame_stats {
    ESTUARY_STRUCT_SIZE(estuary_frame_stats);
    uint64_t frame;
    double interval_ms;  /* host: from this frame's begin to the next one's */
    double host_busy_us; /* host: begin to end of the frame, the frames-in-flight wait left out */
    double cuda_ms;      /* CUDA: the frame's work on its stream, its wait for the slot left out */
    double cuda_wait_ms; /* CUDA: waiting for Vulkan to release the slot */
    double draw_ms;      /* Vulkan: the draw submission */
    double wait_ms;      /* time one API waited for the other */
    double gpu_interval_ms; /* Vulkan: end of the previous draw to the end of this one */
    double handoff_ms;      /* CUDA's signal to Vulkan starting the draw (clocks aligned) */
    int from_graph;         /* the CUDA work was a replayed graph */
    /* marks */
    double begin_us, wait_start_us, wait_end_us; /* host: begin, the frames-in-flight wait */
    double end_us;                               /* host: estuary_end_frame called */
    double record_end_us, submit_start_us, submit_end_us; /* host: end_frame's parts */
    double cuda_start_us, cuda_wait_start_us, cuda_wait_end_us, cuda_end_us; /* CUDA stream */
    double draw_start_us, draw_end_us;                                       /* Vulkan queue */
    /* The raw readings behind the GPU marks, which estuary_align_frame_stats maps again. */
    double raw_cuda_us[4];
    uint64_t raw_draw_ticks[2];
    /* Vulkan: the part of draw_ms spent on the annotation layer (text and labels views, titles,
     * axes, colorbars, scale bars); NaN where it drew nothing or was not measured. (0.3.3) */
    double annotations_ms;
} estuary_frame_stats;

/* The oldest drawn frame whose stats were not read yet; ESTUARY_NOT_READY when there is none. The
 * viewer keeps the last 4096; older unread ones are dropped (estuary_metrics counts them). */
ESTUARY_API estuary_status estuary_next_frame_stats(estuary_viewer* viewer,
                                                    estuary_frame_stats* stats);
/* Recomputes the GPU marks and hand-off latencies of `count` stats with the clock alignment as it
 * is now (after estuary_finish: from calibrations before the first frame and after the last). */
ESTUARY_API estuary_status estuary_align_frame_stats(estuary_viewer* viewer,
                                                     estuary_frame_stats* stats, size_t count);

/* How one device clock is put on the host's: by which method, from how many calibrations (one
 * at creation, one per estuary_finish), within what error bound, drifting how fast. */
typedef struct estuary_clock_alignment {
    int aligned;
    const char* method;
    double error_us;               /* bound on the mapping's error */
    double tightest_half_width_us; /* the best calibration's own uncertainty */
    double drift_ppm;              /* the device clock's rate against the host's, minus one */
    double span_s;                 /* device time between the first and last calibration */
    uint32_t calibrations;
} estuary_clock_alignment;

typedef struct estuary_clock_info {
    ESTUARY_STRUCT_SIZE(estuary_clock_info);
    estuary_clock_alignment vulkan; /* calibrated timestamps where offered, else bracketed */
    /* Beside calibrated timestamps, the Vulkan clock aligned again by bracketed submissions, and
     * how far apart the two put it at a time both calibrations span (agreeing within both error
     * bounds when both are right). */
    estuary_clock_alignment vulkan_cross_check;
    double cross_check_offset_us;
    estuary_clock_alignment cuda; /* bracketed events on an idle stream */
    double handoff_error_us;      /* the CUDA and Vulkan bounds added */
    const char* summary;          /* one line per clock, for reports */
} estuary_clock_info;
ESTUARY_API estuary_status estuary_get_clock_info(estuary_viewer* viewer, estuary_clock_info* info);

/* Over the frames drawn so far (the last few hundred for percentiles). */
typedef struct estuary_metrics {
    ESTUARY_STRUCT_SIZE(estuary_metrics);
    uint64_t frames_drawn;
    uint64_t frames_presented;      /* a window's frames that reached the screen (not minimized) */
    uint32_t swapchain_recreations; /* a window's swapchains made so far, the first included */
    uint64_t stats_dropped;
    double fps; /* from the median interval */
    double interval_ms_p50, interval_ms_p99;
    double cuda_ms_p50, draw_ms_p50, wait_ms_p50, handoff_ms_p50, host_busy_us_p50;
    /* Memory: Vulkan heaps (VK_EXT_memory_budget where offered), CUDA's free memory, and what this
     * viewer allocated. 0 where unknown. */
    uint64_t device_local_budget, device_local_usage;
    uint64_t host_visible_budget, host_visible_usage;
    uint64_t cuda_free, cuda_total;
    uint64_t allocated_device_bytes, allocated_host_bytes;
    uint64_t host_available; /* the host's free memory (Linux: MemAvailable of /proc/meminfo) */
    /* The contract's own check: at each estuary_begin_frame the host reads the hand-off
     * timelines (CUDA's `written`, Vulkan's `released`); how many readings, and how many were
     * lower than the one before (0 unless the frame order broke). */
    uint64_t handoff_checks, handoff_regressions;
    /* Pipelines the viewer created so far, how many the driver found in the pipeline cache, and
     * the host time creating them; the driver data the cache started with (0: a cold start). */
    uint32_t pipelines_created, pipeline_cache_hits;
    double pipeline_create_ms;
    uint64_t pipeline_cache_loaded_bytes;
} estuary_metrics;
ESTUARY_API estuary_status estuary_get_metrics(estuary_viewer* viewer, estuary_metrics* metrics);

/* ---- your kernel on slabs (since 0.3.4) --------------------------------------------------------
 * A field of your own split into slabs along its slowest axis (rows of a 2D field, slices of a 3D
 * one), one or more slabs on each of several CUDA devices of this process. Each slab is memory of
 * its own holding its rows plus `halo` rows on either side: your kernel steps its own slab on its
 * own device and stream (estuary_get_slab); estuary_slabs_exchange copies each slab's edge rows
 * into its neighbours' halos (device copies on one GPU, peer copies between GPUs); and
 * estuary_frame_gather_slabs copies every slab's own rows into a frame's image, which views draw.
 * Everything is enqueued on streams and ordered by events: no host waits. An explicit stencil of
 * radius 1 may take up to `halo` steps between two exchanges and give, bit for bit, what one slab
 * over the whole field gives (each step spoils one more halo row from the slab's edge inwards).
 * Host-written slabs (ESTUARY_WRITER_HOST) are host memory, exchanged and gathered by the host,
 * for an image with a host writer: the same program without a GPU. */
typedef struct estuary_slabs estuary_slabs;

typedef enum estuary_slab_boundary {
    /* The halos beyond the field's first and last rows are yours: estuary never writes them
     * (hold a boundary value there, or skip those rows). */
    ESTUARY_SLAB_BOUNDARY_OPEN = 0,
    /* The field wraps along the split axis: the first slab's upper halo holds the last rows. */
    ESTUARY_SLAB_BOUNDARY_PERIODIC = 1,
    ESTUARY_SLAB_BOUNDARY_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_slab_boundary;

typedef struct estuary_slabs_desc {
    ESTUARY_STRUCT_SIZE(estuary_slabs_desc);
    estuary_format format;  /* any estuary_format; the texels are copied as bytes */
    uint32_t width, height; /* the whole field */
    uint32_t depth;         /* 0 or 1: a 2D field split into rows; above 1: 3D, split into slices */
    uint32_t halo;          /* rows (slices) on each side of a slab: 1..the thinnest slab's rows */
    /* CUDA devices of this process to spread the slabs over: the viewer's first, then the others
     * in ordinal order; 0: 1. Host-written slabs: 0 or 1. */
    uint32_t devices;
    uint32_t slabs; /* 0: one per device; else at least `devices`, in contiguous blocks a device */
    estuary_slab_boundary boundary;
    /* CUDA: device memory on each slab's device (the viewer needs CUDA); HOST: host memory; AUTO:
     * CUDA where the viewer has it. Gathered into images of the same writer. */
    estuary_writer writer;
    const char* name; /* for messages */
} estuary_slabs_desc;

typedef struct estuary_slabs_info {
    ESTUARY_STRUCT_SIZE(estuary_slabs_info);
    uint32_t slabs, devices, halo;
    estuary_writer writer; /* as resolved */
    uint32_t texel_bytes;
} estuary_slabs_info;

/* One slab: its memory holds halo + count + halo rows (2D) or slices (3D); plane p of it is plane
 * first - halo + p of the whole field (wrapped with ESTUARY_SLAB_BOUNDARY_PERIODIC; outside the
 * field, with OPEN, at the first and last slab: yours). The same for the slab's whole life. */
typedef struct estuary_slab {
    ESTUARY_STRUCT_SIZE(estuary_slab);
    int32_t cuda_device; /* the CUDA ordinal of its memory and stream; -1: host memory */
    void* data;          /* its first halo plane: device memory on cuda_device, or host memory */
    void* stream;        /* the cudaStream_t (of cuda_device) to launch on; NULL for host memory */
    uint32_t first, count; /* its own planes: [first, first + count) of the whole field */
    uint32_t halo;
    uint32_t width, height, depth; /* of its memory: the field's width; 2D: height count + 2 halo
                                      and depth 1; 3D: the field's height and count + 2 halo */
    uint64_t pitch;                /* bytes from one row to the next */
    uint64_t plane_pitch;          /* bytes from one plane (2D: row, 3D: slice) to the next */
} estuary_slab;

/* Allocates the slabs (zeroed), their streams and events. Checks the desc first, naming the value
 * and what is allowed: a halo of 0 or thicker than the thinnest slab, a field too small to split,
 * more slabs than rows; more devices than this process sees is ESTUARY_ERROR_UNSUPPORTED. */
ESTUARY_API estuary_status estuary_create_slabs(estuary_viewer* viewer,
                                                const estuary_slabs_desc* desc,
                                                estuary_slabs** slabs);
/* Waits (bounded) for the slabs' streams, then frees them. NULL: nothing happens. */
ESTUARY_API estuary_status estuary_destroy_slabs(estuary_viewer* viewer, estuary_slabs* slabs);
ESTUARY_API estuary_status estuary_get_slabs_info(estuary_slabs* slabs, estuary_slabs_info* info);
ESTUARY_API estuary_status estuary_get_slab(estuary_slabs* slabs, uint32_t index,
                                            estuary_slab* slab);
/* Each slab's halos from its neighbours' own edge planes, after all work enqueued so far on both
 * slabs' streams and before any enqueued later (host memory: copied now). Inside or outside a
 * frame. */
ESTUARY_API estuary_status estuary_slabs_exchange(estuary_slabs* slabs);
/* Every slab's own planes into level 0 of the frame's copy of `image` (of the slabs' format and
 * extent, 2D or 3D as they are, of the same writer), after the work enqueued so far on the slabs'
 * streams; the frame's stream waits for the copies, so the draw shows them. Not in a frame with a
 * replay_key, nor before estuary_frame_wait in a frame with ESTUARY_FRAME_DEFER_WAIT. */
ESTUARY_API estuary_status estuary_frame_gather_slabs(estuary_frame* frame, estuary_slabs* slabs,
                                                      estuary_image* image);

/* ---- testing the failure paths ------------------------------------------------------------------
 */

typedef enum estuary_fault {
    ESTUARY_FAULT_DEVICE_LOST = 0,  /* frame `frame`'s submission reports VK_ERROR_DEVICE_LOST */
    ESTUARY_FAULT_VULKAN_STALL = 1, /* frame `frame`'s draw waits for a semaphore nothing signals */
    ESTUARY_FAULT_ALLOC_FAIL = 2,   /* the next image or buffer fails as if out of GPU memory */
    /* frame `frame`'s CUDA wait waits for the draw of the frame after it, which waits for this
     * frame's writes: the APIs deadlock until a wait times out and teardown releases CUDA. */
    ESTUARY_FAULT_CUDA_STALL = 3,
    ESTUARY_FAULT_MAX_ENUM = 0x7FFFFFFF /* pins the enum to 32 bits */
} estuary_fault;
/* Arms a fault on purpose, to test how your program handles it. */
ESTUARY_API estuary_status estuary_inject_fault(estuary_viewer* viewer, estuary_fault fault,
                                                uint64_t frame);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ESTUARY_H */
