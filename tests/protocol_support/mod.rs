//! Helpers shared by the game-log tests.

#![allow(dead_code)]

use std::path::Path;

use clovece::protocol::sim::{Config, Player, Table, setup};
use clovece::protocol::{Actor, Change, Colours, Due, Message, Phone, Transport};
use clovece::rules::{Colour, Seats};

/// Records what a phone sends.
#[derive(Default)]
pub struct Sent(pub Vec<(Option<Colour>, Vec<u8>)>);

impl Transport for Sent {
    fn send(&mut self, to: Colour, message: &[u8]) {
        self.0.push((Some(to), message.to_vec()));
    }
    fn broadcast(&mut self, message: &[u8]) {
        self.0.push((None, message.to_vec()));
    }
}

impl Sent {
    /// The messages sent so far, decoded, and forgets them.
    pub fn take(&mut self) -> Vec<Message> {
        self.0
            .drain(..)
            .map(|(_, bytes)| Message::decode(&bytes).unwrap())
            .collect()
    }
}

/// The game the tests play: three phones, red, blue and green.
pub fn config() -> Config {
    Config::new(11, Seats::for_players(3).unwrap())
}

pub fn player(config: &Config, seat: Colour) -> Player {
    setup(config)
        .1
        .into_iter()
        .find(|p| p.seat == seat)
        .unwrap()
}

/// Whether `seat`'s roll is due, past the opening.
pub fn roll_due_for(seat: Colour) -> impl Fn(&Table) -> bool {
    move |t| {
        t.log().len() > 10
            && matches!(t.log().due(), Due::Roll { by: Actor::Player(s), .. } if s == seat)
    }
}

/// A move is due for `seat` and it has at least two legal moves.
pub fn choice_for(seat: Colour) -> impl Fn(&Table) -> bool {
    move |t| {
        t.log().due()
            == Due::Move {
                seat,
                by: Actor::Player(seat),
            }
            && t.log().state().game().unwrap().legal_moves().len() >= 2
    }
}

/// Whether `seat`'s player is to move, past the first few entries.
pub fn move_due_for(seat: Colour) -> impl Fn(&Table) -> bool {
    move |t| {
        t.log().len() > 10
            && matches!(t.log().due(), Due::Move { by: Actor::Player(s), .. } if s == seat)
    }
}

/// A game of [`config`] played until `seat`'s roll is due, where `seat`
/// was then certified gone: the computer plays it.
pub fn certified_gone(seat: Colour) -> Table {
    certified_gone_in(Table::new(&config()).unwrap(), seat)
}

/// `table` played until `seat`'s roll is due, and `seat` certified gone
/// there by the others.
pub fn certified_gone_in(mut table: Table, seat: Colour) -> Table {
    play_until(&mut table, roll_due_for(seat));
    let cert = table.certificate(Change::Gone(Colours::one(seat))).unwrap();
    table.log_mut().offer(cert).unwrap();
    table
}

/// A game of [`config`] played until `until` holds.
pub fn table_until(until: impl Fn(&Table) -> bool) -> Table {
    let mut table = Table::new(&config()).unwrap();
    play_until(&mut table, until);
    table
}

/// Plays `table` on until `until` holds.
pub fn play_until(table: &mut Table, until: impl Fn(&Table) -> bool) {
    assert!(played_until(table, until), "the game ended first");
}

/// Plays `table` on until `until` holds; false if the game ends first.
pub fn played_until(table: &mut Table, until: impl Fn(&Table) -> bool) -> bool {
    while !until(table) {
        if !table.step() {
            return false;
        }
    }
    true
}

/// Whether `seat`'s player has acted at index `since` or after.
pub fn acted_since(seat: Colour, since: usize) -> impl Fn(&Table) -> bool {
    move |t| {
        t.log().entries()[since..]
            .iter()
            .any(|e| e.author() == Some(seat))
    }
}

/// `seat`'s phone in `table`'s game (saving to `dir` if given), caught up
/// with the log.
pub fn phone_of(table: &Table, seat: Colour, dir: Option<&Path>) -> (Phone, Sent) {
    prepared_phone_of(table, seat, dir, |_| {})
}

/// [`phone_of`], with `prepare` done to the phone before it catches up.
pub fn prepared_phone_of(
    table: &Table,
    seat: Colour,
    dir: Option<&Path>,
    prepare: impl FnOnce(&mut Phone),
) -> (Phone, Sent) {
    let player = table.player(seat).expect("a player's seat");
    let mut phone = Phone::new(
        table.log().header().clone(),
        &player.keypair,
        player.secret.clone(),
        dir,
    )
    .unwrap();
    prepare(&mut phone);
    let mut out = Sent::default();
    for chunk in table.log().entries().chunks(100) {
        let batch = Message::Entries {
            entries: chunk.to_vec(),
        };
        phone
            .receive(Colour::Red, &batch.encode(), &mut out)
            .unwrap();
    }
    (phone, out)
}
