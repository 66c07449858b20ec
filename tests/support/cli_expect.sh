# shellcheck shell=bash disable=SC2154 # bin and out are set by the test that sources this
# Sourced by the shell tests that run the gpuspec executable as a user does (tests/unit/check,
# tests/unit/import). They set $bin (the executable), $out (a scratch folder) and failures=0.
#
# expect CODE ARGS...: runs "$bin" ARGS (NO_COLOR), its output in $out/stdout and $out/stderr;
#   a different exit code is a failure, printed with the start of stderr and the verdict lines.
# has STREAM TEXT: the last command's STREAM (stdout or stderr) contains TEXT.
# stderr_has TEXT: has stderr TEXT.

expect() {
  local want=$1
  shift
  NO_COLOR=1 "$bin" "$@" >"$out/stdout" 2>"$out/stderr"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: gpuspec $* -> exit $got, expected $want"
    sed 's/^/  stderr: /' "$out/stderr" | head -5
    grep -E 'Verdict|INCONCLUSIVE|FAIL' "$out/stdout" | head -5 | sed 's/^/  stdout: /'
    failures=$((failures + 1))
  fi
}

has() {
  if ! grep -qF -- "$2" "$out/$1"; then
    echo "FAIL: $1 lacks '$2':"
    sed 's/^/  /' "$out/$1" | head -5
    failures=$((failures + 1))
  fi
}

stderr_has() { has stderr "$1"; }
