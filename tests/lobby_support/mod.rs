//! Helpers for the lobby and statistics tests: `clovece` processes on
//! loopback, killed when the test drops them, and their output lines read
//! on a thread as they come.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use clovece::net::Ticket;

/// The longest a whole game may take in the debug profile.
pub const GAME: Duration = Duration::from_secs(120);

/// A running `clovece` process; killed on drop.
pub struct Proc {
    child: Child,
    lines: mpsc::Receiver<(Instant, String)>,
}

/// Starts `clovece <args>` with `--data <data>`, listening on loopback
/// only (for host, join and rooms).
pub fn clovece(data: &Path, args: &[&str]) -> Proc {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clovece"));
    command
        .args(args)
        .args(["--data", data.to_str().expect("a UTF-8 path")])
        .args(["--listen", "/ip4/127.0.0.1/tcp/0"]);
    spawn(command)
}

/// `clovece host` or `join` (a bot playing at once) with `args`.
pub fn peer(data: &Path, args: &[&str]) -> Proc {
    let mut all = args.to_vec();
    all.extend(["--bot", "medium", "--pace", "0", "--linger", "20"]);
    clovece(data, &all)
}

pub fn spawn(mut command: Command) -> Proc {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clovece starts");
    let out = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    Proc { child, lines }
}

impl Proc {
    /// The rest of the first line starting with `prefix` within `wait`,
    /// and when it came.
    pub fn line_within(&mut self, prefix: &str, wait: Duration) -> Option<(Instant, String)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let (at, line) = self.lines.recv_timeout(left).ok()?;
            if let Some(rest) = line.strip_prefix(prefix) {
                return Some((at, rest.to_owned()));
            }
        }
    }

    /// The rest of the first line starting with `prefix`; panics with the
    /// process's stderr if none comes within [`GAME`].
    pub fn line(&mut self, prefix: &str) -> String {
        match self.line_within(prefix, GAME) {
            Some((_, rest)) => rest,
            None => panic!("no line {prefix:?}; stderr:\n{}", self.kill()),
        }
    }

    /// Every remaining line once the process has exited.
    pub fn rest(&mut self) -> Vec<String> {
        self.lines.iter().map(|(_, l)| l).collect()
    }

    /// Waits for a successful exit, with stderr in the panic otherwise.
    pub fn finish(mut self) {
        let status = self.child.wait().expect("clovece runs");
        if !status.success() {
            panic!("clovece failed: {status}\n{}", self.stderr());
        }
    }

    /// Kills the process; its stderr.
    pub fn kill(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr()
    }

    fn stderr(&mut self) -> String {
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        err
    }

    /// Sends the process a signal (`STOP`, `CONT`) as `kill -<sig>` does.
    pub fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .args([format!("-{sig}"), self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{sig} failed");
    }

    /// Writes `line` to the process's standard input (its console).
    pub fn say(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin is piped");
        writeln!(stdin, "{line}").expect("the process reads its console");
        stdin.flush().unwrap();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A host's ticket and code, read from its first lines.
pub fn ticket(host: &mut Proc) -> (String, String) {
    let ticket = host.line("ticket: ");
    let code = host.line("code: ");
    (ticket, code)
}

/// The address `clovece rooms --ask` takes for the host of `ticket`, as
/// mDNS would have found it.
pub fn ask(ticket: &str) -> String {
    let ticket: Ticket = ticket.parse().expect("a ticket");
    ticket.dial_addrs().next().expect("an address").to_string()
}
