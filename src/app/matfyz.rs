//! What the board needs to know about the Matfyz rules, where the pieces
//! are shared: which colour stands in whose base and home, which piece a
//! run moves, and the choices a run can leave to the player (how far the
//! piece goes with the turn's sixes, who receives the piece it captures).

use crate::rules::matfyz::{Origin, Position, Run};
use crate::rules::{Colour, Die};

use super::geometry::Spot;

/// Every piece of `position` as its colour and spot: the bases and homes
/// of the seats (clockwise), then the track in board order.
pub fn spots(position: &Position) -> Vec<(Colour, Spot)> {
    let seats = position.seats();
    let bases = seats
        .iter()
        .flat_map(|seat| position.base(seat).map(move |c| (c, Spot::Base(seat))));
    let homes = seats.iter().flat_map(|seat| {
        (1..)
            .zip(position.home(seat))
            .filter_map(move |(h, c)| Some((c?, Spot::Home(seat, h))))
    });
    let track = (0..crate::rules::board::TRACK_LEN)
        .filter_map(|n| Some((position.occupant(n)?, Spot::Track(n))));
    bases.chain(homes).chain(track).collect()
}

/// The colour of the piece `run` moves in `position` (`None` if nothing
/// stands where it starts, which a legal run never does).
pub fn mover(position: &Position, run: Run) -> Option<Colour> {
    match run.from() {
        Origin::Base(colour) => Some(colour),
        Origin::Track(n) => position.occupant(n),
        Origin::Home(h) => *position
            .home(run.seat())
            .get(usize::from(h).checked_sub(1)?)?,
    }
}

/// One way to move the chosen piece: the rolls it uses, in order, and the
/// spot it stops at after each (the last one is where it ends). The rolls
/// it leaves are used by the next piece the player taps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub rolls: Vec<Die>,
    pub path: Vec<Spot>,
}

impl Plan {
    pub fn of(run: Run) -> Plan {
        let seat = run.seat();
        Plan {
            rolls: run.rolls().collect(),
            path: run.path().map(|place| Spot::of(seat, place)).collect(),
        }
    }

    /// Where the piece ends.
    pub fn end(&self) -> Option<Spot> {
        self.path.last().copied()
    }
}

/// What the player is asked after tapping a piece that can move in more
/// than one way (only the Matfyz rules give a piece more than one move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// How far the piece goes: with several sixes it may stop after any of
    /// them and leave the rest to another piece, so choosing a plan also
    /// orders the turn's moves.
    Plan(Vec<Plan>),
    /// The run captures: which of these seats receives the `captured`
    /// piece in its base (the mover may be one of them).
    Recipient {
        captured: Colour,
        seats: Vec<Colour>,
    },
}

impl Choice {
    /// The choice between `runs`, all of one piece in `position`: where it
    /// stops if they end in different places, else who receives what it
    /// captures. `None` unless there is something to choose.
    pub fn between(position: &Position, runs: &[Run]) -> Option<Choice> {
        let first = *runs.first()?;
        let mut plans: Vec<Plan> = Vec::new();
        for &run in runs {
            let plan = Plan::of(run);
            if plans.iter().all(|p| p.end() != plan.end()) {
                plans.push(plan);
            }
        }
        if plans.len() > 1 {
            return Some(Choice::Plan(plans));
        }
        let crate::rules::Place::Track(square) = first.to() else {
            return None;
        };
        let captured = position.occupant(square)?;
        let mut seats: Vec<Colour> = runs.iter().filter_map(|r| r.recipient()).collect();
        seats.dedup();
        (seats.len() > 1).then_some(Choice::Recipient { captured, seats })
    }

    /// The runs of `runs` that choosing option `index` keeps.
    pub fn keep(&self, runs: &[Run], index: usize) -> Vec<Run> {
        match self {
            Choice::Plan(plans) => {
                let Some(end) = plans.get(index).and_then(Plan::end) else {
                    return Vec::new();
                };
                runs.iter()
                    .copied()
                    .filter(|&r| Plan::of(r).end() == Some(end))
                    .collect()
            }
            Choice::Recipient { seats, .. } => {
                let Some(&seat) = seats.get(index) else {
                    return Vec::new();
                };
                runs.iter()
                    .copied()
                    .filter(|r| r.recipient() == Some(seat))
                    .collect()
            }
        }
    }
}
