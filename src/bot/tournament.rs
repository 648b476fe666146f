//! Seat-rotated games between computer players, to measure their strength.
//!
//! Game `g` seats player `i` on the `(i + g) mod n`-th seated colour
//! (clockwise from red, who rolls first), so every player sits on every
//! seat equally often when the games are a multiple of the players (the
//! table says when they are not). Its dice come from a ChaCha generator
//! seeded with (tournament seed, `g`), and the players' seeds from a second
//! stream of it: the results are a function of the seed alone, whatever the
//! number of threads, and every line-up meets the same dice in game `g`.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

use rand_chacha::rand_core::Rng;

use super::{Player, seeded};
use crate::rules::{Colour, Game, Move, Next, RuleSet, Seats};

/// Rolls after which a game counts as unfinished (no real game comes near:
/// this only guarantees that a tournament ends).
const MAX_ROLLS: u32 = 100_000;

/// What to play.
#[derive(Clone, Debug)]
pub struct Tournament {
    pub rules: RuleSet,
    /// One per seat: 2, 3 or 4 players.
    pub players: Vec<Player>,
    pub games: u32,
    pub seed: u64,
    /// Worker threads (at least one is used); the results do not depend on it.
    pub threads: usize,
}

/// A tournament that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("a game has 2, 3 or 4 players, not {0}")]
    Players(usize),
    /// A bug, never a result: a player chose no move, or one the rules
    /// refuse, where a move was due.
    #[error("game {game}: {player} did not play a legal move")]
    Illegal { game: u32, player: Player },
}

/// How a tournament ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    pub players: Vec<Player>,
    /// Games won by each player, in the order of `players`.
    pub wins: Vec<u32>,
    pub games: u32,
    /// Games stopped after `MAX_ROLLS` rolls without a winner.
    pub unfinished: u32,
    /// The rolls each finished game took, in the order of the games: how
    /// long games of these players and rules run (docs/performance.md
    /// reads the dice chains' length from it).
    pub rolls: Vec<u32>,
}

impl Tournament {
    /// Plays every game and counts the wins.
    pub fn run(&self) -> Result<Standings, TournamentError> {
        let n = self.players.len();
        let seats = u8::try_from(n)
            .ok()
            .and_then(Seats::for_players)
            .ok_or(TournamentError::Players(n))?;
        let results = in_parallel(self.games, self.threads, |g| {
            self.play(seats, g, Player::choose)
        });
        let mut standings = Standings {
            players: self.players.clone(),
            wins: vec![0; n],
            games: self.games,
            unfinished: 0,
            rolls: Vec::new(),
        };
        for result in results {
            match result? {
                Some((slot, rolls)) => {
                    standings.wins[slot] += 1;
                    standings.rolls.push(rolls);
                }
                None => standings.unfinished += 1,
            }
        }
        Ok(standings)
    }

    /// Plays game `g`, each player's move chosen by `choose` (a test
    /// passes a broken one); the index of the winning player and the rolls
    /// the game took, `None` if unfinished.
    fn play(
        &self,
        seats: Seats,
        g: u32,
        choose: impl Fn(Player, &Game, u64) -> Option<Move>,
    ) -> Result<Option<(usize, u32)>, TournamentError> {
        let n = self.players.len();
        let colours: Vec<Colour> = seats.iter().collect();
        let slot_of = |colour: Colour| {
            let k = colours.iter().position(|&c| c == colour).unwrap_or(0);
            (k + n - g as usize % n) % n
        };
        // Game `g`'s stream 0 is its dice, stream 1 its players' seeds.
        let mut dice = seeded::keyed(self.seed, g, 0);
        let mut bot_seeds = seeded::keyed(self.seed, g, 1);
        // `run` checked the seats; a game always starts with red.
        let mut game = Game::new(self.rules, seats, Colour::Red).expect("valid seats");
        for rolls in 0..MAX_ROLLS {
            loop {
                match game.next() {
                    Next::Won { winner } => return Ok(Some((slot_of(winner), rolls))),
                    Next::Roll { .. } => break,
                    Next::Move { seat } => {
                        let player = self.players[slot_of(seat)];
                        let illegal = TournamentError::Illegal { game: g, player };
                        let mv = choose(player, &game, bot_seeds.next_u64());
                        game.play(mv.ok_or(illegal.clone())?).map_err(|_| illegal)?;
                    }
                }
            }
            // Rolled only when `next` asks for a roll.
            game.roll(seeded::die(&mut dice)).expect("a roll is due");
        }
        Ok(None)
    }
}

/// `play(g)` for every game `g` below `games`, on `threads` worker threads
/// (at least one, the calling thread among them) that take the next game as
/// they finish one; the results in the order of the games, so that they do
/// not depend on the threads.
pub(super) fn in_parallel<T: Send>(
    games: u32,
    threads: usize,
    play: impl Fn(u32) -> T + Sync,
) -> Vec<T> {
    let next_game = AtomicU32::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let g = next_game.fetch_add(1, Ordering::Relaxed);
            if g >= games {
                return done;
            }
            done.push((g, play(g)));
        }
    };
    let mut results: Vec<(u32, T)> = std::thread::scope(|scope| {
        // The calling thread is one of the workers. The others start while
        // the system lets them: one that cannot start (more threads asked
        // for than the system allows) is one worker fewer, not a panic.
        let others: Vec<_> = (1..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, worker).ok())
            .collect();
        let mut done = worker();
        for handle in others {
            done.extend(
                handle
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        done
    });
    results.sort_by_key(|&(g, _)| g);
    results.into_iter().map(|(_, result)| result).collect()
}

/// The 95% Wilson score interval of `wins` out of `games`, as fractions.
pub fn wilson(wins: u32, games: u32) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = f64::from(games);
    let p = f64::from(wins) / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

impl fmt::Display for Standings {
    /// A Markdown table: one row per player, then one per kind of player
    /// that sits more than once (their wins together).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let finished = self.games - self.unfinished;
        writeln!(f, "| player | wins | win rate | 95% interval |")?;
        writeln!(f, "|---|---:|---:|---|")?;
        let row = |f: &mut fmt::Formatter<'_>, name: String, wins: u32, games: u32| {
            let (low, high) = wilson(wins, games);
            let rate = if games == 0 {
                0.0
            } else {
                f64::from(wins) / f64::from(games)
            };
            writeln!(
                f,
                "| {name} | {wins} | {:.1}% | {:.1}–{:.1}% |",
                100.0 * rate,
                100.0 * low,
                100.0 * high
            )
        };
        for (i, (player, &wins)) in self.players.iter().zip(&self.wins).enumerate() {
            row(f, format!("{} {player}", i + 1), wins, finished)?;
        }
        let mut kinds: Vec<Player> = Vec::new();
        for &p in &self.players {
            if !kinds.contains(&p) {
                kinds.push(p);
            }
        }
        for kind in kinds {
            let count = self.players.iter().filter(|&&p| p == kind).count();
            if count > 1 {
                let wins = (self.players.iter().zip(&self.wins))
                    .filter(|&(&p, _)| p == kind)
                    .map(|(_, &w)| w)
                    .sum();
                row(f, format!("all {count} {kind}"), wins, finished)?;
            }
        }
        let mut rolls = self.rolls.clone();
        rolls.sort_unstable();
        if let (Some(median), Some(longest)) = (rolls.get(rolls.len() / 2), rolls.last()) {
            writeln!(
                f,
                "\nrolls per finished game: median {median}, longest {longest}"
            )?;
        }
        if self.unfinished > 0 {
            writeln!(f, "({} games unfinished)", self.unfinished)?;
        }
        let n = self.players.len() as u32;
        if n > 0 && !self.games.is_multiple_of(n) {
            writeln!(
                f,
                "({} games, not a multiple of {n} players: some sat on some seats once more)",
                self.games
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_the_textbook_value() {
        // 70 of 100: the Wilson interval is about 0.604..0.781.
        let (low, high) = wilson(70, 100);
        assert!((low - 0.6041).abs() < 1e-3, "{low}");
        assert!((high - 0.7810).abs() < 1e-3, "{high}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn the_table_says_when_the_seats_did_not_rotate_evenly() {
        let standings = |games| Standings {
            players: vec![Player::Random; 3],
            wins: vec![games / 3; 3],
            games,
            unfinished: 0,
            rolls: Vec::new(),
        };
        assert!(!standings(999).to_string().contains("not a multiple"));
        let uneven = standings(1000).to_string();
        assert!(uneven.contains("not a multiple of 3 players"), "{uneven}");
    }

    #[test]
    fn the_table_says_how_many_rolls_the_games_took() {
        let mut standings = Standings {
            players: vec![Player::Random; 2],
            wins: vec![2, 1],
            games: 4,
            unfinished: 1,
            rolls: vec![300, 100, 200],
        };
        let table = standings.to_string();
        assert!(
            table.contains("rolls per finished game: median 200, longest 300"),
            "{table}"
        );
        standings.rolls.clear();
        assert!(!standings.to_string().contains("rolls per"));
    }

    #[test]
    fn a_player_that_does_not_move_legally_is_an_error_not_a_result() {
        let easy = Player::Bot(crate::bot::Level::Easy);
        let tournament = Tournament {
            rules: RuleSet::Classic(Default::default()),
            players: vec![Player::Random, easy],
            games: 2,
            seed: 1,
            threads: 1,
        };
        let seats = Seats::for_players(2).unwrap();
        // A move of a Matfyz game, which the classic rules refuse.
        let mut matfyz = Game::new(RuleSet::Matfyz, seats, Colour::Red).unwrap();
        matfyz.roll(crate::rules::Die::SIX).unwrap();
        while let Next::Roll { .. } = matfyz.next() {
            matfyz.roll(crate::rules::Die::new(1).unwrap()).unwrap();
        }
        let foreign = Player::Random.choose(&matfyz, 0);
        assert!(foreign.is_some());
        // Game 1 seats easy on red, who moves first: easy answers `answer`.
        let broken = |answer: Option<Move>| {
            move |player, game: &Game, seed| match player {
                Player::Random => Player::Random.choose(game, seed),
                _ => answer,
            }
        };
        let illegal = Err(TournamentError::Illegal {
            game: 1,
            player: easy,
        });
        assert_eq!(tournament.play(seats, 1, broken(None)), illegal);
        assert_eq!(tournament.play(seats, 1, broken(foreign)), illegal);
        let sound = tournament.play(seats, 1, Player::choose);
        assert!(matches!(sound, Ok(Some(_))), "{sound:?}");
    }
}
