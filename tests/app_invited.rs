//! The invited side in the app, against `clovece host --console` processes
//! on loopback: while Home is open the app hears an invitation, shows who
//! invites and to what; declining tells the host, accepting joins the
//! (private) room and opens its room screen, with the room's QR code.

mod process;
mod ui_support;

use clovece::app::ui::{AppAdapter, InviteAdapter, RoomAdapter, Screen};
use process::{dirs, peer, ticket};
use slint::ComponentHandle;
use slint::platform::PointerEventButton;
use ui_support::{pump_until, shows};

#[test]
fn an_invitation_is_declined_then_another_accepted_on_home_and_its_room_opens() {
    ui_support::init_threaded();
    let dirs = dirs(3);
    let app = ui_support::app(dirs[0].path(), 7);
    app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
    let window = app.window();
    window.show().unwrap();
    // Home listens for invitations as soon as it is open.
    assert!(shows(window, "Host a room"));
    let problem = window.global::<InviteAdapter>().get_problem();
    let address = app
        .invitable_at()
        .first()
        .unwrap_or_else(|| panic!("Home listens: {problem}"))
        .to_string();
    let id = address.rsplit('/').next().unwrap().to_owned();

    let mut first = peer(
        dirs[1].path(),
        &["host", "--players", "2", "--name", "Hana", "--console"],
    );
    ticket(&mut first);
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
    assert!(shows(window, "2 players · 30 s · Classic board · Classic"));
    ui_support::find(window, "Decline the invitation").mock_single_click(PointerEventButton::Left);
    assert!(!window.global::<InviteAdapter>().get_invited());
    assert_eq!(first.wait_for("declined: "), id);
    drop(first);

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
    assert!(shows(window, "3 players · 60 s · Sea board · Classic"));
    ui_support::find(window, "Accept the invitation").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
    pump_until("the guest sits in the private room", || {
        shows(window, "Seat 1: Ema (host)")
    });
    while !second.wait_for("seats: ").contains("Player") {}
    // The guest's room screen shows the room's QR code and code too.
    pump_until("the guest shows the QR code", || {
        shows(window, "QR code to join the room")
    });
    assert_eq!(window.global::<RoomAdapter>().get_code(), code.as_str());
}
