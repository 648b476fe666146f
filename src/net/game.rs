//! A headless peer: `clovece host` and `clovece join`. The glue between the
//! lobby ([`super::room`]), the node's byte channel and the game log
//! ([`crate::protocol::Phone`]).
//!
//! Inside the lobby's [`Frame::Game`] travels an [`Envelope`]: either the
//! setup that makes the signed header, or one of the game log's messages.
//! Setup, once the room is full:
//!
//! 1. every guest sends the host its key and dice commitment ([`Setup::Offer`]);
//! 2. the host seats everyone (itself first, guests in the order they were
//!    admitted, computer seats last) and sends the header to sign
//!    ([`Setup::Sign`]);
//! 3. every guest checks its own seat and signs ([`Setup::Signed`]);
//! 4. the host sends the signed header with every player's addresses
//!    ([`Setup::Start`]), so guests can reach each other directly.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;
use tokio::time::{Instant, sleep_until};
use tracing::warn;

use super::book::Book;
use super::code::RoomCode;
use super::node::{Config, Event, NetError, Node};
use super::room::{self, Frame, Listing, Lobby, LookupError, Room, SeatList};
use super::terminal::{self, Terminal};
use super::ticket::{RoomId, RoomSecret, Ticket, TicketError};
use crate::bot::Level;
use crate::protocol::presence::Millis;
use crate::protocol::state::Control;
use crate::protocol::store::Restored;
use crate::protocol::{
    DiceChain, DiceSecret, Digest, End, Header, Message, Phone, PhoneError, PublicKey, Seat,
    Signature, SignedHeader, Signer, Store, StoreError, Theme, Transport, TurnTimer, Watch,
};
use crate::protocol::{Due, HeaderError, header::DEFAULT_ROLLS};
use crate::rules::{Colour, FirstPlayer, Move, RuleSet, Seats};

/// How long a joiner waits for the host to answer.
const JOIN_WAIT: Duration = Duration::from_secs(10);
/// How long a joiner looks for a room by its code.
const FIND_WAIT: Duration = Duration::from_secs(3);
/// How often the phone tells the others where its log stands.
const TICK: Duration = Duration::from_secs(1);
/// The saved game's folder inside the data folder.
const GAME_DIR: &str = "game";
/// The longest nickname a phone passes on (in characters); longer ones are
/// cut, so a hostile peer cannot fill the others' statistics.
pub const MAX_NAME: usize = 32;

/// What travels inside [`Frame::Game`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "a handful of setup messages per game; boxing buys nothing"
)]
enum Envelope {
    Setup(Setup),
    Log(ByteBuf),
}

impl Envelope {
    fn frame(&self) -> Vec<u8> {
        let inner = postcard::to_stdvec(self).expect("envelopes serialise to memory");
        Frame::Game(ByteBuf::from(inner)).encode()
    }

    fn unframe(bytes: &[u8]) -> Option<Envelope> {
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
enum Setup {
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
    /// Print a line on the output.
    Say(String),
}

/// The host's side of a room before the game: who sits where, who is
/// ready, when the game starts. The host's loop here does the networking
/// (admission, the game's setup); the decisions are the organiser's, which
/// `crate::lobby` implements (net does not depend on it).
#[async_trait::async_trait]
pub trait Organiser: Send {
    /// The room is open with this ticket.
    fn opened(&mut self, ticket: &Ticket, listing: Listing);
    /// Seats for guests' phones now.
    fn places(&self) -> usize;
    /// A guest's phone was admitted and offered to play as `name`.
    fn arrived(&mut self, peer: PeerId, name: &str);
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

/// How this process takes part.
#[derive(Debug)]
pub enum Role {
    /// Open a room; a host whose data folder holds an unfinished game
    /// resumes it instead.
    Host(Table, Box<dyn Organiser>),
    /// Join by ticket or code; `None` resumes the saved game.
    Join(Option<String>),
}

/// What `clovece host` / `clovece join` is started with.
#[derive(Debug)]
pub struct Peer {
    pub role: Role,
    /// The data folder: identity and saved game.
    pub data: PathBuf,
    pub listen: Vec<Multiaddr>,
    /// The computer plays this process's seat at this level; with none,
    /// the player is asked on the terminal ([`super::terminal`]).
    pub bot: Option<Level>,
    /// Wait before each of this player's own actions.
    pub pace: Duration,
    /// The longest wait at the end for every peer to hold the final entry.
    pub linger: Duration,
    /// This player's nickname, as the others see it.
    pub name: String,
    /// A guest confirms it is ready this long after joining.
    pub ready_after: Duration,
    /// Leave the game on purpose after this many of this player's own
    /// actions (rolls and moves).
    pub leave_after: Option<u32>,
    /// For tests: after this many of this player's own actions, vanish
    /// without a word, as a crashed phone would, at a moment when the game
    /// waits on another player's move that is not followed by this
    /// player's roll (so the others see a drop, not a withheld roll).
    pub drop_after: Option<u32>,
    /// Print `trace:` lines with timestamps, for the latency figures.
    pub trace: bool,
}

/// How a game ended for this phone: its log (with the result, or with this
/// player's leave) and every player's nickname, for the statistics.
pub struct Finished {
    pub phone: Phone,
    pub names: Vec<(PeerId, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error(transparent)]
    Phone(#[from] PhoneError),
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error(transparent)]
    Ticket(#[from] TicketError),
    #[error("cannot draw random numbers: {0}")]
    Random(#[from] getrandom::Error),
    #[error("a game has 2, 3 or 4 seats, not {0}")]
    Seats(u8),
    #[error("the organiser seated {0}, which has not offered to play")]
    NoOffer(PeerId),
    #[error("{0} is neither a ticket nor a room code")]
    NotATicket(String),
    #[error("no saved game to resume in {0}: {1}")]
    NoSavedGame(PathBuf, StoreError),
    #[error(
        "{} holds an unfinished game; resume it with `clovece join --data DIR` (no ticket), or join with another data folder",
        .0.display()
    )]
    Unfinished(PathBuf),
    #[error("the host sent a header that does not seat this player as agreed")]
    BadSeat,
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error("cannot create the game folder {0}: {1}")]
    Folder(PathBuf, std::io::Error),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// The game saved in `dir`, if any: a store damaged at its end gives what
/// is intact before the damage (the next write cuts the rest off).
fn saved_game(dir: &Path) -> Result<Restored, StoreError> {
    match Store::open(dir) {
        Err(StoreError::Corrupt { intact, .. }) => {
            warn!(
                "{}: resuming from the intact part of the saved game",
                dir.display()
            );
            Ok(*intact)
        }
        other => other,
    }
}

/// How a process starts, from its role and its data folder.
enum Start<'a> {
    Resume(Box<Restored>),
    Host(Table, &'a mut dyn Organiser),
    Join(&'a str),
}

/// Runs `clovece host` or `clovece join` to the end of the game (or this
/// player's leave); a data folder holding an unfinished game resumes it.
pub async fn run(
    keypair: Keypair,
    mut peer: Peer,
    out: &mut impl Write,
) -> Result<Finished, GameError> {
    let config = Config {
        // libp2p-mdns ignores loopback, so a loopback-only peer needs none.
        mdns: !peer.listen.iter().all(is_loopback),
        listen: peer.listen.clone(),
        ..Config::default()
    };
    let dir = peer.data.join(GAME_DIR);
    let start = match (&mut peer.role, saved_game(&dir)) {
        (Role::Join(None), Ok(saved)) => Start::Resume(Box::new(saved)),
        (Role::Join(None), Err(e)) => return Err(GameError::NoSavedGame(dir, e)),
        (Role::Host(..), Ok(saved)) if saved.log.result().is_none() => {
            warn!(
                "resuming the unfinished game saved in {}; to open a new room instead, remove that folder or use another --data",
                dir.display()
            );
            Start::Resume(Box::new(saved))
        }
        (Role::Join(Some(_)), Ok(saved)) if saved.log.result().is_none() => {
            return Err(GameError::Unfinished(dir));
        }
        (Role::Host(table, organiser), _) => Start::Host(*table, organiser.as_mut()),
        (Role::Join(Some(link)), _) => Start::Join(link),
    };
    // A resumed game knows the players by their keys only: their nicknames
    // were said at the setup, which this process did not keep.
    let (mut node, phone, book, names) = match start {
        Start::Resume(saved) => {
            let (node, phone, book) = resume(&keypair, *saved, &dir, config, out).await?;
            (node, phone, book, Vec::new())
        }
        Start::Host(table, organiser) => {
            let secret = DiceSecret::generate()?;
            let mut node = Node::start(keypair.clone(), config).await?;
            let (header, peers) = host(
                &mut node, &keypair, &secret, table, organiser, &peer.name, out,
            )
            .await?;
            let phone = new_phone(header, &keypair, secret, &dir)?;
            let (book, names) = book_and_names(peers);
            (node, phone, book, names)
        }
        Start::Join(link) => {
            let secret = DiceSecret::generate()?;
            let mut node = Node::start(keypair.clone(), config).await?;
            let (header, peers) = join(
                &mut node,
                &keypair,
                &secret,
                link,
                &peer.name,
                peer.ready_after,
                out,
            )
            .await?;
            let phone = new_phone(header, &keypair, secret, &dir)?;
            let (book, names) = book_and_names(peers);
            (node, phone, book, names)
        }
    };
    let book = Book {
        me: node.listen_addrs(),
        peers: players(&phone)
            .map(|id| (id, book.addrs(id).to_vec()))
            .collect(),
    };
    if let Err(e) = book.save(&dir) {
        warn!("cannot save the peers' addresses; a restart will rely on mDNS: {e}");
    }
    for (id, addrs) in &book.peers {
        node.add_addrs(*id, addrs.iter().cloned());
        node.keep(*id);
    }
    let phone = play(&mut node, phone, &peer, out).await?;
    Ok(Finished { phone, names })
}

/// The setup's players (peer id, addresses, nickname) split into the
/// address book and the nicknames.
fn book_and_names(peers: Vec<(PeerId, Vec<Multiaddr>, String)>) -> (Book, Vec<(PeerId, String)>) {
    let mut book = Book::default();
    let names = peers
        .into_iter()
        .map(|(id, addrs, name)| {
            book.peers.push((id, addrs));
            (id, name)
        })
        .collect();
    (book, names)
}

/// The phone of a new game, saving to `dir`.
fn new_phone(
    header: SignedHeader,
    keypair: &Keypair,
    secret: DiceSecret,
    dir: &Path,
) -> Result<Phone, GameError> {
    std::fs::create_dir_all(dir).map_err(|e| GameError::Folder(dir.to_owned(), e))?;
    Ok(Phone::new(header, keypair, secret, Some(dir))?)
}

/// Continues the game saved in `dir`: listens where this phone listened
/// before if it can (the others redial those addresses), else as `config`
/// says, and prints `resumed: <entries>`.
async fn resume(
    keypair: &Keypair,
    restored: Restored,
    dir: &Path,
    config: Config,
    out: &mut impl Write,
) -> Result<(Node, Phone, Book), GameError> {
    let phone = Phone::resume(restored, keypair)?;
    let book = Book::load(dir).unwrap_or_else(|e| {
        warn!("no saved addresses; looking for the other players by mDNS: {e}");
        Book::default()
    });
    let again = (!book.me.is_empty()).then(|| Config {
        listen: book.me.clone(),
        ..config.clone()
    });
    let node = match again {
        Some(again) => Node::start(keypair.clone(), again)
            .await
            .inspect_err(|e| warn!("cannot listen where this phone did before: {e}"))
            .ok(),
        None => None,
    };
    let node = match node {
        Some(node) => node,
        None => Node::start(keypair.clone(), config).await?,
    };
    writeln!(out, "resumed: {}", phone.log().len())?;
    out.flush()?;
    Ok((node, phone, book))
}

/// The peer ids of the other players of `phone`'s game.
fn players(phone: &Phone) -> impl Iterator<Item = PeerId> + '_ {
    let seats = &phone.log().header().header.seats;
    Colour::ALL
        .into_iter()
        .filter(|&c| c != phone.seat())
        .filter_map(|c| match seats[c.index()] {
            Some(Seat::Player { key, .. }) => key.peer_id().ok(),
            _ => None,
        })
}

/// `name` cut to [`MAX_NAME`] characters, without control characters.
fn nickname(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect()
}

pub(crate) fn is_loopback(addr: &Multiaddr) -> bool {
    addr.iter().any(|p| match p {
        Protocol::Ip4(ip) => ip.is_loopback(),
        Protocol::Ip6(ip) => ip.is_loopback(),
        _ => false,
    })
}

/// Every player's peer id, addresses and nickname, as the host sends them.
type Peers = Vec<(PeerId, Vec<Multiaddr>, String)>;

/// Opens the room, waits until it is full and makes the signed header.
async fn host(
    node: &mut Node,
    keypair: &Keypair,
    secret: &DiceSecret,
    table: Table,
    organiser: &mut dyn Organiser,
    name: &str,
    out: &mut impl Write,
) -> Result<(SignedHeader, Peers), GameError> {
    let seats = Seats::for_players(table.players).ok_or(GameError::Seats(table.players))?;
    let secret_room = table.private.then(RoomSecret::generate).transpose()?;
    let ticket = Ticket::new(
        RoomId::generate()?,
        node.peer_id(),
        node.listen_addrs(),
        secret_room,
    )?;
    writeln!(out, "ticket: {ticket}")?;
    writeln!(out, "code: {}", ticket.code())?;
    out.flush()?;
    organiser.opened(&ticket, table.listing());
    let mut room = Room::new(ticket, organiser.places()).with_listing(table.listing());
    let signer = Signer::new(keypair).map_err(PhoneError::from)?;
    let mut offers: BTreeMap<PeerId, (PublicKey, Digest)> = BTreeMap::new();
    let mut names: BTreeMap<PeerId, String> = BTreeMap::new();
    // The guests in the order the host started the game with.
    let mut order: Vec<PeerId> = Vec::new();
    let mut header: Option<Header> = None;
    let mut signatures: BTreeMap<Colour, Signature> = BTreeMap::new();
    loop {
        for note in organiser.notes() {
            match note {
                Note::Send(to, message) => {
                    if let Err(e) = node.send(to, Frame::Lobby(message).encode()) {
                        warn!(%to, "cannot send: {e}");
                    }
                }
                Note::Dial(to, addrs) => {
                    node.add_addrs(to, addrs);
                    node.dial(to);
                }
                Note::Say(line) => writeln!(out, "{line}")?,
            }
        }
        out.flush()?;
        room.set_places(organiser.places());
        if header.is_none()
            && let Some(lineup) = organiser.started()
        {
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
                            *offers.get(&peer).ok_or(GameError::NoOffer(peer))?;
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
            signatures.insert(me, h.sign(&signer));
            for &guest in &order {
                send(node, guest, &Envelope::Setup(Setup::Sign(h.clone())));
            }
            header = Some(h);
        }
        if let Some(h) = &header
            && signatures.len() == order.len() + 1
        {
            let signed = SignedHeader {
                header: h.clone(),
                signatures: signatures.into_iter().collect(),
            };
            let mut peers: Peers = vec![(node.peer_id(), node.listen_addrs(), nickname(name))];
            peers.extend(
                order
                    .iter()
                    .map(|&p| (p, node.addrs(p), names.remove(&p).unwrap_or_default())),
            );
            let start = Setup::Start {
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
            };
            for &guest in &order {
                send(node, guest, &Envelope::Setup(start.clone()));
            }
            return Ok((signed, peers));
        }
        let event = tokio::select! {
            event = node.next() => event,
            () = organiser.input(), if header.is_none() => continue,
        };
        let (from, bytes) = match event {
            // An invitation to a phone known only by its peer id waits
            // until mDNS finds where to dial it.
            Event::Discovered(peer) if node.unacknowledged(peer) > 0 => {
                node.dial(peer);
                continue;
            }
            Event::Disconnected(peer) if header.is_none() && room.guests().contains(&peer) => {
                room.leave(peer);
                offers.remove(&peer);
                organiser.left(peer);
                continue;
            }
            Event::Message { from, bytes } => (from, bytes),
            _ => continue,
        };
        if let Ok(Frame::Lobby(lobby)) = Frame::decode(&bytes) {
            if let Some(answer) = room.answer(from, &lobby) {
                let _ = node.send(from, Frame::Lobby(answer).encode());
            } else if header.is_none()
                && matches!(lobby, Lobby::Leave { room: r } if r == room.ticket().room())
            {
                room.leave(from);
                offers.remove(&from);
                organiser.left(from);
            } else if header.is_none() {
                organiser.message(from, lobby);
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
            })) if header.is_none()
                && key.peer_id().ok() == Some(from)
                && !offers.contains_key(&from) =>
            {
                offers.insert(from, (key, commitment));
                let name = nickname(&name);
                organiser.arrived(from, &name);
                names.insert(from, name);
            }
            Some(Envelope::Setup(Setup::Signed(signature))) => {
                if let Some(h) = &header
                    && let Some(colour) = offers.get(&from).and_then(|(key, _)| h.seat_of(*key))
                {
                    signatures.insert(colour, signature);
                }
            }
            _ => {}
        }
    }
}

/// Joins the room of `link` (a ticket or a code) and signs its header.
async fn join(
    node: &mut Node,
    keypair: &Keypair,
    secret: &DiceSecret,
    link: &str,
    name: &str,
    ready_after: Duration,
    out: &mut impl Write,
) -> Result<(SignedHeader, Peers), GameError> {
    let ticket = match link.parse::<Ticket>() {
        Ok(ticket) => ticket,
        Err(_) => {
            let code: RoomCode = link
                .parse()
                .map_err(|_| GameError::NotATicket(link.to_owned()))?;
            room::find(node, code, &[], FIND_WAIT).await?
        }
    };
    room::join(node, &ticket, JOIN_WAIT).await?;
    let host = ticket.host();
    let signer = Signer::new(keypair).map_err(PhoneError::from)?;
    let commitment = DiceChain::new(secret, DEFAULT_ROLLS).commitment();
    let offer = Envelope::Setup(Setup::Offer {
        key: signer.public(),
        commitment,
        name: nickname(name),
    });
    let ready_message = Frame::Lobby(Lobby::Ready {
        room: ticket.room(),
        ready: true,
    })
    .encode();
    send(node, host, &offer);
    let ready = tokio::time::sleep(ready_after);
    tokio::pin!(ready);
    let mut said_ready = false;
    loop {
        let event = tokio::select! {
            event = node.next() => event,
            () = &mut ready, if !said_ready => {
                said_ready = true;
                let _ = node.send(host, ready_message.clone());
                continue;
            }
        };
        if event == Event::Disconnected(host) {
            // The host gives a seat up with its guest's connection: ask for
            // one again (an error if the room is gone or full by now).
            warn!("lost the connection to the room before the start; joining again");
            room::join(node, &ticket, JOIN_WAIT).await?;
            send(node, host, &offer);
            if said_ready {
                let _ = node.send(host, ready_message.clone());
            }
            continue;
        }
        let Event::Message { from, bytes } = event else {
            continue;
        };
        if from != host {
            continue;
        }
        if let Ok(Frame::Lobby(Lobby::Seats { room, seats })) = Frame::decode(&bytes)
            && room == ticket.room()
        {
            writeln!(out, "seats: {}", SeatList(&seats[..seats.len().min(4)]))?;
            out.flush()?;
            continue;
        }
        match Envelope::unframe(&bytes) {
            Some(Envelope::Setup(Setup::Sign(header))) => {
                let seat = header.seat_of(signer.public()).ok_or(GameError::BadSeat)?;
                let agreed = matches!(
                    header.seats[seat.index()],
                    Some(Seat::Player { commitment: c, .. }) if c == commitment
                ) && header.rolls == DEFAULT_ROLLS;
                if !agreed {
                    return Err(GameError::BadSeat);
                }
                send(
                    node,
                    host,
                    &Envelope::Setup(Setup::Signed(header.sign(&signer))),
                );
            }
            Some(Envelope::Setup(Setup::Start {
                header,
                peers,
                names,
            })) => {
                let names = names
                    .iter()
                    .map(|n| nickname(n))
                    .chain(std::iter::repeat(String::new()));
                let peers = peers
                    .into_iter()
                    .zip(names)
                    .filter_map(|((id, addrs), name)| {
                        let id = PeerId::from_bytes(&id).ok()?;
                        let addrs = addrs
                            .into_iter()
                            .filter_map(|a| Multiaddr::try_from(a.into_vec()).ok())
                            .collect();
                        Some((id, addrs, name))
                    })
                    .collect();
                return Ok((header, peers));
            }
            _ => {}
        }
    }
}

fn send(node: &mut Node, to: PeerId, envelope: &Envelope) {
    if let Err(e) = node.send(to, envelope.frame()) {
        warn!(%to, "cannot send: {e}");
    }
}

/// The game log's [`Transport`] over the node: colours are the peers the
/// header's keys name.
struct Wire<'a> {
    node: &'a mut Node,
    peers: [Option<PeerId>; 4],
    me: Colour,
}

impl Transport for Wire<'_> {
    fn send(&mut self, to: Colour, message: &[u8]) {
        if let Some(peer) = self.peers[to.index()] {
            send(
                self.node,
                peer,
                &Envelope::Log(ByteBuf::from(message.to_vec())),
            );
        }
    }

    fn broadcast(&mut self, message: &[u8]) {
        for colour in Colour::ALL {
            if colour != self.me {
                self.send(colour, message);
            }
        }
    }
}

/// Microseconds since the Unix epoch: `trace:` lines of processes on one
/// machine compare on this clock.
fn micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// Prints `away: <colour>` when the computer takes a player's seat
/// because their phone was gone, and `back: <colour>` when they take it
/// back.
fn report_seats(
    phone: &Phone,
    controls: &mut [Option<Control>; 4],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let state = phone.log().state();
    for colour in Colour::ALL {
        let now = state.control(colour);
        match (controls[colour.index()], now) {
            (Some(Control::Player), Some(Control::Absent)) => writeln!(out, "away: {colour}")?,
            (Some(Control::Absent), Some(Control::Player)) => writeln!(out, "back: {colour}")?,
            _ => {}
        }
        controls[colour.index()] = now;
    }
    Ok(())
}

/// Plays the game to its end (or this player's leave), prints the result
/// and lingers until every peer holds the final entry. Prints
/// `seat: <colour>` first.
async fn play(
    node: &mut Node,
    mut phone: Phone,
    peer: &Peer,
    out: &mut impl Write,
) -> Result<Phone, GameError> {
    let header = phone.log().header().header.clone();
    let mut peers = [None; 4];
    for colour in Colour::ALL {
        if let Some(Seat::Player { key, .. }) = header.seats[colour.index()]
            && colour != phone.seat()
        {
            peers[colour.index()] = key.peer_id().ok();
        }
    }
    let colour_of = |id: PeerId| {
        Colour::ALL
            .into_iter()
            .find(|c| peers[c.index()] == Some(id))
    };
    let started = Instant::now();
    let now = || Millis::try_from(started.elapsed().as_millis()).unwrap_or(Millis::MAX);
    let mut watch = Watch::new(&header, now());
    let mut heads: [Option<Digest>; 4] = [None; 4];
    let mut tick = tokio::time::interval(TICK);
    // When to act next, for which head, and the last head acted on.
    let mut act: Option<(Instant, Digest)> = None;
    let mut acted: Option<Digest> = None;
    // The head whose move the terminal was asked for.
    let mut asked: Option<Digest> = None;
    let mut finished: Option<Instant> = None;
    // This player's own actions so far, and whether they left on purpose.
    let mut actions: u32 = 0;
    let mut left = false;
    let mut controls = [None; 4];
    let mut applied = None;
    // The computer chooses this player's moves at `bot`'s level; with
    // none, the terminal is asked.
    let mut bot = peer.bot;
    let mut terminal = bot.is_none().then(Terminal::stdin);
    let me = phone.seat();
    writeln!(out, "seat: {me}")?;
    report_seats(&phone, &mut controls, out)?;
    phone.start(&mut Wire { node, peers, me })?;
    loop {
        let head = phone.log().head();
        report_seats(&phone, &mut controls, out)?;
        if peer.trace && applied != Some(phone.log().len()) {
            let len = phone.log().len();
            applied = Some(len);
            writeln!(out, "trace: applied {len} {}", micros())?;
        }
        if finished.is_none()
            && peer.drop_after.is_some_and(|n| actions >= n)
            && let Due::Move { seat, .. } = phone.log().due()
            && seat != me
            && phone
                .log()
                .state()
                .game()
                .is_some_and(|g| g.seats().after(seat) != me)
        {
            writeln!(out, "dropped: log {}", hex(&head))?;
            out.flush()?;
            return Ok(phone);
        }
        if finished.is_none()
            && let Some(result) = phone.log().result()
        {
            let winner = match result.end {
                End::Won(colour) => colour.to_string(),
                End::Abandoned | End::OutOfDice => "none".to_owned(),
            };
            writeln!(out, "result: winner {winner} log {}", hex(&head))?;
            out.flush()?;
            // Tell the others at once that this phone holds the end.
            phone.tick(&mut Wire { node, peers, me })?;
            finished = Some(Instant::now());
        }
        out.flush()?;
        if let Some(at) = finished {
            let all = left
                || Colour::ALL
                    .into_iter()
                    .filter(|c| peers[c.index()].is_some())
                    .all(|c| heads[c.index()] == Some(head));
            let sent = peers.iter().flatten().all(|&p| node.unacknowledged(p) == 0);
            if (all && sent) || at.elapsed() >= peer.linger {
                node.disconnect_all();
                return Ok(phone);
            }
        }
        if finished.is_none() && phone.waiting().mine && act.is_none_or(|(_, h)| h != head) {
            act = Some((Instant::now() + peer.pace, head));
        }
        let due = act.filter(|&(_, h)| h == head && acted != Some(head) && finished.is_none());
        let asking = asked == Some(head) && finished.is_none() && bot.is_none();
        tokio::select! {
            event = node.next() => {
                if let Event::Message { from, bytes } = event
                    && let Some(colour) = colour_of(from)
                {
                    watch.heard(colour, now());
                    if let Some(Envelope::Log(message)) = Envelope::unframe(&bytes) {
                            if let Ok(Message::Status { head, .. }) = Message::decode(&message) {
                                heads[colour.index()] = Some(head);
                            }
                            if let Err(e) = phone.receive(colour, &message, &mut Wire { node, peers, me }) {
                                warn!(%colour, "refused a message: {e}");
                            }
                    }
                }
            }
            _ = tick.tick() => {
                let mut wire = Wire { node, peers, me };
                phone.tick(&mut wire)?;
                let seen = watch.observe(now(), &phone);
                for (colour, left) in watch.silent(now(), phone.waiting()) {
                    let secs = left.div_ceil(1000);
                    writeln!(out, "waiting: {colour} {}:{:02}", secs / 60, secs % 60)?;
                }
                phone.observe(seen, &mut wire)?;
            }
            line = async {
                match terminal.as_mut() {
                    Some(terminal) => terminal.line().await,
                    None => std::future::pending().await,
                }
            }, if asking => {
                let moves = legal_moves(&phone);
                match line {
                    None => {
                        warn!("standard input is closed; the computer plays this seat from now on");
                        bot = Some(Level::default());
                        acted = None;
                    }
                    Some(line) => match terminal::choose(&line, &moves) {
                        Ok(mv) => {
                            if peer.trace {
                                writeln!(out, "trace: act move {} {}", phone.log().len(), micros())?;
                            }
                            if let Err(e) = phone.play(mv, &mut Wire { node, peers, me }) {
                                warn!("cannot move: {e}");
                            }
                        }
                        Err(why) => {
                            writeln!(out, "invalid: {why}")?;
                            writeln!(out, "{}", terminal::prompt(&moves))?;
                        }
                    },
                }
            }
            () = sleep_until(due.map_or(Instant::now(), |(at, _)| at)), if due.is_some() => {
                acted = Some(head);
                let due = phone.log().due();
                if peer.trace && (matches!(due, Due::Roll { .. }) || bot.is_some()) {
                    let kind = if matches!(due, Due::Roll { .. }) { "roll" } else { "move" };
                    writeln!(out, "trace: act {kind} {} {}", phone.log().len(), micros())?;
                }
                // Asking the terminal is not an action yet: the answer is.
                let prompts = bot.is_none() && matches!(due, Due::Move { .. });
                let mut wire = Wire { node, peers, me };
                let result = match (due, bot) {
                    (Due::Roll { .. }, _) => phone.roll(&mut wire),
                    (Due::Move { .. }, Some(level)) => {
                        let seed = u64::from_le_bytes(head.0[..8].try_into().expect("8 bytes"));
                        match phone.log().state().game().and_then(|g| crate::bot::choose(g, level, seed)) {
                            Some(mv) => phone.play(mv, &mut wire),
                            None => Ok(()),
                        }
                    }
                    (Due::Move { .. }, None) => {
                        writeln!(out, "{}", terminal::prompt(&legal_moves(&phone)))?;
                        asked = Some(head);
                        Ok(())
                    }
                    (Due::Over(_), _) => Ok(()),
                };
                match result {
                    Ok(()) if !prompts => actions += 1,
                    Ok(()) => {}
                    Err(e) => warn!("cannot act: {e}"),
                }
                if peer.leave_after.is_some_and(|n| actions >= n) {
                    phone.leave(&mut wire)?;
                    writeln!(out, "left: log {}", hex(&phone.log().head()))?;
                    out.flush()?;
                    left = true;
                    finished = Some(Instant::now());
                }
            }
        }
    }
}

/// The moves legal now, in the rules' fixed order.
fn legal_moves(phone: &Phone) -> Vec<Move> {
    phone
        .log()
        .state()
        .game()
        .map_or_else(Vec::new, crate::rules::Game::legal_moves)
}

/// The whole hash in lower-case hex.
fn hex(digest: &Digest) -> String {
    digest.0.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::MAX_MESSAGE as MAX_CHANNEL;
    use crate::protocol::wire::MAX_MESSAGE as MAX_LOG;

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
