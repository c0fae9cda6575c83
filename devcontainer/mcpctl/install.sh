#!/bin/sh
# The mcpctl devcontainer feature: install the binary at image build time (as root), and
# leave the script the feature's postCreateCommand runs once the workspace is mounted:
# `mcpctl apply` of the repository's manifest, as the container's user.
#
# Options arrive as environment variables (VERSION, MANIFEST). The binary comes from an
# `mcpctl` file beside this script if there is one (an offline image, a build of your
# own), else from npm (`npm install -g mcpctl@VERSION`; add the node feature first).
# MCPCTL_FEATURE_PREFIX (default /usr/local) is where it goes: the tests install into a
# container-like temporary root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix="${MCPCTL_FEATURE_PREFIX:-/usr/local}"
version="${VERSION:-latest}"
manifest="${MANIFEST:-mcpctl.toml}"

mkdir -p "$prefix/bin" "$prefix/share/mcpctl-feature"
if [ -f "$here/mcpctl" ]; then
    cp "$here/mcpctl" "$prefix/bin/mcpctl"
    chmod 755 "$prefix/bin/mcpctl"
elif command -v npm >/dev/null 2>&1; then
    npm install -g --prefix "$prefix" --no-audit --no-fund "mcpctl@$version"
else
    echo "mcpctl feature: no mcpctl binary beside install.sh and no npm; add the node feature (ghcr.io/devcontainers/features/node) before this one" >&2
    exit 1
fi
"$prefix/bin/mcpctl" --version

# The manifest name and the binary's path are baked in single-quoted (quotes escaped):
# data, never code.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
    echo '#!/bin/sh'
    echo '# Written by the mcpctl devcontainer feature: apply the workspace'"'"'s MCP manifest.'
    echo 'set -eu'
    echo "default_manifest=$(quote "$manifest")"
    echo "mcpctl=$(quote "$prefix/bin/mcpctl")"
    cat <<'SCRIPT'
manifest="${MCPCTL_MANIFEST:-$default_manifest}"
if [ ! -f "$manifest" ]; then
    echo "mcpctl: no $manifest in $(pwd); nothing to apply"
    exit 0
fi
status=0
"$mcpctl" apply --manifest "$manifest" --exit-code --no-input || status=$?
case "$status" in
0) echo "mcpctl: every client already matches $manifest" ;;
1) echo "mcpctl: applied $manifest" ;;
*) exit "$status" ;;
esac
SCRIPT
} >"$prefix/share/mcpctl-feature/post-create.sh"
chmod 755 "$prefix/share/mcpctl-feature/post-create.sh"
echo "mcpctl feature: installed; postCreateCommand applies $manifest"
