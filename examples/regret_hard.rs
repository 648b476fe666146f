//! How much the hard player's moves lose against full-game Monte-Carlo
//! rollouts (docs/bots.md, "How much is left to gain"):
//!
//! ```text
//! cargo run --release --example regret_hard -- --opponents random \
//!     --games 100 --rollouts 1000 --seed 1
//! ```
//!
//! Prints the decisions audited, how often the rollouts pick another move
//! and what that pick gains in win rate per game and per decision; with
//! `--differences`, also each decision where the two moves differ and the
//! gain summed by what the two moves do. The same arguments print the same
//! figures, whatever the number of threads.

use std::collections::BTreeMap;

use clap::Parser;
use clovece::bot::Player;
use clovece::bot::regret::{Audit, Difference};
use clovece::rules::classic::Phase;
use clovece::rules::{Game, Move, Place};

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
    /// How the rollouts that pick a move model the opponents (default: as
    /// `--opponents`, exactly); the rollouts that measure the gain always
    /// play them exactly.
    #[arg(long)]
    believed: Option<Player>,
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
    /// Also print every decision where the rollouts pick another move, and
    /// the gain by the kinds of the two moves.
    #[arg(long)]
    differences: bool,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let rules = clovece::lobby::options::rules(&args.rules, &[]).map_err(|e| e.to_string())?;
    let audit = Audit {
        rules,
        player: args.player,
        opponents: args.opponents,
        believed: args.believed,
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
    let believed = args
        .believed
        .map(|b| format!(" (picked as if {b})"))
        .unwrap_or_default();
    println!(
        "{} {} vs {} {}{believed}, {} rollouts a move and set, seed {}",
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
        report.differences.len()
    );
    println!(
        "gain of the rollouts' pick: {:+.2} ± {:.2} points of win rate a game ({:+.3} a decision)",
        100.0 * gain,
        100.0 * half,
        100.0 * gain / per_game.max(1.0),
    );
    if args.differences {
        print_differences(&report.differences, report.gains.len());
    }
    eprintln!("{:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Each difference, then the gain a game summed by the kinds of the
/// rollouts' pick and the player's move.
fn print_differences(differences: &[Difference], games: usize) {
    let mut by_kind: BTreeMap<(&str, &str), (u32, f64)> = BTreeMap::new();
    for d in differences {
        let (pick, played) = (kind(&d.before, d.pick), kind(&d.before, d.played));
        println!(
            "game {}, {}: {} ({pick}) instead of {} ({played}): {:+.2} points",
            d.game,
            position(&d.before),
            d.pick,
            d.played,
            100.0 * d.gain
        );
        let entry = by_kind.entry((pick, played)).or_default();
        *entry = (entry.0 + 1, entry.1 + d.gain);
    }
    println!("| the rollouts' pick | instead of | decisions | gain, points a game |");
    println!("|---|---|---:|---:|");
    for ((pick, played), (count, gain)) in by_kind {
        let per_game = 100.0 * gain / games.max(1) as f64;
        println!("| {pick} | {played} | {count} | {per_game:+.2} |");
    }
}

/// The classic position, `red 4: B,B,T6,T13; blue: …` (the colour to
/// move first, with its roll); Matfyz positions are not spelled out.
fn position(game: &Game) -> String {
    let Game::Classic(game) = game else {
        return "a Matfyz position".to_string();
    };
    let position = game.position();
    let roll = match game.phase() {
        Phase::Move { roll } => format!(" {roll}"),
        _ => String::new(),
    };
    let mut colour = position.turn();
    let mut text = Vec::new();
    for _ in position.seats().iter() {
        let places: Vec<String> = position
            .places(colour)
            .iter()
            .map(ToString::to_string)
            .collect();
        let rolled = if colour == position.turn() {
            roll.as_str()
        } else {
            ""
        };
        text.push(format!("{colour}{rolled}: {}", places.join(",")));
        colour = position.seats().after(colour);
    }
    text.join("; ")
}

/// What a move does, in a few words.
fn kind(game: &Game, mv: Move) -> &'static str {
    let mut after = *game;
    let captures = after.play(mv).is_ok_and(|p| p.captured.is_some());
    match mv {
        _ if captures => "capture",
        Move::Matfyz(_) => "run",
        Move::Classic(m) => match (m.from(), m.to()) {
            (Place::Base, _) => "bring out",
            (Place::Home(_), _) => "within the home row",
            (_, Place::Home(_)) => "into the home row",
            (Place::Track(square), _) if square == m.colour().start() => "leave the start square",
            _ => "advance",
        },
    }
}
