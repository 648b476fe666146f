//! Writes the fuzz target's seeds (docs/protocol.md, "Tests and fuzzing"):
//! one message of every kind from a real game, each in its own file, so that
//! the fuzzer starts from well-formed messages. Run again when the wire
//! format changes:
//!
//! ```text
//! cargo run --example fuzz_seeds -- fuzz/seeds/decode_message
//! ```

use std::path::PathBuf;

use clovece::protocol::sim::{Config, Table};
use clovece::protocol::{Act, Actor, Change, Colours, Due, Entry, Message, Reveal};
use clovece::rules::{Colour, Seats};

fn main() {
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| "fuzz/seeds/decode_message".into(), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("the seeds' folder");
    let mut table =
        Table::new(&Config::new(7, Seats::for_players(3).expect("3 players"))).expect("a game");
    let mut messages = Vec::new();
    // The opening and some turns: rolls, moves, computer turns.
    while table.log().len() < 30 {
        messages.push(Message::Entry(table.next_entry().expect("an entry")));
        assert!(table.step());
    }
    // Green is certified gone, the computer plays for it, green is back.
    while !matches!(
        table.log().due(),
        Due::Roll {
            by: Actor::Player(Colour::Green),
            ..
        }
    ) {
        assert!(table.step());
    }
    let roll = table.log().state().rolls() + 1;
    let value = table
        .chain(Colour::Green)
        .expect("green")
        .reveal(roll)
        .expect("a link");
    messages.push(Message::Reveal(Reveal {
        roll,
        seat: Colour::Green,
        value,
    }));
    let gone = Change::Gone(Colours::one(Colour::Green));
    messages.push(Message::Vote(table.vote(gone, Colour::Red).expect("red")));
    let cert = table.certificate(gone).expect("the votes");
    messages.push(Message::Entry(cert.clone()));
    table.log_mut().offer(cert).expect("the certificate");
    messages.push(Message::Entry(
        table.next_entry().expect("the computer's roll"),
    ));
    let back = Change::Back(Colour::Green);
    messages.push(Message::Vote(
        table.vote(back, Colour::Green).expect("green"),
    ));
    let cert = table.certificate(back).expect("the votes");
    messages.push(Message::Entry(cert.clone()));
    table.log_mut().offer(cert).expect("the return");
    // A player who signs two moves for one place, and the proof of it.
    while !matches!(
        table.log().due(),
        Due::Move {
            by: Actor::Player(_),
            ..
        }
    ) || table
        .log()
        .state()
        .game()
        .expect("a game")
        .legal_moves()
        .len()
        < 2
    {
        assert!(table.step());
    }
    let Due::Move { seat, .. } = table.log().due() else {
        unreachable!("a move is due")
    };
    let moves = table.log().state().game().expect("a game").legal_moves();
    let [a, b] = [moves[0], moves[1]].map(|mv| {
        table
            .sign(seat, Act::Move { mv, auto: false })
            .expect("a player")
    });
    messages.push(Message::Entry(Entry::expose(&a, &b).expect("a proof")));
    // Red leaves in its turn.
    while !matches!(
        table.log().due(),
        Due::Roll {
            by: Actor::Player(Colour::Red),
            ..
        }
    ) {
        assert!(table.step());
    }
    let leave = table.sign(Colour::Red, Act::Leave).expect("red");
    messages.push(Message::Entry(leave.clone()));
    table.log_mut().offer(leave).expect("the leave");
    let log = table.log();
    messages.push(Message::Entries {
        entries: log.entries()[10..20].to_vec(),
    });
    messages.push(Message::Status {
        len: log.len(),
        head: log.head(),
        missing: Colours::one(Colour::Blue),
    });
    messages.push(Message::Sync { from: 12 });
    while table.step() {}
    let result = table.log().result().expect("the end");
    messages.push(Message::Result {
        seat: Colour::Blue,
        head: table.log().head(),
        signature: result.sign(table.signer(Colour::Blue).expect("blue")),
    });
    for (n, message) in messages.iter().enumerate() {
        let bytes = message.encode();
        assert_eq!(Message::decode(&bytes).as_ref(), Ok(message));
        std::fs::write(dir.join(format!("seed{n:02}")), bytes).expect("a seed");
    }
    println!("{} seeds in {}", messages.len(), dir.display());
}
