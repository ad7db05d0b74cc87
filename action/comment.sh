#!/usr/bin/env bash
# The pull-request preview of action.yml: `kbuild diff --ref BASE --output markdown` in the
# current directory (a checkout of the pull request), posted as ONE comment on the pull
# request, which later runs update in place. The comment is found again by a hidden marker
# on its first line, not by its author (the token's user may post other comments too).
#
# Environment (action.yml sets it from its inputs):
#   KBUILD_BASE        the git revision to compare with (default HEAD^1: the base side of
#                      the pull request's merge commit)
#   KBUILD_PATHS       kustomization directories to compare, space-separated (default:
#                      every one that reads a changed file)
#   KBUILD_ARGS        more `kbuild diff` arguments, space-separated (e.g. --ignore-hash-suffix)
#   KBUILD_PR          the pull request's number
#   GITHUB_REPOSITORY  owner/name; GH_TOKEN the token `gh` uses
#   KBUILD_MARKER      the hidden marker (default <!-- kbuild-diff-preview -->); set it to
#                      keep separate comments for separate jobs of one pull request
# Exit status: 0 when the comment is posted (whether or not anything differs), 2 when kbuild
# fails (nothing is posted; its message is in the log), other non-zero when gh fails.
set -euo pipefail

base=${KBUILD_BASE:-HEAD^1}
pr=${KBUILD_PR:?KBUILD_PR: the pull request number is not set}
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY (owner/name) is not set}
marker=${KBUILD_MARKER:-<!-- kbuild-diff-preview -->}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
# Word splitting of KBUILD_ARGS and KBUILD_PATHS is wanted: they are lists.
# shellcheck disable=SC2086
kbuild diff --ref "$base" --output markdown ${KBUILD_ARGS:-} ${KBUILD_PATHS:-} >"$work/report.md" || status=$?
# diff(1)'s contract: 0 no differences, 1 differences, 2 trouble.
if [ "$status" -gt 1 ]; then
  echo "kbuild diff failed (exit $status); no comment posted" >&2
  exit "$status"
fi
{
  printf '%s\n' "$marker"
  cat "$work/report.md"
} >"$work/body.md"
cat "$work/report.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$work/report.md" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  if [ "$status" -eq 1 ]; then echo "differs=true"; else echo "differs=false"; fi >>"$GITHUB_OUTPUT"
fi

# Every comment of the pull request (--slurp: one JSON array of the pages), then the id of
# the first whose body starts with the marker.
gh api --paginate --slurp "repos/$repo/issues/$pr/comments" >"$work/comments.json"
id=$(MARKER="$marker" python3 -c '
import json, os, sys
marker = os.environ["MARKER"]
pages = json.load(sys.stdin)
for page in pages:
    for c in page:
        if (c.get("body") or "").startswith(marker):
            print(c["id"])
            sys.exit(0)
' <"$work/comments.json")

if [ -n "$id" ]; then
  gh api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$work/body.md" >/dev/null
  echo "updated comment $id on pull request $pr" >&2
else
  gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$work/body.md" >/dev/null
  echo "created a comment on pull request $pr" >&2
fi
