#!/usr/bin/env bash
# Build "Mira Desktop.app" with PyInstaller and pack it into a compressed .dmg with a
# link to /Applications, on macOS (hdiutil is macOS-only; not run in CI):
#
#   python3 -m venv .venv && .venv/bin/pip install -e ".[package]"
#   packaging/macos/build_dmg.sh            # -> dist/mira-desktop-<version>-macos-<arch>.dmg
#
# Optional: MIRA_CODESIGN_IDENTITY="Developer ID Application: ..." signs the app
# (hardened runtime) before packing; notarise the .dmg afterwards with `xcrun notarytool`.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-.venv/bin/python}
version=$("$PYTHON" -c 'import re, pathlib; print(re.search(r"__version__ = \"([^\"]+)\"", pathlib.Path("mira_desktop/__init__.py").read_text()).group(1))')

"$PYTHON" packaging/build.py pyinstaller   # on macOS the spec's BUNDLE step makes the .app
app="dist/Mira Desktop.app"
if [ ! -d "$app" ]; then
  echo "no $app: is this macOS?" >&2
  exit 1
fi

if [ -n "${MIRA_CODESIGN_IDENTITY:-}" ]; then
  codesign --deep --force --options runtime --timestamp --sign "$MIRA_CODESIGN_IDENTITY" "$app"
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
cp -R "$app" "$staging/"
ln -s /Applications "$staging/Applications"

dmg="dist/mira-desktop-${version}-macos-$(uname -m).dmg"
rm -f "$dmg"
hdiutil create -volname "Mira Desktop ${version}" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$dmg"
echo "$dmg ($(du -h "$dmg" | cut -f1))"
