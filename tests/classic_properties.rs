//! Properties of the classic engine over many random games: pieces are
//! conserved, positions stay valid after every legal move, replaying a log
//! gives the same game, and random games always end.

use clovece::bench::roll;
use clovece::rules::classic::{Game, Phase, Position};
use clovece::rules::{Colour, HouseRules, Place, Seats};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Far more steps than any game needs (a random 4-player game rolls about
/// 500 times); reaching it means the game does not end.
const STEP_LIMIT: usize = 20_000;

/// One step of a game's log: a die value or the index of the chosen move.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Roll(u8),
    Move(usize),
}

fn house() -> impl Strategy<Value = HouseRules> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(c, o, n)| HouseRules {
        compulsory_capture: c,
        optional_bring_out: o,
        no_jump_home: n,
    })
}

/// The position rebuilt from its places must be valid and equal.
fn assert_valid(position: &Position) {
    let pieces: Vec<(Colour, Vec<Place>)> = position
        .seats()
        .iter()
        .map(|c| (c, position.places(c).to_vec()))
        .collect();
    let rebuilt = Position::new(position.seats(), position.turn(), &pieces)
        .unwrap_or_else(|e| panic!("invalid position {position:?}: {e}"));
    assert_eq!(&rebuilt, position);
}

/// How many of `colour`'s pieces are in base.
fn in_base(position: &Position, colour: Colour) -> usize {
    position
        .places(colour)
        .iter()
        .filter(|p| **p == Place::Base)
        .count()
}

/// `colour`'s pieces counted where they stand: in base and home by their
/// places, on the track by the squares' occupants, so that a piece the
/// places and the squares disagree on does not count as one.
fn pieces(position: &Position, colour: Colour) -> usize {
    let home = position
        .places(colour)
        .iter()
        .filter(|p| matches!(p, Place::Home(_)))
        .count();
    let track = (0..40)
        .filter(|&square| position.occupant(square) == Some(colour))
        .count();
    in_base(position, colour) + track + home
}

/// Plays a random game, checking every position, and returns its log.
fn random_game(house: HouseRules, seats: Seats, seed: u64) -> (Game, Vec<Step>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(house, Position::start(seats, Colour::Red).unwrap());
    let mut log = Vec::new();
    for _ in 0..STEP_LIMIT {
        match game.phase() {
            Phase::Roll { .. } => {
                let die = roll(&mut rng);
                game.roll(die).unwrap();
                log.push(Step::Roll(die.get()));
            }
            Phase::Move { .. } => {
                let moves = game.legal_moves();
                assert!(!moves.is_empty(), "a move is due only when one is legal");
                let pick = rng.next_u32() as usize % moves.len();
                game.play(moves.get(pick).unwrap()).unwrap();
                log.push(Step::Move(pick));
                assert_valid(game.position());
            }
            Phase::Won => return (game, log),
        }
    }
    panic!("a random game did not end within {STEP_LIMIT} steps");
}

fn replay(house: HouseRules, seats: Seats, log: &[Step]) -> Game {
    let mut game = Game::new(house, Position::start(seats, Colour::Red).unwrap());
    for step in log {
        match *step {
            Step::Roll(d) => {
                game.roll(clovece::rules::Die::new(d).unwrap()).unwrap();
            }
            Step::Move(i) => {
                game.play(game.legal_moves().get(i).unwrap()).unwrap();
            }
        }
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_games_end_with_valid_positions_and_replay_identically(
        house in house(),
        players in 2u8..=4,
        seed in any::<u64>(),
    ) {
        let seats = Seats::for_players(players).unwrap();
        let (game, log) = random_game(house, seats, seed);
        let winner = game.winner().expect("the game ended");
        prop_assert!(game.position().all_home(winner));
        prop_assert_eq!(replay(house, seats, &log), game);
    }

    #[test]
    fn every_legal_move_gives_a_valid_position(
        house in house(),
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
    ) {
        // A position from anywhere in a random game, its end included, then
        // every move for every roll from it.
        let seats = Seats::for_players(4).unwrap();
        let (_, log) = random_game(house, seats, seed);
        let game = replay(house, seats, &log[..cut.index(log.len() + 1)]);
        let before = game.position();
        for die in clovece::rules::Die::all() {
            for mv in before.legal_moves(house, die).iter() {
                let mut after = *before;
                after.apply(mv);
                assert_valid(&after);
                let victim = match mv.to() {
                    Place::Track(square) => before.occupant(square),
                    _ => None,
                };
                for colour in seats.iter() {
                    let (was, is) = (in_base(before, colour), in_base(&after, colour));
                    if colour == mv.colour() {
                        let brought_out = usize::from(mv.from() == Place::Base);
                        prop_assert_eq!(is + brought_out, was, "{:?}", mv);
                    } else {
                        let captured = usize::from(victim == Some(colour));
                        prop_assert_eq!(is, was + captured, "{:?}", mv);
                    }
                    prop_assert_eq!(pieces(&after, colour), 4, "{:?}", mv);
                }
            }
        }
    }
}

#[test]
fn the_phase_after_a_won_game_refuses_every_step() {
    let seats = Seats::for_players(2).unwrap();
    let (mut game, _) = random_game(HouseRules::default(), seats, 7);
    assert!(game.roll(clovece::rules::Die::SIX).is_err());
    assert!(game.legal_moves().is_empty());
}
