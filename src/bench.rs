//! The workloads that `clovece bench` and the criterion benches measure, so
//! both report the same thing.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::rules::classic::{Game, Phase, Position};
use crate::rules::{Colour, Die, HouseRules, Seats};

/// A fair die from a random number generator (rejection sampling, so every
/// face is exactly equally likely).
pub fn roll(rng: &mut impl Rng) -> Die {
    // 2^32 - 4 is the largest multiple of 6 that fits; above it, draw again.
    const LIMIT: u32 = u32::MAX - 3;
    loop {
        let x = rng.next_u32();
        if x < LIMIT {
            return Die::new((x % 6) as u8 + 1).expect("1..=6");
        }
    }
}

/// Plays one classic game to its end with uniformly random legal moves and
/// returns the winner and the number of dice rolled.
pub fn random_playout(house: HouseRules, seats: Seats, rng: &mut impl Rng) -> (Colour, u32) {
    let position = Position::start(seats, Colour::Red).expect("red is always seated");
    let mut game = Game::new(house, position);
    let mut rolls = 0;
    loop {
        match game.phase() {
            Phase::Roll { .. } => {
                rolls += 1;
                // A roll is due, so rolling cannot fail.
                let _ = game.roll(roll(rng));
            }
            Phase::Move { .. } => {
                let moves = game.legal_moves();
                // Multiply-shift maps a 32-bit draw onto 0..len without a
                // division; its bias (below 2^-29) does not matter here.
                let pick = ((u64::from(rng.next_u32()) * moves.len() as u64) >> 32) as usize;
                let mv = moves.get(pick).expect("pick < len");
                let _ = game.play(mv);
            }
            Phase::Won => return (game.position().turn(), rolls),
        }
    }
}

/// The result of [`playouts`].
#[derive(Debug, Clone, Copy)]
pub struct Throughput {
    pub games: u64,
    pub rolls: u64,
    pub elapsed: Duration,
}

impl Throughput {
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }

    pub fn nanos_per_roll(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.rolls as f64
    }
}

/// How long [`playouts`] measures.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    /// Whole batches of 1,000 games until this much time has passed.
    Time(Duration),
    /// Exactly this many games (repeatable work, e.g. under a profiler).
    Games(u64),
}

/// Plays random 4-player classic games on this thread within `budget`.
pub fn playouts(budget: Budget, seed: u64) -> Throughput {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let seats = Seats::for_players(4).expect("4 players");
    let start = Instant::now();
    let (mut games, mut rolls) = (0, 0);
    let mut batch = |n: u64, games: &mut u64| {
        for _ in 0..n {
            // The house rules reach the engine at run time, as in a game,
            // not as constants the compiler could fold into it.
            let house = std::hint::black_box(HouseRules::default());
            rolls += u64::from(random_playout(house, seats, &mut rng).1);
        }
        *games += n;
    };
    match budget {
        Budget::Games(n) => batch(n, &mut games),
        Budget::Time(duration) => {
            while start.elapsed() < duration {
                batch(1000, &mut games);
            }
        }
    }
    Throughput {
        games,
        rolls,
        elapsed: start.elapsed(),
    }
}
