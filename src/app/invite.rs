//! Invitations in the app, both sides, on the lobby's own code
//! ([`crate::lobby::invite`]):
//!
//! - the host's list of whom to invite: the friends list (the players of
//!   this phone's statistics, with their nicknames) and the all players
//!   list ([`Seen`]: the phones the room's own node finds, and any the app
//!   was told of); inviting one is the lobby's
//!   [`Command::Invite`](crate::lobby::host::Command::Invite), given on the
//!   room screen ([`super::room::Room::invite`]);
//! - the invited phone's [`Inbox`]: a network node that hears invitations
//!   between games and declines the ones the player declines
//!   (accepting is joining with the invitation's ticket); it also keeps
//!   the nearby rooms list while its screen is open
//!   ([`super::nearby::NearbyRooms`]).
//!
//! The inbox runs its node on a tokio runtime on a thread of its own and
//! tells the UI what it heard through a callback; dropping it stops it.
//! It runs the platform's [`Discovery`] beside its node as long as it
//! runs: on desktops and Android that is libp2p's mDNS in the node (and
//! Android's multicast lock), on iOS Bonjour, which announces the inbox
//! and finds the phones the nearby list asks.

use std::cell::RefCell;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::{Multiaddr, PeerId};
use tokio::sync::{mpsc, oneshot, watch};

use super::announce::{NodeAnnouncement, announcement, to_node};
use crate::lobby::Filter;
use crate::lobby::invite::{self, Invitation, Target};
use crate::lobby::nearby::{self, RoomList};
use crate::net::game::is_loopback;
use crate::net::room::{self, Frame, Lobby};
use crate::net::seen;
use crate::net::{Config, Event, Node};
use crate::platform::discovery::Discovery;
use crate::stats::{StatsError, tally};

/// Someone the host can invite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitee {
    pub target: Target,
    /// Their nickname: a friend's from the statistics, a phone's seen
    /// nearby as it said ([`Seen::name`]), empty if it said none (the list
    /// then shows its id).
    pub name: String,
    /// On the friends list (this phone has played with them).
    pub friend: bool,
}

/// The friends list: the players `me` met in the statistics in `data`
/// ([`tally::met`]), most games first. Their addresses are found nearby
/// when invited.
pub fn friends(data: &Path, me: PeerId) -> Result<Vec<Invitee>, StatsError> {
    let loaded = crate::stats::Store::new(data).load()?;
    Ok(tally::met(&loaded.records, &me.to_base58())
        .into_iter()
        .filter_map(|player| {
            Some(Invitee {
                target: Target {
                    peer: player.peer.parse().ok()?,
                    addrs: Vec::new(),
                },
                name: player.name,
                friend: true,
            })
        })
        .collect())
}

/// The friends, then the phones `seen` nearby that are not among them (a
/// friend seen nearby keeps the friend's row and name, with the address
/// seen).
pub fn invitees(friends: &[Invitee], seen: &[Invitee]) -> Vec<Invitee> {
    let mut all = friends.to_vec();
    for phone in seen {
        match all.iter_mut().find(|i| i.target.peer == phone.target.peer) {
            Some(friend) => friend
                .target
                .addrs
                .extend(phone.target.addrs.iter().cloned()),
            None => all.push(phone.clone()),
        }
    }
    all
}

/// Why a node of this module could not start.
#[derive(Debug, thiserror::Error)]
pub enum InviteNodeError {
    #[error("cannot start the network: {0}")]
    Runtime(std::io::Error),
}

/// A node's config for `listen`: libp2p's mDNS where the platform's
/// `discovery` is that, unless every address is a loopback one (tests on
/// 127.0.0.1 stay off the real network).
fn config(listen: Vec<Multiaddr>, discovery: &dyn Discovery) -> Config {
    Config {
        mdns: discovery.swarm_mdns() && !listen.iter().all(is_loopback),
        listen,
        ..Config::default()
    }
}

/// Runs `work` (made on the thread) on a tokio runtime on a thread of its
/// own.
fn spawn<W, F>(name: &str, work: W) -> Result<(), InviteNodeError>
where
    W: FnOnce() -> F + Send + 'static,
    F: Future<Output = ()>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(InviteNodeError::Runtime)?;
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            runtime.block_on(work());
        })
        .map_err(InviteNodeError::Runtime)?;
    Ok(())
}

/// The phones seen nearby while a room is open, for the host's invite
/// list: those the room's node finds (its mDNS, or the platform's
/// discovery, which tells the node), and those the app was told of, which
/// stay. The room's node finds each phone once, so the list is kept from
/// the room's start, not only while it is shown; it is bounded ([`seen`]):
/// past it, a new phone takes the place of the oldest the app was not told
/// of.
#[derive(Debug, Default)]
pub struct Seen {
    phones: Vec<Invitee>,
    told: Vec<PeerId>,
}

impl Seen {
    /// The list at a room's start: the phones the app was told of.
    pub fn new(known: &[(PeerId, Multiaddr)]) -> Seen {
        Seen {
            phones: known
                .iter()
                .map(|(peer, addr)| {
                    nearby(Target {
                        peer: *peer,
                        addrs: vec![addr.clone()],
                    })
                })
                .collect(),
            told: known.iter().map(|(peer, _)| *peer).collect(),
        }
    }

    /// Takes in that the room's node found `peer` nearby (`here`) or
    /// lost it: whether the list changed. A lost phone is gone unless the
    /// app was told of it. (The node keeps the addresses it found; the
    /// invitation names the phone by its peer id.)
    pub fn take(&mut self, peer: PeerId, here: bool) -> bool {
        let phones = &mut self.phones;
        if !here {
            let before = phones.len();
            phones.retain(|p| p.target.peer != peer || self.told.contains(&peer));
            return phones.len() != before;
        }
        // A phone the app was told of, or one that said its nickname (a
        // made-up one never answers), stays: a flood passes through the
        // others' places. The node reports a phone found only once, so
        // one pushed out would not come back.
        let kept = |p: &Invitee| self.told.contains(&p.target.peer) || !p.name.is_empty();
        if phones.iter().any(|p| p.target.peer == peer) || seen::make_room(phones, kept).is_err() {
            return false;
        }
        phones.push(nearby(Target {
            peer,
            addrs: Vec::new(),
        }));
        true
    }

    /// Takes in that `peer` says its nickname is `name` (its first answer
    /// only, [`crate::net::room::Lobby::IAm`]): whether the list changed.
    /// A phone not on the list is not put on it by saying a name.
    pub fn name(&mut self, peer: PeerId, name: String) -> bool {
        match self.phones.iter_mut().find(|p| p.target.peer == peer) {
            Some(phone) if phone.name != name => {
                phone.name = name;
                true
            }
            _ => false,
        }
    }

    /// Every phone seen so far, in the order seen.
    pub fn phones(&self) -> &[Invitee] {
        &self.phones
    }
}

/// A phone seen nearby, as yet without a name.
fn nearby(target: Target) -> Invitee {
    Invitee {
        target,
        name: String::new(),
        friend: false,
    }
}

fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// An invitation as the inbox received it, with the host that sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub host: PeerId,
    pub invitation: Invitation,
}

impl Received {
    /// Whether `other` is an invitation to the same room from the same
    /// host: sent again, not a new one. A room's id is no secret (an open
    /// room's ticket is listed to anyone), so another phone can host a
    /// room under the same id, and its invitation is another.
    pub fn same_room(&self, other: &Received) -> bool {
        (self.host, self.invitation.ticket.room()) == (other.host, other.invitation.ticket.room())
    }
}

/// Hosts kept connected at once until they take their decline.
const MAX_DECLINING: usize = 8;
/// How long a stopped inbox's node runs on for its declines to be taken
/// (a host not connected is dialled first). A host that has not taken its
/// decline by then shows this phone as invited until its room starts.
const DECLINE_WAIT: Duration = Duration::from_secs(3);
/// How often a stopped inbox's node looks whether its declines are taken.
const TAKEN_EVERY: Duration = Duration::from_millis(20);

/// The newest invitation heard and not yet taken by the UI thread: a
/// friend invites once, while any phone on the Wi-Fi could send thousands
/// a second (each under a new identity, which costs nothing). Only one
/// wake-up of the UI thread is on its way at a time, and it shows the
/// newest; those it replaced meanwhile are kept (up to
/// [`MAX_REPLACED`], the latest) to be declined, as their hosts would
/// otherwise show this phone as invited for ever.
#[derive(Debug, Default)]
pub struct Newest {
    heard: Mutex<Heard>,
}

#[derive(Debug, Default)]
struct Heard {
    newest: Option<Received>,
    replaced: Vec<Received>,
}

/// Invitations replaced before the UI took them that are still declined.
pub const MAX_REPLACED: usize = 8;

impl Newest {
    /// Keeps `received` in place of any not yet taken: whether the UI
    /// thread must be woken (no wake-up is on its way).
    pub fn put(&self, received: Received) -> bool {
        let mut heard = lock(&self.heard);
        let Some(old) = heard.newest.replace(received) else {
            return true;
        };
        if heard.replaced.len() == MAX_REPLACED {
            heard.replaced.remove(0);
        }
        heard.replaced.push(old);
        false
    }

    /// The newest invitation and those it replaced, once: the wake-up
    /// has come.
    pub fn take(&self) -> Option<(Received, Vec<Received>)> {
        let mut heard = lock(&self.heard);
        let newest = heard.newest.take()?;
        Some((newest, std::mem::take(&mut heard.replaced)))
    }

    /// Home is left: the invitation `shown` and every one heard but not
    /// shown yet (its wake-up still on its way), once each room, to be
    /// declined, as nobody can answer them now.
    pub fn unanswered(&self, shown: Option<Received>) -> Vec<Received> {
        let heard = self
            .take()
            .into_iter()
            .flat_map(|(newest, replaced)| std::iter::once(newest).chain(replaced));
        let mut unanswered: Vec<Received> = Vec::new();
        for received in shown.into_iter().chain(heard) {
            if !unanswered.iter().any(|u| u.same_room(&received)) {
                unanswered.push(received);
            }
        }
        unanswered
    }
}

/// The invited side while the app is open: hears invitations and sends
/// declines, and keeps the nearby rooms list while its screen is open
/// ([`super::nearby::NearbyRooms`]), on the one node this phone runs then.
/// Its node starts on its own thread (tens of milliseconds, each time Home
/// opens, which the UI thread does not wait for). Dropping it stops its
/// announcement at once, and its node once the declines sent are taken
/// (at most [`DECLINE_WAIT`]).
pub struct Inbox {
    listening: Arc<Mutex<Listening>>,
    /// The player's nickname, told to a host that asks who this phone is
    /// (for its invite list); empty until [`Inbox::rename`], when none is
    /// told.
    name: watch::Sender<String>,
    declines: mpsc::UnboundedSender<Received>,
    browse: mpsc::UnboundedSender<Browse>,
    _stop: oneshot::Sender<()>,
    /// Announces the inbox and finds phones for its node (Bonjour on iOS),
    /// or holds the multicast lock its node's mDNS needs (Android), once
    /// the node listens; or why it could not start, so that phones nearby
    /// go unseen.
    announced: NodeAnnouncement,
}

/// How far the inbox's node has come.
#[derive(Debug, Default)]
enum Listening {
    #[default]
    Starting,
    At(Vec<Multiaddr>),
    Failed(String),
}

/// A request to keep the nearby rooms list on the inbox's node until
/// `stop` fires or is dropped, asking the phones of `ask` too: `listed`
/// gets the list after every change, `failed` why it finds nobody (the
/// platform's discovery does not run; the list goes on) or why it
/// stopped early.
pub(super) struct Browse {
    pub ask: Vec<(PeerId, Multiaddr)>,
    pub listed: Box<dyn FnMut(&RoomList) + Send>,
    pub failed: Box<dyn FnMut(String) + Send>,
    pub stop: oneshot::Receiver<()>,
}

impl Inbox {
    /// Listens for invitations to `keypair`'s phone on `listen`, found
    /// through `discovery`, telling `received` (on the node's thread) each
    /// one, and `started` (on that thread too) once the node listens, or
    /// why it cannot. Fails only if no thread can be started.
    pub fn open(
        keypair: Keypair,
        listen: Vec<Multiaddr>,
        discovery: Arc<dyn Discovery>,
        received: impl Fn(Received) + Send + 'static,
        started: impl FnOnce(Result<(), String>) + Send + 'static,
    ) -> Result<Inbox, InviteNodeError> {
        let me = keypair.public().to_peer_id();
        let (declines, mut to_decline) = mpsc::unbounded_channel::<Received>();
        let (browse, mut to_browse) = mpsc::unbounded_channel::<Browse>();
        let (found, sightings) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let listening = Arc::new(Mutex::new(Listening::Starting));
        let (name, mut renamed) = watch::channel(String::new());
        let announced = NodeAnnouncement::default();
        let config = config(listen, &*discovery);
        let (at, announcing) = (listening.clone(), announced.clone());
        spawn("invitations", move || async move {
            let mut stopped = stopped;
            let mut node = match Node::start(keypair, config).await {
                Ok(node) => node,
                Err(e) => {
                    let why = e.to_string();
                    *lock(&at) = Listening::Failed(why.clone());
                    // The lists asked for meanwhile learn it too.
                    to_browse.close();
                    while let Ok(request) = to_browse.try_recv() {
                        let mut failed = request.failed;
                        failed(why.clone());
                    }
                    started(Err(why));
                    return;
                }
            };
            let addrs = node.listen_addrs();
            // Without its discovery the inbox still hears a host that
            // knows its address (a link, an earlier game); the nearby
            // list says why it finds nobody.
            let me = announcement(me, &addrs);
            announcing.open(&*discovery, &me, to_node(found), "the invitation inbox");
            *lock(&at) = Listening::At(addrs);
            started(Ok(()));
            node.hear(sightings);
            let mut declining = Declining::default();
            let introductions = RefCell::new(Introductions {
                name: renamed.clone(),
                askers: Vec::new(),
            });
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    event = node.next() => match event {
                        Event::Message { from, bytes } => {
                            if let Ok(Frame::Lobby(message)) = Frame::decode(&bytes) {
                                hear(&mut node, from, message, &introductions, &received);
                            }
                        }
                        // What a phone that went took nothing of (an
                        // answer) goes with it; a decline waits for its
                        // host, which the inbox keeps.
                        Event::Disconnected(peer) => node.drop_queued(peer),
                        _ => {}
                    },
                    Ok(()) = renamed.changed() => introductions.borrow().renamed(&mut node),
                    Some(no) = to_decline.recv() => declining.send(&mut node, no),
                    Some(Browse { ask, mut listed, mut failed, stop }) = to_browse.recv() => {
                        if let Some(why) = announcing.unable() {
                            failed(why);
                        }
                        // The inbox stopping stops the list too.
                        let mut closed = false;
                        let list_stopped = async {
                            tokio::select! {
                                _ = stop => {}
                                _ = &mut stopped => closed = true,
                            }
                        };
                        // The list hears the invitations meanwhile, and
                        // the declines go at each round of questions.
                        let kept = nearby::keep(
                            &mut node,
                            ask,
                            Filter::default(),
                            list_stopped,
                            |list, _| {
                                listed(list);
                                Ok(())
                            },
                            |node, from, message| {
                                hear(node, from, message, &introductions, &received);
                            },
                            |node| {
                                while let Ok(no) = to_decline.try_recv() {
                                    declining.send(node, no);
                                }
                                declining.settle(node);
                                if renamed.has_changed().unwrap_or(false) {
                                    renamed.borrow_and_update();
                                    introductions.borrow().renamed(node);
                                }
                            },
                        )
                        .await;
                        if let Err(e) = kept {
                            failed(e.to_string());
                        }
                        if closed {
                            break;
                        }
                    }
                }
                declining.settle(&mut node);
            }
            // The declines given before the inbox stopped go yet.
            to_decline.close();
            while let Ok(no) = to_decline.try_recv() {
                declining.send(&mut node, no);
            }
            let _ = tokio::time::timeout(DECLINE_WAIT, declining.taken(&mut node)).await;
        })?;
        Ok(Inbox {
            listening,
            name,
            declines,
            browse,
            _stop: stop,
            announced,
        })
    }

    /// Where this phone listens for invitations (a host on another network
    /// than mDNS reaches invites `<address>/p2p/<peer id>`): nowhere until
    /// its node listens.
    pub fn addrs(&self) -> Vec<Multiaddr> {
        match &*lock(&self.listening) {
            Listening::At(addrs) => addrs.clone(),
            Listening::Starting | Listening::Failed(_) => Vec::new(),
        }
    }

    /// Why the inbox's node could not start, if it could not.
    pub fn failed(&self) -> Option<String> {
        match &*lock(&self.listening) {
            Listening::Failed(why) => Some(why.clone()),
            Listening::Starting | Listening::At(_) => None,
        }
    }

    /// Tells hosts that ask who this phone is that its player is `name`
    /// (trimmed; none is told while it is empty), and, when it changed,
    /// the latest hosts that asked.
    pub fn rename(&self, name: &str) {
        let name = crate::net::nickname(name.trim());
        self.name.send_if_modified(|old| {
            let changed = *old != name;
            *old = name;
            changed
        });
    }

    /// Tells the host of `received` it is declined.
    pub fn decline(&self, received: Received) {
        let _ = self.declines.send(received);
    }

    /// Keeps the nearby rooms list as `request` asks (after any list kept
    /// before has stopped); fails only once the inbox's node has stopped.
    pub(super) fn browse(&self, request: Browse) -> Result<(), Browse> {
        self.browse.send(request).map_err(|e| e.0)
    }
}

/// What the inbox does with a lobby `message` from `from`: passes an
/// invitation on to `received`, answers a host asking who this phone is,
/// and a phone asking for a seat that this one has no room open (its
/// player invited it and then left the room).
fn hear(
    node: &mut Node,
    from: PeerId,
    message: Lobby,
    introductions: &RefCell<Introductions>,
    received: &impl Fn(Received),
) {
    if message == Lobby::WhoAreYou {
        introductions.borrow_mut().asked(node, from);
    } else if matches!(message, Lobby::Join { .. }) {
        room::tell_closed(node, from, &message);
    } else if let Some(invitation) = Invitation::of(from, message) {
        received(Received {
            host: from,
            invitation,
        });
    }
}

/// Who this phone says it is to hosts that ask, for their invite lists.
struct Introductions {
    /// The player's nickname ([`Inbox::rename`]); none is told while it is
    /// empty.
    name: watch::Receiver<String>,
    /// The latest hosts that asked, oldest first: told again when the
    /// nickname changes (a player who had none chooses one), as a host
    /// asks a phone only when it finds it.
    askers: Vec<PeerId>,
}

/// Hosts that asked who this phone is, kept to be told a new nickname.
const MAX_ASKERS: usize = 8;

impl Introductions {
    /// `host` asked: it is told, unless it has left answers untaken
    /// ([`Node::answers`]: anyone on the Wi-Fi can ask, as often as it
    /// likes).
    fn asked(&mut self, node: &mut Node, host: PeerId) {
        self.askers.retain(|&h| h != host);
        if self.askers.len() == MAX_ASKERS {
            self.askers.remove(0);
        }
        self.askers.push(host);
        if node.answers(host) {
            self.tell(node, host);
        }
    }

    fn tell(&self, node: &mut Node, host: PeerId) {
        let name = self.name.borrow().clone();
        if !name.is_empty() {
            let _ = node.send(host, Frame::Lobby(Lobby::IAm { name }).encode());
        }
    }

    /// The nickname changed: the hosts that asked are told.
    fn renamed(&self, node: &mut Node) {
        for &host in &self.askers {
            self.tell(node, host);
        }
    }
}

/// The hosts sent a decline, kept connected until they have taken it: the
/// connection may close as quiet just as it is sent. Hosts that never take
/// theirs are not kept for good: past [`MAX_DECLINING`], the oldest is let
/// go.
#[derive(Default)]
struct Declining(Vec<PeerId>);

#[cfg(test)]
impl Inbox {
    /// An inbox of `keypair`'s identity on `listen`, found through
    /// `discovery`, once its node listens, or why it cannot.
    pub(super) fn listening(
        keypair: Keypair,
        listen: Vec<Multiaddr>,
        discovery: Arc<dyn Discovery>,
    ) -> (Inbox, Result<(), String>) {
        let (tx, started) = std::sync::mpsc::channel();
        let send = move |listens| {
            let _ = tx.send(listens);
        };
        let inbox = Inbox::open(keypair, listen, discovery, |_| {}, send).expect("a thread");
        let listens = started
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the node starts or fails");
        (inbox, listens)
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        // At once, not when the node's thread notices the stop.
        self.announced.close();
    }
}

impl Declining {
    /// Sends the decline of `no`. The node goes on running, so the message
    /// arrives without holding up the next invitation.
    fn send(&mut self, node: &mut Node, no: Received) {
        node.add_addrs(no.host, no.invitation.ticket.dial_addrs());
        node.keep(no.host);
        let _ = node.send(no.host, invite::declined(&no.invitation));
        self.0.push(no.host);
        if self.0.len() > MAX_DECLINING {
            node.release(self.0.remove(0));
        }
    }

    /// Runs the node of a stopped inbox until every host has taken its
    /// decline, connected to those hosts alone: the session that stopped
    /// the inbox runs a node of the same identity, and a phone connected
    /// to both could send this one what is meant for the session.
    /// A host that has taken its decline is let go at once, and the
    /// node looks every [`TAKEN_EVERY`] (a decline taken is no event).
    async fn taken(&mut self, node: &mut Node) {
        for peer in node.connected() {
            if !self.0.contains(&peer) {
                node.disconnect(peer);
            }
        }
        loop {
            for host in self.took(node) {
                node.disconnect(host);
            }
            if self.0.is_empty() {
                return;
            }
            tokio::select! {
                event = node.next() => {
                    if let Event::Connected(peer) = event
                        && !self.0.contains(&peer)
                    {
                        node.disconnect(peer);
                    }
                }
                () = tokio::time::sleep(TAKEN_EVERY) => {}
            }
        }
    }

    /// Lets go of the hosts that have taken their decline.
    fn settle(&mut self, node: &mut Node) {
        for host in self.took(node) {
            node.release(host);
        }
    }

    /// Takes out the hosts that have taken their decline.
    fn took(&mut self, node: &Node) -> Vec<PeerId> {
        let (taken, waiting) = self
            .0
            .iter()
            .partition(|&&host| node.unacknowledged(host) == 0);
        self.0 = waiting;
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lobby::options::RoomOptions;
    use crate::net::ticket::{RoomId, Ticket};

    fn target(peer: PeerId, addr: Option<&str>) -> Target {
        Target {
            peer,
            addrs: addr.into_iter().map(|a| a.parse().unwrap()).collect(),
        }
    }

    #[test]
    fn the_ui_is_woken_once_for_many_invitations_and_shown_the_newest() {
        let newest = Newest::default();
        let invitation = |n: u8| Received {
            host: PeerId::random(),
            invitation: Invitation {
                ticket: Ticket::new(
                    RoomId::from_bytes([n; 16]),
                    PeerId::random(),
                    ["/ip4/127.0.0.1/tcp/1".parse().unwrap()],
                    None,
                )
                .unwrap(),
                from: format!("host {n}"),
                listing: RoomOptions::default().table().listing(),
            },
        };
        let from = |received: &Received| received.invitation.from.clone();
        assert!(newest.put(invitation(1)), "the first wakes the UI");
        assert!(!newest.put(invitation(2)));
        assert!(!newest.put(invitation(3)));
        let (shown, replaced) = newest.take().unwrap();
        assert_eq!(from(&shown), "host 3");
        assert_eq!(
            replaced.iter().map(from).collect::<Vec<_>>(),
            ["host 1", "host 2"]
        );
        assert_eq!(newest.take(), None);
        assert!(newest.put(invitation(4)), "taken, the next wakes it again");
        for n in 5..30 {
            newest.put(invitation(n));
        }
        let (shown, replaced) = newest.take().unwrap();
        assert_eq!(from(&shown), "host 29");
        assert_eq!(replaced.len(), MAX_REPLACED, "the latest replaced");
        assert_eq!(from(&replaced[0]), "host 21");

        // Home left with one shown and two heard, one of them the shown
        // one sent again: each room once.
        let shown = invitation(40);
        newest.put(invitation(41));
        newest.put(shown.clone());
        let unanswered = newest.unanswered(Some(shown));
        assert_eq!(
            unanswered.iter().map(from).collect::<Vec<_>>(),
            ["host 40", "host 41"]
        );
        assert_eq!(newest.take(), None, "taken");
        assert_eq!(newest.unanswered(None), []);
    }

    #[test]
    fn an_invitation_to_a_room_of_the_same_id_from_another_host_is_another() {
        let host = PeerId::random();
        let invitation = |host, ticket_host| Received {
            host,
            invitation: Invitation {
                ticket: Ticket::new(
                    RoomId::from_bytes([1; 16]),
                    ticket_host,
                    ["/ip4/127.0.0.1/tcp/1".parse().unwrap()],
                    None,
                )
                .unwrap(),
                from: "Hana".into(),
                listing: RoomOptions::default().table().listing(),
            },
        };
        let first = invitation(host, host);
        assert!(first.same_room(&invitation(host, host)), "sent again");
        let copy = PeerId::random();
        assert!(!first.same_room(&invitation(copy, copy)));
    }

    #[test]
    fn the_invite_list_is_the_friends_then_the_other_phones_seen_nearby() {
        let (hana, ivo, other) = (PeerId::random(), PeerId::random(), PeerId::random());
        let friends = vec![
            Invitee {
                target: target(hana, None),
                name: "Hana".into(),
                friend: true,
            },
            Invitee {
                target: target(ivo, None),
                name: "Ivo".into(),
                friend: true,
            },
        ];
        // A friend who says another name nearby keeps the friend's.
        let seen = [
            nearby(target(other, Some("/ip4/127.0.0.1/tcp/7"))),
            Invitee {
                name: "Ivan".into(),
                ..nearby(target(ivo, Some("/ip4/127.0.0.1/tcp/8")))
            },
        ];
        let all = invitees(&friends, &seen);
        let rows: Vec<(PeerId, &str, bool, usize)> = all
            .iter()
            .map(|i| {
                (
                    i.target.peer,
                    i.name.as_str(),
                    i.friend,
                    i.target.addrs.len(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (hana, "Hana", true, 0),
                (ivo, "Ivo", true, 1),
                (other, "", false, 1)
            ]
        );
    }

    /// A discovery whose start waits until the test lets it go.
    struct Held(Mutex<std::sync::mpsc::Receiver<()>>);

    impl Discovery for Held {
        fn swarm_mdns(&self) -> bool {
            false
        }

        fn start(
            &self,
            _: &crate::platform::discovery::Announcement,
            _: crate::platform::discovery::NearbySink,
        ) -> Result<crate::platform::discovery::Discovering, crate::platform::PlatformError>
        {
            let _ = lock(&self.0).recv();
            Ok(crate::platform::discovery::Discovering::new(()))
        }
    }

    #[test]
    fn opening_the_inbox_waits_neither_for_its_node_nor_for_its_discovery() {
        let (release, held) = std::sync::mpsc::channel();
        let discovery = Arc::new(Held(Mutex::new(held)));
        let listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
        let keypair = Keypair::generate_ed25519();
        let (tx, started) = std::sync::mpsc::channel();
        let send = move |listens| tx.send(listens).unwrap();
        // On a thread of its own, so that a wait here fails the test
        // rather than hanging it.
        let (opened_tx, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = opened_tx.send(Inbox::open(keypair, listen, discovery, |_| {}, send));
        });
        let timeout = std::time::Duration::from_secs(10);
        let inbox = opened.recv_timeout(timeout).expect("open returns").unwrap();
        assert!(
            inbox.addrs().is_empty(),
            "not listening before it is announced"
        );
        release.send(()).unwrap();
        started.recv_timeout(timeout).unwrap().unwrap();
        assert!(!inbox.addrs().is_empty());
        assert_eq!(inbox.failed(), None);
    }

    #[test]
    fn an_inbox_that_cannot_listen_says_why_to_the_lists_asked_meanwhile() {
        // An address TCP cannot listen on.
        let listen = vec!["/ip4/127.0.0.1/udp/0".parse().unwrap()];
        let (tx, started) = std::sync::mpsc::channel();
        let send = move |listens| tx.send(listens).unwrap();
        let discovery = Arc::new(crate::platform::discovery::SwarmMdns::new(
            crate::platform::multicast::Multicast::new(crate::platform::multicast::NoLock),
        ));
        let inbox =
            Inbox::open(Keypair::generate_ed25519(), listen, discovery, |_| {}, send).unwrap();
        // Asked while the node starts (its request is then told by the
        // node's thread), or just after it failed (the list tells itself).
        let (changed_tx, changed) = std::sync::mpsc::channel();
        let list = super::super::nearby::NearbyRooms::open(&inbox, Vec::new(), move || {
            let _ = changed_tx.send(());
        });
        let timeout = std::time::Duration::from_secs(10);
        let failed = started.recv_timeout(timeout).unwrap().unwrap_err();
        changed.recv_timeout(timeout).unwrap();
        assert_eq!(list.failed(), Some(failed.clone()));
        assert_eq!(inbox.failed(), Some(failed));
        assert!(inbox.addrs().is_empty());
    }

    #[test]
    fn a_flood_of_phones_seen_keeps_the_list_bounded_and_the_phones_told_of_or_named() {
        let told = PeerId::random();
        let mut seen = Seen::new(&[(told, "/ip4/127.0.0.1/tcp/1".parse().unwrap())]);
        let named = PeerId::random();
        assert!(seen.take(named, true));
        assert!(seen.name(named, "Ivo".into()));
        for _ in 0..1_000 {
            assert!(seen.take(PeerId::random(), true));
        }
        assert_eq!(seen.phones().len(), seen::MAX_PHONES);
        assert_eq!(seen.phones()[0].target.peer, told);
        assert_eq!(seen.phones()[1].target.peer, named);
    }

    /// An inbox listening on loopback, its phone's id, and another phone.
    async fn an_inbox_and_another_phone() -> (Inbox, PeerId, Node) {
        let other = Node::start(Keypair::generate_ed25519(), Config::loopback())
            .await
            .unwrap();
        let keypair = Keypair::generate_ed25519();
        let me = keypair.public().to_peer_id();
        let discovery = Arc::new(crate::platform::discovery::SwarmMdns::new(
            crate::platform::multicast::Multicast::new(crate::platform::multicast::NoLock),
        ));
        let listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
        // (The node here has nothing to do while this waits.)
        let (inbox, listens) = Inbox::listening(keypair, listen, discovery);
        listens.unwrap();
        (inbox, me, other)
    }

    /// A phone accepting an invitation to a room its host has left (the
    /// host's player is on Home, its inbox open) is told at once that the
    /// room is closed, not left to wait and then hear that the host did
    /// not answer.
    #[tokio::test]
    async fn a_seat_asked_of_a_phone_on_home_is_refused_as_closed() {
        use crate::net::room::{LookupError, Refusal};
        let (inbox, me, mut guest) = an_inbox_and_another_phone().await;
        let ticket = Ticket::new(RoomId::from_bytes([1; 16]), me, inbox.addrs(), None).unwrap();
        let wait = Duration::from_secs(10);
        let asked = std::time::Instant::now();
        let answer = crate::net::room::join(&mut guest, &ticket, wait).await;
        assert!(
            matches!(answer, Err(LookupError::Refused(Refusal::Closed))),
            "{answer:?}"
        );
        assert!(asked.elapsed() < wait, "answered, not waited out");
    }

    /// A stopped inbox's node runs on for a decline not yet taken, but
    /// lets go at once of every other phone: one connected to the session
    /// that stopped it (the same identity) could send it the session's
    /// messages. The host here never answers (a socket nobody speaks on),
    /// so the inbox's node runs on for all of [`DECLINE_WAIT`].
    #[tokio::test]
    async fn a_stopped_inbox_stays_for_its_declines_alone() {
        let (inbox, me, mut other) = an_inbox_and_another_phone().await;
        let timeout = Duration::from_secs(10);
        // The inbox asks the other phone for its room (the nearby rooms
        // list; the other phone may be the room the player joins).
        let ask = vec![(other.peer_id(), other.listen_addrs()[0].clone())];
        let list = super::super::nearby::NearbyRooms::open(&inbox, ask, || {});
        let connected = async { while other.next().await != Event::Connected(me) {} };
        tokio::time::timeout(timeout, connected).await.unwrap();

        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let at = format!("/ip4/127.0.0.1/tcp/{}", silent.local_addr().unwrap().port());
        let host = PeerId::random();
        let ticket = Ticket::new(
            RoomId::from_bytes([1; 16]),
            host,
            [at.parse().unwrap()],
            None,
        );
        inbox.decline(Received {
            host,
            invitation: Invitation {
                ticket: ticket.unwrap(),
                from: "Hana".into(),
                listing: RoomOptions::default().table().listing(),
            },
        });
        drop(list);
        drop(inbox);
        let stopped = std::time::Instant::now();
        let let_go = async { while other.next().await != Event::Disconnected(me) {} };
        tokio::time::timeout(timeout, let_go).await.unwrap();
        // The inbox's node is still there, dialling the host.
        silent.set_nonblocking(true).unwrap();
        let deadline = std::time::Instant::now() + timeout;
        let mut dialled = loop {
            match silent.accept() {
                Ok((stream, _)) => break stream,
                Err(_) if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(e) => panic!("the host is never dialled: {e}"),
            }
        };
        // It hangs up when its node goes: not before the whole wait.
        dialled.set_nonblocking(false).unwrap();
        dialled
            .set_read_timeout(Some(DECLINE_WAIT + timeout))
            .unwrap();
        let hung_up = tokio::task::spawn_blocking(move || {
            let mut said = [0; 256];
            loop {
                match std::io::Read::read(&mut dialled, &mut said) {
                    Ok(0) => return std::time::Instant::now(),
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                    {
                        panic!("the inbox's node never let go of the host")
                    }
                    Err(_) => return std::time::Instant::now(),
                }
            }
        });
        let waited = hung_up.await.unwrap() - stopped;
        assert!(
            waited + Duration::from_millis(100) >= DECLINE_WAIT,
            "the inbox's node went {waited:?} after it stopped, before its decline's wait"
        );
    }

    /// Anyone on the Wi-Fi can ask who this phone is, as often as it
    /// likes: one that takes none of the answers is not sent more.
    #[tokio::test]
    async fn a_phone_asking_who_this_is_and_taking_nothing_is_not_answered_without_end() {
        let mut node = Node::start(Keypair::generate_ed25519(), Config::loopback())
            .await
            .unwrap();
        let (_tell, name) = watch::channel("Hana".to_string());
        let mut introductions = Introductions {
            name,
            askers: Vec::new(),
        };
        let stranger = PeerId::random();
        for _ in 0..1_000 {
            introductions.asked(&mut node, stranger);
        }
        assert_eq!(
            node.unacknowledged(stranger),
            crate::net::node::MAX_UNTAKEN_ANSWERS
        );
        node.drop_queued(stranger);
        introductions.asked(&mut node, stranger);
        assert_eq!(node.unacknowledged(stranger), 1, "answered again");
    }

    #[test]
    fn the_friends_list_is_the_statistics_players_but_this_phone() {
        let dir = tempfile::tempdir().unwrap();
        let (me, ana) = (PeerId::random(), PeerId::random());
        assert_eq!(friends(dir.path(), me).unwrap(), []);
        let player = |peer: PeerId, name: &str, outcome: &str| {
            format!(
                r#"{{"peer":"{peer}","name":"{name}","outcome":"{outcome}","dice":[1,2,3,4,5,6]}}"#
            )
        };
        let game = format!(
            r#"{{"game":"ab","rules":"classic","players":[{},{}]}}"#,
            player(me, "Hana", "won"),
            player(ana, "Ana", "lost")
        );
        std::fs::write(
            dir.path().join(crate::stats::store::FILE),
            format!("{game}\nnot json\n"),
        )
        .unwrap();
        assert_eq!(
            friends(dir.path(), me).unwrap(),
            [Invitee {
                target: target(ana, None),
                name: "Ana".into(),
                friend: true,
            }],
            "this phone's own player is no friend; a damaged line is skipped"
        );
    }

    #[test]
    fn the_phones_the_app_was_told_of_are_seen_from_the_start_and_stay() {
        let phone = (PeerId::random(), "/ip4/127.0.0.1/tcp/9".parse().unwrap());
        let mut seen = Seen::new(std::slice::from_ref(&phone));
        let told = [nearby(target(phone.0, Some("/ip4/127.0.0.1/tcp/9")))];
        assert_eq!(seen.phones(), told);
        let other = PeerId::random();
        assert!(seen.take(other, true));
        assert!(!seen.take(other, true), "found again, nothing new");
        assert!(seen.take(other, false));
        assert!(!seen.take(phone.0, false), "told of, it stays");
        assert_eq!(seen.phones(), told);
    }

    #[test]
    fn a_phone_seen_nearby_is_listed_under_the_name_it_says() {
        let (named, stranger) = (PeerId::random(), PeerId::random());
        let mut seen = Seen::default();
        assert!(seen.take(named, true));
        assert!(seen.name(named, "Hana".into()));
        assert!(
            !seen.name(named, "Hana".into()),
            "the same again: no change"
        );
        assert!(
            !seen.name(stranger, "Ivo".into()),
            "a phone not seen is not listed by saying a name"
        );
        assert_eq!(
            seen.phones(),
            [Invitee {
                name: "Hana".into(),
                ..nearby(target(named, None))
            }]
        );
        // Lost and found again, it has said nothing yet.
        assert!(seen.take(named, false));
        assert!(seen.take(named, true));
        assert_eq!(seen.phones()[0].name, "");
    }
}
