//! The `clovece` command line: the app's headless jobs.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use clovece::bot::Player;
use clovece::bot::tournament::Tournament;
use clovece::rules::RuleSet;

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
    /// Read a position, a roll, a level and a seed (JSON) on stdin; print
    /// the computer player's move.
    Bot,
    /// Play seat-rotated games between computer players and print their
    /// win rates with 95% intervals.
    Tournament(TournamentArgs),
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// The rule set.
    #[arg(long, default_value = "classic", value_parser = ["classic"])]
    rules: String,
    /// House rules, comma-separated, named as in the notation
    /// (compulsory-capture, optional-bring-out, no-jump-home).
    #[arg(long, value_delimiter = ',')]
    house: Vec<String>,
    /// One player per seat (2 to 4), comma-separated: random, easy, medium
    /// or hard.
    #[arg(long, value_delimiter = ',', required = true)]
    players: Vec<Player>,
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Seed of the dice and of the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves => answer(clovece::notation::moves),
        Command::Replay => answer(clovece::notation::replay),
        Command::Bot => answer(clovece::notation::bot),
        Command::Tournament(args) => tournament(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("clovece: {message}");
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

/// Plays a tournament and prints its table (the time taken on stderr).
fn tournament(args: TournamentArgs) -> Result<(), String> {
    let house = clovece::notation::house_rules(&args.house).map_err(|e| e.to_string())?;
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let tournament = Tournament {
        rules: RuleSet::Classic(house),
        players: args.players,
        games: args.games,
        seed: args.seed,
        threads,
    };
    let started = std::time::Instant::now();
    let standings = tournament.run().map_err(|e| e.to_string())?;
    let house = if args.house.is_empty() {
        "none".to_owned()
    } else {
        args.house.join(",")
    };
    println!(
        "rules {}, house rules {house}, {} players, {} games, seed {}",
        args.rules,
        tournament.players.len(),
        tournament.games,
        tournament.seed
    );
    print!("{standings}");
    eprintln!(
        "{:.1} s on {threads} threads",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
