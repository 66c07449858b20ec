# cmake -P: runs the freshly linked gpuspec (under EMULATOR, '|'-separated, in a cross build) to
# write OUT/man/man1/*.1 (gpuspec __man), their *.1.gz (GZIP -9n, when GZIP is set) and
# OUT/completion/{gpuspec,_gpuspec}; touches STAMP last. Pages of a subcommand since removed go:
# the folder is emptied first of gpuspec's own pages (gpuspec.1, gpuspec-<command>.1), but not of
# gpuspec-mpi.1, which help2man writes there when gpuspec-mpi links (cli/CMakeLists.txt): the two
# targets build in either order. Called by cli/docs.cmake's custom command.
string(REPLACE "|" ";" _run "${EMULATOR}")
list(APPEND _run "${GPUSPEC}")

set(_man "${OUT}/man/man1")
file(GLOB _old "${_man}/*.1" "${_man}/*.1.gz")
list(FILTER _old EXCLUDE REGEX "/gpuspec-mpi\\.1(\\.gz)?$")
if(_old)
  file(REMOVE ${_old})
endif()
execute_process(COMMAND ${_run} __man "${_man}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gpuspec __man ${_man} failed: ${_rc}")
endif()
if(GZIP)
  file(GLOB _pages "${_man}/*.1")
  foreach(_page IN LISTS _pages)
    # -n: no name nor time stamp in the header (reproducible); -c keeps the .1 for man -l.
    execute_process(COMMAND "${GZIP}" -9nc "${_page}" OUTPUT_FILE "${_page}.gz" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "${GZIP} -9nc ${_page} failed: ${_rc}")
    endif()
  endforeach()
endif()

file(MAKE_DIRECTORY "${OUT}/completion")
foreach(_shell_file IN ITEMS "bash|gpuspec" "zsh|_gpuspec")
  string(REPLACE "|" ";" _pair "${_shell_file}")
  list(GET _pair 0 _shell)
  list(GET _pair 1 _file)
  # Written beside, then renamed: a failed run leaves no half script behind.
  execute_process(COMMAND ${_run} completion ${_shell} OUTPUT_FILE "${OUT}/completion/${_file}.new"
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    file(REMOVE "${OUT}/completion/${_file}.new")
    message(FATAL_ERROR "gpuspec completion ${_shell} failed: ${_rc}")
  endif()
  file(RENAME "${OUT}/completion/${_file}.new" "${OUT}/completion/${_file}")
endforeach()
file(TOUCH "${STAMP}")
