#!/usr/bin/env bash
# Smoke check of the PyInstaller bundle (Linux): build it, then run it with an empty
# environment — no PATH, no Python, no virtual environment — to take an offscreen
# screenshot (English and Chinese) and run a CLI command; report build time and sizes.
# Takes about a minute, so it is not part of the test suite; run it by hand or nightly:
#
#   .venv/bin/pip install -e ".[package]" && packaging/smoke_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}

start=$(date +%s)
"$PYTHON" packaging/build.py pyinstaller
built=$(( $(date +%s) - start ))
"$PYTHON" packaging/build.py tarball

bundle="$(pwd)/dist/mira-desktop"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # the bundle alone: nothing from this shell's environment
  (cd "$work" && env -i HOME="$work" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen \
    "$bundle/mira-desktop" --data-dir "$work/data" "$@")
}

run --version
run --screenshot "$work/en.png"
run --lang zh_CN --screenshot "$work/zh.png"
run doctor
# a provider's adapter is imported by name on first use: asked for its models,
# a server that is not running must be the error, not a module the bundle lacks
run provider add gone --kind openai --base-url http://127.0.0.1:9/v1 >/dev/null
if run provider models gone 2>"$work/models.err"; then echo "a dead server answered?"; exit 1; fi
if grep -q "No module named" "$work/models.err"; then cat "$work/models.err"; exit 1; fi
echo "provider adapters ok: $(head -1 "$work/models.err")"
# the screenshots must show something (checked with the build's Python, not the bundle's)
"$PYTHON" - "$work/en.png" "$work/zh.png" <<'PY'
import sys
from PySide6.QtGui import QImage
for path in sys.argv[1:]:
    image = QImage(path)
    colours = {image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)}
    assert image.width() == 1280 and len(colours) > 8, f"{path} looks blank"
    print(f"screenshot ok: {path} ({image.width()}x{image.height()}, {len(colours)} colours sampled)")
PY
if [ -n "${MIRA_SMOKE_KEEP:-}" ]; then cp "$work"/*.png "$MIRA_SMOKE_KEEP"/; fi

# the tarball unpacks to a folder that runs as is, and installs its own menu entry
tarball=$(ls -t dist/mira-desktop-*-linux-*.tar.gz | head -1)
mkdir "$work/unpacked" && tar -xzf "$tarball" -C "$work/unpacked"
unpacked=$(echo "$work"/unpacked/*/mira-desktop)
env -i HOME="$work" XDG_DATA_HOME="$work/xdg" "$unpacked" --install-desktop-entry
grep -qx "Exec=$unpacked %F" "$work/xdg/applications/io.mira.Desktop.desktop"
test -f "$work/xdg/icons/hicolor/256x256/apps/io.mira.Desktop.png"
echo "desktop entry ok: Exec=$unpacked %F"

echo "build time: ${built} s"
echo "bundle:     $(du -sh "$bundle" | cut -f1) ($bundle)"
echo "tarball:    $(du -sh dist/mira-desktop-*.tar.gz | tail -1)"
