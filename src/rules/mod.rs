//! The deterministic rules engine: pure Rust, no I/O, no floats, no
//! randomness (dice values come in from outside), no hash-map iteration.
//! The same inputs give the same outputs on every platform, which is what
//! lets every phone of a game run it in lockstep.
//!
//! - [`board`]: colours, seats, dice and places, shared by all rule sets.
//! - [`classic`]: the classic rules with their house rules and the Croatian
//!   preset.
//! - [`matfyz`]: the Matfyz rules, where the pieces are shared.
//! - [`opening`]: how the first player is chosen.
//! - [`Game`]: one type over every rule set, for the layers above (game log,
//!   computer players, UI) that should not care which rules are played.

pub mod board;
pub mod classic;
pub mod matfyz;
pub mod opening;

pub use board::{Colour, Die, Place, Seats};
pub use classic::HouseRules;
pub use opening::FirstPlayer;

use serde::{Deserialize, Serialize};

/// Which rules a game is played by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RuleSet {
    /// The classic rules with these house rules (the Croatian preset is
    /// [`HouseRules::CROATIAN`]).
    Classic(HouseRules),
    /// The Matfyz rules (shared pieces of four colours).
    Matfyz,
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Next {
    /// `seat` rolls; `attempt` (1..=3) counts tries for a six.
    Roll { seat: Colour, attempt: u8 },
    /// `seat` moves; at least one move is legal.
    Move { seat: Colour },
    /// The game is over.
    Won { winner: Colour },
}

impl Next {
    /// The seat to roll or move; none once the game is won.
    pub fn mover(self) -> Option<Colour> {
        match self {
            Next::Roll { seat, .. } | Next::Move { seat } => Some(seat),
            Next::Won { .. } => None,
        }
    }
}

/// What a roll led to (the UI shows it as the note below the die).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rolled {
    /// At least one move is legal; the same colour now moves.
    Move,
    /// No six yet: the colour rolls again, for try `attempt`.
    TryAgain { attempt: u8 },
    /// A six, kept for later: the colour rolls again before moving (Matfyz).
    Again,
    /// No piece can move: the turn is lost and the die passes on.
    TurnLost,
}

/// A piece sent back to a base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The colour of the captured piece.
    pub piece: Colour,
    /// Whose base it went to (in the classic rules, its own colour's).
    pub to_base_of: Colour,
}

/// What a move led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub captured: Option<Capture>,
    /// Whether the mover has won.
    pub won: bool,
}

/// A step that the turn flow does not allow at this point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    #[error("the game is over")]
    GameOver,
    #[error("a roll is due, not a move")]
    RollDue,
    #[error("a move is due, not a roll")]
    MoveDue,
    #[error("that move is not legal here")]
    Illegal,
}

/// A game in progress under any rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    Classic(classic::Game),
    Matfyz(matfyz::Game),
}

/// A move under any rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Move {
    Classic(classic::Move),
    Matfyz(matfyz::Run),
}

impl std::fmt::Display for Move {
    /// The move as the notation writes it (`T5>T9`, a Matfyz run's path).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Move::Classic(m) => m.fmt(f),
            Move::Matfyz(run) => run.fmt(f),
        }
    }
}

impl Game {
    /// A new game under `rules` for `seats`, `first` about to roll.
    pub fn new(rules: RuleSet, seats: Seats, first: Colour) -> Option<Game> {
        match rules {
            RuleSet::Classic(house) => {
                let position = classic::Position::start(seats, first).ok()?;
                Some(Game::Classic(classic::Game::new(house, position)))
            }
            RuleSet::Matfyz => {
                let position = matfyz::Position::start(seats, first).ok()?;
                Some(Game::Matfyz(matfyz::Game::new(position)))
            }
        }
    }

    /// The rules this game is played by.
    pub fn rules(&self) -> RuleSet {
        match self {
            Game::Classic(g) => RuleSet::Classic(g.house()),
            Game::Matfyz(_) => RuleSet::Matfyz,
        }
    }

    /// The colours in play.
    pub fn seats(&self) -> Seats {
        match self {
            Game::Classic(g) => g.position().seats(),
            Game::Matfyz(g) => g.position().seats(),
        }
    }

    /// What the game waits for.
    pub fn next(&self) -> Next {
        match self {
            Game::Classic(g) => {
                let seat = g.position().turn();
                match g.phase() {
                    classic::Phase::Roll { attempt } => Next::Roll { seat, attempt },
                    classic::Phase::Move { .. } => Next::Move { seat },
                    classic::Phase::Won => Next::Won { winner: seat },
                }
            }
            Game::Matfyz(g) => {
                let seat = g.position().turn();
                match g.phase() {
                    matfyz::Phase::Roll => Next::Roll { seat, attempt: 1 },
                    matfyz::Phase::Move => Next::Move { seat },
                    matfyz::Phase::Won => Next::Won { winner: seat },
                }
            }
        }
    }

    /// Rolls `die` for the colour in turn.
    pub fn roll(&mut self, die: Die) -> Result<Rolled, FlowError> {
        match self {
            Game::Classic(g) => g.roll(die),
            Game::Matfyz(g) => g.roll(die),
        }
    }

    /// The legal moves now, in a fixed order; empty unless a move is due.
    pub fn legal_moves(&self) -> Vec<Move> {
        match self {
            Game::Classic(g) => g.legal_moves().iter().map(Move::Classic).collect(),
            Game::Matfyz(g) => g.legal_moves().into_iter().map(Move::Matfyz).collect(),
        }
    }

    /// Plays `mv`, which must be one of [`Game::legal_moves`].
    pub fn play(&mut self, mv: Move) -> Result<Played, FlowError> {
        match (self, mv) {
            (Game::Classic(g), Move::Classic(m)) => g.play(m),
            (Game::Matfyz(g), Move::Matfyz(run)) => g.play(run),
            // A move of other rules is never legal here.
            _ => Err(FlowError::Illegal),
        }
    }
}
