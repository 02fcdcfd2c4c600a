//! The HTTP server of the live page: read-only, GET and HEAD only, serving what it generates
//! from a [`Watch`] and a short list of the output directory's result files, nothing else.
//!
//! tiny_http: a synchronous HTTP/1.1 server with four small dependencies, which fits arena's
//! threads-and-channels design (no async runtime to start inside a run) and adds little to the
//! build. Each request gets a thread; the updates are Server-Sent Events on a raw writer, one
//! thread per browser, capped at [`MAX_STREAMS`].

use std::fs;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use tiny_http::{Header, Method, Request, Response, StatusCode};

use super::page;
use super::view::Watch;

/// The address `--serve` listens on when given without one.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// Browsers following the updates at once; more get `503`: each holds a thread.
pub const MAX_STREAMS: usize = 64;

/// Time between two comment lines on an idle update stream: proxies keep it open, and a
/// closed page is noticed (its write fails) and its slot freed within about this long.
const KEEPALIVE: Duration = Duration::from_secs(1);

/// Files of the output directory the page links to; nothing else of the directory is served
/// (no engine logs, no transcripts, no configs with paths in them).
pub const SERVED_FILES: [&str; 14] = [
    "games.csv",
    "ratings.csv",
    "pairs.csv",
    "results.pgn",
    "report.html",
    "results.xlsx",
    "sprt.csv",
    "engines.csv",
    "boards.csv",
    "ranks.csv",
    "swiss.csv",
    "swiss_standings.csv",
    "knockout.csv",
    "moves.csv",
];

/// A running server; dropping it stops listening (the update streams end within a tick).
pub struct Server {
    addr: SocketAddr,
    watch: Arc<Watch>,
    inner: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
    /// Dropped on stop: wakes every stream from its wait at once (else the end of a run would
    /// wait up to a tick for them).
    wake: Option<crossbeam_channel::Sender<()>>,
    /// Update streams open now (each ends after sending the final state).
    streams: Arc<AtomicUsize>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Listens on `addr` (`HOST:PORT`; port 0 lets the system choose) and serves the live page
    /// of output directory `dir`.
    ///
    /// # Errors
    /// A message naming the address when it cannot be parsed or bound.
    pub fn start(addr: &str, dir: &Path) -> Result<Server, String> {
        let parsed: SocketAddr = addr.parse().map_err(|_| {
            format!("--serve {addr}: expected HOST:PORT with an IP address, such as {DEFAULT_ADDR}")
        })?;
        let inner = tiny_http::Server::http(parsed)
            .map_err(|e| format!("--serve {addr}: cannot listen there: {e}"))?;
        let bound = inner.server_addr().to_ip().unwrap_or(parsed);
        let inner = Arc::new(inner);
        let stop = Arc::new(AtomicBool::new(false));
        let (wake, woken) = crossbeam_channel::bounded::<()>(0);
        let watch = Arc::new(Watch::new(dir));
        let streams = Arc::new(AtomicUsize::new(0));
        let accept = {
            let watch = Arc::clone(&watch);
            let (inner, stop, streams) =
                (Arc::clone(&inner), Arc::clone(&stop), Arc::clone(&streams));
            thread::Builder::new()
                .name("live-server".into())
                .spawn(move || accept_loop(&inner, &watch, &stop, &streams, &woken))
                .map_err(|e| format!("--serve {addr}: cannot start a thread: {e}"))?
        };
        Ok(Server {
            addr: bound,
            watch,
            inner,
            stop,
            wake: Some(wake),
            streams,
            accept: Some(accept),
        })
    }

    /// The address listened on (with the port the system chose for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Whether anyone on the network can reach it (not a loopback address).
    pub fn is_public(&self) -> bool {
        !self.addr.ip().is_loopback()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The run's final files (all games, live.json gone) go out to every open page before
        // the streams end: a projector left on the page shows the end, not the last game but one.
        self.watch.refresh_now();
        self.stop.store(true, Ordering::SeqCst);
        drop(self.wake.take());
        self.inner.unblock();
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
        // Each stream notices within one tick, sends the final state and ends.
        let until = Instant::now() + Duration::from_secs(2);
        while self.streams.load(Ordering::SeqCst) > 0 && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
    }
}

fn accept_loop(
    server: &tiny_http::Server,
    watch: &Arc<Watch>,
    stop: &Arc<AtomicBool>,
    streams: &Arc<AtomicUsize>,
    woken: &crossbeam_channel::Receiver<()>,
) {
    for request in server.incoming_requests() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let (watch, stop, streams) = (Arc::clone(watch), Arc::clone(stop), Arc::clone(streams));
        let woken = woken.clone();
        let spawned = thread::Builder::new()
            .name("live-request".into())
            .spawn(move || handle(request, &watch, &stop, &streams, &woken));
        // Out of threads: the request is dropped, which answers 500.
        drop(spawned);
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

fn text(
    status: u16,
    content_type: &str,
    body: impl Into<Vec<u8>>,
) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(body.into())
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
}

fn json(body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    text(200, "application/json", body)
}

fn not_found() -> Response<std::io::Cursor<Vec<u8>>> {
    text(404, "text/plain; charset=utf-8", "not found\n")
}

/// One request: the route from its path; anything but GET and HEAD is `405`.
fn handle(
    request: Request,
    watch: &Watch,
    stop: &AtomicBool,
    streams: &AtomicUsize,
    woken: &crossbeam_channel::Receiver<()>,
) {
    if !matches!(request.method(), Method::Get | Method::Head) {
        let response = text(
            405,
            "text/plain; charset=utf-8",
            "read-only: GET and HEAD only\n",
        )
        .with_header(header("Allow", "GET, HEAD"));
        let _ = request.respond(response);
        return;
    }
    let path = request
        .url()
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_owned();
    let response = match path.as_str() {
        "/" | "/index.html" => {
            let page = page::live(&watch.title(), &watch.event().1);
            text(200, "text/html; charset=utf-8", page)
        }
        "/api/standings" => json(serde_json::to_string(&watch.standings()).unwrap_or_default()),
        "/api/games/live" => json(serde_json::to_string(&watch.live_games()).unwrap_or_default()),
        "/api/events" => {
            if request.method() == &Method::Head {
                text(200, "text/event-stream", "")
            } else {
                return stream(request, watch, stop, streams, woken);
            }
        }
        p => match route_tail(p) {
            Some(("/api/games/", id)) => match id.parse().ok().and_then(|id| watch.game(id)) {
                Some(body) => json(body),
                None => not_found(),
            },
            Some(("/game/", id)) => match id.parse().ok().and_then(|id| watch.finished(id)) {
                Some(record) => match page::game(watch.dir(), &record) {
                    Ok(html) => text(200, "text/html; charset=utf-8", html),
                    Err(e) => text(500, "text/plain; charset=utf-8", format!("{e}\n")),
                },
                None => not_found(),
            },
            Some(("/files/", name)) => match served_file(watch.dir(), name) {
                Some((bytes, kind)) => text(200, kind, bytes),
                None => not_found(),
            },
            _ => not_found(),
        },
    };
    let _ = request.respond(response);
}

/// Splits `/api/games/7` into (`/api/games/`, `7`) for the routes with a parameter.
fn route_tail(path: &str) -> Option<(&'static str, &str)> {
    ["/api/games/", "/game/", "/files/"]
        .into_iter()
        .find_map(|prefix| path.strip_prefix(prefix).map(|rest| (prefix, rest)))
}

/// Whether `name` is a team page of a class championship: `teams/<file>.html`, one plain
/// file name (what report.html's Teams section links to, relative to it).
fn is_team_page(name: &str) -> bool {
    name.strip_prefix("teams/")
        .and_then(|file| file.strip_suffix(".html"))
        .is_some_and(|stem| !stem.is_empty() && !stem.contains('/') && !stem.starts_with('.'))
}

/// The bytes and content type of `name` when it is one of [`SERVED_FILES`] or a team page, a
/// regular file (not a symbolic link) inside `dir`.
fn served_file(dir: &Path, name: &str) -> Option<(Vec<u8>, &'static str)> {
    // Percent-encoded team names (`teams/a%20b.html`) name the file on disk.
    let decoded = percent_decode(name)?;
    let name = decoded.as_str();
    if !SERVED_FILES.contains(&name) && !is_team_page(name) {
        return None;
    }
    let path = dir.join(name);
    if !fs::symlink_metadata(&path).ok()?.file_type().is_file() {
        return None;
    }
    let kind = match Path::new(name).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("csv") => "text/csv; charset=utf-8",
        Some("xlsx") => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        _ => "text/plain; charset=utf-8",
    };
    Some((fs::read(path).ok()?, kind))
}

/// `%XX` escapes decoded; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Server-Sent Events: the current state at once, then every new version (at most one per
/// look at the directory, a few a second), until the browser leaves or the server stops.
fn stream(
    request: Request,
    watch: &Watch,
    stop: &AtomicBool,
    streams: &AtomicUsize,
    woken: &crossbeam_channel::Receiver<()>,
) {
    if streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
        streams.fetch_sub(1, Ordering::SeqCst);
        let _ = request.respond(text(
            503,
            "text/plain; charset=utf-8",
            format!("too many live pages open (at most {MAX_STREAMS})\n"),
        ));
        return;
    }
    let mut out = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
                Connection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    let mut sent = None;
    let mut quiet_since = Instant::now();
    let mut ok = out.write_all(head.as_bytes()).is_ok();
    while ok {
        // Read before the event: a stop seen here still sends the final state once.
        let stopping = stop.load(Ordering::SeqCst);
        let (version, event) = watch.event();
        if sent != Some(version) {
            ok = write!(out, "data: {event}\n\n")
                .and_then(|()| out.flush())
                .is_ok();
            sent = Some(version);
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= KEEPALIVE {
            ok = out
                .write_all(b": keepalive\n\n")
                .and_then(|()| out.flush())
                .is_ok();
            quiet_since = Instant::now();
        }
        if stopping {
            break;
        }
        // A tick, or at once when the server stops (the sender is dropped).
        let _ = woken.recv_timeout(Duration::from_millis(super::feed::PUBLISH_EVERY_MS));
    }
    streams.fetch_sub(1, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_regular_files_inside_the_directory_are_served() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("games.csv"), "a,b\n").unwrap();
        fs::write(dir.path().join("config.yaml"), "secret").unwrap();
        fs::write(outside.path().join("secret"), "secret").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret"),
            dir.path().join("ratings.csv"),
        )
        .unwrap();
        assert_eq!(
            served_file(dir.path(), "games.csv").map(|(b, _)| b),
            Some(b"a,b\n".to_vec())
        );
        for name in [
            "config.yaml",
            "ratings.csv",
            "../games.csv",
            "logs/x.log",
            "",
            "pairs.csv",
        ] {
            assert_eq!(served_file(dir.path(), name), None, "{name}");
        }
    }

    #[test]
    fn team_pages_are_served_and_nothing_beside_them() {
        assert!(is_team_page("teams/amber-ocelot-48.html"));
        assert!(!is_team_page("teams/../teams.csv"));
        assert!(!is_team_page("teams/x/y.html"));
        assert!(!is_team_page("teams/.html"));
        assert!(!is_team_page("teams.csv"));
        assert_eq!(
            percent_decode("teams/a%20b.html").as_deref(),
            Some("teams/a b.html")
        );
        assert_eq!(percent_decode("bad%2"), None);
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("teams")).unwrap();
        fs::write(dir.path().join("teams/a b.html"), "page").unwrap();
        fs::write(dir.path().join("teams.csv"), "private").unwrap();
        fs::write(dir.path().join("pseudonyms.csv"), "private").unwrap();
        assert_eq!(
            served_file(dir.path(), "teams/a%20b.html").unwrap().0,
            b"page"
        );
        assert!(served_file(dir.path(), "teams.csv").is_none());
        assert!(served_file(dir.path(), "pseudonyms.csv").is_none());
        assert!(served_file(dir.path(), "teams/..%2Fteams.csv").is_none());
    }

    #[test]
    fn routes_with_a_parameter_split_at_their_prefix() {
        assert_eq!(route_tail("/api/games/12"), Some(("/api/games/", "12")));
        assert_eq!(route_tail("/game/3"), Some(("/game/", "3")));
        assert_eq!(route_tail("/files/../x"), Some(("/files/", "../x")));
        assert_eq!(route_tail("/etc/passwd"), None);
    }
}
