//! Fault injection for the crash-safety tests (`tests/cli/faults.rs`): every durable step
//! of a write (a file or directory fsync, a swap, taking a lock) calls `step` with a label
//! such as `synced:mcp.json`. In a debug build — what `cargo test` builds — the variable
//! `MCPCTL_FAULT` (read through `Platform` by `lib::run`) can stop the process there:
//!
//! - `kill@N` / `kill@LABEL`: SIGKILL itself at the Nth step, or the first step with that
//!   label (`LABEL#K`: the Kth; `PREFIX*`: a label that starts with PREFIX, for names not
//!   known in advance such as an intent's `journal:{id}.json`);
//! - `fail@…`: that step fails with an I/O error (a full disk, a yanked drive);
//! - `pause@…`: create `$MCPCTL_FAULT_GATE.waiting` and wait until `$MCPCTL_FAULT_GATE`
//!   exists (another process acts in that moment);
//! - `trace`: print every step to stderr (`fault step N: LABEL`).
//!
//! Several faults are separated by commas. A release build compiles `step` to nothing.

use std::io;

#[cfg(debug_assertions)]
mod armed {
    use std::path::PathBuf;
    use std::sync::Mutex;
    use std::sync::OnceLock;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Act {
        Kill,
        Fail,
        Pause,
    }

    #[derive(Debug)]
    pub struct Fault {
        pub act: Act,
        /// A step number, or a label and which occurrence of it.
        pub at: At,
    }

    #[derive(Debug)]
    pub enum At {
        Number(usize),
        Label(String, usize),
    }

    #[derive(Debug, Default)]
    pub struct Plan {
        pub faults: Vec<Fault>,
        pub trace: bool,
        pub gate: Option<PathBuf>,
        /// Steps seen so far, and how often each label was seen.
        pub count: usize,
        pub seen: Vec<(String, usize)>,
    }

    pub static PLAN: OnceLock<Mutex<Plan>> = OnceLock::new();

    pub fn parse(spec: &str, gate: Option<&str>) -> Plan {
        let mut plan = Plan {
            gate: gate.map(PathBuf::from),
            ..Plan::default()
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part == "trace" {
                plan.trace = true;
                continue;
            }
            let Some((act, at)) = part.split_once('@') else {
                continue;
            };
            let act = match act {
                "kill" => Act::Kill,
                "fail" => Act::Fail,
                "pause" => Act::Pause,
                _ => continue,
            };
            let at = match at.parse::<usize>() {
                Ok(n) => At::Number(n),
                Err(_) => match at.rsplit_once('#') {
                    Some((label, k)) if k.parse::<usize>().is_ok() => {
                        At::Label(label.to_owned(), k.parse().unwrap_or(1))
                    }
                    _ => At::Label(at.to_owned(), 1),
                },
            };
            plan.faults.push(Fault { act, at });
        }
        plan
    }
}

/// Arm the faults named in `MCPCTL_FAULT` (debug builds only; called once by `lib::run`).
pub fn arm(spec: Option<&str>, gate: Option<&str>) {
    #[cfg(debug_assertions)]
    if let Some(spec) = spec {
        let _ = armed::PLAN.set(std::sync::Mutex::new(armed::parse(spec, gate)));
    }
    #[cfg(not(debug_assertions))]
    let _ = (spec, gate);
}

/// One durable step of a write, named `label`. Fails only when a test asked it to.
/// Release builds have no fault plan, and [`step_at`] does not call it there.
#[cfg(debug_assertions)]
fn step(label: &str) -> io::Result<()> {
    #[cfg(debug_assertions)]
    {
        use armed::{Act, At};
        let Some(plan) = armed::PLAN.get() else {
            return Ok(());
        };
        let mut act = None;
        let gate;
        {
            let mut plan = plan
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            plan.count += 1;
            let count = plan.count;
            let seen = match plan.seen.iter_mut().find(|(l, _)| l == label) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    plan.seen.push((label.to_owned(), 1));
                    1
                }
            };
            if plan.trace {
                #[expect(clippy::print_stderr, reason = "the test asked for a trace")]
                {
                    eprintln!("fault step {count}: {label}");
                }
            }
            for fault in &plan.faults {
                let hit = match &fault.at {
                    At::Number(n) => *n == count,
                    At::Label(l, k) => match l.strip_suffix('*') {
                        Some(prefix) => label.starts_with(prefix) && *k == seen,
                        None => l == label && *k == seen,
                    },
                };
                if hit {
                    act = Some(fault.act);
                }
            }
            gate = plan.gate.clone();
        }
        match act {
            None => {}
            Some(Act::Kill) => {
                // SAFETY: sending a signal to our own process has no memory effects.
                #[cfg(unix)]
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
                std::process::abort();
            }
            Some(Act::Fail) => {
                return Err(io::Error::other(format!("injected fault at `{label}`")));
            }
            Some(Act::Pause) => {
                if let Some(gate) = gate {
                    let mut waiting = gate.clone().into_os_string();
                    waiting.push(".waiting");
                    #[expect(clippy::disallowed_methods, reason = "a test's gate file")]
                    let _ = std::fs::write(&waiting, label);
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                    while !gate.exists() && std::time::Instant::now() < deadline {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `step` with the label `{what}:{file name of path}`.
pub fn step_at(what: &str, path: &std::path::Path) -> io::Result<()> {
    #[cfg(debug_assertions)]
    if armed::PLAN.get().is_some() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return step(&format!("{what}:{name}"));
    }
    let _ = (what, path);
    Ok(())
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::armed::{At, parse};

    #[test]
    fn specs_name_steps_by_number_or_label() {
        let plan = parse("trace, kill@3,fail@synced:mcp.json#2,pause@lock:a", None);
        assert!(plan.trace);
        assert_eq!(plan.faults.len(), 3);
        assert!(matches!(plan.faults[0].at, At::Number(3)));
        assert!(matches!(&plan.faults[1].at, At::Label(l, 2) if l == "synced:mcp.json"));
        assert!(matches!(&plan.faults[2].at, At::Label(l, 1) if l == "lock:a"));
    }
}
