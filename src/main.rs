//! The `clovece` command line: with no command it opens the app window;
//! the commands are the app's headless jobs.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use clovece::bench::Budget;
use clovece::bot::Player;
use clovece::bot::tournament::Tournament;
use clovece::net::game::{Peer, Role, Table};
use clovece::rules::RuleSet;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "clovece",
    version,
    about = "Central-European Ludo over Wi-Fi, with no server"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
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
    /// List the clovece phones nearby (found by mDNS), with timestamps.
    Nearby {
        /// The data folder holding this player's identity.
        #[arg(long)]
        data: Option<PathBuf>,
        /// An address to listen on (repeatable).
        #[arg(long, default_value = "/ip4/0.0.0.0/tcp/0")]
        listen: Vec<libp2p::Multiaddr>,
        /// Stop after finding this many phones.
        #[arg(long)]
        count: Option<usize>,
        /// Stop after this many seconds.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
    /// Read a position, a roll, a level and a seed (JSON) on stdin; print
    /// the computer player's move.
    Bot,
    /// Open a room, print its ticket and code, and play a game in it.
    Host {
        /// Seats in all (2 to 4).
        #[arg(long, default_value_t = 4)]
        players: u8,
        /// How many of the seats the computer plays.
        #[arg(long, default_value_t = 0)]
        computer: u8,
        /// The rule set.
        #[arg(long, default_value = "classic", value_parser = ["classic", "matfyz"])]
        rules: String,
        /// House rules of the classic rules, comma-separated, named as in
        /// the notation.
        #[arg(long, value_delimiter = ',')]
        house: Vec<String>,
        /// Leave the room out of lookups by code: only its ticket joins.
        #[arg(long)]
        private: bool,
        #[command(flatten)]
        peer: PeerArgs,
    },
    /// Join a room by its ticket or code and play; with no ticket, resume
    /// the saved game.
    Join {
        /// The room's ticket (`CLOVECE:…`) or six-character code.
        ticket: Option<String>,
        #[command(flatten)]
        peer: PeerArgs,
    },
    /// Play seat-rotated games between computer players and print their
    /// win rates with 95% intervals.
    Tournament(TournamentArgs),
}

/// What `host` and `join` share.
#[derive(clap::Args)]
struct PeerArgs {
    /// The data folder: identity and saved game.
    #[arg(long)]
    data: Option<PathBuf>,
    /// An address to listen on (repeatable).
    #[arg(long, default_value = "/ip4/0.0.0.0/tcp/0")]
    listen: Vec<libp2p::Multiaddr>,
    /// Play this process's seat by itself: easy, medium or hard.
    #[arg(long)]
    bot: Option<clovece::bot::Level>,
    /// Wait this many milliseconds before each of this player's actions.
    #[arg(long, default_value_t = 0)]
    pace: u64,
    /// At the end, wait at most this many seconds for every peer to hold
    /// the final entry.
    #[arg(long, default_value_t = 60)]
    linger: u64,
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// The rule set.
    #[arg(long, default_value = "classic", value_parser = ["classic", "matfyz"])]
    rules: String,
    /// House rules of the classic rules, comma-separated, named as in the
    /// notation (compulsory-capture, optional-bring-out, no-jump-home);
    /// the Croatian preset is no-jump-home.
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
        None => clovece::app::run().map_err(|e| e.to_string()),
        Some(Command::Moves) => answer(clovece::notation::moves),
        Some(Command::Replay) => answer(clovece::notation::replay),
        Some(Command::Bench { seconds, games }) => {
            bench(match games {
                Some(n) => Budget::Games(n),
                None => Budget::Time(Duration::from_secs(seconds)),
            });
            Ok(())
        }
        Some(Command::Nearby {
            data,
            listen,
            count,
            seconds,
        }) => network(|| async move {
            let keypair = clovece::net::identity::load_or_create(&data_dir(data)?)?;
            let nearby = clovece::net::nearby::Nearby {
                listen,
                count,
                timeout: Duration::from_secs(seconds),
            };
            clovece::net::nearby::run(keypair, nearby, &mut std::io::stdout().lock()).await?;
            Ok(())
        }),
        Some(Command::Bot) => answer(clovece::notation::bot),
        Some(Command::Host {
            players,
            computer,
            rules,
            house,
            private,
            peer,
        }) => match table(players, computer, &rules, &house, private) {
            Ok(table) => play(Role::Host(table), peer),
            Err(e) => Err(e.to_string()),
        },
        Some(Command::Join { ticket, peer }) => play(Role::Join(ticket), peer),
        Some(Command::Tournament(args)) => tournament(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("clovece: {}", one_line(&message));
            ExitCode::from(2)
        }
    }
}

/// The data folder: `--data`, or the platform's.
fn data_dir(data: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    data.or_else(clovece::net::identity::default_dir)
        .context("no data folder: pass --data DIR")
}

/// The host's table from its command line.
fn table(
    players: u8,
    computers: u8,
    rules: &str,
    house: &[String],
    private: bool,
) -> anyhow::Result<Table> {
    let rules = match rules {
        "matfyz" if house.is_empty() => RuleSet::Matfyz,
        "matfyz" => anyhow::bail!("house rules are for the classic rules only"),
        _ => RuleSet::Classic(clovece::notation::house_rules(house)?),
    };
    Ok(Table {
        players,
        computers,
        rules,
        private,
    })
}

/// Runs `host` or `join` as `role`.
fn play(role: Role, args: PeerArgs) -> Result<(), String> {
    network(|| async move {
        let data = data_dir(args.data)?;
        let keypair = clovece::net::identity::load_or_create(&data)?;
        let peer = Peer {
            role,
            data,
            listen: args.listen,
            bot: args.bot,
            pace: Duration::from_millis(args.pace),
            linger: Duration::from_secs(args.linger),
        };
        clovece::net::game::run(keypair, peer, &mut std::io::stdout().lock()).await?;
        Ok(())
    })
}

/// Runs a networked command on a tokio runtime, logging to stderr
/// (`RUST_LOG` sets the level; warnings by default).
fn network<F, Fut>(f: F) -> Result<(), String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(f()).map_err(|e| format!("{e:#}"))
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

/// Plays a tournament and prints its table (the time taken on stderr).
fn tournament(args: TournamentArgs) -> Result<(), String> {
    let house = clovece::notation::house_rules(&args.house).map_err(|e| e.to_string())?;
    let rules = match args.rules.as_str() {
        "matfyz" if !args.house.is_empty() => {
            return Err("house rules belong to the classic rules, not to matfyz".to_owned());
        }
        "matfyz" => RuleSet::Matfyz,
        _ => RuleSet::Classic(house),
    };
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let tournament = Tournament {
        rules,
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
