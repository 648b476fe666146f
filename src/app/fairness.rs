//! The fairness view's model: every roll of a game in order, and how often
//! each face came up for each colour, so players who doubt the die can look.
//!
//! An offline game feeds it roll by roll; an online game's log gives the
//! same rolls ([`crate::protocol::log::Log::rolls`], converted with `From`).

use crate::protocol::log::RollRecord;
use crate::rules::{Colour, Die};

/// One roll of the die: who rolled what, and whether the computer rolled
/// for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roll {
    pub seat: Colour,
    pub die: Die,
    pub by_computer: bool,
}

impl From<RollRecord> for Roll {
    fn from(record: RollRecord) -> Roll {
        Roll {
            seat: record.seat,
            die: record.die,
            by_computer: record.by_computer,
        }
    }
}

/// The rolls of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fairness {
    history: Vec<Roll>,
    /// `faces[colour][face - 1]`: kept as rolls come, so the view needs no
    /// pass over the history.
    faces: [[u32; 6]; 4],
}

impl Fairness {
    /// The model of `rolls`, oldest first.
    pub fn from_rolls(rolls: impl IntoIterator<Item = Roll>) -> Fairness {
        let mut fairness = Fairness::default();
        rolls.into_iter().for_each(|roll| fairness.record(roll));
        fairness
    }

    /// Adds the next roll.
    pub fn record(&mut self, roll: Roll) {
        self.faces[roll.seat.index()][usize::from(roll.die.get() - 1)] += 1;
        self.history.push(roll);
    }

    /// Every roll so far, oldest first.
    pub fn history(&self) -> &[Roll] {
        &self.history
    }

    /// The face the die shows while `turn` is to play: its own last roll,
    /// and none once the turn has passed on, so that nobody takes the
    /// previous player's roll for theirs.
    pub fn face(&self, turn: Colour) -> Option<Die> {
        self.history
            .last()
            .filter(|r| r.seat == turn)
            .map(|r| r.die)
    }

    /// How often each face (1 to 6) came up for `colour`.
    pub fn faces(&self, colour: Colour) -> [u32; 6] {
        self.faces[colour.index()]
    }

    /// How often `colour` rolled.
    pub fn rolls(&self, colour: Colour) -> u32 {
        self.faces(colour).iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roll(seat: Colour, n: u8) -> Roll {
        Roll {
            seat,
            die: Die::new(n).unwrap(),
            by_computer: false,
        }
    }

    #[test]
    fn faces_are_counted_per_colour() {
        let fairness = Fairness::from_rolls([
            roll(Colour::Red, 6),
            roll(Colour::Red, 6),
            roll(Colour::Red, 1),
            roll(Colour::Green, 6),
        ]);
        assert_eq!(fairness.faces(Colour::Red), [1, 0, 0, 0, 0, 2]);
        assert_eq!(fairness.faces(Colour::Green), [0, 0, 0, 0, 0, 1]);
        assert_eq!(fairness.faces(Colour::Blue), [0; 6]);
        assert_eq!(fairness.rolls(Colour::Red), 3);
    }

    #[test]
    fn the_die_shows_a_roll_only_while_its_roller_is_in_turn() {
        let mut fairness = Fairness::default();
        assert_eq!(fairness.face(Colour::Red), None, "no roll yet");
        fairness.record(roll(Colour::Red, 6));
        fairness.record(roll(Colour::Red, 4));
        assert_eq!(fairness.face(Colour::Red), Die::new(4));
        assert_eq!(
            fairness.face(Colour::Green),
            None,
            "Green's turn: not its 4"
        );
    }

    #[test]
    fn the_history_keeps_every_roll_in_order() {
        let rolls = [
            roll(Colour::Blue, 2),
            roll(Colour::Yellow, 5),
            roll(Colour::Blue, 3),
        ];
        let fairness = Fairness::from_rolls(rolls);
        assert_eq!(fairness.history(), rolls);
    }

    #[test]
    fn recording_roll_by_roll_equals_building_from_the_whole_list() {
        let rolls: Vec<Roll> = (0..60)
            .map(|i| roll(Colour::from_index(i % 4), (i * 7 % 6) as u8 + 1))
            .collect();
        let mut live = Fairness::default();
        rolls.iter().for_each(|&r| live.record(r));
        assert_eq!(live, Fairness::from_rolls(rolls));
    }
}
