#!/usr/bin/env bash
# python/tests/install_run.sh BUILD_DIR — ctest kps.package.run_studies: an installed kps runs a
# study. Installs BUILD_DIR into a temporary prefix (cmake --install), then, from another folder,
# `<prefix>/bin/kps run --studies latency --scale small --out OUT` (the quickest study: about 2 s
# on two cores) must run the prefix's kps-bench and write OUT/report.md and the study's JSON; a
# run without --out writes ./kps-results/<machine>/, and nothing is written into the prefix.
set -euo pipefail
build="${1:?usage: install_run.sh BUILD_DIR}"
work="$(mktemp -d "${TMPDIR:-/tmp}/kps-install-run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "cmake --install"; }
[ -x "$work/prefix/bin/kps" ] || fail "no <prefix>/bin/kps"
[ -x "$work/prefix/bin/kps-bench" ] || fail "no <prefix>/bin/kps-bench"
[ -f "$work/prefix/share/kps/studies/latency/study.json" ] || fail "no <prefix>/share/kps/studies/latency/study.json"
find "$work/prefix" -type f | sort >"$work/before"

mkdir "$work/elsewhere"
cd "$work/elsewhere"
"$work/prefix/bin/kps" run --help | grep -q -- "--studies" || fail "kps run --help"
rc=0
"$work/prefix/bin/kps" run --studies nosuch >"$work/bad.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "unknown study 'nosuch'" "$work/bad.log" || fail "an unknown study: exit 2 with its name (got $rc)"
export OMP_PROC_BIND=false
"$work/prefix/bin/kps" run --studies latency --scale small --out "$work/out" >"$work/run.log" 2>&1 \
  || { tail -n 20 "$work/run.log" >&2; fail "kps run --studies latency --out OUT"; }
[ -f "$work/out/report.md" ] || fail "no OUT/report.md"
[ -f "$work/out/latency/latency.json" ] || fail "no OUT/latency/latency.json"
grep -q "Latency-hiding study" "$work/out/report.md" || fail "report.md lacks the latency study"
grep -q "kps-bench" "$work/out/report.md" || fail "report.md lacks the kps-bench command"
"$work/prefix/bin/kps" run --studies latency --scale small >"$work/run2.log" 2>&1 || fail "kps run without --out"
ls "$work/elsewhere"/kps-results/*/report.md >/dev/null 2>&1 || fail "no ./kps-results/<machine>/report.md"
find "$work/prefix" -type f | sort >"$work/after"
cmp -s "$work/before" "$work/after" || fail "the run wrote into the prefix: $(comm -13 "$work/before" "$work/after" | head -3)"
echo "ok: installed kps ran the latency study into OUT and ./kps-results"
