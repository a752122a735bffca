#!/usr/bin/env bash
# Syntax-check every JavaScript file of the workbench (the editor's components: ES modules).
# `node --check file.js` takes a file outside an ESM package as CommonJS (Node 20 then passes
# even a broken module), so each file goes through stdin with --input-type=module instead.
set -u
status=0
while IFS= read -r -d '' file; do
  if ! error=$(node --input-type=module --check < "$file" 2>&1); then
    echo "${error//\[stdin\]/$file}" >&2
    status=1
  fi
done < <(find workbench -name '*.js' -print0 | sort -z)
exit $status
