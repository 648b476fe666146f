//! Running the real `clovece` binary from integration tests.

#![allow(dead_code, reason = "each test file uses a part")]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// What a run of the binary gave: exit status, stdout and stderr.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `clovece <command>` with `input` on stdin.
pub fn run(command: &str, input: &str) -> Output {
    run_bytes(command, input.as_bytes())
}

/// Runs `clovece <command>` with `input`, which need not be text, on stdin.
pub fn run_bytes(command: &str, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clovece"))
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The JSON answer to `input`, which must be accepted.
pub fn answer(command: &str, input: &Value) -> Value {
    let out = run(command, &input.to_string());
    assert_eq!(out.code, 0, "input {input}: stderr {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON on stdout")
}

/// Asserts that `input` is refused with nothing on stdout, one line on
/// stderr and status 2, and returns that line.
pub fn refused(command: &str, input: &str) -> String {
    let out = run(command, input);
    assert_eq!(
        out.code, 2,
        "input {input}: stdout {:?} stderr {:?}",
        out.stdout, out.stderr
    );
    assert!(
        out.stdout.is_empty(),
        "input {input}: stdout {:?}",
        out.stdout
    );
    // A line ends at any of Unicode's line breaks for a reader that knows
    // them all (Python's `splitlines`, say), not only at '\n'.
    let breaks = [
        '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
    ];
    let line = out.stderr.strip_suffix('\n').unwrap_or("\n");
    assert!(
        !line.contains(breaks),
        "input {input}: one line on stderr, not {:?}",
        out.stderr
    );
    out.stderr
}

/// `doc` with `key` set to `value`.
pub fn with(mut doc: Value, key: &str, value: Value) -> Value {
    doc[key] = value;
    doc
}
