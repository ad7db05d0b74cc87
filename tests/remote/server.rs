//! A tiny HTTP/1.1 server on 127.0.0.1 for the remote tests: `/git/<path>` runs `git
//! http-backend` (CGI) on the repositories in `git_root`; `/auth/git/<path>` the same
//! behind basic authentication ([`USER`], [`TOKEN`]); `/slow/git/<path>` the same, each
//! answer held back and then trickled out (a clone that takes seconds); `/files/<path>`
//! serves `files_root/<path>` (404 when absent); `/redirect?to=<url>` answers 302 to
//! `<url>`; `/hang` accepts and never answers. One thread per connection, no keep-alive.

use super::{Git, text};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The user `/auth/` wants.
pub(crate) const USER: &str = "me";
/// The password `/auth/` wants: a string that appears nowhere else, so that finding it
/// anywhere on disk or in an output is a leak.
pub(crate) const TOKEN: &str = "tok3n-7f1c9b2e-s3cret";

pub(crate) struct Server {
    port: u16,
    /// `/slow/` answers being written now.
    pub slow_active: Arc<AtomicUsize>,
    /// Requests `/auth/` refused for want of the right credentials.
    pub refused: Arc<AtomicUsize>,
}

#[derive(Clone)]
struct Shared {
    backend: Arc<PathBuf>,
    git_root: Arc<PathBuf>,
    files_root: Arc<PathBuf>,
    slow_active: Arc<AtomicUsize>,
    refused: Arc<AtomicUsize>,
}

impl Server {
    pub(crate) fn start(g: &Git, git_root: PathBuf, files_root: PathBuf) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Shared {
            backend: Arc::new(g.http_backend.clone()),
            git_root: Arc::new(git_root),
            files_root: Arc::new(files_root),
            slow_active: Arc::default(),
            refused: Arc::default(),
        };
        let server = Server {
            port,
            slow_active: shared.slow_active.clone(),
            refused: shared.refused.clone(),
        };
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &shared);
                });
            }
        });
        server
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Waits (at most `limit`) until no `/slow/` answer is being written: the client
    /// read it all or went away.
    pub(crate) fn wait_slow_done(&self, limit: Duration) -> bool {
        let start = std::time::Instant::now();
        while self.slow_active.load(Ordering::SeqCst) > 0 {
            if start.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

/// Standard base64, for the expected `Authorization` header.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    }
    let mut out = stream;
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    if path.starts_with("/hang") {
        std::thread::sleep(Duration::from_secs(60));
        return Ok(());
    }
    if path == "/redirect" {
        let to = query.strip_prefix("to=").unwrap_or("");
        return write!(
            out,
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
    }
    if let Some(file) = path.strip_prefix("/files/") {
        return match std::fs::read(shared.files_root.join(file)) {
            Ok(bytes) => {
                write!(out, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", bytes.len())?;
                out.write_all(&bytes)
            }
            Err(_) => out.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
            ),
        };
    }
    let (path, slow) = match path.strip_prefix("/slow") {
        Some(rest) => (rest, true),
        None => (path, false),
    };
    let path = match path.strip_prefix("/auth") {
        Some(rest) => {
            let want = format!("Basic {}", base64(format!("{USER}:{TOKEN}").as_bytes()));
            if header("authorization").as_deref() != Some(want.as_str()) {
                shared.refused.fetch_add(1, Ordering::SeqCst);
                return out.write_all(
                    b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
            rest
        }
        None => path,
    };
    let Some(info) = path.strip_prefix("/git") else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let mut cgi = Command::new(&*shared.backend);
    cgi.env("GIT_PROJECT_ROOT", &*shared.git_root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", info)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type").unwrap_or_default())
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(p) = header("git-protocol") {
        cgi.env("GIT_PROTOCOL", p);
    }
    if let Some(e) = header("content-encoding") {
        cgi.env("HTTP_CONTENT_ENCODING", e);
    }
    let mut child = cgi.spawn()?;
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let output = child.wait_with_output()?;
    let _ = writer.join();
    let raw = output.stdout;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((end, sep)) = split else {
        return out.write_all(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
    };
    let head = text(&raw[..end]);
    let mut status = "200 OK".to_string();
    let mut response = String::new();
    for line in head.lines() {
        match line.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_string(),
            _ => {
                response.push_str(line);
                response.push_str("\r\n");
            }
        }
    }
    let head = format!("HTTP/1.1 {status}\r\n{response}Connection: close\r\n\r\n");
    if !slow {
        out.write_all(head.as_bytes())?;
        return out.write_all(&raw[end + sep..]);
    }
    // Held back, then 2 KiB every 20 ms, until written or the client went away.
    shared.slow_active.fetch_add(1, Ordering::SeqCst);
    let result = (|| {
        std::thread::sleep(Duration::from_millis(200));
        out.write_all(head.as_bytes())?;
        for chunk in raw[end + sep..].chunks(2048) {
            out.write_all(chunk)?;
            out.flush()?;
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    })();
    shared.slow_active.fetch_sub(1, Ordering::SeqCst);
    result
}
