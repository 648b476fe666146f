//! Seats before the start, between `clovece` processes on loopback: the
//! host's start is refused until every guest is ready; the host reorders a
//! full room and the game seats players in the new order; the computer
//! takes an empty seat; a guest leaving before the start frees its seat;
//! a guest whose host goes before the start is told the room is gone; the
//! host removes a guest that never gets ready (from a private room, which
//! then takes a new ticket).

mod process;

use clovece::rules::Colour;
use process::{Proc, clovece, dirs, peer, private_room_with_ana, ticket};
use tempfile::TempDir;

/// A host of `players` organising the room from its console.
fn console_host(dir: &TempDir, players: &str) -> (Proc, String) {
    let mut host = peer(
        dir.path(),
        &["host", "--players", players, "--name", "Hana", "--console"],
    );
    let (ticket, _) = ticket(&mut host);
    (host, ticket)
}

/// Waits for the host's `seats:` line equal to `expected`.
fn seats(host: &mut Proc, expected: &str) {
    loop {
        let line = host.wait_for("seats: ");
        if line == expected {
            return;
        }
    }
}

fn colour(name: &str) -> Colour {
    Colour::ALL
        .into_iter()
        .find(|c| c.to_string() == name)
        .unwrap_or_else(|| panic!("no colour {name}"))
}

#[test]
fn start_is_refused_until_every_guest_is_ready() {
    let dirs = dirs(2);
    let (mut host, ticket) = console_host(&dirs[0], "2");
    seats(&mut host, r#"1 host "Hana" | 2 empty"#);
    // Ready only well after the host read the start typed below: the
    // guest's clock runs from its own start, and a loaded machine may
    // take seconds between the seat showing and the start being read.
    let mut guest = peer(
        dirs[1].path(),
        &["join", &ticket, "--name", "Ivo", "--ready-after", "10000"],
    );
    seats(&mut host, r#"1 host "Hana" | 2 "Ivo" not-ready"#);
    host.type_line("start");
    assert_eq!(
        host.wait_for("refused: "),
        r#"cannot start: not ready yet: "Ivo""#
    );
    assert_eq!(
        guest.wait_for("seats: "),
        r#"1 host "Hana" | 2 "Ivo" not-ready"#
    );
    seats(&mut host, r#"1 host "Hana" | 2 "Ivo" ready"#);
    host.type_line("start");
    let result = host.wait_for("result: ");
    assert_eq!(guest.wait_for("result: "), result);
}

#[test]
fn host_reorders_a_full_room_and_the_game_follows_the_order() {
    let dirs = dirs(3);
    let (mut host, ticket) = console_host(&dirs[0], "3");
    host.type_line("order 2 1 3");
    assert_eq!(
        host.wait_for("refused: "),
        "the players can be reordered only when the room is full"
    );
    let mut ana = peer(dirs[1].path(), &["join", &ticket, "--name", "Ana"]);
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" ready | 3 empty"#);
    let mut ivo = peer(dirs[2].path(), &["join", &ticket, "--name", "Ivo"]);
    seats(
        &mut host,
        r#"1 host "Hana" | 2 "Ana" ready | 3 "Ivo" ready"#,
    );
    host.type_line("order 3 1 2");
    seats(
        &mut host,
        r#"1 "Ivo" ready | 2 host "Hana" | 3 "Ana" ready"#,
    );
    host.type_line("start");
    let (ivo_seat, hana_seat, ana_seat) = (
        colour(&ivo.wait_for("seat: ")),
        colour(&host.wait_for("seat: ")),
        colour(&ana.wait_for("seat: ")),
    );
    assert!(
        ivo_seat.index() < hana_seat.index() && hana_seat.index() < ana_seat.index(),
        "clockwise Ivo, Hana, Ana: {ivo_seat} {hana_seat} {ana_seat}"
    );
    let result = host.wait_for("result: ");
    assert_eq!(ana.wait_for("result: "), result);
    assert_eq!(ivo.wait_for("result: "), result);
}

#[test]
fn the_computer_fills_an_empty_seat() {
    let dirs = dirs(2);
    let (mut host, ticket) = console_host(&dirs[0], "3");
    host.type_line("computer 1 easy");
    assert_eq!(
        host.wait_for("refused: "),
        "seat 1 is a player's; the computer only takes empty seats"
    );
    host.type_line("computer 2 easy");
    seats(&mut host, r#"1 host "Hana" | 2 computer easy | 3 empty"#);
    let mut guest = peer(dirs[1].path(), &["join", &ticket, "--name", "Ivo"]);
    seats(
        &mut host,
        r#"1 host "Hana" | 2 computer easy | 3 "Ivo" ready"#,
    );
    host.type_line("start");
    let (hana_seat, ivo_seat) = (
        colour(&host.wait_for("seat: ")),
        colour(&guest.wait_for("seat: ")),
    );
    assert_ne!(hana_seat, ivo_seat);
    let result = host.wait_for("result: ");
    assert_eq!(guest.wait_for("result: "), result);
}

#[test]
fn a_guest_leaving_before_the_start_frees_its_seat() {
    let dirs = dirs(3);
    let mut host = clovece(
        dirs[0].path(),
        &[
            "host",
            "--players",
            "2",
            "--name",
            "Hana",
            "--bot",
            "medium",
            "--linger",
            "20",
        ],
    );
    let (ticket, _) = ticket(&mut host);
    let first = peer(
        dirs[1].path(),
        &["join", &ticket, "--name", "Ana", "--ready-after", "60000"],
    );
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" not-ready"#);
    first.kill();
    seats(&mut host, r#"1 host "Hana" | 2 empty"#);
    let mut second = peer(dirs[2].path(), &["join", &ticket, "--name", "Ivo"]);
    let result = host.wait_for("result: ");
    assert_eq!(second.wait_for("result: "), result);
}

/// A guest that never gets ready would hold its seat for ever: the host
/// removes it (`remove 2`), it is told so and is not let in again, and
/// another phone takes the seat.
#[test]
fn the_host_removes_a_guest_that_never_gets_ready_and_another_takes_its_seat() {
    let dirs = dirs(3);
    let (mut host, ticket) = console_host(&dirs[0], "2");
    let never = ["join", &ticket, "--name", "Ana", "--ready-after", "600000"];
    let first = peer(dirs[1].path(), &never);
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" not-ready"#);
    host.type_line("remove 1");
    assert_eq!(
        host.wait_for("refused: "),
        "seat 1 has no guest's phone to remove"
    );
    host.type_line("remove 2");
    seats(&mut host, r#"1 host "Hana" | 2 empty"#);
    let said = first.failure();
    assert!(
        said.contains("the host removed this phone from the room"),
        "{said}"
    );
    let again = peer(dirs[1].path(), &never).failure();
    assert!(
        again.contains("the host removed this phone from the room"),
        "{again}"
    );
    let mut second = peer(dirs[2].path(), &["join", &ticket, "--name", "Ivo"]);
    seats(&mut host, r#"1 host "Hana" | 2 "Ivo" ready"#);
    host.type_line("start");
    let result = host.wait_for("result: ");
    assert_eq!(second.wait_for("result: "), result);
}

/// A private room takes a new secret when its host removes a phone: the
/// ticket that phone had (and the QR code it was made from) lets no phone
/// in under a new identity, which costs nothing to make; the host prints
/// the room's new ticket, which does; the guest who stayed plays on.
#[test]
fn a_private_room_takes_a_new_ticket_when_its_host_removes_a_phone() {
    let dirs = dirs(4);
    let (mut host, old, ana) = private_room_with_ana(dirs[0].path(), dirs[1].path());
    let mut ivo = peer(dirs[2].path(), &["join", &old, "--name", "Ivo"]);
    seats(
        &mut host,
        r#"1 host "Hana" | 2 "Ana" not-ready | 3 "Ivo" ready"#,
    );
    host.type_line("remove 2");
    let (new, _) = ticket(&mut host);
    assert_ne!(new, old, "a new ticket");
    let said = ana.failure();
    assert!(
        said.contains("the host removed this phone from the room"),
        "{said}"
    );
    let refused = peer(dirs[3].path(), &["join", &old, "--name", "Eva"]).failure();
    assert!(refused.contains("the room is private"), "{refused}");
    // The same phone again, with the new ticket: the refusal the host
    // queued for its first visit is not handed to this one.
    let mut eva = peer(dirs[3].path(), &["join", &new, "--name", "Eva"]);
    seats(
        &mut host,
        r#"1 host "Hana" | 2 "Eva" ready | 3 "Ivo" ready"#,
    );
    host.type_line("start");
    let result = host.wait_for("result: ");
    assert_eq!(ivo.wait_for("result: "), result);
    assert_eq!(eva.wait_for("result: "), result);
}

#[test]
fn a_guest_whose_link_drops_before_the_start_takes_its_seat_again() {
    let dirs = dirs(2);
    let (mut host, ticket) = console_host(&dirs[0], "2");
    let mut guest = peer(dirs[1].path(), &["join", &ticket, "--name", "Ana"]);
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" ready"#);
    // Silent long enough for the host to close the connection (no pings
    // for 6 s) and free the seat.
    guest.signal("STOP");
    seats(&mut host, r#"1 host "Hana" | 2 empty"#);
    guest.signal("CONT");
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" ready"#);
    host.type_line("start");
    let result = host.wait_for("result: ");
    assert_eq!(guest.wait_for("result: "), result);
}

#[test]
fn a_guest_whose_host_closes_the_room_before_the_start_is_told_the_room_is_gone() {
    let dirs = dirs(2);
    let (mut host, ticket) = console_host(&dirs[0], "3");
    let guest = peer(dirs[1].path(), &["join", &ticket, "--name", "Ana"]);
    seats(&mut host, r#"1 host "Hana" | 2 "Ana" ready | 3 empty"#);
    host.kill();
    let said = guest.failure();
    assert!(
        said.contains("the room's phone went away before the start"),
        "{said}"
    );
}

#[test]
fn the_game_survives_its_host_leaving_after_the_start() {
    let dirs = dirs(3);
    let mut host = peer(
        dirs[0].path(),
        &[
            "host",
            "--players",
            "3",
            "--name",
            "Hana",
            "--leave-after",
            "2",
        ],
    );
    let (ticket, _) = ticket(&mut host);
    let mut ana = peer(dirs[1].path(), &["join", &ticket, "--name", "Ana"]);
    let mut ivo = peer(dirs[2].path(), &["join", &ticket, "--name", "Ivo"]);
    host.wait_for("left: ");
    host.finish();
    let result = ana.wait_for("result: ");
    assert_eq!(ivo.wait_for("result: "), result);
}

/// A phone asking for a seat once the game has started (an invitation
/// accepted, or a QR code scanned, late) is told at once that the room is
/// closed, rather than left waiting to be told the host did not answer.
#[test]
fn a_phone_asking_for_a_seat_after_the_start_is_told_the_room_is_closed() {
    let dirs = dirs(3);
    let mut host = Proc::start(
        dirs[0].path(),
        &["host", "--players", "2", "--name", "Hana"],
        process::Hand::Bot,
        300,
    );
    let (ticket, _) = ticket(&mut host);
    let mut guest = Proc::start(dirs[1].path(), &["join", &ticket], process::Hand::Bot, 300);
    host.wait_for("seat: ");
    guest.wait_for("seat: ");
    let late = std::process::Command::new(process::BIN)
        .args([
            "join",
            &ticket,
            "--listen",
            "/ip4/127.0.0.1/tcp/0",
            "--data",
        ])
        .arg(dirs[2].path())
        .output()
        .unwrap();
    assert_eq!(late.status.code(), Some(2));
    let said = String::from_utf8_lossy(&late.stderr);
    assert!(said.contains("the host closed the room"), "{said}");
    // The game itself is not what this tests: both are killed as dropped.
    drop((host, guest));
}
