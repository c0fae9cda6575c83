//! The `mcpctl` binary: adapts the process to `mcpctl::run`, nothing else.

fn main() -> std::process::ExitCode {
    mcpctl::run(std::env::args_os())
}
