# The switch bench's watchdog: with --test-stall the Vulkan-only run waits for a timeline value
# nothing signals; the bench must end within its --timeout with exit code 4 and a message naming
# the stage. Run as: cmake -DBENCH=path/to/estuary_switch_bench -P switch_watchdog_test.cmake
string(TIMESTAMP started "%s" UTC)
execute_process(
    COMMAND ${BENCH} --vulkan-only --alternations 4 --repeats 1 --batches 1 --timeout 2 --test-stall
    RESULT_VARIABLE code
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    TIMEOUT 60)
string(TIMESTAMP ended "%s" UTC)
math(EXPR seconds "${ended} - ${started}")
message(STATUS "exit ${code} after ${seconds} s\nstdout:\n${out}\nstderr:\n${err}")
if(NOT code STREQUAL "4")
    message(FATAL_ERROR "expected exit code 4 from the watchdog, got '${code}'")
endif()
if(NOT err MATCHES "stuck in K=1 vulkan_only warm-up: wait for the GPU after 2 s")
    message(FATAL_ERROR "the watchdog's message does not name the stalled stage")
endif()
if(seconds GREATER 20)
    message(FATAL_ERROR "the watchdog took ${seconds} s for a 2 s limit")
endif()
