//! The nearby rooms screen: open rooms with free seats on this Wi-Fi, live,
//! with the lobby's three filters.
//!
//! While the screen is open the node of Home's invitation inbox
//! ([`Inbox`]) asks every phone its discovery names (those named before
//! the list opened too: a node names each phone once) for its room, into
//! the lobby's [`RoomList`](crate::lobby::nearby::RoomList), and goes on
//! hearing invitations. This phone runs that one node while the player
//! looks for a room, so whatever a host sends it (a room's answer, an
//! invitation) reaches the node that waits for it. Each change reaches
//! the UI thread through `upgrade_in_event_loop`. The list keeps every
//! room and the filters are applied when showing it, so that changing a
//! filter shows its rooms at once instead of waiting for the next answers.
//!
//! The phones come from the platform's discovery, which runs with the
//! inbox: libp2p's mDNS inside the node on desktops and Android (holding
//! Android's multicast lock), Bonjour on iOS, whose finds reach the node as
//! [`Sighting`]s; and from [`Browsing::ask`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard};

use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use slint::{ComponentHandle, ModelRc};
use tokio::sync::oneshot;

use super::invite::{Browse, Inbox};
use super::invite_adapter::{self, game_data};
use super::ui::{self, AppWindow, NearbyAdapter};
use crate::lobby::nearby::Room;
use crate::lobby::{Filter, Players, TurnTime};
use crate::net::room::Listing;
use crate::net::{Config, Sighting};
use crate::platform::discovery::Nearby;
use crate::protocol::Theme;

/// Where the app's nodes listen (Home's inbox, which keeps the nearby
/// list, and online play), and which phones the list asks besides those
/// discovery finds. libp2p's mDNS runs in a node (where the platform uses
/// it) unless every address is a loopback one, so tests on 127.0.0.1 stay
/// off the real network.
#[derive(Clone, Debug)]
pub struct Browsing {
    pub listen: Vec<Multiaddr>,
    pub ask: Vec<(PeerId, Multiaddr)>,
}

impl Default for Browsing {
    /// Every interface, any port, mDNS on: a phone on its Wi-Fi.
    fn default() -> Browsing {
        Browsing {
            listen: Config::default().listen,
            ask: Vec::new(),
        }
    }
}

/// What the inbox's node tells the UI: the rooms heard of, or why it
/// stopped.
#[derive(Debug, Default)]
struct Heard {
    rooms: Vec<Room>,
    failed: Option<String>,
}

/// The running list; dropping it stops the list (the inbox's node goes on
/// hearing invitations).
pub struct NearbyRooms {
    heard: Arc<Mutex<Heard>>,
    /// Dropped to stop the list.
    _stop: oneshot::Sender<()>,
}

impl NearbyRooms {
    /// Starts listing rooms on `inbox`'s node, asking the phones of `ask`
    /// besides those its discovery finds, calling `changed` (on the node's
    /// thread) after every change. The inbox hears the invitations
    /// meanwhile, as before: this phone runs the one node.
    pub fn open(
        inbox: &Inbox,
        ask: Vec<(PeerId, Multiaddr)>,
        changed: impl Fn() + Send + Sync + 'static,
    ) -> NearbyRooms {
        let heard = Arc::new(Mutex::new(Heard::default()));
        let changed = Arc::new(changed);
        let (stop, stopped) = oneshot::channel();
        let (on_list, on_fail) = (heard.clone(), heard.clone());
        let (list_changed, fail_changed) = (changed.clone(), changed);
        let request = Browse {
            ask,
            listed: Box::new(move |list| {
                lock(&on_list).rooms = list.rooms().cloned().collect();
                list_changed();
            }),
            failed: Box::new(move |why| {
                lock(&on_fail).failed = Some(why);
                fail_changed();
            }),
            stop: stopped,
        };
        if let Err(mut request) = inbox.browse(request) {
            let why = inbox.failed();
            (request.failed)(why.unwrap_or_else(|| "the network has stopped".into()));
        }
        NearbyRooms { heard, _stop: stop }
    }

    /// The rooms that pass `filter`, by code (a stable order on screen).
    pub fn rooms(&self, filter: &Filter) -> Vec<Room> {
        self.shown(filter).0
    }

    /// [`NearbyRooms::rooms`], and whether `filter` hides any other room:
    /// read at one time, so that the two agree.
    fn shown(&self, filter: &Filter) -> (Vec<Room>, bool) {
        let heard = lock(&self.heard);
        let mut rooms: Vec<Room> = heard
            .rooms
            .iter()
            .filter(|room| filter.matches(&room.listing))
            .cloned()
            .collect();
        rooms.sort_by_key(|room| room.ticket.code().to_string());
        let filtered_out = heard.rooms.len() > rooms.len();
        (rooms, filtered_out)
    }

    /// Why the list stopped, if it did.
    pub fn failed(&self) -> Option<String> {
        lock(&self.heard).failed.clone()
    }
}

fn lock(heard: &Mutex<Heard>) -> MutexGuard<'_, Heard> {
    heard.lock().unwrap_or_else(|p| p.into_inner())
}

/// A platform discovery's find as the list takes it: a peer id and
/// addresses that parse, each naming that peer (a hostile announcement
/// cannot point the list at another phone's id); `None` if nothing is left.
pub(super) fn sighting(nearby: Nearby) -> Option<Sighting> {
    match nearby {
        Nearby::Found { peer, addrs } => {
            let peer: PeerId = peer.parse().ok()?;
            let addrs: Vec<Multiaddr> = addrs
                .iter()
                .filter_map(|a| a.parse::<Multiaddr>().ok())
                .filter(|a| a.iter().last() == Some(Protocol::P2p(peer)))
                .collect();
            (!addrs.is_empty()).then_some(Sighting::Found { peer, addrs })
        }
        Nearby::Lost { peer } => peer.parse().ok().map(Sighting::Lost),
    }
}

/// The filter the screen's choices make: 0 is "any" for each; players 2–4,
/// turn 10/20/30/60 seconds, board 1 classic or 2 sea.
pub fn filter(players: i32, turn: i32, board: i32) -> Filter {
    Filter {
        players: u8::try_from(players).ok().and_then(Players::from_count),
        turn: turn.to_string().parse::<TurnTime>().ok(),
        board: match board {
            1 => Some(Theme::Classic),
            2 => Some(Theme::Sea),
            _ => None,
        },
    }
}

thread_local! {
    /// The room the player last chose from the list, with what the list
    /// showed of it, for the join that follows ([`chosen`]).
    static CHOSEN: RefCell<Option<(String, Listing)>> = const { RefCell::new(None) };
}

/// What the list showed of the room of `link`, if the player has just
/// chosen it there: the join is held to it. Taken once.
pub(super) fn chosen(link: &str) -> Option<Listing> {
    CHOSEN
        .with(|c| c.borrow_mut().take())
        .and_then(|(ticket, listing)| (ticket == link).then_some(listing))
}

/// Wires the nearby rooms screen: `open` starts the list, `close` stops it,
/// `refresh` shows it again (a filter changed, or the list did).
pub(super) fn connect(window: &AppWindow, ask: Vec<(PeerId, Multiaddr)>) {
    let adapter = window.global::<NearbyAdapter>();
    let list: Rc<RefCell<Option<NearbyRooms>>> = Rc::default();
    // The rooms on the screen: a room's answers can change, or stop,
    // between one refresh and the tap.
    let shown: Rc<RefCell<Vec<Room>>> = Rc::default();

    let (weak, open) = (window.as_weak(), list.clone());
    adapter.on_open(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<NearbyAdapter>();
        let ui = weak.clone();
        let changed = move || {
            // Fails only once the window is gone; then nobody is looking.
            let _ = ui.upgrade_in_event_loop(|w| w.global::<NearbyAdapter>().invoke_refresh());
        };
        match invite_adapter::nearby_rooms(&window, ask.clone(), changed) {
            Ok(rooms) => {
                *open.borrow_mut() = Some(rooms);
                adapter.set_problem(Default::default());
            }
            Err(problem) => adapter.set_problem(problem.into()),
        }
        adapter.invoke_refresh();
    });

    let close = list.clone();
    adapter.on_close(move || {
        close.borrow_mut().take();
    });

    let (weak, open, on_screen) = (window.as_weak(), list.clone(), shown.clone());
    adapter.on_join(move |ticket| {
        let Some(window) = weak.upgrade() else { return };
        let tapped = on_screen
            .borrow()
            .iter()
            .find(|room| room.ticket.to_string() == ticket.as_str())
            .map(|room| room.listing);
        // Not a row of the screen: nothing the player chose.
        let Some(listing) = tapped else { return };
        // The list closes as the room is joined: the session's node is
        // this phone then.
        open.borrow_mut().take();
        CHOSEN.with(|c| *c.borrow_mut() = Some((ticket.to_string(), listing)));
        window.global::<ui::AppAdapter>().invoke_join_room(ticket);
    });

    let weak = window.as_weak();
    adapter.on_refresh(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<NearbyAdapter>();
        let list = list.borrow();
        let Some(list) = list.as_ref() else {
            shown.borrow_mut().clear();
            adapter.set_rooms(ModelRc::default());
            adapter.set_filtered_out(false);
            return;
        };
        if let Some(problem) = list.failed() {
            adapter.set_problem(problem.into());
        }
        let filter = filter(
            adapter.get_players(),
            adapter.get_turn(),
            adapter.get_board(),
        );
        let (rooms, filtered_out) = list.shown(&filter);
        let rows: Vec<ui::RoomData> = rooms.iter().map(room_data).collect();
        *shown.borrow_mut() = rooms;
        adapter.set_filtered_out(filtered_out);
        super::rows::show(
            adapter.get_rooms(),
            rows,
            |room| room.ticket.clone(),
            |rows| adapter.set_rooms(rows),
        );
    });
}

fn room_data(room: &Room) -> ui::RoomData {
    ui::RoomData {
        code: room.ticket.code().to_string().into(),
        ticket: room.ticket.to_string().into(),
        host: room.host.as_deref().unwrap_or_default().into(),
        free: i32::from(room.free),
        ..game_data(&room.listing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::PlatformError;
    use crate::platform::discovery::SwarmMdns;
    use crate::platform::multicast::{Multicast, MulticastLock};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    #[test]
    fn a_room_chosen_in_the_list_holds_its_own_join_to_its_listing_once() {
        let listing = Listing {
            players: 3,
            rules: crate::rules::RuleSet::Matfyz,
            timer: crate::protocol::TurnTimer::Seconds20,
            theme: Theme::Sea,
            first: crate::rules::FirstPlayer::Random,
        };
        let choose = || CHOSEN.with(|c| *c.borrow_mut() = Some(("CLOVECE:A".into(), listing)));
        choose();
        assert_eq!(chosen("CLOVECE:B"), None, "another room's join");
        assert_eq!(chosen("CLOVECE:A"), None, "taken by the join before");
        choose();
        assert_eq!(chosen("CLOVECE:A"), Some(listing));
        assert_eq!(chosen("CLOVECE:A"), None, "a second join, typed");
    }

    #[test]
    fn any_is_no_filter_and_each_choice_filters_on_its_own() {
        assert_eq!(filter(0, 0, 0), Filter::default());
        assert_eq!(filter(3, 0, 0).players, Some(Players::Three));
        assert_eq!(filter(0, 60, 0).turn, Some(TurnTime::Sixty));
        assert_eq!(filter(0, 0, 2).board, Some(Theme::Sea));
        let all = filter(2, 10, 1);
        assert_eq!(
            all,
            Filter {
                players: Some(Players::Two),
                turn: Some(TurnTime::Ten),
                board: Some(Theme::Classic),
            }
        );
    }

    #[test]
    fn a_discovered_phone_is_taken_with_the_addresses_that_name_it() {
        let peer = PeerId::random();
        let good = format!("/ip4/192.168.1.9/tcp/4001/p2p/{peer}");
        let found = Nearby::Found {
            peer: peer.to_string(),
            addrs: vec![
                good.clone(),
                "/ip4/192.168.1.9/tcp/4001".into(),
                format!("/ip4/10.0.0.1/tcp/1/p2p/{}", PeerId::random()),
                "not an address".into(),
                format!("/ip4/999.1.1.1/tcp/1/p2p/{peer}"),
            ],
        };
        assert_eq!(
            sighting(found),
            Some(Sighting::Found {
                peer,
                addrs: vec![good.parse().unwrap()],
            })
        );
        let lost = Nearby::Lost {
            peer: peer.to_string(),
        };
        assert_eq!(sighting(lost), Some(Sighting::Lost(peer)));
    }

    #[test]
    fn a_hostile_discovery_find_is_dropped() {
        let peer = PeerId::random();
        let elsewhere = format!("/ip4/10.0.0.1/tcp/1/p2p/{}", PeerId::random());
        for found in [
            Nearby::Found {
                peer: "12D3KooWnot-a-peer".into(),
                addrs: vec![elsewhere.clone()],
            },
            Nearby::Found {
                peer: peer.to_string(),
                addrs: vec![elsewhere],
            },
            Nearby::Found {
                peer: peer.to_string(),
                addrs: Vec::new(),
            },
            Nearby::Lost { peer: "".into() },
            Nearby::Lost {
                peer: "\u{0}/p2p/".into(),
            },
        ] {
            assert_eq!(sighting(found.clone()), None, "{found:?}");
        }
    }

    #[test]
    fn impossible_choices_are_no_filter() {
        assert_eq!(filter(5, 45, 9), Filter::default());
        assert_eq!(filter(-1, -10, -1), Filter::default());
    }

    /// A multicast lock that says whether it is held.
    struct Flag(Arc<AtomicBool>);

    impl MulticastLock for Flag {
        fn acquire(&mut self) -> Result<(), PlatformError> {
            self.0.store(true, Ordering::SeqCst);
            Ok(())
        }

        fn release(&mut self) -> Result<(), PlatformError> {
            self.0.store(false, Ordering::SeqCst);
            Ok(())
        }
    }

    /// Home's inbox on loopback with a discovery over `lock`.
    fn inbox(lock: impl MulticastLock + 'static) -> (Inbox, Multicast) {
        let multicast = Multicast::new(lock);
        let mdns = SwarmMdns::new(multicast.clone());
        let listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
        let keypair = libp2p::identity::Keypair::generate_ed25519();
        let (inbox, listens) = Inbox::listening(keypair, listen, Arc::new(mdns));
        listens.expect("the inbox listens");
        (inbox, multicast)
    }

    #[test]
    fn the_list_takes_no_multicast_lock_of_its_own() {
        let held = Arc::new(AtomicBool::new(false));
        let (inbox, multicast) = inbox(Flag(held.clone()));
        assert!(held.load(Ordering::SeqCst), "the inbox holds it");
        let list = NearbyRooms::open(&inbox, Vec::new(), || {});
        assert_eq!(multicast.holds(), 1);
        assert!(list.rooms(&Filter::default()).is_empty());
        assert_eq!(list.failed(), None);
        drop(list);
        assert!(held.load(Ordering::SeqCst), "Home's inbox goes on");
        drop(inbox);
        assert!(!held.load(Ordering::SeqCst));
        assert_eq!(multicast.holds(), 0);
    }

    #[test]
    fn a_lock_that_cannot_be_taken_is_said_on_the_list() {
        struct Refused;
        impl MulticastLock for Refused {
            fn acquire(&mut self) -> Result<(), PlatformError> {
                Err(PlatformError::Multicast("no Wi-Fi".into()))
            }
            fn release(&mut self) -> Result<(), PlatformError> {
                Ok(())
            }
        }
        let (inbox, _) = inbox(Refused);
        let (tx, changed) = std::sync::mpsc::channel();
        let list = NearbyRooms::open(&inbox, Vec::new(), move || {
            let _ = tx.send(());
        });
        changed.recv_timeout(Duration::from_secs(10)).unwrap();
        let why = list.failed().expect("the list says why it finds nobody");
        assert!(why.contains("no Wi-Fi"), "{why}");
    }
}
