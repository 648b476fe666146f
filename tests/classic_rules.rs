//! One test per rule of the classic family (seeds 004/000, the three house
//! rules and the Croatian preset), each setting up a position and checking
//! the outcome.

use clovece::rules::classic::{Game, Phase, Position};
use clovece::rules::{Capture, Colour, Die, FlowError, HouseRules, Place, Rolled, Seats};

use Colour::{Blue, Green, Red, Yellow};

const OFF: HouseRules = HouseRules {
    compulsory_capture: false,
    optional_bring_out: false,
    no_jump_home: false,
};

/// A game at a position written like the notation: `(colour, "B T0 T17 H2")`.
fn game(house: HouseRules, turn: Colour, pieces: &[(Colour, &str)]) -> Game {
    let colours: Vec<Colour> = pieces.iter().map(|(c, _)| *c).collect();
    let seats = Seats::from_colours(&colours).expect("valid seats");
    let pieces: Vec<(Colour, Vec<Place>)> = pieces
        .iter()
        .map(|(c, list)| (*c, list.split(' ').map(|p| p.parse().unwrap()).collect()))
        .collect();
    Game::new(
        house,
        Position::new(seats, turn, &pieces).expect("valid position"),
    )
}

fn die(n: u8) -> Die {
    Die::new(n).unwrap()
}

/// The legal moves for `roll`, as sorted `FROM>TO` strings.
fn moves(g: &Game, roll: u8) -> Vec<String> {
    let mut list: Vec<String> = g
        .position()
        .legal_moves(g.house(), die(roll))
        .iter()
        .map(|m| format!("{}>{}", m.from(), m.to()))
        .collect();
    list.sort();
    list
}

/// Rolls `roll` and plays `FROM>TO`.
fn play(g: &mut Game, roll: u8, mv: &str) -> clovece::rules::Played {
    assert_eq!(g.roll(die(roll)), Ok(Rolled::Move), "{mv}");
    let (from, to) = mv.split_once('>').unwrap();
    let m = g
        .find_move(from.parse().unwrap(), to.parse().unwrap())
        .unwrap_or_else(|| panic!("{mv} is not legal: {:?}", moves(g, roll)));
    g.play(m).unwrap()
}

fn places(g: &Game, c: Colour) -> String {
    g.position().places(c).map(|p| p.to_string()).join(" ")
}

#[test]
fn pieces_travel_clockwise_from_their_start_square() {
    let g = game(
        OFF,
        Blue,
        &[(Red, "B B B B"), (Blue, "T10 B B B"), (Green, "B B B B")],
    );
    assert_eq!(moves(&g, 3), ["T10>T13"]);
    let g = game(
        OFF,
        Yellow,
        &[
            (Red, "B B B B"),
            (Blue, "B B B B"),
            (Green, "B B B B"),
            (Yellow, "T38 B B B"),
        ],
    );
    assert_eq!(moves(&g, 4), ["T38>T2"], "the track wraps from T39 to T0");
}

#[test]
fn a_full_lap_leads_into_the_own_home_row_only() {
    // The spec's example: a red piece on T38 reaches H1 with a 2, H4 with a 5.
    let g = game(OFF, Red, &[(Red, "T38 H1 H2 H3"), (Green, "B B B B")]);
    assert!(!moves(&g, 2).contains(&"T38>H1".to_owned()), "H1 is taken");
    let g = game(OFF, Red, &[(Red, "T38 B B B"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 2), ["T38>H1"]);
    assert_eq!(moves(&g, 5), ["T38>H4"]);
    // Green passes red's home entrance and goes on round the track.
    let g = game(OFF, Green, &[(Red, "B B B B"), (Green, "T38 B B B")]);
    assert_eq!(moves(&g, 3), ["T38>T1"]);
}

#[test]
fn seats_are_red_green_for_two_and_red_blue_green_for_three() {
    assert_eq!(
        Seats::for_players(2).unwrap().iter().collect::<Vec<_>>(),
        [Red, Green]
    );
    assert_eq!(
        Seats::for_players(3).unwrap().iter().collect::<Vec<_>>(),
        [Red, Blue, Green]
    );
    assert!(Seats::from_colours(&[Red, Yellow]).is_err());
}

#[test]
fn turns_pass_clockwise() {
    let mut g = game(
        OFF,
        Green,
        &[(Red, "T5 B B B"), (Blue, "T15 B B B"), (Green, "T25 B B B")],
    );
    play(&mut g, 1, "T25>T26");
    assert_eq!(
        g.position().turn(),
        Red,
        "after green comes red when yellow is not seated"
    );
    play(&mut g, 1, "T5>T6");
    assert_eq!(g.position().turn(), Blue);
}

#[test]
fn a_piece_leaves_the_base_only_on_a_six() {
    let g = game(OFF, Red, &[(Red, "B B B T5"), (Green, "B B B B")]);
    for roll in 1..=5 {
        assert!(
            !moves(&g, roll).iter().any(|m| m.starts_with('B')),
            "roll {roll}"
        );
    }
    assert_eq!(moves(&g, 6), ["B>T0"]);
}

#[test]
fn a_six_with_a_piece_in_base_must_bring_it_out() {
    let g = game(OFF, Red, &[(Red, "B B T5 T17"), (Green, "B B B B")]);
    assert_eq!(
        moves(&g, 6),
        ["B>T0"],
        "the other pieces may not use the six"
    );
}

#[test]
fn own_piece_on_the_start_square_blocks_bringing_out_and_must_move() {
    // The spec's example without optional-bring-out.
    let g = game(OFF, Red, &[(Red, "B T0 T17 H2"), (Green, "B B B T24")]);
    assert_eq!(moves(&g, 6), ["T0>T6"]);
}

#[test]
fn the_start_square_is_cleared_first_while_pieces_wait_in_base() {
    let g = game(OFF, Red, &[(Red, "B B T0 T17"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 3), ["T0>T3"]);
}

#[test]
fn when_the_start_piece_cannot_move_another_piece_may() {
    // T0 + 3 = T3 holds a red piece, so the start square cannot be cleared.
    let g = game(OFF, Red, &[(Red, "B B T0 T3"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 3), ["T3>T6"]);
    let g = game(OFF, Red, &[(Red, "B B T0 T6"), (Green, "B B B B")]);
    assert_eq!(
        moves(&g, 6),
        ["T6>T12"],
        "a six that can neither bring out nor clear moves another piece"
    );
}

#[test]
fn no_clearing_obligation_without_pieces_in_base() {
    let g = game(OFF, Red, &[(Red, "T0 T17 H1 H2"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 3), ["H1>H4", "T0>T3", "T17>T20"]);
}

#[test]
fn three_tries_for_a_six_with_no_piece_on_the_track() {
    let mut g = game(OFF, Red, &[(Red, "B B B B"), (Green, "T25 B B B")]);
    assert_eq!(g.roll(die(1)), Ok(Rolled::TryAgain { attempt: 2 }));
    assert_eq!(g.roll(die(2)), Ok(Rolled::TryAgain { attempt: 3 }));
    assert_eq!(g.roll(die(3)), Ok(Rolled::TurnLost));
    assert_eq!(g.position().turn(), Green);
    assert_eq!(g.phase(), Phase::Roll { attempt: 1 });
}

#[test]
fn a_six_on_a_later_try_brings_a_piece_out() {
    let mut g = game(OFF, Red, &[(Red, "B B B B"), (Green, "T25 B B B")]);
    g.roll(die(4)).unwrap();
    play(&mut g, 6, "B>T0");
    assert_eq!(
        g.phase(),
        Phase::Roll { attempt: 1 },
        "the extra roll after a six is try 1"
    );
    assert_eq!(g.position().turn(), Red);
}

#[test]
fn three_tries_also_when_home_pieces_can_no_longer_move() {
    let mut g = game(OFF, Red, &[(Red, "B B H3 H4"), (Green, "T25 B B B")]);
    assert_eq!(g.roll(die(1)), Ok(Rolled::TryAgain { attempt: 2 }));
}

#[test]
fn one_try_when_a_home_piece_could_still_move() {
    // H2 could move to H3 or H4 with another roll, so there are no tries.
    let mut g = game(OFF, Red, &[(Red, "B B B H2"), (Green, "T25 B B B")]);
    assert_eq!(g.roll(die(5)), Ok(Rolled::TurnLost));
    assert_eq!(g.position().turn(), Green);
}

#[test]
fn a_six_gives_another_roll() {
    let mut g = game(OFF, Red, &[(Red, "T5 T6 T7 T8"), (Green, "B B B B")]);
    play(&mut g, 6, "T8>T14");
    assert_eq!(g.position().turn(), Red);
    assert_eq!(g.phase(), Phase::Roll { attempt: 1 });
    play(&mut g, 2, "T14>T16");
    assert_eq!(g.position().turn(), Green);
}

#[test]
fn sixes_in_a_row_have_no_limit() {
    // Six sixes one after another (some households stop at the third):
    // each moved a piece and gives another roll; then a 1 passes the turn.
    let mut g = game(OFF, Red, &[(Red, "T0 H1 H2 H3"), (Green, "B B B B")]);
    for k in 0..6 {
        play(&mut g, 6, &format!("T{}>T{}", 6 * k, 6 * k + 6));
        assert_eq!(g.position().turn(), Red, "after {} sixes", k + 1);
        assert_eq!(g.phase(), Phase::Roll { attempt: 1 });
    }
    play(&mut g, 1, "T36>T37");
    assert_eq!(g.position().turn(), Green);
}

#[test]
fn no_legal_move_loses_the_turn() {
    // H1 needs exactly 1..3; a 5 moves nothing and there are no tries.
    let mut g = game(OFF, Red, &[(Red, "H1 H2 H3 T38"), (Green, "B B B B")]);
    assert!(moves(&g, 6).is_empty());
    assert_eq!(
        g.roll(die(6)),
        Ok(Rolled::TurnLost),
        "even a six is lost when it cannot be used"
    );
    assert_eq!(g.position().turn(), Green);
}

#[test]
fn ending_on_an_opponent_captures_it() {
    let mut g = game(OFF, Red, &[(Red, "T5 B B B"), (Green, "T8 B B B")]);
    let played = play(&mut g, 3, "T5>T8");
    assert_eq!(
        played.captured,
        Some(Capture {
            piece: Green,
            to_base_of: Green
        })
    );
    assert_eq!(places(&g, Green), "B B B B");
}

#[test]
fn bringing_out_onto_an_opponent_on_the_start_square_captures_it() {
    let mut g = game(OFF, Red, &[(Red, "B B B B"), (Green, "T0 B B B")]);
    let played = play(&mut g, 6, "B>T0");
    assert_eq!(played.captured.map(|c| c.piece), Some(Green));
}

#[test]
fn a_piece_on_its_own_start_square_can_be_captured() {
    let mut g = game(OFF, Red, &[(Red, "T17 B B B"), (Green, "T20 B B B")]);
    let played = play(&mut g, 3, "T17>T20");
    assert_eq!(
        played.captured.map(|c| c.piece),
        Some(Green),
        "no safe squares"
    );
}

#[test]
fn a_piece_never_lands_on_its_own_colour() {
    let g = game(OFF, Red, &[(Red, "T5 T8 H1 H4"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 3), ["T8>T11"]);
}

#[test]
fn pieces_jump_over_any_piece_and_jumping_captures_nobody() {
    let mut g = game(OFF, Red, &[(Red, "T5 T6 B B"), (Green, "T7 B B B")]);
    let played = play(&mut g, 4, "T5>T9");
    assert_eq!(played.captured, None);
    assert_eq!(places(&g, Green), "B B B T7");
}

#[test]
fn entering_home_needs_an_exact_roll_and_cannot_pass_the_last_square() {
    let g = game(OFF, Red, &[(Red, "T36 B B B"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 6), ["B>T0"], "a six must bring a piece out");
    let g = game(OFF, Red, &[(Red, "T38 T5 H1 H2"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 6), ["T5>T11"], "T38 + 6 would pass H4");
    assert_eq!(moves(&g, 5), ["T38>H4", "T5>T10"]);
}

#[test]
fn a_piece_cannot_land_on_its_own_piece_in_the_home_row() {
    let g = game(OFF, Red, &[(Red, "T38 H4 T5 T6"), (Green, "B B B B")]);
    assert!(!moves(&g, 5).contains(&"T38>H4".to_owned()));
}

#[test]
fn pieces_move_forward_and_jump_inside_the_home_row() {
    let g = game(OFF, Red, &[(Red, "H1 H2 B B"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 2), ["H1>H3", "H2>H4"]);
    assert_eq!(moves(&g, 3), ["H1>H4"], "H1 jumps over H2");
}

#[test]
fn the_game_ends_when_the_first_colour_has_all_four_home() {
    let mut g = game(
        OFF,
        Red,
        &[(Red, "H1 H2 H3 T38"), (Green, "T10 T11 T12 T13")],
    );
    let played = play(&mut g, 5, "T38>H4");
    assert!(played.won);
    assert_eq!(g.winner(), Some(Red));
    assert_eq!(g.roll(die(3)), Err(FlowError::GameOver));
}

#[test]
fn a_roll_is_refused_while_a_move_is_due_and_a_move_while_a_roll_is_due() {
    let mut g = game(OFF, Red, &[(Red, "T5 B B B"), (Green, "B B B B")]);
    let mv = g.position().legal_moves(OFF, die(2)).get(0).unwrap();
    assert_eq!(g.play(mv), Err(FlowError::RollDue));
    g.roll(die(2)).unwrap();
    assert_eq!(g.roll(die(2)), Err(FlowError::MoveDue));
    let wrong = g.position().legal_moves(OFF, die(3)).get(0).unwrap();
    assert!(matches!(g.play(wrong), Err(FlowError::Illegal)));
}

// House rules.

const COMPULSORY: HouseRules = HouseRules {
    compulsory_capture: true,
    ..OFF
};
const OPTIONAL: HouseRules = HouseRules {
    optional_bring_out: true,
    ..OFF
};
const NO_JUMP: HouseRules = HouseRules {
    no_jump_home: true,
    ..OFF
};

#[test]
fn house_rules_are_all_off_by_default() {
    assert_eq!(HouseRules::default(), OFF);
}

#[test]
fn compulsory_capture_leaves_only_capturing_moves() {
    let g = game(OFF, Red, &[(Red, "T5 T20 B B"), (Green, "T8 B B B")]);
    assert_eq!(moves(&g, 3), ["T20>T23", "T5>T8"]);
    let g = game(COMPULSORY, Red, &[(Red, "T5 T20 B B"), (Green, "T8 B B B")]);
    assert_eq!(moves(&g, 3), ["T5>T8"]);
}

#[test]
fn compulsory_capture_yields_to_bringing_out() {
    let g = game(COMPULSORY, Red, &[(Red, "T5 B B B"), (Green, "T11 B B B")]);
    assert_eq!(moves(&g, 6), ["B>T0"]);
}

#[test]
fn compulsory_capture_yields_to_clearing_the_start_square() {
    let g = game(COMPULSORY, Red, &[(Red, "T0 T5 B B"), (Green, "T8 B B B")]);
    assert_eq!(moves(&g, 3), ["T0>T3"]);
}

#[test]
fn compulsory_capture_applies_when_the_start_square_cannot_be_cleared() {
    let g = game(
        COMPULSORY,
        Red,
        &[(Red, "T0 T3 T20 B"), (Green, "T6 B B B")],
    );
    assert_eq!(moves(&g, 3), ["T3>T6"]);
}

#[test]
fn optional_bring_out_lifts_both_obligations() {
    // The spec's example with optional-bring-out.
    let g = game(OPTIONAL, Red, &[(Red, "B T0 T17 H2"), (Green, "B B B T24")]);
    assert_eq!(moves(&g, 6), ["T0>T6", "T17>T23"]);
    let g = game(OPTIONAL, Red, &[(Red, "B B T5 T17"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 6), ["B>T0", "T17>T23", "T5>T11"]);
    let g = game(OPTIONAL, Red, &[(Red, "B B T0 T17"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 3), ["T0>T3", "T17>T20"]);
}

#[test]
fn with_both_house_rules_a_capturing_bring_out_is_compulsory() {
    let house = HouseRules {
        compulsory_capture: true,
        optional_bring_out: true,
        no_jump_home: false,
    };
    let g = game(house, Red, &[(Red, "B B T5 T17"), (Green, "T0 B B B")]);
    assert_eq!(moves(&g, 6), ["B>T0"]);
}

#[test]
fn no_jump_home_forbids_jumping_inside_the_home_row() {
    let g = game(NO_JUMP, Red, &[(Red, "H1 H2 B B"), (Green, "B B B B")]);
    assert_eq!(moves(&g, 2), ["H2>H4"]);
    assert!(moves(&g, 3).is_empty());
}

#[test]
fn no_jump_home_forbids_jumping_while_entering_the_home_row() {
    let g = game(NO_JUMP, Red, &[(Red, "T38 H2 T5 B"), (Green, "B B B B")]);
    assert!(!moves(&g, 4).contains(&"T38>H3".to_owned()));
    assert!(moves(&g, 2).contains(&"T38>H1".to_owned()));
    let g = game(OFF, Red, &[(Red, "T38 H2 T5 B"), (Green, "B B B B")]);
    assert!(moves(&g, 4).contains(&"T38>H3".to_owned()));
}

#[test]
fn croatian_preset_is_classic_without_jumping_in_the_home_row() {
    assert_eq!(HouseRules::CROATIAN, NO_JUMP);
}
