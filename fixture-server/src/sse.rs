//! Legacy HTTP+SSE (protocol 2024-11-05), which the SDK no longer serves: `GET /sse`
//! opens an event stream whose first event, `endpoint`, names where to POST; each POST
//! is answered `202` and its reply arrives on the stream as a `message` event. The
//! JSON-RPC itself is the SDK's: each stream gets a fresh SDK server over an in-memory
//! pipe, and this module only moves lines between the pipe and HTTP. Like the Express
//! servers of that era, `POST /sse` is a 404, so a Streamable HTTP client falls back.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

use crate::handler::Fixture;
use crate::http::{read_request, respond_and_close};

type Sessions = Arc<Mutex<HashMap<String, WriteHalf<DuplexStream>>>>;

pub(crate) async fn serve(listener: TcpListener, fixture: Fixture) {
    let sessions: Sessions = Arc::default();
    let next = Arc::new(AtomicU64::new(1));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let (fixture, sessions, next) = (fixture.clone(), sessions.clone(), next.clone());
        tokio::spawn(connection(stream, fixture, sessions, next));
    }
}

/// Serve the requests of one connection (keep-alive) until it closes or turns into a
/// stream.
async fn connection(
    mut stream: TcpStream,
    fixture: Fixture,
    sessions: Sessions,
    next: Arc<AtomicU64>,
) {
    while let Some(request) = read_request(&mut stream).await {
        let path = request.target.split('?').next().unwrap_or("");
        match (request.method.as_str(), path) {
            ("GET", "/sse") => {
                let id = next.fetch_add(1, Ordering::Relaxed).to_string();
                return event_stream(stream, fixture, sessions, id).await;
            }
            ("POST", "/message") => {
                let id = request
                    .target
                    .split_once("sessionId=")
                    .map(|(_, id)| id.split('&').next().unwrap_or("").to_owned())
                    .unwrap_or_default();
                let mut sessions = sessions.lock().await;
                let Some(pipe) = sessions.get_mut(&id) else {
                    drop(sessions);
                    return respond_and_close(stream, "404 Not Found", "", "Session not found")
                        .await;
                };
                let mut line = request.body;
                line.push(b'\n');
                let _ = pipe.write_all(&line).await;
                drop(sessions);
                let accepted = "HTTP/1.1 202 Accepted\r\nContent-Length: 8\r\n\r\nAccepted";
                if stream.write_all(accepted.as_bytes()).await.is_err() {
                    return;
                }
            }
            (method, _) => {
                let body = format!("Cannot {method} {path}");
                return respond_and_close(
                    stream,
                    "404 Not Found",
                    "Content-Type: text/plain\r\n",
                    &body,
                )
                .await;
            }
        }
    }
}

/// Open the event stream: start an SDK server for it, announce the endpoint, then
/// forward every line the server writes as a `message` event until the client leaves.
async fn event_stream(mut stream: TcpStream, fixture: Fixture, sessions: Sessions, id: String) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (from_server, to_server) = tokio::io::split(ours);
    let (server_in, server_out) = tokio::io::split(theirs);
    sessions.lock().await.insert(id.clone(), to_server);
    tokio::spawn(async move {
        if let Ok(service) = fixture.serve((server_in, server_out)).await {
            let _ = service.waiting().await;
        }
    });
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
         Connection: close\r\n\r\nevent: endpoint\ndata: /message?sessionId={id}\n\n"
    );
    if stream.write_all(head.as_bytes()).await.is_ok() {
        let mut lines = BufReader::new(from_server).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let event = format!("event: message\ndata: {line}\n\n");
            if stream.write_all(event.as_bytes()).await.is_err() {
                break;
            }
        }
    }
    // Dropping the pipe ends the SDK server of this stream.
    sessions.lock().await.remove(&id);
}
