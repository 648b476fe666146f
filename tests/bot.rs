//! The computer players are pure functions: the same game, level and seed
//! give the same move, also after the position went through its JSON; every
//! move they choose is legal; they never stall; `clovece bot` answers as
//! ../shared/spec/notation.md says.

mod common;

use clovece::bench::roll;
use clovece::bot::tournament::{Tournament, TournamentError};
use clovece::bot::train::{Config, train};
use clovece::bot::{Level, choose};
use clovece::rules::{Colour, Game, HouseRules, Next, RuleSet, Seats};
use common::{answer, refused, run, with};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde_json::{Value, json};

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
fn a_whole_classic_game_between_hard_players_ends_with_legal_moves() {
    play_out(RuleSet::Classic(HouseRules::CROATIAN), 2, Level::Hard, 7);
    play_out(RuleSet::Classic(HouseRules::default()), 4, Level::Hard, 9);
}

#[test]
fn the_trainer_gives_the_same_weights_for_the_same_seed() {
    let config = |seed| Config {
        games: 12,
        seed,
        ..Config::default()
    };
    let first = train(&config(5), |_, _| {});
    assert_eq!(train(&config(5), |_, _| {}), first);
    assert_ne!(train(&config(6), |_, _| {}), first, "the seed matters");
    let source = first.rust_source(&config(5));
    assert!(source.contains("--games 12 --seed 5"), "{source}");
    assert_eq!(source.matches(", // ").count(), first.0.len(), "{source}");
}

#[test]
fn matfyz_games_between_computer_players_end_with_legal_moves() {
    play_out(RuleSet::Matfyz, 2, Level::Medium, 5);
    play_out(RuleSet::Matfyz, 4, Level::Easy, 6);
    play_out(RuleSet::Matfyz, 3, Level::Hard, 8);
}

/// The start of a game as the notation writes it.
fn start_json(rules: RuleSet, seats: Seats) -> Value {
    let names: Vec<&str> = seats.iter().map(Colour::name).collect();
    match rules {
        RuleSet::Classic(house) => {
            let switches = [
                (house.compulsory_capture, "compulsory-capture"),
                (house.optional_bring_out, "optional-bring-out"),
                (house.no_jump_home, "no-jump-home"),
            ];
            let house: Vec<&str> = switches.iter().filter(|s| s.0).map(|s| s.1).collect();
            let pieces: serde_json::Map<String, Value> = names
                .iter()
                .map(|&c| (c.to_owned(), json!(["B", "B", "B", "B"])))
                .collect();
            json!({"rules": "classic", "house": house, "seats": names, "turn": "red",
                "pieces": pieces})
        }
        RuleSet::Matfyz => {
            let every: Vec<&str> = Colour::ALL.iter().map(|c| c.name()).collect();
            let bases: serde_json::Map<String, Value> = names
                .iter()
                .map(|&c| (c.to_owned(), json!(every)))
                .collect();
            let homes: serde_json::Map<String, Value> = names
                .iter()
                .map(|&c| (c.to_owned(), json!([null, null, null, null])))
                .collect();
            json!({"rules": "matfyz", "seats": names, "turn": "red",
                "bases": bases, "homes": homes})
        }
    }
}

/// A game played `steps` steps from the start with random legal moves, up
/// to its next move if it has not ended, and the same game as a `replay`
/// script.
fn random_game(rules: RuleSet, players: u8, seed: u64, steps: usize) -> (Game, Vec<Value>) {
    let seats = Seats::for_players(players).unwrap();
    let mut game = Game::new(rules, seats, Colour::Red).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut script = Vec::new();
    for step in 0.. {
        match game.next() {
            Next::Won { .. } => break,
            Next::Move { .. } if step >= steps => break,
            Next::Roll { .. } => {
                let die = roll(&mut rng);
                script.push(json!({ "roll": die.get() }));
                game.roll(die).unwrap();
            }
            Next::Move { .. } => {
                let moves = game.legal_moves();
                let mv = moves[(rng.next_u32() as usize) % moves.len()];
                script.push(json!({ "move": mv.to_string() }));
                game.play(mv).unwrap();
            }
        }
    }
    (game, script)
}

/// The `clovece bot` input for `game` (a move due), written by `replay`.
fn bot_input(rules: RuleSet, game: &Game, script: Vec<Value>, level: Level, seed: u64) -> String {
    let start = start_json(rules, game.seats());
    let replayed: Value = serde_json::from_str(
        &clovece::notation::replay(&with(start, "script", json!(script)).to_string()).unwrap(),
    )
    .unwrap();
    let mut position = replayed["position"].clone();
    if let RuleSet::Classic(_) = rules {
        // A classic position is written before its roll; add the roll due.
        let Game::Classic(g) = game else {
            unreachable!()
        };
        let clovece::rules::classic::Phase::Move { roll } = g.phase() else {
            unreachable!("a move is due")
        };
        position = with(position, "roll", json!(roll.get()));
    }
    let position = with(position, "level", json!(level.name()));
    with(position, "seed", json!(seed)).to_string()
}

/// The moves of every level in positions of every rule set, pinned to
/// what this build plays. A change (to the evaluation, the search, the
/// rules engine or a dependency such as `rand_chacha`) makes phones of two
/// builds disagree about a computer's move in the middle of a game, so it
/// must come with a new `ENGINE` (the crate's version: phones of different
/// engines refuse to play together).
#[test]
fn the_moves_of_every_level_are_pinned() {
    use sha2::{Digest, Sha256};

    let every_house_rule = HouseRules {
        compulsory_capture: true,
        optional_bring_out: true,
        no_jump_home: true,
    };
    let rule_sets = [
        RuleSet::Classic(HouseRules::default()),
        RuleSet::Classic(every_house_rule),
        RuleSet::Classic(HouseRules::CROATIAN),
        RuleSet::Matfyz,
    ];
    let mut played = String::new();
    for rules in rule_sets {
        for players in [2, 4] {
            // Positions where a choice is to be made: three moves or more.
            let choices = (0..).filter_map(|seed: u64| {
                let steps = 20 + 10 * (seed % 12) as usize;
                let (game, _) = random_game(rules, players, seed, steps);
                (game.legal_moves().len() >= 3).then_some((seed, game))
            });
            for (seed, game) in choices.take(6) {
                for level in [Level::Easy, Level::Medium, Level::Hard] {
                    let mv = choose(&game, level, seed * 7 + 1);
                    played += &mv.map_or("-".to_owned(), |m| m.to_string());
                    played.push(' ');
                }
            }
        }
    }
    let digest: String = Sha256::digest(played.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        (clovece::protocol::header::ENGINE, digest.as_str()),
        ("clovece 0.1.1", "0e6f51cd4d7bf6eb"),
        "the computer players' moves changed ({played}): \
         bump the version in Cargo.toml and pin the new values"
    );
}

/// The rule sets the properties range over.
fn rule_sets() -> impl Strategy<Value = RuleSet> {
    prop_oneof![
        (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(c, o, n)| {
            RuleSet::Classic(HouseRules {
                compulsory_capture: c,
                optional_bring_out: o,
                no_jump_home: n,
            })
        }),
        Just(RuleSet::Matfyz),
    ]
}

fn levels() -> impl Strategy<Value = Level> {
    prop_oneof![Just(Level::Easy), Just(Level::Medium), Just(Level::Hard)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_move_a_bot_chooses_is_legal(
        rules in rule_sets(),
        players in 2u8..=4,
        seed in any::<u64>(),
        steps in 0usize..600,
        level in levels(),
        bot_seed in any::<u64>(),
    ) {
        let (game, _) = random_game(rules, players, seed, steps);
        match game.next() {
            Next::Move { .. } => {
                let mv = choose(&game, level, bot_seed);
                prop_assert!(mv.is_some_and(|mv| game.legal_moves().contains(&mv)));
            }
            _ => prop_assert_eq!(choose(&game, level, bot_seed), None),
        }
    }

    #[test]
    fn the_same_position_level_and_seed_give_the_same_move_after_a_json_round_trip(
        rules in rule_sets(),
        players in 2u8..=4,
        seed in any::<u64>(),
        steps in 1usize..400,
        level in levels(),
        bot_seed in any::<u64>(),
    ) {
        let (game, script) = random_game(rules, players, seed, steps);
        prop_assume!(matches!(game.next(), Next::Move { .. }));
        let first = choose(&game, level, bot_seed);
        prop_assert_eq!(choose(&game, level, bot_seed), first, "run twice");
        let input = bot_input(rules, &game, script, level, bot_seed);
        let answer: Value = serde_json::from_str(&clovece::notation::bot(&input).unwrap()).unwrap();
        let expected = first.map(|mv| mv.to_string());
        prop_assert_eq!(&answer["move"], &json!(expected), "{}", input);
    }

    #[test]
    fn no_bot_moves_while_a_roll_is_due(
        rules in rule_sets(),
        players in 2u8..=4,
        seed in any::<u64>(),
        steps in 0usize..600,
        level in levels(),
    ) {
        let (mut game, _) = random_game(rules, players, seed, steps);
        // A Matfyz turn may be several runs: play them all.
        while let Next::Move { .. } = game.next() {
            let mv = game.legal_moves()[0];
            game.play(mv).unwrap();
        }
        prop_assert_eq!(choose(&game, level, seed), None);
    }
}

fn spec_input(level: &str) -> Value {
    json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "T0", "T17", "H2"], "green": ["B", "B", "B", "T24"]},
        "roll": 3, "level": level, "seed": 42})
}

/// A position where red's 6 moves either track piece (bringing a piece
/// out is optional, and red's start is taken): a choice, so that the
/// answer depends on the level and seed.
fn several_moves_input(level: &str, seed: u64) -> Value {
    json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "house": ["optional-bring-out"],
        "pieces": {"red": ["B", "T0", "T17", "H2"], "green": ["B", "B", "B", "T24"]},
        "roll": 6, "level": level, "seed": seed})
}

#[test]
fn the_bot_command_answers_the_same_twice_and_for_every_level() {
    // Every run is a new process, so a choice that hangs on anything but
    // the input (a hash map's order, the clock) shows as two answers.
    for level in ["easy", "medium", "hard"] {
        for seed in 0..3 {
            let input = several_moves_input(level, seed);
            let first = answer("bot", &input);
            assert!(first["move"].is_string(), "{input}: {first}");
            assert_eq!(answer("bot", &input), first, "{input}");
        }
        // The clear-start rule leaves one legal move.
        assert_eq!(
            answer("bot", &spec_input(level)),
            json!({"move": "T0>T3"}),
            "{level}"
        );
    }
}

#[test]
fn the_bot_command_answers_a_matfyz_turn_of_thousands_of_sixes_at_every_level() {
    // Unlikely in play, but a position may say so: the search must not
    // nest a move per run as deep as the stack.
    let mut rolls = vec![6; 20_000];
    rolls.push(3);
    for level in ["easy", "medium", "hard"] {
        let input = json!({"rules": "matfyz", "seats": ["red", "blue", "green"], "turn": "red",
            "bases": {"red": ["red", "green"], "blue": ["red", "blue", "green"],
                      "green": ["red", "blue", "green", "yellow"]},
            "homes": {"red": [null, null, null, null], "blue": [null, null, null, null],
                      "green": [null, null, null, null]},
            "track": {"T7": "blue", "T10": "yellow", "T30": "yellow"},
            "rolls": rolls, "done": [], "level": level, "seed": 7});
        let (first, again) = (
            run("bot", &input.to_string()),
            run("bot", &input.to_string()),
        );
        assert_eq!(first.code, 0, "{level}: {}", first.stderr);
        let chosen: Value = serde_json::from_str(&first.stdout).unwrap();
        let legal = answer("moves", &input);
        let legal = legal["moves"].as_array().unwrap();
        assert!(legal.contains(&chosen["move"]), "{level}: {chosen}");
        assert_eq!(again.stdout, first.stdout, "{level}");
    }
}

#[test]
fn the_bot_command_answers_null_when_the_roll_cannot_be_used() {
    // Red's only pieces at home are packed and a 4 moves nothing.
    let input = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["B", "B", "H3", "H4"], "green": ["B", "B", "B", "T24"]},
        "roll": 4, "level": "hard", "seed": 1});
    assert_eq!(answer("bot", &input), json!({"move": null}));
    // A game already won has no move either.
    let won = json!({"rules": "classic", "seats": ["red", "green"], "turn": "red",
        "pieces": {"red": ["H1", "H2", "H3", "H4"], "green": ["B", "B", "B", "T24"]},
        "roll": 2, "level": "easy", "seed": 1});
    assert_eq!(answer("bot", &won), json!({"move": null}));
}

#[test]
fn the_bot_command_chooses_a_legal_move_among_several() {
    let input = several_moves_input("hard", 9);
    let moves = answer("moves", &input);
    let chosen = answer("bot", &input);
    let legal = moves["moves"].as_array().unwrap();
    assert!(legal.len() > 1);
    assert!(legal.contains(&chosen["move"]), "{chosen} in {moves}");
}

#[test]
fn bad_bot_input_is_refused_with_one_line_and_status_2() {
    let mut bad: Vec<String> = [
        ("level", json!("genius")),
        ("level", json!(3)),
        ("seed", json!(-1)),
        ("seed", json!(1.5)),
        ("seed", json!("1")),
        ("roll", json!(7)),
        ("turn", json!("purple")),
    ]
    .into_iter()
    .map(|(key, value)| with(spec_input("hard"), key, value).to_string())
    .collect();
    for missing in ["level", "seed", "roll", "rules"] {
        let mut doc = spec_input("hard");
        doc.as_object_mut().unwrap().remove(missing);
        bad.push(doc.to_string());
    }
    bad.push("{".to_owned());
    bad.push(String::new());
    for input in bad {
        refused("bot", &input);
    }
}

fn tournament(rules: RuleSet, players: &str, games: u32, threads: usize) -> Tournament {
    Tournament {
        rules,
        players: players.split(',').map(|p| p.parse().unwrap()).collect(),
        games,
        seed: 3,
        threads,
    }
}

#[test]
fn a_tournament_gives_the_same_standings_on_one_thread_and_on_three() {
    for rules in [RuleSet::Classic(HouseRules::default()), RuleSet::Matfyz] {
        let one = tournament(rules, "medium,easy,random", 60, 1)
            .run()
            .unwrap();
        let three = tournament(rules, "medium,easy,random", 60, 3)
            .run()
            .unwrap();
        assert_eq!(one, three);
        assert_eq!(one.wins.iter().sum::<u32>() + one.unfinished, 60);
        assert_eq!(one.unfinished, 0);
        assert_eq!(one.rolls.len(), 60);
        if let RuleSet::Classic(_) = rules {
            // A winner's four pieces each go at least the 40 squares from
            // its start square into its home, six at most a roll.
            assert!(one.rolls.iter().all(|&r| r >= 4 * 40 / 6), "{one}");
        }
    }
}

#[test]
fn the_rollout_player_plays_whole_games_of_every_rule_set_alike_on_one_thread_and_on_two() {
    let rule_sets = [
        RuleSet::Classic(HouseRules::default()),
        RuleSet::Classic(HouseRules::CROATIAN),
        RuleSet::Matfyz,
    ];
    for rules in rule_sets {
        let one = tournament(rules, "rollout,medium", 2, 1).run().unwrap();
        let two = tournament(rules, "rollout,medium", 2, 2).run().unwrap();
        assert_eq!(one, two);
        assert_eq!(one.unfinished, 0);
    }
}

/// Head to head, each level wins more than half its games against the one
/// below, the whole 95% interval of its win rate above a half (classic;
/// Matfyz medium against easy, its hard player being costly in a debug
/// build): a level that lost its edge fails here, not only in the
/// tournaments of docs/performance.md. (Hard wins 59.8% of 10,000 such
/// games against medium there: over 240 games a hard player that kept its
/// edge clears the bar about nine times in ten, should a change of the
/// players deal other games, and one no stronger than medium one time in
/// forty; over the 120 before, it cleared a bar of 61 wins nearly half
/// the time.)
#[test]
fn each_level_beats_the_one_below_it() {
    let classic = RuleSet::Classic(HouseRules::default());
    for (rules, players, games, threads) in [
        (classic, "medium,easy", 400, 1),
        (RuleSet::Matfyz, "medium,easy", 400, 1),
        (classic, "hard,medium", 240, 2),
    ] {
        let standings = tournament(rules, players, games, threads).run().unwrap();
        eprintln!("{players}: {standings}");
        let (low, _) = clovece::bot::tournament::wilson(standings.wins[0], games);
        assert!(low > 0.5, "{players}: {standings}");
    }
}

#[test]
fn the_medium_player_wins_more_than_its_share_against_random_players() {
    let standings = tournament(
        RuleSet::Classic(HouseRules::default()),
        "medium,random,random,random",
        400,
        1,
    )
    .run()
    .unwrap();
    // Its share is 100 of 400; it measured 59.5% in 10,000 games.
    assert!(standings.wins[0] > 180, "{standings}");
}

#[test]
fn a_tournament_needs_two_to_four_players() {
    let rules = RuleSet::Classic(HouseRules::default());
    for players in ["hard", "easy,easy,easy,easy,easy"] {
        assert!(matches!(
            tournament(rules, players, 1, 1).run(),
            Err(TournamentError::Players(_))
        ));
    }
}

/// Runs `clovece tournament` with `args`.
fn tournament_command(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
        .arg("tournament")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_tournament_command_prints_a_table_with_intervals() {
    let out = tournament_command(&[
        "--rules",
        "matfyz",
        "--players",
        "medium,random",
        "--games",
        "20",
        "--threads",
        "1",
    ]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with("rules matfyz, house rules none, 2 players, 20 games, seed 1\n"));
    assert!(
        table.contains("| 1 medium |") && table.contains("| 2 random |"),
        "{table}"
    );
    assert!(table.contains('–'), "an interval: {table}");
}

#[test]
fn the_tournament_command_names_the_house_rules_in_force() {
    for (rules, house, said) in [
        ("croatian", "", "rules croatian, house rules no-jump-home,"),
        (
            "classic",
            "no-jump-home,compulsory-capture,",
            "rules classic, house rules compulsory-capture,no-jump-home,",
        ),
        ("classic", "", "rules classic, house rules none,"),
    ] {
        let out = tournament_command(&[
            "--rules",
            rules,
            &format!("--house={house}"),
            "--players",
            "easy,easy",
            "--games",
            "2",
            "--threads",
            "1",
        ]);
        let table = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{rules} {house}: {table}");
        assert!(table.starts_with(said), "{table}");
    }
}

#[test]
fn the_tournament_command_refuses_wrong_arguments() {
    for args in [
        &[
            "--rules",
            "matfyz",
            "--house",
            "no-jump-home",
            "--players",
            "easy,easy",
        ][..],
        &["--players", "easy,genius"][..],
        &["--players", "easy"][..],
        &["--house", "no-such-rule", "--players", "easy,easy"][..],
        &[
            "--rules",
            "croatian",
            "--house",
            "compulsory-capture",
            "--players",
            "easy,easy",
        ][..],
        &["--players", "easy,easy", "--threads", "0"][..],
        &["--players", "easy,easy", "--threads", "1000000"][..],
    ] {
        let out = tournament_command(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
