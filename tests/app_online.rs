//! The app's online controllers without a window, over real sockets on
//! loopback: the app hosts a room and a `clovece join --bot` process or a
//! second app joins it; the apps' taps (through [`OnlineGame`]) play a
//! whole game, answering a Matfyz game's questions themselves, which both
//! phones end with the same result and record in their statistics; a
//! guest the host removes is told so.

mod online_support;
mod process;

use std::sync::mpsc;
use std::time::Duration;

use clovece::app::online::{Part, Place, Problem, Session, Update};
use clovece::app::online_game::OnlineGame;
use clovece::app::room::{self, Room};
use clovece::bot::Level;
use clovece::lobby::RoomOptions;
use clovece::lobby::options::Players;
use clovece::net::front::Action;
use clovece::net::game::Joining;
use clovece::net::room::SeatView;
use clovece::rules::{RuleSet, Seats};

use online_support::{Answered, ends_recorded_once, next, place, play, started, started_at};
use process::peer;

#[test]
fn the_apps_online_controller_hosts_and_plays_a_whole_game_against_a_bot_process() {
    let answered = hosts_and_plays_against_a_bot_process(
        RoomOptions {
            players: Players::Two,
            ..RoomOptions::default()
        },
        0,
    );
    assert_eq!(
        answered.plans + answered.recipients,
        0,
        "classic asks nothing"
    );
}

#[test]
fn a_matfyz_room_hosted_by_the_app_is_played_to_the_end_its_player_answering_the_questions() {
    // Three players: with two, a captured piece rarely has a choice of
    // recipient.
    let answered = hosts_and_plays_against_a_bot_process(
        RoomOptions {
            players: Players::Three,
            rules: RuleSet::Matfyz,
            ..RoomOptions::default()
        },
        0,
    );
    assert!(
        answered.plans + answered.recipients > 0,
        "no question answered: {answered:?}"
    );
}

#[test]
fn a_room_the_app_hosts_with_a_computer_seat_is_played_to_the_end() {
    hosts_and_plays_against_a_bot_process(
        RoomOptions {
            players: Players::Three,
            ..RoomOptions::default()
        },
        1,
    );
}

/// The app hosts a room with `options`, puts the computer in its last
/// `computers` seats, a `clovece join --bot` process takes each other
/// seat, the app's taps play the game to its end, all see the same winner
/// and the app records the game: the questions the app answered.
///
/// The app's phone holds its reveal for each computer roll for a moment
/// (`PACE` here, shorter than the app's), so that the player sees each of
/// the computer's turns: the game takes at least that much a computer roll.
fn hosts_and_plays_against_a_bot_process(options: RoomOptions, computers: usize) -> Answered {
    const PACE: Duration = Duration::from_millis(40);
    let app_dir = tempfile::tempdir().unwrap();
    let seats = usize::from(options.players.count());
    let paced = Place {
        computer_pace: PACE,
        ..place(app_dir.path(), "Hana")
    };
    let (session, updates) = started_at(Part::Host(options), paced);
    let mut room = Room::new(room::Part::Host);
    let ticket = loop {
        let update = next(&updates);
        room.apply(&update);
        if let Update::Opened { ticket, .. } = update {
            break ticket;
        }
    };
    for seat in seats - computers..seats {
        session.command(room.computer(seat, Some(Level::Easy)).unwrap());
    }
    let bot_dirs: Vec<_> = (1..seats - computers)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let mut guests: Vec<_> = bot_dirs
        .iter()
        .zip(["Ivo", "Jana", "Karel"])
        .map(|(dir, name)| peer(dir.path(), &["join", &ticket, "--name", name]))
        .collect();

    // Start only once the lobby says every guest is ready.
    let mut game: Option<OnlineGame> = None;
    let mut answered = Answered::default();
    let mut started = false;
    let mut began = None;
    let winner = loop {
        let update = next(&updates);
        room.apply(&update);
        match &update {
            Update::Seats { .. } if !started => {
                if let Some(start) = room.start() {
                    session.command(start);
                    started = true;
                }
            }
            Update::Log(_) => {
                began.get_or_insert_with(std::time::Instant::now);
                play(&mut game, &update, &session, &mut answered);
            }
            Update::Over { winner } => break *winner,
            Update::Ended(ended) => panic!("ended before the result: {ended:?}"),
            _ => {}
        }
    };
    assert!(started, "the host started the game");
    let game = game.expect("the game was shown");
    let took = began.expect("the game was shown").elapsed();
    let rolls = game
        .snapshot()
        .rolls
        .iter()
        .filter(|r| r.by_computer)
        .count();
    let paced = PACE * u32::try_from(rolls.saturating_sub(1)).unwrap();
    assert!(
        took >= paced,
        "{rolls} computer rolls in {took:?}, less than {PACE:?} each"
    );
    // The computer's seats are the last ones, where the host put it.
    let colours = Seats::for_players(options.players.count()).unwrap();
    for (seat, colour) in colours.iter().enumerate() {
        let computer = seat >= seats - computers;
        assert_eq!(game.computer(colour), computer, "{colour}");
    }
    let winner = winner.expect("a game has a winner");
    for guest in &mut guests {
        let seen_by_bot = guest.wait_for("result: ");
        assert!(
            seen_by_bot.starts_with(&format!("winner {winner} ")),
            "{seen_by_bot}"
        );
    }
    // The session lingers until the bots hold the end, then records it.
    ends_recorded_once(&updates, app_dir.path());
    for guest in guests {
        guest.finish();
    }
    answered
}

#[test]
fn a_host_leaving_its_room_tells_its_guest_at_once_and_ends_quietly() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let options = RoomOptions {
        players: Players::Three,
        ..RoomOptions::default()
    };
    let (host, updates) = started(Part::Host(options), dirs[0].path(), "Hana");
    let ticket = loop {
        if let Update::Opened { ticket, .. } = next(&updates) {
            break ticket;
        }
    };
    let guest = peer(dirs[1].path(), &["join", &ticket, "--name", "Ivo"]);
    loop {
        if let Update::Seats { seats, .. } = next(&updates)
            && seats.iter().any(|s| matches!(s, SeatView::Guest { .. }))
        {
            break;
        }
    }
    host.act(Action::LeaveRoom);
    let ended = loop {
        if let Update::Ended(ended) = next(&updates) {
            break ended;
        }
    };
    assert_eq!(ended, Ok(()));
    // Told, not left to find out (a guest whose host vanishes waits 10 s
    // for it, then says the host did not answer).
    let said = guest.failure();
    assert!(said.contains("the host closed the room"), "{said}");
}

/// A guest the host removes from its room (the console's `remove 2`; the
/// app's ✕ beside the guest) ends its session saying so, in words the
/// room screen translates.
#[test]
fn a_guest_the_host_removes_from_the_room_is_told_so() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut host = peer(
        dirs[0].path(),
        &["host", "--players", "2", "--name", "Hana", "--console"],
    );
    let (ticket, _) = process::ticket(&mut host);
    let (_guest, updates) = started(Part::Join(Joining::by(ticket)), dirs[1].path(), "Ivo");
    loop {
        if let Update::Seats { seats, .. } = next(&updates)
            && seats.iter().any(|s| matches!(s, SeatView::Guest { .. }))
        {
            break;
        }
    }
    host.type_line("remove 2");
    let ended = loop {
        if let Update::Ended(ended) = next(&updates) {
            break ended;
        }
    };
    assert_eq!(ended, Err(Problem::Removed));
}

/// A guest of a private room whose host removes another phone is told the
/// room's new ticket, so that the QR code its room screen shows still
/// lets a friend in (the removed phone's ticket no longer does).
#[test]
fn a_guest_of_a_private_room_is_told_its_new_ticket_when_another_phone_is_removed() {
    let dirs = [(); 3].map(|()| tempfile::tempdir().unwrap());
    let (mut host, old, _ana) = process::private_room_with_ana(dirs[0].path(), dirs[1].path());
    let (_guest, updates) = started(Part::Join(Joining::by(old.clone())), dirs[2].path(), "Ivo");
    loop {
        if let Update::Joined { ticket, .. } = next(&updates) {
            assert_eq!(ticket, old);
            break;
        }
    }
    while !host.wait_for("seats: ").contains("\"Ivo\"") {}
    host.type_line("remove 2");
    let (new, _) = process::ticket(&mut host);
    assert_ne!(new, old);
    loop {
        if let Update::Joined { ticket, .. } = next(&updates) {
            assert_eq!(ticket, new);
            break;
        }
    }
}

#[test]
fn two_apps_play_a_whole_game_the_guest_saying_ready_on_its_room_screen() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let (tx, updates) = mpsc::channel();
    let options = RoomOptions {
        players: Players::Two,
        ..RoomOptions::default()
    };
    let terms = options.table().listing();
    let to_host = tx.clone();
    let host = Session::start(
        Part::Host(options),
        place(dirs[0].path(), "Hana"),
        move |u| {
            let _ = to_host.send((0, u));
        },
    );
    let mut rooms = [Room::new(room::Part::Host), Room::new(room::Part::Guest)];
    let mut sessions = vec![host];
    let mut games: [Option<OnlineGame>; 2] = [None, None];
    let mut winners = [None, None];
    let mut ended = 0;
    while ended < 2 {
        let (who, update) = updates
            .recv_timeout(Duration::from_secs(60))
            .expect("an update within a minute");
        rooms[who].apply(&update);
        match &update {
            Update::Opened { ticket, .. } => {
                let to_guest = tx.clone();
                let link = Part::Join(Joining::by(ticket.clone()));
                sessions.push(Session::start(
                    link,
                    place(dirs[1].path(), "Ivo"),
                    move |u| {
                        let _ = to_guest.send((1, u));
                    },
                ));
            }
            // The guest is seated, not ready, and shown the game it is
            // asked to: it taps Ready.
            Update::Seats { .. } if who == 1 && !rooms[1].ready() => {
                assert_eq!(rooms[1].terms(), Some(&terms));
                let ready = rooms[1].toggle_ready().unwrap();
                sessions[1].act(ready);
            }
            Update::Seats { .. } if who == 0 => {
                assert_eq!(rooms[0].terms(), Some(&terms));
                if let Some(start) = rooms[0].start() {
                    sessions[0].command(start);
                }
            }
            Update::Log(_) => {
                play(
                    &mut games[who],
                    &update,
                    &sessions[who],
                    &mut Answered::default(),
                );
            }
            Update::Started { hosted, .. } => assert_eq!(*hosted, who == 0, "app {who}"),
            Update::Over { winner } => winners[who] = Some(*winner),
            Update::Ended(result) => {
                assert_eq!(result, &Ok(()), "app {who}");
                ended += 1;
            }
            _ => {}
        }
    }
    assert!(winners[0].is_some_and(|w| w.is_some()), "{winners:?}");
    assert_eq!(winners[0], winners[1], "both phones see the same end");
    for dir in &dirs {
        let stats = std::fs::read_to_string(dir.path().join("stats.jsonl")).unwrap();
        assert_eq!(stats.lines().count(), 1, "{stats}");
    }
}
