//! The `clovece` command line: with no command it opens the app window;
//! the commands are the app's headless jobs.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use clovece::bench::Budget;
use clovece::bot::Player;
use clovece::bot::tournament::Tournament;
use clovece::lobby::host::Host;
use clovece::lobby::{Filter, Players, RoomOptions, TurnTime};
use clovece::net::game::{GAME_DIR, Joining, Peer, Role};
use clovece::protocol::Theme;
use clovece::rules::{FirstPlayer, HouseRules, RuleSet};
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
        /// How long to measure, in seconds (at least 1).
        #[arg(long, default_value_t = 5, conflicts_with = "games",
          value_parser = clap::value_parser!(u64).range(1..))]
        seconds: u64,
        /// Play exactly this many games instead (repeatable work; at
        /// least 1).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
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
        /// How many of the seats the computer plays (the last ones).
        #[arg(long, default_value_t = 0)]
        computer: u8,
        /// The level of the computer seats: easy, medium or hard.
        #[arg(long, default_value = "medium")]
        computer_level: clovece::bot::Level,
        /// Organise the room from standard input, one command a line:
        /// `order 2 1 3`, `computer SEAT easy|medium|hard|none`,
        /// `remove SEAT`, `start`, `seats`, `invite PEER`. Without it the
        /// game starts as soon as the room is full and every guest is ready.
        #[arg(long)]
        console: bool,
        /// Invite this phone when the room opens (repeatable): a peer id
        /// from `clovece friends` or `clovece nearby`, or an address ending
        /// in /p2p/<peer id>.
        #[arg(long)]
        invite: Vec<clovece::lobby::invite::Target>,
        /// The rule set: classic, croatian or matfyz.
        #[arg(long, default_value = "classic")]
        rules: String,
        /// House rules of the classic rules, comma-separated, named as in
        /// the notation.
        #[arg(long, value_delimiter = ',')]
        house: Vec<String>,
        /// Leave the room out of the nearby rooms list and of lookups by
        /// code: only its ticket joins.
        #[arg(long)]
        private: bool,
        /// Seconds a turn takes: 10, 20, 30 or 60.
        #[arg(long, default_value = "30", value_parser = clap::value_parser!(TurnTime))]
        turn: TurnTime,
        /// The board: classic or sea.
        #[arg(long, default_value = "classic", value_parser = board)]
        board: Theme,
        /// How the first player is chosen: random, red, highest-roll or
        /// first-six [default: the rules' own: first-six for croatian,
        /// highest-roll for matfyz, random for classic].
        #[arg(long, value_parser = first)]
        first: Option<FirstPlayer>,
        #[command(flatten)]
        grace: Grace,
        #[command(flatten)]
        peer: PeerArgs,
    },
    /// List the open rooms nearby with free seats, live: a line `room: …`
    /// when one appears (or its free seats change), `gone: <code>` when it
    /// is full, started or gone.
    Rooms {
        /// The data folder holding this player's identity.
        #[arg(long)]
        data: Option<PathBuf>,
        /// An address to listen on (repeatable).
        #[arg(long, default_value = "/ip4/0.0.0.0/tcp/0")]
        listen: Vec<libp2p::Multiaddr>,
        /// Also ask this phone (an address ending in /p2p/<peer id>;
        /// repeatable), besides the phones found by mDNS.
        #[arg(long)]
        ask: Vec<libp2p::Multiaddr>,
        /// Only rooms of exactly this many players.
        #[arg(long, value_parser = clap::value_parser!(Players))]
        players: Option<Players>,
        /// Only rooms with this turn time in seconds.
        #[arg(long, value_parser = clap::value_parser!(TurnTime))]
        turn: Option<TurnTime>,
        /// Only rooms with this board.
        #[arg(long, value_parser = board)]
        board: Option<Theme>,
        /// Stop after this many seconds.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
    /// Print every player's statistics: games, wins, losses (leaving on
    /// purpose counts two), win rate, per rule set, and dice faces.
    Stats {
        /// The data folder holding the statistics.
        #[arg(long)]
        data: Option<PathBuf>,
    },
    /// Print the friends list: the people this phone has played with.
    Friends {
        /// The data folder holding the identity and statistics.
        #[arg(long)]
        data: Option<PathBuf>,
    },
    /// Wait for an invitation to a room, print it, and accept it (join
    /// and play) or decline it.
    #[command(group = clap::ArgGroup::new("answer").args(["accept", "decline"]).required(true))]
    Invitations {
        /// Join the room and play.
        #[arg(long)]
        accept: bool,
        /// Tell the host no.
        #[arg(long)]
        decline: bool,
        /// Wait at most this many seconds for an invitation.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        #[command(flatten)]
        grace: Grace,
        #[command(flatten)]
        peer: PeerArgs,
    },
    /// Join a room by its ticket or code and play; with no ticket, resume
    /// the saved game (a host restarted on an unfinished game resumes it
    /// too).
    Join {
        /// The room's ticket (`CLOVECE:…`) or six-character code.
        ticket: Option<String>,
        /// Confirm "ready" this many milliseconds after joining.
        #[arg(long, default_value_t = 0)]
        ready_after: u64,
        #[command(flatten)]
        grace: Grace,
        #[command(flatten)]
        peer: PeerArgs,
    },
    /// Play seat-rotated games between computer players and print their
    /// win rates with 95% intervals.
    Tournament(TournamentArgs),
}

/// The wait for a phone that is gone, which the host sets and its guests
/// sign only if it is theirs: a hidden option, for the tests of drops.
#[derive(clap::Args)]
struct Grace {
    /// Seconds the game waits for a phone that is gone before the
    /// computer plays for it.
    #[arg(long = "grace", hide = true, default_value_t = clovece::protocol::header::DEFAULT_GRACE_SECS,
          value_parser = clap::value_parser!(u16).range(1..=45))]
    secs: u16,
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
    /// Play this process's seat by itself: easy, medium or hard. Without
    /// it, the legal moves are listed on the terminal and a move is read.
    #[arg(long)]
    bot: Option<clovece::bot::Level>,
    /// Wait this many milliseconds before each of this player's actions.
    #[arg(long, default_value_t = 0)]
    pace: u64,
    /// At the end, wait at most this many seconds for every peer to hold
    /// the final entry.
    #[arg(long, default_value_t = 60)]
    linger: u64,
    /// This player's nickname, as the others' statistics show it.
    #[arg(long, default_value = "")]
    name: String,
    /// Leave the game on purpose after this many of this player's own
    /// actions (rolls and moves).
    #[arg(long)]
    leave_after: Option<u32>,
    /// For tests: vanish without a word after this many own actions, while
    /// another player moves whose turn does not hand the roll to this one
    /// (so in a game of 3 or 4 players, never of 2).
    #[arg(long, hide = true)]
    drop_after: Option<u32>,
    /// Print `trace:` lines with timestamps (hidden: for the latency
    /// figures of docs/performance.md).
    #[arg(long, hide = true)]
    trace: bool,
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// The rule set: classic, croatian (the classic rules with
    /// no-jump-home) or matfyz.
    #[arg(long, default_value = "classic", value_parser = ["classic", "croatian", "matfyz"])]
    rules: String,
    /// House rules of the classic rules, comma-separated, named as in the
    /// notation (compulsory-capture, optional-bring-out, no-jump-home).
    #[arg(long, value_delimiter = ',')]
    house: Vec<String>,
    /// One player per seat (2 to 4), comma-separated: random, easy, medium,
    /// hard, or rollout (the experimental Monte-Carlo player of docs/bots.md).
    #[arg(long, value_delimiter = ',', required = true)]
    players: Vec<Player>,
    /// Number of games (at least 1; by default 1,200, which rotates the
    /// seats evenly for 2, 3 and 4 players).
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed of the dice and of the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads, 1 to 1024 (default: every core); the results do not
    /// depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    // On iOS this binary is the app, and Xcode or the system may start it
    // with arguments of their own (`-AppleLanguages (de)` for a scheme's
    // language), which clap would refuse, quitting before the window.
    let cli = if cfg!(target_os = "ios") {
        Cli { command: None }
    } else {
        Cli::parse()
    };
    let result = match cli.command {
        None => app(),
        Some(Command::Moves) => answer(clovece::notation::moves),
        Some(Command::Replay) => answer(clovece::notation::replay),
        Some(Command::Bench { seconds, games }) => bench(match games {
            Some(n) => Budget::Games(n),
            None => Budget::Time(Duration::from_secs(seconds)),
        }),
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
            computer_level,
            console,
            invite,
            rules,
            house,
            private,
            turn,
            board,
            first,
            grace,
            peer,
        }) => {
            let opened = Players::from_count(players)
                .ok_or(clovece::lobby::options::OptionsError::Players(
                    players.to_string(),
                ))
                .and_then(|players| {
                    let rules = clovece::lobby::options::rules(&rules, &house)?;
                    let options = RoomOptions {
                        private,
                        players,
                        turn,
                        board,
                        rules,
                        first: first.unwrap_or_else(|| FirstPlayer::for_room(rules)),
                    };
                    let console = console.then(|| {
                        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
                        let boxed: Box<dyn tokio::io::AsyncBufRead + Unpin + Send> =
                            Box::new(stdin);
                        clovece::lobby::host::Console::Lines(tokio::io::AsyncBufReadExt::split(
                            boxed, b'\n',
                        ))
                    });
                    Host::open(&options, &peer.name, computer, computer_level, console)
                        .map(|(table, host)| (table, host.inviting(invite)))
                });
            match opened {
                Ok((table, host)) => play(
                    Role::Host(
                        clovece::net::game::Table {
                            grace_secs: grace.secs,
                            ..table
                        },
                        Box::new(host),
                    ),
                    peer,
                    0,
                ),
                Err(e) => Err(e.to_string()),
            }
        }
        Some(Command::Rooms {
            data,
            listen,
            ask,
            players,
            turn,
            board,
            seconds,
        }) => network(|| async move {
            let keypair = clovece::net::identity::load_or_create(&data_dir(data)?)?;
            let browse = clovece::lobby::nearby::Browse {
                listen,
                ask,
                filter: Filter {
                    players,
                    turn,
                    board,
                },
                duration: Duration::from_secs(seconds),
            };
            clovece::lobby::nearby::run(keypair, browse, &mut std::io::stdout().lock()).await?;
            Ok(())
        }),
        Some(Command::Stats { data }) => {
            data_dir(data).map_err(|e| e.to_string()).and_then(|data| {
                let store = clovece::stats::Store::new(&data);
                // A finished game its process did not record counts too.
                store
                    .record_saved(&data.join(GAME_DIR))
                    .map_err(|e| e.to_string())?;
                clovece::stats::report(
                    &store,
                    &mut std::io::stdout().lock(),
                    &mut std::io::stderr().lock(),
                )
                .map_err(|e| e.to_string())
            })
        }
        Some(Command::Join {
            ticket,
            ready_after,
            grace,
            peer,
        }) => {
            let joining = ticket.map(|link| Joining {
                grace_secs: grace.secs,
                ..Joining::by(link)
            });
            play(Role::Join(joining), peer, ready_after)
        }
        Some(Command::Friends { data }) => network(|| async move {
            let data = data_dir(data)?;
            let me = clovece::net::identity::load_or_create(&data)?
                .public()
                .to_peer_id();
            let store = clovece::stats::Store::new(&data);
            clovece::stats::friends(&store, me, &mut std::io::stdout().lock())?;
            Ok(())
        }),
        Some(Command::Invitations {
            accept,
            decline: _,
            seconds,
            grace,
            peer,
        }) => network(|| async move {
            let data = data_dir(peer.data.clone())?;
            let keypair = clovece::net::identity::load_or_create(&data)?;
            let answer = if accept {
                clovece::lobby::invite::Answer::Accept
            } else {
                clovece::lobby::invite::Answer::Decline
            };
            let invitation = clovece::lobby::invite::receive(
                keypair,
                peer.listen.clone(),
                Duration::from_secs(seconds),
                answer,
                &mut std::io::stdout().lock(),
            )
            .await?;
            match invitation {
                Some(invitation) => {
                    let joining = Joining {
                        grace_secs: grace.secs,
                        ..Joining::listed(invitation.ticket.to_string(), invitation.listing)
                    };
                    let role = Role::Join(Some(joining));
                    game(role, peer, 0).await
                }
                None => Ok(()),
            }
        }),
        Some(Command::Tournament(args)) => tournament(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Nothing more can be said when standard error is closed too.
            let _ = writeln!(std::io::stderr(), "clovece: {}", one_line(&message));
            ExitCode::from(2)
        }
    }
}

/// The data folder: `--data`, or the platform's.
fn data_dir(data: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    data.or_else(clovece::durable::default_dir)
        .context("no data folder: pass --data DIR")
}

fn board(s: &str) -> Result<Theme, clovece::lobby::options::OptionsError> {
    clovece::lobby::options::board(s)
}

fn first(s: &str) -> Result<FirstPlayer, clovece::lobby::options::OptionsError> {
    clovece::lobby::options::first(s)
}

/// Runs `host` or `join` as `role`.
fn play(role: Role, args: PeerArgs, ready_after: u64) -> Result<(), String> {
    network(|| game(role, args, ready_after))
}

/// Plays a game as `role` and records it in the statistics.
async fn game(role: Role, args: PeerArgs, ready_after: u64) -> anyhow::Result<()> {
    let data = data_dir(args.data)?;
    let keypair = clovece::net::identity::load_or_create(&data)?;
    let peer = Peer {
        role,
        data: data.clone(),
        listen: args.listen,
        mdns: true,
        // libp2p's mDNS is the only discovery on the command line.
        sightings: None,
        pace: Duration::from_millis(args.pace),
        // Machines follow the log, not the board.
        computer_pace: Duration::ZERO,
        linger: Duration::from_secs(args.linger),
        name: args.name,
        ready_after: Some(Duration::from_millis(ready_after)),
        leave_after: args.leave_after,
        drop_after: args.drop_after,
    };
    let stats = clovece::stats::Store::new(&data);
    let dir = data.join(GAME_DIR);
    // A new game replaces a finished one: first record it, should its
    // process have been stopped before it did.
    stats.record_saved(&dir)?;
    let mut front = clovece::net::lines::Lines::new(std::io::stdout().lock(), args.bot, args.trace);
    let finished = clovece::net::game::run(keypair, peer, &mut front).await?;
    stats.record(&finished)?;
    // A leave taken out as the phone went (a certificate the others
    // completed at its place outranks it, docs/protocol.md) and not signed
    // again before the linger ran out is recorded all the same; its game
    // goes, as the app's Leave does, rather than stay for the next `host`
    // to resume.
    let phone = &finished.phone;
    if !phone.leaving() || phone.log().over_for(phone.seat()) {
        return Ok(());
    }
    drop(finished);
    // Moved aside first, so that a process stopped while removing it
    // leaves no half a game for the next `host` to call damaged; what such
    // a process left there goes first, as the move cannot go over it.
    let gone = dir.with_extension("given-up");
    let cleared = match std::fs::remove_dir_all(&gone) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        cleared => cleared,
    };
    cleared
        .and_then(|()| std::fs::rename(&dir, &gone))
        .and_then(|()| std::fs::remove_dir_all(&gone))
        .with_context(|| format!("cannot remove the game given up in {}", dir.display()))
}

/// Runs the app, logging its warnings to stderr.
fn app() -> Result<(), String> {
    log_to_stderr();
    // The window system's errors come in several lines (each backend
    // tried), which read better joined than escaped.
    clovece::app::run().map_err(|e| {
        e.to_string()
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// Runs a networked command on a tokio runtime, logging to stderr
/// (`RUST_LOG` sets the level; warnings by default).
fn network<F, Fut>(f: F) -> Result<(), String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    log_to_stderr();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(f()).map_err(|e| chain(&e))
}

/// Logs to stderr (`RUST_LOG` sets the level; warnings by default): the
/// network commands', and the app's own warnings (a save that failed, a
/// damaged file set aside), which Xcode's console shows on iOS.
fn log_to_stderr() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colours only for a person at a terminal, not in a file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

/// `e` and its causes on one line, each cause once: many errors already
/// end with their source's words (`cannot read F: No such file`), and some
/// of libp2p's say nothing at all.
fn chain(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain().map(ToString::to_string) {
        if cause.is_empty() || line.ends_with(&cause) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&cause);
    }
    line
}

/// Reads stdin, answers it with `f` and prints the answer on stdout.
fn answer<E: std::fmt::Display>(f: fn(&str) -> Result<String, E>) -> Result<(), String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let out = f(&input).map_err(|e| e.to_string())?;
    print_out(&format!("{out}\n"))
}

/// Writes `text` on standard output: an error rather than a panic when
/// the reader has gone (`clovece moves | head -c 1`).
fn print_out(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write standard output: {e}"))
}

fn bench(budget: Budget) -> Result<(), String> {
    let t = clovece::bench::playouts(budget, 1);
    print_out(&format!(
        "random 4-player classic playouts: {:.0} games/s on one core ({} games, {:.1} rolls/game, {:.1} ns/roll)\n",
        t.games_per_second(),
        t.games,
        t.rolls as f64 / t.games as f64,
        t.nanos_per_roll()
    ))
}

/// The message with control characters and line breaks escaped, so that
/// an error quoting hostile input (a key with a newline, or U+2028, in it)
/// stays on one line for any reader.
fn one_line(message: &str) -> String {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    message
        .chars()
        .flat_map(|c| {
            let escaped = breaks(c).then(|| c.escape_default());
            escaped
                .into_iter()
                .flatten()
                .chain((!breaks(c)).then_some(c))
        })
        .collect()
}

/// Plays a tournament and prints its table (the time taken on stderr).
fn tournament(args: TournamentArgs) -> Result<(), String> {
    let rules =
        clovece::lobby::options::rules(&args.rules, &args.house).map_err(|e| e.to_string())?;
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        usize::from,
    );
    let tournament = Tournament {
        rules,
        players: args.players,
        games: args.games,
        seed: args.seed,
        threads,
    };
    let started = std::time::Instant::now();
    let standings = tournament.run().map_err(|e| e.to_string())?;
    let house = match rules {
        RuleSet::Classic(house) if house != HouseRules::default() => {
            clovece::notation::house_names(house).join(",")
        }
        _ => "none".to_owned(),
    };
    print_out(&format!(
        "rules {}, house rules {house}, {} players, {} games, seed {}\n{standings}",
        args.rules,
        tournament.players.len(),
        tournament.games,
        tournament.seed
    ))?;
    let _ = writeln!(
        std::io::stderr(),
        "{:.1} s on {threads} thread{}",
        started.elapsed().as_secs_f64(),
        if threads == 1 { "" } else { "s" }
    );
    Ok(())
}
