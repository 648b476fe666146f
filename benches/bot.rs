//! How long the computer players take per move, on one core
//! (figures in docs/performance.md, "Computer players").
//!
//! `cargo benches --bench bot` first prints the median, 99th percentile and
//! worst time of a move of the hard player and of the tournament's rollout
//! player over real decisions (positions from games between medium players
//! where more than one move is legal), then lets criterion measure the mean
//! time per move of each level over the same positions.

use std::hint::black_box;
use std::time::{Duration, Instant};

use clovece::bench::roll;
use clovece::bot::{Level, Player, choose};
use clovece::rules::{Colour, Game, HouseRules, Next, RuleSet, Seats};
use criterion::{Criterion, criterion_group};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Decisions from games between medium players: games with a move due and
/// more than one legal move.
fn decisions(rules: RuleSet, players: u8, count: usize) -> Vec<Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let seats = Seats::for_players(players).unwrap();
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(rules, seats, Colour::Red).unwrap();
        loop {
            match game.next() {
                Next::Won { .. } => break,
                Next::Roll { .. } => {
                    game.roll(roll(&mut rng)).unwrap();
                }
                Next::Move { .. } => {
                    if game.legal_moves().len() > 1 && out.len() < count {
                        out.push(game);
                    }
                    let mv = choose(&game, Level::Medium, rng.next_u64()).unwrap();
                    game.play(mv).unwrap();
                }
            }
        }
    }
    out
}

/// Prints the median, 99th percentile and worst time of one `player` move
/// over `games` (each timed alone, the best of three runs).
fn percentiles(name: &str, games: &[Game], player: Player) {
    // The first move builds the race table; it is not a move's cost.
    black_box(player.choose(&games[0], 0));
    let mut times: Vec<Duration> = games
        .iter()
        .enumerate()
        .map(|(i, game)| {
            (0..3)
                .map(|_| {
                    let start = Instant::now();
                    black_box(player.choose(black_box(game), i as u64));
                    start.elapsed()
                })
                .min()
                .unwrap_or_default()
        })
        .collect();
    times.sort_unstable();
    let at = |q: usize| times[(times.len() - 1) * q / 100];
    println!(
        "{name} {player}: {} decisions, median {:.2?}, p99 {:.2?}, max {:.2?}",
        times.len(),
        at(50),
        at(99),
        times[times.len() - 1]
    );
}

fn rule_sets() -> [(&'static str, RuleSet, u8); 3] {
    [
        ("classic 4p", RuleSet::Classic(HouseRules::default()), 4),
        ("classic 2p", RuleSet::Classic(HouseRules::default()), 2),
        ("matfyz 4p", RuleSet::Matfyz, 4),
    ]
}

fn per_move(c: &mut Criterion) {
    for (name, rules, players) in rule_sets() {
        let games = decisions(rules, players, 200);
        for level in Level::ALL {
            black_box(choose(&games[0], level, 0));
            let mut i = 0;
            c.bench_function(&format!("{name} {} move", level.name()), |b| {
                b.iter(|| {
                    i = (i + 1) % games.len();
                    black_box(choose(black_box(&games[i]), level, i as u64))
                })
            });
        }
    }
}

criterion_group!(benches, per_move);

fn main() {
    // Only under `cargo bench`, not when `cargo test` runs the bench once.
    if std::env::args().any(|a| a == "--bench") {
        for (name, rules, players) in rule_sets() {
            let games = decisions(rules, players, 1000);
            for player in [Player::Bot(Level::Hard), Player::Rollout] {
                percentiles(name, &games, player);
            }
        }
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
