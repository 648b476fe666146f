//! A networked game's setup, once the room is full: the host seats
//! everyone and every player signs the game's header. Inside the lobby's
//! [`Frame::Game`] travels an [`Envelope`]: either the setup's messages or
//! one of the game log's.
//!
//! 1. every guest sends the host its key and dice commitment ([`Setup::Offer`]);
//! 2. the host seats everyone (itself first, guests in the order they were
//!    admitted, computer seats last) and sends the header to sign
//!    ([`Setup::Sign`]);
//! 3. every guest checks its own seat and signs ([`Setup::Signed`]);
//! 4. the host sends the signed header with every player's addresses
//!    ([`Setup::Start`]), so guests can reach each other directly.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::{Multiaddr, PeerId};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;
use tokio::time::{Instant, sleep_until};
use tracing::warn;

use super::code::RoomCode;
use super::front::{Action, Front, Progress};
use super::game::{GameError, seated_players};
use super::node::{Event, Node};
#[cfg(test)]
use super::room::MAX_WAITING;
use super::room::{self, Frame, Listing, Lobby, LookupError, Refusal, Room, SeatView};
use super::seen;
use super::ticket::{RoomId, RoomSecret, Ticket, TicketError, likeliest};
use crate::bot::Level;
use crate::protocol::header::{DEFAULT_GRACE_SECS, DEFAULT_ROLLS, STAND_IN};
use crate::protocol::{
    DiceChain, DiceSecret, Digest, Header, PhoneError, PublicKey, Seat, Signature, SignedHeader,
    Signer, Theme, TurnTimer,
};
use crate::rules::{Colour, FirstPlayer, RuleSet, Seats};

/// How long a joiner waits for the host to answer.
const JOIN_WAIT: Duration = Duration::from_secs(10);
/// How long a joiner looks for a room by its code.
const FIND_WAIT: Duration = Duration::from_secs(3);
/// How long a joiner not yet admitted (or admitted just now) waits, after
/// a refusal, for an admission behind it. The transport delivers what a
/// phone went away before taking at its next visit, so a refusal (and an
/// admission before it) may be one queued for an earlier visit of this
/// phone; the host's answer to this visit's request comes right behind.
const STALE_WAIT: Duration = Duration::from_secs(1);
/// How long the host waits for its guests to sign the header: a phone
/// signs within moments of the request, so one that has not by then is
/// given up on and the room goes on without it.
const SIGN_WAIT: Duration = Duration::from_secs(10);
/// How long the host waits for an admitted guest's offer to play: a phone
/// sends it right behind its request for a seat, so one that has not by
/// then is turned away (it takes no seat meanwhile).
const OFFER_WAIT: Duration = Duration::from_secs(10);
/// The most phones whose messages to the organiser are held while a
/// start is being signed (a room has at most three guests, a few phones
/// waiting and a few invited).
const MAX_HELD_NOTES: usize = 16;
/// Signatures from one guest that may fail to sign a start's header before
/// its others are no longer checked (see `Signing::bad`).
const MAX_BAD_SIGNATURES: u8 = 16;
/// How long a phone leaving the room waits for its goodbye to be taken,
/// and a host for its start ([`delivered`]): on one Wi-Fi that takes
/// moments, and a phone that has not taken it by then learns of the leave
/// as it would of a phone gone (or has the start once in touch again).
const FAREWELL_WAIT: Duration = Duration::from_secs(1);
/// How often the host looks whether a phone invited has taken its
/// invitation, while one has not.
const REACHED_EVERY: Duration = Duration::from_millis(250);
/// How long a guest waits before it says its readiness again when the
/// host shows it otherwise: the host takes a guest's changes of mind only
/// a few at once and about one a second after (`lobby`'s organiser), and
/// shows a change it did not take as not made. The seats it sends before
/// taking a change still on its way disagree too, for a moment.
const READY_AGAIN: Duration = Duration::from_secs(1);
/// The longest nickname a phone passes on (in characters); longer ones are
/// cut, so a hostile peer cannot fill the others' statistics.
pub const MAX_NAME: usize = 32;

/// What travels inside [`Frame::Game`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "a handful of setup messages per game; boxing buys nothing"
)]
pub(super) enum Envelope {
    Setup(Setup),
    Log(ByteBuf),
}

impl Envelope {
    pub(super) fn frame(&self) -> Vec<u8> {
        let inner = postcard::to_stdvec(self).expect("envelopes serialise to memory");
        Frame::Game(ByteBuf::from(inner)).encode()
    }

    pub(super) fn unframe(bytes: &[u8]) -> Option<Envelope> {
        match Frame::decode(bytes).ok()? {
            Frame::Game(inner) => match postcard::take_from_bytes::<Envelope>(&inner).ok()? {
                (envelope, []) => Some(envelope),
                _ => None,
            },
            Frame::Lobby(_) => None,
        }
    }
}

/// The setup messages (see the module documentation).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Setup {
    Offer {
        key: PublicKey,
        commitment: Digest,
        /// The player's nickname (for the others' statistics).
        name: String,
    },
    Sign(Header),
    Signed(Signature),
    Start {
        header: SignedHeader,
        /// Every player's peer id and addresses, as bytes.
        peers: Vec<(ByteBuf, Vec<ByteBuf>)>,
        /// Every player's nickname, in the order of `peers`.
        names: Vec<String>,
    },
}

/// What the room is like (the host's choices).
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// Seats in all, 2–4.
    pub players: u8,
    pub rules: RuleSet,
    /// Whether the room is left out of lookups by code.
    pub private: bool,
    pub first: FirstPlayer,
    pub timer: TurnTimer,
    pub theme: Theme,
    /// How long the game waits for a phone that is gone.
    pub grace_secs: u16,
}

impl Table {
    /// What the nearby rooms list shows of the room.
    pub fn listing(&self) -> Listing {
        Listing {
            players: self.players,
            rules: self.rules,
            timer: self.timer,
            theme: self.theme,
            first: self.first,
        }
    }
}

/// Who sits in a seat when the host starts the game, seat by seat in
/// clockwise order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sitter {
    Host,
    Guest(PeerId),
    Computer(Level),
}

/// What the organiser asks the host's loop to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Send a lobby message.
    Send(PeerId, Lobby),
    /// Make sure a phone can be reached (before sending it a message).
    Dial(PeerId, Vec<Multiaddr>),
    /// Show the seats (as the guests are shown them), whether the game
    /// may start now, and the guests' phones by seat (from 0).
    Seats {
        seats: Vec<SeatView>,
        startable: bool,
        guests: Vec<(usize, PeerId)>,
    },
    /// Say a line to the host (a refusal, an invitation sent).
    Say(String),
    /// Turn a seated guest's phone out of the room (the host removed it):
    /// it is told so, and its asking to join again is refused.
    Remove(PeerId),
}

/// The host's side of a room before the game: who sits where, who is
/// ready, when the game starts. The host's loop here does the networking
/// (admission, the game's setup); the decisions are the organiser's, which
/// `crate::lobby` implements (net does not depend on it).
#[async_trait::async_trait]
pub trait Organiser: Send {
    /// The room is open with this ticket; again with a private room's
    /// new one, after a phone was removed ([`Room::reseal`]).
    fn opened(&mut self, ticket: &Ticket, listing: Listing);
    /// Seats for guests' phones now.
    fn places(&self) -> usize;
    /// A guest's phone was admitted and offered to play as `name`; whether
    /// it has a seat (the last empty one may have been given to the
    /// computer since the guest was admitted).
    fn arrived(&mut self, peer: PeerId, name: &str) -> bool;
    /// A guest left before the start (said so, or disconnected).
    fn left(&mut self, peer: PeerId);
    /// Any other lobby message (a guest's `Ready`, an invitee's answer).
    fn message(&mut self, from: PeerId, message: Lobby);
    /// Waits for the host's own input (a command) and takes it in; pending
    /// for ever when there is none.
    async fn input(&mut self);
    /// What to do now, drained.
    fn notes(&mut self) -> Vec<Note>;
    /// The seats to start the game with, once the host has started it:
    /// one per seat, every guest among them having arrived.
    fn started(&mut self) -> Option<Vec<Sitter>>;
}

impl std::fmt::Debug for dyn Organiser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Organiser")
    }
}

/// `name` cut to [`MAX_NAME`] characters, without control characters:
/// a player's nickname as every phone shows it.
pub fn nickname(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect()
}

/// Every player's peer id, addresses and nickname, as the host sends them.
pub(super) type Peers = Vec<(PeerId, Vec<Multiaddr>, String)>;

/// How a guest's setup ends: the game started, with its signed header and
/// its players.
#[derive(Debug)]
pub(super) struct Joined {
    pub header: SignedHeader,
    pub peers: Peers,
    /// The player left the room just as the game started (the host's start
    /// crossed the leave): the game is saved, not played, and kept for
    /// Home as one whose app was closed.
    pub left: bool,
    /// What other players' phones sent of the game before this guest had
    /// its start: theirs may come first, and their phones do not send it
    /// again (`Early`).
    pub early: Vec<(PeerId, Vec<u8>)>,
}

/// Messages of a game's log heard before the game plays: a guest that had
/// its start sends its status and its reveal for the opening's first roll
/// to the others at once, and a guest whose start is still on its way, or
/// a host waiting for its start to be taken ([`delivered`]), would drop
/// them (its node took them, so they are not sent again), and wait a
/// second or two for the game's catch-up. Kept for the game from the
/// players of the header signed (a guest's come only after it has signed:
/// the game starts once all have), at most [`Early::MAX`].
#[derive(Debug, Default)]
struct Early {
    players: Vec<PeerId>,
    kept: Vec<(PeerId, Vec<u8>)>,
}

impl Early {
    /// A game's first messages from three other players, with room over.
    const MAX: usize = 32;

    /// Takes messages from the players `header` seats from now on.
    fn seated(&mut self, header: &Header) {
        self.players = seated_players(header).map(|(_, id)| id).collect();
    }

    /// Keeps `bytes` from `from` if it is a message of a game's log from
    /// one of the players.
    fn keep(&mut self, from: PeerId, bytes: Vec<u8>) {
        if self.kept.len() < Self::MAX
            && self.players.contains(&from)
            && matches!(Envelope::unframe(&bytes), Some(Envelope::Log(_)))
        {
            self.kept.push((from, bytes));
        }
    }
}

/// The header the host asked its guests to sign, while they sign it.
struct Signing {
    header: Header,
    /// The guests, in the order of their seats.
    order: Vec<PeerId>,
    /// The host's own and each guest's checked signature.
    signatures: BTreeMap<Colour, Signature>,
    /// How many signatures from each guest did not sign the header. Past
    /// [`MAX_BAD_SIGNATURES`] none of its signatures is checked again in
    /// this start: each check costs an ed25519 verification, and an honest
    /// guest sends one, after a stale one for each start called off while
    /// its link stalled (a few).
    bad: BTreeMap<PeerId, u8>,
    /// When the guests that have not signed are given up on.
    until: Instant,
}

/// A guest gone before the start: its seat is free again, the node no
/// longer keeps it, and a header being signed, which seats it, is dropped
/// (the organiser starts again once the room is full).
fn leave(
    peer: PeerId,
    node: &mut Node,
    room: &mut Room,
    taken: &mut Taken,
    signing: &mut Option<Signing>,
    organiser: &mut dyn Organiser,
) {
    room.leave(peer);
    node.release(peer);
    // What was queued for it goes too: a guest whose connection dropped
    // comes back to an empty queue, not to the room's old news, which
    // would count against it as answers it never took. (Its sighting
    // stays: it is still nearby, on the invite list.)
    node.drop_queued(peer);
    unseat(peer, taken, signing, organiser);
}

/// A guest's seat is free again, its offer forgotten, and a header being
/// signed, which seats it, dropped.
fn unseat(
    peer: PeerId,
    taken: &mut Taken,
    signing: &mut Option<Signing>,
    organiser: &mut dyn Organiser,
) {
    taken.offers.remove(&peer);
    taken.names.remove(&peer);
    organiser.left(peer);
    if signing.as_ref().is_some_and(|s| s.order.contains(&peer)) {
        warn!(%peer, "a guest left while the header was signed; back to the room");
        *signing = None;
    }
}

/// Whether `from`, which asked the room something, gets an answer: as
/// [`Node::answers`] says, but a seated guest always, whose queue holds
/// the room's news too (the seats, a start to sign) and which must hear
/// that it is still in (a guest that came back before the host saw its
/// connection drop).
fn answered(node: &Node, from: PeerId, seated: bool) -> bool {
    seated || node.answers(from)
}

/// A phone that is not a guest disconnected: what was queued for it goes
/// (a refusal, a stranger's answers), but an invitation waits for its
/// phone. Else an answer the stranger left untaken would have the host
/// dial it when discovery names it again, and connections the host
/// dials do not count against the strangers' slots (docs/net.md). Its
/// sighting stays: a phone nearby whose connection went quiet (one the
/// host asked who it is) is still on the invite list.
fn gone(peer: PeerId, node: &mut Node, room: &mut Room) {
    if room.forget_refused(peer) || !room.vouched(peer) {
        node.drop_queued(peer);
    }
}

/// Questions a host keeps waiting for phones nearby to say who they are:
/// a few phones are on their Home screens at once.
const MAX_ASKED: usize = 8;

/// Whether `peer` is in `room` or invited to it: what is queued for it is
/// the room's, not a question's to drop.
fn kept_by_room(room: &Room, peer: PeerId) -> bool {
    room.vouched(peer) || room.guests().contains(&peer)
}

/// A phone found nearby that the host asked who it is.
struct Asked {
    peer: PeerId,
    /// Whether the host dialled its connection to ask: only such a
    /// connection is closed when the question ends. One the phone had
    /// opened before is its own (its nearby list asks through it twice a
    /// second, and would have to dial again), and counts against the
    /// strangers' slots as any it opens. (One the
    /// host dialled is closed even if the phone has used it since: else a
    /// device announcing identity after identity, each asking the room
    /// something, would have the host hold connections it dialled until
    /// they filled every slot, its players' too.)
    dialled: bool,
}

impl Asked {
    /// The question to `peer` ends (answered, or pushed out): the
    /// connection the host dialled for it is closed, unless the room
    /// needs it.
    fn end(self, node: &mut Node, room: &Room) {
        if self.dialled && !kept_by_room(room, self.peer) {
            node.disconnect(self.peer);
        }
    }
}

/// Asks `peer`, a phone found nearby, who it is (for the invite list,
/// which would show only its id), unless a question to it is still
/// queued: found again at a new address (its app went from a game to
/// Home), it is asked again. At most [`MAX_ASKED`] questions wait for an
/// answer (an older app's phone, a player with no nickname, which tells
/// the host when it chooses one): past that the oldest one goes, and so
/// does the connection the host dialled for it (a connection answered is
/// closed too, [`Asked::end`]). So a stranger announcing made-up phones
/// cannot make the host hold connections it dialled without end; and the
/// phone pushed out stays on the list, by its id.
fn ask_who(peer: PeerId, node: &mut Node, room: &Room, asked: &mut Vec<Asked>) {
    let pending = asked.iter().any(|a| a.peer == peer);
    if pending && node.unacknowledged(peer) > 0 {
        return;
    }
    if !pending {
        match seen::make_room_within(MAX_ASKED, asked, |a| kept_by_room(room, a.peer)) {
            Ok(Some(out)) => {
                node.drop_queued(out.peer);
                out.end(node, room);
            }
            Ok(None) => {}
            Err(seen::Full) => return,
        }
        asked.push(Asked {
            peer,
            dialled: !node.is_connected(peer),
        });
    }
    let _ = node.send(peer, Frame::Lobby(Lobby::WhoAreYou).encode());
    node.dial(peer);
}

/// Whether `lobby` from `from` is held while a start is signed: a guest's
/// `Ready` or an invitee's `Declined`, for this room. (Not the nearby
/// lists' questions, which a room being signed leaves unanswered: they
/// come twice a second from every phone browsing.)
fn held_while_signing(lobby: &Lobby, room: &Room, from: PeerId) -> bool {
    let this = room.ticket().room();
    match *lobby {
        Lobby::Ready { room: r, .. } => r == this && room.guests().contains(&from),
        // Not a stranger's, which would fill the places held.
        Lobby::Declined { room: r } => r == this && room.vouched(from),
        _ => false,
    }
}

/// A guest's offer to play.
struct Offer {
    from: PeerId,
    key: PublicKey,
    commitment: Digest,
    name: String,
}

/// The offers of the guests seated: their keys and commitments, and
/// their nicknames (for the start).
#[derive(Default)]
struct Taken {
    offers: BTreeMap<PeerId, (PublicKey, Digest)>,
    names: BTreeMap<PeerId, String>,
}

/// Takes in `offer`: its guest is seated if the organiser has a seat for
/// it, and turned away if not.
fn take_offer(
    offer: Offer,
    node: &mut Node,
    room: &mut Room,
    organiser: &mut dyn Organiser,
    taken: &mut Taken,
) {
    let Offer {
        from,
        key,
        commitment,
        name,
    } = offer;
    if organiser.arrived(from, &name) {
        room.seat(from);
        // A guest waiting for the start may be quiet for long; its
        // connection must stay, and come back if it drops. (Not before:
        // phones admitted and not offering, 8 of them, must not take the
        // connections of kept peers.)
        node.keep(from);
        taken.offers.insert(from, (key, commitment));
        taken.names.insert(from, name);
    } else {
        // Turned away rather than left waiting for a seat.
        turn_away(from, node, room);
    }
}

/// A guest admitted but given no seat: told the room is full, and no
/// longer in it or kept.
fn turn_away(peer: PeerId, node: &mut Node, room: &mut Room) {
    room.leave(peer);
    node.release(peer);
    refuse(peer, node, room, Refusal::Full);
}

/// Tells `peer` that `room` refuses it, and `why`.
fn refuse(peer: PeerId, node: &mut Node, room: &mut Room, why: Refusal) {
    let refused = room.refusal(peer, why);
    let _ = node.send(peer, Frame::Lobby(refused).encode());
}

/// Tells each of `to` `message` on leaving the room, and waits until they
/// have taken it or [`FAREWELL_WAIT`] has passed (the node sends only
/// while it is polled): the first message meanwhile that `heard` takes,
/// if any. With `listen`, waits for one until [`FAREWELL_WAIT`] has passed
/// even once `message` is taken (the taking may come before a message the
/// peer sent first).
async fn farewell<T>(
    node: &mut Node,
    to: &[PeerId],
    message: Lobby,
    listen: bool,
    mut heard: impl FnMut(PeerId, &[u8]) -> Option<T>,
) -> Option<T> {
    let bytes = Frame::Lobby(message).encode();
    for &peer in to {
        let _ = node.send(peer, bytes.clone());
    }
    let mut took = None;
    let taken = async {
        while took.is_none() && (listen || to.iter().any(|&peer| node.unacknowledged(peer) > 0)) {
            if let Event::Message { from, bytes } = node.next().await {
                took = heard(from, &bytes);
            }
        }
    };
    let _ = tokio::time::timeout(FAREWELL_WAIT, taken).await;
    took
}

/// Polls `node` until the other players of the game of `header` have
/// taken what was sent to them (the host's start), or [`FAREWELL_WAIT`]
/// has passed: what they sent of the game meanwhile (a guest that has its
/// start sends its status and reveal at once), for the game, as a
/// guest's [`Early`]. A phone asking for a seat meanwhile is told the
/// room is closed, as the game tells it.
///
/// The node sends only while it is polled, and the host saves the game
/// before it plays it: a host stopped just then (its player's tap
/// crossed the start, or the app closed) kept a game no guest had.
pub(super) async fn delivered(node: &mut Node, header: &Header) -> Vec<(PeerId, Vec<u8>)> {
    let mut early = Early::default();
    early.seated(header);
    let me = node.peer_id();
    let to: Vec<PeerId> = early.players.iter().copied().filter(|&p| p != me).collect();
    let taken = async {
        // An acknowledgement is no event: looked at again every 10 ms.
        while to.iter().any(|&peer| node.unacknowledged(peer) > 0) {
            tokio::select! {
                event = node.next() => {
                    let Event::Message { from, bytes } = event else { continue };
                    if to.contains(&from) {
                        early.keep(from, bytes);
                    } else {
                        room::tell_started(node, from, &bytes);
                    }
                }
                () = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
        }
    };
    let _ = tokio::time::timeout(FAREWELL_WAIT, taken).await;
    early.kept
}

/// Opens the room, waits until it is full and makes the signed header.
pub(super) async fn host(
    node: &mut Node,
    keypair: &Keypair,
    secret: &DiceSecret,
    table: Table,
    organiser: &mut dyn Organiser,
    name: &str,
    front: &mut dyn Front,
) -> Result<(SignedHeader, Peers), GameError> {
    let seats = Seats::for_players(table.players).ok_or(GameError::Seats(table.players))?;
    let secret_room = table.private.then(RoomSecret::generate).transpose()?;
    let ticket = Ticket::new(
        RoomId::generate()?,
        node.peer_id(),
        node.listen_addrs(),
        secret_room,
    )?;
    front.show(Progress::Opened(&ticket))?;
    front.show(Progress::Terms(&table.listing()))?;
    organiser.opened(&ticket, table.listing());
    let mut room = Room::new(ticket, organiser.places(), table.listing(), nickname(name));
    let signer = Signer::new(keypair).map_err(PhoneError::from)?;
    let mut taken = Taken::default();
    let mut signing: Option<Signing> = None;
    // The admitted guests that have not offered to play yet, and when
    // they are turned away if they still have not.
    let mut unoffered: BTreeMap<PeerId, Instant> = BTreeMap::new();
    // Offers that came while the start was being signed.
    let mut held: Vec<Offer> = Vec::new();
    // The organiser's messages (a guest ready or not, an invitation
    // declined) that came meanwhile: the last of each phone's, for as
    // few phones as a room has.
    let mut held_notes: BTreeMap<PeerId, Lobby> = BTreeMap::new();
    // The phones found nearby asked their nicknames, until they answer
    // (only their first answer is shown), oldest first ([`ask_who`]).
    let mut asked: Vec<Asked> = Vec::new();
    // The phones invited whose invitation is still queued (a phone that is
    // off, or not found yet), until they take it.
    let mut unreached: BTreeSet<PeerId> = BTreeSet::new();
    loop {
        if signing.is_none() {
            for offer in std::mem::take(&mut held) {
                if room.guests().contains(&offer.from) {
                    // It has offered, whatever it asked since.
                    unoffered.remove(&offer.from);
                    take_offer(offer, node, &mut room, organiser, &mut taken);
                }
            }
            for (from, note) in std::mem::take(&mut held_notes) {
                organiser.message(from, note);
            }
        }
        // Taking a note may give the organiser more to say (a removal
        // frees a seat and gives a private room a new ticket): all of it
        // goes now, not at the next event.
        loop {
            let notes = organiser.notes();
            if notes.is_empty() {
                break;
            }
            for note in notes {
                match note {
                    Note::Send(to, message) => {
                        // Not to be dropped with a refusal sent before it.
                        room.forget_refused(to);
                        if let Lobby::Invite { .. } = message {
                            room.vouch(to);
                            unreached.insert(to);
                        }
                        if let Err(e) = node.send(to, Frame::Lobby(message).encode()) {
                            warn!(%to, "cannot send: {e}");
                        }
                    }
                    Note::Dial(to, addrs) => {
                        // Where the invite list saw the phone: hints, as
                        // discovery's are.
                        node.add_hints(to, addrs);
                        node.dial(to);
                    }
                    Note::Seats {
                        seats,
                        startable,
                        guests,
                    } => front.show(Progress::Seats {
                        seats: &seats,
                        startable: Some(startable),
                        mine: None,
                        guests: &guests,
                    })?,
                    Note::Say(line) => front.show(Progress::Said(&line))?,
                    Note::Remove(guest) => {
                        leave(guest, node, &mut room, &mut taken, &mut signing, organiser);
                        room.bar(guest);
                        refuse(guest, node, &mut room, Refusal::Removed);
                        if let Some(ticket) = room.reseal(RoomSecret::generate()?) {
                            let ticket = ticket.clone();
                            front.show(Progress::Opened(&ticket))?;
                            organiser.opened(&ticket, table.listing());
                            let open = Frame::Lobby(room.open());
                            for &guest in room.guests() {
                                let _ = node.send(guest, open.encode());
                            }
                        }
                    }
                }
            }
        }
        room.set_places(organiser.places());
        if signing.is_none()
            && let Some(lineup) = organiser.started()
        {
            let mut order = Vec::new();
            let mut chosen = [None; 4];
            let mine = (
                signer.public(),
                DiceChain::new(secret, DEFAULT_ROLLS).commitment(),
            );
            for (colour, sitter) in seats.iter().zip(lineup) {
                chosen[colour.index()] = Some(match sitter {
                    Sitter::Host => Seat::Player {
                        key: mine.0,
                        commitment: mine.1,
                    },
                    Sitter::Guest(peer) => {
                        let (key, commitment) =
                            *taken.offers.get(&peer).ok_or(GameError::NoOffer(peer))?;
                        order.push(peer);
                        Seat::Player { key, commitment }
                    }
                    Sitter::Computer(level) => Seat::Computer { level },
                });
            }
            let mut nonce = [0u8; 32];
            getrandom::fill(&mut nonce)?;
            let mut h = Header::new(nonce, table.rules, chosen);
            h.first = table.first;
            h.timer = table.timer;
            h.theme = table.theme;
            h.grace_secs = table.grace_secs;
            let me = h.seat_of(mine.0).ok_or(GameError::BadSeat)?;
            for &guest in &order {
                send(node, guest, &Envelope::Setup(Setup::Sign(h.clone())));
            }
            signing = Some(Signing {
                signatures: BTreeMap::from([(me, h.sign(&signer))]),
                bad: BTreeMap::new(),
                header: h,
                order,
                until: Instant::now() + SIGN_WAIT,
            });
        }
        if let Some(Signing {
            header,
            order,
            signatures,
            ..
        }) = signing.take_if(|s| s.signatures.len() == s.order.len() + 1)
        {
            let signed = SignedHeader {
                header,
                signatures: signatures.into_iter().collect(),
            };
            let me = likeliest(node.listen_addrs());
            let mut peers: Peers = vec![(node.peer_id(), me, nickname(name))];
            peers.extend(
                order
                    .iter()
                    .map(|&p| (p, node.addrs(p), taken.names.remove(&p).unwrap_or_default())),
            );
            let start = start(&signed, &peers);
            for &guest in &order {
                send(node, guest, &start);
            }
            // An invitation not yet taken goes: the phone would be shown
            // it when next in touch with this node, which plays the game.
            for peer in unreached {
                if !order.contains(&peer) {
                    node.drop_queued(peer);
                }
            }
            // A guest admitted too late for a seat is told and let go.
            let late: Vec<PeerId> = room
                .guests()
                .iter()
                .copied()
                .filter(|g| !order.contains(g))
                .collect();
            for guest in late {
                turn_away(guest, node, &mut room);
            }
            // Taken by the guests once the game is saved (`delivered`).
            return Ok((signed, peers));
        }
        // Guests gone meanwhile are no longer waited for.
        unoffered.retain(|peer, _| room.guests().contains(peer));
        for peer in unreached.extract_if(.., |&peer| node.unacknowledged(peer) == 0) {
            front.show(Progress::Reached(peer))?;
        }
        let until = signing
            .as_ref()
            .map(|s| s.until)
            .into_iter()
            .chain(unoffered.values().copied())
            .min();
        let event = tokio::select! {
            event = node.next() => event,
            () = organiser.input(), if signing.is_none() => continue,
            // An acknowledgement is no event of the node's: looked at again.
            () = tokio::time::sleep(REACHED_EVERY), if !unreached.is_empty() => continue,
            action = front.input(false) => {
                if action? == Some(Action::LeaveRoom) {
                    let closed = Lobby::Refused {
                        room: room.ticket().room(),
                        why: Refusal::Closed,
                    };
                    farewell(node, room.guests(), closed, false, |_, _| None::<()>).await;
                    return Err(GameError::LeftRoom);
                }
                continue;
            }
            () = sleep_until(until.unwrap_or_else(Instant::now)), if until.is_some() => {
                // Connected, but not offering or not signing: a phone that
                // does not play by the protocol, which must not hold the
                // room.
                let now = Instant::now();
                let silent: Vec<PeerId> = unoffered
                    .extract_if(.., |_, due| *due <= now)
                    .map(|(peer, _)| peer)
                    .collect();
                for peer in silent {
                    warn!(%peer, "an admitted guest did not offer to play; turned away");
                    turn_away(peer, node, &mut room);
                }
                let Some(s) = signing.as_ref().filter(|s| s.until <= now) else {
                    continue;
                };
                let unsigned: Vec<PeerId> = s
                    .order
                    .iter()
                    .copied()
                    .filter(|&p| {
                        taken
                            .offers
                            .get(&p)
                            .and_then(|(key, _)| s.header.seat_of(*key))
                            .is_none_or(|c| !s.signatures.contains_key(&c))
                    })
                    .collect();
                // Each is disconnected, which is how it learns: like a
                // guest whose Wi-Fi dropped, it asks for its seat again
                // (and gets it if the seat is still free) or is refused.
                for peer in unsigned {
                    leave(peer, node, &mut room, &mut taken, &mut signing, organiser);
                    node.disconnect(peer);
                }
                continue;
            }
        };
        let (from, bytes) = match event {
            Event::Discovered(peer) => {
                // An invitation to a phone known only by its peer id
                // waits until mDNS finds where to dial it.
                if node.unacknowledged(peer) > 0 {
                    node.dial(peer);
                }
                front.show(Progress::Nearby { peer, here: true })?;
                if !room.guests().contains(&peer) {
                    ask_who(peer, node, &room, &mut asked);
                }
                continue;
            }
            Event::Expired(peer) => {
                asked.retain(|a| a.peer != peer);
                front.show(Progress::Nearby { peer, here: false })?;
                continue;
            }
            Event::Disconnected(peer) if room.guests().contains(&peer) => {
                leave(peer, node, &mut room, &mut taken, &mut signing, organiser);
                continue;
            }
            Event::Disconnected(peer) => {
                gone(peer, node, &mut room);
                continue;
            }
            Event::Message { from, bytes } => (from, bytes),
            _ => continue,
        };
        if let Ok(Frame::Lobby(lobby)) = Frame::decode(&bytes) {
            if let Lobby::IAm { name } = &lobby {
                if let Some(i) = asked.iter().position(|a| a.peer == from) {
                    asked.remove(i).end(node, &room);
                    let name = nickname(name);
                    front.show(Progress::Named {
                        peer: from,
                        name: &name,
                    })?;
                }
                continue;
            }
            if let Some(answer) = room.answer(from, &lobby) {
                let admitted = matches!(answer, Lobby::Admitted { .. });
                let seated = taken.offers.contains_key(&from);
                // Not told it is in, it is not, so that its offer seats
                // nobody.
                if !answered(node, from, seated) {
                    if admitted {
                        room.leave(from);
                    }
                    continue;
                }
                let _ = node.send(from, Frame::Lobby(answer).encode());
                if admitted {
                    let _ = node.send(from, Frame::Lobby(room.terms()).encode());
                    // Let in by an old secret (a phone that had a seat, or
                    // was invited): the room's new ticket, for its QR code.
                    if let Lobby::Join { secret, .. } = lobby
                        && secret != room.ticket().secret()
                    {
                        let _ = node.send(from, Frame::Lobby(room.open()).encode());
                    }
                    if !seated {
                        unoffered
                            .entry(from)
                            .or_insert_with(|| Instant::now() + OFFER_WAIT);
                    }
                    // Admitted phones take no seat until they offer, so a
                    // device joining under ever new identities would pile
                    // them up here instead: the one waiting longest goes.
                    if let Some(out) = room.crowded_out() {
                        warn!(peer = %out, "too many phones wait to offer to play; turned away");
                        turn_away(out, node, &mut room);
                    }
                }
            } else if matches!(lobby, Lobby::Leave { room: r } if r == room.ticket().room()) {
                leave(from, node, &mut room, &mut taken, &mut signing, organiser);
            } else {
                // A guest no longer ready while the header is signed: the
                // start is off, as the seats will show, and the host
                // starts again once everyone is ready.
                if matches!(lobby, Lobby::Ready { room: r, ready: false } if r == room.ticket().room())
                    && signing.as_ref().is_some_and(|s| s.order.contains(&from))
                {
                    warn!(%from, "a guest is no longer ready; back to the room");
                    signing = None;
                }
                if signing.is_none() {
                    // Newer than anything held of it.
                    held_notes.remove(&from);
                    organiser.message(from, lobby);
                } else if held_while_signing(&lobby, &room, from)
                    && (held_notes.len() < MAX_HELD_NOTES || held_notes.contains_key(&from))
                {
                    held_notes.insert(from, lobby);
                }
            }
            continue;
        }
        if !room.guests().contains(&from) {
            continue;
        }
        match Envelope::unframe(&bytes) {
            Some(Envelope::Setup(Setup::Offer {
                key,
                commitment,
                name,
            })) if key.peer_id().ok() == Some(from)
                && taken
                    .offers
                    .get(&from)
                    .is_none_or(|&(_, c)| c != commitment) =>
            {
                unoffered.remove(&from);
                if taken.offers.contains_key(&from) {
                    // The same phone with another dice chain: it restarted
                    // before this host saw its connection drop, and cannot
                    // sign a start that seats its old chain. It comes in
                    // anew: its old seat goes (a start that seats it is
                    // off), and the organiser seats it again, shows it and
                    // counts it against its changes, as a guest that left
                    // and came back.
                    unseat(from, &mut taken, &mut signing, organiser);
                }
                let offer = Offer {
                    from,
                    key,
                    commitment,
                    name: nickname(&name),
                };
                // Taken once the start being signed is off or made: a
                // guest sends its offer once, as it asks for its seat.
                if signing.is_some() {
                    held.retain(|o| o.from != from);
                    held.push(offer);
                } else {
                    take_offer(offer, node, &mut room, organiser, &mut taken);
                }
            }
            Some(Envelope::Setup(Setup::Signed(signature))) => {
                if let Some(s) = &mut signing
                    && let Some(&(key, _)) = taken.offers.get(&from)
                    && let Some(colour) = s.header.seat_of(key)
                    && !s.signatures.contains_key(&colour)
                    && s.bad.get(&from).is_none_or(|&n| n < MAX_BAD_SIGNATURES)
                {
                    // Checked here: one bad signature in the start would
                    // end the game for every phone.
                    if s.header.signed_by(key, &signature) {
                        s.signatures.insert(colour, signature);
                    } else {
                        warn!(%from, "a signature that does not sign the header");
                        *s.bad.entry(from).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
    }
}

/// A room to join: its ticket or code, and the game the player chose it
/// for where one was shown (the nearby rooms list, an invitation).
#[derive(Clone, Debug)]
pub struct Joining {
    pub link: String,
    pub listing: Option<Listing>,
    /// The seconds the game may wait for a phone that is gone before the
    /// computer plays for it, which this guest signs and no other: the
    /// rules' 45 s ([`DEFAULT_GRACE_SECS`]), unless a test asks for less.
    /// No listing shows it, and a shorter one would let a host choose
    /// between two known dice for the price of a moment's absence
    /// (docs/protocol.md, "What a cheater can and cannot do").
    pub grace_secs: u16,
}

impl Joining {
    /// A room to join by `link` alone (typed, scanned or given): its
    /// host's word on the game is all there is to hold it to.
    pub fn by(link: impl Into<String>) -> Joining {
        Joining {
            link: link.into(),
            listing: None,
            grace_secs: DEFAULT_GRACE_SECS,
        }
    }

    /// A room to join by `link`, chosen where it showed `listing`.
    pub fn listed(link: impl Into<String>, listing: Listing) -> Joining {
        Joining {
            listing: Some(listing),
            ..Joining::by(link)
        }
    }
}

/// Joins the room of `joining` and signs its header, if it starts the
/// game the room offered. The guest says it is ready `ready_after`
/// joining, if given, and whenever the front says so.
pub(super) async fn join(
    node: &mut Node,
    keypair: &Keypair,
    secret: &DiceSecret,
    joining: &Joining,
    name: &str,
    ready_after: Option<Duration>,
    front: &mut dyn Front,
) -> Result<Joined, GameError> {
    let link = joining.link.as_str();
    let mut ticket = match link.parse::<Ticket>() {
        Ok(ticket) => ticket,
        Err(e) if e != TicketError::Scheme => return Err(GameError::DamagedTicket(e)),
        Err(_) => {
            let code: RoomCode = link
                .parse()
                .map_err(|_| GameError::NotATicket(link.to_owned()))?;
            room::find(node, code, &[], FIND_WAIT).await?
        }
    };
    let host = ticket.host();
    let signer = Signer::new(keypair).map_err(PhoneError::from)?;
    let commitment = DiceChain::new(secret, DEFAULT_ROLLS).commitment();
    let offer = Envelope::Setup(Setup::Offer {
        key: signer.public(),
        commitment,
        name: nickname(name),
    });
    // The offer goes right behind the request for a seat, not after the
    // answer: a phone takes a seat only once it offers, and one admitted
    // without offering may be made to wait or make way (`Room`).
    // The answer is read in the loop below, as when the seat is asked for
    // again: the connection may drop before it comes.
    room::ask_for_seat(node, &ticket);
    send(node, host, &offer);
    let room_id = ticket.room();
    let ready_message = |ready| {
        Frame::Lobby(Lobby::Ready {
            room: room_id,
            ready,
        })
        .encode()
    };
    let timer = tokio::time::sleep(ready_after.unwrap_or_default());
    tokio::pin!(timer);
    let mut timed = ready_after.is_some();
    // Whether the player is ready (their last word), and when to say it
    // again if the seats the host last sent show otherwise: the host
    // starts when it shows every guest ready, and this guest signs only
    // when the player is.
    let mut ready = false;
    let mut say_again: Option<Instant> = None;
    // While the seat is asked for (again), when to stop waiting for the
    // host.
    let mut asked_again = Some(Instant::now() + JOIN_WAIT);
    // The game the room starts, as its host said on admitting this guest.
    let mut terms: Option<Listing> = None;
    // A refusal before this guest's admission (or just after its first),
    // and when it stands if no admission comes behind it (`STALE_WAIT`).
    let mut refused: Option<(Instant, LookupError)> = None;
    // When the host first admitted this guest, if it has: the queue of an
    // earlier visit may hold an admission too, with a refusal behind it.
    let mut admitted_at: Option<Instant> = None;
    // Which seat the host said is this guest's, for the seats it sends
    // next.
    let mut mine: Option<usize> = None;
    // Whether this guest has signed a start: the host may start the game
    // as the player leaves, and the start is then waited for.
    let mut signed = false;
    // Whether the connection to the host was lost and not answered since.
    let mut lost = false;
    let mut early = Early::default();
    loop {
        let event = tokio::select! {
            event = node.next() => event,
            () = sleep_until(refused.as_ref().map_or_else(Instant::now, |(at, _)| *at)), if refused.is_some() => {
                if let Some((_, why)) = refused.take() {
                    return Err(why.into());
                }
                continue;
            }
            () = &mut timer, if timed && admitted_at.is_some() => {
                timed = false;
                ready = true;
                let _ = node.send(host, ready_message(ready));
                continue;
            }
            () = sleep_until(say_again.unwrap_or_else(Instant::now)), if say_again.is_some() => {
                say_again = None;
                let _ = node.send(host, ready_message(ready));
                continue;
            }
            action = front.input(false) => {
                match action? {
                    Some(Action::Ready(now)) => {
                        ready = now;
                        let _ = node.send(host, ready_message(ready));
                    }
                    Some(Action::LeaveRoom) => {
                        // The host's start may cross the leave: the game
                        // this player signed then started with them in it,
                        // and is kept (saved, not played) rather than lost.
                        let leave = Lobby::Leave { room: ticket.room() };
                        let start = |from, bytes: &[u8]| match Envelope::unframe(bytes) {
                            Some(Envelope::Setup(Setup::Start { header, peers, names }))
                                if from == host =>
                            {
                                Some((header, players(peers, &names)))
                            }
                            _ => None,
                        };
                        return match farewell(node, &[host], leave, signed, start).await {
                            Some((header, peers)) => Ok(Joined {
                                header,
                                peers,
                                left: true,
                                // Saved, not played.
                                early: Vec::new(),
                            }),
                            None => Err(GameError::LeftRoom),
                        };
                    }
                    _ => {}
                }
                continue;
            }
            () = sleep_until(asked_again.unwrap_or_else(Instant::now)), if asked_again.is_some() => {
                // A refusal heard is the better reason.
                let why = match refused.take() {
                    Some((_, why)) => why,
                    None if admitted_at.is_some() => LookupError::Gone,
                    None => LookupError::NoAnswer,
                };
                return Err(why.into());
            }
        };
        if event == Event::Disconnected(host) {
            // The host gives a seat up with its guest's connection: ask for
            // it again (refused if the room is gone or full by now). The
            // answer is read in this loop, not waited for apart, since a
            // host that started the game meanwhile does not answer: the
            // start it sent comes instead, once the node is connected again.
            warn!("lost the connection to the room before the start; asking for the seat again");
            if !std::mem::replace(&mut lost, true) {
                front.show(Progress::InTouch(false))?;
            }
            room::ask_for_seat(node, &ticket);
            send(node, host, &offer);
            // Signed, this player may be in a game that started without
            // this phone hearing it: the others wait the grace period for
            // it, and so does it, rather than give up a game it would
            // then be recorded as having dropped.
            let wait = if signed {
                Duration::from_secs(joining.grace_secs.into()).max(JOIN_WAIT)
            } else {
                JOIN_WAIT
            };
            asked_again.get_or_insert(Instant::now() + wait);
            // A refusal heard stays: most likely the host refused and went
            // (it closed its room), and this request is not answered.
            continue;
        }
        let Event::Message { from, bytes } = event else {
            continue;
        };
        match room::admission(&ticket, from, &bytes) {
            Some(Err(why)) if admitted_at.is_none_or(|at| at.elapsed() < STALE_WAIT) => {
                refused = Some((Instant::now() + STALE_WAIT, why));
                continue;
            }
            Some(Err(why)) => return Err(why.into()),
            Some(Ok(())) => {
                refused = None;
                if admitted_at.is_none() {
                    admitted_at = Some(Instant::now());
                    front.show(Progress::Joined(&ticket))?;
                }
                if std::mem::take(&mut lost) {
                    front.show(Progress::InTouch(true))?;
                }
                if asked_again.take().is_some() && ready {
                    let _ = node.send(host, ready_message(ready));
                }
                continue;
            }
            None => {}
        }
        if from != host {
            early.keep(from, bytes);
            continue;
        }
        match Frame::decode(&bytes) {
            Ok(Frame::Lobby(Lobby::YourSeat { room, seat })) if room == ticket.room() => {
                mine = Some(usize::from(seat));
                continue;
            }
            Ok(Frame::Lobby(Lobby::Seats { room, seats })) if room == ticket.room() => {
                let seats = as_shown(seats);
                // Told before each: seats without it mark none. The host
                // shows this guest ready or not, as it will start.
                let shown = mine.take().and_then(|seat| match seats.get(seat) {
                    Some(&SeatView::Guest { ready, .. }) => Some((seat, ready)),
                    _ => None,
                });
                say_again = match shown {
                    Some((_, shown)) if shown != ready => {
                        say_again.or(Some(Instant::now() + READY_AGAIN))
                    }
                    _ => None,
                };
                front.show(Progress::Seats {
                    mine: shown.map(|(seat, _)| seat),
                    seats: &seats,
                    startable: None,
                    guests: &[],
                })?;
                continue;
            }
            Ok(Frame::Lobby(Lobby::Terms { room, listing })) if room == ticket.room() => {
                if agreed(listing, &mut terms, joining.listing)? {
                    front.show(Progress::Terms(&listing))?;
                }
                continue;
            }
            // The private room took a new secret: this guest asks again
            // and shows its QR code with it.
            Ok(Frame::Lobby(Lobby::Open { ticket: link })) => {
                if let Ok(new) = link.parse::<Ticket>()
                    && (new.room(), new.host()) == (ticket.room(), host)
                {
                    ticket = new;
                    front.show(Progress::Joined(&ticket))?;
                }
                continue;
            }
            _ => {}
        }
        match Envelope::unframe(&bytes) {
            // Signed only while ready: the host starts once its guests are
            // ready, and calls the start off when one takes it back, so a
            // request heard while not ready is one the host will drop, or
            // a host starting a game its guest did not agree to.
            Some(Envelope::Setup(Setup::Sign(_))) if !ready => {
                // Said again rather than left unanswered: a host that
                // missed it would give this guest up at its deadline.
                warn!("asked to sign the start while not ready; not signing");
                let _ = node.send(host, ready_message(false));
            }
            Some(Envelope::Setup(Setup::Sign(header)))
                if seats_another_chain(&header, signer.public(), commitment) =>
            {
                // Built on the offer this phone made before it restarted
                // (the host had not seen it go); the host calls it off
                // once it has this offer.
                warn!("asked to sign a start with this player's earlier dice; not signing");
            }
            Some(Envelope::Setup(Setup::Sign(header))) => {
                let offered = (signer.public(), commitment);
                signable(&header, offered, terms.as_ref(), joining.grace_secs)?;
                send(
                    node,
                    host,
                    &Envelope::Setup(Setup::Signed(header.sign(&signer))),
                );
                signed = true;
                early.seated(&header);
            }
            Some(Envelope::Setup(Setup::Start {
                header,
                peers,
                names,
            })) => {
                return Ok(Joined {
                    header,
                    peers: players(peers, &names),
                    left: false,
                    early: early.kept,
                });
            }
            _ => {}
        }
    }
}

/// The players a start names (`peers`, `names`): their peer ids,
/// addresses and nicknames, as many as a game has and as many addresses
/// each as a phone is dialled at, however many the host sent (they go
/// into the game's book).
fn players(
    peers: Vec<(ByteBuf, Vec<ByteBuf>)>,
    names: &[String],
) -> Vec<(PeerId, Vec<Multiaddr>, String)> {
    let names = names
        .iter()
        .map(|n| nickname(n))
        .chain(std::iter::repeat(String::new()));
    peers
        .into_iter()
        .zip(names)
        .filter_map(|((id, addrs), name)| {
            let id = PeerId::from_bytes(&id).ok()?;
            let addrs = addrs
                .into_iter()
                .filter_map(|a| Multiaddr::try_from(a.into_vec()).ok())
                .take(seen::MAX_ADDRS)
                .collect();
            Some((id, addrs, name))
        })
        .take(Colour::ALL.len())
        .collect()
}

/// The start of the game `signed`, its players `peers` (host first).
fn start(signed: &SignedHeader, peers: &Peers) -> Envelope {
    Envelope::Setup(Setup::Start {
        header: signed.clone(),
        peers: peers
            .iter()
            .map(|(id, addrs, _)| {
                (
                    ByteBuf::from(id.to_bytes()),
                    addrs.iter().map(|a| ByteBuf::from(a.to_vec())).collect(),
                )
            })
            .collect(),
        names: peers.iter().map(|(_, _, name)| name.clone()).collect(),
    })
}

/// Sends the start of the game `signed` again to its players `peers`
/// (host first: this phone) as a host whose game resumes. The first may
/// have died with the process that sent it, queued for a guest whose
/// link was down as the game started: that guest still waits for it
/// ([`join`]), and would give up a game it is in. A guest playing
/// passes it by.
pub(super) fn start_again(node: &mut Node, signed: &SignedHeader, peers: &Peers) {
    let start = start(signed, peers);
    for (guest, ..) in peers.iter().skip(1) {
        send(node, *guest, &start);
    }
}

/// Takes in the terms a host said on admitting this guest (`said`): the
/// first, if they name a game and the one the player chose the room for
/// (`chosen`), and the same again on every admission after. Whether they
/// are the first.
fn agreed(
    said: Listing,
    terms: &mut Option<Listing>,
    chosen: Option<Listing>,
) -> Result<bool, GameError> {
    let offered = terms.or(chosen).unwrap_or(said);
    if said != offered || !said.could_start() {
        return Err(GameError::NotAsOffered);
    }
    Ok(terms.replace(said).is_none())
}

/// The host's seats as its guest shows them: four at most, and the names
/// cut as the host cuts its guests' ([`nickname`]), since a hostile host
/// could send names of kilobytes.
fn as_shown(seats: Vec<SeatView>) -> Vec<SeatView> {
    seats
        .into_iter()
        .take(4)
        .map(|seat| match seat {
            SeatView::Host { name } => SeatView::Host {
                name: nickname(&name),
            },
            SeatView::Guest { name, ready } => SeatView::Guest {
                name: nickname(&name),
                ready,
            },
            other => other,
        })
        .collect()
}

/// Whether a guest whose offer was `key` and `commitment`, in a room whose
/// host said it starts `terms`, signs `header`: it must be of this app's
/// version, start that game (the players, rules, timer, board and who
/// begins the guest was shown), seat the guest as offered, with the standard dice,
/// and be fair to every player. Every room has a turn timer and waits
/// `grace_secs` (the rules' 45 s, [`Joining::grace_secs`]) for a phone
/// that is gone: without a timer or with a longer wait, a host could hold
/// the others for hours in a game it stopped playing; with a shorter one,
/// it could choose between two known dice at every roll not its own.
fn signable(
    header: &Header,
    (key, commitment): (PublicKey, Digest),
    terms: Option<&Listing>,
    grace_secs: u16,
) -> Result<(), GameError> {
    header.same_version()?;
    let seat = header.seat_of(key).ok_or(GameError::BadSeat)?;
    let agreed = matches!(
        header.seats[seat.index()],
        Some(Seat::Player { commitment: c, .. }) if c == commitment
    ) && header.rolls == DEFAULT_ROLLS;
    if !agreed {
        return Err(GameError::BadSeat);
    }
    // Nor may the host choose the computer that plays for a guest gone,
    // which no listing shows.
    if terms != Some(&Listing::of(header)) || header.stand_in != STAND_IN {
        return Err(GameError::NotAsOffered);
    }
    if header.timer == TurnTimer::None || header.grace_secs != grace_secs {
        return Err(GameError::Unfair {
            timer: header.timer.seconds(),
            grace: header.grace_secs,
            agreed: grace_secs,
        });
    }
    Ok(())
}

/// Whether `header` seats `key` with another dice chain than
/// `commitment`'s.
fn seats_another_chain(header: &Header, key: PublicKey, commitment: Digest) -> bool {
    header.seat_of(key).is_some_and(|seat| {
        matches!(
            header.seats[seat.index()],
            Some(Seat::Player { commitment: c, .. }) if c != commitment
        )
    })
}

pub(super) fn send(node: &mut Node, to: PeerId, envelope: &Envelope) {
    if let Err(e) = node.send(to, envelope.frame()) {
        warn!(%to, "cannot send: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::node::{Config, MAX_UNTAKEN_ANSWERS, QUIET_LIMIT};
    use crate::net::wire::MAX_MESSAGE as MAX_CHANNEL;
    use crate::protocol::wire::MAX_MESSAGE as MAX_LOG;
    use tokio::sync::mpsc::UnboundedReceiver;
    use tokio::task::JoinHandle;

    /// The signer of the key of `seed`.
    fn signer_of(seed: u8) -> Signer {
        Signer::new(&Keypair::ed25519_from_bytes([seed; 32]).unwrap()).unwrap()
    }

    /// The commitment to the dice of the secret of `seed`.
    fn committed(seed: u8) -> Digest {
        DiceChain::new(&DiceSecret::from_bytes([seed; 32]), DEFAULT_ROLLS).commitment()
    }

    /// A player's seat.
    fn seat(signer: &Signer, commitment: Digest) -> Seat {
        Seat::Player {
            key: signer.public(),
            commitment,
        }
    }

    /// The header of a classic game of two (`host` red, `guest` green)
    /// with a turn timer of 30 s.
    fn two_player(host: Seat, guest: Seat) -> Header {
        let rules = RuleSet::Classic(Default::default());
        let mut header = Header::new([1; 32], rules, [Some(host), None, Some(guest), None]);
        header.timer = TurnTimer::Seconds30;
        header
    }

    #[test]
    fn a_guest_shows_four_seats_at_most_with_the_names_cut() {
        let long = "Ivo\n".repeat(1000);
        let seats = vec![
            SeatView::Host { name: long.clone() },
            SeatView::Guest {
                name: long,
                ready: true,
            },
            SeatView::Computer { level: Level::Hard },
            SeatView::Empty,
            SeatView::Empty,
        ];
        let cut = "Ivo".repeat(11)[..MAX_NAME].to_owned();
        assert_eq!(
            as_shown(seats),
            [
                SeatView::Host { name: cut.clone() },
                SeatView::Guest {
                    name: cut,
                    ready: true
                },
                SeatView::Computer { level: Level::Hard },
                SeatView::Empty,
            ]
        );
    }

    #[test]
    fn a_guest_signs_only_its_own_seat_with_a_timer_and_the_rules_grace() {
        let (host, guest, commitment) = (signer_of(1), signer_of(2), committed(9));
        let fair = two_player(seat(&host, commitment), seat(&guest, commitment));
        let terms = Listing::of(&fair);
        let offered = (guest.public(), commitment);
        let check = |header: &Header| signable(header, offered, Some(&terms), DEFAULT_GRACE_SECS);
        assert!(check(&fair).is_ok());
        // A shorter wait would let the host choose between two dice for a
        // moment's absence: signed only by a guest that agreed to it (the
        // tests of drops).
        let mut shorter = fair.clone();
        shorter.grace_secs = 2;
        let refused = check(&shorter).unwrap_err();
        assert!(matches!(refused, GameError::Unfair { .. }), "{refused}");
        assert!(signable(&shorter, offered, Some(&terms), 2).is_ok());

        let mut unseated = fair.clone();
        unseated.seats[2] = None;
        assert!(matches!(check(&unseated), Err(GameError::BadSeat)));
        // A start seating this player's earlier chain is passed by, not
        // refused (it restarted before the host saw it go).
        assert!(seats_another_chain(&fair, guest.public(), committed(8)));
        assert!(!seats_another_chain(&fair, guest.public(), commitment));
        assert!(!seats_another_chain(
            &unseated,
            guest.public(),
            committed(8)
        ));
        assert!(matches!(
            signable(
                &fair,
                (guest.public(), committed(8)),
                Some(&terms),
                DEFAULT_GRACE_SECS
            ),
            Err(GameError::BadSeat)
        ));
        let mut no_timer = fair.clone();
        no_timer.timer = TurnTimer::None;
        let mut long_grace = fair.clone();
        long_grace.grace_secs = u16::MAX;
        let untimed = Listing::of(&no_timer);
        let refused = signable(&no_timer, offered, Some(&untimed), DEFAULT_GRACE_SECS);
        assert!(
            matches!(refused, Err(GameError::Unfair { .. })),
            "{refused:?}"
        );
        let refused = check(&long_grace).unwrap_err();
        assert!(matches!(refused, GameError::Unfair { .. }), "{refused}");
        // Another app's game is refused before it is signed, not once it
        // has started.
        let mut newer = fair.clone();
        newer.protocol += 1;
        let mut other_engine = fair;
        other_engine.engine = "clovece 0.0.1".to_owned();
        for other in [newer, other_engine] {
            let refused = check(&other).unwrap_err();
            assert!(matches!(refused, GameError::Header(_)), "{refused}");
        }
    }

    #[test]
    fn a_guest_takes_the_terms_of_its_choice_once_and_the_same_again() {
        let four = Listing {
            players: 4,
            rules: RuleSet::Classic(Default::default()),
            timer: TurnTimer::Seconds30,
            theme: Theme::Classic,
            first: FirstPlayer::Random,
        };
        let two = Listing { players: 2, ..four };
        let none = Listing { players: 0, ..four };
        let take = |said, terms: &mut Option<Listing>, chosen| agreed(said, terms, chosen).ok();
        let mut terms = None;
        assert_eq!(take(four, &mut terms, None), Some(true), "by code");
        assert_eq!(take(four, &mut terms, None), Some(false), "admitted again");
        assert_eq!(take(two, &mut terms, None), None, "changed meanwhile");
        assert_eq!(take(four, &mut None, Some(four)), Some(true), "as chosen");
        assert_eq!(take(two, &mut None, Some(four)), None, "not as chosen");
        assert_eq!(take(none, &mut None, None), None, "no game");
    }

    #[test]
    fn a_guest_signs_only_the_game_its_host_said_the_room_starts() {
        let (host, guest, commitment) = (signer_of(1), signer_of(2), committed(9));
        let offered = two_player(seat(&host, commitment), seat(&guest, commitment));
        let terms = Listing::of(&offered);
        assert_eq!(
            terms,
            Listing {
                players: 2,
                rules: RuleSet::Classic(Default::default()),
                timer: TurnTimer::Seconds30,
                theme: Theme::Classic,
                first: FirstPlayer::Random,
            }
        );
        let check = |header: &Header, terms| {
            signable(
                header,
                (guest.public(), commitment),
                terms,
                DEFAULT_GRACE_SECS,
            )
        };
        assert!(check(&offered, Some(&terms)).is_ok());
        assert!(
            matches!(check(&offered, None), Err(GameError::NotAsOffered)),
            "a host that never said its terms"
        );

        let mut more_players = offered.clone();
        more_players.seats[1] = Some(seat(&signer_of(3), commitment));
        let mut other_rules = offered.clone();
        other_rules.rules = RuleSet::Classic(crate::rules::HouseRules::CROATIAN);
        let mut other_timer = offered.clone();
        other_timer.timer = TurnTimer::Seconds10;
        let mut other_board = offered.clone();
        other_board.theme = Theme::Sea;
        let mut weaker_stand_in = offered.clone();
        weaker_stand_in.stand_in = Level::Easy;
        // The host is red: red beginning every game unseen is no game a
        // guest agreed to.
        let host_begins = Header {
            first: FirstPlayer::Red,
            ..offered.clone()
        };
        let others = [
            more_players,
            other_rules,
            other_timer,
            other_board,
            weaker_stand_in,
            host_begins,
        ];
        for other in others {
            let refused = check(&other, Some(&terms));
            assert!(matches!(refused, Err(GameError::NotAsOffered)), "{other:?}");
        }
    }

    /// A room of `seats` whose organiser starts as soon as one guest has
    /// offered to play, computers in the other guests' seats, telling the
    /// test the ticket and who left.
    struct Starter {
        seats: u8,
        ticket: Option<tokio::sync::oneshot::Sender<Ticket>>,
        guest: Option<PeerId>,
        start: bool,
        left: tokio::sync::mpsc::UnboundedSender<PeerId>,
        /// Told each message the room gives the organiser, if set.
        heard: Option<tokio::sync::mpsc::UnboundedSender<(PeerId, Lobby)>>,
        /// Phones it invites as the room opens.
        invites: Vec<PeerId>,
    }

    impl Starter {
        fn new(
            seats: u8,
            ticket: tokio::sync::oneshot::Sender<Ticket>,
            left: tokio::sync::mpsc::UnboundedSender<PeerId>,
        ) -> Starter {
            Starter {
                seats,
                ticket: Some(ticket),
                guest: None,
                start: false,
                left,
                heard: None,
                invites: Vec::new(),
            }
        }
    }

    #[async_trait::async_trait]
    impl Organiser for Starter {
        fn opened(&mut self, ticket: &Ticket, _: Listing) {
            if let Some(tx) = self.ticket.take() {
                let _ = tx.send(ticket.clone());
            }
        }
        fn places(&self) -> usize {
            usize::from(self.seats) - 1 - usize::from(self.guest.is_some())
        }
        fn arrived(&mut self, peer: PeerId, _: &str) -> bool {
            let seated = self.guest.is_none();
            if seated {
                self.guest = Some(peer);
                self.start = true;
            }
            seated
        }
        fn left(&mut self, peer: PeerId) {
            if self.guest == Some(peer) {
                self.guest = None;
            }
            let _ = self.left.send(peer);
        }
        /// Starts again when its guest says it is ready.
        fn message(&mut self, from: PeerId, message: Lobby) {
            if matches!(message, Lobby::Ready { ready: true, .. }) && self.guest == Some(from) {
                self.start = true;
            }
            if let Some(heard) = &self.heard {
                let _ = heard.send((from, message));
            }
        }
        async fn input(&mut self) {
            std::future::pending().await
        }
        fn notes(&mut self) -> Vec<Note> {
            let invitation = |to| {
                let invite = Lobby::Invite {
                    ticket: String::new(),
                    listing: a_listing(),
                    from: "Hana".into(),
                };
                Note::Send(to, invite)
            };
            self.invites.drain(..).map(invitation).collect()
        }
        fn started(&mut self) -> Option<Vec<Sitter>> {
            let guest = self.guest.filter(|_| std::mem::take(&mut self.start))?;
            let mut lineup = vec![Sitter::Host, Sitter::Guest(guest)];
            lineup.resize(usize::from(self.seats), Sitter::Computer(Level::Easy));
            Some(lineup)
        }
    }

    /// A node on loopback with the key of `seed`, and that key.
    async fn node(seed: u8) -> (Node, Keypair) {
        let keypair = Keypair::ed25519_from_bytes([seed; 32]).unwrap();
        let node = Node::start(keypair.clone(), Config::loopback());
        (node.await.unwrap(), keypair)
    }

    /// A guest in `ticket`'s room that has offered to play: its node, its
    /// signer and the header the host asks it to sign.
    async fn offered(ticket: &Ticket, seed: u8) -> (Node, Signer, Header) {
        let (mut node, keypair) = node(seed).await;
        let signer = Signer::new(&keypair).unwrap();
        let secret = DiceSecret::from_bytes([seed; 32]);
        let offer = Setup::Offer {
            key: signer.public(),
            commitment: DiceChain::new(&secret, DEFAULT_ROLLS).commitment(),
            name: format!("guest {seed}"),
        };
        // As a guest does: the offer right behind the request for a seat.
        room::ask_for_seat(&mut node, ticket);
        send(&mut node, ticket.host(), &Envelope::Setup(offer));
        loop {
            if let Event::Message { bytes, .. } = node.next().await
                && let Some(Envelope::Setup(Setup::Sign(header))) = Envelope::unframe(&bytes)
            {
                return (node, signer, header);
            }
        }
    }

    /// A phone admitted to `ticket`'s room before another guest's offer
    /// starts the game, whose own offer comes while that start is signed:
    /// its node, its signer, and the other guest's node.
    async fn offered_while_signing(ticket: &Ticket) -> (Node, Signer, Node) {
        let (mut late, keypair) = node(3).await;
        room::join(&mut late, ticket, JOIN_WAIT).await.unwrap();
        let (first, _, _) = offered(ticket, 2).await;
        let signer = Signer::new(&keypair).unwrap();
        let offer = Setup::Offer {
            key: signer.public(),
            commitment: committed(3),
            name: "late".into(),
        };
        send(&mut late, ticket.host(), &Envelope::Setup(offer));
        (late, signer, first)
    }

    /// The room's word on `node`'s request for a seat in `ticket`'s room:
    /// admitted, or why not. Waited for longer than any wait of the host's
    /// (a phone not offering is turned away after `OFFER_WAIT`).
    async fn room_answer(node: &mut Node, ticket: &Ticket) -> Result<(), LookupError> {
        room::wait_for_admission(node, ticket, Duration::from_secs(60)).await
    }

    /// A phone that offers to play in `ticket`'s room and signs the start
    /// it is asked to: what `hosting` ends with, once it has started.
    async fn takes_the_seat<T>(ticket: &Ticket, hosting: JoinHandle<T>) -> T {
        let (mut guest, signer, header) = offered(ticket, 4).await;
        let signed = Envelope::Setup(Setup::Signed(header.sign(&signer)));
        send(&mut guest, ticket.host(), &signed);
        tokio::select! {
            hosted = hosting => hosted.unwrap(),
            () = polled(&mut guest) => unreachable!(),
        }
    }

    /// A room of `players` seats hosted on a loopback node under
    /// `organiser`: the node and how its setup ended.
    async fn hosted(
        players: u8,
        organiser: &mut dyn Organiser,
    ) -> (Node, Result<SignedHeader, GameError>) {
        let mut front = crate::net::lines::Lines::new(std::io::sink(), None, false);
        hosted_with(players, organiser, &mut front).await
    }

    /// The same, with `front` at the host's phone.
    async fn hosted_with(
        players: u8,
        organiser: &mut dyn Organiser,
        front: &mut dyn Front,
    ) -> (Node, Result<SignedHeader, GameError>) {
        let (node, keypair) = node(1).await;
        hosted_on(node, &keypair, players, organiser, front).await
    }

    /// The same, on `node` with `keypair`.
    async fn hosted_on(
        mut node: Node,
        keypair: &Keypair,
        players: u8,
        organiser: &mut dyn Organiser,
        front: &mut dyn Front,
    ) -> (Node, Result<SignedHeader, GameError>) {
        let table = Table {
            players,
            rules: RuleSet::Classic(Default::default()),
            private: false,
            first: FirstPlayer::Random,
            timer: TurnTimer::Seconds30,
            theme: Theme::Classic,
            grace_secs: DEFAULT_GRACE_SECS,
        };
        let secret = DiceSecret::from_bytes([1; 32]);
        let result = host(&mut node, keypair, &secret, table, organiser, "Hana", front).await;
        (node, result.map(|(signed, _)| signed))
    }

    /// Hosts the room of `organiser`'s seats: how its setup ended.
    async fn hosting(mut organiser: Starter) -> Result<SignedHeader, GameError> {
        hosted(organiser.seats, &mut organiser).await.1
    }

    /// Runs `test` beside a room of `players` seats that a [`Starter`]
    /// organises and `host` hosts, within a minute, telling it the room's
    /// ticket, the task hosting it and who left it. Both run on this
    /// thread: the host's loop is not Send (its front and organiser need
    /// not be).
    async fn beside_a_room<R, H, T, F>(
        players: u8,
        host: impl FnOnce(Starter) -> H,
        test: impl FnOnce(Ticket, JoinHandle<R>, UnboundedReceiver<PeerId>) -> F,
    ) -> T
    where
        R: 'static,
        H: Future<Output = R> + 'static,
        F: Future<Output = T>,
    {
        let (ticket_tx, ticket) = tokio::sync::oneshot::channel();
        let (left_tx, left) = tokio::sync::mpsc::unbounded_channel();
        let local = tokio::task::LocalSet::new();
        let hosting = local.spawn_local(host(Starter::new(players, ticket_tx, left_tx)));
        let ran = local.run_until(async move {
            let ticket = ticket.await.unwrap();
            test(ticket, hosting, left).await
        });
        tokio::time::timeout(Duration::from_secs(60), ran)
            .await
            .expect("the room neither hangs nor ends")
    }

    /// Hosts the room of `organiser`'s seats, and once its setup ends
    /// has the start taken (`delivered`, as the game does once it is
    /// saved); then its node goes, as a host's stopped just then does
    /// (its player left the room as the game started, the app closed).
    async fn hosting_and_stopping(mut organiser: Starter) -> Result<SignedHeader, GameError> {
        let (mut node, hosted) = hosted(organiser.seats, &mut organiser).await;
        if let Ok(signed) = &hosted {
            delivered(&mut node, &signed.header).await;
        }
        hosted
    }

    /// A host whose node goes just after its game is saved has its guest
    /// started: the start is taken first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_that_stops_as_its_start_is_made_has_its_guest_started() {
        let joined = beside_a_room(2, hosting_and_stopping, |ticket, hosting, _| async move {
            let (mut node, keys) = node(2).await;
            let secret = DiceSecret::from_bytes([2; 32]);
            let mut front = crate::net::lines::Lines::new(std::io::sink(), None, false);
            let link = Joining::by(ticket.to_string());
            let guest = join(
                &mut node,
                &keys,
                &secret,
                &link,
                "Jana",
                Some(Duration::ZERO),
                &mut front,
            );
            let (joined, hosted) = tokio::join!(guest, hosting);
            assert!(hosted.unwrap().is_ok());
            joined
        })
        .await;
        assert!(joined.is_ok(), "{joined:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_gone_or_silent_while_signing_gives_its_seat_to_the_next() {
        beside_a_room(2, hosting, guests).await;
    }

    async fn guests(
        ticket: Ticket,
        hosting: JoinHandle<Result<SignedHeader, GameError>>,
        mut left: UnboundedReceiver<PeerId>,
    ) {
        // Asked to sign, the first guest's phone goes: its seat is free at
        // once, not after the wait for signatures.
        let (gone, _, _) = offered(&ticket, 2).await;
        let asked = Instant::now();
        let gone_id = gone.peer_id();
        drop(gone);
        assert_eq!(left.recv().await, Some(gone_id));
        assert!(asked.elapsed() < SIGN_WAIT, "{:?}", asked.elapsed());

        // The next stays connected (its node answers pings) but never
        // signs: given up on after the wait, and disconnected at once,
        // which is how it learns it (not a wait for the node to let a
        // quiet stranger go).
        let (mut silent, _, _) = offered(&ticket, 3).await;
        let silent_id = silent.peer_id();
        let asked = Instant::now();
        let host = ticket.host();
        let told = tokio::task::spawn_local(async move {
            while silent.next().await != Event::Disconnected(host) {}
        });
        assert_eq!(left.recv().await, Some(silent_id));
        assert!(asked.elapsed() >= SIGN_WAIT - Duration::from_secs(1));
        told.await
            .expect("the host disconnects the guest it gave up on");
        assert!(asked.elapsed() < QUIET_LIMIT, "{:?}", asked.elapsed());

        // The third sends a signature of something else first, which the
        // host does not take, then signs: the game starts with it.
        let (mut third, signer, header) = offered(&ticket, 4).await;
        let mut other = header.clone();
        other.nonce = [0; 32];
        for signature in [other.sign(&signer), header.sign(&signer)] {
            send(
                &mut third,
                ticket.host(),
                &Envelope::Setup(Setup::Signed(signature)),
            );
        }
        // The guest's node sends only while it is polled.
        let signed = tokio::select! {
            hosted = hosting => hosted.unwrap().unwrap(),
            () = polled(&mut third) => unreachable!(),
        };
        assert_eq!(signed.header, header);
        assert!(signed.verify().is_ok(), "every signature checks");
    }

    /// A guest's phone that restarted while the host still had its old
    /// connection offers again, with a new dice chain: it leaves and comes
    /// in anew, as the organiser is told (which shows it and counts it
    /// against the guest's changes), the start being signed, which seats
    /// the old chain, is off, and the next seats the new one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_back_with_new_dice_before_the_host_saw_it_go_is_seated_with_them() {
        beside_a_room(2, hosting, |ticket, _, mut left| async move {
            let (mut before, signer, first) = offered(&ticket, 2).await;
            assert!(seats_another_chain(&first, signer.public(), committed(7)));
            let _before = tokio::task::spawn_local(async move { polled(&mut before).await });
            let (mut after, _) = node(2).await;
            room::join(&mut after, &ticket, JOIN_WAIT).await.unwrap();
            let offer = Setup::Offer {
                key: signer.public(),
                commitment: committed(7),
                name: "guest 2".into(),
            };
            send(&mut after, ticket.host(), &Envelope::Setup(offer));
            heard(&mut after, ticket.host(), |bytes| {
                match Envelope::unframe(bytes) {
                    Some(Envelope::Setup(Setup::Sign(header)))
                        if !seats_another_chain(&header, signer.public(), committed(7)) =>
                    {
                        Some(())
                    }
                    _ => None,
                }
            })
            .await;
            // The organiser heard it leave before it came in anew.
            let id = signer.public().peer_id().unwrap();
            assert_eq!(left.try_recv(), Ok(id));
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_past_its_bad_signatures_is_checked_no_more_and_given_up() {
        let signed = beside_a_room(2, hosting, |ticket, hosting, mut left| async move {
            // As many bad signatures as are checked, then the good one:
            // not checked, so the guest is given up on at the deadline.
            let (mut spent, _) = signs_after(&ticket, MAX_BAD_SIGNATURES, 2).await;
            let asked = Instant::now();
            let spent_id = spent.peer_id();
            let _polled = tokio::task::spawn_local(async move { polled(&mut spent).await });
            assert_eq!(left.recv().await, Some(spent_id));
            assert!(asked.elapsed() >= SIGN_WAIT - Duration::from_secs(1));
            // One fewer, and the good one starts the game.
            let (mut guest, header) = signs_after(&ticket, MAX_BAD_SIGNATURES - 1, 3).await;
            let signed = tokio::select! {
                hosted = hosting => hosted.unwrap().unwrap(),
                () = polled(&mut guest) => unreachable!(),
            };
            assert_eq!(signed.header, header);
            signed
        })
        .await;
        assert!(signed.verify().is_ok(), "every signature checks");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_decline_heard_while_a_start_is_signed_reaches_the_organiser_when_it_is_off() {
        let (heard_tx, mut heard) = tokio::sync::mpsc::unbounded_channel();
        let (invited_node, invited_key) = node(3).await;
        let invited_id = invited_key.public().to_peer_id();
        let host = move |mut organiser: Starter| {
            organiser.heard = Some(heard_tx);
            organiser.invites.push(invited_id);
            hosting(organiser)
        };
        beside_a_room(2, host, |ticket, hosting, _| async move {
            // The guest is asked to sign; meanwhile a phone the host
            // invited declines, and the host has taken its word...
            let (mut guest, _, _) = offered(&ticket, 2).await;
            let mut invited = invited_node;
            // As an invitation's decline goes (app::invite).
            invited.add_addrs(ticket.host(), ticket.dial_addrs());
            invited.keep(ticket.host());
            let declined = Lobby::Declined {
                room: ticket.room(),
            };
            invited
                .send(ticket.host(), Frame::Lobby(declined.clone()).encode())
                .unwrap();
            // (Its node takes the acknowledgement without an event.)
            while invited.unacknowledged(ticket.host()) > 0 {
                let _ = tokio::time::timeout(Duration::from_millis(10), invited.next()).await;
            }
            // ...before the guest takes its readiness back, which calls
            // the start off: the decline was held, not lost.
            let not_ready = Frame::Lobby(Lobby::Ready {
                room: ticket.room(),
                ready: false,
            });
            guest.send(ticket.host(), not_ready.encode()).unwrap();
            let _polled = tokio::task::spawn_local(async move { polled(&mut guest).await });
            let _invited = tokio::task::spawn_local(async move { polled(&mut invited).await });
            loop {
                match heard.recv().await {
                    Some((from, message)) if from == invited_id => {
                        assert_eq!(message, declined);
                        break;
                    }
                    Some(_) => {}
                    None => panic!("the room ended without telling the decline"),
                }
            }
            hosting.abort();
        })
        .await;
    }

    /// A guest of `ticket`'s room (`seed`) that answers the start it is
    /// asked to sign with `bad` signatures of another header, then with
    /// the good one: the guest and that start.
    async fn signs_after(ticket: &Ticket, bad: u8, seed: u8) -> (Node, Header) {
        let (mut guest, signer, header) = offered(ticket, seed).await;
        let mut other = header.clone();
        other.nonce = [0; 32];
        let signatures = std::iter::repeat_n(other.sign(&signer), bad.into());
        for signature in signatures.chain([header.sign(&signer)]) {
            send(
                &mut guest,
                ticket.host(),
                &Envelope::Setup(Setup::Signed(signature)),
            );
        }
        (guest, header)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_admitted_but_not_seated_is_told_the_room_is_full_at_the_start() {
        let host = |mut organiser| async move {
            let (mut host_node, started) = hosted(3, &mut organiser).await;
            started.expect("the game starts");
            // The host's node goes on, as in a game.
            polled(&mut host_node).await
        };
        let answer = beside_a_room(3, host, |ticket, hosting, _| async move {
            let (mut late, _) = node(5).await;
            room::join(&mut late, &ticket, JOIN_WAIT).await.unwrap();
            let (mut first, signer, header) = offered(&ticket, 6).await;
            let signed = Envelope::Setup(Setup::Signed(header.sign(&signer)));
            send(&mut first, ticket.host(), &signed);
            let _polled = tokio::task::spawn_local(async move { polled(&mut first).await });
            let answer = room_answer(&mut late, &ticket).await;
            hosting.abort();
            answer
        })
        .await;
        assert!(
            matches!(answer, Err(LookupError::Refused(Refusal::Full))),
            "{answer:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_admitted_guest_that_never_offers_to_play_holds_no_seat_and_is_turned_away() {
        let signed = beside_a_room(2, hosting, |ticket, hosting, _| async move {
            // Admitted to the room of one guest seat, it stays
            // connected but never offers to play...
            let (mut silent, _) = node(2).await;
            room::join(&mut silent, &ticket, JOIN_WAIT).await.unwrap();
            let admitted = Instant::now();
            // ...and keeps no one else out.
            let (mut other, _) = node(3).await;
            let joined = room::join(&mut other, &ticket, JOIN_WAIT).await;
            assert!(joined.is_ok(), "{joined:?}");
            let told = room_answer(&mut silent, &ticket).await;
            assert!(
                matches!(told, Err(LookupError::Refused(Refusal::Full))),
                "{told:?}"
            );
            assert!(admitted.elapsed() >= OFFER_WAIT - Duration::from_secs(1));
            // The next phone takes the seat and plays.
            let _polled = tokio::task::spawn_local(async move { polled(&mut silent).await });
            takes_the_seat(&ticket, hosting).await.unwrap()
        })
        .await;
        assert!(signed.verify().is_ok());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn phones_piling_up_without_offering_make_way_and_keep_no_one_out() {
        let signed = beside_a_room(2, hosting, |ticket, hosting, _| async move {
            // One more than may wait, each admitted, none offering.
            let mut silent = Vec::new();
            let first_admitted = Instant::now();
            for seed in 0..=MAX_WAITING as u8 {
                let (mut phone, _) = node(100 + seed).await;
                room::join(&mut phone, &ticket, JOIN_WAIT).await.unwrap();
                silent.push(phone);
            }
            // The first made way at once, not after its 10 s.
            let told = room_answer(&mut silent[0], &ticket).await;
            assert!(
                matches!(told, Err(LookupError::Refused(Refusal::Full))),
                "{told:?}"
            );
            assert!(first_admitted.elapsed() < OFFER_WAIT);
            // The room's one guest seat is still free: a phone that
            // offers takes it and plays.
            let _polled = tokio::task::spawn_local(async move {
                loop {
                    for phone in &mut silent {
                        let _ = tokio::time::timeout(Duration::from_millis(10), phone.next()).await;
                    }
                }
            });
            takes_the_seat(&ticket, hosting).await.unwrap()
        })
        .await;
        assert!(signed.verify().is_ok());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_offer_that_comes_while_the_start_is_signed_is_taken_once_it_is_off() {
        // Three seats, one for a guest of the organiser's (the first to
        // offer), the other for the computer.
        let (told, after) = beside_a_room(3, hosting, |ticket, _, _| async move {
            // Its offer comes while another's start is signed, and then
            // the start is called off.
            let (mut late, _, mut first) = offered_while_signing(&ticket).await;
            let offered_at = Instant::now();
            // Taken in by the host's node before the start is off.
            while late.unacknowledged(ticket.host()) > 0 {
                let _ = tokio::time::timeout(Duration::from_millis(20), late.next()).await;
            }
            let room = ticket.room();
            let not_ready = Frame::Lobby(Lobby::Ready { room, ready: false });
            first.send(ticket.host(), not_ready.encode()).unwrap();
            let _polled = tokio::task::spawn_local(async move { polled(&mut first).await });
            // Taken then: the organiser has no seat for it, so it is
            // told at once, not after its wait for an offer ran out.
            let told = room_answer(&mut late, &ticket).await;
            (told, offered_at.elapsed())
        })
        .await;
        assert!(
            matches!(told, Err(LookupError::Refused(Refusal::Full))),
            "{told:?}"
        );
        assert!(after < OFFER_WAIT / 2, "told after {after:?}");
    }

    /// A room of one guest seat, hosted by a random phone, for the
    /// functions that take one.
    fn a_room() -> Room {
        let host = Keypair::generate_ed25519().public().to_peer_id();
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let ticket = Ticket::new(RoomId::from_bytes([5; 16]), host, [addr], None).unwrap();
        Room::new(ticket, 1, a_listing(), "Hana".into())
    }

    /// What a room of two classic seats says of itself.
    fn a_listing() -> Listing {
        Listing {
            players: 2,
            rules: RuleSet::Classic(Default::default()),
            timer: TurnTimer::Seconds30,
            theme: Theme::Classic,
            first: FirstPlayer::Random,
        }
    }

    #[tokio::test]
    async fn a_phone_gone_takes_what_was_queued_for_it_but_an_invitation_waits() {
        let (mut node, _) = node(1).await;
        let mut room = a_room();
        let (stranger, invited) = (PeerId::random(), PeerId::random());
        room.vouch(invited);
        for peer in [stranger, invited] {
            node.send(peer, vec![1, 2, 3]).unwrap();
            gone(peer, &mut node, &mut room);
        }
        // So mDNS naming the stranger again makes the host dial nobody.
        assert_eq!(node.unacknowledged(stranger), 0);
        assert_eq!(node.unacknowledged(invited), 1);
    }

    #[tokio::test]
    async fn a_seated_guest_is_answered_however_much_waits_for_it() {
        let (mut node, _) = node(1).await;
        let phone = PeerId::random();
        for _ in 0..MAX_UNTAKEN_ANSWERS {
            assert!(answered(&node, phone, false));
            node.send(phone, vec![1, 2, 3]).unwrap();
        }
        assert!(!answered(&node, phone, false), "a phone that takes nothing");
        assert!(answered(&node, phone, true), "a seated guest");
    }

    #[test]
    fn only_an_invited_phones_decline_is_held_while_a_start_is_signed() {
        let mut room = a_room();
        let this = room.ticket().room();
        let (stranger, invited) = (PeerId::random(), PeerId::random());
        room.vouch(invited);
        let declined = Lobby::Declined { room: this };
        assert!(held_while_signing(&declined, &room, invited));
        assert!(!held_while_signing(&declined, &room, stranger));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_seated_by_its_held_offer_is_not_turned_away_for_asking_again_before() {
        let signed = beside_a_room(2, hosting, |ticket, hosting, _| async move {
            // Its offer comes while another's start is signed and is
            // held, and then (as a hostile phone may) another request for
            // a seat, with no offer behind it.
            let (mut late, signer, mut first) = offered_while_signing(&ticket).await;
            room::ask_for_seat(&mut late, &ticket);
            let asked = Instant::now();
            while late.unacknowledged(ticket.host()) > 0 {
                let _ = tokio::time::timeout(Duration::from_millis(20), late.next()).await;
            }
            let pause = Instant::now() + Duration::from_secs(2);
            let _ = tokio::time::timeout_at(pause, polled(&mut late)).await;
            // The first guest leaves: the start is off, and the held
            // offer takes the free seat.
            let leave = Frame::Lobby(Lobby::Leave {
                room: ticket.room(),
            });
            first.send(ticket.host(), leave.encode()).unwrap();
            let _polled = tokio::task::spawn_local(async move { polled(&mut first).await });
            let header = heard(&mut late, ticket.host(), |bytes| {
                match Envelope::unframe(bytes) {
                    Some(Envelope::Setup(Setup::Sign(header))) => Some(header),
                    _ => None,
                }
            })
            .await;
            // It signs after the wait for an offer behind its second
            // request would have run out: it is still seated.
            let signs = asked + OFFER_WAIT + Duration::from_secs(1);
            let _ = tokio::time::timeout_at(signs, polled(&mut late)).await;
            let signed = Envelope::Setup(Setup::Signed(header.sign(&signer)));
            send(&mut late, ticket.host(), &signed);
            tokio::select! {
                hosted = hosting => hosted.unwrap().unwrap(),
                () = polled(&mut late) => unreachable!(),
            }
        })
        .await;
        assert!(signed.verify().is_ok());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_no_longer_ready_while_the_header_is_signed_calls_the_start_off() {
        let started = beside_a_room(2, hosting, |ticket, hosting, _| async move {
            let (mut guest, signer, first) = offered(&ticket, 2).await;
            // Not ready after all, and then the signature of the header
            // it was asked to sign: that start is off.
            let room = ticket.room();
            for ready in [false, true] {
                let said = Frame::Lobby(Lobby::Ready { room, ready }).encode();
                guest.send(ticket.host(), said).unwrap();
                if !ready {
                    let signed = Envelope::Setup(Setup::Signed(first.sign(&signer)));
                    send(&mut guest, ticket.host(), &signed);
                }
            }
            // Ready again: asked to sign a new header.
            let second = heard(&mut guest, ticket.host(), |bytes| {
                match Envelope::unframe(bytes) {
                    Some(Envelope::Setup(Setup::Sign(header))) => Some(header),
                    _ => None,
                }
            })
            .await;
            let signed = Envelope::Setup(Setup::Signed(second.sign(&signer)));
            send(&mut guest, ticket.host(), &signed);
            let hosted = tokio::select! {
                hosted = hosting => hosted.unwrap().unwrap(),
                () = polled(&mut guest) => unreachable!(),
            };
            (first, second, hosted)
        });
        let (first, second, hosted) = started.await;
        assert_ne!(first, second);
        assert_eq!(
            hosted.header, second,
            "started with the header signed when ready"
        );
    }

    /// A host asks a phone it finds nearby who it is, and closes the
    /// connection it dialled for that once answered, even if the phone
    /// looked at the room through it since; but not one the phone had
    /// opened to look at the room before: its nearby list would drop the
    /// room with it, only to list it again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_closes_only_the_connection_it_dialled_to_ask_who_a_phone_is() {
        // Whether the phone looks at the room: no; before it is found; or
        // only once asked who it is.
        for browses in [None, Some(true), Some(false)] {
            let (found, sightings) = tokio::sync::mpsc::unbounded_channel();
            let host = |mut organiser| async move {
                let (mut node, keypair) = node(1).await;
                node.hear(sightings);
                let mut front = crate::net::lines::Lines::new(std::io::sink(), None, false);
                hosted_on(node, &keypair, 3, &mut organiser, &mut front)
                    .await
                    .1
            };
            let closed = beside_a_room(3, host, |ticket, _hosting, _| async move {
                let (mut phone, _) = node(2).await;
                let host = ticket.host();
                phone.add_addrs(host, ticket.dial_addrs());
                let browse = async |phone: &mut Node| {
                    let browse = Frame::Lobby(Lobby::Browse).encode();
                    phone.dial(host);
                    phone.send(host, browse).unwrap();
                    let listed = heard(phone, host, lobby).await;
                    assert!(matches!(listed, Lobby::Listed { .. }), "{listed:?}");
                };
                if browses == Some(true) {
                    browse(&mut phone).await;
                }
                let (peer, addrs) = (phone.peer_id(), phone.listen_addrs());
                found
                    .send(crate::net::node::Sighting::Found { peer, addrs })
                    .unwrap();
                let asked = heard(&mut phone, host, lobby).await;
                assert_eq!(asked, Lobby::WhoAreYou);
                if browses == Some(false) {
                    browse(&mut phone).await;
                }
                let name = "Ivo".to_owned();
                phone
                    .send(host, Frame::Lobby(Lobby::IAm { name }).encode())
                    .unwrap();
                let disconnected =
                    async { while phone.next().await != Event::Disconnected(host) {} };
                tokio::time::timeout(Duration::from_secs(3), disconnected)
                    .await
                    .is_ok()
            });
            assert_eq!(closed.await, browses != Some(true), "{browses:?}");
        }
    }

    /// An invitation still waiting for its phone (off, or not found yet)
    /// when the game starts is not delivered later by the node that
    /// plays the game.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_invitation_not_taken_by_the_start_goes() {
        let away = PeerId::random();
        let host = move |mut organiser: Starter| async move {
            organiser.invites.push(away);
            let (node, started) = hosted(2, &mut organiser).await;
            (node.unacknowledged(away), started.is_ok())
        };
        let (queued, started) = beside_a_room(2, host, |ticket, hosting, _| async move {
            takes_the_seat(&ticket, hosting).await
        })
        .await;
        assert!(started);
        assert_eq!(queued, 0, "the invitation is dropped");
    }

    /// A player who does what they are told once (and nothing else).
    struct Told(Option<tokio::sync::oneshot::Receiver<Action>>);

    #[async_trait::async_trait(?Send)]
    impl Front for Told {
        fn show(&mut self, _: Progress<'_>) -> std::io::Result<()> {
            Ok(())
        }
        fn due(&mut self, _: &crate::protocol::Phone) -> std::io::Result<Option<Action>> {
            Ok(None)
        }
        async fn input(&mut self, _: bool) -> std::io::Result<Option<Action>> {
            let Some(told) = &mut self.0 else {
                return std::future::pending().await;
            };
            let action = told.await.ok();
            self.0 = None;
            Ok(action)
        }
    }

    /// A ready player that notes what it is shown of its touch with the
    /// host ([`Progress::InTouch`]).
    #[derive(Clone, Default)]
    struct Touches(std::rc::Rc<std::cell::RefCell<Vec<bool>>>);

    #[async_trait::async_trait(?Send)]
    impl Front for Touches {
        fn show(&mut self, progress: Progress<'_>) -> std::io::Result<()> {
            if let Progress::InTouch(now) = progress {
                self.0.borrow_mut().push(now);
            }
            Ok(())
        }
        fn due(&mut self, _: &crate::protocol::Phone) -> std::io::Result<Option<Action>> {
            Ok(None)
        }
        async fn input(&mut self, _: bool) -> std::io::Result<Option<Action>> {
            std::future::pending().await
        }
    }

    /// A guest that loses its connection to the host says so, once,
    /// until the host answers its request for the seat again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_out_of_touch_with_its_host_says_so_until_it_is_answered() {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let touches = Touches::default();
        let _guest = jana_joins(&local, link, Some(Duration::ZERO), touches.clone());
        let shown = touches.clone();
        let answered = local.run_until(async move {
            let (guest_id, ..) = seated(&mut host_node, &host_keys, &ticket, Vec::new()).await;
            is_ready(&mut host_node, guest_id).await;
            assert!(shown.0.borrow().is_empty(), "in touch");
            host_node.disconnect_all();
            let again = heard(&mut host_node, guest_id, lobby).await;
            assert!(matches!(again, Lobby::Join { .. }), "{again:?}");
            assert_eq!(*shown.0.borrow(), [false], "said once");
            let room = ticket.room();
            let admitted = Frame::Lobby(Lobby::Admitted { room }).encode();
            host_node.send(guest_id, admitted).unwrap();
            while shown.0.borrow().len() < 2 {
                tokio::select! {
                    _ = host_node.next() => {}
                    () = tokio::time::sleep(Duration::from_millis(20)) => {}
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(60), answered)
            .await
            .expect("the host's answer is shown");
        assert_eq!(*touches.0.borrow(), [false, true]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_leaving_its_room_tells_its_guests_at_once() {
        let (leave, told) = tokio::sync::oneshot::channel();
        let host = |mut organiser| async move {
            let front = &mut Told(Some(told));
            hosted_with(3, &mut organiser, front).await.1
        };
        let closed = beside_a_room(3, host, |ticket, hosting, _| async move {
            // Admitted, but not offering to play: the room waits.
            let (mut guest, _) = node(2).await;
            room::join(&mut guest, &ticket, JOIN_WAIT).await.unwrap();
            let left = Instant::now();
            leave.send(Action::LeaveRoom).unwrap();
            let told = room_answer(&mut guest, &ticket).await;
            (told, left.elapsed(), hosting.await.unwrap())
        });
        let (told, after, hosted) = closed.await;
        assert!(
            matches!(told, Err(LookupError::Refused(Refusal::Closed))),
            "{told:?}"
        );
        assert!(after < JOIN_WAIT, "told after {after:?}");
        assert!(matches!(hosted, Err(GameError::LeftRoom)), "{hosted:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_leaving_the_room_tells_the_host() {
        let (mut host_node, _, ticket) = hand_host().await;
        let room_id = ticket.room();
        let (leave, told) = tokio::sync::oneshot::channel();
        let local = tokio::task::LocalSet::new();
        let guest = jana_joins(
            &local,
            Joining::by(ticket.to_string()),
            None,
            Told(Some(told)),
        );
        let heard_leave = local.run_until(async move {
            let guest_id = peer_of(2);
            let join = heard(&mut host_node, guest_id, lobby).await;
            assert!(matches!(join, Lobby::Join { .. }), "{join:?}");
            let admitted = Lobby::Admitted { room: room_id };
            host_node
                .send(guest_id, Frame::Lobby(admitted).encode())
                .unwrap();
            // Its offer to play first, then its goodbye once it leaves.
            heard(&mut host_node, guest_id, Envelope::unframe).await;
            leave.send(Action::LeaveRoom).unwrap();
            let said = heard(&mut host_node, guest_id, lobby).await;
            let joined = tokio::select! {
                joined = guest => joined.unwrap(),
                () = polled(&mut host_node) => unreachable!(),
            };
            (said, joined)
        });
        let (said, joined) = tokio::time::timeout(Duration::from_secs(60), heard_leave)
            .await
            .expect("the host hears the guest leave");
        assert_eq!(said, Lobby::Leave { room: room_id });
        assert!(matches!(joined, Err(GameError::LeftRoom)), "{joined:?}");
    }

    /// Keeps `node` polled, as a running app does: it sends, answers and
    /// stays connected only while polled. Never returns.
    async fn polled(node: &mut Node) {
        loop {
            node.next().await;
        }
    }

    /// The next message from `peer` to `node` that `pick` takes.
    async fn heard<T>(node: &mut Node, peer: PeerId, pick: impl Fn(&[u8]) -> Option<T>) -> T {
        loop {
            if let Event::Message { from, bytes } = node.next().await
                && from == peer
                && let Some(picked) = pick(&bytes)
            {
                return picked;
            }
        }
    }

    /// Waits until `guest` says it is ready, as a host does before it asks
    /// its guests to sign: asked before, a guest says it is not and waits
    /// for the next request.
    async fn is_ready(node: &mut Node, guest: PeerId) {
        heard(node, guest, |bytes| match Frame::decode(bytes) {
            Ok(Frame::Lobby(Lobby::Ready { ready: true, .. })) => Some(()),
            _ => None,
        })
        .await;
    }

    /// The lobby's message in a channel message.
    fn lobby(bytes: &[u8]) -> Option<Lobby> {
        match Frame::decode(bytes) {
            Ok(Frame::Lobby(lobby)) => Some(lobby),
            _ => None,
        }
    }

    /// The peer id of the key of `seed`.
    fn peer_of(seed: u8) -> PeerId {
        let keypair = Keypair::ed25519_from_bytes([seed; 32]).unwrap();
        keypair.public().to_peer_id()
    }

    /// A room's host played by hand: its node, its keys and the room's
    /// ticket.
    async fn hand_host() -> (Node, Keypair, Ticket) {
        let (node, keypair) = node(1).await;
        let (peer, addrs) = (node.peer_id(), node.listen_addrs());
        let ticket = Ticket::new(RoomId::from_bytes([6; 16]), peer, addrs, None).unwrap();
        (node, keypair, ticket)
    }

    /// Jana's phone (the key of seed 2) joining as `joining` on `local`,
    /// ready after `ready` (or when `front` says): how its join ends. (The
    /// guest's loop is not Send: its front need not be.)
    fn jana_joins(
        local: &tokio::task::LocalSet,
        joining: Joining,
        ready: Option<Duration>,
        mut front: impl Front + 'static,
    ) -> JoinHandle<Result<Joined, GameError>> {
        local.spawn_local(async move {
            let (mut node, keypair) = node(2).await;
            let secret = DiceSecret::from_bytes([2; 32]);
            join(
                &mut node, &keypair, &secret, &joining, "Jana", ready, &mut front,
            )
            .await
        })
    }

    /// The setup's messages in a channel message.
    fn setup(bytes: &[u8]) -> Option<Setup> {
        match Envelope::unframe(bytes) {
            Some(Envelope::Setup(setup)) => Some(setup),
            _ => None,
        }
    }

    /// The host's side of a guest's join, by hand, on `host_node` (with
    /// `host_keys`) for `ticket`'s room: admits the guest of key seed 2
    /// and takes its offer, after the `stale` answers (those queued for an
    /// earlier visit of the guest's phone). The guest's peer id, the host's
    /// signer and a header seating both, to be signed.
    async fn seated(
        host_node: &mut Node,
        host_keys: &Keypair,
        ticket: &Ticket,
        stale: Vec<Lobby>,
    ) -> (PeerId, Signer, Header) {
        seated_with(host_node, host_keys, ticket, stale, None).await
    }

    /// [`seated`], with `blue` in the third seat of the header.
    async fn seated_with(
        host_node: &mut Node,
        host_keys: &Keypair,
        ticket: &Ticket,
        stale: Vec<Lobby>,
        blue: Option<Seat>,
    ) -> (PeerId, Signer, Header) {
        let guest_id = peer_of(2);
        let join = heard(host_node, guest_id, lobby).await;
        assert!(matches!(join, Lobby::Join { .. }), "{join:?}");
        // Its offer comes right behind, before any answer.
        let Setup::Offer {
            key, commitment, ..
        } = heard(host_node, guest_id, setup).await
        else {
            panic!("no offer first");
        };
        let host_signer = Signer::new(host_keys).unwrap();
        let mut header = two_player(
            seat(&host_signer, committed(1)),
            Seat::Player { key, commitment },
        );
        header.seats[Colour::Blue.index()] = blue;
        let terms = Listing::of(&header);
        let room = ticket.room();
        for said in stale.into_iter().chain([
            Lobby::Admitted { room },
            Lobby::Terms {
                room,
                listing: terms,
            },
        ]) {
            host_node
                .send(guest_id, Frame::Lobby(said).encode())
                .unwrap();
        }
        (guest_id, host_signer, header)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_signs_the_start_only_once_it_is_ready() {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let (ready, told) = tokio::sync::oneshot::channel();
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let _guest = jana_joins(&local, link, None, Told(Some(told)));
        let signed = local.run_until(async move {
            let (guest_id, _, header) =
                seated(&mut host_node, &host_keys, &ticket, Vec::new()).await;
            let sign = Envelope::Setup(Setup::Sign(header.clone()));
            // Not ready: asked, it says so instead of signing.
            send(&mut host_node, guest_id, &sign);
            let answer = heard(&mut host_node, guest_id, |bytes| {
                match (setup(bytes), Frame::decode(bytes)) {
                    (Some(Setup::Signed(_)), _) => Some(None),
                    (_, Ok(Frame::Lobby(Lobby::Ready { ready, .. }))) => Some(Some(ready)),
                    _ => None,
                }
            });
            assert_eq!(answer.await, Some(false), "signed while not ready");
            // Ready, then asked again: it signs.
            ready.send(Action::Ready(true)).unwrap();
            let said = heard(&mut host_node, guest_id, |bytes| {
                match Frame::decode(bytes) {
                    Ok(Frame::Lobby(Lobby::Ready { ready, .. })) => Some(ready),
                    _ => None,
                }
            });
            assert!(said.await);
            send(&mut host_node, guest_id, &sign);
            let Setup::Signed(signature) = heard(&mut host_node, guest_id, setup).await else {
                panic!("not a signature");
            };
            let Some(Seat::Player { key, .. }) = header.seats[2] else {
                unreachable!()
            };
            header.signed_by(key, &signature)
        });
        let signed = tokio::time::timeout(Duration::from_secs(60), signed)
            .await
            .expect("the guest signs once ready");
        assert!(signed, "a signature of the header asked");
    }

    /// A host that did not take a change of readiness (too many at once)
    /// shows the guest as it was: the guest says its word again until the
    /// seats show it, and then says nothing more.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_says_its_readiness_again_until_its_host_shows_it() {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let (ready, told) = tokio::sync::oneshot::channel();
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let _guest = jana_joins(&local, link, None, Told(Some(told)));
        let room = ticket.room();
        let said_ready = |bytes: &[u8]| match Frame::decode(bytes) {
            Ok(Frame::Lobby(Lobby::Ready { ready, .. })) => Some(ready),
            _ => None,
        };
        let agreed = local.run_until(async move {
            let (guest_id, ..) = seated(&mut host_node, &host_keys, &ticket, Vec::new()).await;
            let show = |node: &mut Node, ready| {
                let seats = vec![
                    SeatView::Host {
                        name: "Hana".into(),
                    },
                    SeatView::Guest {
                        name: "Jana".into(),
                        ready,
                    },
                ];
                for said in [
                    Lobby::YourSeat { room, seat: 1 },
                    Lobby::Seats { room, seats },
                ] {
                    node.send(guest_id, Frame::Lobby(said).encode()).unwrap();
                }
            };
            ready.send(Action::Ready(true)).unwrap();
            assert!(heard(&mut host_node, guest_id, said_ready).await);
            // Not taken: shown not ready, twice. It says so again each time.
            for _ in 0..2 {
                show(&mut host_node, false);
                assert!(heard(&mut host_node, guest_id, said_ready).await);
            }
            // Shown ready: it has nothing more to say.
            show(&mut host_node, true);
            let more = heard(&mut host_node, guest_id, said_ready);
            tokio::time::timeout(3 * READY_AGAIN, more).await.is_err()
        });
        let agreed = tokio::time::timeout(Duration::from_secs(60), agreed)
            .await
            .expect("the guest says it is ready again");
        assert!(agreed, "said again once shown ready");
    }

    /// A ready guest joining as `chosen` (a listing, or none) a room whose
    /// host, by hand, says the terms of [`seated`] and asks it to sign its
    /// header changed by `change`: how the guest's join ends.
    async fn joined_as(
        chosen: Option<Listing>,
        change: fn(&mut Header),
        stale: fn(RoomId) -> Vec<Lobby>,
    ) -> Result<Joined, GameError> {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let joining = Joining {
            listing: chosen,
            ..Joining::by(ticket.to_string())
        };
        let local = tokio::task::LocalSet::new();
        let guest = jana_joins(&local, joining, Some(Duration::ZERO), Told(None));
        // The guest may end before its offer leaves (it need not wait
        // for the host's request to sign), so the host's side is not
        // waited for on its own.
        let host = async move {
            let (guest_id, _, mut header) =
                seated(&mut host_node, &host_keys, &ticket, stale(ticket.room())).await;
            change(&mut header);
            is_ready(&mut host_node, guest_id).await;
            let sign = Envelope::Setup(Setup::Sign(header));
            send(&mut host_node, guest_id, &sign);
            polled(&mut host_node).await;
        };
        let hosted = local.run_until(async move {
            tokio::select! {
                joined = guest => joined.unwrap(),
                () = host => unreachable!(),
            }
        });
        tokio::time::timeout(Duration::from_secs(60), hosted)
            .await
            .expect("the guest's join ends")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_leaves_a_room_that_says_another_game_than_it_chose() {
        let chosen = Listing {
            players: 4,
            rules: RuleSet::Matfyz,
            timer: TurnTimer::Seconds60,
            theme: Theme::Sea,
            first: FirstPlayer::HighestRoll,
        };
        let joined = joined_as(Some(chosen), |_| {}, |_| Vec::new()).await;
        assert!(matches!(joined, Err(GameError::NotAsOffered)), "{joined:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_does_not_sign_another_game_than_its_host_said() {
        let joined = joined_as(
            None,
            |header| header.timer = TurnTimer::Seconds10,
            |_| Vec::new(),
        )
        .await;
        assert!(matches!(joined, Err(GameError::NotAsOffered)), "{joined:?}");
    }

    /// The transport delivers what a phone went away before taking at its
    /// next visit: a refusal of an earlier visit comes first, and the
    /// admission right behind it is this visit's answer. (The game asked
    /// for is another than the host said, so the join ends, past its
    /// admission.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refusal_with_an_admission_right_behind_it_is_an_old_one() {
        let another = |header: &mut Header| header.timer = TurnTimer::Seconds10;
        fn full(room: RoomId) -> Lobby {
            Lobby::Refused {
                room,
                why: Refusal::Full,
            }
        }
        // Refused then; or admitted, and refused as it came back too soon.
        let earlier: [fn(RoomId) -> Vec<Lobby>; 2] = [
            |room| vec![full(room)],
            |room| vec![Lobby::Admitted { room }, full(room)],
        ];
        for stale in earlier {
            let joined = joined_as(None, another, stale).await;
            assert!(matches!(joined, Err(GameError::NotAsOffered)), "{joined:?}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_start_sent_while_the_guest_asks_for_its_seat_again_is_not_lost() {
        let (host_node, host_keys, ticket) = hand_host().await;
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let front = crate::net::lines::Lines::new(std::io::sink(), None, false);
        let guest = jana_joins(&local, link, Some(Duration::ZERO), front);
        let hosted = tokio::time::timeout(
            Duration::from_secs(60),
            local.run_until(start_lost_and_found(
                host_node,
                host_keys,
                ticket,
                guest,
                Duration::ZERO,
            )),
        );
        hosted.await.expect("the guest starts");
    }

    /// A guest that signed and then lost touch with the host for longer
    /// than a join waits (its Wi-Fi gone as the host started) waits the
    /// grace period the others give it, and starts with the game it is
    /// in (before, it gave up after `JOIN_WAIT`, and the others recorded
    /// it as dropped while it kept nothing).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_guest_that_signed_waits_out_a_long_loss_of_touch_for_its_start() {
        let (host_node, host_keys, ticket) = hand_host().await;
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let guest = jana_joins(&local, link, Some(Duration::ZERO), Told(None));
        let away = JOIN_WAIT + Duration::from_secs(2);
        let hosted = tokio::time::timeout(
            Duration::from_secs(60),
            local.run_until(start_lost_and_found(
                host_node, host_keys, ticket, guest, away,
            )),
        );
        hosted.await.expect("the guest starts");
    }

    /// The host's side of [`seated`]'s guest signing, by hand, once the
    /// guest is ready: the guest's peer id and the header signed by both.
    async fn signed_by_both(
        host_node: &mut Node,
        host_keys: &Keypair,
        ticket: &Ticket,
    ) -> (PeerId, SignedHeader) {
        signed_with(host_node, host_keys, ticket, None).await
    }

    /// [`signed_by_both`], with `blue` in the third seat of the header
    /// (unsigned: the guest does not check the start's signatures).
    async fn signed_with(
        host_node: &mut Node,
        host_keys: &Keypair,
        ticket: &Ticket,
        blue: Option<Seat>,
    ) -> (PeerId, SignedHeader) {
        let (guest_id, host_signer, header) =
            seated_with(host_node, host_keys, ticket, Vec::new(), blue).await;
        is_ready(host_node, guest_id).await;
        let sign = Envelope::Setup(Setup::Sign(header.clone()));
        send(host_node, guest_id, &sign);
        let Setup::Signed(theirs) = heard(host_node, guest_id, setup).await else {
            panic!("no signature");
        };
        let signed = SignedHeader {
            signatures: vec![
                (Colour::ALL[0], header.sign(&host_signer)),
                (Colour::ALL[2], theirs),
            ],
            header,
        };
        (guest_id, signed)
    }

    async fn start_lost_and_found(
        mut host_node: Node,
        host_keys: Keypair,
        ticket: Ticket,
        guest: tokio::task::JoinHandle<Result<Joined, GameError>>,
        away: Duration,
    ) {
        // The host's side, by hand: admit the guest, have it sign...
        let (guest_id, signed) = signed_by_both(&mut host_node, &host_keys, &ticket).await;

        // ...then lose the connection just as the game starts: the start
        // waits in the host's node and goes once the guest is back. For
        // `away`, the host's node is not polled, so the guest cannot
        // reach it.
        host_node.disconnect_all();
        while host_node.next().await != Event::Disconnected(guest_id) {}
        send(&mut host_node, guest_id, &start(&signed, &Vec::new()));
        tokio::time::sleep(away).await;

        // A host playing answers no lobby message; the guest starts anyway.
        let started = tokio::select! {
            joined = guest => joined.unwrap(),
            () = polled(&mut host_node) => unreachable!(),
        };
        let joined = started.expect("the guest starts with the start it was sent");
        assert_eq!(joined.header, signed);
        assert!(!joined.left);
    }

    /// Another player's phone, whose start came first, sends this guest
    /// its first message of the game before this guest's start comes: it
    /// is kept for the game, not dropped (its node took it, and it is not
    /// sent again). The same from a phone not in the game is not kept.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_players_message_heard_before_the_start_is_kept_for_the_game() {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let guest = jana_joins(&local, link, Some(Duration::ZERO), Told(None));
        let first = Envelope::Log(ByteBuf::from(vec![7; 3]));
        let joined = local.run_until(async move {
            let (mut blue, blue_keys) = node(3).await;
            let (mut stranger, _) = node(4).await;
            let blue_seat = seat(&Signer::new(&blue_keys).unwrap(), committed(3));
            let (guest_id, signed) =
                signed_with(&mut host_node, &host_keys, &ticket, Some(blue_seat)).await;
            for other in [&mut stranger, &mut blue] {
                other.add_addrs(guest_id, host_node.addrs(guest_id));
                other.dial(guest_id);
                send(other, guest_id, &first);
                // (Looked at every 20 ms: an acknowledgement is no event.)
                while other.unacknowledged(guest_id) > 0 {
                    tokio::select! {
                        _ = other.next() => {}
                        () = tokio::time::sleep(Duration::from_millis(20)) => {}
                        () = polled(&mut host_node) => unreachable!(),
                    }
                }
            }
            send(&mut host_node, guest_id, &start(&signed, &Vec::new()));
            let joined = tokio::select! {
                joined = guest => joined.unwrap(),
                () = polled(&mut host_node) => unreachable!(),
            };
            (joined, blue.peer_id(), first)
        });
        let (joined, blue, first) = tokio::time::timeout(Duration::from_secs(60), joined)
            .await
            .expect("the guest starts");
        let joined = joined.expect("the join ends with the start");
        assert_eq!(joined.early, [(blue, first.frame())], "the player's alone");
    }

    /// A guest that has its start sends the host its first message of the
    /// game at once, which may come while the host waits for its start to
    /// be taken (`delivered`): it is kept for the host's game, as a
    /// guest's `Early` keeps one (its node took it, and it is not sent
    /// again).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_players_message_heard_while_the_start_is_taken_is_kept_for_the_hosts_game() {
        let (mut host, host_keys) = node(1).await;
        let (mut blue, blue_keys) = node(3).await;
        // A third player whose node is never polled: the host's start to
        // it is not taken, so the host waits its whole second, and blue's
        // message comes within it.
        let (yellow, yellow_keys) = node(4).await;
        let (host_id, blue_id) = (host.peer_id(), blue.peer_id());
        let player = |keys: &Keypair, seed| seat(&Signer::new(keys).unwrap(), committed(seed));
        let header = Header::new(
            [1; 32],
            RuleSet::Classic(Default::default()),
            [
                Some(player(&host_keys, 1)),
                Some(player(&blue_keys, 3)),
                None,
                Some(player(&yellow_keys, 4)),
            ],
        );
        host.add_addrs(yellow.peer_id(), yellow.listen_addrs());
        blue.add_addrs(host_id, host.listen_addrs());
        blue.dial(host_id);
        // Connected first, so that the message's way is no handshake
        // that a loaded machine could stretch past the host's second.
        loop {
            tokio::select! {
                event = host.next() => if event == Event::Connected(blue_id) { break },
                _ = blue.next() => {}
            }
        }
        let first = Envelope::Log(ByteBuf::from(vec![7; 3]));
        send(&mut blue, host_id, &first);
        let start = Envelope::Log(ByteBuf::from(vec![8; 3]));
        send(&mut host, yellow.peer_id(), &start);
        let early = tokio::select! {
            early = delivered(&mut host, &header) => early,
            () = polled(&mut blue) => unreachable!(),
        };
        assert_eq!(early, [(blue_id, first.frame())]);
        drop(yellow);
    }

    /// The player leaves the room just as the host's start comes (the two
    /// cross): the game the player signed started with them in it, so the
    /// join ends with that start, marked left (to be saved and kept for
    /// Home), rather than with the room left and the game lost to them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_start_that_crosses_the_players_leave_is_kept() {
        let (mut host_node, host_keys, ticket) = hand_host().await;
        let (leave, told) = tokio::sync::oneshot::channel();
        let local = tokio::task::LocalSet::new();
        let link = Joining::by(ticket.to_string());
        let guest = jana_joins(&local, link, Some(Duration::ZERO), Told(Some(told)));
        let crossed = local.run_until(async move {
            let (guest_id, signed) = signed_by_both(&mut host_node, &host_keys, &ticket).await;
            // The player leaves (the guest's loop takes it at once), and
            // the host, which has not heard it, starts.
            leave.send(Action::LeaveRoom).unwrap();
            tokio::task::yield_now().await;
            send(&mut host_node, guest_id, &start(&signed, &Vec::new()));
            let joined = tokio::select! {
                joined = guest => joined.unwrap(),
                () = polled(&mut host_node) => unreachable!(),
            };
            (joined, signed)
        });
        let (joined, signed) = tokio::time::timeout(Duration::from_secs(60), crossed)
            .await
            .expect("the guest's join ends");
        let joined = joined.expect("the join ends with the start");
        assert_eq!(joined.header, signed);
        assert!(joined.left, "left as it started");
    }

    #[test]
    fn a_start_naming_more_players_or_addresses_than_a_game_has_is_cut() {
        let addr: Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let peers = (0..10)
            .map(|_| {
                let id = ByteBuf::from(PeerId::random().to_bytes());
                (id, vec![ByteBuf::from(addr.to_vec()); 100])
            })
            .collect();
        let players = players(peers, &["Hana".into()]);
        assert_eq!(players.len(), 4);
        assert!(
            players
                .iter()
                .all(|(_, addrs, _)| addrs.len() == seen::MAX_ADDRS)
        );
        assert_eq!(players[0].2, "Hana");
        assert_eq!(players[1].2, "");
    }

    #[test]
    fn a_game_log_message_at_its_64_kib_limit_fits_the_channel_in_its_envelopes() {
        let message = vec![7u8; MAX_LOG];
        let framed = Envelope::Log(ByteBuf::from(message.clone())).frame();
        assert!(framed.len() <= MAX_CHANNEL, "{} bytes", framed.len());
        match Envelope::unframe(&framed) {
            Some(Envelope::Log(back)) => assert_eq!(back.into_vec(), message),
            other => panic!("{other:?}"),
        }
    }
}
