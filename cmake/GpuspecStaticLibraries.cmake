# The libraries gpuspec links whose Debian package names differ between the distributions it is
# installed on, linked into the executables instead, so that the packages depend on libc6,
# libstdc++6 and libgcc-s1 alone (docs/deploy.md, "What the packages depend on"):
#
#   library   Debian 12      Debian 13      linked as
#   fmt       libfmt9        libfmt10       its format.cc and os.cc, compiled here
#   simdjson  libsimdjson14  libsimdjson25  its amalgamated source, compiled here
#   SQLite    libsqlite3-0   libsqlite3-0   libsqlite3.a (libsqlite3-dev)
#   zstd      libzstd1       libzstd1       libzstd.a (libzstd-dev)
#
# (Debian 13's names: apt-cache show against its archive; docs/deploy.md, same section.)
# SQLite and zstd keep one name, but a clean system (a minimal root, a container image) lacks
# them, and the static archives are in the -dev packages the build installs anyway.
#
# Each is a target the rooms link: gpuspec::fmt, gpuspec::simdjson, gpuspec::sqlite3, gpuspec_zstd.

# fmt: Debian's libfmt-dev has the headers but no static library, so fmt's format.cc and os.cc of
# the same version (from Debian's source package: scripts/install-deps.sh puts them in
# .deps/fmt-<version>) are compiled here. Not fmt's header-only mode: that compiles fmt's
# implementation into every one of our translation units, about 3 s each at -O3 (measured on
# one unity batch of the judge on the 2-core build VM with other builds running, 13.0 s against
# 15.9 s). Without the source, the shared library, and the packages then depend on libfmt<N>
# (package_test.sh fails on that).
set(GPUSPEC_FMT_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.deps/fmt-${fmt_VERSION}"
    CACHE PATH "fmt's source tree (src/format.cc, src/os.cc, include/), of the installed fmt's version")
if(EXISTS "${GPUSPEC_FMT_SOURCE_DIR}/src/format.cc")
  add_library(gpuspec_fmt STATIC "${GPUSPEC_FMT_SOURCE_DIR}/src/format.cc"
                                 "${GPUSPEC_FMT_SOURCE_DIR}/src/os.cc")
  # Its own headers (the same files as Debian's /usr/include/fmt of that version).
  target_include_directories(gpuspec_fmt SYSTEM PUBLIC "${GPUSPEC_FMT_SOURCE_DIR}/include")
  target_compile_features(gpuspec_fmt PUBLIC cxx_std_17)
  set_target_properties(gpuspec_fmt PROPERTIES UNITY_BUILD OFF POSITION_INDEPENDENT_CODE ON)
  message(STATUS "gpuspec: fmt linked statically from ${GPUSPEC_FMT_SOURCE_DIR}")
else()
  add_library(gpuspec_fmt INTERFACE)
  target_link_libraries(gpuspec_fmt INTERFACE fmt::fmt)
  message(STATUS "gpuspec: no ${GPUSPEC_FMT_SOURCE_DIR} (scripts/install-deps.sh fetches it): "
                 "fmt linked as a shared library, which the packages then depend on")
endif()
add_library(gpuspec::fmt ALIAS gpuspec_fmt)

# simdjson: Debian's libsimdjson-dev has the amalgamated header but no static library, so the
# amalgamated simdjson.cpp of the same version (from Debian's source package: scripts/
# install-deps.sh puts it in .deps/simdjson-<version>) is compiled here. Without it, the shared
# library, and the packages then depend on libsimdjson<N> (package_test.sh fails on that).
set(GPUSPEC_SIMDJSON_SOURCE
    "${PROJECT_SOURCE_DIR}/.deps/simdjson-${simdjson_VERSION}/singleheader/simdjson.cpp"
    CACHE FILEPATH "simdjson's amalgamated simdjson.cpp, of the installed simdjson.h's version")
if(EXISTS "${GPUSPEC_SIMDJSON_SOURCE}")
  add_library(gpuspec_simdjson STATIC "${GPUSPEC_SIMDJSON_SOURCE}")
  get_filename_component(_simdjson_dir "${GPUSPEC_SIMDJSON_SOURCE}" DIRECTORY)
  # Its own simdjson.h (the same file as Debian's /usr/include/simdjson.h of that version).
  target_include_directories(gpuspec_simdjson SYSTEM PUBLIC "${_simdjson_dir}")
  # What simdjson::simdjson carries (simdjsonTargets.cmake): the threads-enabled parser.
  target_compile_definitions(gpuspec_simdjson PUBLIC SIMDJSON_THREADS_ENABLED=1)
  target_link_libraries(gpuspec_simdjson PUBLIC Threads::Threads)
  target_compile_features(gpuspec_simdjson PUBLIC cxx_std_17)
  # Not our code: none of our warnings, not in a unity batch; position-independent, as the
  # executables are PIE.
  set_target_properties(gpuspec_simdjson PROPERTIES UNITY_BUILD OFF POSITION_INDEPENDENT_CODE ON)
  message(STATUS "gpuspec: simdjson linked statically from ${GPUSPEC_SIMDJSON_SOURCE}")
else()
  add_library(gpuspec_simdjson INTERFACE)
  target_link_libraries(gpuspec_simdjson INTERFACE simdjson::simdjson)
  message(STATUS "gpuspec: no ${GPUSPEC_SIMDJSON_SOURCE} (scripts/install-deps.sh fetches it): "
                 "simdjson linked as a shared library, which the packages then depend on")
endif()
add_library(gpuspec::simdjson ALIAS gpuspec_simdjson)

# SQLite: libsqlite3.a of libsqlite3-dev, with the libraries it calls (libm, libdl and
# pthreads are in libc from glibc 2.34, named for older ones).
find_library(GPUSPEC_SQLITE3_STATIC NAMES libsqlite3.a)
add_library(gpuspec_sqlite3 INTERFACE)
if(GPUSPEC_SQLITE3_STATIC)
  target_include_directories(gpuspec_sqlite3 INTERFACE ${SQLite3_INCLUDE_DIRS})
  target_link_libraries(gpuspec_sqlite3 INTERFACE ${GPUSPEC_SQLITE3_STATIC} Threads::Threads
                                                  ${CMAKE_DL_LIBS} m)
else()
  target_link_libraries(gpuspec_sqlite3 INTERFACE SQLite::SQLite3)
endif()
add_library(gpuspec::sqlite3 ALIAS gpuspec_sqlite3)

# zstd: libzstd.a of libzstd-dev, found by name, not pkg-config, so that the aarch64 cross build
# finds the :arm64 archive the same way.
find_path(GPUSPEC_ZSTD_INCLUDE_DIR zstd.h REQUIRED)
find_library(GPUSPEC_ZSTD_ARCHIVE NAMES libzstd.a zstd REQUIRED)
add_library(gpuspec_zstd INTERFACE IMPORTED)
target_include_directories(gpuspec_zstd INTERFACE ${GPUSPEC_ZSTD_INCLUDE_DIR})
target_link_libraries(gpuspec_zstd INTERFACE ${GPUSPEC_ZSTD_ARCHIVE})
