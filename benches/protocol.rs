//! Game-log figures for docs/performance.md: entries validated and applied
//! per second, what a copy of a message already taken costs a phone and
//! what one signature check costs (timed), and, printed before the
//! timings, messages per roll per phone and bytes per event on the wire
//! (counted in simulated games).
//!
//! Run with `cargo benches --bench protocol`.

use std::hint::black_box;

use clovece::protocol::sim::{Config, Faults, Sim, Table};
use clovece::protocol::{Act, Auto, Colours, Due, Entry, Kind, Log, Message, Reveal, Seat, Signed};
use clovece::rules::{Colour, Seats};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

#[path = "../tests/protocol_support/mod.rs"]
mod protocol_support;

use protocol_support::{certified_gone, phone_of, play_until, roll_due_for};

/// A finished game on `seats`, the colours in `computers` played by the
/// computer.
fn finished(seats: Seats, computers: Colours) -> Table {
    let mut config = Config::new(1, seats);
    config.computers = computers;
    let mut table = Table::new(&config).expect("a game");
    while table.step() {}
    table
}

fn kind(entry: &Entry) -> &'static str {
    match &entry.kind {
        Kind::Player(Signed {
            act: Act::Roll(_), ..
        }) => "player's roll",
        Kind::Player(Signed {
            act: Act::Move { .. },
            ..
        }) => "player's move",
        Kind::Player(_) => "player's return or leave",
        Kind::Computer(Auto::Roll(_)) => "computer's roll",
        Kind::Computer(Auto::Move(_)) => "computer's move",
        Kind::Absent(_) => "absence certificate",
        Kind::Cheat(_) => "proof of cheating",
    }
}

/// Bytes on the wire of each kind of message, averaged over a game.
fn print_sizes() {
    let table = finished(
        Seats::for_players(4).expect("4"),
        Colours::one(Colour::Blue),
    );
    let mut sizes: Vec<(&str, usize, usize)> = Vec::new();
    for entry in table.log().entries() {
        let bytes = Message::Entry(entry.clone()).encode().len();
        match sizes.iter_mut().find(|(k, _, _)| *k == kind(entry)) {
            Some((_, total, count)) => {
                *total += bytes;
                *count += 1;
            }
            None => sizes.push((kind(entry), bytes, 1)),
        }
    }
    println!("bytes per entry message (4 seats, blue a computer seat, 3 phones):");
    for (kind, total, count) in sizes {
        println!(
            "  {kind:<26} {:>6.1} bytes  ({count} entries)",
            total as f64 / count as f64
        );
    }
    let chain = table.chain(Colour::Red).expect("red is a phone");
    let reveal = Message::Reveal(Reveal {
        roll: 300,
        seat: Colour::Red,
        value: chain.reveal(300).expect("long enough"),
    });
    println!("  {:<26} {:>6} bytes", "reveal", reveal.encode().len());
    let log = table.log();
    let status = Message::Status {
        len: log.len(),
        head: log.head(),
        missing: Colours::NONE,
    };
    println!("  {:<26} {:>6} bytes", "status", status.encode().len());
    let header = postcard::to_stdvec(log.header()).expect("a header encodes");
    println!(
        "  {:<26} {:>6} bytes",
        "signed header (3 phones)",
        header.len()
    );
}

/// Messages per roll per phone in simulated games.
fn print_messages() {
    println!("messages per roll per phone (roll entries and reveals):");
    for (phones, faults) in [
        (2, Faults::default()),
        (3, Faults::default()),
        (4, Faults::default()),
        (
            4,
            Faults {
                drop: 100,
                max_delay: 200,
                ..Faults::default()
            },
        ),
    ] {
        let mut config = Config::new(2, Seats::for_players(phones).expect("2-4"));
        config.faults = faults;
        let outcome = Sim::new(config).expect("a game").run();
        let rolls = outcome.results[0].1.as_ref().expect("over").rolls;
        let t = outcome.traffic;
        let per = (t.rolls + t.reveals) as f64 / (f64::from(rolls) * f64::from(phones));
        let all = (t.rolls + t.reveals + t.entries + t.votes + t.catch_up + t.results) as f64
            / (f64::from(rolls) * f64::from(phones));
        println!(
            "  {phones} phones, drop {}‰, delay ≤{} ms: {per:.3} (all but status: {all:.3}; {rolls} rolls)",
            faults.drop, faults.max_delay
        );
    }
}

fn replay(c: &mut Criterion) {
    print_sizes();
    print_messages();
    let mut group = c.benchmark_group("game log");
    for (name, seats, computers) in [
        ("4 phones", 4, Colours::NONE),
        (
            "2 phones + 2 computer seats",
            4,
            Colours::one(Colour::Blue).with(Colour::Yellow),
        ),
    ] {
        let table = finished(Seats::for_players(seats).expect("2-4"), computers);
        let header = table.log().header().clone();
        let entries = table.log().entries().to_vec();
        group.throughput(Throughput::Elements(entries.len() as u64));
        group.bench_function(format!("validate and apply, {name}"), |b| {
            b.iter_batched(
                || Log::new(header.clone()).expect("a valid header"),
                |mut log| {
                    for entry in &entries {
                        log.offer(entry.clone()).expect("a valid entry");
                    }
                    black_box(log)
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

/// A flood of copies: green's phone is sent, again and again, blue's own
/// valid reveal for the roll due, 150 rolls after blue was certified gone
/// (docs/protocol.md, "Work per message"). Checking it is a hash per roll
/// since blue's last; a copy of one taken already is not checked again.
fn copies(c: &mut Criterion) {
    let (blue, green) = (Colour::Blue, Colour::Green);
    let mut table = certified_gone(blue);
    let since = table.log().state().rolls();
    play_until(&mut table, |t| {
        t.log().state().rolls() >= since + 150 && roll_due_for(green)(t)
    });
    let Due::Roll { roll, .. } = table.log().due() else {
        unreachable!("a roll is due")
    };
    let value = table.chain(blue).and_then(|chain| chain.reveal(roll));
    let reveal = Message::Reveal(Reveal {
        roll,
        seat: blue,
        value: value.expect("blue's chain"),
    })
    .encode();
    let (mut phone, mut out) = phone_of(&table, green, None);
    phone
        .receive(blue, &reveal, &mut out)
        .expect("a valid reveal");
    c.bench_function("a copy of a reveal taken, 150 rolls after its last", |b| {
        b.iter(|| phone.receive(blue, black_box(&reveal), &mut out))
    });
}

/// One ed25519 signature checked, the cost that dominates a player's entry
/// (a header's signature, its key parsed each time too, which the log does
/// once a game).
fn signature(c: &mut Criterion) {
    let table = Table::new(&Config::new(1, Seats::for_players(2).expect("2"))).expect("a game");
    let signed = table.log().header();
    let (seat, signature) = signed.signatures[0];
    let Some(Seat::Player { key, .. }) = signed.header.seats[seat.index()] else {
        unreachable!("a signature is a player's")
    };
    c.bench_function("one ed25519 signature checked", |b| {
        b.iter(|| assert!(black_box(&signed.header).signed_by(key, &signature)))
    });
}

criterion_group!(benches, replay, copies, signature);
criterion_main!(benches);
