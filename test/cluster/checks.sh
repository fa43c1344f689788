# test/cluster/checks.sh — sourced by the Slurm tests (test_slurm.sh, test_slurm_real.sh): `check`
# prints one line per check (ok or FAIL) and counts the failures, `checks_done` prints the summary
# and exits 1 where any failed; the predicates the checks use.
# shellcheck shell=bash

failures=0
check() {  # DESCRIPTION COMMAND...: one line, ok or FAIL
  local what="$1"
  shift
  if "$@"; then
    printf 'ok   %s\n' "$what"
  else
    printf 'FAIL %s\n' "$what"
    failures=$((failures + 1))
  fi
}
has_line() { grep -qxF -- "$2" "$1"; }           # FILE LINE: LINE is one whole line of FILE
has_text() { [ -f "$1" ] && grep -qF -- "$2" "$1"; }   # FILE TEXT
lacks_text() { [ -f "$1" ] && ! grep -qF -- "$2" "$1"; }
lacks_regex() { [ -f "$1" ] && ! grep -qE -- "$2" "$1"; }
has_json() { compgen -G "$1/*.json" >/dev/null; }   # DIR holds JSON
count_lines() { grep -cF -- "$2" "$1" 2>/dev/null || true; }   # FILE TEXT: lines holding TEXT
equals() { [ "$1" = "$2" ] || { printf '     expected %s, got %s\n' "$2" "$1"; return 1; }; }
# checks_done: the summary line; exit 1 where a check failed.
checks_done() {
  if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) FAILED"
    exit 1
  fi
  echo "all checks passed"
}
