//! `mcpctl bridge` against servers that misbehave (issue 39 G4, G7): every request gets
//! exactly one whole-JSON answer line, also when the server drops the connection in the
//! middle of its reply; requests are relayed concurrently, a cancel is honoured, and a
//! reply that does not come is answered with an error after `--timeout`. The servers are
//! the SDK-built fixture on loopback (`http=PORT`, `http-json=PORT`) and its hand-written
//! dropping modes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::secret_store::{HttpFixture, free_port};

/// Long enough for a loaded machine; every wait that reaches it fails the test.
const PATIENCE: Duration = Duration::from_secs(30);

/// The client's end of the bridge: lines read on a thread, so a missing answer fails the
/// test instead of hanging it.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Client {
    fn start(mut command: Command) -> Client {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: u64, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// The next line, which must be one whole JSON message.
    fn next(&self) -> Value {
        let line = match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no line from the bridge in {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the bridge closed its output"),
        };
        serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!("the client got a line that is not whole JSON ({e}): {line:?}")
        })
    }

    /// The next reply (skipping the server's notifications).
    fn reply(&self) -> Value {
        loop {
            let message = self.next();
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    fn handshake(&mut self) {
        self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bridge-test", "version": "0"}}),
        );
        let init = self.reply();
        assert_eq!(
            init["result"]["serverInfo"]["name"], "fixture-server",
            "{init}"
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Close stdin: the bridge must end by itself, with nothing more to say.
    fn finish(mut self) {
        drop(self.stdin.take());
        let until = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "bridge ended with {status}");
                break;
            }
            assert!(
                std::time::Instant::now() < until,
                "the bridge did not end after its input closed"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        while let Ok(line) = self.lines.try_recv() {
            let _: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not whole JSON ({e}): {line:?}"));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_text(reply: &Value) -> String {
    reply["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error reply: {reply}"))
        .to_owned()
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_server_that_drops_mid_reply_gets_each_request_one_error_never_half_a_line() {
    for mode in ["http-drop", "http-drop-sse"] {
        let env = TestEnv::new();
        let port = free_port();
        let _server = HttpFixture::start(mode, port);
        let url = format!("http://127.0.0.1:{port}/mcp");
        let mut client = Client::start(env.command(&["bridge", &url]));
        client.request(1, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}));
        let reply = client.reply();
        assert_eq!(reply["id"], 1, "{mode}: {reply}");
        let text = error_text(&reply);
        assert!(text.starts_with("mcpctl bridge: "), "{mode}: {text}");
        assert!(text.contains(&url), "{mode}: {text}");
        for id in [2, 3] {
            client.request(id, "tools/list", json!({}));
            let reply = client.reply();
            assert_eq!(reply["id"], id, "{mode}: {reply}");
            error_text(&reply);
        }
        client.finish();
    }
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_slow_reply_holds_up_no_other_request_and_a_cancel_is_honoured() {
    // The server answers each POST with a JSON body once the tool is done (the SDK's
    // `json_response`): a bridge reading that body before the next request is relayed
    // holds every later request, the cancel included.
    let env = TestEnv::new();
    let port = free_port();
    let _server = HttpFixture::start("http-json", port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut client = Client::start(env.command(&["bridge", &url]));
    client.handshake();
    client.request(
        2,
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 4000}}),
    );
    client.request(3, "tools/call", json!({"name": "hello", "arguments": {}}));
    let first = client.reply();
    assert_eq!(
        first["id"], 3,
        "the quick reply waited for the slow one: {first}"
    );
    assert_eq!(first["result"]["content"][0]["text"], "hello");
    let second = client.reply();
    assert_eq!(second["id"], 2, "{second}");
    assert_eq!(second["result"]["content"][0]["text"], "slept 4000 ms");

    // A cancelled request owes no answer: the bridge does not wait for it at the end, and
    // a reply that still comes is not passed on.
    client.request(
        4,
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 3000}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4, "reason": "user"}}));
    client.request(5, "ping", json!({}));
    let pong = client.reply();
    assert_eq!(pong["id"], 5, "{pong}");
    std::thread::sleep(Duration::from_millis(3500));
    client.request(6, "ping", json!({}));
    let pong = client.reply();
    assert_eq!(
        pong["id"], 6,
        "a cancelled request's reply was passed on: {pong}"
    );
    client.finish();
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_reply_that_does_not_come_in_time_is_answered_with_an_error() {
    let env = TestEnv::new();
    let port = free_port();
    let _server = HttpFixture::start("http", port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut client = Client::start(env.command(&["bridge", &url, "--timeout", "1"]));
    client.handshake();
    client.request(
        2,
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 60000}}),
    );
    client.request(3, "ping", json!({}));
    assert_eq!(client.reply()["id"], 3);
    let late = client.reply();
    assert_eq!(late["id"], 2, "{late}");
    let text = error_text(&late);
    assert!(
        text.contains("no reply from") && text.contains("within 1 s"),
        "{text}"
    );
    // Nothing is owed any more: the bridge ends at once, not after the server's minute.
    client.finish();
}
