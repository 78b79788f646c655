# Installs the build into a scratch prefix and checks that every program a user runs is there and
# starts, and that the bundled data came with it. `ardent` was once left out of `cmake --install`.
# Run by CTest: cmake -DBUILD_DIR=... -DPREFIX=... -DBINDIR=... -DDATADIR=... -P install_check.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed (${rc})")
endif()

set(programs ardent)
if(EXISTS ${BUILD_DIR}/editor/ardent-editor)
  list(APPEND programs ardent-editor)
endif()
foreach(p ${programs})
  if(NOT EXISTS ${PREFIX}/${BINDIR}/${p})
    message(FATAL_ERROR "cmake --install did not install ${p} (no ${PREFIX}/${BINDIR}/${p})")
  endif()
endforeach()
execute_process(COMMAND ${PREFIX}/${BINDIR}/ardent --version RESULT_VARIABLE rc
  OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^ardent ")
  message(FATAL_ERROR "the installed ardent --version failed (${rc}): ${out}")
endif()
if(NOT EXISTS ${PREFIX}/${DATADIR}/ardent/data/scenes/lshape.json)
  message(FATAL_ERROR "cmake --install did not install the bundled data (no scenes/lshape.json)")
endif()
if(NOT EXISTS ${PREFIX}/${DATADIR}/ardent/docs/editor.md)
  message(FATAL_ERROR "cmake --install did not install the docs the editor's Help opens (no editor.md)")
endif()
file(REMOVE_RECURSE ${PREFIX})
message(STATUS "installed and started: ${programs}")
