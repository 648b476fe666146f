//! Trains the hard player's learnt evaluation by TD(λ) self-play and
//! prints the weights file (docs/bots.md, "The learnt evaluation"):
//!
//! ```text
//! cargo run --release --example train_hard -- --games 300000 --seed 1 \
//!     --lambda 0.8 > src/bot/classic/learnt_weights.rs
//! ```
//!
//! Progress goes to stderr. The same arguments give the same file.

use clap::Parser;
use clovece::bot::train::{Config, Opponents, train};

/// TD(λ) self-play for the hard player's evaluation.
#[derive(Parser)]
struct Args {
    /// Games of self-play.
    #[arg(long, default_value_t = Config::default().games)]
    games: u32,
    /// Seed of the dice.
    #[arg(long, default_value_t = Config::default().seed)]
    seed: u64,
    /// Step size at the start (it falls to a tenth by the end).
    #[arg(long, default_value_t = Config::default().alpha)]
    alpha: f64,
    /// TD(λ)'s λ.
    #[arg(long, default_value_t = Config::default().lambda)]
    lambda: f64,
    /// Train one seat against random and medium players instead of
    /// self-play.
    #[arg(long)]
    pool: bool,
}

fn main() {
    let args = Args::parse();
    let config = Config {
        games: args.games,
        seed: args.seed,
        alpha: args.alpha,
        lambda: args.lambda,
        opponents: if args.pool {
            Opponents::Pool
        } else {
            Opponents::SelfPlay
        },
    };
    let weights = train(&config, |games, weights| {
        eprintln!("{games} games: {:?}", weights.quantised());
    });
    print!("{}", weights.rust_source(&config));
}
