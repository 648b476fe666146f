//! The letter of `../shared/spec/notation.md` for `clovece moves` and
//! `clovece replay`, checked on the real binary as an outside conformance
//! check would: the exact shape and field names of the answers, seats
//! clockwise on output, and every kind of bad input the spec lists refused
//! with one line on stderr and exit status 2 (tests/cli.rs has the worked
//! examples).

mod common;

use common::{answer, refused, run, with};
use serde_json::{Value, json};

/// A 4-player position written with seats, pieces and house rules out of
/// order.
fn scrambled() -> Value {
    json!({
        "rules": "classic",
        "house": ["no-jump-home", "compulsory-capture"],
        "seats": ["yellow", "green", "blue", "red"],
        "turn": "blue",
        "pieces": {
            "yellow": ["H4", "B", "T31", "H1"],
            "green": ["B", "B", "B", "B"],
            "blue": ["B", "T3", "B", "B"],
            "red": ["T9", "B", "B", "B"]
        }
    })
}

/// The keys of a JSON object, in order.
fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn moves_prints_one_object_with_only_a_moves_list() {
    let out = run("moves", &with(scrambled(), "roll", json!(4)).to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty());
    assert_eq!(out.stdout.lines().count(), 1, "{:?}", out.stdout);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(answer, json!({"moves": ["T3>T7"]}));
}

/// A byte order mark, which JSON readers may pass by (RFC 8259, 8.1), is
/// not taken for input that is not an object.
#[test]
fn input_behind_a_byte_order_mark_is_read() {
    let bot = with(with(scrambled(), "roll", json!(4)), "level", json!("hard"));
    for (command, input) in [
        ("moves", with(scrambled(), "roll", json!(4))),
        ("replay", with(scrambled(), "script", json!([]))),
        ("bot", with(bot, "seed", json!(7))),
    ] {
        let plain = run(command, &input.to_string());
        let marked = run(command, &format!("\u{feff}{input}"));
        assert_eq!(marked.code, 0, "{command}: {}", marked.stderr);
        assert_eq!(marked.stdout, plain.stdout, "{command}");
    }
}

#[test]
fn replay_prints_exactly_position_and_next() {
    let out = answer("replay", &with(scrambled(), "script", json!([])));
    assert_eq!(keys(&out), ["position", "next"]);
    let mut position_keys = keys(&out["position"]);
    position_keys.sort_unstable();
    assert_eq!(
        position_keys,
        ["house", "pieces", "rules", "seats", "turn"],
        "a position in the notation, nothing else"
    );
    assert_eq!(out["position"]["rules"], json!("classic"));
}

#[test]
fn seats_and_pieces_are_listed_clockwise_on_output() {
    let out = answer("replay", &with(scrambled(), "script", json!([])));
    let position = &out["position"];
    let clockwise = ["red", "blue", "green", "yellow"];
    assert_eq!(position["seats"], json!(clockwise));
    assert_eq!(keys(&position["pieces"]), clockwise);
    assert_eq!(
        position["house"],
        json!(["compulsory-capture", "no-jump-home"])
    );
    let sets = [
        (json!(["green", "red"]), json!(["red", "green"])),
        (
            json!(["green", "blue", "red"]),
            json!(["red", "blue", "green"]),
        ),
    ];
    for (seats, expected) in sets {
        let mut pieces = serde_json::Map::new();
        for colour in seats.as_array().unwrap() {
            pieces.insert(
                colour.as_str().unwrap().to_owned(),
                json!(["B", "B", "B", "B"]),
            );
        }
        let doc = json!({"rules": "classic", "seats": seats, "turn": "green",
            "pieces": pieces, "script": []});
        let position = answer("replay", &doc)["position"].clone();
        assert_eq!(position["seats"], expected, "{doc}");
        assert_eq!(json!(keys(&position["pieces"])), expected, "{doc}");
    }
}

#[test]
fn next_has_try_only_with_roll() {
    let base = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["T5", "B", "B", "B"], "green": ["H1", "H2", "H3", "T18"]}});
    let roll_due = answer("replay", &with(base.clone(), "script", json!([])));
    assert_eq!(
        roll_due["next"],
        json!({"seat": "red", "action": "roll", "try": 1})
    );
    let move_due = answer(
        "replay",
        &with(base.clone(), "script", json!([{"roll": 2}])),
    );
    assert_eq!(move_due["next"], json!({"seat": "red", "action": "move"}));
    assert_eq!(keys(&move_due["next"]), ["seat", "action"]);
}

#[test]
fn the_extra_roll_after_a_six_is_try_1() {
    let doc = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["B", "B", "B", "B"]},
        "script": [{"roll": 3}, {"roll": 6}, {"move": "B>T0"}]});
    assert_eq!(
        answer("replay", &doc)["next"],
        json!({"seat": "red", "action": "roll", "try": 1})
    );
}

#[test]
fn the_winner_is_the_only_key_of_next_and_the_colour_in_turn() {
    let doc = json!({"rules": "classic", "seats": ["red", "blue", "green"], "turn": "blue",
        "pieces": {"red": ["T9", "B", "B", "B"], "blue": ["H1", "H2", "H4", "T8"],
            "green": ["T5", "B", "B", "B"]},
        "script": [{"roll": 4}, {"move": "T8>H3"}]});
    let out = answer("replay", &doc);
    assert_eq!(out["next"], json!({"winner": "blue"}));
    assert_eq!(out["position"]["turn"], json!("blue"));
    // A position that has already ended reads back the same way.
    let again = answer(
        "replay",
        &with(out["position"].clone(), "script", json!([])),
    );
    assert_eq!(again, out);
}

fn position() -> Value {
    json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "T0", "T17", "H2"], "green": ["B", "B", "B", "T24"]}})
}

fn with_pieces(red: Value, green: Value) -> Value {
    with(position(), "pieces", json!({"red": red, "green": green}))
}

/// Every kind of impossible or malformed position the spec lists, for
/// both commands.
#[test]
fn bad_positions_are_refused_by_both_commands() {
    let four_base = json!(["B", "B", "B", "B"]);
    let cases: Vec<(&str, Value)> = vec![
        (
            "five pieces of a colour",
            with_pieces(json!(["B", "B", "B", "B", "B"]), four_base.clone()),
        ),
        (
            "three pieces of a colour",
            with_pieces(json!(["B", "B", "B"]), four_base.clone()),
        ),
        (
            "two own pieces on a track square",
            with_pieces(json!(["T7", "T7", "B", "B"]), four_base.clone()),
        ),
        (
            "two own pieces on a home square",
            with_pieces(json!(["H3", "H3", "B", "B"]), four_base.clone()),
        ),
        (
            "two colours on one track square",
            with_pieces(json!(["T20", "B", "B", "B"]), json!(["T20", "B", "B", "B"])),
        ),
        (
            "unknown colour in turn",
            with(position(), "turn", json!("purple")),
        ),
        (
            "unknown colour in seats",
            with(position(), "seats", json!(["red", "purple"])),
        ),
        (
            "unknown colour among the pieces",
            with(
                position(),
                "pieces",
                json!({"red": four_base, "green": four_base, "purple": four_base}),
            ),
        ),
        (
            "colour spelled in capitals",
            with(position(), "turn", json!("Red")),
        ),
        (
            "unknown house rule",
            with(
                position(),
                "house",
                json!(["compulsory-capture", "capture"]),
            ),
        ),
        (
            "a house rule twice",
            with(position(), "house", json!(["no-jump-home", "no-jump-home"])),
        ),
        (
            "seats: a colour twice",
            with(position(), "seats", json!(["red", "red", "green"])),
        ),
        (
            "unknown square",
            with_pieces(json!(["T40", "B", "B", "B"]), four_base.clone()),
        ),
        (
            "home square 0",
            with_pieces(json!(["H0", "B", "B", "B"]), four_base.clone()),
        ),
        (
            "home square 5",
            with_pieces(json!(["H5", "B", "B", "B"]), four_base.clone()),
        ),
        (
            "a finished colour not in turn",
            with_pieces(json!(["B", "B", "B", "B"]), json!(["H1", "H2", "H3", "H4"])),
        ),
        ("no rules", {
            let mut doc = position();
            doc.as_object_mut().unwrap().remove("rules");
            doc
        }),
    ];
    for (what, doc) in cases {
        eprintln!("case: {what}");
        refused("moves", &with(doc.clone(), "roll", json!(1)).to_string());
        refused("replay", &with(doc, "script", json!([])).to_string());
    }
}

/// Seats no game has, each with a piece list for exactly those seats, so
/// that the seats alone are what is refused.
#[test]
fn seats_no_game_has_are_refused_by_both_commands() {
    for seats in [
        &["red"][..],
        &[],
        &["red", "blue"],
        &["red", "green", "yellow"],
    ] {
        let pieces: serde_json::Map<String, Value> = seats
            .iter()
            .map(|&c| (c.to_owned(), json!(["B", "B", "B", "B"])))
            .collect();
        let doc = with(
            with(position(), "seats", json!(seats)),
            "pieces",
            json!(pieces),
        );
        for (command, key, value) in [("moves", "roll", json!(1)), ("replay", "script", json!([]))]
        {
            let error = refused(command, &with(doc.clone(), key, value).to_string());
            assert!(error.contains("seats must be"), "{seats:?}: {error}");
        }
    }
}

/// A key only another command reads is let pass, so that one document
/// serves every command, but it must be of its kind: a `script` given to
/// `moves` or `bot` is still a list of steps.
#[test]
fn a_script_passed_by_is_still_a_list_of_steps() {
    let doc = with(
        with(with(position(), "roll", json!(1)), "level", json!("easy")),
        "seed",
        json!(1),
    );
    for command in ["moves", "bot"] {
        let good = json!([{"roll": 9}, {"move": "X>Y"}]);
        assert_eq!(
            common::run(command, &with(doc.clone(), "script", good).to_string()).code,
            0
        );
        for bad in [
            json!(5),
            json!([5]),
            json!([{"roll": 1}, "x"]),
            json!([{"jump": 1}]),
        ] {
            let error = refused(
                command,
                &with(doc.clone(), "script", bad.clone()).to_string(),
            );
            assert!(
                error.contains("step") || error.contains("expected a sequence"),
                "{bad}: {error}"
            );
        }
    }
}

#[test]
fn an_error_says_whether_the_json_or_what_it_says_is_wrong() {
    let valid = with(position(), "roll", json!(1));
    let text = valid.to_string();
    let syntax = refused("moves", &text[..text.len() - 1]);
    assert!(syntax.contains("malformed JSON"), "{syntax}");
    let unknown = refused("moves", &with(valid.clone(), "foo", json!(1)).to_string());
    assert!(unknown.contains("wrong field or value"), "{unknown}");
    assert!(unknown.contains("foo"), "{unknown}");
    let kind = refused(
        "moves",
        &with(valid, "house", json!("no-jump-home")).to_string(),
    );
    assert!(kind.contains("wrong field or value"), "{kind}");
}

#[test]
fn malformed_json_is_refused_by_both_commands() {
    let valid = with(with(position(), "roll", json!(1)), "script", json!([]));
    let text = valid.to_string();
    let cases = [
        String::new(),
        "{".to_owned(),
        "[]".to_owned(),
        "null".to_owned(),
        text[..text.len() - 1].to_owned(),
        format!("{text} {{}}"),
        text.replace("\"pieces\"", "pieces"),
    ];
    for input in &cases {
        refused("moves", input);
        refused("replay", input);
    }
    // In the notation's words, not the parser's.
    for input in [
        "[]",
        "null",
        "7",
        r#"["classic"]"#,
        r#" ["classic", null, ["red", "green"]]"#,
    ] {
        assert_eq!(
            refused("moves", input),
            "clovece: a position is a JSON object, {\"rules\": …, …}\n"
        );
    }
}

#[test]
fn input_that_is_not_utf8_is_refused() {
    for command in ["moves", "replay"] {
        let out = common::run_bytes(command, b"\xff\xfe{}");
        assert_eq!(out.code, 2);
        assert!(out.stdout.is_empty());
        assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    }
}

#[test]
fn rolls_outside_1_to_6_are_refused() {
    let after_a_six = |roll: Value| {
        let script = json!([{"roll": 6}, {"move": "T0>T6"}, {"roll": roll}]);
        with(position(), "script", script).to_string()
    };
    for roll in [json!(0), json!(7), json!(-6)] {
        refused("moves", &with(position(), "roll", roll.clone()).to_string());
        let err = refused("replay", &after_a_six(roll));
        assert!(err.contains("step 2"), "{err}");
    }
    for roll in [json!(6.0), json!("6"), json!(null)] {
        refused("moves", &with(position(), "roll", roll.clone()).to_string());
        refused("replay", &after_a_six(roll));
    }
}

/// Each kind of step the flow does not allow is refused naming the first
/// such step's 0-based index.
#[test]
fn a_step_out_of_turn_names_its_index() {
    let cases = [
        // A move when a roll is due (the next colour's).
        (
            json!([{"roll": 2}, {"move": "T0>T2"}, {"move": "T2>T4"}]),
            2,
        ),
        // A roll when a move is due.
        (json!([{"roll": 2}, {"roll": 2}]), 1),
        // A move the roll does not allow.
        (json!([{"roll": 2}, {"move": "T17>T20"}]), 1),
        // A move the obligations do not allow (the start square first).
        (json!([{"roll": 2}, {"move": "T17>T19"}]), 1),
        // A move of a piece that is not there.
        (json!([{"roll": 2}, {"move": "T1>T3"}]), 1),
        // Only the first bad step is named.
        (json!([{"move": "T0>T2"}, {"move": "T0>T2"}]), 0),
    ];
    for (script, index) in cases {
        let input = with(position(), "script", script).to_string();
        let err = refused("replay", &input);
        assert!(err.contains(&format!("step {index}")), "{input}: {err}");
    }
}

#[test]
fn any_step_after_the_game_ended_is_refused_naming_its_index() {
    let near_end = json!({"rules": "classic", "seats": ["red", "green"], "turn": "green",
        "pieces": {"red": ["T5", "B", "B", "B"], "green": ["H1", "H2", "H4", "T18"]}});
    let win = json!([{"roll": 4}, {"move": "T18>H3"}]);
    for after in [
        json!({"roll": 1}),
        json!({"roll": 6}),
        json!({"move": "H3>H4"}),
        json!({"move": "T5>T6"}),
    ] {
        let mut script = win.as_array().unwrap().clone();
        script.push(after.clone());
        let err = refused(
            "replay",
            &with(near_end.clone(), "script", json!(script)).to_string(),
        );
        assert!(err.contains("step 2"), "{after}: {err}");
        let won = json!({"rules": "classic", "seats": ["red", "green"], "turn": "green",
            "pieces": {"red": ["T5", "B", "B", "B"], "green": ["H1", "H2", "H3", "H4"]},
            "script": [after]});
        let err = refused("replay", &won.to_string());
        assert!(err.contains("step 0"), "{won}: {err}");
    }
}

/// serde's messages for an unknown field or step name quote the name
/// as written, so a name with an escaped newline (or any other of
/// Unicode's line breaks) splits the error over two lines of stderr.
#[test]
fn errors_stay_on_one_line_whatever_the_input() {
    refused(
        "moves",
        &with(with(position(), "roll", json!(1)), "bad\nkey", json!(1)).to_string(),
    );
    refused(
        "replay",
        &with(position(), "script", json!([{"bad\nstep": 1}])).to_string(),
    );
    for line_break in ["\r", "\u{2028}", "\u{2029}", "\u{85}"] {
        let key = format!("bad{line_break}key");
        refused(
            "moves",
            &with(with(position(), "roll", json!(1)), &key, json!(1)).to_string(),
        );
    }
}

/// A word the input made long is quoted in part: the error stays a short
/// line, whatever the input's size.
#[test]
fn errors_quote_a_long_word_in_part() {
    let long = "x".repeat(100_000);
    let colours = vec![json!("red"); 10_000];
    let cases = [
        with(position(), "rules", json!(long)),
        with(position(), "turn", json!(long)),
        with(position(), "house", json!([long])),
        with_pieces(json!([long, "B", "B", "B"]), json!(["B", "B", "B", "B"])),
        with(position(), "seats", json!(colours)),
    ];
    for doc in cases {
        let err = refused("moves", &with(doc, "roll", json!(1)).to_string());
        assert!(err.len() < 300, "{} bytes: {}…", err.len(), &err[..100]);
    }
    let err = refused(
        "replay",
        &with(position(), "script", json!([{"move": long}])).to_string(),
    );
    assert!(err.len() < 300, "{} bytes", err.len());
}

/// A colour (or any key) given twice states two different things; JSON
/// parsers differ on which one counts, and the notation silently takes the
/// last one. Red given twice is eight red pieces, which the spec calls an
/// impossible position ("five pieces of a colour").
#[test]
fn a_key_given_twice_is_refused() {
    let doc = r#"{"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "B", "B"], "green": ["B", "B", "B", "B"],
                   "red": ["T1", "B", "B", "B"]}, "roll": 1}"#;
    refused("moves", doc);
    let doc = r#"{"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["T1", "B", "B", "B"], "green": ["B", "B", "B", "B"]},
        "roll": 6, "roll": 1}"#;
    refused("moves", doc);
    let doc = r#"{"rules": "classic", "rules": "classic"}"#;
    let said = refused("moves", doc);
    assert!(said.contains("duplicate field `rules`"), "{said}");
}
