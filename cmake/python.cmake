# Whether to build the Python module (PERFDIFF_PYTHON, python/), and with
# which interpreter.  The interpreter is chosen the same way on every
# machine: the system's /usr/bin/python3 when there is one (Debian's,
# whose python3-dev, python3-pytest and python3-dask .ci/deps installs),
# whatever python3 comes first on PATH; -DPython3_EXECUTABLE=... picks
# another.  The tests run with the interpreter the module was built for.
set(PD_BUILD_PYTHON OFF)
if(PERFDIFF_PYTHON STREQUAL "OFF")
  return()
endif()
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
endif()
if(PERFDIFF_PYTHON STREQUAL "ON")
  find_package(Python3 COMPONENTS Interpreter Development.Module REQUIRED)
else()
  find_package(Python3 COMPONENTS Interpreter Development.Module)
endif()
if(Python3_Development.Module_FOUND)
  message(STATUS "perfdiff Python module: for ${Python3_EXECUTABLE} (${Python3_VERSION})")
  set(PD_BUILD_PYTHON ON)
else()
  message(STATUS "perfdiff Python module: not built (no Python development files: python3-dev)")
endif()
