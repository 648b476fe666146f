//! Where each colour can hit in its next turn, and how likely: the hard
//! player's measure of danger and threat.
//!
//! The chances come from the rules engine's own legal moves, so the
//! obligations that decide most of them are in: a colour with pieces in
//! base must bring one out on a six and then clear its start square, so
//! while it does, its other pieces hit nothing; a piece cannot pass into
//! its home row's squares; a colour with nothing to move has three tries
//! for a six. (Counting every piece as free to move, as an earlier version
//! did, put a six's worth of danger on squares no opponent could reach.)

use crate::rules::board::TRACK_LEN;
use crate::rules::classic::{HouseRules, Move, Position};
use crate::rules::{Colour, Die, Place, Seats};

/// Chances are counted in 216ths (three rolls of the die), so they stay
/// integers.
pub const CERTAIN: i32 = 216;
/// One time in six.
pub const ONE_IN_SIX: i32 = CERTAIN / 6;
/// A roll's share of [`CERTAIN`].
const ROLL: u8 = (CERTAIN / 6) as u8;
/// 216ths of at least one six in three tries: 1 − (5/6)³ = 91/216.
const SIX_IN_THREE: u8 = 91;
const SQUARES: usize = TRACK_LEN as usize;

/// Every seated colour's chance of hitting each track square in its next
/// turn, from the start of that turn.
pub struct Reach {
    seats: Seats,
    /// `chance[a][n]`: 216ths that colour `a` can land on track square `n`
    /// in its next turn.
    chance: [[u8; SQUARES]; 4],
}

impl Reach {
    pub fn new(position: &Position, house: HouseRules) -> Reach {
        let seats = position.seats();
        let mut chance = [[0; SQUARES]; 4];
        let mut turn = *position;
        for _ in 0..seats.len() {
            chance[turn.turn().index()] = next_turn(&turn, house);
            turn.pass_turn();
        }
        Reach { seats, chance }
    }

    /// The chance, in 216ths, that a piece of `victim` on track square
    /// `target` is captured before `victim` moves again, every opponent
    /// moving once in between and each independently of the others.
    pub fn hit_chance(&self, victim: Colour, target: u8) -> i32 {
        let missed = self
            .seats
            .iter()
            .filter(|&c| c != victim)
            .fold(CERTAIN, |missed, c| {
                missed * (CERTAIN - self.reach(c, target)) / CERTAIN
            });
        CERTAIN - missed
    }

    /// The chance, in 216ths, that `attacker` can land on track square
    /// `target` in its next turn.
    pub fn reach(&self, attacker: Colour, target: u8) -> i32 {
        i32::from(self.chance[attacker.index()][usize::from(target)])
    }
}

/// The chance of each track square being reachable by the colour to act in
/// `position` in its turn: a face's own moves, and after a six the moves of
/// the extra roll too (a second six's extra roll is not followed).
fn next_turn(position: &Position, house: HouseRules) -> [u8; SQUARES] {
    let mut chance = [0; SQUARES];
    if position.waits_for_six(house) {
        reachable(position, house, Die::SIX, SIX_IN_THREE, &mut chance);
    } else {
        for die in Die::all() {
            reachable(position, house, die, ROLL, &mut chance);
        }
    }
    chance
}

/// Adds `weight` to every square that `die` can reach: for a six, a sixth
/// of it for each face of the extra roll, to the squares that the six or
/// the extra roll after any of the six's moves can reach.
fn reachable(position: &Position, house: HouseRules, die: Die, weight: u8, chance: &mut [u8]) {
    let moves = position.legal_moves(house, die);
    let first = moves.iter().fold(0, |set, mv| set | landing(mv));
    if !die.is_six() {
        add(chance, first, weight);
        return;
    }
    // Each move of the six is played once, then every extra face tried.
    let mut then = [first; 6];
    for mv in moves.iter() {
        let mut after = *position;
        after.apply(mv);
        for (set, extra) in then.iter_mut().zip(Die::all()) {
            *set = after
                .legal_moves(house, extra)
                .iter()
                .fold(*set, |set, mv| set | landing(mv));
        }
    }
    for set in then {
        add(chance, set, weight / 6);
    }
}

/// The track square `mv` lands on, as a bit of a set of squares (none for
/// the home row).
fn landing(mv: Move) -> u64 {
    match mv.to() {
        Place::Track(n) => 1 << n,
        _ => 0,
    }
}

fn add(chance: &mut [u8], squares: u64, weight: u8) {
    for (n, c) in chance.iter_mut().enumerate() {
        if squares & 1 << n != 0 {
            *c = c.saturating_add(weight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::square;
    use super::super::board::tests::position;
    use super::*;

    /// The reach of the position with these pieces, the first colour to act.
    fn reach(pieces: &[(Colour, [&str; 4])], house: HouseRules) -> Reach {
        Reach::new(&position(pieces, pieces[0].0), house)
    }

    #[test]
    fn a_free_piece_hits_one_to_six_ahead_one_time_in_six_and_beyond_with_a_six() {
        let r = reach(
            &[
                (Colour::Red, ["T5", "H1", "H2", "H3"]),
                (Colour::Green, ["T1", "H1", "H2", "H3"]),
            ],
            HouseRules::default(),
        );
        assert_eq!(r.hit_chance(Colour::Red, 5), ONE_IN_SIX);
        // A six and a two.
        assert_eq!(r.hit_chance(Colour::Red, 9), ONE_IN_SIX / 6);
        assert_eq!(r.hit_chance(Colour::Red, 20), 0);
    }

    #[test]
    fn a_six_that_must_bring_a_piece_out_hits_nothing_six_ahead() {
        // Green has pieces in base and its start square (T20) free: a six
        // brings one out and the extra roll must move it off T20.
        let pieces = [
            (Colour::Red, ["T28", "H1", "H2", "H3"]),
            (Colour::Green, ["B", "B", "B", "T22"]),
        ];
        let r = reach(&pieces, HouseRules::default());
        assert_eq!(r.hit_chance(Colour::Red, 28), 0);
        assert_eq!(r.hit_chance(Colour::Red, 27), ONE_IN_SIX, "a five");
        // With bringing out optional, the six may move T22 instead.
        let optional = HouseRules {
            optional_bring_out: true,
            ..HouseRules::default()
        };
        assert_eq!(
            reach(&pieces, optional).hit_chance(Colour::Red, 28),
            ONE_IN_SIX
        );
    }

    #[test]
    fn a_piece_that_must_clear_the_start_square_is_the_only_one_that_hits() {
        // Green's piece on its start square T20 must move first, so T24's
        // two ahead (T26) is out of reach but T20's six ahead is not.
        let r = reach(
            &[
                (Colour::Red, ["T26", "T30", "H1", "H2"]),
                (Colour::Green, ["B", "B", "T20", "T24"]),
            ],
            HouseRules::default(),
        );
        assert_eq!(r.hit_chance(Colour::Red, 26), ONE_IN_SIX);
        assert_eq!(r.reach(Colour::Green, square(Colour::Green, 7)), ONE_IN_SIX);
        // Six ahead of T24 only with a six for T20 and then a four.
        assert_eq!(r.hit_chance(Colour::Red, 30), ONE_IN_SIX / 6);
    }

    #[test]
    fn a_colour_waiting_for_a_six_hits_its_start_square_with_three_tries() {
        let r = reach(
            &[
                (Colour::Red, ["T18", "T23", "H1", "H2"]),
                (Colour::Green, ["B", "B", "B", "B"]),
            ],
            HouseRules::default(),
        );
        // Green starts on T20: the six in three tries, then the extra
        // roll that must move the new piece on.
        assert_eq!(r.reach(Colour::Green, 20), 90);
        assert_eq!(r.hit_chance(Colour::Red, 23), 15);
        assert_eq!(r.hit_chance(Colour::Red, 18), 0);
    }

    #[test]
    fn chances_of_several_opponents_combine_as_independent_misses() {
        let r = reach(
            &[
                (Colour::Red, ["T25", "H1", "H2", "H3"]),
                (Colour::Blue, ["T22", "H1", "H2", "H3"]),
                (Colour::Green, ["T21", "H1", "H2", "H3"]),
            ],
            HouseRules::default(),
        );
        // 1 - (5/6)² = 11/36.
        assert_eq!(r.hit_chance(Colour::Red, 25), 66);
    }
}
