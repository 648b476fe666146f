//! How much the hard player's moves lose against full-game Monte-Carlo
//! rollouts (docs/bots.md, "How much is left to gain"):
//!
//! ```text
//! cargo run --release --example regret_hard -- --opponents random \
//!     --games 100 --rollouts 1000 --seed 1
//! ```
//!
//! Prints the decisions audited, how often the rollouts pick another move
//! and what that pick gains in win rate per game and per decision. The same
//! arguments print the same figures, whatever the number of threads.

use clap::Parser;
use clovece::bot::Player;
use clovece::bot::regret::Audit;

/// Audits a player's moves with full-game rollouts.
#[derive(Parser)]
struct Args {
    /// classic, croatian or matfyz.
    #[arg(long, default_value = "classic")]
    rules: String,
    /// The audited player.
    #[arg(long, default_value = "hard")]
    player: Player,
    /// Its opponents: random or medium (in the rollouts too).
    #[arg(long, default_value = "random")]
    opponents: Player,
    /// Players in a game, the audited one included.
    #[arg(long, default_value_t = 4)]
    seats: u8,
    /// Games whose every decision of the player is audited.
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// Rollouts of each legal move, in each of the two sets.
    #[arg(long, default_value_t = 1000)]
    rollouts: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core); the figures do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let rules = clovece::lobby::options::rules(&args.rules, &[]).map_err(|e| e.to_string())?;
    let audit = Audit {
        rules,
        player: args.player,
        opponents: args.opponents,
        seats: args.seats,
        games: args.games,
        rollouts: args.rollouts,
        seed: args.seed,
        threads: args.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    let started = std::time::Instant::now();
    let report = audit.run().ok_or("a game has 2, 3 or 4 players")?;
    let (gain, half) = report.gain();
    let per_game = report.per_game();
    println!(
        "{} {} vs {} {}, {} rollouts a move and set, seed {}",
        args.rules,
        args.player,
        args.seats - 1,
        args.opponents,
        args.rollouts,
        args.seed
    );
    println!(
        "{} decisions in {} games ({per_game:.1} a game); the rollouts pick another move in {}",
        report.decisions,
        report.gains.len(),
        report.differ
    );
    println!(
        "gain of the rollouts' pick: {:+.2} ± {:.2} points of win rate a game ({:+.3} a decision)",
        100.0 * gain,
        100.0 * half,
        100.0 * gain / per_game.max(1.0),
    );
    eprintln!("{:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
