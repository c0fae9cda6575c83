# A home-manager module: after every `home-manager switch`, apply the team manifest that
# home-manager itself deploys to ~/.config/mcpctl/mcpctl.toml (a failed apply is reported
# and does not stop the switch). mcpctl writes the clients'
# own files (which home-manager does not manage); it refuses any file that is a link into
# the Nix store, so the two never fight over one file.
{ config, lib, ... }:
let
  manifest = "${config.xdg.configHome}/mcpctl/mcpctl.toml";
in
{
  xdg.configFile."mcpctl/mcpctl.toml".source = ./mcpctl.toml;

  home.activation.mcpctlApply = lib.hm.dag.entryAfter [ "linkGeneration" ] ''
    if command -v mcpctl >/dev/null 2>&1; then
      status=0
      run mcpctl apply --manifest ${lib.escapeShellArg manifest} --exit-code --no-input || status=$?
      case "$status" in
        0) verboseEcho "mcpctl: every client already matches the manifest" ;;
        1) echo "mcpctl: applied the manifest" ;;
        *) echo "mcpctl: apply failed (exit $status); run it by hand to see why" >&2 ;;
      esac
    else
      echo "mcpctl: not on PATH; MCP client configs were not applied" >&2
    fi
  '';
}
