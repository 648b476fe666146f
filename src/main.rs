//! The `clovece` command line: the app's headless jobs.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use clovece::bench::Budget;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "clovece",
    version,
    about = "Central-European Ludo over Wi-Fi, with no server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a position and a roll (JSON) on stdin; print the legal moves.
    Moves,
    /// Read a position and a script of rolls and moves (JSON) on stdin;
    /// print the resulting position and what is due next.
    Replay,
    /// Measure the rules engine: random 4-player classic playouts per
    /// second on one core.
    Bench {
        /// How long to measure, in seconds.
        #[arg(long, default_value_t = 5, conflicts_with = "games")]
        seconds: u64,
        /// Play exactly this many games instead (repeatable work).
        #[arg(long)]
        games: Option<u64>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves => answer(clovece::notation::moves),
        Command::Replay => answer(clovece::notation::replay),
        Command::Bench { seconds, games } => {
            bench(match games {
                Some(n) => Budget::Games(n),
                None => Budget::Time(Duration::from_secs(seconds)),
            });
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("clovece: {}", one_line(&message));
            ExitCode::from(2)
        }
    }
}

/// Reads stdin, answers it with `f` and prints the answer on stdout.
fn answer<E: std::fmt::Display>(f: fn(&str) -> Result<String, E>) -> Result<(), String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let out = f(&input).map_err(|e| e.to_string())?;
    println!("{out}");
    Ok(())
}

fn bench(budget: Budget) {
    let t = clovece::bench::playouts(budget, 1);
    println!(
        "random 4-player classic playouts: {:.0} games/s on one core ({} games, {:.1} rolls/game, {:.1} ns/roll)",
        t.games_per_second(),
        t.games,
        t.rolls as f64 / t.games as f64,
        t.nanos_per_roll()
    );
}

/// The message with control characters escaped, so that an error quoting
/// hostile input (a key with a newline in it) stays on one line.
fn one_line(message: &str) -> String {
    message
        .chars()
        .flat_map(|c| {
            let escaped = c.is_control().then(|| c.escape_default());
            escaped
                .into_iter()
                .flatten()
                .chain((!c.is_control()).then_some(c))
        })
        .collect()
}
