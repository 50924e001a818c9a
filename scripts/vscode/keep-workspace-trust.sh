#!/bin/sh
# Runs the desktop VS Code in $SDMA_LENS_DESKTOP_EXECUTABLE with the arguments given, less
# --disable-workspace-trust (which @vscode/test-electron always adds), so a test can open a
# folder in Restricted Mode.
exe="${SDMA_LENS_DESKTOP_EXECUTABLE:?set SDMA_LENS_DESKTOP_EXECUTABLE to the VS Code executable}"
for arg; do
  shift
  [ "$arg" = --disable-workspace-trust ] || set -- "$@" "$arg"
done
exec "$exe" "$@"
