// What the two files of estuary.h's functions (c_api.cpp, c_api_frame.cpp) share: the guard that
// turns exceptions into statuses (and clears the last error on success), handles resolved to the
// objects they name (handles.h), the caller's CUDA device kept (cuda_side.h), and structs read and
// written by the size their caller gave them (estuary.h's struct_size).
#pragma once

#include "cuda_side.h"
#include "errors.h"
#include "handles.h"
#include "slabs.h"
#include "viewer.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

namespace estuary::lib::capi {

void setLastError(std::string message);
void clearLastError();

// "call: what", once: messages made inside (the views') may name the call themselves.
inline std::string prefixed(const char* call, const char* what) {
    const std::string prefix = std::string(call) + ": ";
    return std::string_view(what).starts_with(prefix) ? what : prefix + what;
}

template <class Body> estuary_status guard(const char* call, Body&& body) {
    try {
        body();
        clearLastError();
        return ESTUARY_OK;
    } catch (const Error& e) {
        setLastError(prefixed(call, e.what()));
        return e.status();
    } catch (const std::bad_alloc&) {
        setLastError(std::string(call) + ": out of host memory");
        return ESTUARY_ERROR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        setLastError(prefixed(call, e.what()));
        return ESTUARY_ERROR_RUNTIME;
    }
}

inline void require(const void* pointer, const char* name) {
    if (!pointer) throw usageError(std::string(name) + " is NULL");
}

template <class T> constexpr HandleKind kindOf() {
    if constexpr (std::is_same_v<T, estuary_viewer>) return HandleKind::Viewer;
    if constexpr (std::is_same_v<T, estuary_image>) return HandleKind::Image;
    if constexpr (std::is_same_v<T, estuary_buffer>) return HandleKind::Buffer;
    if constexpr (std::is_same_v<T, estuary_view>) return HandleKind::View;
    if constexpr (std::is_same_v<T, estuary_slabs>) return HandleKind::Slabs;
    return HandleKind::Frame;
}

template <class T> uint64_t handleBits(const T* handle) {
    return uint64_t(reinterpret_cast<uintptr_t>(handle));
}
template <class T> T* asHandle(uint64_t bits) {
    return reinterpret_cast<T*>(uintptr_t(bits));
}

// The object a handle names, or nullptr (a stale, foreign-kind or made-up handle, or NULL).
template <class T> T* lookup(const T* handle) {
    return static_cast<T*>(handles().find(handleBits(handle), kindOf<T>()));
}

// The object a required handle names: NULL is a usage error, anything not live an invalid handle.
template <class T> T& resolve(const T* handle, const char* name) {
    require(handle, name);
    if (T* object = lookup(handle)) return *object;
    const uint32_t kind = HandleTable::kindBits(handleBits(handle));
    std::string why = "was destroyed, or was never made by estuary";
    if (kind != uint32_t(kindOf<T>()) && kind >= 1 && kind <= 6)
        why = std::string("is a handle of a") + (kind == 2 ? "n " : " ") +
              handleKindName(HandleKind(kind)) + ", not of a" +
              (kindOf<T>() == HandleKind::Image ? "n " : " ") + handleKindName(kindOf<T>());
    throw invalidHandle(std::string(name) + " " + why);
}

// A handle of viewer `v`'s: a live one of another viewer is refused as foreign.
template <class T> T& resolveOf(const estuary_viewer& v, const T* handle, const char* name) {
    T& object = resolve(handle, name);
    if (object.viewer != &v) throw invalidHandle(std::string(name) + " belongs to another viewer");
    return object;
}

// Where each struct ended in 0.3.0, the first version with struct_size: the least struct_size
// the library takes. Fields appended later are absent from older callers' structs: they read as
// 0 (their documented defaults) and are not written back.
template <class T> constexpr size_t kSince03 = 0;
#define ESTUARY_SINCE_0_3(type, last)                                                              \
    template <> constexpr size_t kSince03<type> = offsetof(type, last) + sizeof(type::last);       \
    static_assert(kSince03<type> <= sizeof(type))
ESTUARY_SINCE_0_3(estuary_viewer_desc, log_user);
ESTUARY_SINCE_0_3(estuary_viewer_info, gl_debug_messages);
ESTUARY_SINCE_0_3(estuary_image_desc, name);
ESTUARY_SINCE_0_3(estuary_buffer_desc, name);
ESTUARY_SINCE_0_3(estuary_image_info, texel_bytes);
ESTUARY_SINCE_0_3(estuary_buffer_info, writer);
ESTUARY_SINCE_0_3(estuary_field_view_desc, shader);
ESTUARY_SINCE_0_3(estuary_volume_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_points_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_markers_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_lines_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_glyph_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_mesh_view_desc, flags);
ESTUARY_SINCE_0_3(estuary_view_params, point_intensity);
ESTUARY_SINCE_0_3(estuary_camera, pitch_degrees);
ESTUARY_SINCE_0_3(estuary_record_desc, encoder);
ESTUARY_SINCE_0_3(estuary_record_info, encoder);
ESTUARY_SINCE_0_3(estuary_frame_desc, replay_key);
ESTUARY_SINCE_0_3(estuary_pick, position);
ESTUARY_SINCE_0_3(estuary_input, height);
ESTUARY_SINCE_0_3(estuary_event, y);
ESTUARY_SINCE_0_3(estuary_frame_stats, raw_draw_ticks);
ESTUARY_SINCE_0_3(estuary_clock_info, summary);
ESTUARY_SINCE_0_3(estuary_metrics, handoff_regressions);
ESTUARY_SINCE_0_3(estuary_colormap_desc, sample_format); // new in 0.3.x: its whole struct
ESTUARY_SINCE_0_3(estuary_text_view_desc, flags);        // new in 0.3.2: their whole structs
ESTUARY_SINCE_0_3(estuary_labels_view_desc, attributes);
// New in 0.3.2: their whole structs as first released.
ESTUARY_SINCE_0_3(estuary_layout_desc, gap_pixels);
ESTUARY_SINCE_0_3(estuary_panel_desc, scale_bar_unit);
// New in 0.3.x (serving): their whole structs.
ESTUARY_SINCE_0_3(estuary_serve_desc, jpeg_quality);
ESTUARY_SINCE_0_3(estuary_serve_info, latency_ms_last);
// New in 0.3.x (slabs): their whole structs.
ESTUARY_SINCE_0_3(estuary_slabs_desc, name);
ESTUARY_SINCE_0_3(estuary_slabs_info, texel_bytes);
ESTUARY_SINCE_0_3(estuary_slab, plane_pitch);
#undef ESTUARY_SINCE_0_3

template <class T> void checkSize(uint32_t size, const char* name, const char* type) {
    static_assert(kSince03<T> > 0, "a struct with struct_size needs its ESTUARY_SINCE_0_3 line");
    if (size == 0)
        throw usageError(std::string(name) + ".struct_size is 0: set it to sizeof(" + type +
                         ") (C++ sets it by itself)");
    if (size < kSince03<T>)
        throw usageError(std::string(name) + ".struct_size " + std::to_string(size) +
                         " is smaller than any " + type + " estuary.h has declared (" +
                         std::to_string(kSince03<T>) + " bytes in 0.3)");
}

// A description as this library declares it, from the bytes its caller has: an older, smaller
// one reads 0 for the fields it lacks; a newer, larger one keeps only what this library knows.
template <class T> T readStruct(const T* user, const char* name, const char* type) {
    require(user, name);
    checkSize<T>(user->struct_size, name, type);
    T out{};
    std::memcpy(static_cast<void*>(&out), user, std::min<size_t>(user->struct_size, sizeof(T)));
    out.struct_size = uint32_t(sizeof(T));
    return out;
}

// An info struct into the caller's, no more bytes than it has, its struct_size kept.
template <class T> void checkOutput(const T* user, const char* name, const char* type) {
    require(user, name);
    checkSize<T>(user->struct_size, name, type);
}
template <class T> void writeStruct(T* user, const T& value) {
    const uint32_t size = user->struct_size;
    std::memcpy(static_cast<void*>(user), &value, std::min<size_t>(size, sizeof(T)));
    user->struct_size = size;
}

// A level of the image, or a usage error naming it and the levels there are.
inline void checkLevel(const estuary_image& image, uint32_t level) {
    if (level >= image.levels)
        throw usageError(image.name + ": level " + std::to_string(level) + " of " +
                         std::to_string(image.levels) + " (levels 0.." +
                         std::to_string(image.levels - 1) + ")");
}

// Handles out: registered on creation, dropped on destruction.
template <class T> T* publish(T* object) {
    object->handle = handles().add(kindOf<T>(), object);
    return asHandle<T>(object->handle);
}
template <class T> T* handleOf(const T* object) {
    return object ? asHandle<T>(object->handle) : nullptr;
}
inline void retire(uint64_t& handle) {
    handles().remove(handle);
    handle = 0;
}

// The frame a live frame handle names (begun, not yet ended).
inline estuary_frame& activeFrame(estuary_frame* frame) {
    require(frame, "frame");
    estuary_frame* f = lookup(frame);
    if (!f || !f->active)
        throw invalidHandle("the frame has ended (or was never begun): call this between "
                            "estuary_begin_frame and estuary_end_frame, with the frame it gave");
    return *f;
}

// The frame's copy of a CUDA-written image or buffer: a single's first use in the frame makes
// the frame's stream wait for the earlier draws. (With one frame in flight the slot's own wait
// already covers every earlier draw.)
template <class Allocation> uint32_t cudaCopyOf(estuary_frame& frame, const Allocation& a) {
    if (a.copies == 1 && frame.viewer->slots > 1 && !frame.replayed && !frame.allDrawnWaited) {
        cudaWaitAllDrawn(*frame.viewer, frame);
        frame.allDrawnWaited = true;
    }
    return copyOf(a, frame.index);
}

// A frame begun with a handle of its own, and ended dropping it.
estuary_frame& beginPublishedFrame(estuary_viewer& v, const estuary_frame_desc* desc);
void endPublishedFrame(estuary_frame& frame);

// ---- the views' entry points (views/<kind>/<kind>_api.cpp) ----
// The view descriptions' handles, resolved to this viewer's objects (NULL stays NULL: the view
// says which it requires).
template <class T> T* member(const estuary_viewer& v, T* handle, const char* name) {
    return handle ? &resolveOf(v, handle, name) : nullptr;
}

// The channels' buffers (estuary_attribute), resolved as the desc's own.
inline void resolveAttributes(const estuary_viewer& v,
                              estuary_attribute (&attributes)[ESTUARY_CHANNEL_COUNT]) {
    for (uint32_t c = 0; c < ESTUARY_CHANNEL_COUNT; ++c) {
        const std::string name = "desc.attributes[" + std::to_string(c) + "].buffer";
        attributes[c].buffer = member(v, attributes[c].buffer, name.c_str());
    }
}

template <class Desc, class Add>
estuary_status addViewCall(const char* call, estuary_viewer* viewer, const Desc* desc,
                           const char* type, estuary_view** view, Add&& add) {
    return guard(call, [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const CudaDeviceScope device(&v);
        Desc d = readStruct(desc, "desc", type);
        estuary_view* made = add(v, d);
        estuary_view* handle = publish(made);
        if (view) *view = handle;
    });
}

} // namespace estuary::lib::capi
