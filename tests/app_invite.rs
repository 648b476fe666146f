//! The host's invitations in the app, against `clovece invitations`
//! processes on loopback: the app's room screen opens its invite list, the
//! phones seen nearby are listed, and its Invite is the lobby's own
//! invitation; one phone declines (the list says so), the other accepts
//! and takes the room's free seat (the list then says it is in the room).
//! The list also shows the phones the platform's own discovery (Bonjour on
//! iOS) finds, through the room's node.

mod process;
mod ui_support;

use std::sync::Arc;

use clovece::app::Services;
use clovece::app::ui::{AppAdapter, InviteAdapter, Screen};
use clovece::platform::discovery::Nearby;
use libp2p::PeerId;
use process::{dirs, peer};
use slint::ComponentHandle;
use slint::platform::PointerEventButton;
use ui_support::{FakeBonjour, phone, pump_until, shows};

/// The end of a peer id, as the invite list names a phone without a name.
fn short(peer: PeerId) -> String {
    let id = peer.to_base58();
    id[id.len() - 6..].to_owned()
}

#[test]
fn the_app_invites_from_its_list_one_phone_declines_and_the_other_accepts_and_sits_down() {
    ui_support::on_ui_thread(invited_from_the_list);
}

fn invited_from_the_list() {
    let dirs = dirs(3);
    let mut declining = peer(dirs[1].path(), &["invitations", "--decline"]);
    let no = phone(&declining.wait_for("address: "));
    let mut accepting = peer(
        dirs[2].path(),
        &["invitations", "--accept", "--name", "Ivo"],
    );
    let yes = phone(&accepting.wait_for("address: "));

    // Both phones are "seen nearby" as mDNS would find them.
    let app = ui_support::app_on_loopback(dirs[0].path(), 5, vec![no.clone(), yes.clone()]);
    app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
    let window = app.window();
    window.show().unwrap();
    let find = |label: &str| ui_support::find(window, label);
    find("Host a room").mock_single_click(PointerEventButton::Left);
    find("3 players").mock_single_click(PointerEventButton::Left);
    find("Private room, by invitation only").mock_single_click(PointerEventButton::Left);
    find("Open the room").mock_single_click(PointerEventButton::Left);
    pump_until("the room is open", || {
        shows(window, "QR code to join the room")
    });

    find("Invite players").mock_single_click(PointerEventButton::Left);
    assert!(window.global::<InviteAdapter>().get_listing());
    let (no_row, yes_row) = (
        format!("Phone {}", short(no.0)),
        format!("Phone {}", short(yes.0)),
    );
    pump_until("both phones are listed", || {
        shows(window, &format!("Invite {no_row}")) && shows(window, &format!("Invite {yes_row}"))
    });
    find(&format!("Invite {no_row}")).mock_single_click(PointerEventButton::Left);
    assert!(declining.wait_for("invite: ").contains(" players 3 "));
    declining.wait_for("declined: ");
    pump_until("the list says the phone declined", || {
        shows(window, &format!("{no_row} declined"))
    });

    find(&format!("Invite {yes_row}")).mock_single_click(PointerEventButton::Left);
    let invite = accepting.wait_for("invite: ");
    assert!(invite.starts_with("from \"Player\" "), "{invite}");
    // The phone accepts at once: the list says it sits in the room, under
    // its nickname, and offers no other invitation.
    pump_until("the list says the phone is in the room", || {
        shows(window, "Ivo is in the room")
    });
    assert!(!shows(window, "Invite Ivo"));
    assert!(shows(window, &format!("{no_row} declined")));
    find("Close the invite list").mock_single_click(PointerEventButton::Left);
    pump_until("the invited phone is ready", || {
        shows(window, "Seat 2, Blue: Ivo, ready")
    });
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
}

#[test]
fn phones_the_platforms_discovery_finds_are_on_the_invite_list_until_they_are_lost() {
    ui_support::on_ui_thread(found_by_the_platforms_discovery);
}

/// The room's own node hears what the platform's discovery (Bonjour on
/// iOS) finds, and its finds are the list's: no other node of this phone
/// runs beside the room's.
fn found_by_the_platforms_discovery() {
    let dirs = dirs(1);
    let bonjour = Arc::new(FakeBonjour::default());
    let services = Services {
        discovery: bonjour.clone(),
        ..Services::desktop()
    };
    let app = ui_support::app_on(dirs[0].path(), 6, services);
    let window = app.window();
    window.show().unwrap();
    let find = |label: &str| ui_support::find(window, label);
    find("Host a room").mock_single_click(PointerEventButton::Left);
    find("Open the room").mock_single_click(PointerEventButton::Left);
    pump_until("the room is open", || {
        shows(window, "QR code to join the room")
    });
    // The room's node is what the discovery announces now.
    let me = bonjour.announced().expect("the room is announced").peer;
    assert!(app.invitable_at().is_empty(), "no inbox beside the room");
    find("Invite players").mock_single_click(PointerEventButton::Left);

    // A phone that does not answer (nothing listens there) is listed by
    // its id; one whose inbox runs says its player's nickname, which is
    // listed with its id, as it is only the phone's word.
    let iphone = PeerId::random();
    let row = format!("Invite Phone {}", short(iphone));
    bonjour.report(Nearby::Found {
        peer: iphone.to_string(),
        addrs: vec![format!("/ip4/127.0.0.1/tcp/9/p2p/{iphone}")],
    });
    let keypair = libp2p::identity::Keypair::generate_ed25519();
    let hana = keypair.public().to_peer_id();
    let inbox = ui_support::inbox(
        keypair,
        vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        Arc::new(FakeBonjour::default()),
    );
    bonjour.report(Nearby::Found {
        peer: hana.to_string(),
        addrs: inbox
            .addrs()
            .iter()
            .map(|a| format!("{a}/p2p/{hana}"))
            .collect(),
    });
    pump_until("the phone found is listed", || shows(window, &row));
    // Its player has chosen no nickname yet: it says none ("Player" would
    // name nobody), and is listed by its id until they choose one.
    let unnamed = format!("Invite Phone {}", short(hana));
    pump_until("the unnamed phone is listed", || shows(window, &unnamed));
    ui_support::pump(std::time::Duration::from_secs(1));
    assert!(shows(window, &unnamed), "no name said");
    inbox.rename(" Hana ");
    pump_until("the named phone is listed by its name", || {
        shows(window, "Invite Hana")
    });
    assert!(
        shows(window, &format!("Phone {}", short(hana))),
        "the named phone's id is shown beside its name"
    );
    // An invitation the phone took is on its screen; one to a phone that
    // does not answer waits for it.
    ui_support::find(window, "Invite Hana").mock_single_click(PointerEventButton::Left);
    pump_until("the invitation reached the phone", || {
        shows(window, "Hana is invited")
    });
    ui_support::find(window, &row).mock_single_click(PointerEventButton::Left);
    let waiting = format!("Phone {}: invitation waiting for the phone", short(iphone));
    pump_until("the invitation waits", || shows(window, &waiting));
    ui_support::pump(std::time::Duration::from_secs(1));
    assert!(shows(window, &waiting), "still waiting");
    assert_eq!(bonjour.announced().unwrap().peer, me, "announced once");
    bonjour.report(Nearby::Lost {
        peer: iphone.to_string(),
    });
    pump_until("the phone lost is not", || !shows(window, &row));
}
