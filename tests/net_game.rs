//! Headless peers in separate processes over loopback: `clovece host` and
//! `clovece join` play a complete game with bots, and every peer ends with
//! the same result line (the same winner and the same final log entry).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// The longest a game may take in the debug profile.
const GAME: Duration = Duration::from_secs(90);

fn clovece(data: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_clovece"))
        .args(args)
        .args(["--data", data.to_str().expect("a UTF-8 path")])
        .args(["--listen", "/ip4/127.0.0.1/tcp/0"])
        .args(["--bot", "medium", "--pace", "0", "--linger", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clovece starts")
}

/// Reads `out` to the end on a thread; the lines come back on the channel.
fn lines(out: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The first line starting with `prefix`, without it.
fn wait_for(rx: &mpsc::Receiver<String>, prefix: &str) -> String {
    loop {
        let line = rx
            .recv_timeout(GAME)
            .unwrap_or_else(|e| panic!("no line {prefix:?}: {e}"));
        if let Some(rest) = line.strip_prefix(prefix) {
            return rest.to_owned();
        }
    }
}

/// Waits for `child` to exit 0, with its stderr in the message otherwise.
fn finished(mut child: Child) {
    let status = child.wait().expect("clovece runs");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(status.success(), "clovece failed: {status}\n{err}");
}

/// The host with `players` seats, `computers` of them the computer's, and
/// `players - computers - 1` joining processes play to the end; returns
/// every process's result line.
fn game(players: u8, computers: u8) -> Vec<String> {
    let dirs: Vec<tempfile::TempDir> = (0..players - computers)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let (players, computers) = (players.to_string(), computers.to_string());
    let mut host = clovece(
        dirs[0].path(),
        &["host", "--players", &players, "--computer", &computers],
    );
    let host_out = lines(host.stdout.take().unwrap());
    let ticket = wait_for(&host_out, "ticket: ");
    let code = wait_for(&host_out, "code: ");
    assert_eq!(code.len(), 6, "a six-character code: {code:?}");
    let mut peers = vec![(host, host_out)];
    for dir in &dirs[1..] {
        let mut join = clovece(dir.path(), &["join", &ticket]);
        let out = lines(join.stdout.take().unwrap());
        peers.push((join, out));
    }
    peers
        .into_iter()
        .map(|(child, out)| {
            let result = wait_for(&out, "result: ");
            finished(child);
            result
        })
        .collect()
}

fn assert_one_result(results: &[String]) {
    assert!(
        results[0].starts_with("winner ") && results[0].contains(" log "),
        "{results:?}"
    );
    assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
}

#[test]
fn two_peers_play_a_complete_game_with_bots() {
    assert_one_result(&game(2, 0));
}

#[test]
fn four_peers_play_a_complete_game_with_bots() {
    assert_one_result(&game(4, 0));
}

#[test]
fn a_host_with_a_computer_seat_and_a_guest_play_to_the_end() {
    assert_one_result(&game(3, 1));
}
