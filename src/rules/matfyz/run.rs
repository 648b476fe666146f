//! Runs: how the rolls of a turn are used, and which runs are legal.
//!
//! The text captures with a piece that "ends its movement" (`ukončí postup
//! s figurkou (v daném tahu už s ní nebude pohybovat)`), so a turn's rolls
//! are used as a sequence of runs: one piece moved by one or more of the
//! unused rolls, in order. When the run ends, the piece may not move again
//! this turn, and if it stands on an occupied track square it captures.
//! Stops inside a run capture nobody.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::position::{Position, bits, landing};
use crate::rules::Capture;
use crate::rules::board::{Colour, Die, HOME_LEN, Place};

/// Where a run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Origin {
    /// The mover's base: a six brings out the piece of this colour.
    Base(Colour),
    /// Track square 0..40.
    Track(u8),
    /// The mover's home square 1..=4.
    Home(u8),
}

impl Origin {
    /// The place the run starts from.
    pub fn place(self) -> Place {
        match self {
            Origin::Base(_) => Place::Base,
            Origin::Track(n) => Place::Track(n),
            Origin::Home(h) => Place::Home(h),
        }
    }
}

/// One piece moved by one or more of the turn's unused rolls: the first
/// `sixes` sixes and, if `last` is set, the number that ended the rolling.
/// A run that ends on an occupied track square captures the piece there,
/// which goes to `recipient`'s base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Run {
    seat: Colour,
    from: Origin,
    sixes: u8,
    last: Option<Die>,
    recipient: Option<Colour>,
}

impl Run {
    /// The seat that moves.
    pub fn seat(self) -> Colour {
        self.seat
    }

    /// Where the run starts.
    pub fn from(self) -> Origin {
        self.from
    }

    /// The rolls the run uses, in order.
    pub fn rolls(self) -> impl Iterator<Item = Die> {
        std::iter::repeat_n(Die::SIX, usize::from(self.sixes)).chain(self.last)
    }

    /// The places the piece stops at, one per roll, the last one being
    /// where the run ends (home squares are the mover's).
    pub fn path(self) -> impl Iterator<Item = Place> {
        let seat = self.seat;
        self.rolls().scan(self.from.place(), move |at, roll| {
            *at = landing(seat, *at, roll)?;
            Some(*at)
        })
    }

    /// Where the run ends.
    pub fn to(self) -> Place {
        self.path().last().unwrap_or(self.from.place())
    }

    /// Whose base receives the piece the run captures, if it captures.
    pub fn recipient(self) -> Option<Colour> {
        self.recipient
    }

    /// Whether the run has used a roll yet (while it is being built).
    fn moved(self) -> bool {
        self.sixes > 0 || self.last.is_some()
    }
}

/// The notation's text of a run: its path, one `>` per roll, then
/// `*<seat>` when it captures, e.g. `B:green>T0>T6` or `T3>T9*blue`.
impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from {
            Origin::Base(colour) => write!(f, "B:{colour}")?,
            from => write!(f, "{}", from.place())?,
        }
        for place in self.path() {
            write!(f, ">{place}")?;
        }
        if let Some(recipient) = self.recipient {
            write!(f, "*{recipient}")?;
        }
        Ok(())
    }
}

impl Position {
    /// Plays `run` for the seat in turn without checking that the rules
    /// allow it (the game does), and returns what it captured.
    pub(super) fn apply(&mut self, run: Run) -> Option<Capture> {
        let piece = self.lift(run.from)?;
        let captured = self.put(piece, run.to(), run.recipient);
        self.consume(run.sixes, run.last.is_some());
        Some(Capture {
            piece: captured?,
            to_base_of: run.recipient?,
        })
    }

    /// Every legal run for the unused rolls, sorted, without duplicates.
    /// Expects the first unused roll to be usable (the game forfeits
    /// unusable rolls before it asks).
    ///
    /// A run starts with the first unused roll. After each roll it uses,
    /// looking at the next roll `r`, it may end (with each choice of
    /// recipient) if some other piece can then use `r`: the player switches
    /// pieces. It may go on with `r` if its piece can use it. If neither its
    /// piece nor any other can use `r`, `r` is forfeited and the run goes
    /// on to the rolls after it. When no roll is left, it ends. This is "a
    /// roll must be used if any piece that may still move this turn can use
    /// it", with a piece's movement lasting until the player switches.
    pub(super) fn legal_runs(&self) -> Vec<Run> {
        let mut runs = Vec::new();
        if self.rolls().last.is_none() {
            return runs;
        }
        let seat = self.turn();
        let bases = self
            .base(seat)
            .filter(|_| self.rolls().at(0).is_six())
            .map(Origin::Base);
        let homes = (1..=HOME_LEN)
            .filter(|&h| self.piece_at(Place::Home(h)).is_some())
            .filter(|&h| !self.done().contains(Place::Home(h)))
            .map(Origin::Home);
        let track = bits(self.movable_track()).map(Origin::Track);
        for from in bases.chain(homes).chain(track) {
            self.walk(from, &mut runs);
        }
        runs.sort_unstable();
        runs.dedup();
        runs
    }

    /// Adds the legal runs that start from `from` to `runs`.
    fn walk(&self, from: Origin, runs: &mut Vec<Run>) {
        let mut lifted = *self;
        if lifted.lift(from).is_none() {
            return;
        }
        let rolls = self.rolls();
        let mut run = Run {
            seat: self.turn(),
            from,
            sixes: 0,
            last: None,
            recipient: None,
        };
        let mut at = from.place();
        let mut i = 0;
        while i < rolls.len() {
            let roll = rolls.at(i);
            let next = lifted.step(at, roll);
            if run.moved() {
                let mut switch = false;
                for recipient in lifted.recipients(at) {
                    let end = Run { recipient, ..run };
                    let mut after = *self;
                    after.apply(end);
                    if after.can_use(roll) {
                        runs.push(end);
                        switch = true;
                    }
                }
                if next.is_none() && !switch {
                    i = rolls.after_equal(i);
                    continue;
                }
            }
            let Some(next) = next else { return };
            at = next;
            if i + 1 == rolls.len() {
                run.last = Some(roll);
            } else {
                run.sixes += 1;
            }
            i += 1;
        }
        if run.moved() {
            runs.extend(
                lifted
                    .recipients(at)
                    .map(|recipient| Run { recipient, ..run }),
            );
        }
    }
}
