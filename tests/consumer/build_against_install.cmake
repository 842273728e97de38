# Install.ConsumerBuildsAgainstTheInstallTree, as a script (cmake -P): installs a finished build
# into a fresh prefix, runs the installed executable, then configures, builds and runs this
# folder's project against that prefix. Each step echoes its command; the first that fails stops
# the test, named.
#   cmake -D BUILD_DIR=<estuary build> -D WORK_DIR=<scratch> -D CONFIG=<build type>
#         -D GENERATOR=<...> -D MAKE_PROGRAM=<...> -D CXX_COMPILER=<...>
#         -P build_against_install.cmake
foreach(var BUILD_DIR WORK_DIR CONFIG GENERATOR MAKE_PROGRAM CXX_COMPILER)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "build_against_install.cmake: -D ${var}=... is missing")
    endif()
endforeach()

# A step given SKIP_CODE N is skipped, saying so, when its command exits with N: estuary's 3
# (unsupported environment) on a machine with no Vulkan driver.
function(run_step name)
    cmake_parse_arguments(PARSE_ARGV 1 step "" "SKIP_CODE" "COMMAND")
    message(STATUS "== ${name}")
    execute_process(COMMAND ${step_COMMAND} RESULT_VARIABLE result COMMAND_ECHO STDOUT)
    if(DEFINED step_SKIP_CODE AND result EQUAL step_SKIP_CODE)
        message(STATUS "skipped '${name}': exit code ${result}")
    elseif(NOT result EQUAL 0)
        message(FATAL_ERROR "step '${name}' failed: ${result}")
    endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("install the build into ${prefix}" COMMAND
    ${CMAKE_COMMAND} --install ${BUILD_DIR} --config ${CONFIG} --prefix ${prefix})
run_step("run the installed estuary, its data in share/estuary" SKIP_CODE 3 COMMAND
    ${prefix}/bin/estuary --headless --backend cpu --frames 2 --size 64x64 --resolution 64x64
        --screenshot ${WORK_DIR}/installed-estuary.png)
run_step("configure the consumer against the install tree" COMMAND
    ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${consumer_build} -G ${GENERATOR}
        -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
        -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_PREFIX_PATH=${prefix})
run_step("build the consumer" COMMAND ${CMAKE_COMMAND} --build ${consumer_build} --config ${CONFIG})
run_step("run the consumer" COMMAND ${consumer_build}/estuary_consumer)
