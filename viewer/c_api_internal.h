// What the two files of estuary.h's functions (c_api.cpp, c_api_frame.cpp) share: the guard that
// turns exceptions into statuses (and clears the last error on success), handles resolved to the
// objects they name (handles.h), the caller's CUDA device kept (cuda_side.h), and structs read and
// written by the size their caller gave them (estuary.h's struct_size).
#pragma once

#include "cuda_side.h"
#include "errors.h"
#include "handles.h"
#include "viewer.h"

#include <algorithm>
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
    if (kind != uint32_t(kindOf<T>()) && kind >= 1 && kind <= 5)
        why = std::string("is a handle of a") + (kind == 2 ? "n " : " ") +
              handleKindName(HandleKind(kind)) + ", not of a" +
              (kindOf<T>() == HandleKind::Image ? "n " : " ") + handleKindName(kindOf<T>());
    throw invalidHandle(std::string(name) + " " + why);
}

// A handle of viewer `v`'s: a live one of another viewer is refused as foreign.
template <class T> T& resolveOf(const estuary_viewer& v, const T* handle, const char* name) {
    T& object = resolve(handle, name);
    if (object.viewer != &v)
        throw invalidHandle(std::string(name) + " belongs to another viewer");
    return object;
}

template <class T> void checkSize(uint32_t size, const char* name, const char* type) {
    if (size == 0)
        throw usageError(std::string(name) + ".struct_size is 0: set it to sizeof(" + type +
                         ") (C++ sets it by itself)");
    if (size < sizeof(T))
        throw usageError(std::string(name) + ".struct_size " + std::to_string(size) +
                         " is smaller than any " + type + " estuary.h has declared (" +
                         std::to_string(sizeof(T)) + " bytes since 0.3)");
}

// A description as this library declares it, from the bytes its caller has (a newer, larger one
// keeps only what this library knows).
template <class T> T readStruct(const T* user, const char* name, const char* type) {
    require(user, name);
    checkSize<T>(user->struct_size, name, type);
    T out;
    std::memcpy(static_cast<void*>(&out), user, sizeof(T));
    out.struct_size = sizeof(T);
    return out;
}

// An info struct into the caller's, its struct_size kept.
template <class T> void checkOutput(const T* user, const char* name, const char* type) {
    require(user, name);
    checkSize<T>(user->struct_size, name, type);
}
template <class T> void writeStruct(T* user, const T& value) {
    const uint32_t size = user->struct_size;
    std::memcpy(static_cast<void*>(user), &value, sizeof(T));
    user->struct_size = size;
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

// A frame begun with a handle of its own, and ended dropping it.
estuary_frame* beginPublishedFrame(estuary_viewer& v, const estuary_frame_desc* desc);
void endPublishedFrame(estuary_frame& frame);

} // namespace estuary::lib::capi
