//! Running `clovece host` / `clovece join` as processes over loopback and
//! reading their output lines as they come.

#![allow(dead_code, reason = "each test file uses a part")]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

/// The longest a game may take in the debug profile.
pub const GAME: Duration = Duration::from_secs(90);

/// One running `clovece` process.
pub struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Standard error so far, read on a thread so that the pipe never fills.
    errors: Arc<Mutex<String>>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

/// How a process plays its own seat.
#[derive(Clone, Copy)]
pub enum Hand {
    Bot,
    /// Asked on the terminal: stdin is piped to the test.
    Terminal,
}

impl Proc {
    /// Starts `clovece <args>` with `--data data` on loopback, pausing
    /// `pace_ms` before each of its own actions.
    pub fn start(data: &Path, args: &[&str], hand: Hand, pace_ms: u64) -> Proc {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clovece"));
        command
            .args(args)
            .args(["--data", data.to_str().expect("a UTF-8 path")])
            .args(["--listen", "/ip4/127.0.0.1/tcp/0"])
            .args(["--pace", &pace_ms.to_string(), "--linger", "20"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match hand {
            Hand::Bot => {
                command.args(["--bot", "medium"]).stdin(Stdio::null());
            }
            Hand::Terminal => {
                command.stdin(Stdio::piped());
            }
        }
        let mut child = command.spawn().expect("clovece starts");
        let out = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let err = child.stderr.take().expect("piped stderr");
        let errors = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&errors);
        thread::spawn(move || {
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
            seen: Vec::new(),
        }
    }

    /// The next line, waiting at most [`GAME`].
    pub fn line(&mut self) -> String {
        let line = self.lines.recv_timeout(GAME).unwrap_or_else(|e| {
            panic!(
                "no more output ({e}) after {:?}\n{}",
                self.seen.last(),
                self.stderr()
            )
        });
        self.seen.push(line.clone());
        line
    }

    /// The rest of the first line starting with `prefix`.
    pub fn wait_for(&mut self, prefix: &str) -> String {
        loop {
            if let Some(rest) = self.line().strip_prefix(prefix) {
                return rest.to_owned();
            }
        }
    }

    /// Waits until this process has applied `entries` log entries (it must
    /// run with `--trace`).
    pub fn wait_for_entries(&mut self, entries: u32) {
        loop {
            let applied = self.wait_for("trace: applied ");
            let len: u32 = applied.split(' ').next().unwrap().parse().unwrap();
            if len >= entries {
                return;
            }
        }
    }

    /// Types `line` on the process's terminal.
    pub fn type_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        writeln!(stdin, "{line}").expect("the process reads its terminal");
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

    /// SIGKILLs the process and reaps it.
    pub fn kill(mut self) -> Vec<String> {
        self.child.kill().expect("the process is killed");
        self.child.wait().expect("the process is reaped");
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
        while let Ok(line) = self.lines.recv_timeout(GAME) {
            self.seen.push(line);
        }
        let seen = std::mem::take(&mut self.seen);
        self.finish();
        seen
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

/// A room of `players` processes over loopback, every seat played by its
/// bot with `--trace` and `pace_ms`: the host (with `host_args`) first,
/// then its guests, each with its own data folder.
pub fn room(players: u8, host_args: &[&str], pace_ms: u64) -> (Vec<tempfile::TempDir>, Vec<Proc>) {
    let dirs: Vec<_> = (0..players).map(|_| tempfile::tempdir().unwrap()).collect();
    let players = players.to_string();
    let mut args = vec!["host", "--players", &players, "--trace"];
    args.extend_from_slice(host_args);
    let mut host = Proc::start(dirs[0].path(), &args, Hand::Bot, pace_ms);
    let ticket = host.wait_for("ticket: ");
    let mut procs = vec![host];
    for dir in &dirs[1..] {
        procs.push(Proc::start(
            dir.path(),
            &["join", &ticket, "--trace"],
            Hand::Bot,
            pace_ms,
        ));
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
