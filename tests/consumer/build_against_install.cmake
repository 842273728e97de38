# The package as another project sees it, as a script (cmake -P) for the Install.* and Examples.*
# tests. Each step echoes its command; the first that fails stops the test, named.
#   STEP=install: installs a finished build into PREFIX (emptied first) and runs the installed
#                 estuary headless.
#     cmake -D STEP=install -D BUILD_DIR=<estuary build> -D PREFIX=<prefix> -D CONFIG=<type>
#           -P build_against_install.cmake
#   STEP=project: configures and builds the project in SOURCE against PREFIX in WORK_DIR, then
#                 runs its executable NAME under the validation layer, capped at 30 frames, its
#                 last frame written to WORK_DIR/NAME.png.
#     cmake -D STEP=project -D SOURCE=<folder> -D NAME=<executable> -D PREFIX=<prefix>
#           -D WORK_DIR=<scratch> -D CONFIG=<type> -D GENERATOR=<...> -D MAKE_PROGRAM=<...>
#           -D CXX_COMPILER=<...> -D C_COMPILER=<...> [-D CUDA_COMPILER=<...>]
#           [-D PART=build|run] -P build_against_install.cmake
#     PART=build stops after the build, PART=run runs what an earlier PART=build built (so that a
#     project that builds everywhere but runs only on a GPU passes its build where it is skipped).
# A run that exits 3 (this machine cannot: no Vulkan device, no CUDA device) prints
# "skipped: ..." and the test is reported as skipped (SKIP_REGULAR_EXPRESSION).
foreach(var STEP PREFIX CONFIG)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "build_against_install.cmake: -D ${var}=... is missing")
    endif()
endforeach()

# Returns the exit code in `result_var`; any failure other than `skip_code` stops the script.
function(run_step name result_var)
    cmake_parse_arguments(PARSE_ARGV 2 step "" "SKIP_CODE" "COMMAND")
    message(STATUS "== ${name}")
    execute_process(COMMAND ${step_COMMAND} RESULT_VARIABLE result COMMAND_ECHO STDOUT)
    if(DEFINED step_SKIP_CODE AND result EQUAL step_SKIP_CODE)
        message(STATUS "skipped: '${name}' exited ${result} (this machine cannot run it)")
    elseif(NOT result EQUAL 0)
        message(FATAL_ERROR "step '${name}' failed: ${result}")
    endif()
    set(${result_var} ${result} PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "install")
    file(REMOVE_RECURSE ${PREFIX})
    run_step("install the build into ${PREFIX}" result COMMAND
        ${CMAKE_COMMAND} --install ${BUILD_DIR} --config ${CONFIG} --prefix ${PREFIX})
    run_step("run the installed estuary, its data in share/estuary" result SKIP_CODE 3 COMMAND
        ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY
        ${PREFIX}/bin/estuary --headless --backend cpu --frames 2 --size 64x64
            --resolution 64x64 --validate --screenshot ${PREFIX}/../installed-estuary.png)
    return()
endif()

if(NOT DEFINED PART)
    set(PART all)
endif()
foreach(var SOURCE NAME WORK_DIR GENERATOR MAKE_PROGRAM CXX_COMPILER C_COMPILER)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "build_against_install.cmake: -D ${var}=... is missing")
    endif()
endforeach()
set(compilers -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_C_COMPILER=${C_COMPILER})
if(DEFINED CUDA_COMPILER)
    # compute_75 PTX as well as its code: any newer GPU runs it (JIT); no GPU is needed to build.
    list(APPEND compilers -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_CUDA_ARCHITECTURES=75)
endif()
if(NOT PART STREQUAL "run")
    file(REMOVE_RECURSE ${WORK_DIR})
    run_step("configure ${NAME} against the install tree" result COMMAND
        ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
            -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} ${compilers} -DCMAKE_BUILD_TYPE=${CONFIG}
            -DCMAKE_PREFIX_PATH=${PREFIX})
    run_step("build ${NAME}" result
        COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build --config ${CONFIG})
endif()
if(PART STREQUAL "build")
    return()
endif()
set(picture ${WORK_DIR}/${NAME}.png)
run_step("run ${NAME}" result SKIP_CODE 3 COMMAND
    ${CMAKE_COMMAND} -E env ESTUARY_VALIDATION=1 ESTUARY_FRAMES=30 ESTUARY_SCREENSHOT=${picture}
        ${WORK_DIR}/build/${NAME})
if(result EQUAL 0 AND NOT NAME STREQUAL "estuary_consumer" AND NOT EXISTS ${picture})
    message(FATAL_ERROR "${NAME} ran, but ESTUARY_SCREENSHOT=${picture} was not written")
endif()
