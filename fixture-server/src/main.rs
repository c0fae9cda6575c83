//! A small MCP server for mcpctl's handshake tests, built on the official Rust SDK (rmcp)
//! so the tests speak to an implementation mcpctl did not write.
//!
//! Modes are argv words (several may be combined). One picks the transport:
//! - stdio (the default), or `http=PORT` (the SDK's Streamable HTTP; `http-json=PORT`:
//!   stateless, every reply a JSON body), `sse=PORT` (legacy
//!   HTTP+SSE around the SDK), or a fixed HTTP answer: `http-401=PORT`,
//!   `http-401-bare=PORT`, `http-401-gone=PORT` (a 401 whose metadata URL answers 404),
//!   `http-403=PORT`, `http-404-html=PORT`, `http-200-html=PORT` (a web page), or a server
//!   that drops the connection in the middle of every reply: `http-drop=PORT` (a JSON
//!   body), `http-drop-sse=PORT` (an event stream);
//!
//! the rest shape the server on any transport (every mode also answers the unlisted tools
//! `env` and `header`, see `handler::seen`, and `sleep`, `{"ms": N}`, which answers after N ms): `paginate`, `repeat-cursor`,
//! `crash-on-tools-list`, `roots-tool` (a third tool for clients that answer
//! `roots/list`), the protocol era — `modern` (2026-07-28 only: `server/discover`,
//! `initialize` refused), `dual` (both, the SDK's default), and without either only the
//! handshake era; or its process (stdio): `banner`, `exit=N`, `silent`,
//! `ignore-sigterm`, `busy-exit=MS` (after its input closes, works MS ms of CPU time
//! before exiting, ignoring SIGTERM: a server slow to exit on a loaded machine),
//! `exit-after=MS` (after its input closes, waits MS ms, idle, then exits by itself: a
//! server that flushes or says goodbye first; with `ignore-sigterm` it exits all the same),
//! `older` (only protocol 2025-03-26), `odd-version`, `ping-first`, `evil-name`, `ignore-unknown` (a
//! hand-written handshake server that never answers methods it does not know, such as
//! `server/discover`), `exit-on-unknown` (one that quits on them), `strict-modern` (a hand-written
//! 2026-07-28-only server that quits on any method that era lacks, `ping` included), `slow-start=MS`,
//! `busy-start=MS` (works MS ms of CPU time before it serves: a known start cost),
//! `echo-env=NAME` (repeats NAME's value: on stderr as it starts, in the description of
//! a `login` tool and in the error every call of it gets: a server that echoes a secret),
//! `echo-header=NAME` (the same `login` with the request's header NAME, over HTTP),
//! `tools-v2` (`hello` described differently, `pid` gone, `upload` new: a server whose
//! tools changed since they were locked), `tools-v2-when=PATH` (the same when PATH
//! exists as it starts, so one entry changes between two starts),
//! `log-requests=PATH` (stdio: appends every line the client sends, as it arrived, to
//! PATH, so a test can read the `initialize` a real client sends: its capabilities,
//! clientInfo and protocol version),
//! `spawn-child`, `linger` (stays after its input closes, as many real servers do, until
//! SIGTERM, which ends it: unix only). With `FIXTURE_LOG` set, it appends `start PID` to
//! that file as it starts and, in `linger` mode, `end PID` when SIGTERM ends it, so a test
//! can tell in what order servers started and ended. With
//! `FIXTURE_PID_FILE` set, it writes its pid (and its grandchild's) there, one per line,
//! so a test can check that nothing outlived the probe. Only `odd-version`, `ping-first`,
//! `silent` and the status modes answer by hand: the SDK cannot misbehave in those ways.
//! To add a mode: parse it in [`Transport::from_modes`] (or read it with [`Modes::has`]
//! in the handler) and serve it from [`serve`]. This is test code: it must never be
//! published or linked into mcpctl.

mod handler;
mod http;
mod raw;
mod sse;

use std::io::Read;
use std::time::Duration;

use rmcp::ServiceExt;

use handler::Fixture;

/// The argv words.
pub(crate) struct Modes(Vec<String>);

impl Modes {
    pub(crate) fn has(&self, mode: &str) -> bool {
        self.0.iter().any(|m| m == mode)
    }

    pub(crate) fn value(&self, prefix: &str) -> Option<&str> {
        self.0.iter().find_map(|m| m.strip_prefix(prefix))
    }
}

/// What the fixture serves, and how.
enum Transport {
    /// The SDK over stdin/stdout; with a path (`log-requests=PATH`), every line read is
    /// appended there first.
    Stdio(Option<String>),
    /// Read stdin and never answer.
    Silent,
    /// Hand-written stdio replies (`odd-version`, `ping-first`, `evil-name`,
    /// `ignore-unknown`, `exit-on-unknown`).
    Raw(raw::Quirks),
    /// The SDK's Streamable HTTP on a loopback port.
    Http(u16),
    /// The same, stateless, each reply a JSON body (`json_response`).
    HttpJson(u16),
    /// Legacy HTTP+SSE around the SDK on a loopback port.
    Sse(u16),
    /// One fixed answer to every HTTP request.
    Status(http::Answer, u16),
}

/// A listening mode: its `NAME=` prefix and the transport for the port after it.
type Listener = (&'static str, fn(u16) -> Transport);

impl Transport {
    fn from_modes(modes: &Modes) -> Self {
        let port = |text: &str| text.parse().expect("PORT");
        let listeners: [Listener; 11] = [
            ("http=", Transport::Http),
            ("http-json=", Transport::HttpJson),
            ("sse=", Transport::Sse),
            ("http-401=", |p| {
                Transport::Status(http::Answer::Unauthorized, p)
            }),
            ("http-401-bare=", |p| {
                Transport::Status(http::Answer::UnauthorizedBare, p)
            }),
            ("http-401-gone=", |p| {
                Transport::Status(http::Answer::UnauthorizedMetadataGone, p)
            }),
            ("http-403=", |p| {
                Transport::Status(http::Answer::Forbidden, p)
            }),
            ("http-404-html=", |p| {
                Transport::Status(http::Answer::NotFoundHtml, p)
            }),
            ("http-200-html=", |p| {
                Transport::Status(http::Answer::PageHtml, p)
            }),
            ("http-drop=", |p| {
                Transport::Status(http::Answer::DropJson, p)
            }),
            ("http-drop-sse=", |p| {
                Transport::Status(http::Answer::DropSse, p)
            }),
        ];
        for (prefix, make) in listeners {
            if let Some(value) = modes.value(prefix) {
                return make(port(value));
            }
        }
        if modes.has("silent") {
            Transport::Silent
        } else if [
            "odd-version",
            "ping-first",
            "evil-name",
            "ignore-unknown",
            "exit-on-unknown",
            "strict-modern",
        ]
        .iter()
        .any(|m| modes.has(m))
        {
            Transport::Raw(raw::Quirks {
                odd_version: modes.has("odd-version"),
                ping_first: modes.has("ping-first"),
                evil_name: modes.has("evil-name"),
                exit_on_unknown: modes.has("exit-on-unknown"),
                strict_modern: modes.has("strict-modern"),
            })
        } else {
            Transport::Stdio(modes.value("log-requests=").map(str::to_owned))
        }
    }
}

fn main() {
    let modes = Modes(std::env::args().skip(1).collect());

    let mut pids = vec![std::process::id()];
    if modes.has("spawn-child") {
        // Deliberately leaked: only a process-group (unix) or Job Object (Windows) kill
        // can end it. Windows has no `sleep`; `ping -n 1000` waits as long.
        let (program, args): (&str, &[&str]) = if cfg!(windows) {
            ("ping", &["-n", "1000", "127.0.0.1"])
        } else {
            ("sleep", &["1000"])
        };
        #[expect(
            clippy::zombie_processes,
            reason = "deliberately leaked: the test checks mcpctl ends the whole process group"
        )]
        let child = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn the leaked child");
        pids.push(child.id());
    }
    if let Some(path) = std::env::var_os("FIXTURE_PID_FILE") {
        let text: String = pids.iter().map(|p| format!("{p}\n")).collect();
        #[expect(
            clippy::disallowed_methods,
            reason = "the test's pid file, not a config file: no atomic write needed"
        )]
        std::fs::write(path, text).expect("write pid file");
    }
    #[cfg(unix)]
    let linger = modes.has("linger").then(block_sigterm);
    log_event("start");
    if modes.has("ignore-sigterm") || modes.value("busy-exit=").is_some() {
        // SAFETY: setting a signal disposition to SIG_IGN has no handler to race with.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    eprintln!("fixture: starting with modes {:?}", modes.0);
    if let Some(ms) = modes.value("slow-start=") {
        std::thread::sleep(Duration::from_millis(ms.parse().expect("slow-start=MS")));
    }
    if let Some(ms) = modes.value("busy-start=") {
        work(Duration::from_millis(ms.parse().expect("busy-start=MS")));
    }
    if let Some(name) = modes.value("echo-env=") {
        let value = std::env::var(name).unwrap_or_default();
        eprintln!("fixture: logging in as {value}");
    }
    if let Some(code) = modes.value("exit=") {
        eprintln!("fixture: \x1b[31mfatal\x1b[0m: exiting with code {code} as asked");
        std::process::exit(code.parse().expect("exit=N"));
    }
    if modes.has("banner") {
        println!("fixture-server v0.0.0 starting (this banner breaks the protocol)");
    }
    serve(Transport::from_modes(&modes), Fixture::new(&modes));
    if let Some(ms) = modes.value("busy-exit=") {
        work(Duration::from_millis(ms.parse().expect("busy-exit=MS")));
    }
    if let Some(ms) = modes.value("exit-after=") {
        std::thread::sleep(Duration::from_millis(ms.parse().expect("exit-after=MS")));
        std::process::exit(0);
    }
    #[cfg(unix)]
    if let Some(blocked) = linger {
        // Input closed; a lingering server runs on until it is told to stop.
        let mut signal = 0;
        // SAFETY: `blocked` is an initialised set; sigwait writes the signal it took.
        unsafe {
            libc::sigwait(&blocked, &mut signal);
        }
        log_event("end");
        std::process::exit(0);
    }
    if modes.has("ignore-sigterm") {
        // A stubborn server: outlives its input and SIGTERM; only SIGKILL ends it.
        loop {
            std::thread::sleep(Duration::from_secs(1000));
        }
    }
}

/// Block SIGTERM in every thread (called before any is started), so that `sigwait` can
/// take it once the server has stopped serving.
#[cfg(unix)]
fn block_sigterm() -> libc::sigset_t {
    // SAFETY: the set is initialised by sigemptyset before use; sigprocmask only changes
    // this thread's mask, which the threads started later inherit.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

/// Append `EVENT PID` to `FIXTURE_LOG`, if set.
fn log_event(event: &str) {
    if let Some(path) = std::env::var_os("FIXTURE_LOG") {
        use std::io::Write;
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open the fixture log");
        log.write_all(format!("{event} {}\n", std::process::id()).as_bytes())
            .expect("write the fixture log");
    }
}

/// Keep a CPU busy until this thread has used `cpu` of CPU time (wall time where there is
/// no per-thread clock).
fn work(cpu: Duration) {
    #[cfg(unix)]
    let used = || {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the timespec it is given.
        unsafe {
            libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now);
        }
        Duration::new(
            u64::try_from(now.tv_sec).unwrap_or(0),
            u32::try_from(now.tv_nsec).unwrap_or(0),
        )
    };
    #[cfg(not(unix))]
    let used = {
        let start = std::time::Instant::now();
        move || start.elapsed()
    };
    let start = used();
    while used() - start < cpu {
        std::hint::spin_loop();
    }
}

fn serve(transport: Transport, fixture: Fixture) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let listen = |port: u16| {
        runtime
            .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
            .expect("bind the loopback port")
    };
    match transport {
        Transport::Stdio(log) => {
            let refused = runtime.block_on(async {
                let served = match log {
                    Some(path) => {
                        fixture
                            .serve((logged_stdin(path), tokio::io::stdout()))
                            .await
                    }
                    None => fixture.serve(rmcp::transport::stdio()).await,
                };
                match served {
                    Ok(service) => {
                        let _ = service.waiting().await;
                        None
                    }
                    Err(error) => Some(error),
                }
            });
            // A modern-only server refusing `initialize` ends here, as the SDK decides;
            // the runtime goes first so that what it wrote reaches stdout.
            if let Some(error) = refused {
                drop(runtime);
                eprintln!("fixture: the SDK ended the connection: {error}");
                std::process::exit(1);
            }
        }
        Transport::Silent => {
            let _ = std::io::stdin().read_to_end(&mut Vec::new());
        }
        Transport::Raw(quirks) => raw::serve(&quirks),
        Transport::Http(port) => runtime.block_on(http::streamable(listen(port), fixture, false)),
        Transport::HttpJson(port) => {
            runtime.block_on(http::streamable(listen(port), fixture, true));
        }
        Transport::Sse(port) => runtime.block_on(sse::serve(listen(port), fixture)),
        Transport::Status(answer, port) => {
            runtime.block_on(http::status(listen(port), port, answer));
        }
    }
}

/// stdin as the SDK reads it, each line the client sent first appended to `path`
/// (`log-requests=PATH`): the raw JSON, unknown fields included.
fn logged_stdin(path: String) -> tokio::io::DuplexStream {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (mut ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            {
                use std::io::Write;
                let mut log = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .expect("open the request log");
                log.write_all(format!("{line}\n").as_bytes())
                    .expect("write the request log");
            }
            if ours
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
        // Input closed: the SDK sees the end of its input too.
        drop(ours);
    });
    theirs
}
