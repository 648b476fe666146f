//! Announcing one of the app's network nodes through the platform's
//! [`Discovery`] once it listens ([`NodeAnnouncement`]): the online
//! session's and the invitation inbox's ([`super::invite::Inbox`], which
//! keeps the nearby rooms list too); each passes what the discovery finds
//! to its node.
//!
//! Where the platform's discovery is libp2p's mDNS inside the swarm
//! (desktops, Android), the node's own mDNS announces it already and the
//! discovery only holds Android's multicast lock, which a session holds
//! itself (so it announces nothing then) and the inbox takes this way;
//! where it runs outside the swarm (Bonjour on iOS) the node's mDNS is off
//! and only this announcement makes the phone findable.

use std::sync::{Arc, Mutex, MutexGuard};

use libp2p::{Multiaddr, PeerId};
use tokio::sync::mpsc;

use crate::net::Sighting;
use crate::platform::discovery::{Announcement, Discovering, Discovery, NearbySink};

/// `peer`'s node listening at `addrs`, as the platform's discovery
/// announces it (addresses without the `/p2p/<peer>` suffix).
pub(super) fn announcement<'a>(
    peer: PeerId,
    addrs: impl IntoIterator<Item = &'a Multiaddr>,
) -> Announcement {
    Announcement {
        peer: peer.to_string(),
        addrs: addrs.into_iter().map(ToString::to_string).collect(),
    }
}

/// Starts `discovery` announcing `me` (`what`, for the log), reporting the
/// phones it finds to `nearby`; or why it cannot. A discovery that cannot
/// start is logged, not fatal: the node still runs, and is reached by its
/// ticket or address.
fn start(
    discovery: &dyn Discovery,
    me: &Announcement,
    nearby: NearbySink,
    what: &str,
) -> Result<Discovering, String> {
    discovery
        .start(me, nearby)
        .map_err(|e| e.to_string())
        .inspect_err(|e| tracing::warn!("{what} not announced nearby: {e}"))
}

/// A sink that passes what the discovery finds to a node
/// ([`crate::net::Node::hear`]) through `found`, each find as a
/// [`Sighting`]; a hostile one is dropped.
pub(super) fn to_node(found: mpsc::UnboundedSender<Sighting>) -> NearbySink {
    Arc::new(move |nearby| {
        if let Some(sighting) = super::nearby::sighting(nearby) {
            // Fails only once the node is gone.
            let _ = found.send(sighting);
        }
    })
}

/// A node announced by the platform's discovery once it listens (its
/// addresses are known only then): the online session's (host, guest or
/// resumed game alike, as libp2p's mDNS would) and the invitation inbox's.
/// It is shared by its owner, which closes it when dropped, and the node's
/// network thread, which opens it when the node listens (the session's
/// also closes it when the game ends). Once closed it stays closed, so a
/// node that starts listening just as its owner is dropped is never
/// announced.
#[derive(Clone, Default)]
pub(super) struct NodeAnnouncement(Arc<Mutex<Announced>>);

#[derive(Default)]
enum Announced {
    #[default]
    Waiting,
    /// Kept only to be dropped: that stops the announcement.
    Running { _discovering: Discovering },
    /// The discovery could not start, for this reason.
    Unable(String),
    /// Nothing (more) to announce: the owner is gone or the game ended.
    Done,
}

impl NodeAnnouncement {
    /// The node (`me`) listens: `discovery` announces it and tells `found`
    /// what it finds (`what` names the node in the log).
    pub(super) fn open(
        &self,
        discovery: &dyn Discovery,
        me: &Announcement,
        found: NearbySink,
        what: &str,
    ) {
        if !matches!(*self.announced(), Announced::Waiting) {
            return;
        }
        // Started outside the lock (Bonjour waits for its worker, Android
        // takes a lock through JNI): the owner closing it on the UI thread
        // does not wait for that.
        let started = match start(discovery, me, found, what) {
            Ok(d) => Announced::Running { _discovering: d },
            Err(e) => Announced::Unable(e),
        };
        let mut announced = self.announced();
        // Closed meanwhile, it stays closed: what started stops, once the
        // lock is let go.
        let stopped = if matches!(*announced, Announced::Waiting) {
            std::mem::replace(&mut *announced, started)
        } else {
            started
        };
        drop(announced);
        drop(stopped);
    }

    /// Why the discovery could not start, if it could not: phones nearby
    /// go unseen.
    pub(super) fn unable(&self) -> Option<String> {
        match &*self.announced() {
            Announced::Unable(why) => Some(why.clone()),
            _ => None,
        }
    }

    /// The announcement stops now, for good.
    pub(super) fn close(&self) {
        let stopped = std::mem::replace(&mut *self.announced(), Announced::Done);
        // Outside the lock: stopping may wait a moment for the discovery.
        drop(stopped);
    }

    fn announced(&self) -> MutexGuard<'_, Announced> {
        // Each change is one assignment: a poisoned lock is consistent.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
