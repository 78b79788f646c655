# Installs the build into a scratch prefix and checks that the Python package is there and imports
# from there (not from the build tree). Run by CTest:
# cmake -DBUILD_DIR=... -DPREFIX=... -DPYDIR=... -DPYTHON=... -P install_check.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed (${rc})")
endif()
foreach(f __init__.py _ardent.pyi py.typed)
  if(NOT EXISTS ${PREFIX}/${PYDIR}/ardent/${f})
    message(FATAL_ERROR "cmake --install did not install ${PREFIX}/${PYDIR}/ardent/${f}")
  endif()
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}/${PYDIR} ${PYTHON} -c
          "import ardent, sys; print(ardent.__file__); print(ardent.Scene)"
  WORKING_DIRECTORY ${PREFIX} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^${PREFIX}/${PYDIR}/ardent/__init__.py")
  message(FATAL_ERROR "the installed package does not import from ${PREFIX}/${PYDIR} (${rc}): "
                      "${out}${err}")
endif()
file(REMOVE_RECURSE ${PREFIX})
message(STATUS "installed and imported: ${out}")
