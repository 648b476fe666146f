//! The race table: for every placement of one colour's four pieces, the
//! expected number of turns that colour needs to bring them all home when
//! it plays alone and as well as possible. It is what a position is worth
//! before anyone is captured, with every rule of the race in it (sixes to
//! come out, the extra roll, three tries, exact rolls into the home row,
//! the house rules) because it is computed with the rules engine itself.
//!
//! Pieces only move forward when a colour plays alone, so the table is
//! filled from the most advanced placements back, in integer fixed point
//! (every platform gets the same table).

use std::sync::OnceLock;

use crate::rules::board::{Colour, Die, Place, Seats, TRACK_LEN};
use crate::rules::classic::{HouseRules, Position};

/// One turn, in the table's fixed point.
pub const TURN: i64 = 1 << 16;
/// Progress of the deepest home square.
const GOAL: u8 = 44;
/// Turns recorded for a placement that can never finish (none exists under
/// the rules, but the table must not divide by zero).
const NEVER: i64 = 1000 * TURN;
/// Placements: 0..=4 pieces out of base, on distinct squares 1..=44.
const STATES: usize = 1 + 44 + 946 + 13_244 + 135_751;

/// Expected turns to finish, per placement.
pub struct Race {
    turns: Vec<i32>,
}

impl Race {
    /// The table for these house rules (built once per process; only the
    /// rules that change a lone colour's moves make a difference).
    pub fn get(house: HouseRules) -> &'static Race {
        static TABLES: [OnceLock<Race>; 4] = [const { OnceLock::new() }; 4];
        let solo = HouseRules {
            compulsory_capture: false,
            ..house
        };
        let slot = usize::from(solo.optional_bring_out) * 2 + usize::from(solo.no_jump_home);
        TABLES[slot].get_or_init(|| Race::build(solo))
    }

    /// Expected turns (fixed point, [`TURN`] a turn) for a colour whose
    /// pieces have these progresses (any order), counted from the start of
    /// its turn.
    pub fn turns(&self, spots: [u8; 4]) -> i64 {
        i64::from(self.turns[index(spots)])
    }

    fn build(house: HouseRules) -> Race {
        let mut states = placements();
        // Successors have a larger total progress: fill those first.
        states.sort_by_key(|s| std::cmp::Reverse(s.iter().map(|&x| u32::from(x)).sum::<u32>()));
        let mut turns = vec![0i32; STATES];
        for spots in states {
            turns[index(spots)] = expected_turns(house, spots, &turns) as i32;
        }
        Race { turns }
    }
}

/// Index of a placement: how many pieces are out, then the rank of their
/// squares in the combinatorial number system.
fn index(mut spots: [u8; 4]) -> usize {
    spots.sort_unstable();
    let mut index = 0;
    let mut rank = 0;
    for &s in spots.iter().filter(|&&s| s > 0) {
        index += BINOMIAL[44][rank];
        rank += 1;
        index += BINOMIAL[usize::from(s) - 1][rank];
    }
    // Offsets so far counted C(44, 0..rank); the ranks counted the rest.
    index
}

/// Binomial coefficients C(n, k) for n ≤ 44, k ≤ 4.
const BINOMIAL: [[usize; 5]; 45] = {
    let mut table = [[0; 5]; 45];
    let mut n = 0;
    while n < 45 {
        table[n][0] = 1;
        let mut k = 1;
        while k < 5 {
            table[n][k] = if n == 0 {
                0
            } else {
                table[n - 1][k - 1] + table[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    table
};

/// Expected turns from `spots` at the start of a turn, given the values of
/// every more advanced placement.
fn expected_turns(house: HouseRules, spots: [u8; 4], turns: &[i32]) -> i64 {
    if spots.iter().all(|&s| s > TRACK_LEN) {
        return 0;
    }
    let Some(position) = solo_position(spots) else {
        return NEVER;
    };
    // The cost of the best move with each face, or None if it cannot move.
    let best: Vec<Option<i64>> = Die::all()
        .map(|die| {
            position
                .legal_moves(house, die)
                .iter()
                .map(|mv| {
                    let (from, to) = mv.progress();
                    let mut next = spots;
                    if let Some(s) = next.iter_mut().find(|s| **s == from) {
                        *s = to;
                    }
                    let rest = i64::from(turns[index(next)]);
                    match (rest, die.is_six()) {
                        (0, _) => TURN,
                        (_, true) => rest,
                        (_, false) => TURN + rest,
                    }
                })
                .min()
        })
        .collect();
    let waits = position.waits_for_six(house);
    // Within the turn, attempt a (3, 2, 1) is worth p + q/216 × T, where T
    // is this placement's value: a lost turn costs one turn and starts over.
    let (mut p, mut q) = (0i64, 0i64);
    for attempt in (1..=3).rev() {
        let stuck = best.iter().filter(|b| b.is_none()).count() as i64;
        let moving: i64 = best.iter().flatten().sum();
        (p, q) = if waits && attempt < 3 {
            ((moving + stuck * p) / 6, stuck * q / 6)
        } else {
            ((moving + stuck * TURN) / 6, stuck * 36)
        };
    }
    if q >= 216 { NEVER } else { p * 216 / (216 - q) }
}

/// A position where red has pieces at `spots` and green, the only other
/// colour, waits in base (and so never meets red).
fn solo_position(spots: [u8; 4]) -> Option<Position> {
    let places = spots
        .iter()
        .map(|&s| match s {
            0 => Place::Base,
            1..=TRACK_LEN => Place::Track(s - 1),
            _ => Place::Home(s - TRACK_LEN),
        })
        .collect();
    let seats = Seats::for_players(2)?;
    let pieces = [(Colour::Red, places), (Colour::Green, vec![Place::Base; 4])];
    Position::new(seats, Colour::Red, &pieces).ok()
}

/// Every placement of four pieces as sorted progresses (0 in base, which
/// any number may share; no two on one square elsewhere).
fn placements() -> Vec<[u8; 4]> {
    let mut all = Vec::with_capacity(STATES);
    for a in 0..=GOAL {
        for b in a..=GOAL {
            for c in b..=GOAL {
                for d in c..=GOAL {
                    let s = [a, b, c, d];
                    if s.windows(2).all(|w| w[0] == 0 || w[0] != w[1]) {
                        all.push(s);
                    }
                }
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_numbers_every_placement_once() {
        let mut seen = vec![false; STATES];
        for s in placements() {
            let i = index(s);
            assert!(!seen[i], "{s:?}");
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn a_lone_piece_that_needs_one_face_takes_six_turns() {
        let race = Race::get(HouseRules::default());
        // T39 with H2..H4 taken: only a one moves it into H1.
        assert_eq!(race.turns([40, 42, 43, 44]), 6 * TURN);
        assert_eq!(race.turns([41, 42, 43, 44]), 0);
    }

    #[test]
    fn the_race_is_shorter_the_further_the_pieces_have_come() {
        let race = Race::get(HouseRules::default());
        let start = race.turns([0, 0, 0, 0]);
        let one_out = race.turns([0, 0, 0, 1]);
        let halfway = race.turns([0, 0, 0, 20]);
        assert!(
            start > one_out && one_out > halfway,
            "{start} {one_out} {halfway}"
        );
        // About fifty turns from scratch for a colour that plays alone.
        assert!((45 * TURN..55 * TURN).contains(&start), "{start}");
    }

    #[test]
    fn no_jumping_in_the_home_row_makes_the_race_longer() {
        let free = Race::get(HouseRules::default()).turns([0, 0, 0, 0]);
        let strict = Race::get(HouseRules::CROATIAN).turns([0, 0, 0, 0]);
        assert!(strict > free, "{strict} {free}");
    }
}
