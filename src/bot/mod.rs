//! Computer players. They fill empty seats, play for a phone that dropped
//! out and move for a player whose time ran out. With no server, every phone
//! computes the computer's move itself, so a player is a pure function of
//! (game, rule options, level, seed): no clock, no floats, no hash-map
//! iteration, randomness only from a ChaCha generator seeded with `seed`.
//!
//! - [`playable`]: what a rule set provides (turn flow and two heuristics).
//! - [`classic`]: that, for the classic rules; [`matfyz`]: for the Matfyz
//!   rules.
//! - [`levels`]: random, easy, medium and hard, written once.
//! - [`search`]: the hard player's expectimax with a node budget.
//! - [`seeded`]: the only randomness, a ChaCha generator of the seed.
//! - [`rollout`]: Monte-Carlo rollouts, a tournament player (so far
//!   weaker than hard).
//! - [`tournament`]: seat-rotated games between players, to measure them.
//! - [`regret`]: how much a player's moves lose against full-game
//!   Monte-Carlo rollouts, to see how much is left to gain.
//! - [`train`]: the TD(λ) trainer of the hard player's learnt evaluation.

mod classic;
mod levels;
mod matfyz;
mod playable;
pub mod regret;
mod rollout;
mod search;
mod seeded;
pub mod tournament;
pub mod train;

use std::fmt;
use std::str::FromStr;

use crate::rules::{Game, Move, RuleSet};
use playable::Playable;

/// How well a computer player plays.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Level {
    /// Legal moves with a light preference: a child can beat it.
    Easy,
    /// A good rule of thumb: capture, get home, stay out of reach.
    #[default]
    Medium,
    /// Looks ahead over the dice.
    Hard,
}

/// A player in a [`tournament`]: a level, uniformly random moves (the
/// yardstick of published Ludo results), or Monte-Carlo rollouts (an
/// experiment measured against the hard level, docs/bots.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Random,
    Rollout,
    Bot(Level),
}

/// The move `level` plays in `game` with the game's shared randomness
/// `seed`; `None` when no move is due. The same inputs give the same move
/// on every platform, at any speed.
pub fn choose(game: &Game, level: Level, seed: u64) -> Option<Move> {
    Player::Bot(level).choose(game, seed)
}

/// Builds now what `level` computes once per process for `rules` on its
/// first move (the hard player's race table for the classic rules: about
/// 0.1 s on a desktop, docs/performance.md), so that a caller can build it
/// off the UI thread before that move is due. A move due before it is
/// ready waits for it.
pub fn prepare(rules: RuleSet, level: Level) {
    if let (RuleSet::Classic(house), Level::Hard) = (rules, level) {
        classic::prepare(house);
    }
}

impl Player {
    /// The move this player plays in `game`; `None` when no move is due.
    pub fn choose(self, game: &Game, seed: u64) -> Option<Move> {
        match game {
            Game::Classic(g) => self.decide(g, seed).map(Move::Classic),
            Game::Matfyz(g) => self.decide(g, seed).map(Move::Matfyz),
        }
    }

    fn decide<G: Playable>(self, game: &G, seed: u64) -> Option<G::Move> {
        let moves: Vec<G::Move> = game.moves().collect();
        let index = match (moves.len(), self) {
            (0, _) => return None,
            (1, _) => 0,
            (_, Player::Random) => levels::random::<G>(&moves, seed),
            (_, Player::Rollout) => levels::rollout(game, &moves, seed),
            (_, Player::Bot(Level::Easy)) => levels::easy(game, &moves, seed),
            (_, Player::Bot(Level::Medium)) => levels::medium(game, &moves, seed),
            (_, Player::Bot(Level::Hard)) => levels::hard(game, &moves, seed),
        };
        moves.get(index).copied()
    }
}

impl Level {
    /// Every level, easiest first (the order of the app's level picker).
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The name used on the command line and in the notation.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl Player {
    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Player::Random => "random",
            Player::Rollout => "rollout",
            Player::Bot(level) => level.name(),
        }
    }
}

/// A word that names no level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (expected easy, medium or hard)")]
pub struct UnknownLevel(pub String);

/// A word that names no tournament player.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown player {0:?} (expected random, rollout, easy, medium or hard)")]
pub struct UnknownPlayer(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Level::Easy, Level::Medium, Level::Hard]
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| UnknownLevel(crate::rules::board::excerpt(s)))
    }
}

impl FromStr for Player {
    type Err = UnknownPlayer;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "random" => Ok(Player::Random),
            "rollout" => Ok(Player::Rollout),
            _ => s
                .parse()
                .map(Player::Bot)
                .map_err(|_| UnknownPlayer(s.to_owned())),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// What `f` returns, or a failure once it has run 30 s: for a test of
    /// a loop that must end, which would otherwise hang the suite.
    pub(crate) fn ends<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, ended) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(f()));
        ended
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("it ends within 30 s")
    }
}
