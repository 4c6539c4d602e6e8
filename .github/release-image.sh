#!/usr/bin/env bash
# Prints the action image of a release, read from action.yml, as GitHub
# step outputs (image=REPOSITORY, version=vX.Y.Z, major=vX), after checking
# that action.yml pins exactly the tag being released:
#
#   .github/release-image.sh v1.2.3 >> "$GITHUB_OUTPUT"
#
# Used by .github/workflows/release.yml; tested by internal/cli/release_test.go.
set -euo pipefail
tag=${1:?usage: release-image.sh vX.Y.Z}
cd "$(dirname "$0")/.."
if ! [[ $tag =~ ^v([0-9]+)\.[0-9]+\.[0-9]+$ ]]; then
  echo "release-image.sh: tag $tag is not a release version vX.Y.Z" >&2; exit 1
fi
major="v${BASH_REMATCH[1]}"
ref=$(sed -n 's/^  image: *["'\'']\{0,1\}docker:\/\/\([^"'\'']*\)["'\'']\{0,1\} *$/\1/p' action.yml)
if [ -z "$ref" ]; then
  echo "release-image.sh: action.yml:runs.image is not a docker://REPOSITORY:TAG image" >&2; exit 1
fi
repo=${ref%:*}
pinned=${ref##*:}
if [ "$pinned" != "$tag" ]; then
  echo "release-image.sh: action.yml pins $ref but the release is $tag: set runs.image to docker://$repo:$tag, commit, and tag that commit" >&2
  exit 1
fi
echo "image=$repo"
echo "version=$tag"
echo "major=$major"
