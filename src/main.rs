//! The `clovece` command line: the app's headless jobs.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves => answer(clovece::notation::moves),
        Command::Replay => answer(clovece::notation::replay),
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
