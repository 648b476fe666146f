//! Feeds arbitrary bytes to the message decoder, and every entry it decodes
//! to the log of a game in progress: nothing may panic, a decoded message
//! must encode and decode to itself, and a refused entry must leave the log
//! as it was.

#![no_main]

use std::sync::OnceLock;

use clovece::protocol::sim::{Config, Table};
use clovece::protocol::{Log, Message};
use clovece::rules::Seats;
use libfuzzer_sys::fuzz_target;

/// A three-player game, a few dozen entries in.
fn game() -> &'static Log {
    static GAME: OnceLock<Log> = OnceLock::new();
    GAME.get_or_init(|| {
        let seats = Seats::for_players(3).expect("three players");
        let mut table = Table::new(&Config::new(7, seats)).expect("a game");
        for _ in 0..40 {
            table.step();
        }
        table.log().clone()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(message) = Message::decode(data) else {
        return;
    };
    assert_eq!(Message::decode(&message.encode()).as_ref(), Ok(&message));
    let entries = match message {
        Message::Entry(entry) => vec![entry],
        Message::Entries { entries } => entries,
        _ => return,
    };
    let mut log = game().clone();
    for entry in entries {
        let before = (log.len(), log.head());
        if log.offer(entry).is_err() {
            assert_eq!((log.len(), log.head()), before);
        }
    }
});
