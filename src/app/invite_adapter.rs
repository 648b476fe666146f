//! Wires the invitations (`ui/invite.slint`, `InviteAdapter`) to their
//! controllers ([`super::invite`]): the host's invite list, whose Invite
//! is the lobby's invite command on the room's session, and the inbox
//! that runs while Home or the join screen is open, whose Accept joins
//! the room by the invitation's ticket and whose Decline tells the host.
//! The inbox stops while an online session runs (its node is this phone
//! then) and while an offline game is on screen (nobody can answer an
//! invitation there, and its discovery would keep Android's multicast
//! lock, which drains the battery); Home or the join screen starts it
//! again. The nodes' threads reach the window with
//! `upgrade_in_event_loop`.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use slint::ComponentHandle;

use super::invite::{self, Inbox, Invitee, Received, Seen};
use super::join::Entry;
use super::nearby::NearbyRooms;
use super::online::Part;
use super::online_adapter::{self, Online};
use super::room::{Invited, Room};
use super::statistics::rules_data;
use super::ui::{self, AppWindow, InviteAdapter};
use crate::net::game::Joining;
use crate::net::room::Listing;
use crate::protocol::Theme;

/// The invitations' side of the online state.
#[derive(Default)]
pub struct Invites {
    /// Hears invitations while Home or the join screen is open (no
    /// session runs).
    inbox: Option<Inbox>,
    /// The invitation shown, until it is answered.
    received: Option<Received>,
    /// The invitations the inbox's node heard that wait for the UI
    /// thread's wake-up ([`heard`]): declined with the one shown when Home
    /// is left before they are shown.
    heard: std::sync::Arc<invite::Newest>,
    /// The host's invite list: its friends, and the phones its room's node
    /// has seen.
    friends: Vec<Invitee>,
    pub(super) seen: Seen,
    /// The invite list as last shown: a tap's row is looked up here, as
    /// the phones seen change on the network's thread before the list on
    /// screen does.
    shown: RefCell<Vec<Invitee>>,
    /// Phones known besides those discovery finds (tests on loopback).
    known: Vec<(PeerId, Multiaddr)>,
}

impl Invites {
    /// Phones the invite list shows as seen nearby from the start.
    pub fn know(&mut self, phones: Vec<(PeerId, Multiaddr)>) {
        self.known = phones;
    }

    /// Where the inbox listens, each address ending in `/p2p/<peer id>`
    /// (what a host invites); empty while it does not run or its node has
    /// not started yet.
    pub fn addresses(&self, me: PeerId) -> Vec<Multiaddr> {
        self.inbox
            .iter()
            .flat_map(Inbox::addrs)
            .map(|a| a.with(Protocol::P2p(me)))
            .collect()
    }

    /// The invite list: friends, then the other phones seen nearby.
    fn invitees(&self) -> Vec<Invitee> {
        invite::invitees(&self.friends, self.seen.phones())
    }
}

thread_local! {
    /// The UI thread's online state, for the nodes' threads' wake-ups.
    static ONLINE: RefCell<Weak<RefCell<Online>>> = const { RefCell::new(Weak::new()) };
}

/// Runs `f` on the online state on the UI thread, from any thread.
fn later(
    window: &slint::Weak<AppWindow>,
    f: impl FnOnce(&AppWindow, &Rc<RefCell<Online>>) + Send + 'static,
) {
    // Fails only once the window is gone; then nobody is looking.
    let _ = window.upgrade_in_event_loop(move |window| {
        // The thread-local's borrow ends here, not with `f`.
        if let Some(online) = ONLINE.with(|o| o.borrow().upgrade()) {
            f(&window, &online);
        }
    });
}

/// Shows each invitation the inbox's node hears, over whatever screen the
/// player is on between games (the nearby rooms list's too, which runs on
/// that node).
pub(super) fn heard(
    window: slint::Weak<AppWindow>,
    newest: std::sync::Arc<invite::Newest>,
) -> impl Fn(Received) + Send + 'static {
    move |received| {
        if !newest.put(received) {
            return;
        }
        let newest = newest.clone();
        later(&window, move |window, online| {
            let Some((received, replaced)) = newest.take() else {
                return;
            };
            let mut s = online.borrow_mut();
            // Heard just after a session began (which stopped the node
            // that heard it, and declined what it had heard before): by
            // the session's end it would be stale.
            if s.session.is_some() {
                return;
            }
            let invites = &mut s.invites;
            // A newer invitation takes the place of those not answered,
            // which are declined (their hosts would show them as invited
            // for ever), unless it is the same one sent again.
            let declined: Vec<Received> = replaced
                .into_iter()
                .chain(invites.received.take())
                .filter(|old| !old.same_room(&received))
                .collect();
            invites.received = Some(received);
            if let Some(inbox) = &invites.inbox {
                for old in declined {
                    inbox.decline(old);
                }
            }
            show_invitation(window, &s);
        });
    }
}

/// Says on Home why the inbox's node could not start, once it knows; the
/// inbox is let go then, so that Home or the join screen tries again the
/// next time it opens.
fn listens(window: slint::Weak<AppWindow>) -> impl FnOnce(Result<(), String>) + Send + 'static {
    move |listens| {
        let Err(why) = listens else { return };
        later(&window, move |window, online| {
            let mut s = online.borrow_mut();
            // Not a newer inbox's (Home closed and opened again meanwhile).
            if s.invites
                .inbox
                .as_ref()
                .is_some_and(|inbox| inbox.failed().is_some())
            {
                s.invites.inbox = None;
                window
                    .global::<InviteAdapter>()
                    .set_inbox_problem(why.into());
            }
        });
    }
}

/// A session is starting, joining the room of `link` if given: the inbox
/// stops (the session's node is this phone now) and the invitations not
/// answered to other rooms are declined; the phones seen nearby are the
/// new node's to find.
pub fn session_begins(window: &AppWindow, invites: &mut Invites, link: Option<&str>) {
    let (code, host) = match link.map(Entry::read) {
        Some(Entry::Code(code)) => (Some(code), None),
        Some(Entry::Ticket(ticket)) => (Some(ticket.code()), Some(ticket.host())),
        _ => (None, None),
    };
    // Joining the room an invitation invites to answers it. So does
    // joining another room of its host: the inbox's node, staying for the
    // decline, would be connected to that host beside the session's node,
    // and could take what the host sends the session.
    leave_home(window, invites, |received| {
        Some(received.invitation.ticket.code()) == code || Some(received.host) == host
    });
    room_gone(window, invites);
    invites.seen = Seen::new(&invites.known);
}

/// The player chose another nickname (on Settings, or where a room is
/// joined): hosts that ask who this phone is are told it from now on.
pub fn renamed(invites: &Invites, name: &str) {
    if let Some(inbox) = &invites.inbox {
        inbox.rename(name);
    }
}

/// The host's room is gone (its session ended): its invite list closes.
pub fn room_gone(window: &AppWindow, invites: &mut Invites) {
    invites.shown.take();
    window.global::<InviteAdapter>().set_listing(false);
}

/// Home is left for a game (online or offline): the inbox stops until
/// Home or the join screen opens again, and the invitations not answered
/// (the one shown, and any heard whose wake-up has not come yet) are
/// declined (their hosts would show this phone as invited for ever),
/// which the inbox's node sends before it stops.
pub fn away_from_home(window: &AppWindow, invites: &mut Invites) {
    leave_home(window, invites, |_| false);
}

/// Stops the inbox, declining the invitation shown and those heard but not
/// shown yet, but the ones `answered`.
fn leave_home(window: &AppWindow, invites: &mut Invites, answered: impl Fn(&Received) -> bool) {
    let unanswered = invites.heard.unanswered(invites.received.take());
    if let Some(inbox) = &invites.inbox {
        for received in unanswered.into_iter().filter(|r| !answered(r)) {
            inbox.decline(received);
        }
    }
    invites.inbox = None;
    window.global::<InviteAdapter>().set_invited(false);
}

/// Keeps the nearby rooms list, asking the phones of `ask` besides those
/// found, on Home's inbox (opened now if it is not: the list runs on its
/// node, so that this phone runs one node while the player looks for a
/// room), calling `changed` after every change; or why it cannot.
pub fn nearby_rooms(
    window: &AppWindow,
    ask: Vec<(PeerId, Multiaddr)>,
    changed: impl Fn() + Send + Sync + 'static,
) -> Result<NearbyRooms, String> {
    let adapter = window.global::<InviteAdapter>();
    adapter.invoke_listen();
    let online = ONLINE.with(|o| o.borrow().upgrade());
    let online = online.ok_or("the app is closing")?;
    let s = online.borrow();
    match &s.invites.inbox {
        Some(inbox) => Ok(NearbyRooms::open(inbox, ask, changed)),
        // A session's node is this phone now: it lists no rooms.
        None if s.session.is_some() => Err("a game or room of this phone is on".into()),
        None => Err(adapter.get_inbox_problem().into()),
    }
}

/// Connects `InviteAdapter`; `name` gives the player's nickname.
pub fn connect(window: &AppWindow, online: &Rc<RefCell<Online>>, name: Rc<dyn Fn() -> String>) {
    ONLINE.with(|o| *o.borrow_mut() = Rc::downgrade(online));
    let adapter = window.global::<InviteAdapter>();

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_listen(move || {
        let Some(window) = weak.upgrade() else { return };
        let mut s = state.borrow_mut();
        // Not beside a session's node. A given-up session's may run on for
        // a while (until this player's turn signs the leave); Home listens
        // meanwhile (docs/lobby.md, "One identity, several nodes").
        if s.session.is_some() {
            return;
        }
        // Hosts nearby are told the nickname the player chose, if any (a
        // list of "Player"s would name nobody); it may have changed in
        // Settings since.
        let chosen = window.global::<ui::SettingsAdapter>().get_nickname();
        if let Some(inbox) = &s.invites.inbox {
            inbox.rename(&chosen);
            return;
        }
        let newest = std::sync::Arc::new(invite::Newest::default());
        let opened = online_adapter::identity(&s).and_then(|keypair| {
            Inbox::open(
                keypair,
                s.listen.clone(),
                s.discovery.clone(),
                heard(weak.clone(), newest.clone()),
                listens(weak.clone()),
            )
            .map_err(|e| e.to_string())
        });
        let adapter = window.global::<InviteAdapter>();
        match opened {
            Ok(inbox) => {
                inbox.rename(&chosen);
                s.invites.inbox = Some(inbox);
                s.invites.heard = newest;
                adapter.set_inbox_problem("".into());
            }
            Err(e) => adapter.set_inbox_problem(e.into()),
        }
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_accept(move || {
        let Some(window) = weak.upgrade() else { return };
        let received = state.borrow_mut().invites.received.take();
        if let Some(received) = received {
            let invitation = received.invitation;
            let joining = Joining::listed(invitation.ticket.to_string(), invitation.listing);
            online_adapter::begin(&window, &state, Part::Join(joining), name());
        }
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_decline(move || {
        let Some(window) = weak.upgrade() else { return };
        let mut s = state.borrow_mut();
        if let (Some(received), Some(inbox)) = (s.invites.received.take(), &s.invites.inbox) {
            inbox.decline(received);
        }
        show_invitation(&window, &s);
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_open_list(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<InviteAdapter>();
        let mut s = state.borrow_mut();
        // A damaged statistics file leaves the friends list empty; the
        // statistics screen says why.
        match online_adapter::identity(&s) {
            Ok(keypair) => {
                let me = keypair.public().to_peer_id();
                s.invites.friends = invite::friends(&s.data, me).unwrap_or_default();
                adapter.set_problem("".into());
            }
            Err(e) => adapter.set_problem(e.into()),
        }
        adapter.set_listing(true);
        show_invitees(&window, &s);
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_close_list(move || {
        state.borrow().invites.shown.take();
        if let Some(window) = weak.upgrade() {
            window.global::<InviteAdapter>().set_listing(false);
        }
    });

    let state = online.clone();
    adapter.on_invite(move |friend, index| {
        let s = state.borrow();
        let target = s
            .invites
            .shown
            .borrow()
            .iter()
            .filter(|i| i.friend == friend)
            .nth(usize::try_from(index).unwrap_or(usize::MAX))
            .map(|i| i.target.clone());
        let command = target.and_then(|t| s.room.as_ref()?.invite(t));
        if let (Some(command), Some(session)) = (command, &s.session) {
            session.command(command);
        }
    });
    // Home, the first screen, was made before these callbacks were set.
    adapter.invoke_listen();
}

/// Shows the invitation waiting for an answer, if any.
fn show_invitation(window: &AppWindow, s: &Online) {
    let adapter = window.global::<InviteAdapter>();
    let Some(received) = &s.invites.received else {
        adapter.set_invited(false);
        return;
    };
    let invitation = &received.invitation;
    let listing = &invitation.listing;
    // A friend is named as they played (the statistics), not as the
    // invitation says: any phone can give itself a friend's name.
    let friend = online_adapter::identity(s).ok().and_then(|keypair| {
        let me = keypair.public().to_peer_id();
        invite::friends(&s.data, me)
            .ok()?
            .into_iter()
            .find(|f| f.target.peer == received.host)
    });
    let from = friend.as_ref().map_or(&invitation.from, |f| &f.name);
    adapter.set_from(from.as_str().into());
    adapter.set_from_friend(friend.is_some());
    adapter.set_room(ui::RoomData {
        code: invitation.ticket.code().to_string().into(),
        ticket: invitation.ticket.to_string().into(),
        ..game_data(listing)
    });
    adapter.set_invited(true);
}

/// The game of `listing` as the screens show a room's (no code, ticket
/// or free seats).
pub(super) fn game_data(listing: &Listing) -> ui::RoomData {
    ui::RoomData {
        code: Default::default(),
        ticket: Default::default(),
        host: Default::default(),
        players: i32::from(listing.players),
        free: 0,
        turn: listing.timer.seconds().map_or(0, i32::from),
        board: board(listing.theme),
        rules: rules_data(Some(listing.rules)),
        first: super::online_adapter::first_index(listing.first),
    }
}

pub(super) fn board(theme: Theme) -> ui::BoardTheme {
    match theme {
        Theme::Classic => ui::BoardTheme::Classic,
        Theme::Sea => ui::BoardTheme::Sea,
    }
}

/// Fills the host's invite list, with what became of each invitation.
pub fn show_invitees(window: &AppWindow, s: &Online) {
    let adapter = window.global::<InviteAdapter>();
    if !adapter.get_listing() {
        return;
    }
    let row = |invitee: &Invitee| {
        let id = invitee.target.peer;
        let peer = id.to_base58();
        let room = s.room.as_ref();
        let seated = room.and_then(|r| r.seated(id));
        ui::InviteeData {
            // A phone in the room has the nickname it sits under, as the
            // seats show it; a friend, the statistics'.
            name: match seated {
                Some(name) if !invitee.friend => name.into(),
                _ => invitee.name.as_str().into(),
            },
            // The end of the id: the start is the same for every phone.
            peer: peer[peer.len().saturating_sub(6)..].into(),
            state: match (seated, room.and_then(|r| r.invited(id))) {
                (Some(_), _) => ui::InviteState::Seated,
                (None, None) => ui::InviteState::None,
                (None, Some(Invited::Waiting)) => ui::InviteState::Waiting,
                (None, Some(Invited::Reached)) => ui::InviteState::Sent,
                (None, Some(Invited::Declined)) => ui::InviteState::Declined,
            },
        }
    };
    adapter.set_full(s.room.as_ref().is_some_and(Room::full));
    adapter.set_computer_seated(s.room.as_ref().is_some_and(Room::computer_seated));
    let all = s.invites.invitees();
    let rows = |friend: bool| -> Vec<ui::InviteeData> {
        all.iter().filter(|i| i.friend == friend).map(row).collect()
    };
    let peer = |invitee: &ui::InviteeData| invitee.peer.clone();
    super::rows::show(adapter.get_friends(), rows(true), peer, |rows| {
        adapter.set_friends(rows)
    });
    super::rows::show(adapter.get_nearby(), rows(false), peer, |rows| {
        adapter.set_nearby(rows)
    });
    *s.invites.shown.borrow_mut() = all;
}
