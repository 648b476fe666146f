//! The lobby before a game: finding an open room by its code among nearby
//! phones, and asking to join a room, open or private. These messages go
//! over the same byte channel as the game (inside [`Frame::Lobby`]).
//!
//! An open room answers a [`Lobby::Lookup`] with its ticket, and the
//! phone looking compares the ticket's code with the one typed, so a code
//! never has to travel. A full one answers too, though it is not listed:
//! the code typed for it leads to its "full", not to "check the
//! code". A private room does not answer lookups at all (it
//! is not listed) and admits only a [`Lobby::Join`] that carries its secret,
//! which only its ticket holds.

use std::collections::BTreeSet;
use std::time::Duration;

use libp2p::PeerId;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use super::code::RoomCode;
use super::node::{Event, Node};
use super::seen;
use super::ticket::{RoomId, RoomSecret, Ticket};
use crate::bot::Level;
use crate::protocol::computer::LevelDef;
use crate::protocol::header::FirstPlayerDef;
use crate::protocol::{Header, Theme, TurnTimer};
use crate::rules::{FirstPlayer, RuleSet};

/// What travels on the byte channel: lobby messages, and the game log's
/// messages once a game runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Frame {
    Lobby(Lobby),
    Game(ByteBuf),
}

impl Frame {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("frames serialise to memory")
    }

    /// Decodes a whole message (already bounded by the channel).
    pub fn decode(bytes: &[u8]) -> Result<Frame, postcard::Error> {
        match postcard::take_from_bytes::<Frame>(bytes)? {
            (frame, []) => Ok(frame),
            _ => Err(postcard::Error::DeserializeBadEncoding),
        }
    }
}

/// The lobby's messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lobby {
    /// Is there an open room here? (Sent to phones found nearby.)
    Lookup,
    /// Yes: its ticket, as a link. A private room's host also sends it to
    /// its guests when the room takes a new secret ([`Room::reseal`]), so
    /// that the QR code they show opens it still.
    Open {
        ticket: String,
    },
    /// Asks for a seat in `room`, with the secret of a private room.
    Join {
        room: RoomId,
        secret: Option<RoomSecret>,
    },
    Admitted {
        room: RoomId,
    },
    Refused {
        room: RoomId,
        why: Refusal,
    },
    /// Which open rooms with free seats are here, and what are they like?
    /// (The nearby rooms list asks every phone it knows, twice a second.)
    Browse,
    /// This one: its ticket, options and free seats. Sent only by an open
    /// room with a free seat; a room that stops answering is gone.
    Listed {
        ticket: String,
        listing: Listing,
        free: u8,
    },
    /// A guest is ready to start (or no longer is).
    Ready {
        room: RoomId,
        ready: bool,
    },
    /// A guest leaves the room before the start (no penalty).
    Leave {
        room: RoomId,
    },
    /// The host tells its guests who sits where, after every change.
    Seats {
        room: RoomId,
        seats: Vec<SeatView>,
    },
    /// The host invites a phone (from its friends or all players list) to
    /// its room, open or private: the ticket joins it.
    Invite {
        ticket: String,
        listing: Listing,
        /// The host's nickname.
        from: String,
    },
    /// The invited phone declines (accepting is joining).
    Declined {
        room: RoomId,
    },
    /// The game the room starts, sent to a guest with its admission: the
    /// guest shows it and signs no other (a phone that joined by code or
    /// QR code saw no listing before). Last of the messages, so that a
    /// phone of the version before, which does not know it, passes it by
    /// and learns from the header that the versions differ.
    Terms {
        room: RoomId,
        listing: Listing,
    },
    /// The host tells a guest which of the seats (from 0) is its, before
    /// each [`Lobby::Seats`] it sends it, since the seats name no phone.
    /// After `Terms`, for the same reason: a phone of the version before
    /// passes it by and shows the seats without its own marked.
    YourSeat {
        room: RoomId,
        seat: u8,
    },
    /// A host asks a phone its node found nearby for its nickname, to
    /// show it on the invite list. After `YourSeat`, for the same reason:
    /// a phone of a version before passes it by, and is listed by its id.
    WhoAreYou,
    /// The nickname, the answer to [`Lobby::WhoAreYou`]: only the phone's
    /// word (any phone can give itself a friend's name), so the list shows
    /// its id beside it.
    IAm {
        name: String,
    },
}

impl Lobby {
    /// The request for a seat in `ticket`'s room, with its secret if it
    /// is private.
    fn join(ticket: &Ticket) -> Lobby {
        Lobby::Join {
            room: ticket.room(),
            secret: ticket.secret(),
        }
    }
}

/// A seat as the host shows it to its guests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatView {
    Host {
        name: String,
    },
    Guest {
        name: String,
        ready: bool,
    },
    Computer {
        #[serde(with = "LevelDef")]
        level: Level,
    },
    Empty,
}

/// How `clovece host` and `join` print the seats: `1 host "Hana" | 2
/// "Ivo" ready | 3 computer hard | 4 empty`. Names are printed escaped, so
/// a hostile one stays on its line.
pub struct SeatList<'a>(pub &'a [SeatView]);

impl std::fmt::Display for SeatList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, seat) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{} ", i + 1)?;
            match seat {
                SeatView::Host { name } => write!(f, "host {name:?}")?,
                SeatView::Guest { name, ready } => {
                    write!(f, "{name:?} {}", if *ready { "ready" } else { "not-ready" })?
                }
                SeatView::Computer { level } => write!(f, "computer {}", level.name())?,
                SeatView::Empty => f.write_str("empty")?,
            }
        }
        Ok(())
    }
}

/// What the nearby rooms list shows of a room and filters on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// Seats in all.
    pub players: u8,
    pub rules: RuleSet,
    pub timer: TurnTimer,
    pub theme: Theme,
    /// Who begins: the host's to choose, so said before anyone is ready
    /// (the host is red, and could otherwise begin every game unseen).
    #[serde(with = "FirstPlayerDef")]
    pub first: FirstPlayer,
}

impl Listing {
    /// What `header` starts: the game a guest compares with the room's
    /// terms before signing.
    pub fn of(header: &Header) -> Listing {
        Listing {
            players: header.seats.iter().flatten().count() as u8,
            rules: header.rules,
            timer: header.timer,
            theme: header.theme,
            first: header.first,
        }
    }

    /// Whether a room could be so: as many seats as a game can have
    /// (2–4), and a turn timer, without which this app signs no start
    /// (`net::setup`). Another phone's listing may say anything; one that
    /// could never start is neither listed nor joined.
    pub fn could_start(&self) -> bool {
        (2..=4).contains(&self.players) && self.timer != TurnTimer::None
    }
}

/// Why a room refuses a phone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum Refusal {
    #[error("no such room here")]
    NoSuchRoom,
    #[error("the room is private and the secret is missing or wrong")]
    WrongSecret,
    #[error("every seat of the room is taken")]
    Full,
    /// Sent to every guest when the host leaves its room before the
    /// start, so that they learn it at once rather than after a wait.
    #[error("the host closed the room")]
    Closed,
    /// The host removed this phone from its room (`remove SEAT`); the room
    /// does not let it in again.
    #[error("the host removed this phone from the room")]
    Removed,
}

/// Refused phones remembered until they go ([`Room::forget_refused`]); a
/// phone pushed out of the list by a flood of others may meet its old
/// refusal again at its next visit.
pub const MAX_REFUSED: usize = 64;

/// How many admitted phones may wait to offer to play at once; the one
/// waiting longest makes way for the next ([`Room::crowded_out`]). An
/// honest phone sends its offer right behind its `Join`, so a few are
/// plenty.
pub const MAX_WAITING: usize = 8;

/// A room as its host keeps it.
#[derive(Clone, Debug)]
pub struct Room {
    ticket: Ticket,
    /// Phones other than the host's, in the order they were admitted.
    guests: Vec<PeerId>,
    /// Those of `guests` that offered to play: only they take seats, so
    /// that phones which join and never offer (fresh identities cost
    /// nothing) cannot keep the others out.
    offered: BTreeSet<PeerId>,
    /// Phones the host removed, not let in again (one per tap of the
    /// host's, so few).
    barred: BTreeSet<PeerId>,
    /// Phones whose last answer was a refusal, newest last, at most
    /// [`MAX_REFUSED`]: [`Room::forget_refused`].
    refused: Vec<PeerId>,
    /// Phones let in whatever secret they bring: every one that has had a
    /// seat (one that lost its connection asks again with the ticket it
    /// joined by, whose secret may be an old one by then, [`Room::reseal`])
    /// and every one the host invited (it may accept the invitation as the
    /// room takes a new secret). Only phones the host saw or chose.
    known: BTreeSet<PeerId>,
    /// Seats for guests' phones.
    places: usize,
    /// The game the room starts: its terms to every guest, and what an
    /// open room tells [`Lobby::Browse`].
    listing: Listing,
    /// The host's nickname, as its seat shows it: what an open room
    /// tells [`Lobby::WhoAreYou`].
    host: String,
}

impl Room {
    /// A room of `ticket` (private if it carries a secret) with `places`
    /// seats for other phones, starting the game of `listing`, hosted by
    /// `host`; an open one is shown so in the nearby rooms list while it
    /// has a free seat.
    pub fn new(ticket: Ticket, places: usize, listing: Listing, host: String) -> Room {
        Room {
            ticket,
            guests: Vec::new(),
            offered: BTreeSet::new(),
            barred: BTreeSet::new(),
            known: BTreeSet::new(),
            refused: Vec::new(),
            places,
            listing,
            host,
        }
    }

    /// What the room tells a guest it admitted, after [`Lobby::Admitted`].
    pub fn terms(&self) -> Lobby {
        Lobby::Terms {
            room: self.ticket.room(),
            listing: self.listing,
        }
    }

    pub fn ticket(&self) -> &Ticket {
        &self.ticket
    }

    pub fn guests(&self) -> &[PeerId] {
        &self.guests
    }

    /// Whether every seat for a guest is taken by one that offered.
    pub fn is_full(&self) -> bool {
        self.offered.len() >= self.places
    }

    /// `guest` offered to play and was given a seat. (Known from then on
    /// only in a private room: an open room admits anyone, and a phone
    /// cycling new identities through its seat would grow the set.)
    pub fn seat(&mut self, guest: PeerId) {
        if self.guests.contains(&guest) {
            self.offered.insert(guest);
            if self.ticket.secret().is_some() {
                self.known.insert(guest);
            }
        }
    }

    /// The host invited `peer`: it is let in whatever secret it brings.
    pub fn vouch(&mut self, peer: PeerId) {
        self.known.insert(peer);
    }

    /// Whether the host invited `peer` (or, in a private room, seated it).
    pub fn vouched(&self, peer: PeerId) -> bool {
        self.known.contains(&peer)
    }

    /// A private room takes `secret` in place of its own, after the host
    /// removed a phone: the ticket that phone holds, and the QR code it
    /// was made from, no longer let anyone in under a new identity (which
    /// costs nothing). Phones that have had a seat, and those invited,
    /// still come in whatever secret they bring. The room's new ticket, or
    /// `None` for an open room, which anyone may join anyway.
    pub fn reseal(&mut self, secret: RoomSecret) -> Option<&Ticket> {
        self.ticket.secret()?;
        self.ticket = self.ticket.with_secret(secret);
        Some(&self.ticket)
    }

    /// The admitted phone that has waited longest without offering to
    /// play, if more than [`MAX_WAITING`] wait: it is to be turned away.
    pub fn crowded_out(&self) -> Option<PeerId> {
        let mut waiting = self.guests.iter().filter(|g| !self.offered.contains(g));
        let oldest = waiting.next().copied();
        (waiting.count() >= MAX_WAITING).then_some(oldest).flatten()
    }

    /// Sets the seats for guests' phones (the host put the computer in a
    /// seat or took it out); guests already in stay.
    pub fn set_places(&mut self, places: usize) {
        self.places = places;
    }

    /// The host removed `guest` (which has left): its asking to join
    /// again is refused.
    pub fn bar(&mut self, guest: PeerId) {
        self.barred.insert(guest);
    }

    /// Refuses `peer` for `why`: the message to send it.
    pub fn refusal(&mut self, peer: PeerId, why: Refusal) -> Lobby {
        self.forget_refused(peer);
        if self.refused.len() == MAX_REFUSED {
            self.refused.remove(0);
        }
        self.refused.push(peer);
        Lobby::Refused {
            room: self.ticket.room(),
            why,
        }
    }

    /// Whether `peer`'s last answer was a refusal; from now on it is not.
    ///
    /// Asked when a phone not in the room went away: what is queued for a
    /// refused one is then to be dropped, as the transport would deliver
    /// it at its next visit (as it must the game's messages to a phone
    /// that restarts), ahead of the answer to that visit's own request, so
    /// that a phone refused as full, or by an old QR code, would be
    /// refused again when it comes back with a seat free or the right one.
    /// Also called when `peer` is sent something after its refusal (an
    /// invitation), which must not be dropped with it.
    pub fn forget_refused(&mut self, peer: PeerId) -> bool {
        let before = self.refused.len();
        self.refused.retain(|p| *p != peer);
        self.refused.len() < before
    }

    /// `guest` left before the start: its seat is free again.
    pub fn leave(&mut self, guest: PeerId) {
        self.guests.retain(|g| *g != guest);
        self.offered.remove(&guest);
    }

    /// The room's ticket as a message: an open room's answer to a
    /// lookup, and a private room's new ticket to its guests.
    pub fn open(&self) -> Lobby {
        Lobby::Open {
            ticket: self.ticket.to_string(),
        }
    }

    /// The answer to `message` from `from`, if any.
    pub fn answer(&mut self, from: PeerId, message: &Lobby) -> Option<Lobby> {
        match *message {
            Lobby::Lookup if self.ticket.secret().is_none() => Some(self.open()),
            // A phone nearby (its nearby rooms list, another host's invite
            // list) asks whose room this is.
            Lobby::WhoAreYou if self.ticket.secret().is_none() => Some(Lobby::IAm {
                name: self.host.clone(),
            }),
            Lobby::Browse if self.ticket.secret().is_none() && !self.is_full() => {
                let listing = self.listing;
                let free = self.places - self.offered.len();
                Some(Lobby::Listed {
                    ticket: self.ticket.to_string(),
                    listing,
                    free: u8::try_from(free).unwrap_or(u8::MAX),
                })
            }
            Lobby::Join { room, secret } => {
                if room != self.ticket.room() {
                    return Some(Lobby::Refused {
                        room,
                        why: Refusal::NoSuchRoom,
                    });
                }
                if self.barred.contains(&from) {
                    return Some(self.refusal(from, Refusal::Removed));
                }
                if self.ticket.secret().is_some()
                    && secret != self.ticket.secret()
                    && !self.known.contains(&from)
                {
                    return Some(self.refusal(from, Refusal::WrongSecret));
                }
                if !self.guests.contains(&from) {
                    if self.is_full() {
                        return Some(self.refusal(from, Refusal::Full));
                    }
                    self.guests.push(from);
                }
                self.forget_refused(from);
                Some(Lobby::Admitted { room })
            }
            _ => None,
        }
    }
}

/// Why no room was found or joined.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error("no open room with code {0} nearby")]
    NotFound(RoomCode),
    #[error("two open rooms nearby have code {0}; join by ticket instead")]
    Ambiguous(RoomCode),
    #[error("the room refused: {0}")]
    Refused(Refusal),
    #[error("the host did not answer in time")]
    NoAnswer,
    /// The host was reached and then lost before the start, and does not
    /// answer again: its phone or this one left the network, or its
    /// process ended without closing the room ([`Refusal::Closed`]).
    #[error("the room's phone went away before the start and does not answer")]
    Gone,
}

/// Asks `peer` whether it hosts an open room.
fn ask(node: &mut Node, peer: PeerId) {
    node.dial(peer);
    let _ = node.send(peer, Frame::Lobby(Lobby::Lookup).encode());
}

/// How often a lookup dials again the phones it asked and has not reached.
const REDIAL_ASKED: Duration = Duration::from_millis(500);

/// Asks `peer` as one of `asked`, which keeps the newest
/// [`seen::MAX_PHONES`]: the oldest makes way, its question dropped, so a
/// flood of made-up phones is not dialled without end.
fn ask_among(node: &mut Node, asked: &mut Vec<PeerId>, peer: PeerId) {
    if let Ok(Some(out)) = seen::make_room(asked, |_| false) {
        node.give_up(out);
    }
    ask(node, peer);
    asked.push(peer);
}

/// Answers `bytes` from `from` as a room whose game has started does
/// ([`tell_closed`]).
pub(super) fn tell_started(node: &mut Node, from: PeerId, bytes: &[u8]) {
    if let Some(message) = lobby(bytes) {
        tell_closed(node, from, &message);
    }
}

/// Answers `message` from `from` as a phone with no room open to it does
/// (its game started, or its player left the room), if it asks for a
/// seat (an invitation accepted, or a QR code scanned, too late): that
/// the room is closed, at once, rather than nothing, which would leave the
/// phone asking to wait and then say the host did not answer. A stranger
/// that takes no answer gets no more.
pub fn tell_closed(node: &mut Node, from: PeerId, message: &Lobby) {
    if let Lobby::Join { room, .. } = *message
        && node.answers(from)
    {
        let refused = Lobby::Refused {
            room,
            why: Refusal::Closed,
        };
        let _ = node.send(from, Frame::Lobby(refused).encode());
    }
}

/// The lobby message in a channel message, if it is one.
fn lobby(bytes: &[u8]) -> Option<Lobby> {
    match Frame::decode(bytes) {
        Ok(Frame::Lobby(lobby)) => Some(lobby),
        _ => None,
    }
}

/// Finds the open room with `code` among `candidates` and every phone mDNS
/// finds within `wait`: asks each, and keeps the tickets that match. Other
/// events meanwhile are dropped (this runs before any game).
pub async fn find(
    node: &mut Node,
    code: RoomCode,
    candidates: &[PeerId],
    wait: Duration,
) -> Result<Ticket, LookupError> {
    let mut asked: Vec<PeerId> = Vec::new();
    for &peer in candidates {
        ask_among(node, &mut asked, peer);
    }
    let mut found: Option<Ticket> = None;
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    // A dial the node could not start (too many under way, in a flood of
    // made-up phones) is tried again: a phone is found by mDNS only once.
    let mut redial = tokio::time::interval(REDIAL_ASKED);
    loop {
        let event = tokio::select! {
            () = &mut deadline => break,
            _ = redial.tick() => {
                for &peer in &asked {
                    if node.unacknowledged(peer) > 0 {
                        node.dial(peer);
                    }
                }
                continue;
            }
            event = node.next() => event,
        };
        match event {
            Event::Discovered(peer) if !asked.contains(&peer) => {
                ask_among(node, &mut asked, peer);
            }
            Event::Message { from, bytes } => {
                let Some(Lobby::Open { ticket }) = lobby(&bytes) else {
                    continue;
                };
                // A bad answer from one phone must not spoil the lookup.
                let ticket: Ticket = match ticket.parse() {
                    Ok(ticket) => ticket,
                    Err(error) => {
                        tracing::warn!(peer = %from, %error, "a phone nearby sent a bad ticket");
                        continue;
                    }
                };
                if ticket.code() != code || ticket.host() != from {
                    continue;
                }
                // Another room, or a copy of this one's id on another
                // phone (an open room's id is no secret): the player is
                // told, never led into whichever answered last.
                match &found {
                    Some(t) if (t.room(), t.host()) != (ticket.room(), ticket.host()) => {
                        return Err(LookupError::Ambiguous(code));
                    }
                    _ => found = Some(ticket),
                }
                // The first answer usually comes from the only room; give
                // a second room a moment to show itself.
                let settle = tokio::time::Instant::now() + Duration::from_millis(300);
                if deadline.deadline() > settle {
                    deadline.as_mut().reset(settle);
                }
            }
            _ => {}
        }
    }
    found.ok_or(LookupError::NotFound(code))
}

/// Asks the host of `ticket` for a seat, dialling it at the ticket's
/// addresses, and waits up to `wait` for the answer.
pub async fn join(node: &mut Node, ticket: &Ticket, wait: Duration) -> Result<(), LookupError> {
    ask_for_seat(node, ticket);
    wait_for_admission(node, ticket, wait).await
}

/// Waits up to `wait` for the host's next answer to a request for a seat
/// in `ticket`'s room: admitted, or why not. Other events meanwhile are
/// dropped.
pub(super) async fn wait_for_admission(
    node: &mut Node,
    ticket: &Ticket,
    wait: Duration,
) -> Result<(), LookupError> {
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    loop {
        let event = tokio::select! {
            () = &mut deadline => return Err(LookupError::NoAnswer),
            event = node.next() => event,
        };
        if let Event::Message { from, bytes } = event
            && let Some(answer) = admission(ticket, from, &bytes)
        {
            return answer;
        }
    }
}

/// Asks the host of `ticket` for a seat, dialling it at the ticket's
/// addresses and keeping it connected; [`admission`] reads the answer.
pub(super) fn ask_for_seat(node: &mut Node, ticket: &Ticket) {
    let host = ticket.host();
    node.add_addrs(host, ticket.dial_addrs());
    node.keep(host);
    let _ = node.send(host, Frame::Lobby(Lobby::join(ticket)).encode());
}

/// The host's answer to [`ask_for_seat`], if `bytes` from `from` are one.
pub(super) fn admission(
    ticket: &Ticket,
    from: PeerId,
    bytes: &[u8],
) -> Option<Result<(), LookupError>> {
    if from != ticket.host() {
        return None;
    }
    match lobby(bytes)? {
        Lobby::Admitted { room } if room == ticket.room() => Some(Ok(())),
        Lobby::Refused { room, why } if room == ticket.room() => {
            Some(Err(LookupError::Refused(why)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libp2p::identity::Keypair;

    fn ticket(secret: Option<RoomSecret>) -> Ticket {
        let host = Keypair::generate_ed25519().public().to_peer_id();
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        Ticket::new(RoomId::from_bytes([4; 16]), host, [addr], secret).unwrap()
    }

    #[test]
    fn open_room_answers_lookups_with_its_ticket() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        let answer = room.answer(PeerId::random(), &Lobby::Lookup);
        assert_eq!(
            answer,
            Some(Lobby::Open {
                ticket: t.to_string()
            })
        );
    }

    #[test]
    fn private_room_is_not_listed() {
        let mut room = Room::new(
            ticket(Some(RoomSecret::from_bytes([1; 16]))),
            3,
            listing(),
            "Hana".into(),
        );
        assert_eq!(room.answer(PeerId::random(), &Lobby::Lookup), None);
    }

    #[test]
    fn private_room_refuses_a_join_without_its_secret() {
        let secret = RoomSecret::from_bytes([1; 16]);
        let t = ticket(Some(secret));
        let mut room = Room::new(t.clone(), 3, listing(), "Hana".into());
        let peer = PeerId::random();
        for wrong in [None, Some(RoomSecret::from_bytes([2; 16]))] {
            let join = Lobby::Join {
                room: t.room(),
                secret: wrong,
            };
            assert_eq!(
                room.answer(peer, &join),
                Some(Lobby::Refused {
                    room: t.room(),
                    why: Refusal::WrongSecret
                })
            );
        }
        let join = Lobby::join(&t);
        assert_eq!(
            room.answer(peer, &join),
            Some(Lobby::Admitted { room: t.room() })
        );
        assert_eq!(room.guests(), &[peer]);
    }

    #[test]
    fn a_private_room_resealed_lets_in_no_new_phone_by_its_old_ticket_but_those_it_knows() {
        let old = ticket(Some(RoomSecret::from_bytes([1; 16])));
        let mut room = Room::new(old.clone(), 3, listing(), "Hana".into());
        let (seated, removed, waiting) = (PeerId::random(), PeerId::random(), PeerId::random());
        let admitted = Some(Lobby::Admitted { room: old.room() });
        let wrong_secret = Some(Lobby::Refused {
            room: old.room(),
            why: Refusal::WrongSecret,
        });
        for guest in [seated, removed, waiting] {
            assert_eq!(room.answer(guest, &Lobby::join(&old)), admitted);
        }
        room.seat(seated);
        room.seat(removed);
        // The host removes a phone: the room takes a new secret.
        room.leave(removed);
        room.bar(removed);
        let new = room
            .reseal(RoomSecret::from_bytes([2; 16]))
            .unwrap()
            .clone();
        assert_eq!((new.room(), new.host()), (old.room(), old.host()));
        assert_ne!(new.secret(), old.secret());
        // The old ticket lets in no new phone, nor the one that waited
        // without a seat once it is let go; the new one does.
        assert_eq!(
            room.answer(PeerId::random(), &Lobby::join(&old)),
            wrong_secret
        );
        room.leave(waiting);
        assert_eq!(room.answer(waiting, &Lobby::join(&old)), wrong_secret);
        assert_eq!(room.answer(PeerId::random(), &Lobby::join(&new)), admitted);
        // The removed phone stays out; a seated one that lost its
        // connection comes back by the ticket it joined with.
        assert_eq!(
            room.answer(removed, &Lobby::join(&new)),
            Some(Lobby::Refused {
                room: old.room(),
                why: Refusal::Removed
            })
        );
        room.leave(seated);
        assert_eq!(room.answer(seated, &Lobby::join(&old)), admitted);
        // So does a phone invited with the old ticket, which it may accept
        // as the room takes the new one.
        let invited = PeerId::random();
        room.vouch(invited);
        assert_eq!(room.answer(invited, &Lobby::join(&old)), admitted);
        // An open room has no secret to change.
        let mut open = Room::new(ticket(None), 3, listing(), "Hana".into());
        assert!(open.reseal(RoomSecret::from_bytes([2; 16])).is_none());
        assert_eq!(open.ticket().secret(), None);
    }

    #[test]
    fn an_open_room_remembers_no_one_who_passed_through_its_seat() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        for _ in 0..100 {
            let phone = PeerId::random();
            assert_eq!(
                room.answer(phone, &Lobby::join(&t)),
                Some(Lobby::Admitted { room: t.room() })
            );
            room.seat(phone);
            room.leave(phone);
        }
        assert!(room.known.is_empty(), "{} known", room.known.len());
        // A private room does remember its guests (their return by an old
        // ticket, above).
        let private = ticket(Some(RoomSecret::from_bytes([1; 16])));
        let mut room = Room::new(private.clone(), 1, listing(), "Hana".into());
        let phone = PeerId::random();
        room.answer(phone, &Lobby::join(&private));
        room.seat(phone);
        assert!(room.known.contains(&phone));
    }

    #[test]
    fn a_refused_phone_that_goes_is_known_once_and_not_after_its_admission() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        let (first, second) = (PeerId::random(), PeerId::random());
        assert_eq!(
            room.answer(first, &Lobby::join(&t)),
            Some(Lobby::Admitted { room: t.room() })
        );
        room.seat(first);
        assert!(matches!(
            room.answer(second, &Lobby::join(&t)),
            Some(Lobby::Refused {
                why: Refusal::Full,
                ..
            })
        ));
        assert!(!room.forget_refused(first), "admitted, not refused");
        assert!(room.forget_refused(second));
        assert!(!room.forget_refused(second), "forgotten");
        // Refused, then admitted once a seat is free: its last answer is
        // an admission.
        room.refusal(second, Refusal::Full);
        room.leave(first);
        assert_eq!(
            room.answer(second, &Lobby::join(&t)),
            Some(Lobby::Admitted { room: t.room() })
        );
        assert!(!room.forget_refused(second));
        // A flood of refusals keeps the newest.
        let flood: Vec<PeerId> = (0..=MAX_REFUSED).map(|_| PeerId::random()).collect();
        for &peer in &flood {
            room.refusal(peer, Refusal::Full);
        }
        assert!(!room.forget_refused(flood[0]));
        assert!(room.forget_refused(flood[MAX_REFUSED]));
    }

    #[test]
    fn full_room_refuses_newcomers_but_readmits_its_guests() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        let join = Lobby::join(&t);
        let (first, second) = (PeerId::random(), PeerId::random());
        assert_eq!(
            room.answer(first, &join),
            Some(Lobby::Admitted { room: t.room() })
        );
        room.seat(first);
        assert_eq!(
            room.answer(second, &join),
            Some(Lobby::Refused {
                room: t.room(),
                why: Refusal::Full
            })
        );
        assert_eq!(
            room.answer(first, &join),
            Some(Lobby::Admitted { room: t.room() })
        );
        assert_eq!(
            room.answer(second, &Lobby::Browse),
            None,
            "a full room is not listed"
        );
        assert_eq!(
            room.answer(second, &Lobby::Lookup),
            Some(room.open()),
            "but found by its code, to be told it is full"
        );
    }

    #[test]
    fn phones_that_join_and_never_offer_take_no_seat_and_make_way_in_turn() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        let join = Lobby::join(&t);
        let silent: Vec<PeerId> = (0..=MAX_WAITING).map(|_| PeerId::random()).collect();
        for (i, &phone) in silent.iter().enumerate() {
            assert_eq!(
                room.answer(phone, &join),
                Some(Lobby::Admitted { room: t.room() }),
                "the seat is free for phone {i}"
            );
            let expected = (i == MAX_WAITING).then_some(silent[0]);
            assert_eq!(room.crowded_out(), expected, "phone {i}");
        }
        assert!(room.answer(PeerId::random(), &Lobby::Browse).is_some());
        room.leave(silent[0]);
        assert_eq!(room.crowded_out(), None);
        // One that offers takes the seat: the room is full to newcomers.
        room.seat(silent[3]);
        assert!(room.is_full());
        assert_eq!(
            room.answer(PeerId::random(), &join),
            Some(Lobby::Refused {
                room: t.room(),
                why: Refusal::Full
            })
        );
        assert_eq!(room.answer(PeerId::random(), &Lobby::Browse), None);
    }

    #[test]
    fn a_phone_the_host_removed_is_refused_as_removed_and_its_seat_is_free() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 1, listing(), "Hana".into());
        let join = Lobby::join(&t);
        let (removed, next) = (PeerId::random(), PeerId::random());
        room.answer(removed, &join);
        room.leave(removed);
        room.bar(removed);
        assert_eq!(
            room.answer(removed, &join),
            Some(Lobby::Refused {
                room: t.room(),
                why: Refusal::Removed
            })
        );
        assert_eq!(
            room.answer(next, &join),
            Some(Lobby::Admitted { room: t.room() })
        );
    }

    fn listing() -> Listing {
        Listing {
            players: 3,
            rules: RuleSet::Matfyz,
            timer: TurnTimer::Seconds20,
            theme: Theme::Sea,
            first: crate::rules::FirstPlayer::Random,
        }
    }

    #[test]
    fn open_room_answers_browse_with_its_listing_and_free_seats() {
        let t = ticket(None);
        let mut room = Room::new(t.clone(), 2, listing(), "Hana".into());
        let join = Lobby::join(&t);
        let seated = |room: &mut Room| {
            let guest = PeerId::random();
            room.answer(guest, &join);
            room.seat(guest);
        };
        seated(&mut room);
        assert_eq!(
            room.answer(PeerId::random(), &Lobby::Browse),
            Some(Lobby::Listed {
                ticket: t.to_string(),
                listing: listing(),
                free: 1
            })
        );
        seated(&mut room);
        assert_eq!(
            room.answer(PeerId::random(), &Lobby::Browse),
            None,
            "a full room is not listed"
        );
    }

    #[test]
    fn private_room_does_not_answer_browse() {
        let secret = RoomSecret::from_bytes([1; 16]);
        let mut private = Room::new(ticket(Some(secret)), 3, listing(), "Hana".into());
        assert_eq!(private.answer(PeerId::random(), &Lobby::Browse), None);
        assert_eq!(private.answer(PeerId::random(), &Lobby::WhoAreYou), None);
    }

    #[test]
    fn an_open_room_says_whose_it_is() {
        let mut open = Room::new(ticket(None), 3, listing(), "Hana".into());
        assert_eq!(
            open.answer(PeerId::random(), &Lobby::WhoAreYou),
            Some(Lobby::IAm {
                name: "Hana".into()
            })
        );
    }

    #[test]
    fn join_for_another_room_is_refused() {
        let mut room = Room::new(ticket(None), 3, listing(), "Hana".into());
        let other = RoomId::from_bytes([8; 16]);
        let join = Lobby::Join {
            room: other,
            secret: None,
        };
        assert_eq!(
            room.answer(PeerId::random(), &join),
            Some(Lobby::Refused {
                room: other,
                why: Refusal::NoSuchRoom
            })
        );
    }

    #[test]
    fn frames_round_trip_and_garbage_is_an_error() {
        let frame = Frame::Lobby(Lobby::Lookup);
        assert_eq!(Frame::decode(&frame.encode()), Ok(frame));
        let game = Frame::Game(ByteBuf::from(vec![1, 2, 3]));
        assert_eq!(Frame::decode(&game.encode()), Ok(game));
        assert!(Frame::decode(&[0xff, 0xff]).is_err());
        let mut trailing = Frame::Lobby(Lobby::Lookup).encode();
        trailing.push(0);
        assert!(Frame::decode(&trailing).is_err());
    }

    /// A node on loopback with the key of `seed`.
    async fn node(seed: u8) -> Node {
        let keypair = Keypair::ed25519_from_bytes([seed; 32]).unwrap();
        Node::start(keypair, crate::net::Config::loopback())
            .await
            .unwrap()
    }

    /// Answers the lobby's questions to `node` as `room` does. Never
    /// returns.
    async fn hosting(node: &mut Node, mut room: Room) {
        loop {
            if let Event::Message { from, bytes } = node.next().await
                && let Some(answer) = lobby(&bytes).and_then(|q| room.answer(from, &q))
            {
                let _ = node.send(from, Frame::Lobby(answer).encode());
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_copy_of_an_open_rooms_id_on_another_phone_makes_its_code_ambiguous() {
        let (mut real, mut copy, mut finder) = (node(1).await, node(2).await, node(3).await);
        let id = RoomId::from_bytes([7; 16]);
        let room_on = |node: &Node| {
            let ticket = Ticket::new(id, node.peer_id(), node.listen_addrs(), None).unwrap();
            Room::new(ticket, 1, listing(), "Hana".into())
        };
        let (real_room, copy_room) = (room_on(&real), room_on(&copy));
        let code = real_room.ticket().code();
        assert_eq!(
            copy_room.ticket().code(),
            code,
            "the same id, the same code"
        );
        for host in [&real, &copy] {
            finder.add_addrs(host.peer_id(), host.listen_addrs());
        }
        let candidates = [real.peer_id(), copy.peer_id()];
        let found = tokio::select! {
            found = find(&mut finder, code, &candidates, Duration::from_secs(10)) => found,
            () = hosting(&mut real, real_room) => unreachable!(),
            () = hosting(&mut copy, copy_room) => unreachable!(),
        };
        assert!(
            matches!(found, Err(LookupError::Ambiguous(c)) if c == code),
            "{found:?}"
        );
    }
}
