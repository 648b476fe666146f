//! What the computer players need from a rule set. Each rule set implements
//! [`Playable`] once (its turn flow plus two heuristics), and every level is
//! written once on top of it.

use crate::rules::{Colour, Die, Next, Seats};

/// A game under one rule set, as the computer players drive it. Small and
/// `Copy`, so that a search can try a roll or a move on a copy.
pub trait Playable: Copy {
    type Move: Copy + PartialEq;

    /// What the game waits for.
    fn next(&self) -> Next;

    /// Rolls `die`; only called when a roll is due.
    fn roll(&mut self, die: Die);

    /// The legal moves, in the rule set's fixed order; empty unless a move
    /// is due.
    fn moves(&self) -> impl Iterator<Item = Self::Move>;

    /// Plays a legal move; false (and nothing changes) if it is not legal.
    fn play(&mut self, mv: Self::Move) -> bool;

    /// The medium player's rule-of-thumb score of a legal move for the
    /// colour to move: higher is better.
    fn rate(&self, mv: Self::Move) -> i32;

    /// How good the game looks for each colour: the hard player's leaf
    /// evaluation. Comparable across positions of one game.
    fn evaluate(&self) -> Values;

    /// How much of [`Playable::evaluate`]'s value is worth one logit of
    /// winning: what turns a value into a chance of winning.
    const LOGIT: i64;
}

/// A value for each colour (indexed by [`Colour::index`]; unseated colours
/// hold 0). Integers, so that every platform compares them alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Values([i32; 4]);

/// What a win is worth: more than any position short of it.
const WIN: i32 = 1 << 30;

/// One logit in [`Values::from_scores`]'s fixed point.
pub const LOGIT_UNIT: i64 = 1 << 16;

/// `ln(e^a + e^b)` in [`LOGIT_UNIT`]ths, in integers: the larger plus
/// `ln(1 + e^-d)` for their difference `d`, read from a table at every
/// eighth of a logit up to 8 logits (beyond, under 1/2000 of a logit, it
/// counts as nothing) and interpolated in between.
fn log_sum_exp(a: i64, b: i64) -> i64 {
    /// `round(65536 ln(1 + e^(-k/8)))` for k = 0..=64.
    const SOFTPLUS: [i64; 65] = [
        45426, 41458, 37745, 34283, 31069, 28095, 25354, 22836, 20530, 18425, 16510, 14773, 13200,
        11780, 10500, 9350, 8318, 7394, 6567, 5829, 5170, 4583, 4061, 3597, 3184, 2818, 2493, 2205,
        1950, 1724, 1523, 1346, 1189, 1051, 928, 820, 724, 639, 565, 498, 440, 389, 343, 303, 267,
        236, 208, 184, 162, 143, 126, 112, 98, 87, 77, 68, 60, 53, 47, 41, 36, 32, 28, 25, 22,
    ];
    const STEP: i64 = LOGIT_UNIT / 8;
    // Clamped before the cast, so that a 32-bit phone reads the same
    // entry (none) as a 64-bit one for any difference.
    let d = (a - b).abs().min(STEP * SOFTPLUS.len() as i64);
    let k = (d / STEP) as usize;
    let within = d % STEP;
    let extra = match (SOFTPLUS.get(k), SOFTPLUS.get(k + 1)) {
        (Some(&lo), Some(&hi)) => lo + (hi - lo) * within / STEP,
        _ => 0,
    };
    a.max(b) + extra
}

impl Values {
    /// The value of `colour`.
    pub fn of(self, colour: Colour) -> i32 {
        self.0[colour.index()]
    }

    /// The game is over and `winner` has won.
    pub fn won(seats: Seats, winner: Colour) -> Values {
        let mut values = [0; 4];
        for c in seats.iter() {
            values[c.index()] = if c == winner { WIN } else { -WIN };
        }
        Values(values)
    }

    /// Values from each colour's remaining cost (lower is better: the work
    /// still to do). Only one colour wins, so a colour's value is how far it
    /// is ahead of the others: half against the best of them (whom it must
    /// beat) and half against their mean (anyone's loss is a little gain).
    pub fn from_costs(seats: Seats, cost: [i32; 4]) -> Values {
        let mut values = [0; 4];
        let others = seats.len() as i64 - 1;
        for c in seats.iter() {
            let rest = seats
                .iter()
                .filter(|&o| o != c)
                .map(|o| i64::from(cost[o.index()]));
            let best = rest.clone().min().unwrap_or(0);
            let mean = rest.sum::<i64>() / others;
            let value = (best + mean) / 2 - i64::from(cost[c.index()]);
            values[c.index()] = value.clamp(i64::from(-WIN + 1), i64::from(WIN - 1)) as i32;
        }
        Values(values)
    }

    /// Values from each colour's score in a softmax model of who wins (a
    /// colour wins with chance `e^s / Σ e^s`, scores in [`LOGIT_UNIT`]ths of
    /// a logit): each colour's value is the logit of its chance,
    /// `s - ln Σ_others e^s`, so that ranking by value is ranking by chance.
    pub fn from_scores(seats: Seats, scores: [i64; 4]) -> Values {
        let mut values = [0; 4];
        for c in seats.iter() {
            let others = seats
                .iter()
                .filter(|&o| o != c)
                .map(|o| scores[o.index()])
                .reduce(log_sum_exp)
                .unwrap_or(0);
            let value = scores[c.index()] - others;
            values[c.index()] = value.clamp(i64::from(-WIN + 1), i64::from(WIN - 1)) as i32;
        }
        Values(values)
    }

    /// The mean of two evaluations of one position.
    pub fn mean(a: Values, b: Values) -> Values {
        let mut values = [0; 4];
        for (v, (a, b)) in values.iter_mut().zip(a.0.into_iter().zip(b.0)) {
            *v = ((i64::from(a) + i64::from(b)) / 2) as i32;
        }
        Values(values)
    }

    /// The mean of six values (one per face of the die).
    pub fn mean_of_six(sum: [i64; 4]) -> Values {
        Values(sum.map(|s| (s / 6) as i32))
    }

    /// Adds these values to a running sum.
    pub fn add_to(self, sum: &mut [i64; 4]) {
        for (s, v) in sum.iter_mut().zip(self.0) {
            *s += i64::from(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sum_exp_adds_ln_2_to_equal_scores_and_nothing_to_far_apart_ones() {
        // ln 2 = 0.6931 logits.
        assert_eq!(log_sum_exp(0, 0), 45426);
        assert_eq!(log_sum_exp(7, 7), 7 + 45426);
        assert_eq!(log_sum_exp(9 * LOGIT_UNIT, 0), 9 * LOGIT_UNIT);
        // Halfway between two table entries: the mean of the two.
        let half = LOGIT_UNIT / 16;
        assert_eq!(log_sum_exp(half, 0), half + (45426 + 41458) / 2);
    }

    #[test]
    fn the_mean_of_two_evaluations_is_taken_colour_by_colour() {
        let seats = Seats::for_players(2).unwrap();
        let won = Values::won(seats, Colour::Red);
        let scores = Values::from_scores(seats, [300, 0, 100, 0]);
        let mean = Values::mean(won, scores);
        assert_eq!(mean.of(Colour::Red), (WIN + 200) / 2);
        assert_eq!(mean.of(Colour::Green), (-WIN - 200) / 2);
    }
}
