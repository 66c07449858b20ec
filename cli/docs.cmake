# Man pages and shell completion, generated from gpuspec's own command line definition once the
# executable links (cli/include/gpuspec/cli/cli_model.hpp; docs/cli.md), and their install rules:
#   <build>/man/man1/*.1 (and *.1.gz, gzip -9n: what is installed; lintian wants compressed pages
#   without a timestamp in the gzip header), <build>/completion/gpuspec (bash),
#   <build>/completion/_gpuspec (zsh).
# Included from cli/CMakeLists.txt after add_executable(gpuspec). The global property
# GPUSPEC_CLI_DOCS_DIR names <build> where the files are generated (empty where they are not),
# for the tests (tests/unit/cli).
include(GNUInstallDirs)

set_property(GLOBAL PROPERTY GPUSPEC_CLI_DOCS_DIR "")
# A cross-built gpuspec runs here only under an emulator. add_custom_command prepends the
# target's CROSSCOMPILING_EMULATOR to COMMAND gpuspec, not to an argument of cmake -P: passed on.
if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "gpuspec: cross build without CMAKE_CROSSCOMPILING_EMULATOR: man pages and "
                 "shell completion not generated nor installed")
  return()
endif()
set(_emulator "")
if(CMAKE_CROSSCOMPILING)
  string(REPLACE ";" "|" _emulator "${CMAKE_CROSSCOMPILING_EMULATOR}")
endif()
find_program(GPUSPEC_GZIP NAMES gzip)
if(NOT GPUSPEC_GZIP)
  message(STATUS "gpuspec: no gzip: man pages installed uncompressed")
endif()

set(_docs_dir "${CMAKE_BINARY_DIR}")
set(_stamp "${CMAKE_CURRENT_BINARY_DIR}/cli-docs.stamp")
add_custom_command(
  OUTPUT "${_stamp}"
  COMMAND "${CMAKE_COMMAND}" "-DGPUSPEC=$<TARGET_FILE:gpuspec>" "-DEMULATOR=${_emulator}"
          "-DGZIP=${GPUSPEC_GZIP}" "-DOUT=${_docs_dir}" "-DSTAMP=${_stamp}"
          -P "${CMAKE_CURRENT_LIST_DIR}/docs-generate.cmake"
  DEPENDS gpuspec "${CMAKE_CURRENT_LIST_DIR}/docs-generate.cmake"
  BYPRODUCTS "${_docs_dir}/completion/gpuspec" "${_docs_dir}/completion/_gpuspec"
  COMMENT "Generating gpuspec's man pages and shell completion"
  VERBATIM)
add_custom_target(gpuspec_cli_docs ALL DEPENDS "${_stamp}")
set_property(GLOBAL PROPERTY GPUSPEC_CLI_DOCS_DIR "${_docs_dir}")

# COMPONENT host: the package branch's install(TARGETS gpuspec) is in that component too.
if(GPUSPEC_GZIP)
  set(_man_pattern "*.1.gz")
else()
  set(_man_pattern "*.1")
endif()
# gpuspec-mpi's page, which help2man writes into the same folder, goes with its own package
# (cli/CMakeLists.txt), not gpuspec's.
install(DIRECTORY "${_docs_dir}/man/man1/" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1"
        COMPONENT host FILES_MATCHING PATTERN "${_man_pattern}" PATTERN "gpuspec-mpi.1*" EXCLUDE)
install(FILES "${_docs_dir}/completion/gpuspec"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" COMPONENT host)
install(FILES "${_docs_dir}/completion/_gpuspec"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions" COMPONENT host)
