//! The invited side in the app, against `clovece host --console` processes
//! on loopback: while Home (or a screen opened from it) is open the app
//! hears an invitation, shows who invites and to what; declining tells the host (as does a newer
//! invitation taking the place of one not answered), accepting joins the
//! (private) room and opens its room screen, with the room's QR code.
//! The inbox is announced through the platform's discovery (Bonjour on
//! iOS), and stops while an offline game is on.

mod process;
mod ui_support;

use std::sync::Arc;

use clovece::app::Services;
use clovece::app::nearby::Browsing;
use clovece::app::ui::{AppAdapter, GameAdapter, InviteAdapter, RoomAdapter, Screen, SetupAdapter};
use clovece::platform::camera::{
    Camera, CameraError, CameraSession, ErrorSink, FrameSink, NoCamera, NoPermissionNeeded,
};
use clovece::platform::discovery::SwarmMdns;
use clovece::platform::lifecycle::{Bookmark, Lifecycle};
use clovece::platform::multicast::{Multicast, NoLock};
use libp2p::identity::Keypair;
use process::{ask, dirs, peer, ticket};
use slint::ComponentHandle;
use slint::platform::PointerEventButton;
use ui_support::{FakeBonjour, pump_until, shows};

#[test]
fn an_invitation_is_declined_on_home_then_another_accepted_on_the_settings_and_its_room_opens() {
    ui_support::on_ui_thread(declined_then_accepted);
}

fn declined_then_accepted() {
    let dirs = dirs(3);
    let app = ui_support::app(dirs[0].path(), 7);
    app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
    let window = app.window();
    window.show().unwrap();
    // Home listens for invitations as soon as it is open.
    assert!(shows(window, "Host a room"));
    let address = inbox_address(&app);
    let id = address.rsplit('/').next().unwrap().to_owned();

    let (mut first, _, _) = hanas_room(dirs[1].path());
    let invited = std::time::Instant::now();
    first.type_line(&format!("invite {address}"));
    assert_eq!(first.wait_for("invited: "), id);
    pump_until("the invitation is shown", || {
        shows(window, "Hana invites you to a room")
    });
    eprintln!(
        "invitation shown {:?} after the host's invite",
        invited.elapsed()
    );
    assert!(shows(
        window,
        "2 players · 30 s · Classic board · rules: Classic · A random player begins"
    ));
    ui_support::find(window, "Decline the invitation").mock_single_click(PointerEventButton::Left);
    assert!(!window.global::<InviteAdapter>().get_invited());
    assert_eq!(first.wait_for("declined: "), id);
    // Invited again while looking at the settings (the inbox runs on the
    // screens opened from Home): shown there, not when Home opens again.
    ui_support::find(window, "Settings").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Settings);
    // Not answered before another host's invitation comes: that one takes
    // its place, and this one is declined (its host showed it as invited
    // for ever).
    first.type_line(&format!("invite {address}"));
    assert_eq!(first.wait_for("invited: "), id);
    pump_until("the invitation is shown again", || {
        shows(window, "Hana invites you to a room")
    });

    let mut second = peer(
        dirs[2].path(),
        &[
            "host",
            "--players",
            "3",
            "--turn",
            "60",
            "--board",
            "sea",
            "--first",
            "red",
            "--private",
            "--name",
            "Ema",
            "--console",
        ],
    );
    let (_, code) = ticket(&mut second);
    second.type_line(&format!("invite {address}"));
    assert_eq!(second.wait_for("invited: "), id);
    pump_until("the second invitation is shown", || {
        shows(window, "Ema invites you to a room")
    });
    // Who begins is the host's to choose, so the invitation says it.
    assert!(shows(
        window,
        "3 players · 60 s · Sea board · rules: Classic · Red begins"
    ));
    let declined = first.wait_for_within("declined: ", std::time::Duration::from_secs(10));
    assert_eq!(declined.map(|(_, peer)| peer), Some(id.clone()));
    drop(first);
    ui_support::find(window, "Accept the invitation").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
    pump_until("the guest sits in the private room", || {
        shows(window, "Seat 1, Red: Ema (host)")
    });
    while !second.wait_for("seats: ").contains("Player") {}
    // The guest's room screen shows the room's QR code too, and that the
    // room, private, takes friends by it alone.
    pump_until("the guest shows the QR code", || {
        shows(window, "QR code to join the room")
    });
    assert_eq!(window.global::<RoomAdapter>().get_code(), code.as_str());
    assert!(shows(
        window,
        "Private room: friends join with the QR code or the link"
    ));
}

/// Joining another room while an invitation is shown declines the
/// invitation (its host would show this phone as invited for ever): the
/// inbox's node sends the decline as it stops for the room's session.
#[test]
fn an_invitation_left_for_another_room_is_declined() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(3);
        let (app, mut hana, _, id) = invited_by_hana(dirs[0].path(), dirs[1].path());
        let window = app.window();
        let mut ema = peer(
            dirs[2].path(),
            &["host", "--players", "2", "--name", "Ema", "--console"],
        );
        let (other, _) = ticket(&mut ema);
        window
            .global::<AppAdapter>()
            .invoke_join_room(other.as_str().into());
        pump_until("the guest sits in Ema's room", || {
            shows(window, "Seat 1, Red: Ema (host)")
        });
        assert!(!window.global::<InviteAdapter>().get_invited());
        let declined = hana.wait_for_within("declined: ", std::time::Duration::from_secs(10));
        assert_eq!(declined.map(|(_, peer)| peer), Some(id));
    });
}

/// Joining the room of the invitation shown by its ticket or code (not
/// by Accept) answers the invitation: its host is not told it is declined.
#[test]
fn an_invitation_to_the_room_joined_is_not_declined() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(2);
        let (app, mut hana, hanas, _) = invited_by_hana(dirs[0].path(), dirs[1].path());
        let window = app.window();
        window
            .global::<AppAdapter>()
            .invoke_join_room(hanas.as_str().into());
        pump_until("the guest sits in Hana's room", || {
            shows(window, "Seat 1, Red: Hana (host)")
        });
        // Longer than a stopped inbox runs on for its declines.
        let declined = hana.wait_for_within("declined: ", std::time::Duration::from_secs(5));
        assert_eq!(declined, None);
    });
}

/// An app on data folder `data`, on loopback, showing the invitation to
/// Hana's room (`hanas_room` on `hanas`): the app, Hana's process, her
/// room's ticket, and the app's peer id.
fn invited_by_hana(
    data: &std::path::Path,
    hanas: &std::path::Path,
) -> (clovece::app::App, process::Proc, String, String) {
    let app = ui_support::app(data, 7);
    app.listen_on(loopback());
    let window = app.window();
    window.show().unwrap();
    let address = inbox_address(&app);
    let id = address.rsplit('/').next().unwrap().to_owned();
    let (mut hana, ticket, _) = hanas_room(hanas);
    hana.type_line(&format!("invite {address}"));
    assert_eq!(hana.wait_for("invited: "), id);
    pump_until("the invitation is shown", || {
        shows(app.window(), "Hana invites you to a room")
    });
    (app, hana, ticket, id)
}

/// A host that invites a player who is looking at the nearby rooms reaches
/// the player's identity over the connection the list made to ask it for
/// its room: Home's inbox, whose node keeps the list (the one node that
/// runs), hears the invitation, and the screen shows it; accepted there,
/// the room's session is the one node left running.
#[test]
fn an_invitation_reaches_the_player_looking_at_the_nearby_rooms() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(2);
        let (mut host, ticket, code) = hanas_room(dirs[1].path());
        let services = Services {
            browsing: Browsing {
                listen: loopback(),
                ask: vec![ui_support::phone(&ask(&ticket))],
            },
            ..Services::desktop()
        };
        // Home's inbox (with the list) and a session each hold the
        // multicast lock.
        let multicast = services.lifecycle.multicast();
        let app = ui_support::app_on(dirs[0].path(), 7, services);
        app.listen_on(loopback());
        let window = app.window();
        window.show().unwrap();
        let address = inbox_address(&app);
        let id = address.rsplit('/').next().unwrap().to_owned();
        ui_support::find(window, "Nearby rooms").mock_single_click(PointerEventButton::Left);
        let listed = format!("Room {code}: 1 of 2 seats free");
        pump_until("the list has asked the host", || {
            let listed = listed.clone();
            i_slint_backend_testing::ElementQuery::from_root(window)
                .match_descendants()
                .match_predicate(move |e| {
                    e.accessible_label().is_some_and(|l| l.starts_with(&listed))
                })
                .find_first()
                .is_some()
        });
        assert_eq!(multicast.holds(), 1, "the list runs on Home's inbox");

        let invite = |host: &mut process::Proc| {
            host.type_line(&format!("invite {address}"));
            assert_eq!(host.wait_for("invited: "), id);
            pump_until("the invitation is shown on the nearby screen", || {
                shows(window, "Hana invites you to a room")
            });
            assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Nearby);
        };
        invite(&mut host);
        // Declined there, the host hears it while the list goes on.
        ui_support::find(window, "Decline the invitation")
            .mock_single_click(PointerEventButton::Left);
        assert_eq!(host.wait_for("declined: "), id);
        invite(&mut host);
        // A phone this player never played with names itself.
        assert!(shows(window, STRANGER));

        // Accepted there, the invitation's room takes over: the list stops
        // with the inbox, and the room's session alone runs.
        ui_support::find(window, "Accept the invitation")
            .mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        assert_eq!(multicast.holds(), 1, "only the room's session runs");
    });
}

/// Where Home's inbox hears invitations (an address ending in the
/// phone's peer id), once it listens.
fn inbox_address(app: &clovece::app::App) -> String {
    pump_until("Home listens", || !app.invitable_at().is_empty());
    app.invitable_at()[0].to_string()
}

/// Hana's room of two, organised on her console (so that she invites with
/// `invite PEER`): her process, and the room's ticket and code.
fn hanas_room(data: &std::path::Path) -> (process::Proc, String, String) {
    let mut host = peer(
        data,
        &["host", "--players", "2", "--name", "Hana", "--console"],
    );
    let (ticket, code) = ticket(&mut host);
    (host, ticket, code)
}

/// What the invitation says of a host that is not among the friends.
const STRANGER: &str = "Not one of your friends: the name is not checked.";

/// A friend's invitation shows the name they played under, whatever name
/// the invitation gives: any phone can call itself a friend's name.
#[test]
fn a_friends_invitation_shows_the_name_they_played_under() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(2);
        let (mut host, ticket, _) = hanas_room(dirs[1].path());
        let (host_id, _) = ui_support::phone(&ask(&ticket));
        let played = |peer: String, name: &str| clovece::stats::Played {
            peer,
            name: name.to_owned(),
            outcome: clovece::stats::Outcome::Won,
            dice: [0; 6],
        };
        // A game this phone's player played with Hana.
        let me = clovece::net::identity::load_or_create(dirs[0].path())
            .unwrap()
            .public()
            .to_peer_id();
        let record = clovece::stats::Record {
            game: "00".repeat(32),
            rules: "classic".to_owned(),
            players: vec![
                played(me.to_base58(), "Player"),
                played(host_id.to_base58(), "Hana Nováková"),
            ],
        };
        clovece::stats::Store::new(dirs[0].path())
            .add(record)
            .unwrap();
        let app = ui_support::app(dirs[0].path(), 7);
        app.listen_on(loopback());
        let window = app.window();
        window.show().unwrap();
        let address = inbox_address(&app);
        host.type_line(&format!("invite {address}"));
        pump_until("the invitation is shown", || {
            shows(window, "Hana Nováková invites you to a room")
        });
        assert!(!shows(window, STRANGER));
    });
}

/// Listening on loopback only.
/// A camera that starts and stops, showing nothing.
struct Idle;

impl Camera for Idle {
    fn start(&mut self, _: FrameSink, _: ErrorSink) -> Result<(), CameraError> {
        Ok(())
    }
    fn stop(&mut self) {}
}

/// The invitation card shows over the scan screen too; accepted there, the
/// camera stops, so that it cannot join the next room code it sees.
#[test]
fn an_invitation_accepted_over_the_scan_screen_stops_the_camera() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(2);
        let multicast = Multicast::new(NoLock);
        let camera = CameraSession::new(Idle, NoPermissionNeeded);
        let lifecycle = Lifecycle::new(multicast.clone(), camera, Bookmark::Home);
        let services = Services {
            lifecycle: lifecycle.clone(),
            browsing: Browsing::default(),
            discovery: Arc::new(SwarmMdns::new(multicast)),
        };
        let app = ui_support::app_on(dirs[0].path(), 7, services);
        app.listen_on(loopback());
        let window = app.window();
        window.show().unwrap();
        assert!(shows(window, "Host a room"));
        let address = inbox_address(&app);
        ui_support::find(window, "Join a room").mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Scan a QR code").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Scan);
        assert!(lifecycle.with_camera(|c| c.is_running()));

        let (mut host, _, _) = hanas_room(dirs[1].path());
        host.type_line(&format!("invite {address}"));
        host.wait_for("invited: ");
        pump_until("the invitation is shown over the scan screen", || {
            shows(window, "Hana invites you to a room")
        });
        ui_support::find(window, "Accept the invitation")
            .mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        assert!(
            !lifecycle.with_camera(|c| c.is_running()),
            "the camera runs on in the room"
        );
    });
}

fn loopback() -> Vec<libp2p::Multiaddr> {
    vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]
}

#[test]
fn the_inbox_is_announced_through_the_platforms_discovery_until_it_stops() {
    let bonjour = Arc::new(FakeBonjour::default());
    let keypair = Keypair::generate_ed25519();
    let me = keypair.public().to_peer_id();
    let inbox = ui_support::inbox(keypair, loopback(), bonjour.clone());
    let announced = bonjour.announced().expect("the inbox is announced");
    assert_eq!(announced.peer, me.to_string());
    assert!(!inbox.addrs().is_empty());
    assert_eq!(
        announced.addrs,
        inbox
            .addrs()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    assert!(bonjour.running());
    drop(inbox);
    assert!(!bonjour.running(), "a stopped inbox is still announced");
}

#[test]
fn the_inbox_stops_while_an_offline_game_is_on_and_listens_again_on_home() {
    // The inbox's node tells the window when it cannot listen.
    ui_support::on_ui_thread(|| {
        let dirs = dirs(1);
        // Android's case: the inbox's discovery is the multicast lock's hold.
        let multicast = Multicast::new(NoLock);
        let services = Services {
            lifecycle: Lifecycle::new(
                multicast.clone(),
                CameraSession::new(NoCamera, NoPermissionNeeded),
                Bookmark::Home,
            ),
            browsing: Browsing::default(),
            discovery: Arc::new(SwarmMdns::new(multicast.clone())),
        };
        let app = ui_support::app_on(dirs[0].path(), 7, services);
        let window = app.window();
        window.show().unwrap();
        assert!(shows(window, "Host a room"));
        pump_until("Home listens", || !app.invitable_at().is_empty());
        assert_eq!(multicast.holds(), 1);

        window.global::<SetupAdapter>().invoke_start();
        // The game screen is drawn (Home's screen goes away).
        assert!(shows(window, "Leave game"));
        assert!(app.invitable_at().is_empty(), "the inbox runs in the game");
        assert_eq!(multicast.holds(), 0, "the offline game holds the lock");

        window.global::<GameAdapter>().invoke_leave();
        assert!(shows(window, "Host a room"));
        pump_until("Home listens again", || !app.invitable_at().is_empty());
        assert_eq!(multicast.holds(), 1);
        assert!(!shows_prefix(window, "Invitations cannot reach"));

        // An inbox that cannot listen says so on Home, and no more once it can.
        window.global::<SetupAdapter>().invoke_start();
        assert!(shows(window, "Leave game"));
        app.listen_on(vec!["/ip4/127.0.0.1/udp/0".parse().unwrap()]);
        window.global::<GameAdapter>().invoke_leave();
        assert!(shows(window, "Host a room"));
        pump_until("Home says why it hears no invitations", || {
            shows_prefix(window, "Invitations cannot reach this phone: ")
        });
        assert!(app.invitable_at().is_empty(), "no inbox");
        window.global::<SetupAdapter>().invoke_start();
        assert!(shows(window, "Leave game"));
        app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
        window.global::<GameAdapter>().invoke_leave();
        assert!(shows(window, "Host a room"));
        pump_until("Home listens again", || !app.invitable_at().is_empty());
        assert!(!shows_prefix(window, "Invitations cannot reach"));
    });
}

/// Whether a text starting with `start` is on screen.
fn shows_prefix(window: &clovece::app::ui::AppWindow, start: &str) -> bool {
    let start = start.to_owned();
    i_slint_backend_testing::ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.starts_with(&start)))
        .find_first()
        .is_some()
}

/// A phone at `address` asked who it is, by a host's node on its own
/// thread: the names it says, as they come (for 30 s).
fn asked_who(address: &str) -> std::sync::mpsc::Receiver<String> {
    use clovece::net::room::{Frame, Lobby};
    use clovece::net::{Config, Event, Node};
    let (phone, at) = ui_support::phone(address);
    let (tx, names) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let config = Config {
                listen: loopback(),
                mdns: false,
                ..Config::default()
            };
            let mut node = Node::start(Keypair::generate_ed25519(), config)
                .await
                .unwrap();
            node.add_addrs(phone, [at]);
            node.send(phone, Frame::Lobby(Lobby::WhoAreYou).encode())
                .unwrap();
            node.dial(phone);
            let said = async {
                loop {
                    if let Event::Message { from, bytes } = node.next().await
                        && from == phone
                        && let Ok(Frame::Lobby(Lobby::IAm { name })) = Frame::decode(&bytes)
                        && tx.send(name).is_err()
                    {
                        return;
                    }
                }
            };
            let _ = tokio::time::timeout(std::time::Duration::from_secs(30), said).await;
        });
    });
    names
}

/// A player without a nickname types one on the join screen (which asks
/// for it): a host that asked who the phone is learns it at once, not
/// when Home opens again.
#[test]
fn a_nickname_typed_on_the_join_screen_is_told_to_hosts_that_asked() {
    ui_support::on_ui_thread(|| {
        let dirs = dirs(1);
        let app = ui_support::app(dirs[0].path(), 7);
        app.listen_on(loopback());
        let window = app.window();
        window.show().unwrap();
        window.global::<AppAdapter>().set_screen(Screen::Join);
        let names = asked_who(&inbox_address(&app));
        // No nickname yet: none is said.
        ui_support::pump(std::time::Duration::from_secs(1));
        assert_eq!(names.try_recv().ok(), None);
        ui_support::text_field(window, "Nickname").set_accessible_value("Eva");
        let mut told = None;
        pump_until("the host is told the nickname", || {
            told = names.try_recv().ok();
            told.is_some()
        });
        assert_eq!(told.as_deref(), Some("Eva"));
    });
}
