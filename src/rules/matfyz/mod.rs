//! The Matfyz rule set ("Matfyzácké člověče, nezlob se", seed 001): the
//! pieces of four colours are shared; a player, named by the colour of its
//! base and home, may move any track piece of a colour it holds neither in
//! its base nor its home, and wins with one piece of each colour home.
//! docs/matfyz.md gives every rule with the sentence it rests on.
//!
//! - [`position`]: the position and its invariants.
//! - [`run`]: how a turn's rolls are used, one piece at a time.
//! - [`Game`]: the turn flow (rolling while sixes come, forfeits, the end).

mod position;
mod run;

pub use position::{InvalidPosition, Layout, Part, Position, Rolls};
pub use run::{Origin, Run};

use super::board::Die;
use super::{Colour, FlowError, Played, Rolled};

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The seat in turn rolls (again, after sixes).
    Roll,
    /// The seat in turn uses its rolls; at least one run is legal.
    Move,
    /// The seat in turn has one piece of each colour home and has won.
    Won,
}

/// A Matfyz game in progress. Its position never waits on a roll that
/// nobody can use: such rolls are forfeited as soon as they come up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    position: Position,
}

impl Game {
    /// The game at `position`. Unused rolls that no piece can use are
    /// forfeited first (passing the turn if none is left).
    pub fn new(mut position: Position) -> Game {
        if position.rolls().last.is_some() {
            position.settle();
        }
        Game { position }
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn phase(&self) -> Phase {
        if self.position.home_full(self.position.turn()) {
            Phase::Won
        } else if self.position.rolls().last.is_some() {
            Phase::Move
        } else {
            Phase::Roll
        }
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<Colour> {
        (self.phase() == Phase::Won).then_some(self.position.turn())
    }

    /// Rolls `die` for the seat in turn: a six is kept and the seat rolls
    /// again; any other number ends the rolling, and the rolls are used.
    pub fn roll(&mut self, die: Die) -> Result<Rolled, FlowError> {
        match self.phase() {
            Phase::Roll => {}
            Phase::Move => return Err(FlowError::MoveDue),
            Phase::Won => return Err(FlowError::GameOver),
        }
        if die.is_six() {
            self.position.add_six();
            return Ok(Rolled::Again);
        }
        self.position.end_rolling(die);
        self.position.settle();
        Ok(match self.phase() {
            Phase::Move => Rolled::Move,
            _ => Rolled::TurnLost,
        })
    }

    /// The legal runs now, sorted; empty unless a move is due.
    pub fn legal_moves(&self) -> Vec<Run> {
        match self.phase() {
            Phase::Move => self.position.legal_runs(),
            _ => Vec::new(),
        }
    }

    /// Plays `run`, which must be one of [`Game::legal_moves`]. The seat
    /// wins as soon as its home is full; otherwise unusable rolls are
    /// forfeited and, when none is left, the turn passes.
    pub fn play(&mut self, run: Run) -> Result<Played, FlowError> {
        match self.phase() {
            Phase::Move => {}
            Phase::Roll => return Err(FlowError::RollDue),
            Phase::Won => return Err(FlowError::GameOver),
        }
        if !self.legal_moves().contains(&run) {
            return Err(FlowError::Illegal);
        }
        let captured = self.position.apply(run);
        let won = self.position.home_full(run.seat());
        if won {
            self.position.finish();
        } else {
            self.position.settle();
        }
        Ok(Played { captured, won })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Seats;

    #[test]
    fn sixes_are_kept_until_the_rolling_ends() {
        let seats = Seats::for_players(2).unwrap();
        let mut game = Game::new(Position::start(seats, Colour::Red).unwrap());
        assert_eq!(game.roll(Die::SIX), Ok(Rolled::Again));
        assert_eq!(game.phase(), Phase::Roll);
        assert_eq!(game.roll(Die::SIX), Ok(Rolled::Again));
        assert_eq!(game.roll(Die::new(4).unwrap()), Ok(Rolled::Move));
        let rolls = game.position().rolls();
        assert_eq!((rolls.sixes, rolls.last), (2, Die::new(4)));
        assert_eq!(game.roll(Die::SIX), Err(FlowError::MoveDue));
    }

    #[test]
    fn a_malformed_run_from_outside_is_refused_without_panicking() {
        let seats = Seats::for_players(2).unwrap();
        let mut game = Game::new(Position::start(seats, Colour::Red).unwrap());
        game.roll(Die::SIX).unwrap();
        game.roll(Die::new(2).unwrap()).unwrap();
        for from in [r#"{"Track": 200}"#, r#"{"Home": 0}"#, r#"{"Home": 9}"#] {
            let text = format!(
                r#"{{"seat": "red", "from": {from}, "sixes": 255, "last": 2, "recipient": "blue"}}"#
            );
            let run: Run = serde_json::from_str(&text).unwrap();
            assert!(matches!(game.play(run), Err(FlowError::Illegal)), "{from}");
        }
    }

    #[test]
    fn a_lone_bring_out_goes_on_with_the_last_roll() {
        let seats = Seats::for_players(2).unwrap();
        let mut game = Game::new(Position::start(seats, Colour::Green).unwrap());
        game.roll(Die::SIX).unwrap();
        game.roll(Die::new(1).unwrap()).unwrap();
        let runs = game.legal_moves();
        assert!(!runs.is_empty());
        for run in runs {
            assert_eq!(run.path().next(), Some(crate::rules::Place::Track(20)));
            assert_eq!(run.to(), crate::rules::Place::Track(21));
        }
    }
}
