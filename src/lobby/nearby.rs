//! The nearby rooms list: open rooms with free seats, live. Every half second
//! the list asks each phone it knows (found by mDNS, or named with `--ask`)
//! with [`Lobby::Browse`]; an open room with a free seat answers with its
//! listing. A room that has not answered for [`STALE`] (full, started,
//! gone) leaves the list, as one whose phone is no longer announced does.
//! A connection closing says nothing by itself: the list dials again at
//! its next question (a host closes the connection it dialled to ask a
//! phone who it is, though that phone's list may be using it). Once listed, each
//! host's phone is asked its nickname ([`Lobby::WhoAreYou`]) once, so that
//! the list says whose room it is.
//!
//! [`RoomList`] is the list itself, with no I/O; [`keep`] keeps it over the
//! network (for the app's nearby rooms screen and for [`run`], which is
//! `clovece rooms`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::{Duration, Instant};

use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use tracing::debug;

use super::options::{Filter, Shown};
use crate::net::game::is_loopback;
use crate::net::room::{Frame, Listing, Lobby};
use crate::net::seen;
use crate::net::{Config, Event, NetError, Node, Ticket};

/// How often every known phone is asked: a few bytes each way to a
/// handful of phones on one Wi-Fi.
pub const ASK_EVERY: Duration = Duration::from_millis(500);
/// The longest wait between dials of a phone that has not taken its
/// question: one that comes back (on a new port, after a Wi-Fi blip) is
/// asked within this long.
const REDIAL_LONGEST: Duration = Duration::from_secs(4);
/// A room that has not answered for this long is gone (two missed asks and
/// some slack, so one late answer does not make it flicker).
pub const STALE: Duration = Duration::from_millis(1500);

/// A room as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    pub ticket: Ticket,
    pub listing: Listing,
    /// Free seats (at least one).
    pub free: u8,
    /// The host's nickname, once its phone said it: only its word, as a
    /// name a guest gives is.
    pub host: Option<String>,
}

/// What changed in the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A room appeared, or its free seats changed.
    Listed(Room),
    /// A room left the list.
    Gone(Ticket),
}

/// Why an answer from a phone was not taken into the list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("a bad ticket: {0}")]
    Ticket(#[from] crate::net::ticket::TicketError),
    #[error("a ticket of another phone's room")]
    NotItsRoom,
    #[error("a room of {players} players with {free} free seats, or without a turn timer")]
    Unplayable { players: u8, free: u8 },
}

/// The nearby open rooms that pass a filter, one per host phone, with when
/// each last answered.
#[derive(Debug, Default)]
pub struct RoomList {
    filter: Filter,
    rooms: BTreeMap<PeerId, (Room, Instant)>,
    /// The listed rooms' hosts asked their nickname, whose answer is
    /// awaited or taken: one question each while the room is listed.
    asked: BTreeSet<PeerId>,
}

impl RoomList {
    pub fn new(filter: Filter) -> RoomList {
        RoomList {
            filter,
            ..RoomList::default()
        }
    }

    /// Takes in `from`'s answer at `now`; the changes it makes: an
    /// earlier room of the phone gone (it opened another since), and this
    /// one listed if it is new or changed. A hostile or broken answer is
    /// an error and changes nothing.
    pub fn heard(
        &mut self,
        from: PeerId,
        ticket: &str,
        listing: Listing,
        free: u8,
        now: Instant,
    ) -> Result<Vec<Change>, ListError> {
        let ticket: Ticket = ticket.parse()?;
        if ticket.host() != from {
            return Err(ListError::NotItsRoom);
        }
        if !listing.could_start() || free == 0 || free >= listing.players {
            return Err(ListError::Unplayable {
                players: listing.players,
                free,
            });
        }
        let replaced = self
            .rooms
            .get(&from)
            .is_some_and(|(old, _)| old.ticket.room() != ticket.room());
        let mut changes: Vec<Change> = if replaced {
            self.lost(from).into_iter().collect()
        } else {
            Vec::new()
        };
        if !self.filter.matches(&listing) {
            return Ok(changes);
        }
        let host = self.rooms.get(&from).and_then(|(old, _)| old.host.clone());
        let room = Room {
            ticket,
            listing,
            free,
            host,
        };
        let same = self.rooms.get(&from).is_some_and(|(old, _)| *old == room);
        self.rooms.insert(from, (room.clone(), now));
        if !same {
            changes.push(Change::Listed(room));
        }
        Ok(changes)
    }

    /// Whether to ask `host`'s phone its nickname now: it has a room
    /// listed and was not asked since.
    pub fn ask_name(&mut self, host: PeerId) -> bool {
        self.rooms.contains_key(&host) && self.asked.insert(host)
    }

    /// `host`'s phone said its nickname: the change to its room, if it was
    /// asked and has none yet (a later answer renames nothing, so that a
    /// phone cannot change its name in the list at will).
    pub fn named(&mut self, host: PeerId, name: &str) -> Option<Change> {
        let name = crate::net::nickname(name.trim());
        let (room, _) = self.rooms.get_mut(&host)?;
        if name.is_empty() || room.host.is_some() || !self.asked.contains(&host) {
            return None;
        }
        room.host = Some(name);
        Some(Change::Listed(room.clone()))
    }

    /// `host`'s phone is gone (disconnected or expired from mDNS).
    pub fn lost(&mut self, host: PeerId) -> Option<Change> {
        self.asked.remove(&host);
        self.rooms
            .remove(&host)
            .map(|(room, _)| Change::Gone(room.ticket))
    }

    /// Drops the rooms that have not answered for [`STALE`] before `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<Change> {
        let stale: Vec<PeerId> = self
            .rooms
            .iter()
            .filter(|(_, (_, at))| now.duration_since(*at) >= STALE)
            .map(|(&host, _)| host)
            .collect();
        stale.into_iter().filter_map(|h| self.lost(h)).collect()
    }

    /// Whether `host`'s room is in the list.
    pub fn lists(&self, host: PeerId) -> bool {
        self.rooms.contains_key(&host)
    }

    pub fn rooms(&self) -> impl Iterator<Item = &Room> {
        self.rooms.values().map(|(room, _)| room)
    }
}

/// What `clovece rooms` is started with.
#[derive(Clone, Debug)]
pub struct Browse {
    pub listen: Vec<Multiaddr>,
    /// Phones to ask besides those mDNS finds, each address ending in
    /// `/p2p/<peer id>`.
    pub ask: Vec<Multiaddr>,
    pub filter: Filter,
    /// How long to keep the list.
    pub duration: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum BrowseError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("{0} does not end in /p2p/<peer id>")]
    NoPeerId(Multiaddr),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// The phone an `--ask` address names, and the address without its
/// `/p2p` part.
fn phone(addr: &Multiaddr) -> Result<(PeerId, Multiaddr), BrowseError> {
    let mut bare = addr.clone();
    match bare.pop() {
        Some(Protocol::P2p(peer)) => Ok((peer, bare)),
        _ => Err(BrowseError::NoPeerId(addr.clone())),
    }
}

/// `clovece rooms`: keeps the nearby rooms list for `browse.duration` and
/// prints every change that passes the filter, as it happens:
/// `room: <code> [host "<name>"] free <n> players … ticket <ticket>` when
/// a room appears (or its free seats change, or its host says its name),
/// `gone: <code>` when it leaves.
pub async fn run(
    keypair: Keypair,
    browse: Browse,
    out: &mut impl Write,
) -> Result<(), BrowseError> {
    let asked: Vec<(PeerId, Multiaddr)> = browse.ask.iter().map(phone).collect::<Result<_, _>>()?;
    let config = Config {
        mdns: !browse.listen.iter().all(is_loopback),
        listen: browse.listen,
        ..Config::default()
    };
    let mut node = Node::start(keypair, config).await?;
    keep(
        &mut node,
        asked,
        browse.filter,
        tokio::time::sleep(browse.duration),
        |_, changes| changes.iter().try_for_each(|change| print(change, out)),
        // `clovece invitations` is the command line's inbox.
        |_, _, _| {},
        |_| {},
    )
    .await
}

/// Keeps the list of the rooms that pass `filter` on `node` until `until`
/// is ready, asking the phones in `ask` and those the node finds (by its
/// mDNS, if it runs, or by the platform's discovery it hears,
/// [`Node::hear`]). After every change, `changed` gets the list and what
/// changed; an error from it ends the list. `heard` gets the node and every
/// other lobby message that arrives meanwhile, with its sender (the app's
/// node that keeps the list is also the one that hears its invitations,
/// and answers who it is). `tend` gets
/// the node at every round of questions, twice a second, for the caller's
/// own sends (the app's declines of invitations).
pub async fn keep(
    node: &mut Node,
    ask: Vec<(PeerId, Multiaddr)>,
    filter: Filter,
    until: impl Future<Output = ()>,
    mut changed: impl FnMut(&RoomList, &[Change]) -> std::io::Result<()>,
    mut heard: impl FnMut(&mut Node, PeerId, Lobby),
    mut tend: impl FnMut(&mut Node),
) -> Result<(), BrowseError> {
    // The phones asked, oldest first; those named in `ask` and those with a
    // room listed stay.
    let told: Vec<PeerId> = ask.iter().map(|&(peer, _)| peer).collect();
    let mut known: Vec<PeerId> = Vec::new();
    let mut list = RoomList::new(filter);
    // A phone pushed out of the list is not asked any more: what was queued
    // for it goes too.
    let found = |known: &mut Vec<PeerId>, list: &RoomList, node: &mut Node, peer: PeerId| {
        let kept = |p: &PeerId| told.contains(p) || list.lists(*p);
        if known.contains(&peer) {
            return;
        }
        if let Ok(out) = seen::make_room(known, kept) {
            if let Some(out) = out {
                debug!(%out, "pushed out of the nearby list: given up");
                node.give_up(out);
            }
            known.push(peer);
        }
    };
    for (peer, addr) in ask {
        node.add_addrs(peer, [addr]);
        found(&mut known, &list, node, peer);
    }
    // A node that ran before the list (the app's inbox) was told of these
    // once, before.
    for peer in node.nearby() {
        found(&mut known, &list, node, peer);
    }
    // When each phone with a question waiting is dialled next, and the
    // wait after that.
    let mut redial: BTreeMap<PeerId, (Instant, Duration)> = BTreeMap::new();
    let mut tick = tokio::time::interval(ASK_EVERY);
    tokio::pin!(until);
    loop {
        let changes = tokio::select! {
            () = &mut until => return Ok(()),
            _ = tick.tick() => {
                tend(node);
                let now = Instant::now();
                redial.retain(|peer, _| known.contains(peer));
                for &peer in &known {
                    // One question in flight per phone: a phone that is
                    // gone must not pile them up.
                    if node.unacknowledged(peer) == 0 {
                        redial.remove(&peer);
                        node.dial(peer);
                        let _ = node.send(peer, Frame::Lobby(Lobby::Browse).encode());
                        continue;
                    }
                    // A question queued when a dial failed, or when the
                    // connection closed before the answer, goes only once
                    // the phone is reached again, which the node does not
                    // try by itself: dialled again, less and less often
                    // (a made-up phone's addresses are someone's to
                    // choose). Until session 37 a host the list once
                    // failed to reach, as one that opened its room on a
                    // new node, was never asked again.
                    let (at, wait) = redial.entry(peer).or_insert((now, ASK_EVERY));
                    if now >= *at {
                        node.dial(peer);
                        *wait = (*wait * 2).min(REDIAL_LONGEST);
                        *at = now + *wait;
                    }
                }
                list.expire(Instant::now())
            }
            event = node.next() => match event {
                Event::Discovered(peer) => {
                    // Found again (its app opened anew, on another port):
                    // a question waiting for it goes at the next round,
                    // not at its back-off's next dial, up to 4 s away. At
                    // most once a round however often it is found (the
                    // finds are anyone's to make), the back-off kept.
                    if let Some((at, _)) = redial.get_mut(&peer) {
                        *at = (*at).min(Instant::now());
                    }
                    found(&mut known, &list, node, peer);
                    Vec::new()
                }
                // A phone named by its address is asked there still: its
                // room goes when it stops answering.
                Event::Expired(peer) if told.contains(&peer) => Vec::new(),
                // The phone stopped announcing itself: no more questions
                // to it until it is found again.
                Event::Expired(peer) => {
                    known.retain(|&p| p != peer);
                    node.give_up(peer);
                    list.lost(peer).into_iter().collect()
                }
                Event::Message { from, bytes } => match Frame::decode(&bytes) {
                    Ok(Frame::Lobby(Lobby::Listed { ticket, listing, free })) => {
                        match list.heard(from, &ticket, listing, free, Instant::now()) {
                            Ok(changes) => {
                                if list.ask_name(from) {
                                    let _ = node.send(from, Frame::Lobby(Lobby::WhoAreYou).encode());
                                }
                                changes
                            }
                            Err(error) => {
                                tracing::warn!(peer = %from, %error, "a phone nearby sent a bad room");
                                Vec::new()
                            }
                        }
                    }
                    Ok(Frame::Lobby(Lobby::IAm { name })) => list.named(from, &name).into_iter().collect(),
                    Ok(Frame::Lobby(other)) => {
                        heard(node, from, other);
                        Vec::new()
                    }
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
        };
        if !changes.is_empty() {
            changed(&list, &changes)?;
        }
    }
}

fn print(change: &Change, out: &mut impl Write) -> std::io::Result<()> {
    match change {
        Change::Listed(room) => {
            write!(out, "room: {} ", room.ticket.code())?;
            if let Some(host) = &room.host {
                write!(out, "host {host:?} ")?;
            }
            writeln!(
                out,
                "free {} {} ticket {}",
                room.free,
                Shown(&room.listing),
                room.ticket
            )?
        }
        Change::Gone(ticket) => writeln!(out, "gone: {}", ticket.code())?,
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{RoomId, RoomSecret};
    use crate::protocol::{Theme, TurnTimer};
    use crate::rules::RuleSet;

    fn ticket(host: PeerId, secret: Option<RoomSecret>) -> Ticket {
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        Ticket::new(RoomId::from_bytes([3; 16]), host, [addr], secret).unwrap()
    }

    fn listing(players: u8) -> Listing {
        Listing {
            players,
            rules: RuleSet::Classic(crate::rules::HouseRules::default()),
            timer: TurnTimer::Seconds30,
            theme: Theme::Classic,
            first: crate::rules::FirstPlayer::Random,
        }
    }

    /// A host's answer to the list's question: its room of 4, 3 seats free.
    fn answer(room: &str) -> Vec<u8> {
        let answer = Lobby::Listed {
            ticket: room.to_owned(),
            listing: listing(4),
            free: 3,
        };
        Frame::Lobby(answer).encode()
    }

    /// A host the list knew, found again at another address (its app
    /// opened anew), is asked at once: its room is listed within moments,
    /// not at the list's next redial, which is 4 s apart by then.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_found_again_is_asked_at_once_not_at_the_next_redial() {
        use std::time::Instant;
        let mut phone = Node::start(Keypair::generate_ed25519(), Config::loopback())
            .await
            .unwrap();
        let (sight, sightings) = tokio::sync::mpsc::unbounded_channel();
        phone.hear(sightings);
        let host_keys = Keypair::generate_ed25519();
        let host_id = host_keys.public().to_peer_id();
        // Where the host was: each dial there is taken and hung up on.
        let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let was = format!("/ip4/127.0.0.1/tcp/{}", gone.local_addr().unwrap().port());
        let (dialled, mut dials) = tokio::sync::mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for stream in gone.incoming() {
                drop(stream);
                if dialled.send(()).is_err() {
                    return;
                }
            }
        });
        let found = |addrs| crate::net::Sighting::Found {
            peer: host_id,
            addrs,
        };
        sight.send(found(vec![was.parse().unwrap()])).unwrap();
        let sighted = std::cell::Cell::new(None);
        let mut listed = None;
        let list = keep(
            &mut phone,
            Vec::new(),
            Filter::default(),
            tokio::time::sleep(Duration::from_secs(30)),
            |_, changes| {
                listed = Some((Instant::now(), changes.to_vec()));
                // The first change ends the list.
                Err(std::io::Error::other("listed"))
            },
            |_, _, _| {},
            |_| {},
        );
        let hosting = async {
            // Dialled at once, then 0.5, 1 and 2 s apart: the next is 4 s
            // after the fourth.
            for _ in 0..4 {
                dials.recv().await.unwrap();
            }
            let mut host = Node::start(host_keys, Config::loopback()).await.unwrap();
            let room = ticket(host_id, None).to_string();
            sight.send(found(host.listen_addrs())).unwrap();
            sighted.set(Some(Instant::now()));
            loop {
                if let Event::Message { from, bytes } = host.next().await
                    && Frame::decode(&bytes) == Ok(Frame::Lobby(Lobby::Browse))
                {
                    let _ = host.send(from, answer(&room));
                }
            }
        };
        tokio::select! {
            kept = list => assert!(kept.is_err(), "the list ended unlisted"),
            () = hosting => unreachable!(),
        }
        let (at, changes) = listed.unwrap();
        assert!(
            matches!(changes.as_slice(), [Change::Listed(_)]),
            "{changes:?}"
        );
        let sighted = sighted.get().expect("listed once found again");
        let waited = at - sighted;
        assert!(waited < Duration::from_secs(2), "listed {waited:?} after");
    }

    /// A host closing the connection the list asks through (it closes one
    /// it dialled to ask the list's phone who it is) does not take its
    /// room off the list: the next question dials again, and the room,
    /// still answering, stays listed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_room_whose_host_closes_the_connection_stays_listed_while_it_answers() {
        let mut host = Node::start(Keypair::generate_ed25519(), Config::loopback())
            .await
            .unwrap();
        let mut phone = Node::start(Keypair::generate_ed25519(), Config::loopback())
            .await
            .unwrap();
        let (host_id, phone_id) = (host.peer_id(), phone.peer_id());
        let addr = host.listen_addrs()[0].clone();
        let room = Ticket::new(RoomId::from_bytes([3; 16]), host_id, [addr.clone()], None)
            .unwrap()
            .to_string();
        let mut changes = Vec::new();
        let listed = keep(
            &mut phone,
            vec![(host_id, addr)],
            Filter::default(),
            tokio::time::sleep(Duration::from_secs(4)),
            |_, new| {
                changes.extend_from_slice(new);
                Ok(())
            },
            |_, _, _| {},
            |_| {},
        );
        let hosting = async {
            // Once the list has had an answer, the connection goes.
            let mut close_at: Option<tokio::time::Instant> = None;
            let mut closed = false;
            loop {
                let due = close_at.unwrap_or_else(tokio::time::Instant::now);
                let event = tokio::select! {
                    event = host.next() => event,
                    () = tokio::time::sleep_until(due), if close_at.is_some() => {
                        close_at = None;
                        closed = true;
                        host.disconnect(phone_id);
                        continue;
                    }
                };
                if let Event::Message { from, bytes } = event
                    && from == phone_id
                    && Frame::decode(&bytes) == Ok(Frame::Lobby(Lobby::Browse))
                {
                    let _ = host.send(from, answer(&room));
                    if !closed && close_at.is_none() {
                        close_at = Some(tokio::time::Instant::now() + Duration::from_millis(300));
                    }
                }
            }
        };
        tokio::select! {
            kept = listed => kept.unwrap(),
            () = hosting => unreachable!(),
        }
        assert!(
            matches!(changes.as_slice(), [Change::Listed(_)]),
            "{changes:?}"
        );
    }

    #[test]
    fn room_appears_once_changes_and_goes_stale() {
        let host = PeerId::random();
        let t = ticket(host, None).to_string();
        let mut list = RoomList::default();
        let start = Instant::now();
        let first = list.heard(host, &t, listing(4), 3, start).unwrap();
        assert!(matches!(
            first.as_slice(),
            [Change::Listed(Room { free: 3, .. })]
        ));
        assert_eq!(list.heard(host, &t, listing(4), 3, start).unwrap(), []);
        let fewer = list.heard(host, &t, listing(4), 2, start).unwrap();
        assert!(matches!(
            fewer.as_slice(),
            [Change::Listed(Room { free: 2, .. })]
        ));
        assert!(list.expire(start + STALE / 2).is_empty());
        let gone = list.expire(start + STALE);
        assert!(matches!(gone.as_slice(), [Change::Gone(_)]));
        assert_eq!(list.rooms().count(), 0);
    }

    #[test]
    fn answers_about_another_phones_room_impossible_seats_or_no_timer_are_refused() {
        let host = PeerId::random();
        let t = ticket(host, None).to_string();
        let mut list = RoomList::default();
        let now = Instant::now();
        assert_eq!(
            list.heard(PeerId::random(), &t, listing(4), 1, now),
            Err(ListError::NotItsRoom)
        );
        for (players, free) in [(5, 1), (1, 1), (4, 0), (4, 4), (2, 200)] {
            assert!(list.heard(host, &t, listing(players), free, now).is_err());
        }
        // A room this app could never start a game in (a hostile host's).
        let untimed = Listing {
            timer: TurnTimer::None,
            ..listing(4)
        };
        assert!(list.heard(host, &t, untimed, 1, now).is_err());
        assert!(
            list.heard(host, "CLOVECE:AAAA", listing(4), 1, now)
                .is_err()
        );
        assert_eq!(list.rooms().count(), 0);
    }

    #[test]
    fn rooms_the_filter_rejects_are_never_listed() {
        let host = PeerId::random();
        let t = ticket(host, None).to_string();
        let mut list = RoomList::new(Filter {
            players: Some(super::super::options::Players::Three),
            ..Filter::default()
        });
        assert_eq!(
            list.heard(host, &t, listing(4), 1, Instant::now()),
            Ok(vec![])
        );
        assert_eq!(list.lost(host), None);
        let change = list.heard(host, &t, listing(3), 1, Instant::now()).unwrap();
        assert!(matches!(change.as_slice(), [Change::Listed(_)]));
    }

    /// A phone that closed its room and opened another: the first is
    /// gone as the second is listed (`clovece rooms` printed no `gone:`
    /// for it), even one the filter does not list.
    #[test]
    fn a_room_replaced_by_another_of_its_phone_is_gone() {
        let host = PeerId::random();
        let room = |id| {
            let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
            Ticket::new(RoomId::from_bytes([id; 16]), host, [addr], None).unwrap()
        };
        let (first, second) = (room(1), room(2));
        let mut list = RoomList::new(Filter {
            players: Some(super::super::options::Players::Four),
            ..Filter::default()
        });
        let now = Instant::now();
        list.heard(host, &first.to_string(), listing(4), 1, now)
            .unwrap();
        let changes = list
            .heard(host, &second.to_string(), listing(4), 1, now)
            .unwrap();
        match changes.as_slice() {
            [Change::Gone(gone), Change::Listed(room)] => {
                assert_eq!(gone.room(), first.room());
                assert_eq!(room.ticket.room(), second.room());
            }
            other => panic!("{other:?}"),
        }
        let third = room(3).to_string();
        let changes = list.heard(host, &third, listing(3), 1, now).unwrap();
        assert!(
            matches!(changes.as_slice(), [Change::Gone(_)]),
            "{changes:?}"
        );
        assert_eq!(list.rooms().count(), 0);
    }

    #[test]
    fn a_lost_phone_takes_its_room_with_it() {
        let host = PeerId::random();
        let mut list = RoomList::default();
        let t = ticket(host, None).to_string();
        list.heard(host, &t, listing(2), 1, Instant::now()).unwrap();
        assert!(matches!(list.lost(host), Some(Change::Gone(_))));
        assert_eq!(list.lost(host), None);
    }

    #[test]
    fn a_listed_rooms_host_is_asked_its_name_once_and_named_once() {
        let host = PeerId::random();
        let t = ticket(host, None).to_string();
        let mut list = RoomList::default();
        let now = Instant::now();
        // Asked only once its room is listed, and then once.
        assert!(!list.ask_name(host));
        assert_eq!(list.named(host, "Hana"), None, "not asked");
        list.heard(host, &t, listing(4), 3, now).unwrap();
        assert!(list.ask_name(host));
        assert!(!list.ask_name(host));
        assert_eq!(list.named(host, "  "), None, "no name");
        let Some(Change::Listed(named)) = list.named(host, " Hana\n") else {
            panic!("the name changes the room");
        };
        assert_eq!(named.host.as_deref(), Some("Hana"));
        assert_eq!(list.named(host, "Eve"), None, "named once");
        // The name stays as the room's seats change.
        let [Change::Listed(fewer)] = &list.heard(host, &t, listing(4), 2, now).unwrap()[..] else {
            panic!("a seat taken changes the room");
        };
        assert_eq!(fewer.host.as_deref(), Some("Hana"));
        // A room listed again is asked again.
        list.lost(host);
        list.heard(host, &t, listing(4), 2, now).unwrap();
        assert!(list.ask_name(host));
        assert_eq!(list.rooms().next().unwrap().host, None);
    }

    #[test]
    fn ask_addresses_must_name_the_phone() {
        let bare: Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        assert!(matches!(phone(&bare), Err(BrowseError::NoPeerId(_))));
        let peer = PeerId::random();
        let full = bare.clone().with(Protocol::P2p(peer));
        let (p, a) = phone(&full).unwrap();
        assert_eq!((p, a), (peer, bare));
    }
}
