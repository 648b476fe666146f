//! Monte-Carlo rollouts on top of the hard player's evaluation (Tesauro and
//! Galperin's "on-line policy improvement"): each legal move is tried by
//! playing continuations from the position it leads to, every colour
//! moving greedily by [`Playable::evaluate`], and the move whose
//! continuations end best on average is played.
//!
//! It is the tournament player `rollout`, not a level: in 2,000-game
//! tournaments it did not beat the hard player's expectimax at any budget
//! tried (docs/bots.md, "What did not help"). It is kept so that those
//! figures can be reproduced and the idea taken up again with a better
//! evaluation.
//!
//! Three things keep the comparison between moves fair and cheap:
//! - **common random numbers**: the dice of every rollout are drawn once
//!   per decision and every candidate move meets the same ones, so the
//!   comparison sees what the moves change, not the luck of the dice;
//! - **a face per (turn, roll of the turn)**, not per count of rolls: a
//!   move that leaves its colour three tries for a six must not shift the
//!   dice of every later turn;
//! - **luck removed** (a control variate, as in backgammon rollouts): at
//!   each roll the continuation also plays the five faces that did not
//!   come, and the score is taken off by how much better the face that
//!   came did than the mean of all six. That leaves the expectation alone
//!   and takes most of the dice's noise out.
//!
//! The work is counted in rollouts and rounds of turns, never in time.

use super::playable::{Playable, Values};
use super::seeded;
use crate::rules::{Colour, Die, Next};

/// How far one decision looks ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Continuations played from each candidate move.
    pub rollouts: usize,
    /// A continuation stops when the turn passes on from the deciding
    /// colour after this many more turns of its own (0: when its present
    /// turn ends).
    pub rounds: usize,
}

/// The budget of the tournament player `rollout`: four rollouts of one
/// round. Sixteen rollouts, or two rounds, were no stronger (docs/bots.md).
pub const BUDGET: Budget = Budget {
    rollouts: 4,
    rounds: 1,
};

/// Rolls of one turn that have faces of their own; a longer run of sixes
/// ends the rollout there (taking them again from the first would never
/// end a Matfyz turn of eight sixes, where a six moves nothing).
const ROLLS_PER_TURN: usize = 8;
/// Turns in a round of the largest game.
const TURNS_PER_ROUND: usize = 4;

/// The dice of every rollout of one decision, drawn once from its seed and
/// replayed for each candidate move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dice {
    per_rollout: usize,
    faces: Vec<Die>,
}

impl Dice {
    /// The faces of `budget.rollouts` rollouts, from the decision's `seed`
    /// (a stream of its own, apart from the tie-break's).
    pub fn draw(seed: u64, budget: Budget) -> Dice {
        let mut rng = seeded::stream(seed, seeded::Stream::RolloutDice);
        // The present turn, then `rounds` rounds ending with the deciding
        // colour's own turn.
        let per_rollout = (1 + (budget.rounds * TURNS_PER_ROUND)) * ROLLS_PER_TURN;
        let faces = (0..budget.rollouts * per_rollout)
            .map(|_| seeded::die(&mut rng))
            .collect();
        Dice { per_rollout, faces }
    }

    /// One rollout's faces each.
    pub fn rollouts(&self) -> impl Iterator<Item = Faces<'_>> {
        self.faces
            .chunks(self.per_rollout)
            .map(|faces| Faces { faces })
    }
}

/// One rollout's faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Faces<'a> {
    faces: &'a [Die],
}

impl Faces<'_> {
    /// The face of roll `roll` (from 0) of turn `turn` (0: the present
    /// one), if the rollout has one.
    pub fn get(self, turn: usize, roll: usize) -> Option<Die> {
        if roll >= ROLLS_PER_TURN {
            return None;
        }
        self.faces.get(turn * ROLLS_PER_TURN + roll).copied()
    }
}

/// The indices of the moves whose rollouts score best for the colour to
/// move, in move order; empty when no move is due.
pub fn best_moves<G: Playable>(
    game: &G,
    moves: &[G::Move],
    seed: u64,
    budget: Budget,
) -> Vec<usize> {
    let Next::Move { seat } = game.next() else {
        return Vec::new();
    };
    let dice = Dice::draw(seed, budget);
    let mut best = Vec::new();
    let mut best_score = i64::MIN;
    for (i, &mv) in moves.iter().enumerate() {
        let Some(score) = score(game, mv, seat, &dice, budget.rounds) else {
            continue;
        };
        if score > best_score {
            best.clear();
            best_score = score;
        }
        if score == best_score {
            best.push(i);
        }
    }
    best
}

/// The sum of `mv`'s rollouts for `seat` over `dice`; `None` if the move
/// is not legal.
fn score<G: Playable>(
    game: &G,
    mv: G::Move,
    seat: Colour,
    dice: &Dice,
    rounds: usize,
) -> Option<i64> {
    let mut after = *game;
    if !after.play(mv) {
        return None;
    }
    Some(
        dice.rollouts()
            .map(|faces| rollout(after, seat, faces, rounds))
            .sum(),
    )
}

/// Plays `game` on with `faces`, every colour moving greedily, for
/// `rounds` more turns of `seat`; `seat`'s chance of winning where it
/// stopped ([`chance`], times six) less the luck of each roll.
pub fn rollout<G: Playable>(mut game: G, seat: Colour, faces: Faces, rounds: usize) -> i64 {
    let score = |values: Values| i64::from(chance(values.of(seat), G::LOGIT));
    let mut luck = 0;
    let mut values = None;
    let (mut turn, mut roll, mut round) = (0, 0, 0);
    let mut roller = seat;
    while let Next::Roll { seat: next, .. } = game.next() {
        if next != roller {
            if roller == seat && round == rounds {
                break;
            }
            (turn, roll, roller) = (turn + 1, 0, next);
            round += usize::from(next == seat);
        }
        let Some(face) = faces.get(turn, roll) else {
            break;
        };
        roll += 1;
        let mut sum = 0;
        let mut came = None;
        for die in Die::all() {
            let (child, child_values) = advance(game, die);
            sum += score(child_values);
            if die == face {
                came = Some((child, child_values));
            }
        }
        let Some((child, child_values)) = came else {
            break;
        };
        luck += 6 * score(child_values) - sum;
        game = child;
        values = Some(child_values);
    }
    6 * score(values.unwrap_or_else(|| game.evaluate())) - luck
}

/// Rolls `die` and plays greedy moves until the next roll or the end; the
/// game then and its values.
fn advance<G: Playable>(mut game: G, die: Die) -> (G, Values) {
    game.roll(die);
    let mut last = None;
    while let Next::Move { seat } = game.next() {
        let Some((next, values)) = greedy(&game, seat) else {
            break;
        };
        game = next;
        last = Some(values);
    }
    match (game.next(), last) {
        (Next::Roll { .. }, Some(values)) => (game, values),
        _ => {
            let values = game.evaluate();
            (game, values)
        }
    }
}

/// `seat`'s move to the position it values most, the first of equals (no
/// draw: the dice alone make rollouts differ); the game after it and its
/// values.
fn greedy<G: Playable>(game: &G, seat: Colour) -> Option<(G, Values)> {
    let mut best: Option<(G, Values)> = None;
    for mv in game.moves() {
        let mut after = *game;
        if !after.play(mv) {
            continue;
        }
        let values = after.evaluate();
        if best.is_none_or(|(_, b)| values.of(seat) > b.of(seat)) {
            best = Some((after, values));
        }
    }
    best
}

/// A colour's value (`logit` of it to a logit of winning, as
/// [`Playable::LOGIT`] says) as a chance of winning, in ten-thousandths: averaging chances over
/// rollouts counts a won game as one win, where averaging values would let
/// its huge value swamp every other rollout.
pub fn chance(value: i32, logit: i64) -> i32 {
    /// `10000 / (1 + e^(-v / 1000))` at `v` = -8000, -7750, ..., 8000
    /// thousandths of a logit.
    const LOGISTIC: [i32; 65] = [
        3, 4, 6, 7, 9, 12, 15, 19, 25, 32, 41, 52, 67, 86, 110, 141, 180, 230, 293, 373, 474, 601,
        759, 953, 1192, 1480, 1824, 2227, 2689, 3208, 3775, 4378, 5000, 5622, 6225, 6792, 7311,
        7773, 8176, 8520, 8808, 9047, 9241, 9399, 9526, 9627, 9707, 9770, 9820, 9859, 9890, 9914,
        9933, 9948, 9959, 9968, 9975, 9981, 9985, 9988, 9991, 9993, 9994, 9996, 9997,
    ];
    const STEP: i32 = 250;
    const LOW: i32 = -8000;
    let milli = i64::from(value) * 1000 / logit.max(1);
    let x = milli.clamp(i64::from(LOW), i64::from(-LOW - 1)) as i32 - LOW;
    let (i, within) = ((x / STEP) as usize, x % STEP);
    let (a, b) = (LOGISTIC[i], LOGISTIC[i + 1]);
    a + (b - a) * within / STEP
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::classic::{Game, HouseRules, Position};
    use crate::rules::{Place, Seats};

    /// Red to move after rolling `face`, with pieces on T5 and T12 (a 3
    /// takes the second onto blue's piece on T15).
    fn game(face: u8) -> Game {
        let seats = Seats::for_players(4).unwrap();
        let pieces: Vec<(Colour, Vec<Place>)> = [
            (Colour::Red, ["T5", "T12", "B", "B"]),
            (Colour::Blue, ["T15", "B", "B", "B"]),
            (Colour::Green, ["T25", "T28", "B", "B"]),
            (Colour::Yellow, ["T35", "B", "B", "B"]),
        ]
        .into_iter()
        .map(|(c, places)| (c, places.iter().map(|p| p.parse().unwrap()).collect()))
        .collect();
        let position = Position::new(seats, Colour::Red, &pieces).unwrap();
        let mut game = Game::new(HouseRules::default(), position);
        Playable::roll(&mut game, Die::new(face).unwrap());
        game
    }

    fn moves(game: &Game) -> Vec<crate::rules::classic::Move> {
        Playable::moves(game).collect()
    }

    #[test]
    fn the_dice_are_a_pure_function_of_the_seed() {
        assert_eq!(Dice::draw(3, BUDGET), Dice::draw(3, BUDGET));
        assert_ne!(Dice::draw(3, BUDGET), Dice::draw(4, BUDGET));
        assert_eq!(Dice::draw(3, BUDGET).rollouts().count(), BUDGET.rollouts);
    }

    #[test]
    fn every_candidate_meets_the_same_dice_whatever_the_order_it_is_tried_in() {
        let game = game(3);
        let moves = moves(&game);
        assert_eq!(moves.len(), 2);
        let budget = Budget {
            rollouts: 8,
            rounds: 1,
        };
        let dice = Dice::draw(9, budget);
        let alone: Vec<i64> = moves
            .iter()
            .map(|&mv| score(&game, mv, Colour::Red, &Dice::draw(9, budget), 1).unwrap())
            .collect();
        let shared: Vec<i64> = moves
            .iter()
            .rev()
            .map(|&mv| score(&game, mv, Colour::Red, &dice, 1).unwrap())
            .collect();
        assert_eq!(alone, shared.into_iter().rev().collect::<Vec<_>>());
        let reversed: Vec<_> = moves.iter().rev().copied().collect();
        let best = best_moves(&game, &moves, 9, budget);
        let best_reversed = best_moves(&game, &reversed, 9, budget);
        assert_eq!(
            best.iter().map(|&i| moves[i]).collect::<Vec<_>>(),
            best_reversed
                .iter()
                .rev()
                .map(|&i| reversed[i])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_face_belongs_to_a_turn_and_a_roll_of_it_not_to_a_count_of_rolls() {
        let dice = Dice::draw(5, BUDGET);
        let faces = dice.rollouts().next().unwrap();
        let all = &dice.faces;
        assert_eq!(faces.get(0, 0), Some(all[0]));
        assert_eq!(faces.get(1, 0), Some(all[ROLLS_PER_TURN]));
        assert_eq!(faces.get(1, 2), Some(all[ROLLS_PER_TURN + 2]));
        // A run of sixes longer than a turn's faces has none.
        assert_eq!(faces.get(1, ROLLS_PER_TURN), None);
        // Past the budget's turns there are no faces.
        assert_eq!(faces.get(1 + BUDGET.rounds * TURNS_PER_ROUND, 0), None);
    }

    /// A Matfyz six moves nothing and rolls again: a turn of sixes past its
    /// faces ends the rollout rather than rolling them for ever.
    #[test]
    fn a_matfyz_turn_of_sixes_past_its_faces_ends_the_rollout() {
        use crate::rules::matfyz;
        static SIXES: [Die; 5 * ROLLS_PER_TURN] = [Die::SIX; 5 * ROLLS_PER_TURN];
        let seats = Seats::for_players(2).unwrap();
        let game = matfyz::Game::new(matfyz::Position::start(seats, Colour::Red).unwrap());
        crate::bot::tests::ends(move || rollout(game, Colour::Red, Faces { faces: &SIXES }, 1));
    }

    #[test]
    fn a_rollout_of_no_rounds_scores_the_position_where_the_turn_passes() {
        let mut after = game(3);
        let mv = moves(&after)[0];
        assert!(Playable::play(&mut after, mv));
        assert!(matches!(
            after.next(),
            Next::Roll {
                seat: Colour::Blue,
                ..
            }
        ));
        let dice = Dice::draw(1, BUDGET);
        for faces in dice.rollouts() {
            let expected = 6 * i64::from(chance(after.evaluate().of(Colour::Red), Game::LOGIT));
            assert_eq!(rollout(after, Colour::Red, faces, 0), expected);
        }
    }

    #[test]
    fn a_rollout_plays_on_through_the_other_colours_turns_within_its_round() {
        let mut after = game(3);
        let mv = moves(&after)[0];
        assert!(Playable::play(&mut after, mv));
        let dice = Dice::draw(1, BUDGET);
        let standing = 6 * i64::from(chance(after.evaluate().of(Colour::Red), Game::LOGIT));
        let moved: Vec<i64> = dice
            .rollouts()
            .map(|faces| rollout(after, Colour::Red, faces, 1))
            .collect();
        assert!(moved.iter().any(|&s| s != standing), "{moved:?}");
    }

    #[test]
    fn after_a_six_the_rollout_scores_the_mean_of_the_next_roll_without_its_luck() {
        // Red rolled a six and moves; it rolls again, and with no rounds the
        // rollout stops after that turn. Luck removed, the last roll counts
        // as the mean of its six faces whichever face came, so rollouts
        // whose extra roll is not a six all score the same.
        let mut after = game(6);
        let mv = moves(&after)[0];
        assert!(Playable::play(&mut after, mv));
        assert!(matches!(
            after.next(),
            Next::Roll {
                seat: Colour::Red,
                ..
            }
        ));
        let dice = Dice::draw(
            2,
            Budget {
                rollouts: 40,
                rounds: 0,
            },
        );
        let scores: Vec<i64> = dice
            .rollouts()
            .filter(|faces| faces.get(0, 0) != Some(Die::SIX))
            .map(|faces| rollout(after, Colour::Red, faces, 0))
            .collect();
        assert!(scores.len() > 1);
        assert!(scores.iter().all(|&s| s == scores[0]), "{scores:?}");
    }

    #[test]
    fn chance_is_the_logistic_of_the_value_in_logits() {
        assert_eq!(chance(0, 65_536), 5000);
        assert_eq!(chance(65_536, 65_536), 7311);
        assert_eq!(chance(-65_536, 65_536), 2689);
        assert_eq!(chance(-16, 16), 2689);
        assert_eq!(chance(i32::MAX, 65_536), 9996);
        assert_eq!(chance(i32::MIN, 1), 3);
        let values = (-600_000..600_000).step_by(977);
        let chances: Vec<i32> = values.map(|v| chance(v, 65_536)).collect();
        assert!(chances.windows(2).all(|w| w[0] <= w[1]));
    }
}
