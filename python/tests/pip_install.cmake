# Python.PipInstallsOfflineFromTheSourceTree: `pip install ./python` with no index (no network),
# into a fresh target folder, then the installed package imported from there.
file(REMOVE_RECURSE ${TARGET})
execute_process(COMMAND ${PYTHON} -m pip install --no-index --no-deps --no-cache-dir
                        --target ${TARGET} ${SOURCE}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "pip install --no-index ${SOURCE} failed: ${result}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${TARGET} ESTUARY_LIBRARY=${LIBRARY}
                        ${PYTHON} -c "import estuary, pathlib; p = pathlib.Path(estuary.__file__); print(p); assert p.parent.parent == pathlib.Path('${TARGET}'), p"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "the pip-installed package did not import from ${TARGET}: ${result}")
endif()
