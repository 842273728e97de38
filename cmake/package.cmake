# cmake --install and the exported package. find_package(estuary CONFIG) gives
#   estuary::viewer   libestuary, the shared library behind <estuary/estuary.h> (C) and
#                     <estuary/estuary.hpp> (header-only C++ over it);
#   estuary::interop  interop on its own (static; <estuary/interop.h>), for programs with a Vulkan
#                     renderer of their own;
# the public headers under include/estuary, and estuary_DATA_DIR naming the installed shaders and
# assets libestuary loads (it finds them by itself: share/estuary beside its lib/). The executable,
# shaders and assets install from their own folders. Nothing internal (the renderer, the Vulkan
# foundation, volk, Dear ImGui) is installed: it lives hidden inside libestuary.
include(CMakePackageConfigHelpers)

set(ESTUARY_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/estuary)

# errors (header-only) and estuary_warnings only because interop names them privately: as
# link-only items they carry nothing to a consumer.
set_target_properties(estuary_warnings PROPERTIES EXPORT_NAME warnings)
install(TARGETS interop errors estuary_warnings EXPORT estuaryTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT estuaryTargets NAMESPACE estuary:: DESTINATION ${ESTUARY_INSTALL_CMAKE_DIR})

# The config file finds the same CUDA toolkit this build used unless the consumer names another.
if(ESTUARY_HAVE_CUDA)
    get_filename_component(ESTUARY_CUDA_TOOLKIT_ROOT ${CUDAToolkit_BIN_DIR} DIRECTORY)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/estuaryConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/estuaryConfig.cmake
    INSTALL_DESTINATION ${ESTUARY_INSTALL_CMAKE_DIR}
    PATH_VARS ESTUARY_INSTALL_DATA_DIR)
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/estuaryConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/estuaryConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/estuaryConfigVersion.cmake
        DESTINATION ${ESTUARY_INSTALL_CMAKE_DIR})

# The public headers (include/estuary: the C API, its C++ layer, the error type) keep their
# namespaced paths: #include <estuary/estuary.h>.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/estuary DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
