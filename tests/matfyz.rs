//! The Matfyz rules (docs/matfyz.md), one test per rule, stated in the
//! notation; then the command line and property tests over random games.

mod common;

use clovece::notation;
use clovece::rules::matfyz::{self, Position};
use clovece::rules::opening::{FirstPlayer, Opening, OpeningNext};
use clovece::rules::{Colour, Die, Game, Next, Rolled, RuleSet, Seats};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde_json::{Value, json};

const EMPTY: Value = Value::Null;

/// A position with red to act. `homes` lists only the seats whose home is
/// not empty; every other seat's home is empty.
fn position(seats: &[&str], bases: Value, homes: Value, track: Value) -> Value {
    let mut all_homes = serde_json::Map::new();
    for seat in seats {
        let home = homes
            .get(*seat)
            .cloned()
            .unwrap_or(json!([EMPTY, EMPTY, EMPTY, EMPTY]));
        all_homes.insert((*seat).into(), home);
    }
    json!({
        "rules": "matfyz",
        "seats": seats,
        "turn": "red",
        "bases": bases,
        "homes": all_homes,
        "track": track,
    })
}

/// A red+green position.
fn two(bases: Value, homes: Value, track: Value) -> Value {
    position(&["red", "green"], bases, homes, track)
}

fn with(mut doc: Value, key: &str, value: Value) -> Value {
    doc[key] = value;
    doc
}

/// The legal runs for `rolls` (the whole turn).
fn moves(doc: &Value, rolls: &[u8]) -> Vec<String> {
    let doc = with(doc.clone(), "rolls", json!(rolls));
    let out = notation::moves(&doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let out: Value = serde_json::from_str(&out).unwrap();
    serde_json::from_value(out["moves"].clone()).unwrap()
}

/// The `replay` answer for `script` from `doc`.
fn replay(doc: &Value, script: Value) -> Value {
    let doc = with(doc.clone(), "script", script);
    let out = notation::replay(&doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&out).unwrap()
}

fn rolls_then(rolls: &[u8], runs: &[&str]) -> Value {
    let rolls = rolls.iter().map(|r| json!({ "roll": r }));
    let runs = runs.iter().map(|m| json!({ "move": m }));
    Value::Array(rolls.chain(runs).collect())
}

fn die(n: u8) -> Die {
    Die::new(n).unwrap()
}

// --- The opening ---------------------------------------------------------

#[test]
fn every_base_starts_with_one_piece_of_each_colour() {
    for players in 2..=4 {
        let seats = Seats::for_players(players).unwrap();
        let Game::Matfyz(game) = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap() else {
            panic!("not a Matfyz game");
        };
        for seat in seats.iter() {
            assert!(game.position().base(seat).eq(Colour::ALL), "{seat}");
            assert_eq!(game.position().home(seat), [None; 4]);
        }
    }
}

#[test]
fn the_highest_single_roll_plays_first() {
    let mut opening = Opening::new(FirstPlayer::HighestRoll, Seats::for_players(2).unwrap());
    opening.roll(die(3)).unwrap();
    assert_eq!(
        opening.roll(die(5)),
        Ok(OpeningNext::Decided(Colour::Green))
    );
}

// --- Rolling ---------------------------------------------------------------

#[test]
fn sixes_are_rolled_again_before_any_move() {
    let seats = Seats::for_players(2).unwrap();
    let mut game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
    assert_eq!(game.roll(Die::SIX), Ok(Rolled::Again));
    assert_eq!(game.roll(Die::SIX), Ok(Rolled::Again));
    let red_rolls = Next::Roll {
        seat: Colour::Red,
        attempt: 1,
    };
    assert_eq!(game.next(), red_rolls);
    assert_eq!(game.roll(die(2)), Ok(Rolled::Move));
    assert_eq!(game.next(), Next::Move { seat: Colour::Red });
}

#[test]
fn a_trailing_six_in_a_position_means_another_roll_is_due() {
    let start = two(
        json!({"red": ["red", "blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({}),
    );
    let after = replay(&with(start, "rolls", json!([6])), json!([{ "roll": 6 }]));
    assert_eq!(
        after["next"],
        json!({"seat": "red", "action": "roll", "try": 1})
    );
    assert_eq!(after["position"]["rolls"], json!([6, 6]));
}

#[test]
fn rolls_are_used_sixes_first_and_the_last_number_at_the_end() {
    let doc = two(
        json!({"red": ["red", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T5": "blue"}),
    );
    // No T5>T7: the 2 comes after the 6. No T5>T11 alone: then nothing
    // else could use the 2 (see the compulsion test).
    assert_eq!(
        moves(&doc, &[6, 2]),
        [
            "B:green>T0",
            "B:green>T0>T2",
            "B:red>T0",
            "B:red>T0>T2",
            "B:yellow>T0",
            "B:yellow>T0>T2",
            "T5>T11>T13"
        ]
    );
}

#[test]
fn a_roll_no_piece_can_use_is_forfeited_and_the_turn_passes() {
    let seats = Seats::for_players(2).unwrap();
    let mut game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
    assert_eq!(game.roll(die(4)), Ok(Rolled::TurnLost));
    let green_rolls = Next::Roll {
        seat: Colour::Green,
        attempt: 1,
    };
    assert_eq!(game.next(), green_rolls);
}

/// Red may move only the red piece on T38 (its home holds the other
/// colours, its base is empty); nothing can use a six.
fn red_one_step_from_winning(square: &str) -> Value {
    two(
        json!({"red": [], "green": ["red", "blue", "green", "yellow"]}),
        json!({"red": [EMPTY, "blue", "green", "yellow"]}),
        json!({ square: "red" }),
    )
}

#[test]
fn extra_sixes_no_piece_can_use_are_forfeited() {
    let doc = red_one_step_from_winning("T38");
    assert_eq!(moves(&doc, &[6, 6, 2]), ["T38>H1"]);
    let after = replay(&doc, rolls_then(&[6, 6, 2], &[]));
    assert_eq!(after["position"]["rolls"], json!([2]));
}

#[test]
fn a_run_goes_on_past_sixes_nobody_can_use() {
    let doc = red_one_step_from_winning("T32");
    assert_eq!(moves(&doc, &[6, 6, 2]), ["T32>T38>H1"]);
}

// --- Bringing out ------------------------------------------------------------

#[test]
fn bring_out_is_optional() {
    let doc = two(
        json!({"red": ["red", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T5": "blue"}),
    );
    assert_eq!(
        moves(&doc, &[6]),
        ["B:green>T0", "B:red>T0", "B:yellow>T0", "T5>T11"]
    );
}

#[test]
fn a_six_brings_out_a_piece_of_any_colour_from_the_base() {
    let doc = two(
        json!({"red": ["blue", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({"red": ["green", EMPTY, EMPTY, "red"]}),
        json!({}),
    );
    assert_eq!(moves(&doc, &[6]), ["B:blue>T0", "B:yellow>T0"]);
    assert_eq!(moves(&doc, &[5]), Vec::<String>::new());
}

#[test]
fn the_double_bring_out_captures_the_first_piece() {
    // "Nasadí první figurku, potom druhou, čímž vyhodí tu první."
    let doc = two(
        json!({"red": ["red", "blue", "green"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T15": "yellow"}),
    );
    let after = replay(
        &doc,
        rolls_then(&[6, 6, 1], &["B:red>T0", "B:blue>T0*red", "T15>T16"]),
    );
    let position = &after["position"];
    assert_eq!(position["bases"]["red"], json!(["red", "green"]));
    assert_eq!(position["track"], json!({"T0": "blue", "T16": "yellow"}));
    assert_eq!(
        after["next"],
        json!({"seat": "green", "action": "roll", "try": 1})
    );
}

// --- Moving --------------------------------------------------------------------

#[test]
fn a_seat_moves_only_track_pieces_of_colours_it_holds_neither_in_base_nor_home() {
    // Red holds blue and green (base) and yellow (home): of T5 blue, T6
    // yellow and T7 red it may move only T7; its home piece may move too.
    let doc = two(
        json!({"red": ["blue", "green"], "green": ["red", "green"]}),
        json!({"red": ["yellow", EMPTY, EMPTY, EMPTY]}),
        json!({"T5": "blue", "T6": "yellow", "T7": "red"}),
    );
    assert_eq!(moves(&doc, &[3]), ["H1>H4", "T7>T10"]);
}

/// Green on T36 and red on T38 (any colour red does not hold) with red to
/// move, red's home empty.
fn near_reds_home() -> Value {
    two(
        json!({"red": ["blue", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T36": "green", "T38": "red"}),
    )
}

#[test]
fn a_piece_moved_past_your_home_entrance_drives_into_your_home() {
    assert_eq!(moves(&near_reds_home(), &[4]), ["T36>H1", "T38>H3"]);
}

#[test]
fn entering_the_home_needs_an_exact_count() {
    // T38 would go one square past H4.
    assert_eq!(
        moves(&near_reds_home(), &[6]),
        ["B:blue>T0", "B:yellow>T0", "T36>H3"]
    );
}

#[test]
fn other_seats_home_entrances_are_passed_by() {
    // Green's entrance is T19: red moves green's piece past it.
    let doc = two(
        json!({"red": ["red", "blue", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T18": "green"}),
    );
    assert_eq!(moves(&doc, &[3]), ["T18>T21"]);
}

/// Red's home holds yellow on H1 and blue on `second`.
fn red_home(second: &str) -> Value {
    let mut home = json!(["yellow", EMPTY, EMPTY, EMPTY]);
    home[second[1..].parse::<usize>().unwrap() - 1] = json!("blue");
    two(
        json!({"red": ["red", "green"], "green": ["red", "blue", "green", "yellow"]}),
        json!({ "red": home }),
        json!({}),
    )
}

#[test]
fn home_pieces_move_forward_and_jump_over_each_other() {
    let doc = red_home("H2");
    assert_eq!(moves(&doc, &[2]), ["H1>H3", "H2>H4"]);
    assert_eq!(moves(&doc, &[3]), ["H1>H4"]);
}

#[test]
fn a_piece_may_not_land_on_an_occupied_home_square() {
    let doc = red_home("H3");
    assert_eq!(moves(&doc, &[2]), Vec::<String>::new());
    assert_eq!(moves(&doc, &[1]), ["H1>H2", "H3>H4"]);
}

// --- Runs and captures -------------------------------------------------------------

#[test]
fn a_run_captures_only_where_it_ends() {
    // Red may move only the blue piece (and bring out); it stops on T8
    // (green) on its way to T11 (yellow), which it captures.
    let doc = two(
        json!({"red": ["red", "green", "yellow"], "green": ["red", "blue"]}),
        json!({}),
        json!({"T2": "blue", "T8": "green", "T11": "yellow"}),
    );
    assert!(moves(&doc, &[6, 3]).contains(&"T2>T8>T11*green".to_owned()));
    let after = replay(&doc, rolls_then(&[6, 3], &["T2>T8>T11*green"]));
    let position = &after["position"];
    assert_eq!(position["track"], json!({"T8": "green", "T11": "blue"}));
    assert_eq!(position["bases"]["green"], json!(["red", "blue", "yellow"]));
}

#[test]
fn a_run_may_not_stop_while_only_its_piece_could_use_the_next_roll() {
    // Red's only track piece must use the 3 after the 6: T2>T8 alone would
    // forfeit a roll it can use.
    let doc = two(
        json!({"red": ["red", "green", "yellow"], "green": ["red", "blue"]}),
        json!({}),
        json!({"T2": "blue", "T8": "green", "T11": "yellow"}),
    );
    let runs = moves(&doc, &[6, 3]);
    assert!(!runs.iter().any(|r| r.starts_with("T2>T8*")), "{runs:?}");
    // A bring-out may stop, as the blue piece then uses the 3.
    assert!(runs.contains(&"B:red>T0".to_owned()));
}

#[test]
fn a_piece_whose_run_has_ended_may_not_move_again_this_turn() {
    let doc = two(
        json!({"red": ["green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({"T0": "red", "T2": "blue"}),
    );
    assert_eq!(moves(&doc, &[3]), ["T0>T3", "T2>T5"]);
    assert_eq!(moves(&with(doc, "done", json!(["T0"])), &[3]), ["T2>T5"]);
}

#[test]
fn the_mover_chooses_who_receives_the_captured_piece_even_itself() {
    // Three players. A yellow piece on T10 is captured by the blue piece
    // from T7; red and blue hold no yellow, green does.
    let doc = position(
        &["red", "blue", "green"],
        json!({
            "red": ["red", "green"],
            "blue": ["red", "blue", "green"],
            "green": ["red", "blue", "green", "yellow"],
        }),
        json!({}),
        json!({"T7": "blue", "T10": "yellow", "T30": "yellow"}),
    );
    assert_eq!(
        moves(&doc, &[3]),
        ["T10>T13", "T30>T33", "T7>T10*blue", "T7>T10*red"]
    );
    let after = replay(&doc, rolls_then(&[3], &["T7>T10*red"]));
    assert_eq!(
        after["position"]["bases"]["red"],
        json!(["red", "green", "yellow"])
    );
}

#[test]
fn a_piece_only_the_mover_can_play_is_given_to_the_mover() {
    // "Pozor na vyhození figurky, kterou může hrát jen hráč na tahu - musel
    // by ji darovat sám sobě": the yellow piece red moves from T7 captures
    // the blue one on T10; green holds blue, so red alone can receive it.
    let doc = two(
        json!({"red": ["red", "green"], "green": ["red", "green", "blue", "yellow"]}),
        json!({}),
        json!({"T7": "yellow", "T10": "blue"}),
    );
    assert_eq!(moves(&doc, &[3]), ["T10>T13", "T7>T10*red"]);
    let after = replay(&doc, rolls_then(&[3], &["T7>T10*red"]));
    assert_eq!(
        after["position"]["bases"]["red"],
        json!(["red", "blue", "green"])
    );
}

#[test]
fn a_recipient_is_offered_only_if_the_next_roll_can_still_be_used() {
    // T2>T8 captures blue. Given to red, it would make red hold blue, so
    // the blue piece on T20 could not use the 2, which T2's piece could.
    let doc = two(
        json!({"red": ["green", "yellow"], "green": ["red", "green", "yellow"]}),
        json!({}),
        json!({"T2": "red", "T8": "blue", "T20": "blue"}),
    );
    let runs = moves(&doc, &[6, 2]);
    assert!(runs.contains(&"T2>T8*green".to_owned()), "{runs:?}");
    assert!(!runs.contains(&"T2>T8*red".to_owned()), "{runs:?}");
    assert!(runs.contains(&"T2>T8>T10".to_owned()), "{runs:?}");
}

#[test]
fn a_run_must_stop_where_a_gift_to_oneself_lets_the_next_six_be_used() {
    // Red drives yellow T33>T39, where another yellow stands, with a six
    // left that the driven piece cannot use. Capturing there and giving
    // the yellow to red's own empty base lets that six bring it out, so
    // the six must be used: the run may neither go on past it (and win
    // with the 1) nor give the yellow to green, which would waste it.
    let doc = two(
        json!({"red": [], "green": ["red", "green"]}),
        json!({"red": [EMPTY, "green", "blue", "red"], "green": ["blue", EMPTY, EMPTY, EMPTY]}),
        json!({"T33": "yellow", "T39": "yellow"}),
    );
    assert_eq!(moves(&doc, &[6, 6, 1]), ["T33>T39*red"]);
    // With no six left to use, the 1 drives it home.
    assert_eq!(moves(&doc, &[6, 1]), ["T33>T39>H1"]);
}

#[test]
fn a_six_that_only_a_bring_out_can_use_must_bring_out() {
    let doc = two(
        json!({"red": ["red", "blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({}),
    );
    let runs = moves(&doc, &[6, 2]);
    assert!(!runs.is_empty());
    assert!(runs.iter().all(|r| r.starts_with("B:")), "{runs:?}");
}

// --- The end ---------------------------------------------------------------------------

#[test]
fn the_first_seat_with_one_piece_of_each_colour_home_wins_at_once() {
    // T34 reaches H1 with the 6 and fills red's home; the 3 is not used.
    let doc = two(
        json!({"red": [], "green": ["blue", "green", "yellow"]}),
        json!({"red": [EMPTY, "blue", "green", "yellow"]}),
        json!({"T10": "red", "T34": "red"}),
    );
    assert_eq!(moves(&doc, &[6, 3]), ["T10>T16", "T10>T16>T19", "T34>H1"]);
    let after = replay(&doc, rolls_then(&[6, 3], &["T34>H1"]));
    assert_eq!(after["next"], json!({"winner": "red"}));
    assert_eq!(after["position"]["rolls"], json!([]));
    assert_eq!(
        after["position"]["homes"]["red"],
        json!(["red", "blue", "green", "yellow"])
    );
    let script = json!([{"roll": 6}, {"roll": 3}, {"move": "T34>H1"}, {"roll": 1}]);
    let err = notation::replay(&with(doc, "script", script).to_string()).unwrap_err();
    assert_eq!(err.to_string(), "step 3: the game is over");
}

// --- The shared game type ----------------------------------------------------------------

#[test]
fn the_rules_game_plays_matfyz_runs_and_refuses_other_moves() {
    let seats = Seats::for_players(2).unwrap();
    let mut game = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
    assert_eq!((game.rules(), game.seats()), (RuleSet::Matfyz, seats));
    game.roll(Die::SIX).unwrap();
    game.roll(die(1)).unwrap();
    let runs = game.legal_moves();
    assert_eq!(
        runs.len(),
        4,
        "one bring-out per colour, each going on by 1"
    );
    let mut classic = Game::new(RuleSet::Classic(Default::default()), seats, Colour::Red).unwrap();
    classic.roll(Die::SIX).unwrap();
    assert!(game.play(classic.legal_moves()[0]).is_err());
    let played = game.play(runs[0]).unwrap();
    assert!(played.captured.is_none() && !played.won);
    let green_rolls = Next::Roll {
        seat: Colour::Green,
        attempt: 1,
    };
    assert_eq!(game.next(), green_rolls);
    assert!(game.play(runs[0]).is_err());
}

// --- The notation ------------------------------------------------------------------------------

#[test]
fn replay_writes_the_position_back_in_the_notation() {
    let doc = with(
        two(
            json!({"green": ["yellow", "red", "blue", "green"], "red": ["green", "yellow"]}),
            json!({}),
            json!({"T7": "red", "T2": "blue"}),
        ),
        "rolls",
        json!([6, 3]),
    );
    let after = replay(&with(doc, "done", json!([])), json!([]));
    let text = after["position"].to_string();
    assert_eq!(
        text,
        r#"{"rules":"matfyz","seats":["red","green"],"turn":"red","bases":{"red":["green","yellow"],"green":["red","blue","green","yellow"]},"homes":{"red":[null,null,null,null],"green":[null,null,null,null]},"track":{"T2":"blue","T7":"red"},"rolls":[6,3],"done":[]}"#
    );
    assert_eq!(after["next"], json!({"seat": "red", "action": "move"}));
    // Reading the answer back gives the same answer.
    let again = replay(&after["position"], json!([]));
    assert_eq!(again, after);
}

#[test]
fn positions_that_cannot_arise_are_rejected_with_a_clear_error() {
    let good = two(
        json!({"red": ["red", "blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({}),
    );
    let cases: Vec<(Value, &str)> = vec![
        (
            with(good.clone(), "track", json!({"T3": "red"})),
            "there must be 2 red pieces",
        ),
        (
            with(
                good.clone(),
                "homes",
                json!({"red": ["red", null, null, null], "green": [null, null, null, null]}),
            ),
            "red holds two red pieces",
        ),
        (
            with(
                good.clone(),
                "homes",
                json!({"red": [null, null, null], "green": [null, null, null, null]}),
            ),
            "must list 4 squares",
        ),
        (
            with(
                good.clone(),
                "homes",
                json!({"red": [null, null, null, null]}),
            ),
            "green is seated but its home is not given",
        ),
        (
            with(good.clone(), "track", json!({"T40": "red"})),
            "unknown square",
        ),
        (
            with(good.clone(), "track", json!({"H1": "red"})),
            "not a track square",
        ),
        (
            with(good.clone(), "turn", json!("purple")),
            "unknown colour",
        ),
        (
            with(good.clone(), "seats", json!(["red", "blue"])),
            "seats must be",
        ),
        (
            with(good.clone(), "rolls", json!([3, 6, 2])),
            "3 is not last",
        ),
        (
            with(good.clone(), "rolls", json!([7])),
            "a roll must be 1 to 6",
        ),
        (
            with(with(good.clone(), "rolls", json!([3])), "roll", json!(3)),
            "either roll or rolls",
        ),
        (
            with(
                with(good.clone(), "rolls", json!([3])),
                "done",
                json!(["T4"]),
            ),
            "done lists T4",
        ),
        (
            with(good.clone(), "done", json!(["T4"])),
            "done must be empty",
        ),
        (
            with(
                with(
                    with(
                        with(
                            good.clone(),
                            "bases",
                            json!({"red": ["blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
                        ),
                        "track",
                        json!({"T7": "red"}),
                    ),
                    "rolls",
                    json!([3]),
                ),
                "done",
                json!(["T7", "T7"]),
            ),
            "done lists T7 twice",
        ),
        (
            with(with(good.clone(), "rolls", json!([])), "roll", json!(3)),
            "either roll or rolls",
        ),
        (
            with(
                with(good.clone(), "bases", json!({"red": [], "green": []})),
                "homes",
                json!({"red": ["red", "blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
            ),
            "green has one piece of each colour home, so the game is over",
        ),
        (
            with(
                with(good.clone(), "rolls", json!([3])),
                "done",
                json!(["B"]),
            ),
            "B is not a track square or a home square",
        ),
        (with(good.clone(), "pieces", json!({})), "unknown field"),
        (
            with(
                good.clone(),
                "bases",
                json!({"red": [], "green": [], "blue": []}),
            ),
            "blue is not seated",
        ),
    ];
    for (doc, expected) in cases {
        let doc = with(doc, "script", json!([]));
        let err = notation::replay(&doc.to_string()).unwrap_err().to_string();
        assert!(err.contains(expected), "{err:?} lacks {expected:?}");
        assert!(!err.contains('\n'));
    }
    // A script, which only `replay` reads, is still a list of steps.
    let scripted = with(good.clone(), "script", json!([{"roll": 1}, "x"]));
    let scripted_bot = with(
        with(scripted.clone(), "level", json!("easy")),
        "seed",
        json!(1),
    );
    for err in [
        notation::moves(&scripted.to_string()),
        notation::bot(&scripted_bot.to_string()),
    ] {
        let err = err.unwrap_err().to_string();
        assert!(err.contains("step 1"), "{err}");
    }
    // `moves` and `bot` need rolls to move with; empty is not missing.
    let empty = with(good.clone(), "rolls", json!([])).to_string();
    let bot = with(with(good, "level", json!("hard")), "seed", json!(1));
    let bot = with(bot, "rolls", json!([])).to_string();
    for err in [notation::moves(&empty), notation::bot(&bot)] {
        let err = err.unwrap_err().to_string();
        assert!(err.contains("no rolls to move with"), "{err}");
    }
}

#[test]
fn script_steps_out_of_turn_name_their_index() {
    let start = two(
        json!({"red": ["red", "blue", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]}),
        json!({}),
        json!({}),
    );
    let cases = [
        (
            json!([{"move": "B:red>T0"}]),
            "step 0: a roll is due, not a move",
        ),
        (
            json!([{"roll": 6}, {"roll": 1}, {"roll": 2}]),
            "step 2: a move is due, not a roll",
        ),
        (
            json!([{"roll": 6}, {"roll": 1}, {"move": "B:red>T0"}]),
            "step 2: B:red>T0 is not a legal move",
        ),
        (
            json!([{"roll": 6}, {"roll": 1}, {"move": "B:red"}]),
            "step 2: malformed run",
        ),
        (
            json!([{"roll": 6}, {"roll": 1}, {"move": "B:red>T0>T1*pink"}]),
            "step 2: malformed run",
        ),
        (json!([{"roll": 0}]), "step 0: a roll must be 1 to 6, not 0"),
    ];
    for (script, expected) in cases {
        let doc = with(start.clone(), "script", script);
        let err = notation::replay(&doc.to_string()).unwrap_err().to_string();
        assert!(err.starts_with(expected), "{err:?} is not {expected:?}");
    }
}

// --- The command line ----------------------------------------------------------------------------

const CLI_POSITION: &str = r#"{"rules": "matfyz", "seats": ["red", "green"], "turn": "red",
 "bases": {"red": ["red", "green", "yellow"], "green": ["red", "blue", "green", "yellow"]},
 "homes": {"red": [null, null, null, null], "green": [null, null, null, null]},
 "track": {"T5": "blue"}"#;

#[test]
fn cli_moves_prints_the_legal_runs() {
    let out = common::run("moves", &format!("{CLI_POSITION}, \"roll\": 6}}"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "{\"moves\": [\"B:green>T0\", \"B:red>T0\", \"B:yellow>T0\", \"T5>T11\"]}\n"
    );
}

#[test]
fn cli_replay_prints_the_position_and_what_is_next() {
    let script = r#""script": [{"roll": 6}, {"roll": 2}, {"move": "T5>T11>T13"}]"#;
    let out = common::run("replay", &format!("{CLI_POSITION}, {script}}}"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(answer["position"]["track"], json!({"T13": "blue"}));
    assert_eq!(
        answer["next"],
        json!({"seat": "green", "action": "roll", "try": 1})
    );
}

#[test]
fn cli_bad_matfyz_input_exits_2_with_one_line() {
    let inputs = [
        format!("{CLI_POSITION}, \"roll\": 7}}"),
        format!("{CLI_POSITION}}}"),
        format!("{CLI_POSITION}, \"script\": [{{\"move\": \"T5>T11\"}}]}}"),
        CLI_POSITION.replace("\"T5\": \"blue\"", "\"T5\": \"blue\", \"T6\": \"blue\""),
        CLI_POSITION.to_owned(),
    ];
    for (input, command) in inputs
        .iter()
        .zip(["moves", "moves", "replay", "moves", "replay"])
    {
        common::refused(command, input);
    }
}

// --- Properties over random games ------------------------------------------------------------

/// In 4,000 seeded random games (2 and 4 players) none needed more than
/// 1,233 rolls and runs; ten times that is the bound.
const MAX_ACTIONS: usize = 12_000;

/// Plays a random game (seeded dice, seeded choice among the legal runs)
/// and calls `check` on every state; returns the number of actions, or
/// `None` if the game did not end within [`MAX_ACTIONS`].
fn random_game(seed: u64, players: u8, mut check: impl FnMut(&matfyz::Game)) -> Option<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let seats = Seats::for_players(players).unwrap();
    let first = seats.iter().nth(seed as usize % seats.len()).unwrap();
    let start = Position::start(seats, first).unwrap();
    let mut game = matfyz::Game::new(start);
    for actions in 0..MAX_ACTIONS {
        check(&game);
        match game.phase() {
            matfyz::Phase::Roll => {
                let face = (rng.next_u32() % 6 + 1) as u8;
                game.roll(die(face)).unwrap();
            }
            matfyz::Phase::Move => {
                let runs = game.legal_moves();
                let run = runs[rng.next_u32() as usize % runs.len()];
                game.play(run).unwrap();
            }
            matfyz::Phase::Won => return Some(actions),
        }
    }
    None
}

/// How many pieces of each colour the position has.
fn piece_counts(position: &Position) -> [usize; 4] {
    let layout = position.layout();
    let mut counts = [0; 4];
    let bases = layout.bases.iter().flat_map(|(_, b)| b.iter().copied());
    let homes = layout
        .homes
        .iter()
        .flat_map(|(_, h)| h.iter().flatten().copied());
    let track = layout.track.iter().map(|&(_, c)| c);
    for colour in bases.chain(homes).chain(track) {
        counts[colour.index()] += 1;
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn pieces_are_conserved(seed: u64, players in 2u8..=4) {
        random_game(seed, players, |game| {
            assert_eq!(piece_counts(game.position()), [usize::from(players); 4]);
        });
    }

    #[test]
    fn no_seat_ever_holds_two_pieces_of_one_colour(seed: u64, players in 2u8..=4) {
        random_game(seed, players, |game| {
            for (seat, base) in game.position().layout().bases {
                let home = game.position().home(seat);
                let held = base.iter().chain(home.iter().flatten());
                let mut seen = [false; 4];
                for colour in held {
                    assert!(!std::mem::replace(&mut seen[colour.index()], true), "{seat} {colour}");
                }
            }
        });
    }

    #[test]
    fn every_legal_run_gives_a_valid_position(seed: u64, players in 2u8..=4) {
        random_game(seed, players, |game| {
            for run in game.legal_moves() {
                let mut after = *game;
                after.play(run).unwrap();
                let position = *after.position();
                assert_eq!(Position::new(&position.layout()), Ok(position), "{run}");
                if after.phase() == matfyz::Phase::Move {
                    assert!(!after.legal_moves().is_empty());
                }
            }
        });
    }

    #[test]
    fn random_games_end_within_a_bound(seed: u64, players in 2u8..=4) {
        let actions = random_game(seed, players, |_| ());
        prop_assert!(actions.is_some());
    }
}
