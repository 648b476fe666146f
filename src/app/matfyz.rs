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

/// One way to move the chosen piece: the rolls it uses, in order, and
/// where it ends. The rolls it leaves are used by the next piece the
/// player taps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub rolls: Vec<Die>,
    pub end: Spot,
    /// It ends on another piece and captures it.
    pub captures: bool,
}

impl Plan {
    pub fn of(run: Run) -> Plan {
        Plan {
            rolls: run.rolls().collect(),
            end: Spot::of(run.seat(), run.to()),
            captures: run.recipient().is_some(),
        }
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
            if plans.iter().all(|p| p.end != plan.end) {
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
                let Some(end) = plans.get(index).map(|p| p.end) else {
                    return Vec::new();
                };
                runs.iter()
                    .copied()
                    .filter(|&r| Plan::of(r).end == end)
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

/// The Matfyz position of docs/matfyz.md with `rolls` unused: red, blue
/// and green people, red to play; red holds red and green, so it may move
/// the blue piece on T7 and the yellow ones on T10 and T30.
#[cfg(test)]
pub(super) fn docs_example(rolls: crate::rules::matfyz::Rolls) -> crate::rules::matfyz::Layout {
    use crate::rules::Seats;
    use Colour::{Blue, Green, Red, Yellow};
    crate::rules::matfyz::Layout {
        seats: Seats::for_players(3).unwrap(),
        turn: Red,
        bases: vec![
            (Red, vec![Red, Green]),
            (Blue, vec![Red, Blue, Green]),
            (Green, vec![Red, Blue, Green, Yellow]),
        ],
        homes: vec![(Red, [None; 4]), (Blue, [None; 4]), (Green, [None; 4])],
        track: vec![(7, Blue), (10, Yellow), (30, Yellow)],
        rolls,
        done: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Place;
    use crate::rules::matfyz::{Game, Rolls};
    use Colour::{Blue, Green, Red, Yellow};

    /// docs/matfyz.md's position with red to use a 3: red may move the
    /// blue piece on T7 (onto the yellow one on T10) and the yellow ones.
    fn example() -> Game {
        let layout = docs_example(Rolls {
            sixes: 0,
            last: Die::new(3),
        });
        Game::new(Position::new(&layout).unwrap())
    }

    #[test]
    fn the_pieces_are_read_from_bases_homes_and_track() {
        let game = example();
        let spots = spots(game.position());
        assert_eq!(spots.len(), 12);
        assert!(spots.contains(&(Green, Spot::Base(Red))));
        assert!(spots.contains(&(Yellow, Spot::Track(30))));
        assert!(!spots.contains(&(Yellow, Spot::Base(Red))));
    }

    #[test]
    fn a_plan_says_where_it_stops_and_whether_it_captures() {
        let game = example();
        let runs = game.legal_moves();
        let capture = *runs.iter().find(|r| r.recipient() == Some(Blue)).unwrap();
        assert_eq!(mover(game.position(), capture), Some(Blue));
        let plan = Plan::of(capture);
        assert_eq!(plan.rolls, Die::new(3).into_iter().collect::<Vec<_>>());
        assert_eq!(plan.end, Spot::Track(10));
        assert!(plan.captures);
        let quiet = *runs.iter().find(|r| r.to() == Place::Track(33)).unwrap();
        assert!(!Plan::of(quiet).captures);
    }

    #[test]
    fn runs_of_one_piece_that_end_alike_ask_only_who_receives_the_capture() {
        let game = example();
        let runs: Vec<Run> = game
            .legal_moves()
            .into_iter()
            .filter(|r| r.from() == Origin::Track(7))
            .collect();
        let choice = Choice::between(game.position(), &runs).unwrap();
        assert_eq!(
            choice,
            Choice::Recipient {
                captured: Yellow,
                seats: vec![Red, Blue]
            }
        );
        let kept = choice.keep(&runs, 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].recipient(), Some(Blue));
        assert!(choice.keep(&runs, 2).is_empty());
        assert_eq!(Choice::between(game.position(), &kept), None);
    }
}
