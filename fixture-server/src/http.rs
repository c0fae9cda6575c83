//! The HTTP transports. `http=PORT` is the SDK's own Streamable HTTP service (sessions,
//! `Mcp-Session-Id`, SSE replies with priming events) on a loopback socket. The status
//! modes (`http-401`, `http-403`, ...) answer every request the same way by hand, and
//! `sse.rs` bridges the SDK to legacy HTTP+SSE. The hand-written modes read each request
//! to its end before answering, and drain the socket before closing it: closing with
//! unread bytes makes the kernel send a reset, which a client reads as a broken server.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::handler::Fixture;

/// Serve the SDK's Streamable HTTP transport at any path; with `json`, stateless and
/// answering each request with a JSON body instead of an event stream.
pub(crate) async fn streamable(listener: TcpListener, fixture: Fixture, json: bool) {
    let mut config = StreamableHttpServerConfig::default();
    if json {
        config.legacy_session_mode = false;
        config.json_response = true;
    }
    let service = StreamableHttpService::new(
        move || Ok(fixture.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

/// One HTTP request, read to the end of its body.
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) body: Vec<u8>,
}

/// Read one request (head, then `Content-Length` bytes of body); `None` at end of input.
pub(crate) async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => data.extend_from_slice(&buffer[..n]),
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut words = head.split_whitespace();
    let method = words.next()?.to_owned();
    let target = words.next()?.to_owned();
    let length: usize = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    let mut body = data[head_end..].to_vec();
    while body.len() < length {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => body.extend_from_slice(&buffer[..n]),
        }
    }
    body.truncate(length);
    Some(Request {
        method,
        target,
        body,
    })
}

/// Write a whole response and close the connection cleanly: shut down our side, then
/// read whatever the client still sends until it closes too.
pub(crate) async fn respond_and_close(
    mut stream: TcpStream,
    status: &str,
    headers: &str,
    body: &str,
) {
    let response = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 4096];
    let drain = async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
    let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
}

/// Which fixed answer a status mode gives.
#[derive(Clone, Copy)]
pub(crate) enum Answer {
    /// 401 whose challenge names its resource metadata.
    Unauthorized,
    /// 401 with a bare challenge; only the RFC 9728 well-known path serves the metadata.
    UnauthorizedBare,
    /// 401 whose challenge names its resource metadata, which answers 404 (as every
    /// well-known path does): no client can find where to log in.
    UnauthorizedMetadataGone,
    /// 403: a token without the scope the server needs.
    Forbidden,
    /// 404 with a web server's HTML page (the wrong path on a site).
    NotFoundHtml,
    /// 200 with a web page (a site's front page where the MCP endpoint was expected).
    PageHtml,
    /// 200 JSON whose body stops in the middle: the connection drops mid-reply.
    DropJson,
    /// 200 event stream that stops in the middle of its first event.
    DropSse,
}

/// Answer every request with `answer`.
pub(crate) async fn status(listener: TcpListener, port: u16, answer: Answer) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let Some(request) = read_request(&mut stream).await else {
                return;
            };
            let json = "Content-Type: application/json\r\n";
            let cut = |content_type: &str, partial: &str| {
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: 4096\r\n\r\n{partial}"
                )
            };
            match answer {
                Answer::PageHtml => {
                    let body = "<!DOCTYPE html>\n<html><head><title>Example</title></head>\n\
                                <body><h1>Welcome</h1></body></html>";
                    respond_and_close(stream, "200 OK", "Content-Type: text/html\r\n", body).await;
                }
                Answer::DropJson | Answer::DropSse => {
                    let _ = request;
                    let response = if matches!(answer, Answer::DropJson) {
                        cut("application/json", r#"{"jsonrpc":"2.0","id":"#)
                    } else {
                        cut("text/event-stream", "event: message\ndata: {\"jsonrpc\":")
                    };
                    let _ = stream.write_all(response.as_bytes()).await;
                    // Dropped here, unfinished: the server went away mid-reply.
                }
                Answer::NotFoundHtml => {
                    let body = "<!DOCTYPE html>\n<html><head><title>404</title></head>\n\
                                <body><h1>Not Found</h1><p>The page you asked for is not here.</p>\
                                </body></html>";
                    respond_and_close(stream, "404 Not Found", "Content-Type: text/html\r\n", body)
                        .await;
                }
                Answer::Forbidden => {
                    let body = r#"{"error":"insufficient_scope"}"#;
                    respond_and_close(stream, "403 Forbidden", json, body).await;
                }
                Answer::UnauthorizedBare
                    if request.method == "GET"
                        && request.target == "/.well-known/oauth-protected-resource/mcp" =>
                {
                    let body = format!(
                        r#"{{"resource":"http://127.0.0.1:{port}/mcp","authorization_servers":["https://auth.example"]}}"#
                    );
                    respond_and_close(stream, "200 OK", json, &body).await;
                }
                Answer::UnauthorizedBare => {
                    let headers = format!("WWW-Authenticate: Bearer realm=\"mcp\"\r\n{json}");
                    respond_and_close(
                        stream,
                        "401 Unauthorized",
                        &headers,
                        r#"{"error":"invalid_token"}"#,
                    )
                    .await;
                }
                Answer::UnauthorizedMetadataGone
                    if request.method == "GET" && request.target.starts_with("/.well-known/") =>
                {
                    respond_and_close(stream, "404 Not Found", json, r#"{"error":"not_found"}"#)
                        .await;
                }
                Answer::Unauthorized | Answer::UnauthorizedMetadataGone => {
                    let headers = format!(
                        "WWW-Authenticate: Bearer error=\"invalid_token\", \
                         resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
                         scope=\"tools:read\"\r\n{json}"
                    );
                    respond_and_close(
                        stream,
                        "401 Unauthorized",
                        &headers,
                        r#"{"error":"invalid_token"}"#,
                    )
                    .await;
                }
            }
        });
    }
}
