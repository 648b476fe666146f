//! The nearby rooms screen: open rooms with free seats on this Wi-Fi, live,
//! with the lobby's three filters.
//!
//! While the screen is open a network node runs on a tokio runtime on a
//! thread of its own, asking every phone it knows (found by mDNS, or named
//! in [`Browsing::ask`]) for its room, into the lobby's
//! [`RoomList`](crate::lobby::nearby::RoomList); each change reaches the UI
//! thread through `upgrade_in_event_loop`. The list keeps every room and
//! the filters are applied when showing it, so that changing a filter shows
//! its rooms at once instead of waiting for the next answers. The
//! platform's multicast lock is held only while the screen is open.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use libp2p::identity::Keypair;
use libp2p::{Multiaddr, PeerId};
use slint::{ComponentHandle, ModelRc, VecModel};
use tokio::sync::oneshot;

use super::statistics::rules_data;
use super::ui::{self, AppWindow, NearbyAdapter};
use crate::lobby::nearby::{ASK_EVERY, Room, RoomList};
use crate::lobby::{Filter, Players, TurnTime};
use crate::net::game::is_loopback;
use crate::net::room::{Frame, Lobby};
use crate::net::{Config, Event, NetError, Node};
use crate::platform::PlatformError;
use crate::platform::multicast::{Multicast, MulticastHold};
use crate::protocol::Theme;

/// Where the list's network node listens, and which phones it asks besides
/// those mDNS finds. mDNS runs unless every address is a loopback one (so
/// tests on 127.0.0.1 stay off the real network).
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

/// Why the list could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum NearbyError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    #[error("cannot start the network: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Net(#[from] NetError),
}

/// What the browsing thread tells the UI: the rooms heard of, or why it
/// stopped.
#[derive(Debug, Default)]
struct Heard {
    rooms: Vec<Room>,
    failed: Option<String>,
}

/// The running list; dropping it stops the node and gives up the multicast
/// hold.
pub struct NearbyRooms {
    heard: Arc<Mutex<Heard>>,
    /// Dropped to stop the browsing thread.
    _stop: oneshot::Sender<()>,
    _hold: MulticastHold,
}

impl NearbyRooms {
    /// Starts listing rooms as `keypair`'s phone, calling `changed` (on the
    /// browsing thread) after every change.
    pub fn open(
        keypair: Keypair,
        browsing: Browsing,
        multicast: &Multicast,
        changed: impl Fn() + Send + 'static,
    ) -> Result<NearbyRooms, NearbyError> {
        let hold = multicast.hold()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(NearbyError::Runtime)?;
        let heard = Arc::new(Mutex::new(Heard::default()));
        let (stop, stopped) = oneshot::channel();
        let shared = heard.clone();
        std::thread::Builder::new()
            .name("nearby rooms".into())
            .spawn(move || {
                let result =
                    runtime.block_on(browse(keypair, browsing, &shared, &changed, stopped));
                if let Err(e) = result {
                    lock(&shared).failed = Some(e.to_string());
                    changed();
                }
            })
            .map_err(NearbyError::Runtime)?;
        Ok(NearbyRooms {
            heard,
            _stop: stop,
            _hold: hold,
        })
    }

    /// The rooms that pass `filter`, by code (a stable order on screen).
    pub fn rooms(&self, filter: &Filter) -> Vec<Room> {
        let mut rooms: Vec<Room> = lock(&self.heard)
            .rooms
            .iter()
            .filter(|room| filter.matches(&room.listing))
            .cloned()
            .collect();
        rooms.sort_by_key(|room| room.ticket.code().to_string());
        rooms
    }

    /// Why the list stopped, if it did.
    pub fn failed(&self) -> Option<String> {
        lock(&self.heard).failed.clone()
    }
}

fn lock(heard: &Mutex<Heard>) -> MutexGuard<'_, Heard> {
    heard.lock().unwrap_or_else(|p| p.into_inner())
}

/// Keeps the list until `stop` is dropped. The same exchange as
/// `clovece rooms` (the lobby's `run`), which prints its changes instead.
async fn browse(
    keypair: Keypair,
    browsing: Browsing,
    heard: &Mutex<Heard>,
    changed: &impl Fn(),
    mut stop: oneshot::Receiver<()>,
) -> Result<(), NearbyError> {
    let config = Config {
        mdns: !browsing.listen.iter().all(is_loopback),
        listen: browsing.listen,
        ..Config::default()
    };
    let mut node = Node::start(keypair, config).await?;
    let mut known: Vec<PeerId> = Vec::new();
    for (peer, addr) in browsing.ask {
        node.add_addrs(peer, [addr]);
        known.push(peer);
    }
    let mut list = RoomList::default();
    let mut ask = tokio::time::interval(ASK_EVERY);
    loop {
        let changes = tokio::select! {
            _ = &mut stop => return Ok(()),
            _ = ask.tick() => {
                for &peer in &known {
                    // One question in flight per phone, as `clovece rooms`.
                    if node.unacknowledged(peer) == 0 {
                        node.dial(peer);
                        let _ = node.send(peer, Frame::Lobby(Lobby::Browse).encode());
                    }
                }
                list.expire(Instant::now())
            }
            event = node.next() => match event {
                Event::Discovered(peer) => {
                    if !known.contains(&peer) {
                        known.push(peer);
                    }
                    Vec::new()
                }
                Event::Expired(peer) | Event::Disconnected(peer) => list.lost(peer).into_iter().collect(),
                Event::Message { from, bytes } => match Frame::decode(&bytes) {
                    // A hostile or broken answer changes nothing.
                    Ok(Frame::Lobby(Lobby::Listed { ticket, listing, free })) => list
                        .heard(from, &ticket, listing, free, Instant::now())
                        .ok()
                        .flatten()
                        .into_iter()
                        .collect(),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
        };
        if !changes.is_empty() {
            lock(heard).rooms = list.rooms().cloned().collect();
            changed();
        }
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

/// The keypair the list asks with: the player's own (as `clovece rooms`).
type Identity = Box<dyn Fn() -> Result<Keypair, String>>;

/// Wires the nearby rooms screen: `open` starts the list, `close` stops it,
/// `refresh` shows it again (a filter changed, or the list did).
pub(super) fn connect(
    window: &AppWindow,
    identity: Identity,
    browsing: Browsing,
    multicast: Multicast,
) {
    let adapter = window.global::<NearbyAdapter>();
    let list: Rc<RefCell<Option<NearbyRooms>>> = Rc::default();

    let (weak, open) = (window.as_weak(), list.clone());
    adapter.on_open(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<NearbyAdapter>();
        let ui = weak.clone();
        let changed = move || {
            // Fails only once the window is gone; then nobody is looking.
            let _ = ui.upgrade_in_event_loop(|w| w.global::<NearbyAdapter>().invoke_refresh());
        };
        let started = identity().and_then(|keypair| {
            NearbyRooms::open(keypair, browsing.clone(), &multicast, changed)
                .map_err(|e| e.to_string())
        });
        match started {
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

    let weak = window.as_weak();
    adapter.on_refresh(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<NearbyAdapter>();
        let list = list.borrow();
        let Some(list) = list.as_ref() else {
            adapter.set_rooms(ModelRc::default());
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
        let rows: Vec<ui::RoomData> = list.rooms(&filter).iter().map(room_data).collect();
        adapter.set_rooms(ModelRc::new(VecModel::from(rows)));
    });
}

fn room_data(room: &Room) -> ui::RoomData {
    let listing = &room.listing;
    ui::RoomData {
        code: room.ticket.code().to_string().into(),
        ticket: room.ticket.to_string().into(),
        players: i32::from(listing.players),
        free: i32::from(room.free),
        turn: listing.timer.seconds().map_or(0, i32::from),
        board: match listing.theme {
            Theme::Classic => ui::BoardTheme::Classic,
            Theme::Sea => ui::BoardTheme::Sea,
        },
        rules: rules_data(Some(listing.rules)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::multicast::MulticastLock;
    use std::sync::atomic::{AtomicBool, Ordering};

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

    #[test]
    fn the_multicast_lock_is_held_only_while_the_list_is_open() {
        let held = Arc::new(AtomicBool::new(false));
        let multicast = Multicast::new(Flag(held.clone()));
        let browsing = Browsing {
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            ask: Vec::new(),
        };
        let list =
            NearbyRooms::open(Keypair::generate_ed25519(), browsing, &multicast, || {}).unwrap();
        assert!(held.load(Ordering::SeqCst));
        assert!(list.rooms(&Filter::default()).is_empty());
        drop(list);
        assert!(!held.load(Ordering::SeqCst));
        assert_eq!(multicast.holds(), 0);
    }

    #[test]
    fn a_lock_that_cannot_be_taken_keeps_the_list_closed() {
        struct Refused;
        impl MulticastLock for Refused {
            fn acquire(&mut self) -> Result<(), PlatformError> {
                Err(PlatformError::Multicast("no Wi-Fi".into()))
            }
            fn release(&mut self) -> Result<(), PlatformError> {
                Ok(())
            }
        }
        let opened = NearbyRooms::open(
            Keypair::generate_ed25519(),
            Browsing::default(),
            &Multicast::new(Refused),
            || {},
        );
        let Err(e) = opened else {
            panic!("opened without the lock")
        };
        assert!(e.to_string().contains("no Wi-Fi"), "{e}");
    }
}
