//! The host's side of a room: the [`Organiser`] the networking layer's
//! host loop consults. It keeps the [`Seating`], tells the guests every
//! change, and starts the game either by itself as soon as the room is
//! full and everyone is ready (`clovece host`, the headless contract) or
//! when the host says so on its [`Console`]: lines typed (`clovece host
//! --console`, one command a line: see [`Command`]) or the app's room
//! screen.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::time::Instant;

use libp2p::PeerId;
use tokio::io::{AsyncBufRead, Split};
use tokio::sync::mpsc;

use super::invite::Target;
use super::options::{OptionsError, Players, RoomOptions};
use super::seats::{Lineup, SeatError, Seating};
use crate::bot::Level;
use crate::net::game::{Note, Organiser, Sitter, Table};
use crate::net::guard::Bucket;
use crate::net::room::{Listing, Lobby};
use crate::net::terminal::typed;
use crate::net::{RoomId, Ticket};

/// A console command of the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `order 2 1 3`: seat i gets whoever sat in the i-th number's seat.
    Order(Vec<usize>),
    /// `computer 3 hard`, or `computer 3 none` to empty the seat again.
    Computer(usize, Option<Level>),
    /// `remove 2`: the guest of seat 2 is turned out of the room (and not
    /// let in again), say one that never gets ready.
    Remove(usize),
    /// `start`
    Start,
    /// `seats`: print the seats.
    Seats,
    /// `invite <peer id or address/p2p/peer id>`
    Invite(Target),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown command {0:?} (order N…, computer SEAT easy|medium|hard|none, remove SEAT, start, seats, invite PEER)"
)]
pub struct UnknownCommand(pub String);

impl FromStr for Command {
    type Err = UnknownCommand;

    fn from_str(line: &str) -> Result<Command, UnknownCommand> {
        let unknown = || UnknownCommand(line.to_owned());
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["start"] => Ok(Command::Start),
            ["seats"] => Ok(Command::Seats),
            ["remove", seat] => seat.parse().map(Command::Remove).map_err(|_| unknown()),
            ["invite", target] => target.parse().map(Command::Invite).map_err(|_| unknown()),
            ["order", seats @ ..] if !seats.is_empty() => seats
                .iter()
                .map(|s| s.parse().map_err(|_| unknown()))
                .collect::<Result<_, _>>()
                .map(Command::Order),
            ["computer", seat, level] => {
                let seat = seat.parse().map_err(|_| unknown())?;
                let level = match *level {
                    "none" => None,
                    level => Some(level.parse().map_err(|_| unknown())?),
                };
                Ok(Command::Computer(seat, level))
            }
            _ => Err(unknown()),
        }
    }
}

/// A command given on the app's room screen, with the guests the screen
/// showed in their seats (by seat, from 0, as the room's seats say them).
/// Its seat numbers mean whoever sat there then, but it may be taken
/// later: commands wait while a start is signed, and guests come and go
/// meanwhile. So a command about the seats given for other guests than
/// the room now has is refused rather than turning out, moving or
/// starting with someone the host did not see there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    pub command: Command,
    pub guests: Vec<(usize, PeerId)>,
}

/// Where the host's commands come from.
pub enum Console {
    /// Lines typed, one command a line (`clovece host --console`): the
    /// input split at each `\n`.
    Lines(Split<Box<dyn AsyncBufRead + Unpin + Send>>),
    /// Commands given one by one (the app's room screen).
    Commands(mpsc::UnboundedReceiver<Given>),
}

impl Console {
    /// The next command, a line that is not one, or `None` once the
    /// console is closed. A line typed is taken as it reads then (the
    /// console prints the seats at each change); a command given comes
    /// with the guests it was given for.
    async fn next(
        &mut self,
    ) -> Option<Result<(Command, Option<Vec<(usize, PeerId)>>), UnknownCommand>> {
        match self {
            Console::Lines(lines) => loop {
                match lines.next_segment().await {
                    Ok(Some(line)) => {
                        let line = typed(line);
                        if !line.trim().is_empty() {
                            return Some(line.parse().map(|command| (command, None)));
                        }
                    }
                    Ok(None) | Err(_) => return None,
                }
            },
            Console::Commands(commands) => commands
                .recv()
                .await
                .map(|given| Ok((given.command, Some(given.guests)))),
        }
    }
}

/// How many changes a guest may make at once (coming into the room,
/// changing its readiness), and how many a second after: a tap or two for
/// a person. Each change is told to every guest and shown to the host, so
/// a guest flipping its readiness, or leaving and coming back, as fast as
/// messages go would flood them all.
const GUEST_CHANGES: u64 = 10;
const GUEST_CHANGES_PER_SEC: u64 = 1;

/// The organiser of `clovece host` (see the module documentation).
pub struct Host {
    seating: Seating,
    name: String,
    /// The room's ticket and listing, once open.
    room: Option<(Ticket, Listing)>,
    /// Phones to invite as soon as the room is open.
    invites: Vec<Target>,
    /// Phones invited that have not declined: only their word is taken.
    invited: BTreeSet<PeerId>,
    /// `None`: start by itself as soon as possible.
    console: Option<Console>,
    notes: Vec<Note>,
    started: Option<Lineup>,
    /// Each guest's changes left ([`Host::change`]).
    changes: BTreeMap<PeerId, Bucket>,
}

impl Host {
    /// The table and organiser of a room with `options`, the computer at
    /// `level` in the last `computers` seats, driven by `console` if any.
    pub fn open(
        options: &RoomOptions,
        name: &str,
        computers: u8,
        level: Level,
        console: Option<Console>,
    ) -> Result<(Table, Host), OptionsError> {
        options.check_computers(computers)?;
        let host = Host::new(options.players, name, computers, level, console);
        Ok((options.table(), host))
    }

    /// A room of `players`, the computer at `level` in the last
    /// `computers` seats, driven by `console` if any.
    pub fn new(
        players: Players,
        name: &str,
        computers: u8,
        level: Level,
        console: Option<Console>,
    ) -> Host {
        // Cut as the guests' are: the room's seats and invitations show
        // the name the game will.
        let name = crate::net::nickname(name);
        Host {
            seating: Seating::new(players, &name, computers, level),
            name,
            room: None,
            invites: Vec::new(),
            invited: BTreeSet::new(),
            console,
            notes: Vec::new(),
            started: None,
            changes: BTreeMap::new(),
        }
    }

    /// Invites `targets` as soon as the room is open.
    pub fn inviting(self, targets: Vec<Target>) -> Host {
        Host {
            invites: targets,
            ..self
        }
    }

    fn room_id(&self) -> Option<RoomId> {
        self.room.as_ref().map(|(ticket, _)| ticket.room())
    }

    /// The invitation to the room, once open.
    fn invitation(&self) -> Option<Lobby> {
        let (ticket, listing) = self.room.as_ref()?;
        Some(Lobby::Invite {
            ticket: ticket.to_string(),
            listing: *listing,
            from: self.name.clone(),
        })
    }

    fn invite(&mut self, target: Target) {
        let Some(invite) = self.invitation() else {
            self.invites.push(target);
            return;
        };
        // As the app's invite list: a friend who accepts is only turned
        // away at the door.
        if self.seating.free() == 0 {
            let full = SeatError::Full;
            self.notes.push(Note::Say(format!(
                "refused: invite {}: {full}",
                target.peer
            )));
            return;
        }
        self.invited.insert(target.peer);
        self.notes.push(Note::Dial(target.peer, target.addrs));
        self.notes.push(Note::Send(target.peer, invite));
        self.notes
            .push(Note::Say(format!("invited: {}", target.peer)));
    }

    /// Tells everyone the seats; starts by itself if there is no console.
    fn changed(&mut self) {
        let guests = self.seating.guest_seats();
        self.notes.push(Note::Seats {
            seats: self.seating.view(),
            startable: self.seating.start().is_ok(),
            guests: guests.clone(),
        });
        for (_, guest) in guests {
            self.tell_seats(guest);
        }
        if self.console.is_none()
            && let Ok(lineup) = self.seating.start()
        {
            self.started = Some(lineup);
        }
    }

    /// Sends `guest` the seats, after which of them is its (once the room
    /// is open).
    fn tell_seats(&mut self, guest: PeerId) {
        let Some(room) = self.room_id() else { return };
        if let Some(seat) = self
            .seating
            .seat_of(guest)
            .and_then(|s| u8::try_from(s).ok())
        {
            self.notes
                .push(Note::Send(guest, Lobby::YourSeat { room, seat }));
        }
        let seats = self.seating.view();
        self.notes
            .push(Note::Send(guest, Lobby::Seats { room, seats }));
    }

    /// After `guest`'s message: everyone is told the seats if it changed
    /// them, only `guest` if not (it may have missed them). A guest saying
    /// the same again and again is answered once each time, not by a
    /// message to every guest.
    fn heard(&mut self, guest: PeerId, changed: bool) {
        if changed {
            self.changed();
        } else {
            self.tell_seats(guest);
        }
    }

    fn command(&mut self, command: Command) {
        let done = match command {
            Command::Order(order) => self.seating.reorder(&order).map_err(|e| e.to_string()),
            Command::Computer(seat, level) => self
                .seating
                .computer(seat, level)
                .map_err(|e| e.to_string()),
            Command::Remove(seat) => self
                .seating
                .remove(seat)
                .map(|guest| self.notes.push(Note::Remove(guest)))
                .map_err(|e| e.to_string()),
            Command::Start => match self.seating.start() {
                Ok(lineup) => {
                    self.started = Some(lineup);
                    return;
                }
                Err(e) => Err(format!("cannot start: {e}")),
            },
            Command::Seats => Ok(()),
            Command::Invite(target) => {
                self.invite(target);
                return;
            }
        };
        match done {
            Ok(()) => self.changed(),
            Err(why) => self.notes.push(Note::Say(format!("refused: {why}"))),
        }
    }

    /// Takes one of `peer`'s changes, if it has one left. Its bucket stays
    /// when it leaves, so coming back starts no fresh budget; the buckets
    /// that are full again go, as a fresh one would be the same.
    fn change(&mut self, peer: PeerId) -> bool {
        let now = Instant::now();
        self.changes.retain(|_, bucket| !bucket.is_full(now));
        self.changes
            .entry(peer)
            .or_insert_with(|| Bucket::new(GUEST_CHANGES, GUEST_CHANGES_PER_SEC, now))
            .take(1, now)
    }
}

#[async_trait::async_trait]
impl Organiser for Host {
    fn opened(&mut self, ticket: &Ticket, listing: Listing) {
        let again = self.room.replace((ticket.clone(), listing)).is_some();
        // A private room's new secret: the phones invited that have not
        // come yet get the new ticket, as theirs opens the room no more
        // (the invited side takes it in place of the old one, unanswered).
        if again && let Some(invite) = self.invitation() {
            for &peer in &self.invited {
                self.notes.push(Note::Send(peer, invite.clone()));
            }
        }
        self.changed();
        for target in std::mem::take(&mut self.invites) {
            self.invite(target);
        }
    }

    fn places(&self) -> usize {
        self.seating.guest_places()
    }

    fn arrived(&mut self, peer: PeerId, name: &str) -> bool {
        match self.seating.arrive(peer, name) {
            Ok(true) if !self.change(peer) => {
                self.seating.leave(peer);
                self.notes.push(Note::Say(format!(
                    "turned away: {peer}: it came and went too often"
                )));
                false
            }
            Ok(changed) => {
                // An invitation accepted is no longer one to decline.
                self.invited.remove(&peer);
                self.heard(peer, changed);
                true
            }
            // Not a refusal of the host's command: a line of its own.
            Err(e) => {
                self.notes
                    .push(Note::Say(format!("turned away: {peer}: {e}")));
                false
            }
        }
    }

    fn left(&mut self, peer: PeerId) {
        if self.seating.leave(peer) {
            self.changed();
        }
    }

    fn message(&mut self, from: PeerId, message: Lobby) {
        match message {
            Lobby::Ready { room, ready } if Some(room) == self.room_id() => {
                let Ok(changed) = self.seating.ready(from, ready) else {
                    return;
                };
                // Too many changes of mind: coming ready is undone, and
                // the guest shown the seats as they stay. "Not ready"
                // always counts: it calls off a start being signed
                // (`net::setup`, as it comes), and a guest comes back
                // ready only by a change that counts, so it floods no one.
                if changed && !self.change(from) && ready {
                    let _ = self.seating.ready(from, false);
                    self.tell_seats(from);
                    return;
                }
                self.heard(from, changed);
            }
            // Any phone with the ticket can send this; only an invited one
            // is listed as declining, once per invitation.
            Lobby::Declined { room }
                if Some(room) == self.room_id() && self.invited.contains(&from) =>
            {
                self.invited.remove(&from);
                self.notes.push(Note::Say(format!("declined: {from}")));
            }
            _ => {}
        }
    }

    async fn input(&mut self) {
        let command = match &mut self.console {
            Some(console) => console.next().await,
            None => None,
        };
        match command {
            Some(Ok((command, Some(shown))))
                if !matches!(command, Command::Seats | Command::Invite(_))
                    && shown != self.seating.guest_seats() =>
            {
                self.notes.push(Note::Say(format!(
                    "refused: {command:?}: the guests in the seats changed since it was given"
                )));
            }
            Some(Ok((command, _))) => self.command(command),
            Some(Err(e)) => self.notes.push(Note::Say(format!("refused: {e}"))),
            // No console, or it ended: nothing more will come from it.
            None => std::future::pending().await,
        }
    }

    fn notes(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.notes)
    }

    fn started(&mut self) -> Option<Vec<Sitter>> {
        self.started.take().map(Lineup::into_sitters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::room::SeatView;
    use tokio::io::AsyncBufReadExt;

    /// A line that is not UTF-8 (a terminal in another encoding) is
    /// refused as any nonsense is, and the console reads on.
    #[tokio::test]
    async fn a_console_line_not_in_utf8_is_refused_and_the_next_read() {
        let typed: Box<dyn AsyncBufRead + Unpin + Send> = Box::new(&b"\xe8akaj\r\n\nseats\r\n"[..]);
        let mut console = Console::Lines(typed.split(b'\n'));
        assert!(matches!(console.next().await, Some(Err(_))));
        assert_eq!(console.next().await, Some(Ok((Command::Seats, None))));
        assert_eq!(console.next().await, None);
    }

    #[test]
    fn console_commands_parse_and_nonsense_is_refused() {
        assert_eq!("start".parse(), Ok(Command::Start));
        assert_eq!(" order 2 1  3 ".parse(), Ok(Command::Order(vec![2, 1, 3])));
        assert_eq!(
            "computer 3 hard".parse(),
            Ok(Command::Computer(3, Some(Level::Hard)))
        );
        assert_eq!("computer 2 none".parse(), Ok(Command::Computer(2, None)));
        assert_eq!("remove 2".parse(), Ok(Command::Remove(2)));
        for bad in [
            "",
            "order",
            "order x",
            "computer 3",
            "computer 3 genius",
            "remove",
            "remove two",
            "fly",
        ] {
            assert!(bad.parse::<Command>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_guest_that_finds_no_empty_seat_is_turned_away() {
        // The computer took the last seat after the guest was admitted.
        let mut full = Host::new(Players::Two, "Hana", 1, Level::Medium, None);
        open(&mut full);
        let late = PeerId::random();
        full.notes();
        assert!(!full.arrived(late, "Ivo"));
        assert_eq!(
            full.notes(),
            [Note::Say(format!(
                "turned away: {late}: every seat is taken"
            ))]
        );
        let mut free = Host::new(Players::Two, "Hana", 0, Level::Medium, None);
        open(&mut free);
        assert!(free.arrived(PeerId::random(), "Ivo"));
    }

    /// Opens `host`'s room; its id.
    fn open(host: &mut Host) -> RoomId {
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let id = RoomId::from_bytes([1; 16]);
        let ticket = Ticket::new(id, PeerId::random(), [addr], None).unwrap();
        host.opened(&ticket, RoomOptions::default().table().listing());
        host.notes();
        id
    }

    #[test]
    fn the_hosts_name_is_cut_as_a_guests_is() {
        let long = format!("Ha\u{7}na{}", "x".repeat(100));
        let host = Host::new(Players::Two, &long, 0, Level::Medium, None);
        let cut = format!("Hana{}", "x".repeat(28));
        assert_eq!(host.name, cut);
        assert_eq!(
            host.seating.view()[0],
            crate::net::room::SeatView::Host { name: cut }
        );
    }

    #[test]
    fn invitations_wait_for_the_room_and_carry_its_ticket() {
        let friend = PeerId::random();
        let target = Target {
            peer: friend,
            addrs: Vec::new(),
        };
        let mut host =
            Host::new(Players::Two, "Hana", 0, Level::Medium, None).inviting(vec![target]);
        assert!(host.notes().is_empty());
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let ticket =
            Ticket::new(RoomId::from_bytes([1; 16]), PeerId::random(), [addr], None).unwrap();
        host.opened(&ticket, RoomOptions::default().table().listing());
        let sent = host.notes().into_iter().find_map(|n| match n {
            Note::Send(to, Lobby::Invite { ticket, from, .. }) if to == friend => {
                Some((ticket, from))
            }
            _ => None,
        });
        assert_eq!(sent, Some((ticket.to_string(), "Hana".to_owned())));
        host.message(
            friend,
            Lobby::Declined {
                room: ticket.room(),
            },
        );
        assert_eq!(host.notes(), vec![Note::Say(format!("declined: {friend}"))]);
        // Said again, or by a phone that was not invited: not listed.
        for from in [friend, PeerId::random()] {
            let room = ticket.room();
            host.message(from, Lobby::Declined { room });
            assert!(host.notes().is_empty());
        }
        // Invited again, the friend comes in instead: a late decline is not
        // listed either.
        host.invite(Target {
            peer: friend,
            addrs: Vec::new(),
        });
        host.arrived(friend, "Ivo");
        host.notes();
        let room = ticket.room();
        host.message(friend, Lobby::Declined { room });
        assert!(
            !host
                .notes()
                .contains(&Note::Say(format!("declined: {friend}")))
        );
    }

    /// A full room invites nobody, from the command line or the console:
    /// an invitation accepted would only be turned away at the door.
    #[test]
    fn a_full_room_refuses_to_invite() {
        let target = || Target {
            peer: PeerId::random(),
            addrs: Vec::new(),
        };
        let early = target();
        let (peer, guest) = (early.peer, PeerId::random());
        let mut host =
            Host::new(Players::Three, "Hana", 1, Level::Medium, None).inviting(vec![early]);
        let addr: libp2p::Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let ticket =
            Ticket::new(RoomId::from_bytes([1; 16]), PeerId::random(), [addr], None).unwrap();
        host.arrived(guest, "Ivo");
        host.opened(&ticket, RoomOptions::default().table().listing());
        let sent = |notes: &[Note]| {
            notes
                .iter()
                .any(|n| matches!(n, Note::Send(_, Lobby::Invite { .. })))
        };
        let notes = host.notes();
        assert!(!sent(&notes), "{notes:?}");
        let refused = format!("refused: invite {peer}: every seat is taken");
        assert!(notes.contains(&Note::Say(refused)), "{notes:?}");
        host.command(Command::Invite(target()));
        let notes = host.notes();
        assert!(!sent(&notes), "{notes:?}");
        // A seat freed, the same command invites.
        host.left(guest);
        host.notes();
        host.command(Command::Invite(target()));
        assert!(sent(&host.notes()));
    }

    #[test]
    fn a_private_rooms_new_ticket_goes_to_the_phones_invited_that_have_not_come() {
        let targets: Vec<Target> = (0..3)
            .map(|_| Target {
                peer: PeerId::random(),
                addrs: Vec::new(),
            })
            .collect();
        let [waiting, declined, came] = [0, 1, 2].map(|i| targets[i].peer);
        let mut host = Host::new(Players::Four, "Hana", 0, Level::Medium, None).inviting(targets);
        let addr: libp2p::Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let id = RoomId::from_bytes([1; 16]);
        let secret = |b| Some(crate::net::RoomSecret::from_bytes([b; 16]));
        let old = Ticket::new(id, PeerId::random(), [addr], secret(1)).unwrap();
        let listing = RoomOptions::default().table().listing();
        host.opened(&old, listing);
        host.message(declined, Lobby::Declined { room: id });
        host.arrived(came, "Ivo");
        host.notes();
        let new = old.with_secret(crate::net::RoomSecret::from_bytes([2; 16]));
        host.opened(&new, listing);
        let sent: Vec<(PeerId, String)> = host
            .notes()
            .into_iter()
            .filter_map(|n| match n {
                Note::Send(to, Lobby::Invite { ticket, .. }) => Some((to, ticket)),
                _ => None,
            })
            .collect();
        assert_eq!(sent, [(waiting, new.to_string())]);
    }

    /// A room of three, open, with Ana and Ivo seated, its notes so far
    /// taken.
    fn ana_and_ivo() -> (Host, RoomId, PeerId, PeerId) {
        let mut host = Host::new(Players::Three, "Hana", 0, Level::Medium, None);
        let room = open(&mut host);
        let (ana, ivo) = (PeerId::random(), PeerId::random());
        host.arrived(ana, "Ana");
        host.arrived(ivo, "Ivo");
        host.notes();
        (host, room, ana, ivo)
    }

    /// Who `notes` send the seats to.
    fn sent_to(notes: Vec<Note>) -> Vec<PeerId> {
        notes
            .into_iter()
            .filter_map(|n| match n {
                Note::Send(to, Lobby::Seats { .. }) => Some(to),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_guest_is_told_its_seat_before_the_seats_and_the_host_which_phone_sits_where() {
        let (mut host, room, ana, ivo) = ana_and_ivo();
        host.message(ivo, Lobby::Ready { room, ready: true });
        let notes = host.notes();
        let told: Vec<(PeerId, Option<u8>)> = notes
            .iter()
            .filter_map(|n| match n {
                Note::Send(to, Lobby::YourSeat { seat, .. }) => Some((*to, Some(*seat))),
                Note::Send(to, Lobby::Seats { .. }) => Some((*to, None)),
                _ => None,
            })
            .collect();
        assert_eq!(
            told,
            [(ana, Some(1)), (ana, None), (ivo, Some(2)), (ivo, None)]
        );
        assert!(
            notes.iter().any(|n| matches!(
                n,
                Note::Seats { guests, .. } if *guests == [(1, ana), (2, ivo)]
            )),
            "{notes:?}"
        );
    }

    #[test]
    fn a_guest_saying_the_same_again_is_answered_alone() {
        let (mut host, room, ana, ivo) = ana_and_ivo();
        host.message(ana, Lobby::Ready { room, ready: true });
        assert_eq!(sent_to(host.notes()), [ana, ivo], "a change goes to all");
        for _ in 0..3 {
            host.message(ana, Lobby::Ready { room, ready: true });
            assert_eq!(sent_to(host.notes()), [ana]);
            host.arrived(ivo, "Ivo");
            assert_eq!(sent_to(host.notes()), [ivo]);
        }
    }

    #[test]
    fn a_guest_flipping_its_readiness_is_heard_a_few_times_not_each_time() {
        let (mut host, room, ana, ivo) = ana_and_ivo();
        let mut told_ivo = 0;
        let mut told_ana = 0;
        for i in 0..1000 {
            host.message(
                ana,
                Lobby::Ready {
                    room,
                    ready: i % 2 == 0,
                },
            );
            for to in sent_to(host.notes()) {
                if to == ivo {
                    told_ivo += 1;
                } else if to == ana {
                    told_ana += 1;
                }
            }
        }
        // The first changes go to all; after them Ana is shown the seats
        // as they stay, and the others are not disturbed (once more, by
        // the "not ready" that always counts).
        assert!(told_ivo <= GUEST_CHANGES as usize + 2, "{told_ivo}");
        assert_eq!(told_ana, 1000, "Ana is always answered");
        let ana_ready =
            host.seating.view().into_iter().any(
                |s| matches!(s, SeatView::Guest { ref name, ready } if name == "Ana" && ready),
            );
        // Past her changes she said "not ready", which always counts, and
        // "ready", which did not.
        assert!(!ana_ready, "the last change taken stands");
        // Honest taps later are heard again.
        let now = Instant::now();
        let later = now + std::time::Duration::from_secs(1) / GUEST_CHANGES_PER_SEC as u32;
        let changes = host.changes.get_mut(&ana).unwrap();
        assert!(!changes.take(1, now));
        assert!(changes.take(1, later));
    }

    /// Leaving and coming back starts no fresh budget of changes, and
    /// comes under it too.
    #[test]
    fn a_guest_coming_and_going_is_heard_a_few_times_not_each_time() {
        let (mut host, room, ana, ivo) = ana_and_ivo();
        let mut told_ivo = 0;
        let mut turned_away = 0;
        for _ in 0..100 {
            host.left(ana);
            if !host.arrived(ana, "Ana") {
                turned_away += 1;
            }
            host.message(ana, Lobby::Ready { room, ready: true });
            told_ivo += sent_to(host.notes())
                .iter()
                .filter(|&&to| to == ivo)
                .count();
        }
        // Each leave is told (Ana had a seat), and each coming and getting
        // ready while changes are left.
        assert!(told_ivo <= 2 * GUEST_CHANGES as usize, "{told_ivo}");
        assert!(turned_away >= 95, "{turned_away}");
    }

    #[test]
    fn without_a_console_the_host_starts_once_full_and_ready() {
        let mut host = Host::new(Players::Two, "Hana", 0, Level::Medium, None);
        let guest = PeerId::random();
        host.arrived(guest, "Ivo");
        assert_eq!(host.started(), None);
        let room = open(&mut host);
        host.message(
            guest,
            Lobby::Ready {
                room: RoomId::from_bytes([2; 16]),
                ready: true,
            },
        );
        assert_eq!(host.started(), None, "ready for another room");
        host.message(guest, Lobby::Ready { room, ready: true });
        assert_eq!(
            host.started(),
            Some(vec![Sitter::Host, Sitter::Guest(guest)])
        );
    }

    /// The start being signed is called off as a guest says it is not
    /// ready (`net::setup`): that counts even past the guest's changes, so
    /// the seats never show ready a guest whose start is off (a host with
    /// no console then waited for ever on a full room, all shown ready);
    /// coming ready again does not, past them.
    #[test]
    fn not_ready_counts_past_a_guests_changes_and_ready_does_not() {
        let mut host = Host::new(Players::Two, "Hana", 0, Level::Medium, None);
        let room = open(&mut host);
        let guest = PeerId::random();
        host.arrived(guest, "Ivo");
        // Coming in took one change; the rest, ending ready.
        for i in 0..GUEST_CHANGES - 1 {
            let ready = i % 2 == 0;
            host.message(guest, Lobby::Ready { room, ready });
        }
        assert!(host.started().is_some(), "ready, changes used up");
        let told = |host: &mut Host| {
            host.notes().into_iter().rev().find_map(|note| match note {
                Note::Seats { seats, .. } => Some(seats[1].clone()),
                _ => None,
            })
        };
        told(&mut host);
        host.message(guest, Lobby::Ready { room, ready: false });
        assert_eq!(host.started(), None);
        assert!(
            matches!(told(&mut host), Some(SeatView::Guest { ready: false, .. })),
            "every phone is told"
        );
        host.message(guest, Lobby::Ready { room, ready: true });
        assert_eq!(host.started(), None, "ready again past its changes");
        assert_eq!(told(&mut host), None, "not told to every phone");
    }

    #[test]
    fn with_a_console_the_host_starts_only_when_told_and_ready() {
        let console: Box<dyn AsyncBufRead + Unpin + Send> = Box::new(&b""[..]);
        let mut host = Host::new(
            Players::Two,
            "Hana",
            0,
            Level::Medium,
            Some(Console::Lines(console.split(b'\n'))),
        );
        let room = open(&mut host);
        let guest = PeerId::random();
        host.arrived(guest, "Ivo");
        host.command(Command::Start);
        assert_eq!(host.started(), None);
        let said = host.notes();
        assert!(
            said.contains(&Note::Say(
                "refused: cannot start: not ready yet: \"Ivo\"".into()
            )),
            "{said:?}"
        );
        host.message(guest, Lobby::Ready { room, ready: true });
        assert_eq!(host.started(), None, "ready is not start");
        host.command(Command::Start);
        assert!(host.started().is_some());
    }

    #[test]
    fn commands_from_the_apps_room_screen_drive_the_organiser() {
        let (commands, console) = mpsc::unbounded_channel();
        let mut host = Host::new(
            Players::Two,
            "Hana",
            0,
            Level::Medium,
            Some(Console::Commands(console)),
        );
        open(&mut host);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        // Given for the room as it is: no guests.
        let given = |command| Given {
            command,
            guests: Vec::new(),
        };
        commands.send(given(Command::Start)).unwrap();
        runtime.block_on(host.input());
        assert_eq!(host.started(), None, "an empty seat");
        let said = host.notes();
        assert!(
            said.contains(&Note::Say(
                "refused: cannot start: 1 seat(s) still empty".into()
            )),
            "{said:?}"
        );
        commands
            .send(given(Command::Computer(2, Some(Level::Easy))))
            .unwrap();
        runtime.block_on(host.input());
        assert!(
            host.notes().iter().any(|n| matches!(
                n,
                Note::Seats {
                    startable: true,
                    ..
                }
            )),
            "the seats say the game may start"
        );
        commands.send(given(Command::Start)).unwrap();
        runtime.block_on(host.input());
        assert_eq!(
            host.started(),
            Some(vec![Sitter::Host, Sitter::Computer(Level::Easy)])
        );
    }

    /// A seat's number means whoever the screen showed there: a command
    /// given for other guests than the room now has is refused, and the
    /// guest now in the seat stays.
    #[test]
    fn a_command_given_for_guests_no_longer_in_their_seats_is_refused() {
        let (commands, console) = mpsc::unbounded_channel();
        let console = Some(Console::Commands(console));
        let mut host = Host::new(Players::Two, "Hana", 0, Level::Medium, console);
        open(&mut host);
        let (ana, ivo) = (PeerId::random(), PeerId::random());
        host.arrived(ana, "Ana");
        let shown = host.seating.guest_seats();
        assert_eq!(shown, [(1, ana)]);
        // Ana goes and Ivo takes her seat before the command is taken.
        host.left(ana);
        host.arrived(ivo, "Ivo");
        host.notes();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let remove = |guests| Given {
            command: Command::Remove(2),
            guests,
        };
        commands.send(remove(shown)).unwrap();
        runtime.block_on(host.input());
        let said = host.notes();
        assert!(
            said.iter()
                .any(|n| matches!(n, Note::Say(s) if s.starts_with("refused: "))),
            "{said:?}"
        );
        assert!(
            !said.iter().any(|n| matches!(n, Note::Remove(_))),
            "{said:?}"
        );
        assert_eq!(host.seating.seat_of(ivo), Some(1));
        // Given for Ivo there, it is taken.
        commands.send(remove(host.seating.guest_seats())).unwrap();
        runtime.block_on(host.input());
        assert!(host.notes().contains(&Note::Remove(ivo)));
    }
}
