//! The game log over a simulated network of 2–4 phones: with no faults,
//! with each kind of fault on its own, and with random faults over many
//! seeded games. Every honest phone must end with the identical log and
//! result.

use clovece::protocol::sim::{Config, Faults, Outcome, Sim};
use clovece::protocol::{Colours, End, TurnTimer, may_certify};
use clovece::rules::{Colour, FirstPlayer, HouseRules, RuleSet, Seats};
use proptest::prelude::*;

fn seats(n: u8) -> Seats {
    Seats::for_players(n).unwrap()
}

fn run(config: Config) -> Outcome {
    Sim::new(config).unwrap().run()
}

/// Every phone still in the game ended over with one log and one result,
/// and no honest phone refused anything.
fn assert_agreed(outcome: &Outcome) -> End {
    assert!(outcome.converged, "did not converge: {:?}", outcome.refused);
    assert!(outcome.refused.is_empty(), "{:?}", outcome.refused);
    let (_, first) = &outcome.logs[0];
    assert!(outcome.logs.iter().all(|(_, log)| log == first));
    let result = outcome.results[0].1.clone().expect("the game is over");
    assert!(
        outcome
            .results
            .iter()
            .all(|(_, r)| r.as_ref() == Some(&result))
    );
    result.end
}

/// A config whose phones save under a fresh folder in memory (tmpfs when
/// there is one), for faults that crash phones.
fn on_disk(config: Config) -> (Config, tempfile::TempDir) {
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    let config = Config {
        dir: Some(dir.path().to_owned()),
        ..config
    };
    (config, dir)
}

#[test]
fn phones_without_faults_agree_on_the_whole_game() {
    for n in 2..=4 {
        let outcome = run(Config::new(n as u64, seats(n)));
        let End::Won(winner) = assert_agreed(&outcome) else {
            panic!("no winner");
        };
        // Every phone still has the game as it ended, which it shows.
        for (_, state) in &outcome.states {
            let game = state.game().expect("the game as it ended");
            assert_eq!(game.next(), clovece::rules::Next::Won { winner });
        }
        // Each player signed the result, and every phone has every
        // signature.
        for (_, signed) in &outcome.signed {
            let signed = signed.as_ref().unwrap();
            assert_eq!(signed.signers(), seats(n).iter().collect::<Colours>());
        }
    }
}

/// About one message per roll and phone: the roller's entry and every
/// other phone's reveal, and a few reveals sent again when a status crosses
/// them on the way (1.013–1.026 in the games of seeds 1–8 of four phones).
const ONE_PER_ROLL: std::ops::Range<f64> = 1.0..1.04;

/// Roll entries and reveals sent, per roll and phone.
fn messages_per_roll_per_phone(outcome: &Outcome, phones: u64) -> f64 {
    let rolls = outcome.results[0].1.as_ref().unwrap().rolls;
    let t = outcome.traffic;
    (t.rolls + t.reveals) as f64 / (f64::from(rolls) * phones as f64)
}

#[test]
fn one_message_per_roll_per_phone_without_faults() {
    let outcome = run(Config::new(5, seats(4)));
    assert_agreed(&outcome);
    let per_phone = messages_per_roll_per_phone(&outcome, 4);
    assert!(ONE_PER_ROLL.contains(&per_phone), "{per_phone}");
}

#[test]
fn lost_messages_are_sent_again() {
    for n in 2..=4 {
        let mut config = Config::new(20 + n as u64, seats(n));
        config.faults = Faults {
            drop: 250,
            ..Faults::default()
        };
        assert_agreed(&run(config));
    }
}

#[test]
fn duplicated_messages_are_harmless() {
    let mut config = Config::new(30, seats(4));
    config.faults = Faults {
        duplicate: 500,
        ..Faults::default()
    };
    assert_agreed(&run(config));
}

#[test]
fn delayed_and_reordered_messages_are_harmless() {
    let mut config = Config::new(31, seats(3));
    config.faults = Faults {
        max_delay: 3_000,
        ..Faults::default()
    };
    assert_agreed(&run(config));
}

#[test]
fn a_partition_heals_into_one_log() {
    let mut taken_over = 0;
    for seed in 40..46 {
        let n = 2 + (seed % 3) as u8;
        let mut config = Config::new(seed, seats(n));
        config.faults = Faults {
            partition: true,
            max_delay: 50,
            ..Faults::default()
        };
        let outcome = run(config);
        assert_agreed(&outcome);
        let result = outcome.results[0].1.as_ref().unwrap();
        taken_over += result.absences.iter().sum::<u16>();
    }
    // Some partitions lasted past the grace period, so one side took over
    // the other's seats, and the sides still ended on one log.
    assert!(taken_over > 0);
}

#[test]
fn a_crashed_phone_restarts_from_disk_and_continues() {
    for seed in 50..54 {
        let n = 2 + (seed % 3) as u8;
        let mut config = Config::new(seed, seats(n));
        config.faults = Faults {
            crash: true,
            drop: 50,
            ..Faults::default()
        };
        let (config, _dir) = on_disk(config);
        let outcome = run(config);
        assert_agreed(&outcome);
        // The crash fell inside the game, and the phone came back from its
        // files (a failed restart is in `refused`).
        assert_eq!(outcome.restarts, 1, "seed {seed}");
    }
}

#[test]
fn a_phone_gone_for_good_is_played_by_the_computer() {
    let mut config = Config::new(60, seats(3));
    config.vanish = Some((Colours::one(Colour::Blue), 30_000));
    let outcome = run(config);
    assert_agreed(&outcome);
    let result = outcome.results[0].1.as_ref().unwrap();
    assert_eq!(result.absences[Colour::Blue.index()], 1);
    assert!(result.left.is_empty());
    assert_eq!(outcome.logs.len(), 2);
}

#[test]
fn in_a_two_player_game_the_other_phone_plays_on() {
    let mut config = Config::new(61, seats(2));
    config.vanish = Some((Colours::one(Colour::Green), 20_000));
    let outcome = run(config);
    assert_agreed(&outcome);
    assert_eq!(outcome.results[0].1.as_ref().unwrap().absences[2], 1);
}

#[test]
fn a_phone_left_alone_among_three_waits_for_the_others() {
    // It may not vote two of three players gone on its own, so the
    // computer never takes their seats: the game waits (the app says so
    // and offers Leave).
    let mut config = Config::new(62, seats(3));
    let all: Colours = config.seats.iter().collect();
    let me = config.seats.iter().next().unwrap();
    let others = all.without(me);
    config.vanish = Some((others, 20_000));
    config.limit = 10 * 60 * 1000;
    let outcome = run(config);
    assert!(!outcome.converged);
    let [(seat, state)] = outcome.states.as_slice() else {
        panic!("one phone is left: {:?}", outcome.states);
    };
    assert_eq!(*seat, me);
    assert_eq!(state.present(), all, "nobody was certified gone");
    assert!(!may_certify(all, others));
    assert!(outcome.results[0].1.is_none(), "no end without the others");
}

#[test]
fn a_player_who_leaves_becomes_a_computer_seat() {
    let mut config = Config::new(62, seats(4));
    config.leave = Some((Colour::Yellow, 50));
    let outcome = run(config);
    assert_agreed(&outcome);
    let result = outcome.results[0].1.as_ref().unwrap();
    assert_eq!(result.left, Colours::one(Colour::Yellow));
    assert_eq!(result.placings[Colour::Yellow.index()], Some(3));
}

#[test]
fn the_turn_timer_makes_an_idle_players_turns() {
    let mut config = Config::new(63, seats(2));
    config.timer = TurnTimer::Seconds10;
    config.idle = Colours::one(Colour::Red);
    let outcome = run(config);
    assert_agreed(&outcome);
    // Red's phone stayed, so red was never certified gone: its own phone
    // played the computer's moves when the timer ran out.
    let result = outcome.results[0].1.as_ref().unwrap();
    assert_eq!(result.absences, [0; 4]);
}

#[test]
fn computer_seats_cost_no_messages() {
    let mut config = Config::new(64, seats(4));
    config.computers = Colours::one(Colour::Blue).with(Colour::Yellow);
    let outcome = run(config);
    assert_agreed(&outcome);
    // Two phones: each roll costs one message from each.
    let per_phone = messages_per_roll_per_phone(&outcome, 2);
    assert!(ONE_PER_ROLL.contains(&per_phone), "{per_phone}");
}

#[test]
fn every_first_player_rule_and_house_rule_plays_through() {
    let rules = [
        (FirstPlayer::Red, HouseRules::default()),
        (FirstPlayer::HighestRoll, HouseRules::default()),
        (FirstPlayer::FirstSix, HouseRules::CROATIAN),
        (
            FirstPlayer::Random,
            HouseRules {
                compulsory_capture: true,
                optional_bring_out: true,
                no_jump_home: false,
            },
        ),
    ];
    for (i, (first, house)) in rules.into_iter().enumerate() {
        let mut config = Config::new(70 + i as u64, seats(3));
        config.first = first;
        config.rules = RuleSet::Classic(house);
        assert_agreed(&run(config));
    }
}

#[test]
fn the_matfyz_rules_play_through_the_same_log() {
    for n in [2, 4] {
        let mut config = Config::new(90 + n as u64, seats(n));
        config.rules = RuleSet::Matfyz;
        config.first = FirstPlayer::HighestRoll;
        config.faults = Faults {
            drop: 100,
            duplicate: 100,
            max_delay: 300,
            ..Faults::default()
        };
        assert!(matches!(assert_agreed(&run(config)), End::Won(_)));
    }
}

#[test]
fn a_game_that_runs_out_of_dice_ends_without_a_winner() {
    let mut config = Config::new(80, seats(2));
    config.rolls = 40;
    let outcome = run(config);
    assert_eq!(assert_agreed(&outcome), End::OutOfDice);
}

/// One seeded game of 2–4 phones, some of them computer seats, with random
/// faults.
fn random_game(seed: u64) -> Outcome {
    let n = 2 + (seed % 3) as u8;
    let mut config = Config::new(seed, seats(n));
    config.faults = Faults::random(seed);
    // Now and then a computer seat (red stays a phone), or the Matfyz
    // rules.
    if seed.is_multiple_of(5) {
        config.computers = Colours::one(Colour::Green);
    }
    if seed % 4 == 3 {
        config.rules = RuleSet::Matfyz;
        config.first = FirstPlayer::HighestRoll;
    }
    let (config, _dir) = on_disk(config);
    let outcome = run(config);
    assert!(
        outcome.converged && outcome.refused.is_empty(),
        "seed {seed}: {:?} {:?}",
        Faults::random(seed),
        outcome.refused
    );
    assert_agreed(&outcome);
    // Nobody leaves here, so a seat the computer took for good would be an
    // honest phone taken for a cheater.
    let result = outcome.results[0].1.as_ref().expect("the game is over");
    assert!(
        result.left.is_empty(),
        "seed {seed}: {:?} left",
        result.left
    );
    outcome
}

/// A partition long enough for both sides to play more than one catch-up
/// batch past their fork (the first entry of one side that the other
/// could not place was 317, the fork lies before 175). Both phones went
/// back before the fork and asked on from the end of their own log, past
/// the fork again, for ever: two games ended on two logs, with 551 MB of
/// catch-up between them in 20 simulated minutes. Found by
/// `random_faults_end_in_one_log` on CI. Now the game ends on one log with
/// 433 KB of messages in all (214 of them catch-up).
#[test]
fn a_fork_further_back_than_one_batch_is_found() {
    let outcome = random_game(3_870_521_419_573_442_800);
    assert!(outcome.traffic.bytes < 2_000_000, "{:?}", outcome.traffic);
}

proptest! {
    // A smaller seed is just another game, so shrinking one that failed
    // only spends time (each run of one that does not converge takes
    // minutes); the message names the seed to add as a test.
    #![proptest_config(ProptestConfig {
        cases: 16,
        max_shrink_iters: 0,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_faults_end_in_one_log(seed in any::<u64>()) {
        random_game(seed);
    }
}

/// The long run: 1,000 seeded games with random faults, on every core
/// (about 4 minutes of CPU in the debug profile).
#[test]
#[ignore]
fn a_thousand_games_with_random_faults_end_in_one_log() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    std::thread::scope(|scope| {
        for first in 0..threads {
            scope.spawn(move || {
                for seed in (first..1_000).step_by(threads as usize) {
                    random_game(seed);
                }
            });
        }
    });
}

/// A phone that crashes in the ten seconds after the game's end (the only
/// phone of a game with a computer seat, here: the end at 79.2 s, the
/// crash at 83.4 s) is waited for: it comes back on the same log. The run
/// used to stop with it down, a failure that proptest found with another
/// seed, whose game now ends before its crash.
#[test]
fn a_phone_crashing_just_after_the_end_comes_back_on_the_one_log() {
    let outcome = random_game(SEED_CRASHING_AFTER_THE_END);
    assert_eq!(outcome.restarts, 1);
    let (ended, crashed) = (outcome.ended.unwrap(), outcome.crashed.unwrap());
    assert!(
        ended < crashed && crashed < ended + 10_000,
        "the end at {ended} ms, the crash at {crashed} ms"
    );
}

/// A seed of `random_game` whose one phone crashes in the ten seconds
/// after the end. The game a seed plays changes with the computer players
/// (450 was one until the easy player's ties changed) and with the
/// protocol's version, which is in the game's id and so in its dice (3,570
/// was one until version 8), and the test checks that it still is one.
const SEED_CRASHING_AFTER_THE_END: u64 = 16_560;

/// Finds seeds for the test above: `CLOVECE_FIND_SEEDS=1 cargo test --test
/// protocol_sim seeds_crashing_after_the_end -- --ignored --nocapture`.
/// (A maintainer's tool, not a soak: `.ci/run` names the soak alone.)
#[test]
#[ignore]
fn seeds_crashing_after_the_end() {
    if std::env::var_os("CLOVECE_FIND_SEEDS").is_none() {
        eprintln!("skipped: CLOVECE_FIND_SEEDS=1 runs it");
        return;
    }
    // Two phones' worth of seats with a computer's, classic rules.
    for seed in (0..30_000).step_by(15).filter(|s| s % 4 != 3) {
        let outcome = random_game(seed);
        if let (Some(ended), Some(crashed)) = (outcome.ended, outcome.crashed)
            && ended < crashed
            && crashed < ended + 10_000
        {
            println!("seed {seed}: the end at {ended} ms, the crash at {crashed} ms");
        }
    }
}

/// A phone gone for good while messages are being lost: its last reveal
/// may have reached one of the others only, who must pass it on, or the two
/// would never agree on whom the game waits for.
#[test]
fn a_phone_gone_for_good_amid_lost_messages_is_played_by_the_computer() {
    for seed in 0..40 {
        let mut config = Config::new(700 + seed, seats(3));
        config.faults = Faults {
            drop: 300,
            ..Faults::default()
        };
        config.vanish = Some((Colours::one(Colour::Blue), 5_000 + seed * 1_237));
        let outcome = run(config);
        assert!(outcome.converged, "seed {seed} did not converge");
        assert_agreed(&outcome);
        // Blue went inside the game, and the computer played its seat:
        // an absence, not a leave.
        let result = outcome.results[0].1.as_ref().unwrap();
        assert_eq!(result.absences[Colour::Blue.index()], 1, "seed {seed}");
        assert!(result.left.is_empty(), "seed {seed}");
    }
}
