//! The stdio handshake: spawn the program `prepare` resolved (entry env over the parent
//! snapshot, entry cwd, own process group, all three streams piped),
//! speak newline-delimited JSON-RPC, then end it and everything it started.
//!
//! stdout and stderr are read on their own threads with bounded line lengths, so a
//! runaway server cannot exhaust memory or block on a full pipe. This module never
//! returns with the server still running and never reads `std::env` variables.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde_json::Value;

use super::jsonrpc::{self, Incoming};
use super::lines::{clean_text, read_line};
use super::process::{self, Ending, Hurry};
use super::session::{self, Channel, Plan, Reply};
use super::{Phase, ProbeError, ProbeOptions, ProbeWarning, Report, ToolCall};
use crate::entry::StringMap;

/// Longest stdout line kept (a larger one is reported, not buffered).
const MAX_STDOUT_LINE: usize = 16 * 1024 * 1024;
/// Longest stderr line kept in the tail.
const MAX_STDERR_LINE: usize = 2 * 1024;
/// The stderr tail: at most this many lines...
const TAIL_LINES: usize = 50;
/// ...and at most this many bytes.
const TAIL_BYTES: usize = 8 * 1024;
/// How long to wait for the exit status of a server whose stdout closed.
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long to wait for the last stderr lines after the server ended.
const STDERR_WAIT: Duration = Duration::from_millis(300);
/// How often the reply loop checks whether the server has exited.
const POLL: Duration = Duration::from_millis(100);

/// A stdio server as `prepare` planned it.
pub(crate) struct Server<'a> {
    pub(crate) program: &'a Path,
    /// The command as the entry names it, for messages.
    pub(crate) command: &'a str,
    pub(crate) args: &'a [String],
    pub(crate) env: &'a StringMap,
    pub(crate) cwd: Option<&'a Path>,
}

/// Run the handshake. The result is known when this returns, and the server's input is
/// closed; ending it is left to [`Closing::end`], which a caller with other servers to
/// start may run on a thread of its own.
pub(crate) fn probe(
    server: &Server<'_>,
    options: &ProbeOptions,
    deadline: Instant,
    call: Option<&ToolCall>,
    report: &mut Report,
) -> Closing {
    probe_with_window(
        server,
        options,
        deadline,
        call,
        report,
        session::PROBE_WINDOW,
    )
}

/// [`probe`] with `window` for the server to answer `server/discover` in.
fn probe_with_window(
    server: &Server<'_>,
    options: &ProbeOptions,
    deadline: Instant,
    call: Option<&ToolCall>,
    report: &mut Report,
    window: Duration,
) -> Closing {
    let mut env = options.parent_env.clone();
    env.extend(server.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    let start = Start {
        server,
        env,
        patience: options.timeout,
    };
    let running = match start.start(report) {
        Ok(running) => running,
        Err(error) => {
            return Closing {
                running: None,
                patience: start.patience,
                result: Err(error),
                first_junk: None,
            };
        }
    };
    let mut channel = StdioChannel {
        start: &start,
        running: Some(running),
        sent: None,
        first_junk: None,
        window,
    };
    let plan = Plan {
        deadline,
        budget: options.budget(),
        discover: options.opening != super::Opening::Initialize,
        call,
        capabilities: options.capabilities.clone(),
    };
    let result = session::run(&mut channel, &plan, report);
    let first_junk = channel.first_junk.take();
    let mut running = channel.running.take();
    if let Some(running) = &mut running {
        // The spec's first step of the ending: close the server's input.
        drop(running.stdin.take());
    }
    Closing {
        running,
        patience: start.patience,
        result,
        first_junk,
    }
}

/// A finished handshake whose server (input closed) is still to be ended.
pub(crate) struct Closing {
    running: Option<Running>,
    /// How long a server still at work after SIGTERM may take to exit.
    patience: Duration,
    result: Result<(), ProbeError>,
    /// The first non-JSON-RPC stdout line, if any.
    first_junk: Option<String>,
}

impl Closing {
    /// End the server and everything it started (returns once they are gone), keep its
    /// stderr tail, and say what the handshake found. `hurry`: see [`Hurry`].
    pub(crate) fn end(self, report: &mut Report, hurry: &Hurry) -> Result<(), ProbeError> {
        let Closing {
            running,
            patience,
            mut result,
            first_junk,
        } = self;
        if let Some(running) = running {
            let started = Instant::now();
            let ending = running.stop(report, patience, hurry);
            report.phase(Phase::Shutdown, started);
            if ending == Ending::Killed && result.is_ok() {
                report.warn(ProbeWarning::SlowShutdown {
                    how: process::KILLED.to_owned(),
                });
            }
        }
        if let Err(ProbeError::ExitedEarly { said_why, .. }) = &mut result {
            *said_why = report
                .stderr_tail
                .iter()
                .any(|line| !line.trim().is_empty());
        }

        // A server that printed junk and then never answered most likely answered in the
        // wrong place: the junk is the diagnosis, not the timeout.
        if let (Err(ProbeError::Timeout { phase, .. }), Some(line)) = (&result, first_junk) {
            let phase = *phase;
            report
                .warnings
                .retain(|w| !matches!(w, ProbeWarning::NonJsonLine { line: l } if *l == line));
            result = Err(ProbeError::NonJson { line, phase });
        }
        result
    }
}

/// Everything needed to start the server (again).
struct Start<'a> {
    server: &'a Server<'a>,
    env: IndexMap<String, String>,
    /// How long a server still at work after SIGTERM may take to exit (the probe's
    /// time limit).
    patience: Duration,
}

impl Start<'_> {
    /// Spawn the server with its streams piped and readers running.
    fn start(&self, report: &mut Report) -> Result<Running, ProbeError> {
        let started = Instant::now();
        let mut command = Command::new(self.server.program);
        command
            .args(self.server.args)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = self.server.cwd {
            command.current_dir(cwd);
        }
        let tag = process::configure(&mut command);
        let mut child = command.spawn().map_err(|error| ProbeError::Spawn {
            command: self.server.command.to_owned(),
            reason: error.to_string(),
        })?;
        report.phase(Phase::Spawn, started);
        let tracked = process::track(&child, tag);

        let tail = Arc::new(Mutex::new(Tail::default()));
        let (stderr_done_tx, stderr_done) = std::sync::mpsc::channel::<()>();
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&tail);
            std::thread::spawn(move || {
                drain_stderr(stderr, &tail);
                let _ = stderr_done_tx.send(());
            });
        }
        let (lines_tx, lines) = std::sync::mpsc::channel();
        // Until the reader first blocks, it may hold output not yet delivered.
        let holding = Arc::new(AtomicBool::new(true));
        let mut peek = None;
        if let Some(stdout) = child.stdout.take() {
            peek = process::Peek::of(&stdout);
            let stdout = Watched {
                inner: stdout,
                holding: Arc::clone(&holding),
            };
            std::thread::spawn(move || read_stdout(stdout, &lines_tx));
        }
        Ok(Running {
            stdin: child.stdin.take(),
            child,
            lines,
            peek,
            holding,
            tail,
            stderr_done,
            tracked,
        })
    }
}

/// A started server and the ends of its pipes.
struct Running {
    stdin: Option<ChildStdin>,
    child: Child,
    lines: Receiver<Stdout>,
    /// The stdout pipe, looked into (not read) by [`Channel::quiet`].
    peek: Option<process::Peek>,
    /// Set while the stdout reader holds bytes it has not delivered as lines.
    holding: Arc<AtomicBool>,
    tail: Arc<Mutex<Tail>>,
    stderr_done: Receiver<()>,
    /// Kept until the server has ended (interrupt handling; the Windows job).
    tracked: process::Tracked,
}

impl Running {
    /// End the server as the spec says (close stdin first, if still open) and keep its
    /// stderr tail.
    /// `patience`: how long a server still at work after SIGTERM may take to exit.
    fn stop(mut self, report: &mut Report, patience: Duration, hurry: &Hurry) -> Ending {
        drop(self.stdin.take());
        let ending = process::end(&mut self.child, &self.tracked, patience, hurry);
        let _ = self.stderr_done.recv_timeout(STDERR_WAIT);
        if let Ok(tail) = self.tail.lock() {
            report.stderr_tail = tail.lines();
        }
        ending
    }
}

/// The server's stdout, marking whether its reader holds bytes: clear while it waits in
/// `read` (a `BufReader` reads again only once it has handed on all it had), set as soon
/// as `read` returns.
struct Watched<R> {
    inner: R,
    holding: Arc<AtomicBool>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.holding.store(false, Ordering::SeqCst);
        let read = self.inner.read(buf);
        self.holding.store(true, Ordering::SeqCst);
        read
    }
}

/// What the stdout reader thread reports.
enum Stdout {
    Line(String),
    TooLong { start: String, bytes: usize },
    Closed,
}

fn read_stdout(stdout: impl Read, lines: &Sender<Stdout>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let event = match read_line(&mut reader, MAX_STDOUT_LINE) {
            Ok(Some(line)) if line.bytes > MAX_STDOUT_LINE => Stdout::TooLong {
                start: jsonrpc::quote(&String::from_utf8_lossy(&line.kept)),
                bytes: line.bytes,
            },
            Ok(Some(line)) => Stdout::Line(String::from_utf8_lossy(&line.kept).into_owned()),
            Ok(None) | Err(_) => Stdout::Closed,
        };
        let closed = matches!(event, Stdout::Closed);
        if lines.send(event).is_err() || closed {
            return;
        }
    }
}

/// Lines kept from the start of stderr, whatever follows: servers often say what is
/// wrong first ("No access token was provided.") and then print a long trace.
const HEAD_LINES: usize = 3;
/// Lines from the middle kept because they say what is wrong.
const TELLING_LINES: usize = 5;

/// The bounded stderr record: the first lines, telling lines from the middle, the tail.
#[derive(Default)]
struct Tail {
    head: Vec<String>,
    telling: Vec<String>,
    lines: VecDeque<String>,
    bytes: usize,
    /// Lines dropped altogether.
    dropped: usize,
}

impl Tail {
    fn push(&mut self, line: String) {
        if self.head.len() < HEAD_LINES {
            self.head.push(line);
            return;
        }
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > TAIL_LINES || self.bytes > TAIL_BYTES {
            let Some(old) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= old.len();
            if self.telling.len() < TELLING_LINES && super::says_what_is_wrong(&old) {
                self.telling.push(old);
            } else {
                self.dropped += 1;
            }
        }
    }

    /// Everything kept, in order, with a marker where lines were left out.
    fn lines(&self) -> Vec<String> {
        let mut out = self.head.clone();
        out.extend(self.telling.iter().cloned());
        if self.dropped > 0 {
            out.push(format!("… ({} lines left out)", self.dropped));
        }
        out.extend(self.lines.iter().cloned());
        out
    }
}

fn drain_stderr(stderr: impl Read, tail: &Mutex<Tail>) {
    let mut reader = BufReader::new(stderr);
    while let Ok(Some(line)) = read_line(&mut reader, MAX_STDERR_LINE) {
        let mut text = clean_text(&String::from_utf8_lossy(&line.kept));
        if line.bytes > MAX_STDERR_LINE {
            text.push('…');
        }
        if let Ok(mut tail) = tail.lock() {
            tail.push(text);
        }
    }
}

struct StdioChannel<'a> {
    start: &'a Start<'a>,
    /// `None` only between a failed restart and the end of the probe.
    running: Option<Running>,
    /// The last request sent (id and method), to recognise it coming back.
    sent: Option<(u64, String)>,
    /// The first non-JSON-RPC stdout line, if any.
    first_junk: Option<String>,
    /// How long the server gets to answer `server/discover`.
    window: Duration,
}

impl StdioChannel<'_> {
    fn write(&mut self, message: &str, phase: Phase) -> Result<(), ProbeError> {
        let written = match self.running.as_mut().and_then(|r| r.stdin.as_mut()) {
            Some(stdin) => writeln!(stdin, "{message}").and_then(|()| stdin.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        // A write fails when the server is gone; say how it went.
        written.map_err(|_| self.gone(phase))
    }

    /// The error for a server whose output closed or whose input broke.
    fn gone(&mut self, phase: Phase) -> ProbeError {
        match self
            .running
            .as_mut()
            .and_then(|r| process::wait_for(&mut r.child, EXIT_WAIT))
        {
            Some(status) => ProbeError::ExitedEarly {
                code: status.code(),
                signal: process::exit_signal(status),
                phase,
                said_why: true,
            },
            None => ProbeError::ClosedEarly { phase },
        }
    }

    fn junk(&mut self, line: String, report: &mut Report) {
        if self.first_junk.is_none() {
            self.first_junk = Some(line.clone());
        }
        report.warn(ProbeWarning::NonJsonLine { line });
    }
}

impl Channel for StdioChannel<'_> {
    fn send(
        &mut self,
        id: u64,
        method: &str,
        params: &Value,
        phase: Phase,
        _until: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        self.sent = Some((id, method.to_owned()));
        self.write(&jsonrpc::request(id, method, params), phase)
    }

    fn receive(
        &mut self,
        phase: Phase,
        until: Instant,
        report: &mut Report,
    ) -> Result<Option<Reply>, ProbeError> {
        loop {
            let now = Instant::now();
            if now >= until {
                return Ok(None);
            }
            let Some(running) = self.running.as_mut() else {
                return Err(ProbeError::ClosedEarly { phase });
            };
            let line = match running.lines.recv_timeout((until - now).min(POLL)) {
                Ok(Stdout::Line(line)) => line,
                Ok(Stdout::TooLong { start, bytes }) => {
                    self.junk(format!("{start} ({bytes} bytes)"), report);
                    continue;
                }
                Ok(Stdout::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.gone(phase));
                }
                Err(RecvTimeoutError::Timeout) => {
                    // The server may have died while something it started holds stdout.
                    if let Ok(Some(status)) = running.child.try_wait() {
                        return Err(ProbeError::ExitedEarly {
                            code: status.code(),
                            signal: process::exit_signal(status),
                            phase,
                            said_why: true,
                        });
                    }
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match jsonrpc::parse(&line) {
                Incoming::Response { id, outcome } => {
                    // mcpctl only sends numeric ids; anything else answers nothing of ours.
                    if let Some(id) = id.as_u64() {
                        return Ok(Some(Reply { id, outcome }));
                    }
                }
                Incoming::Notification => {}
                // Our own request coming back: `cat`, not a server.
                Incoming::Request { id, method }
                    if self.sent.as_ref().is_some_and(|(sent, name)| {
                        id.as_u64() == Some(*sent) && *name == method
                    }) =>
                {
                    return Err(ProbeError::EchoesInput {
                        command: self.start.server.command.to_owned(),
                        phase,
                    });
                }
                Incoming::Request { id, method } => {
                    self.write(&jsonrpc::reply_to_server(&id, &method), phase)?;
                }
                Incoming::Invalid(quoted) => self.junk(quoted, report),
            }
        }
    }

    fn notify(
        &mut self,
        method: &str,
        phase: Phase,
        _deadline: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        self.write(&jsonrpc::notification(method), phase)
    }

    fn probe_window(&self) -> Duration {
        self.window
    }

    /// The server has read all that was sent, none of its processes is at work, and
    /// nothing it wrote is still in the pipe or with the reader thread.
    fn quiet(&mut self) -> bool {
        let Some(running) = &self.running else {
            return false;
        };
        let Some(stdin) = &running.stdin else {
            return false;
        };
        process::unread_input(stdin) == Some(0)
            && running.peek.as_ref().and_then(process::Peek::unread) == Some(0)
            && !running.holding.load(Ordering::SeqCst)
            && process::idle(running.child.id())
    }

    fn restart(&mut self, report: &mut Report) -> Result<bool, ProbeError> {
        if let Some(running) = self.running.take() {
            running.stop(report, self.start.patience, &Hurry::default());
        }
        self.running = Some(self.start.start(report)?);
        Ok(true)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests write scratch files")]
mod tests {
    use super::*;

    #[test]
    fn tail_is_bounded() {
        let mut tail = Tail::default();
        for i in 0..200 {
            tail.push(format!("line {i}"));
        }
        assert_eq!(tail.lines.len(), TAIL_LINES);
        assert_eq!(tail.lines.back().unwrap(), "line 199");
        let kept = tail.lines();
        assert_eq!(kept[..HEAD_LINES], ["line 0", "line 1", "line 2"]);
        assert!(kept[HEAD_LINES].starts_with("… ("), "{kept:?}");
        tail.push("y".repeat(TAIL_BYTES - 10));
        assert!(tail.bytes <= TAIL_BYTES);
    }

    /// Issue 26: a handshake-era server that reads `server/discover` and says nothing (as
    /// hand-written servers do with methods they do not know) cost the whole probe window.
    /// Here the window outlasts the probe's time limit, so only seeing the server go quiet
    /// gets `initialize` out in time.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_server_quiet_after_the_probe_gets_initialize_without_the_window_running_out() {
        let script = r#"while IFS= read -r line; do
            case "$line" in *'"initialize"'*)
                echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"0"}}}';;
            esac
        done"#;
        let args = ["-c".to_owned(), script.to_owned()];
        let env = StringMap::new();
        let server = Server {
            program: Path::new("/bin/sh"),
            command: "sh",
            args: &args,
            env: &env,
            cwd: None,
        };
        let options = ProbeOptions {
            timeout: Duration::from_secs(30),
            timeout_set_by: super::super::TimeoutSource::Option,
            parent_env: std::env::vars().collect(),
            capabilities: None,
            opening: super::super::Opening::Discover,
        };
        let mut report = Report::default();
        let closing = probe_with_window(
            &server,
            &options,
            Instant::now() + options.timeout,
            None,
            &mut report,
            Duration::from_secs(3600),
        );
        let result = closing.end(&mut report, &Hurry::now());
        assert!(result.is_ok(), "{result:?} {report:#?}");
        assert_eq!(report.protocol_era, Some(super::super::Era::Handshake));
    }
}
