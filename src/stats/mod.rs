//! Per-player statistics (the Croatian text's win rate, with an extra loss
//! for leaving a game on purpose), kept on the phone.
//!
//! - [`record`]: what one finished game adds, taken from the verified game
//!   log and its result, never from a phone's say-so.
//! - [`store`]: the file of records, crash-safe, readable past damage.
//! - [`tally`]: games, wins, losses and win rate per player, per rule set
//!   and overall, and the dice faces each player rolled.

pub mod record;
pub mod store;
pub mod tally;

pub use record::{GivenUp, Outcome, Played, Record};
pub use store::{Loaded, StatsError, Store};
pub use tally::{PlayerStats, Tally};

use std::io::Write;

/// `clovece stats`: every player's statistics on `out`, most games first;
/// damaged lines of the file are named on `warn` (the rest is shown), and
/// so is a file with no game in it (or none at all).
pub fn report(
    store: &Store,
    out: &mut impl Write,
    warn: &mut impl Write,
) -> Result<(), StatsError> {
    let loaded = store.load()?;
    let write = |e| StatsError::Write(std::path::PathBuf::from("standard output"), e);
    if !loaded.damaged.is_empty() {
        let lines: Vec<String> = loaded.damaged.iter().map(usize::to_string).collect();
        writeln!(
            warn,
            "warning: {}: line {} damaged or from a newer version, and skipped; the other {} games are shown",
            store.path().display(),
            lines.join(", "),
            loaded.records.len()
        )
        .map_err(write)?;
    }
    if loaded.records.is_empty() {
        // Said aside, so that the report itself stays empty.
        writeln!(warn, "no games recorded in {}", store.path().display()).map_err(write)?;
    }
    for player in tally::players(&loaded.records) {
        write!(out, "{player}").map_err(write)?;
    }
    Ok(())
}

/// `clovece friends`: the friends list, the people this phone has played
/// with ([`tally::met`]), with their latest nickname,
/// a line `friend: <peer id> "<name>" games <n>` each, most games first.
pub fn friends(store: &Store, me: libp2p::PeerId, out: &mut impl Write) -> Result<(), StatsError> {
    let loaded = store.load()?;
    let write = |e| StatsError::Write(std::path::PathBuf::from("standard output"), e);
    for player in tally::met(&loaded.records, &me.to_base58()) {
        writeln!(
            out,
            "friend: {} {:?} games {}",
            player.peer, player.name, player.overall.games
        )
        .map_err(write)?;
    }
    Ok(())
}
