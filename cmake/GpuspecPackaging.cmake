# Install rules beyond the executables (cli/CMakeLists.txt) and the CPack packages, split as
# DCGM splits its own (docs/design.md, "Shipping"):
#
#   package         from the build tree   holds
#   gpuspec         host-only             /usr/bin/gpuspec (no CUDA, no driver dependency), the
#                                         spec table, docs, man pages, completion, dashboards,
#                                         Kubernetes manifests, Slurm and node_exporter scripts
#   gpuspec-mpi     host-only with        /usr/bin/gpuspec-mpi, the multi-node launcher, which
#                   GPUSPEC_MPI=ON        links the system's OpenMPI (libopenmpi3 on Debian 12)
#   gpuspec-cuda13  default (CUDA 13)     /usr/libexec/gpuspec/gpuspec-cuda13, the benchmark
#                                         workers, which the host gpuspec execs for run, list and
#                                         info (cli/include/gpuspec/cli/device_dispatch.hpp)
#   gpuspec-<v>-Linux.tar.gz  default     the CUDA build's whole install tree (bin/gpuspec is the
#                                         CUDA build itself there)
#
# `cpack` in build/host-only makes the first two, in build/default the other two
# (tests/package/package_test.sh builds, lints, installs and removes them).
include(GNUInstallDirs)

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT host)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT host)
# USE_SOURCE_PERMISSIONS: the Kubernetes scripts keep their run bit (docs/deploy.md runs them).
install(DIRECTORY deploy/grafana deploy/prometheus deploy/kubernetes
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuspec/deploy COMPONENT host USE_SOURCE_PERMISSIONS)
install(PROGRAMS scripts/slurm/gpuspec-healthcheck.sh scripts/slurm/gpuspec-acceptance.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuspec/scripts/slurm COMPONENT host)
install(PROGRAMS scripts/node-exporter/gpuspec-textfile.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuspec/scripts/node-exporter COMPONENT host)
# The systemd timer and service that run gpuspec-textfile.sh every 5 minutes, installed
# disabled (no maintainer script enables them; docs/deploy.md, "systemd"). lib/, not
# CMAKE_INSTALL_LIBDIR (lib/<triplet> on Debian): systemd reads /usr/lib/systemd/system.
install(FILES deploy/systemd/gpuspec-health.service deploy/systemd/gpuspec-health.timer
        DESTINATION lib/systemd/system COMPONENT host)

# Debian wants /usr/share/doc/<package>/copyright and a changelog in every package (changelog.gz:
# a version without a Debian revision is a native package's).
set(GPUSPEC_PACKAGE_MAINTAINER "gpuspec maintainers <gpuspec@example.org>"
    CACHE STRING "The Maintainer field of the packages (a site sets its own)")
foreach(_pkg gpuspec gpuspec-mpi gpuspec-cuda13)
  set(_dir "${CMAKE_BINARY_DIR}/packaging/${_pkg}")
  file(MAKE_DIRECTORY "${_dir}")
  string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
  file(WRITE "${_dir}/changelog"
       "${_pkg} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
       "  * Built from the gpuspec source tree with CPack.\n\n"
       " -- ${GPUSPEC_PACKAGE_MAINTAINER}  ${_date}\n")
  # gzip -9n: no name or time stamp in the archive (lintian: changelog-not-compressed-with-max-
  # compression, package-contains-timestamped-gzip).
  execute_process(COMMAND gzip -9nf "${_dir}/changelog")
endforeach()
install(FILES packaging/copyright "${CMAKE_BINARY_DIR}/packaging/gpuspec/changelog.gz"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gpuspec COMPONENT host)
install(FILES packaging/copyright "${CMAKE_BINARY_DIR}/packaging/gpuspec-mpi/changelog.gz"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gpuspec-mpi COMPONENT mpi)
install(FILES packaging/copyright "${CMAKE_BINARY_DIR}/packaging/gpuspec-cuda13/changelog.gz"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gpuspec-cuda13 COMPONENT device)
install(FILES packaging/lintian/gpuspec DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        COMPONENT host)
install(FILES packaging/lintian/gpuspec-cuda13
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides COMPONENT device)

set(CPACK_PACKAGE_NAME gpuspec)
set(CPACK_PACKAGE_VENDOR "gpuspec")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's description below starts with its own summary line (and the DEB generator is
# kept from putting the project's one above both: packaging/cpack_project_config.cmake.in).
set(CPACK_PACKAGE_CONTACT "${GPUSPEC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GPUSPEC_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_HOST_PACKAGE_NAME gpuspec)
set(CPACK_DEBIAN_HOST_PACKAGE_SHLIBDEPS ON) # libc6, libstdc++6, libgcc-s1: dpkg-owned
# string(CONCAT): set() with several strings would make a list, whose ";" separators CPack
# writes at the start of every description line.
string(CONCAT CPACK_DEBIAN_HOST_DESCRIPTION
    "GPU server benchmark and bottleneck diagnosis: host tools\n"
    "gpuspec check, diff, compare, db, health, specs and info: verdicts and\n"
    "diagnosis of benchmark reports against the GPUs' datasheets, a passive node\n"
    "health check for schedulers and the fleet history, with the spec table,\n"
    "Grafana dashboards, Kubernetes manifests and Slurm scripts. No CUDA and no\n"
    "driver dependency (NVML is opened at run time). Benchmarks need the\n"
    "gpuspec-cuda13 package.")
# gpuspec-mpi: dpkg-shlibdeps names the OpenMPI the build linked (libopenmpi3 on Debian 12,
# libopenmpi3t64 on Debian 13), so the package installs where its build's OpenMPI ABI is; the
# gpuspec package never depends on it.
set(CPACK_DEBIAN_MPI_PACKAGE_NAME gpuspec-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "gpuspec (= ${PROJECT_VERSION})")
string(CONCAT CPACK_DEBIAN_MPI_DESCRIPTION
    "GPU server benchmark and bottleneck diagnosis: multi-node launcher
"
    "gpuspec-mpi runs gpuspec's collectives across nodes, one rank per GPU under
"
    "mpirun or srun, linked to the system's OpenMPI. The benchmarks themselves
"
    "need the gpuspec-cuda13 package.")
set(CPACK_DEBIAN_DEVICE_PACKAGE_NAME gpuspec-cuda13)
# The CUDA toolkit's libraries are not dpkg-owned on a build machine with NVIDIA's runfile
# install, so dpkg-shlibdeps cannot name their packages: the Depends are written here. The
# binary links libcublas.so.13 and libcublasLt.so.13, the CUDA runtime statically, fmt, simdjson,
# SQLite and zstd statically (cmake/GpuspecStaticLibraries.cmake), and opens NVML (the driver)
# and NCCL (libnccl2) at run time: the driver is no dependency (a node has its own), NCCL only a
# recommendation (without it the collective cases skip, saying why). cuBLAS 13 comes in one
# package per CUDA 13 minor release, each with libcublas.so.13 and libcublasLt.so.13, under the
# names of NVIDIA's CUDA repository, which Ubuntu's multiverse keeps (packages.ubuntu.com:
# libcublas-13-1 holds cuBLAS 13.2.1.1, libcublas-13-2 13.4.1.3, libcublas-13-3 13.6.0.2): any
# of them will do. libc6 and libstdc++6 no lower than dpkg-shlibdeps writes for the host
# package, built by the same compiler (libc6 (>= 2.34), libstdc++6 (>= 11) on Debian 12).
set(CPACK_DEBIAN_DEVICE_PACKAGE_SHLIBDEPS OFF)
set(GPUSPEC_CUBLAS_PACKAGES "libcublas-13-0 | libcublas-13-1 | libcublas-13-2 | libcublas-13-3")
set(CPACK_DEBIAN_DEVICE_PACKAGE_DEPENDS
    "gpuspec (= ${PROJECT_VERSION}), ${GPUSPEC_CUBLAS_PACKAGES}, libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1")
# Built without simdjson's source (scripts/install-deps.sh fetches it), the executables link
# Debian's libsimdjson.so.N, whose package (libsimdjsonN) is then a dependency too.
get_target_property(_simdjson_type gpuspec_simdjson TYPE)
if(NOT _simdjson_type STREQUAL "STATIC_LIBRARY")
  get_target_property(_simdjson_so simdjson::simdjson LOCATION)
  string(REGEX REPLACE "^.*/lib([a-z0-9]+)\\.so\\.([0-9]+).*$" "lib\\1\\2" _simdjson_package "${_simdjson_so}")
  string(APPEND CPACK_DEBIAN_DEVICE_PACKAGE_DEPENDS ", ${_simdjson_package}")
endif()
set(CPACK_DEBIAN_DEVICE_PACKAGE_RECOMMENDS "libnccl2")
string(CONCAT CPACK_DEBIAN_DEVICE_DESCRIPTION
    "GPU server benchmark and bottleneck diagnosis: CUDA 13 benchmarks\n"
    "The benchmark workers of gpuspec built with CUDA 13 (STREAM, caches, FMA and\n"
    "Tensor Core peaks, cuBLASLt GEMMs, transfers, NCCL collectives, burn-in),\n"
    "which gpuspec run and gpuspec list start. Needs the CUDA 13 cuBLAS\n"
    "libraries; the NVIDIA driver is the node's own.")
# Per generator (packaging/cpack_project_config.cmake): DEB takes one component per tree, TGZ
# the whole install tree.
if(GPUSPEC_CUDA)
  set(GPUSPEC_CPACK_DEB_COMPONENTS device)
  set(CPACK_GENERATOR DEB TGZ)
else()
  set(GPUSPEC_CPACK_DEB_COMPONENTS host)
  if(GPUSPEC_MPI)
    list(APPEND GPUSPEC_CPACK_DEB_COMPONENTS mpi)
  endif()
  set(CPACK_GENERATOR DEB)
endif()
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_BINARY_DIR}/packaging/cpack_project_config.cmake")
configure_file(packaging/cpack_project_config.cmake.in "${CPACK_PROJECT_CONFIG_FILE}" @ONLY)
include(CPack)
