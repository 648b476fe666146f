//! The computer players are pure functions: the same game, level and seed
//! give the same move; every move they choose is legal; they never stall.

use clovece::bench::roll;
use clovece::bot::{Level, choose};
use clovece::rules::{Colour, Game, HouseRules, Next, RuleSet, Seats};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Plays a game with `level` on every seat, checking each choice, and
/// returns how many moves were made.
fn play_out(rules: RuleSet, players: u8, level: Level, seed: u64) -> usize {
    let seats = Seats::for_players(players).unwrap();
    let mut game = Game::new(rules, seats, Colour::Red).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut moves = 0;
    for step in 0..20_000u64 {
        match game.next() {
            Next::Roll { .. } => {
                game.roll(roll(&mut rng)).unwrap();
            }
            Next::Move { .. } => {
                let mv = choose(&game, level, step).expect("a move is due, so the bot moves");
                assert_eq!(
                    choose(&game, level, step),
                    Some(mv),
                    "same inputs, same move"
                );
                assert!(game.legal_moves().contains(&mv), "the bot's move is legal");
                game.play(mv).unwrap();
                moves += 1;
            }
            Next::Won { .. } => {
                assert_eq!(choose(&game, level, step), None, "no move after the end");
                return moves;
            }
        }
        if matches!(game.next(), Next::Roll { .. }) {
            assert_eq!(
                choose(&game, level, step),
                None,
                "no move while a roll is due"
            );
        }
    }
    panic!("a game between computer players did not end");
}

#[test]
fn classic_games_between_computer_players_end_with_legal_moves() {
    for (players, level, seed) in [
        (4, Level::Easy, 1),
        (2, Level::Medium, 2),
        (3, Level::Medium, 3),
    ] {
        play_out(
            RuleSet::Classic(HouseRules::default()),
            players,
            level,
            seed,
        );
    }
    let all = HouseRules {
        compulsory_capture: true,
        optional_bring_out: true,
        no_jump_home: true,
    };
    play_out(RuleSet::Classic(all), 4, Level::Medium, 4);
}

#[test]
fn matfyz_games_between_computer_players_end_with_legal_moves() {
    play_out(RuleSet::Matfyz, 2, Level::Medium, 5);
    play_out(RuleSet::Matfyz, 4, Level::Easy, 6);
}

#[test]
fn the_bot_command_answers_the_same_twice_and_for_every_level() {
    let input = r#"{"rules":"classic","seats":["red","green"],"turn":"red",
        "pieces":{"red":["B","T0","T17","H2"],"green":["B","B","B","T24"]},
        "roll":3,"level":"LEVEL","seed":42}"#;
    for level in ["easy", "medium", "hard"] {
        let input = input.replace("LEVEL", level);
        let first = clovece::notation::bot(&input).unwrap();
        assert_eq!(clovece::notation::bot(&input).unwrap(), first);
        // The clear-start rule leaves one legal move.
        assert_eq!(first, r#"{"move":"T0>T3"}"#, "{level}");
    }
    let blocked = input_with_no_move();
    assert_eq!(
        clovece::notation::bot(&blocked).unwrap(),
        r#"{"move":null}"#
    );
    assert!(clovece::notation::bot(&input.replace("LEVEL", "genius")).is_err());
}

/// Red's only pieces at home are packed and a 4 moves nothing.
fn input_with_no_move() -> String {
    r#"{"rules":"classic","seats":["red","green"],"turn":"red",
        "pieces":{"red":["B","B","H3","H4"],"green":["B","B","B","T24"]},
        "roll":4,"level":"hard","seed":1}"#
        .to_owned()
}
