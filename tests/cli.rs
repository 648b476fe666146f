//! The `moves` / `replay` command line of ../shared/spec/notation.md, run
//! through the real binary: answers on stdout, and for bad input one line on
//! stderr with exit status 2, never a panic.

mod common;

use common::{answer, refused, with};
use serde_json::{Value, json};

fn spec_position() -> Value {
    json!({
        "rules": "classic",
        "house": ["compulsory-capture", "optional-bring-out", "no-jump-home"],
        "seats": ["red", "green"],
        "turn": "red",
        "pieces": {
            "red":   ["B", "T0", "T17", "H2"],
            "green": ["B", "B", "B", "T24"]
        }
    })
}

#[test]
fn moves_answers_the_spec_example() {
    let doc = with(spec_position(), "roll", json!(6));
    assert_eq!(
        answer("moves", &doc),
        json!({"moves": ["T0>T6", "T17>T23"]})
    );
    let doc = with(with(spec_position(), "house", json!([])), "roll", json!(6));
    assert_eq!(answer("moves", &doc), json!({"moves": ["T0>T6"]}));
}

/// The answers are laid out as the contract's examples, byte for byte.
#[test]
fn answers_are_written_as_the_spec_writes_them() {
    let doc = with(spec_position(), "roll", json!(6));
    let out = common::run("moves", &doc.to_string());
    assert_eq!(out.stdout, "{\"moves\": [\"T0>T6\", \"T17>T23\"]}\n");
    let doc = with(with(doc, "level", json!("hard")), "seed", json!(1));
    let out = common::run("bot", &doc.to_string());
    assert!(out.stdout.starts_with("{\"move\": \"T"), "{}", out.stdout);
}

#[test]
fn moves_are_sorted_as_byte_strings_without_duplicates() {
    let doc = json!({"rules": "classic", "seats": ["green", "red"], "turn": "red",
        "house": ["optional-bring-out"],
        "pieces": {"red": ["B", "B", "T5", "T12"], "green": ["B", "B", "B", "B"]}, "roll": 6});
    assert_eq!(
        answer("moves", &doc),
        json!({"moves": ["B>T0", "T12>T18", "T5>T11"]})
    );
}

#[test]
fn replay_plays_a_script_with_the_turn_flow() {
    let doc = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["B", "B", "B", "T24"]},
        "script": [{"roll": 1}, {"roll": 6}, {"move": "B>T0"}, {"roll": 3}, {"move": "T0>T3"}]});
    assert_eq!(
        answer("replay", &doc),
        json!({
            "position": {"rules": "classic", "house": [], "seats": ["red", "green"], "turn": "green",
                "pieces": {"red": ["B", "B", "B", "T3"], "green": ["B", "B", "B", "T24"]}},
            "next": {"seat": "green", "action": "roll", "try": 1}
        })
    );
}

#[test]
fn replay_reports_tries_moves_and_the_winner() {
    let base = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["H1", "H2", "H3", "T18"]}});
    let doc = with(base.clone(), "script", json!([{"roll": 2}]));
    assert_eq!(
        answer("replay", &doc)["next"],
        json!({"seat": "red", "action": "roll", "try": 2})
    );
    let doc = with(base.clone(), "script", json!([{"roll": 6}]));
    assert_eq!(
        answer("replay", &doc)["next"],
        json!({"seat": "red", "action": "move"})
    );
    let doc = with(
        base,
        "script",
        json!([{"roll": 1}, {"roll": 1}, {"roll": 1}, {"roll": 5}, {"move": "T18>H4"}]),
    );
    let out = answer("replay", &doc);
    assert_eq!(out["next"], json!({"winner": "green"}));
    assert_eq!(out["position"]["turn"], json!("green"));
}

#[test]
fn replay_refuses_a_step_out_of_turn_naming_its_index() {
    let base = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["T5", "B", "B", "B"], "green": ["H1", "H2", "H3", "T18"]}});
    let err = refused(
        "replay",
        &with(base.clone(), "script", json!([{"roll": 2}, {"roll": 2}])).to_string(),
    );
    assert!(err.contains("step 1"), "{err}");
    let err = refused(
        "replay",
        &with(base.clone(), "script", json!([{"move": "T5>T7"}])).to_string(),
    );
    assert!(err.contains("step 0"), "{err}");
    let err = refused(
        "replay",
        &with(
            base.clone(),
            "script",
            json!([{"roll": 2}, {"move": "T5>T8"}]),
        )
        .to_string(),
    );
    assert!(err.contains("step 1") && err.contains("T5>T8"), "{err}");
    let script =
        json!([{"roll": 3}, {"move": "T5>T8"}, {"roll": 5}, {"move": "T18>H4"}, {"roll": 1}]);
    let err = refused("replay", &with(base, "script", script).to_string());
    assert!(err.contains("step 4") && err.contains("over"), "{err}");
}

#[test]
fn replay_names_the_index_of_a_step_that_is_not_one() {
    let classic = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["B", "B", "B", "B"]}});
    // docs/matfyz.md's example position.
    let matfyz = json!({"rules": "matfyz", "seats": ["red", "blue", "green"], "turn": "red",
        "bases": {"red": ["red", "green"], "blue": ["red", "blue", "green"],
            "green": ["red", "blue", "green", "yellow"]},
        "homes": {"red": [null, null, null, null], "blue": [null, null, null, null],
            "green": [null, null, null, null]},
        "track": {"T7": "blue", "T10": "yellow", "T30": "yellow"}});
    for (rules, position) in [("classic", classic), ("matfyz", matfyz)] {
        let script = json!([{"roll": 1}, {"bogus": 1}]);
        let doc = with(position.clone(), "script", script).to_string();
        let err = refused("replay", &doc);
        assert!(
            err.contains("step 1") && err.contains("bogus"),
            "{rules}: {err}"
        );
        assert!(err.contains(r#"a step is {"roll": n} or {"move": "FROM>TO"}"#));
        // A script laid out over lines is quoted on the error's one line.
        let spread = doc.replace(r#"{"bogus":1}"#, "{\n  \"bogus\": 1\n}");
        assert_ne!(spread, doc);
        let err = refused("replay", &spread);
        assert!(err.contains(r#"not { "bogus": 1 }"#), "{rules}: {err}");
        // Written as text: a JSON value would keep one of the two rolls.
        let twice = doc.replace(r#"{"bogus":1}"#, r#"{"roll":1,"roll":2}"#);
        assert_ne!(twice, doc);
        let err = refused("replay", &twice);
        assert!(err.contains("step 1"), "{rules}: {err}");
        // The first bad step is named, out of turn before a later
        // malformed one.
        let script = json!([{"move": "T0>T1"}, {"bogus": 1}]);
        let err = refused("replay", &with(position, "script", script).to_string());
        assert!(err.contains("step 0"), "{rules}: {err}");
    }
}

#[test]
fn bad_input_is_one_line_on_stderr_and_status_2() {
    let pos = spec_position();
    let cases = [
        "not json".to_owned(),
        "{}".to_owned(),
        with(pos.clone(), "roll", json!(7)).to_string(),
        with(pos.clone(), "roll", json!(0)).to_string(),
        with(pos.clone(), "roll", json!(-1)).to_string(),
        with(pos.clone(), "roll", json!("six")).to_string(),
        pos.to_string(), // no roll
        with(with(pos.clone(), "rules", json!("chess")), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "house", json!(["no-jumping"])), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "turn", json!("purple")), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "turn", json!("blue")), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "seats", json!(["red", "blue"])), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["B", "B", "B", "B", "B"], "green": ["B", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["T3", "T3", "B", "B"], "green": ["B", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["T3", "B", "B", "B"], "green": ["T3", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["T40", "B", "B", "B"], "green": ["B", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["B", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["B", "B", "B", "B"], "green": ["B", "B", "B", "B"], "blue": ["B", "B", "B", "B"]})), "roll", json!(1)).to_string(),
        with(with(pos.clone(), "pieces", json!({"red": ["B", "B", "B", "B"], "green": ["H1", "H2", "H3", "H4"]})), "roll", json!(1)).to_string(),
        with(with(pos, "extra", json!(1)), "roll", json!(1)).to_string(),
    ];
    for input in &cases {
        refused("moves", input);
    }
    refused(
        "replay",
        &with(spec_position(), "script", json!([{"jump": 3}])).to_string(),
    );
    refused(
        "replay",
        &with(spec_position(), "script", json!([{"move": "T0-T6"}])).to_string(),
    );
}

#[test]
fn a_finished_game_has_no_moves() {
    let doc = json!({"rules": "classic", "seats": ["red", "green"], "turn": "green",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["H1", "H2", "H3", "H4"]}, "roll": 3});
    assert_eq!(answer("moves", &doc), json!({"moves": []}));
}

#[test]
fn a_closed_standard_output_is_an_error_not_a_panic() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
        .arg("moves")
        .stdin(std::process::Stdio::piped())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let doc = with(spec_position(), "roll", json!(6)).to_string();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), doc.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// An error from the system is told once, on one line, with what it was
/// about: here a data folder that is a file.
#[test]
fn a_system_error_is_told_once() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
        .args(["host", "--data"])
        .arg(file.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("identity.key"), "{stderr}");
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
}

/// A ticket that is damaged is told so, not taken for a mistyped code.
#[test]
fn a_damaged_ticket_is_told_why() {
    let data = tempfile::tempdir().unwrap();
    for (link, why) in [
        ("CLOVECE:garbage", "the ticket is damaged"),
        ("garbage", "neither a ticket nor a room code"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
            .args(["join", link, "--data"])
            .arg(data.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why), "{link}: {stderr}");
    }
}

/// No games is no measure: refused, rather than a rate of 0 % in 0–100 %
/// or "NaN rolls/game".
#[test]
fn zero_games_or_seconds_are_refused() {
    for args in [
        &["bench", "--games", "0"][..],
        &["bench", "--seconds", "0"],
        &["tournament", "--players", "hard,random", "--games", "0"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("'0'"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// What the commands of a player's data folder say of an empty one: no
/// games recorded (said aside, the report itself empty); and an answer to
/// an invitation is asked for by both its flags. (Resuming no game:
/// `tests/net_faults.rs`.)
#[test]
fn an_empty_data_folder_is_told_plainly() {
    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
            .args(args)
            .arg("--data")
            .arg(data.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        (out.status.code(), out.stdout, stderr)
    };
    let (status, stdout, stderr) = run(&["stats"]);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.starts_with("no games recorded in "), "{stderr}");

    let (status, _, stderr) = run(&["invitations"]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("<--accept|--decline>"), "{stderr}");
}
