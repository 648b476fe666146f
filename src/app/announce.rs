//! Announcing one of the app's network nodes through the platform's
//! [`Discovery`], for the nodes that wait to be found: the host's room
//! ([`RoomAnnouncement`], kept by the online session) and the invitation
//! inbox ([`super::invite::Inbox`]). The nearby rooms list and the host's
//! invite list announce their node the same way while they look.
//!
//! Where the platform's discovery is libp2p's mDNS inside the swarm
//! (desktops, Android), the node's own mDNS announces it already; where it
//! runs outside the swarm (Bonjour on iOS) the node's mDNS is off and only
//! this announcement makes the phone findable.

use std::sync::{Arc, Mutex, MutexGuard};

use libp2p::{Multiaddr, PeerId};

use crate::net::ticket::Ticket;
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
/// phones it finds to `nearby`. A discovery that cannot start is logged,
/// not fatal: the node still runs, and is reached by its ticket or
/// address.
pub(super) fn start(
    discovery: &dyn Discovery,
    me: &Announcement,
    nearby: NearbySink,
    what: &str,
) -> Option<Discovering> {
    discovery
        .start(me, nearby)
        .inspect_err(|e| tracing::warn!("{what} not announced nearby: {e}"))
        .ok()
}

/// A sink for a node that only waits to be found: the phones the
/// discovery finds are not its business.
pub(super) fn unheard() -> NearbySink {
    Arc::new(|_| {})
}

/// The host's room as a platform discovery outside the swarm announces it,
/// shared by the online session, which closes it when dropped, and its
/// network thread, which opens it when the room opens (its addresses are
/// known only then) and closes it when the game ends. Once closed it stays
/// closed, so a room that opens just as its session is dropped is never
/// announced.
#[derive(Clone, Default)]
pub(super) struct RoomAnnouncement(Arc<Mutex<Room>>);

#[derive(Default)]
enum Room {
    #[default]
    Waiting,
    /// Kept only to be dropped: that stops the announcement.
    Announced { _discovering: Discovering },
    /// Nothing (more) to announce: the room closed, or the swarm's mDNS
    /// announces it, or the discovery could not start.
    Done,
}

impl RoomAnnouncement {
    /// The room of `ticket` is open: `discovery` announces its host at the
    /// ticket's addresses, unless the swarm's own mDNS does.
    pub(super) fn open(&self, discovery: &dyn Discovery, ticket: &Ticket) {
        let mut room = self.room();
        if !matches!(*room, Room::Waiting) {
            return;
        }
        *room = if discovery.swarm_mdns() {
            Room::Done
        } else {
            let me = announcement(ticket.host(), ticket.addrs());
            start(discovery, &me, unheard(), "the room")
                .map_or(Room::Done, |d| Room::Announced { _discovering: d })
        };
    }

    /// The room closed: its announcement stops now.
    pub(super) fn close(&self) {
        *self.room() = Room::Done;
    }

    fn room(&self) -> MutexGuard<'_, Room> {
        // Each change is one assignment: a poisoned lock is consistent.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
