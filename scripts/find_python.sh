#!/usr/bin/env bash
# Print the path of a Python >= 3.12 (panel 1.10 needs it), or explain what to install.
set -u
ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }
candidates=()
if command -v pyenv >/dev/null 2>&1; then
  # The committed .python-version makes pyenv pick a 3.12 build when one is installed.
  candidates+=("$(pyenv which python 2>/dev/null)")
  root=$(pyenv root 2>/dev/null)
  for dir in "$root"/versions/3.1[2-9]*/bin; do candidates+=("$dir/python"); done
fi
for name in python3.14 python3.13 python3.12 python3; do
  path=$(command -v "$name" 2>/dev/null) && candidates+=("$path")
done
for python in "${candidates[@]}"; do
  [ -n "$python" ] && [ -x "$python" ] && ok "$python" && { echo "$python"; exit 0; }
done
cat >&2 <<'MSG'
docbench needs Python 3.12 or newer, and none was found.
Install one, e.g.:  apt-get install python3.12 python3.12-venv   (Debian/Ubuntu)
               or:  pyenv install 3.12
then run the make command again (or pass PYTHON=/path/to/python3.12).
MSG
exit 1
