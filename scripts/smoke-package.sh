#!/usr/bin/env bash
# The package as a user gets it: `npm pack` this checkout (prepack builds dist/), install the
# tarball into an empty folder with production dependencies only, start the installed
# `cogitave serve` on a fresh data folder, wait for "cogitave ready", ask /readyz, stop it with
# SIGTERM, then ingest a real DocFX site with the installed CLI on another fresh data folder.
# No user cache (COGITAVE_CACHE_DIR=none): new folders come from the template the package
# ships. Prints the tarball's size and file count, the time from start to ready and the
# ingest's time and peak memory.
# Needs the npm registry (or a warm npm cache) for the install. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== npm pack"
npm pack --json --pack-destination "$work" > "$work/pack.json"
node -e "
  const [pack] = JSON.parse(require('fs').readFileSync('$work/pack.json', 'utf8'));
  console.log('package ' + pack.filename + ': ' + (pack.size / 1024).toFixed(0) + ' KiB packed, ' +
    (pack.unpackedSize / 1024).toFixed(0) + ' KiB unpacked, ' + pack.entryCount + ' files');
"
tarball="$work/$(node -p "JSON.parse(require('fs').readFileSync('$work/pack.json', 'utf8'))[0].filename")"

echo "== install the tarball into an empty folder (production dependencies only)"
mkdir -p "$work/app" "$work/run"
echo '{ "name": "cogitave-smoke", "private": true }' > "$work/app/package.json"
installed_at=$(date +%s%N)
(cd "$work/app" && npm install --omit=dev --no-audit --no-fund --prefer-offline "$tarball")
echo "installed in $(( ($(date +%s%N) - installed_at) / 1000000 )) ms"

echo "== start the installed cogitave serve on a fresh data folder"
started_at=$(date +%s%N)
(cd "$work/run" && COGITAVE_CACHE_DIR=none COGITAVE_DATA_DIR="$work/run/data" COGITAVE_HTTP_PORT=0 LOG_LEVEL=info \
  exec "$work/app/node_modules/.bin/cogitave" serve 2> "$work/run/log") &
server_pid=$!
url=""
for _ in $(seq 1 240); do
  url=$(node -e "
    for (const line of require('fs').readFileSync('$work/run/log', 'utf8').split('\n')) {
      try { const j = JSON.parse(line); if (j.msg === 'cogitave ready') { console.log(j.url); break; } } catch {}
    }
  ")
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$url" ] || { cat "$work/run/log" >&2; echo "the installed cogitave serve did not become ready" >&2; exit 1; }
node -e "fetch('$url/readyz').then((r) => { console.log('readyz', r.status); process.exit(r.ok ? 0 : 1); })"
echo "ready in $(( ($(date +%s%N) - started_at) / 1000000 )) ms from start (fresh data folder)"

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || { tail -20 "$work/run/log" >&2; echo "serve exited $status on SIGTERM" >&2; exit 1; }
echo "stopped cleanly on SIGTERM"

echo "== ingest a DocFX site with the installed cogitave on another fresh data folder"
site="$PWD/test/fixtures/docs-sites/maui"
(cd "$work/run" && COGITAVE_CACHE_DIR=none COGITAVE_DATA_DIR="$work/run/data-ingest" \
  node -e "
    const { spawnSync } = require('node:child_process');
    const started = Date.now();
    const run = spawnSync('$work/app/node_modules/.bin/cogitave', ['ingest', '$site', '--yes'], { encoding: 'utf8' });
    process.stdout.write(run.stdout.split('\\n').filter((l) => /^(ingested|time:)/.test(l)).join('\\n') + '\\n');
    if (run.status !== 0) { process.stderr.write(run.stderr + run.stdout); process.exit(1); }
    console.log('ingest: ' + ((Date.now() - started) / 1000).toFixed(1) + ' s wall for the whole command');
  ")
