//! A networked game from start to end: `clovece host` / `clovece join` and
//! the app's online game. The glue between the lobby ([`super::room`]), the
//! game's setup ([`super::setup`]), its play ([`super::play`]) and the
//! player's [`Front`]; a data folder holding an unfinished game resumes it.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use tokio::sync::mpsc::UnboundedReceiver;
use tracing::warn;

use super::book::{Book, nickname_of};
use super::front::{Front, Progress};
use super::node::{Config, NetError, Node, Sighting, ip_of};
use super::room::LookupError;
use super::ticket::TicketError;
use super::{play, setup};
use crate::protocol::store::Restored;
use crate::protocol::{
    DiceSecret, Header, HeaderError, Phone, PhoneError, Seat, SignedHeader, Store, StoreError,
};
use crate::rules::Colour;

pub use super::setup::{Joining, MAX_NAME, Note, Organiser, Sitter, Table};

/// The saved game's folder inside the data folder.
pub const GAME_DIR: &str = "game";

/// How this process takes part.
#[derive(Debug)]
pub enum Role {
    /// Open a room; a host whose data folder holds an unfinished game
    /// resumes it instead.
    Host(Table, Box<dyn Organiser>),
    /// Join by ticket or code; `None` resumes the saved game.
    Join(Option<Joining>),
}

/// What `clovece host` / `clovece join` is started with.
#[derive(Debug)]
pub struct Peer {
    pub role: Role,
    /// The data folder: identity and saved game.
    pub data: PathBuf,
    pub listen: Vec<Multiaddr>,
    /// Whether the node may run libp2p's mDNS: not where the platform
    /// announces and browses by its own means (Bonjour on iOS). It never
    /// runs on loopback-only addresses, which libp2p's mDNS ignores.
    pub mdns: bool,
    /// What the platform's discovery finds, where it runs outside the
    /// swarm (Bonjour on iOS): the node takes these as it takes mDNS's
    /// finds, to look up a room code and to find the players again.
    pub sightings: Option<UnboundedReceiver<Sighting>>,
    /// Wait before each of this player's own actions.
    pub pace: Duration,
    /// Wait before this phone reveals for each computer roll, so that
    /// people can follow the computer's turns ([`crate::protocol::Phone::pace_computer`]);
    /// zero: at once.
    pub computer_pace: Duration,
    /// The longest wait at the end for every peer to hold the final entry.
    pub linger: Duration,
    /// This player's nickname, as the others see it.
    pub name: String,
    /// A guest confirms it is ready this long after joining; with none,
    /// when the front says so ([`super::front::Action::Ready`]).
    pub ready_after: Option<Duration>,
    /// Leave the game on purpose after this many of this player's own
    /// actions (rolls and moves).
    pub leave_after: Option<u32>,
    /// For tests: after this many of this player's own actions, vanish
    /// without a word, as a crashed phone would, at a moment when the game
    /// waits on another player's move that is not followed by this
    /// player's roll (so the others see a drop, not a withheld roll).
    pub drop_after: Option<u32>,
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
    /// This player left the room before the start (or as it started: the
    /// game then stays saved).
    #[error("left the room")]
    LeftRoom,
    #[error("{0} is neither a ticket nor a room code")]
    NotATicket(String),
    /// The text to join with starts as a ticket does, but is none.
    #[error("{0}")]
    DamagedTicket(TicketError),
    #[error("cannot resume: {0}")]
    NoSavedGame(StoreError),
    #[error(
        "{} holds an unfinished game; resume it with `clovece join --data DIR` (no ticket), or join with another data folder",
        .0.display()
    )]
    Unfinished(PathBuf),
    #[error(
        "{} holds a saved game that cannot be read ({}); it is left as it is: move it away or use another --data",
        .0.display(),
        .1
    )]
    Unreadable(PathBuf, StoreError),
    #[error("the host sent a header that does not seat this player as agreed")]
    BadSeat,
    /// The room's host said it starts another game than the one the
    /// player chose it for, or asked to sign another than it said.
    #[error(
        "the host asked to start another game than its room offered (players, rules, turn timer, board, who begins, or the computer that plays for a player gone); not signed"
    )]
    NotAsOffered,
    /// No turn timer, or another wait for a phone that is gone than this
    /// guest's `agreed`: a host could hold the game up, or, waiting less,
    /// choose its dice.
    #[error(
        "the host sent a header that is not fair to every player (turn timer {}, {grace} s for a phone that is gone where this phone waits {agreed} s); not signed",
        timer.map_or("none".to_owned(), |s| format!("{s} s"))
    )]
    Unfair {
        timer: Option<u16>,
        grace: u16,
        agreed: u16,
    },
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
    Join(&'a Joining),
}

/// Plays a game to its end (or this player's leave) as `peer` says, with
/// `front` choosing this player's actions and shown the progress; a data
/// folder holding an unfinished game resumes it.
pub async fn run(
    keypair: Keypair,
    mut peer: Peer,
    front: &mut dyn Front,
) -> Result<Finished, GameError> {
    let config = Config {
        // libp2p-mdns ignores loopback, so a loopback-only peer needs none.
        mdns: peer.mdns && !peer.listen.iter().all(is_loopback),
        listen: peer.listen.clone(),
        ..Config::default()
    };
    let dir = peer.data.join(GAME_DIR);
    let start = match (&mut peer.role, saved_game(&dir)) {
        // Another process plays it: neither resumed nor replaced here.
        (_, Err(e @ StoreError::InUse { .. })) => return Err(PhoneError::Store(e).into()),
        (Role::Join(None), Ok(saved)) => Start::Resume(Box::new(saved)),
        (Role::Join(None), Err(e)) => return Err(GameError::NoSavedGame(e)),
        (Role::Host(..), Ok(saved)) if !saved.log.over_for(saved.seat) => {
            warn!(
                "resuming the unfinished game saved in {}; to open a new room instead, remove that folder or use another --data",
                dir.display()
            );
            Start::Resume(Box::new(saved))
        }
        (Role::Join(Some(_)), Ok(saved)) if !saved.log.over_for(saved.seat) => {
            return Err(GameError::Unfinished(dir));
        }
        // A new game replaces only one over for this player (finished, or
        // left: recorded first, `Store::record_saved`) or nothing: a saved
        // game this phone cannot read is kept for the player to look at.
        (_, Err(e)) if !matches!(e, StoreError::Empty { .. }) => {
            return Err(GameError::Unreadable(dir, e));
        }
        (Role::Host(table, organiser), _) => Start::Host(*table, organiser.as_mut()),
        (Role::Join(Some(joining)), _) => Start::Join(joining),
    };
    let resumed = matches!(start, Start::Resume(_));
    let sightings = peer.sightings.take();
    // Whether the player left the room as its game started.
    let mut left = false;
    // Whether this phone hosted the room whose game starts.
    let mut hosting = false;
    // A resumed game's nicknames, said at its setup, come from its book.
    // And what the other players' phones sent of the game before a
    // guest had its start.
    let (mut node, phone, book, names, early) = match start {
        Start::Resume(saved) => {
            let (node, phone, book) =
                resume(&keypair, *saved, &dir, config, sightings, front).await?;
            let names = book.names.clone();
            (node, phone, book, names, Vec::new())
        }
        Start::Host(table, organiser) => {
            let secret = DiceSecret::generate()?;
            let mut node = listen(&keypair, config, sightings, front).await?;
            let (header, peers) = setup::host(
                &mut node, &keypair, &secret, table, organiser, &peer.name, front,
            )
            .await?;
            let phone = new_phone(header, &keypair, secret, &dir)?;
            let (book, names) = book_and_names(peers);
            hosting = true;
            (node, phone, book, names, Vec::new())
        }
        Start::Join(joining) => {
            let secret = DiceSecret::generate()?;
            let mut node = listen(&keypair, config, sightings, front).await?;
            let joined = setup::join(
                &mut node,
                &keypair,
                &secret,
                joining,
                &peer.name,
                peer.ready_after,
                front,
            )
            .await?;
            let phone = new_phone(joined.header, &keypair, secret, &dir)?;
            left = joined.left;
            let (book, names) = book_and_names(joined.peers);
            (node, phone, book, names, joined.early)
        }
    };
    let book = Book {
        me: super::ticket::likeliest(node.listen_addrs()),
        peers: players(&phone)
            .map(|id| (id, book.addrs(id).to_vec()))
            .collect(),
        names: names.clone(),
    };
    if let Err(e) = book.save(&dir) {
        warn!("cannot save the peers' addresses; a restart will rely on mDNS: {e}");
    }
    if left {
        // Saved, with its book, for Home to offer as a game the app closed
        // on; not played.
        return Err(GameError::LeftRoom);
    }
    for (id, addrs) in &book.peers {
        node.add_addrs(*id, addrs.iter().cloned());
        node.keep(*id);
    }
    // Saved: the host's start reaches the guests before it plays
    // (`setup::delivered`).
    let early = if hosting {
        setup::delivered(&mut node, &phone.log().header().header).await
    } else {
        early
    };
    let seated = by_colour(&phone, &names);
    // The setup's players come host first (a resumed game's from its book).
    let hosted = names.first().map(|(id, _)| *id) == Some(node.peer_id());
    if resumed && hosted {
        let peers: Vec<_> = names
            .iter()
            .map(|(id, name)| {
                let addrs = if *id == node.peer_id() {
                    book.me.clone()
                } else {
                    book.addrs(*id).to_vec()
                };
                (*id, addrs, name.clone())
            })
            .collect();
        setup::start_again(&mut node, phone.log().header(), &peers);
    }
    let phone = play::play(&mut node, phone, &peer, (&seated, hosted), early, front).await?;
    Ok(Finished { phone, names })
}

/// Every seat's nickname by colour, from the players' `names` by peer id:
/// empty for a computer seat, an empty seat, or a player whose nickname is
/// not known (a game saved before nicknames were kept).
fn by_colour(phone: &Phone, names: &[(PeerId, String)]) -> [String; 4] {
    let seats = &phone.log().header().header.seats;
    Colour::ALL.map(|c| match seats[c.index()] {
        Some(Seat::Player { key, .. }) => key
            .peer_id()
            .map(|peer| nickname_of(names, peer))
            .unwrap_or_default(),
        _ => String::new(),
    })
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
    crate::durable::create_folder(dir).map_err(|e| GameError::Folder(dir.to_owned(), e))?;
    Ok(Phone::new(header, keypair, secret, Some(dir))?)
}

/// Starts this phone's node as `config` says, taking the platform
/// discovery's `sightings`, and tells `front` where it listens.
async fn listen(
    keypair: &Keypair,
    config: Config,
    sightings: Option<UnboundedReceiver<Sighting>>,
    front: &mut dyn Front,
) -> Result<Node, GameError> {
    let node = Node::start(keypair.clone(), config).await?;
    listening(node, sightings, front)
}

/// `node`, now taking `sightings`, once `front` knows where it listens.
fn listening(
    mut node: Node,
    sightings: Option<UnboundedReceiver<Sighting>>,
    front: &mut dyn Front,
) -> Result<Node, GameError> {
    if let Some(sightings) = sightings {
        node.hear(sightings);
    }
    front.show(Progress::Listening {
        peer: node.peer_id(),
        addrs: &node.listen_addrs(),
    })?;
    Ok(node)
}

/// Continues the game saved in `dir`: listens on the ports this phone
/// listened on before if it can (the others redial those addresses),
/// else as `config` says, and shows how far the log had come.
async fn resume(
    keypair: &Keypair,
    restored: Restored,
    dir: &Path,
    config: Config,
    sightings: Option<UnboundedReceiver<Sighting>>,
    front: &mut dyn Front,
) -> Result<(Node, Phone, Book), GameError> {
    let phone = Phone::resume(restored, keypair)?;
    let book = Book::resumed(dir);
    let again = (!book.me.is_empty()).then(|| Config {
        listen: again(&config.listen, &book.me, |ip, port| {
            std::net::TcpListener::bind((ip, port)).is_ok()
        }),
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
        Some(node) => listening(node, sightings, front)?,
        None => listen(keypair, config, sightings, front).await?,
    };
    front.show(Progress::Resumed(phone.log().len()))?;
    Ok((node, phone, book))
}

/// Where to listen to resume a game: `listen` (as this start is told),
/// each address of it that asks for any port given the port this phone
/// listened on with that address before, as `saved`. So a phone told to
/// listen on every interface does again, on its old port: an interface
/// gone since (a VPN's, the mobile network's) does not fail the start,
/// and one that comes up or changes its address during the game takes
/// dials too, where listening on each saved address again did neither.
/// An old port another socket holds now is not asked for: libp2p listens
/// with `SO_REUSEPORT`, so where that socket set it too (another clovece
/// process of the same user) both would listen there and share its
/// incoming connections, rather than this one failing over to any port.
/// `free` says whether a plain bind of the port succeeds now.
fn again(
    listen: &[Multiaddr],
    saved: &[Multiaddr],
    free: impl Fn(IpAddr, u16) -> bool,
) -> Vec<Multiaddr> {
    listen
        .iter()
        .map(|addr| {
            let (Some(ip), Some(0)) = (ip_of(addr), port_of(addr)) else {
                return addr.clone();
            };
            let before = saved.iter().find(|s| {
                ip_of(s).is_some_and(|s| {
                    s.is_ipv4() == ip.is_ipv4() && (ip.is_unspecified() || s == ip)
                })
            });
            match before.and_then(port_of).filter(|&port| free(ip, port)) {
                Some(port) => addr
                    .iter()
                    .map(|p| match p {
                        Protocol::Tcp(_) => Protocol::Tcp(port),
                        p => p,
                    })
                    .collect(),
                None => addr.clone(),
            }
        })
        .collect()
}

/// The TCP port of `addr`, if it has one.
fn port_of(addr: &Multiaddr) -> Option<u16> {
    addr.iter().find_map(|p| match p {
        Protocol::Tcp(port) => Some(port),
        _ => None,
    })
}

/// The peer ids of the other players of `phone`'s game.
fn players(phone: &Phone) -> impl Iterator<Item = PeerId> + '_ {
    seated_players(&phone.log().header().header)
        .filter(|&(c, _)| c != phone.seat())
        .map(|(_, id)| id)
}

/// The peer ids of the players `header` seats, by colour.
pub(super) fn seated_players(header: &Header) -> impl Iterator<Item = (Colour, PeerId)> + '_ {
    Colour::ALL
        .into_iter()
        .filter_map(|c| match header.seats[c.index()] {
            Some(Seat::Player { key, .. }) => Some((c, key.peer_id().ok()?)),
            _ => None,
        })
}

pub(crate) fn is_loopback(addr: &Multiaddr) -> bool {
    ip_of(addr).is_some_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Event;
    use crate::net::front::Action;
    use crate::protocol::sim::{self, Config as SimConfig};
    use crate::rules::Seats;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A player who never acts, noting where its node listens.
    struct Idle(Rc<RefCell<Vec<Multiaddr>>>);

    #[async_trait::async_trait(?Send)]
    impl Front for Idle {
        fn show(&mut self, progress: Progress<'_>) -> std::io::Result<()> {
            if let Progress::Listening { addrs, .. } = progress {
                self.0.borrow_mut().extend_from_slice(addrs);
            }
            Ok(())
        }
        fn due(&mut self, _: &Phone) -> std::io::Result<Option<Action>> {
            Ok(None)
        }
        async fn input(&mut self, _: bool) -> std::io::Result<Option<Action>> {
            std::future::pending().await
        }
    }

    /// A host whose game resumes from its folder sends its guests the
    /// start again: the first may have died, queued, with the process
    /// that sent it, and a guest whose link was down as the game started
    /// still waits for it (`setup::join`).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_resuming_its_game_sends_its_guests_the_start_again() {
        let config = SimConfig::new(5, Seats::for_players(2).unwrap());
        let (header, players) = sim::setup(&config);
        let [host, guest] = [0, 1].map(|i| players[i].keypair.clone());
        let (host_id, guest_id) = (host.public().to_peer_id(), guest.public().to_peer_id());
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join(GAME_DIR);
        crate::durable::create_folder(&dir).unwrap();
        Store::create(&dir, &header, players[0].seat, &players[0].secret).unwrap();
        let book = Book {
            me: Vec::new(),
            peers: vec![(guest_id, Vec::new())],
            names: vec![(host_id, "Hana".into()), (guest_id, "Ivo".into())],
        };
        book.save(&dir).unwrap();
        let peer = Peer {
            role: Role::Join(None),
            data: data.path().to_owned(),
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            mdns: false,
            sightings: None,
            pace: Duration::ZERO,
            computer_pace: Duration::ZERO,
            linger: Duration::ZERO,
            name: "Hana".into(),
            ready_after: None,
            leave_after: None,
            drop_after: None,
        };
        let listening = Rc::new(RefCell::new(Vec::new()));
        let mut front = Idle(listening.clone());
        let local = tokio::task::LocalSet::new();
        local.spawn_local(async move {
            let _ = run(host, peer, &mut front).await;
        });
        let started = local.run_until(async move {
            let config = Config {
                listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
                mdns: false,
                ..Config::default()
            };
            let mut node = Node::start(guest, config).await.unwrap();
            while listening.borrow().is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            node.add_addrs(host_id, listening.borrow().clone());
            node.dial(host_id);
            loop {
                if let Event::Message { from, bytes } = node.next().await
                    && from == host_id
                    && let Some(setup::Envelope::Setup(setup::Setup::Start { header, .. })) =
                        setup::Envelope::unframe(&bytes)
                {
                    return header;
                }
            }
        });
        let started = tokio::time::timeout(Duration::from_secs(30), started)
            .await
            .expect("the resumed host sends the start");
        assert_eq!(started, header);
    }

    fn addrs(list: &[&str]) -> Vec<Multiaddr> {
        list.iter().map(|a| a.parse().unwrap()).collect()
    }

    #[test]
    fn a_resumed_phone_listens_as_told_on_the_ports_it_had() {
        let saved = addrs(&["/ip4/127.0.0.1/tcp/4000", "/ip4/192.168.1.5/tcp/4000"]);
        let free = |_, _| true;
        // Every interface, on the old port: one gone since fails nothing.
        let any = addrs(&["/ip4/0.0.0.0/tcp/0"]);
        let again_any = again(&any, &saved, free);
        assert_eq!(again_any, addrs(&["/ip4/0.0.0.0/tcp/4000"]));
        // One interface, on the port it had there.
        let one = addrs(&["/ip4/127.0.0.1/tcp/0"]);
        let again_one = again(&one, &saved, free);
        assert_eq!(again_one, addrs(&["/ip4/127.0.0.1/tcp/4000"]));
        // An old port that another socket holds now: any port.
        let taken = |ip: IpAddr, port| !(ip.is_loopback() && port == 4000);
        assert_eq!(again(&one, &saved, taken), one);
        assert_eq!(again(&any, &saved, taken), again_any);
        // Nothing saved for it: as told.
        for told in [
            "/ip4/10.0.0.2/tcp/0",
            "/ip6/::/tcp/0",
            "/ip4/0.0.0.0/tcp/5000",
        ] {
            let told = addrs(&[told]);
            assert_eq!(again(&told, &saved, free), told);
        }
    }
}
