//! `clovece` processes for the tests that run the binary (host, join,
//! rooms, nearby …): started on loopback or inside a network namespace,
//! their output lines read on a thread as they come (with the moment each
//! came, for the timing figures), killed when the test drops them.

#![allow(dead_code, reason = "each test file uses a part")]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use clovece::net::Ticket;

/// The longest a whole game may take in the debug profile.
pub const GAME: Duration = Duration::from_secs(120);

pub const BIN: &str = env!("CARGO_BIN_EXE_clovece");

/// One running `clovece` process.
pub struct Proc {
    child: Child,
    lines: mpsc::Receiver<(Instant, String)>,
    /// Standard error so far, read on a thread so that the pipe never fills.
    errors: Arc<Mutex<String>>,
    /// That thread, which ends with the process's standard error.
    reader: Option<thread::JoinHandle<()>>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

/// How a `host` or `join` process plays its own seat.
#[derive(Clone, Copy)]
pub enum Hand {
    /// The computer plays it at once (`--bot medium`).
    Bot,
    /// Asked on the terminal, which the test types on.
    Terminal,
}

/// `clovece <args> --data <data>`, listening on loopback only.
pub fn clovece(data: &Path, args: &[&str]) -> Proc {
    Proc::spawn(command(data, args, "127.0.0.1"))
}

/// `clovece <args> --data <data>` inside the network namespace `ns`,
/// listening on `addr` (see `tests/netns`).
pub fn in_namespace(ns: &str, addr: &str, data: &Path, args: &[&str]) -> Proc {
    Proc::spawn(namespaced(ns, addr, data, args))
}

/// [`in_namespace`] with `RUST_LOG` set to `log`.
pub fn logging_in_namespace(ns: &str, addr: &str, data: &Path, args: &[&str], log: &str) -> Proc {
    let mut command = namespaced(ns, addr, data, args);
    command.env("RUST_LOG", log);
    Proc::spawn(command)
}

fn namespaced(ns: &str, addr: &str, data: &Path, args: &[&str]) -> Command {
    let inner = command(data, args, addr);
    let mut outer = Command::new("ip");
    outer
        .args(["netns", "exec", ns])
        .arg(inner.get_program())
        .args(inner.get_args());
    outer
}

/// `clovece rooms` for 2-player rooms inside the namespace `ns`, on
/// `addr`, logging as `RUST_LOG` `log` says, given half a second for its
/// node to come up.
pub fn rooms_in_namespace(ns: &str, addr: &str, data: &Path, log: &str) -> Proc {
    let list = logging_in_namespace(
        ns,
        addr,
        &data.join("list"),
        &["rooms", "--seconds", "60", "--players", "2"],
        log,
    );
    thread::sleep(Duration::from_millis(500));
    list
}

fn command(data: &Path, args: &[&str], addr: &str) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .arg("--data")
        .arg(data)
        .args(["--listen", &format!("/ip4/{addr}/tcp/0")]);
    command
}

/// `clovece host` or `join` (with `args`) whose computer plays its seat at
/// once and stays 20 s at the end for the others to catch up.
pub fn peer(data: &Path, args: &[&str]) -> Proc {
    Proc::start(data, args, Hand::Bot, 0)
}

impl Proc {
    /// `clovece host` or `join` with `args` on loopback, its seat played by
    /// `hand`, pausing `pace_ms` before each of its own actions.
    pub fn start(data: &Path, args: &[&str], hand: Hand, pace_ms: u64) -> Proc {
        let pace = pace_ms.to_string();
        let mut all = args.to_vec();
        all.extend(["--pace", &pace, "--linger", "20"]);
        if let Hand::Bot = hand {
            all.extend(["--bot", "medium"]);
        }
        clovece(data, &all)
    }

    /// Runs `command` with every standard stream piped to the test.
    pub fn spawn(mut command: Command) -> Proc {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("clovece starts");
        let out = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let err = child.stderr.take().expect("piped stderr");
        let errors = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&errors);
        let reader = thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut sink = sink.lock().unwrap();
                sink.push_str(&line);
                sink.push('\n');
            }
        });
        Proc {
            child,
            lines,
            errors,
            reader: Some(reader),
            seen: Vec::new(),
        }
    }

    /// The next line, waiting at most [`GAME`].
    pub fn line(&mut self) -> String {
        match self.next_within(GAME) {
            Ok((_, line)) => line,
            Err(e) => panic!(
                "no more output ({e}) after {:?}\n{}",
                self.seen.last(),
                self.stderr()
            ),
        }
    }

    /// The next line, which must come before `deadline`, for waits that
    /// see lines all along (such as `waiting: …`) and so never run out of
    /// time line by line; otherwise panics, saying `what` did not happen,
    /// with the last lines.
    pub fn line_before(&mut self, deadline: Instant, what: &str) -> String {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.next_within(left) {
            Ok((_, line)) => line,
            Err(e) => panic!(
                "{what} by the deadline ({e}); last lines {:?}",
                &self.seen[self.seen.len().saturating_sub(20)..]
            ),
        }
    }

    fn next_within(&mut self, wait: Duration) -> Result<(Instant, String), mpsc::RecvTimeoutError> {
        let (at, line) = self.lines.recv_timeout(wait)?;
        self.seen.push(line.clone());
        Ok((at, line))
    }

    /// The rest of the first line starting with `prefix`.
    pub fn wait_for(&mut self, prefix: &str) -> String {
        loop {
            if let Some(rest) = self.line().strip_prefix(prefix) {
                return rest.to_owned();
            }
        }
    }

    /// The rest of the first line starting with `prefix` and when it came,
    /// if it comes within `wait`.
    pub fn wait_for_within(&mut self, prefix: &str, wait: Duration) -> Option<(Instant, String)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let (at, line) = self.next_within(left).ok()?;
            if let Some(rest) = line.strip_prefix(prefix) {
                return Some((at, rest.to_owned()));
            }
        }
    }

    /// Waits until this process has applied `entries` log entries (it must
    /// run with `--trace`).
    pub fn wait_for_entries(&mut self, entries: u32) {
        loop {
            if applied_length(&self.wait_for("trace: applied ")) >= entries {
                return;
            }
        }
    }

    /// Types `line` on the process's terminal (its console or its moves).
    pub fn type_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        writeln!(stdin, "{line}").expect("the process reads its terminal");
        stdin.flush().expect("the process reads its terminal");
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (e.g. `STOP`, `CONT`) to the process.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// SIGKILLs the process and reaps it; every line it printed, not only
    /// those a wait has read so far (its output ends as it dies).
    pub fn kill(mut self) -> Vec<String> {
        self.child.kill().expect("the process is killed");
        self.child.wait().expect("the process is reaped");
        while self.next_within(GAME).is_ok() {}
        std::mem::take(&mut self.seen)
    }

    /// Waits for the `result:` line and a clean exit; returns the result.
    pub fn result(mut self) -> String {
        let result = self.wait_for("result: ");
        self.finish();
        result
    }

    /// Every line up to the process's exit, which must be clean.
    pub fn run_out(mut self) -> Vec<String> {
        while self.next_within(GAME).is_ok() {}
        let seen = std::mem::take(&mut self.seen);
        self.finish();
        seen
    }

    /// Waits for an exit that fails; its standard error.
    pub fn failure(mut self) -> String {
        while self.next_within(GAME).is_ok() {}
        let status = self.child.wait().expect("clovece runs");
        assert!(!status.success(), "clovece was to fail");
        // Its standard error is read on a thread of its own, to its end.
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.stderr()
    }

    /// Waits for a clean exit.
    pub fn finish(mut self) {
        let status = self.child.wait().expect("clovece runs");
        assert!(
            status.success(),
            "clovece failed: {status}\n{}",
            self.stderr()
        );
    }

    /// Whether the process exits, cleanly, within `wait` (its output read
    /// to the end meanwhile).
    pub fn finish_within(mut self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_within(left) {
                Ok(_) => continue,
                Err(mpsc::RecvTimeoutError::Timeout) => return false,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        self.finish();
        true
    }

    /// Standard error so far.
    pub fn stderr(&self) -> String {
        self.errors.lock().unwrap().clone()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // A failed test must not leave its processes playing.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A host's ticket and code, read from its first lines.
pub fn ticket(host: &mut Proc) -> (String, String) {
    let ticket = host.wait_for("ticket: ");
    let code = host.wait_for("code: ");
    (ticket, code)
}

/// A private room of three organised from the host's console (data
/// folder `host`), with Ana (folder `ana`) seated and never ready: the
/// host, the room's ticket and Ana.
pub fn private_room_with_ana(host: &Path, ana: &Path) -> (Proc, String, Proc) {
    let args = ["host", "--players", "3", "--name", "Hana", "--console"];
    let mut hosting = peer(host, &[&args[..], &["--private"]].concat());
    let (ticket, _) = self::ticket(&mut hosting);
    let never = ["join", &ticket, "--name", "Ana", "--ready-after", "600000"];
    let ana = peer(ana, &never);
    while !hosting.wait_for("seats: ").contains("\"Ana\"") {}
    (hosting, ticket, ana)
}

/// The log's length in the rest of a `trace: applied` line.
pub fn applied_length(rest: &str) -> u32 {
    rest.split(' ').next().unwrap().parse().unwrap()
}

/// The address `clovece rooms --ask` takes for the host of `ticket`, as
/// mDNS would have found it.
pub fn ask(ticket: &str) -> String {
    let ticket: Ticket = ticket.parse().expect("a ticket");
    ticket.dial_addrs().next().expect("an address").to_string()
}

/// `n` fresh data folders, one per phone.
pub fn dirs(n: usize) -> Vec<tempfile::TempDir> {
    (0..n).map(|_| tempfile::tempdir().unwrap()).collect()
}

/// A room of `players` processes over loopback, every seat played by its
/// bot with `--trace` and `pace_ms`: the host (with `host_args`) first,
/// then its guests, each with its own data folder (and the host's
/// `--grace`, which a guest signs only if it is its own).
pub fn room(players: u8, host_args: &[&str], pace_ms: u64) -> (Vec<tempfile::TempDir>, Vec<Proc>) {
    let dirs = dirs(usize::from(players));
    let players = players.to_string();
    let mut args = vec!["host", "--players", &players, "--trace"];
    args.extend_from_slice(host_args);
    let mut host = Proc::start(dirs[0].path(), &args, Hand::Bot, pace_ms);
    let ticket = host.wait_for("ticket: ");
    let mut joining = vec!["join", &ticket, "--trace"];
    if let Some(i) = host_args.iter().position(|&a| a == "--grace") {
        joining.extend_from_slice(&host_args[i..=i + 1]);
    }
    let mut procs = vec![host];
    for dir in &dirs[1..] {
        procs.push(Proc::start(dir.path(), &joining, Hand::Bot, pace_ms));
    }
    (dirs, procs)
}

/// Every result names a winner and the same final log entry.
pub fn assert_one_result(results: &[String]) {
    assert!(
        results[0].starts_with("winner ") && results[0].contains(" log "),
        "{results:?}"
    );
    assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
}
