//! Resuming an online game in the app: the app's online controller,
//! dropped mid-game against a `clovece join --bot` process on loopback
//! (as when the app is killed), is offered the game on Home when it opens
//! again on the same data folder, resumes it from the saved log with the
//! players' nicknames, plays it to its end and records it once; the same
//! through the window, Resume pressed on Home, against a `clovece host`
//! that stays and against one that is gone (the computer takes its seat);
//! a game closed on its result or left mid-way is recorded and not offered
//! again, and lets go of the board and the invitations; a closed app's
//! session ends with it; a damaged saved game is said so on Home and can
//! be discarded; Home's Leave and Resume act on the game its card shows
//! alone, and on none while a session plays it.

mod online_support;
mod process;
mod ui_support;

use std::time::Duration;

use clovece::app::online::{Part, Update};
use clovece::app::resume::{self, Kept, Sitter};
use clovece::app::room::{self, Room};
use clovece::app::ui::{
    AppAdapter, AppWindow, GameAdapter, LeaveCost, ResumeAdapter, ResumeState, Screen,
};
use clovece::app::{App, Services};
use clovece::lobby::RoomOptions;
use clovece::lobby::options::Players;
use clovece::net::game::GAME_DIR;
use clovece::rules::Colour;
use clovece::stats::Outcome;
use i_slint_backend_testing::ElementQuery;
use online_support::{Answered, ends_recorded_once, next, play, recorded_once, started};
use process::peer;
use slint::platform::PointerEventButton;
use slint::{ComponentHandle, Model};
use ui_support::{pump_until, shows};

/// The first element whose label starts with `start`, if any.
fn label_starting(window: &AppWindow, start: &str) -> Option<String> {
    let start = start.to_owned();
    ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.starts_with(&start)))
        .find_first()
        .and_then(|e| e.accessible_label())
        .map(|l| l.to_string())
}

/// Whether the result lists a placing whose row ends with `end`
/// (", 4 home", ", left the game").
fn placed(window: &AppWindow, end: &str) -> bool {
    let end = end.to_owned();
    ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| {
            e.accessible_label()
                .is_some_and(|l| l.contains(". ") && l.ends_with(&end))
        })
        .find_first()
        .is_some()
}

#[test]
fn a_game_dropped_mid_way_is_offered_on_home_resumed_finished_and_recorded_once() {
    let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = RoomOptions {
        players: Players::Two,
        ..RoomOptions::default()
    };
    let (session, updates) = started(Part::Host(options), app_dir.path(), "Hana");
    let mut room = Room::new(room::Part::Host);
    let ticket = loop {
        if let Update::Opened { ticket, .. } = next(&updates) {
            break ticket;
        }
    };
    let mut bot = peer(bot_dir.path(), &["join", &ticket, "--name", "Ivo"]);

    // Six taps of this player, then the app is gone without a word.
    let mut game = None;
    let mut taps = 0;
    while taps < 6 {
        let update = next(&updates);
        room.apply(&update);
        match &update {
            Update::Seats { .. } => {
                if let Some(start) = room.start() {
                    session.command(start);
                }
            }
            Update::Log(_) => {
                taps += usize::from(play(&mut game, &update, &session, &mut Answered::default()))
            }
            Update::Over { .. } | Update::Ended(_) => panic!("over too soon: {update:?}"),
            _ => {}
        }
    }
    let games = session_folders(app_dir.path());
    drop(session);
    drop(updates);
    // Its network thread stops at its next await, and lets the game go.
    let dropped = std::time::Instant::now();
    while playing(&games) {
        assert!(
            dropped.elapsed() < Duration::from_secs(60),
            "the dropped session lets its game go"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    // The app opened again on the folder offers it (as the window tests
    // below show).
    let Some(Kept::Unfinished(kept)) = resume::kept(app_dir.path()) else {
        panic!("the game is kept to be resumed");
    };
    // The host sits in the first seat, the guest in the one across.
    assert_eq!(
        kept.seats,
        [
            (Colour::Red, Sitter::Player("Hana".into())),
            (Colour::Green, Sitter::Player("Ivo".into()))
        ]
    );
    let resumed = std::time::Instant::now();
    let (session, updates) = started(Part::Resume(kept.folder), app_dir.path(), "Hana");
    let mut game = None;
    let winner = loop {
        let update = next(&updates);
        match &update {
            Update::Started { names, hosted, .. } => {
                assert_eq!(names[Colour::Red.index()], "Hana");
                assert_eq!(names[Colour::Green.index()], "Ivo");
                assert!(hosted, "the resumed game is still this phone's room");
            }
            Update::Log(_) => {
                if game.is_none() {
                    eprintln!("board shown {:?} after resuming", resumed.elapsed());
                }
                play(&mut game, &update, &session, &mut Answered::default());
            }
            Update::Over { winner } => break *winner,
            Update::Ended(ended) => panic!("ended before the result: {ended:?}"),
            _ => {}
        }
    };
    let winner = winner.expect("a game has a winner");
    let seen_by_bot = bot.wait_for("result: ");
    assert!(
        seen_by_bot.starts_with(&format!("winner {winner} ")),
        "{seen_by_bot}"
    );
    ends_recorded_once(&updates, app_dir.path());
    let names = recorded_once(app_dir.path())
        .players
        .into_iter()
        .map(|p| p.name);
    assert_eq!(
        names.collect::<Vec<_>>(),
        ["Hana", "Ivo"],
        "named in the statistics"
    );
    bot.finish();
}

/// The app on the data folder `dir`, its window shown. Its games hold
/// each computer roll a twentieth of a second, not the app's 0.7 s
/// (`app_online` shows the pace): these games play a gone phone's seat to
/// the end.
fn shown_app(dir: &std::path::Path) -> App {
    let app = ui_support::app(dir, 1);
    app.pace_computer(Duration::from_millis(50));
    app.window().show().unwrap();
    app
}

/// The online games' session folders in the data folder `dir`.
fn session_folders(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let games = std::fs::read_dir(dir.join("games"));
    games
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect()
}

/// Whether this player's roll or move is due.
fn my_turn(window: &AppWindow) -> bool {
    let game = window.global::<GameAdapter>();
    game.get_can_roll() || (game.get_must_move() && !game.get_turn_computer())
}

/// Taps for this player when a roll or move is due (the die, or the first
/// piece that may move), and waits a little for the tap to be taken:
/// whether it tapped.
///
/// The wait keeps the callers from tapping again, every pump, while a roll
/// waits for the other phone's reveal: each tap searches the whole window,
/// and in a debug build those searches took most of this binary's time.
fn tap_turn(window: &AppWindow) -> bool {
    let game = window.global::<GameAdapter>();
    let due = || (game.get_rolls(), game.get_can_roll(), game.get_must_move());
    let before = due();
    if game.get_can_roll() {
        ui_support::find(window, "Die").mock_single_click(PointerEventButton::Left);
    } else if let Some(piece) = my_turn(window)
        .then(|| ui_support::enabled(window, "piece").into_iter().next())
        .flatten()
    {
        // The board's time runs only when a test moves it: let the last
        // move's slide end, as a player sees it end, or the tap meets the
        // piece still on its way.
        i_slint_backend_testing::mock_elapsed_time(Duration::from_millis(400));
        piece.mock_single_click(PointerEventButton::Left);
    } else {
        return false;
    }
    // Not an error when the tap is not taken at all (the game waits on a
    // phone that is gone): the caller decides what it waits for.
    let tapped = std::time::Instant::now();
    while due() == before && tapped.elapsed() < Duration::from_secs(2) {
        ui_support::pump(Duration::from_millis(20));
    }
    true
}

/// The app on `dir` joins the room of `ticket` through its window, says
/// ready, and taps at least `taps` times in the game that starts; then, on
/// its own roll, it is closed, as when it is killed mid-game.
///
/// Closing on its roll means the game, resumed, waits on this phone's roll
/// (which needs the host's reveal) when the host is found gone. Found gone
/// while its own roll is due, the host would count as having withheld that
/// roll, which costs it the game whoever wins (docs/protocol.md).
fn join_and_close_mid_game(dir: &std::path::Path, ticket: &str, taps: usize) {
    let app = shown_app(dir);
    let window = app.window();
    join(window, ticket);
    play_until_my_roll(window, taps);
    close(app, dir);
}

/// Closes `app` on the data folder `dir`, as when it is killed mid-game,
/// and waits until its network thread has stopped at its next await and
/// let its game go (a killed app's at once): until then Home passes the
/// game by, as one another window plays.
fn close(app: App, dir: &std::path::Path) {
    let games = session_folders(dir);
    drop(app);
    pump_until("the closed app's session lets its game go", || {
        !playing(&games)
    });
}

/// Whether a session still plays the game of one of `games` (folders).
fn playing(games: &[std::path::PathBuf]) -> bool {
    games
        .iter()
        .any(|f| clovece::protocol::Store::in_use(&f.join(clovece::net::game::GAME_DIR)))
}

/// The app on `dir` in a game hosted by Ivo's process on `bot` with the
/// shortest turn timer and grace period (10 s and 2 s, which the app
/// signs: it signs only the rules' 45 s otherwise), the host's own seat
/// acting after `pace_ms`; the app has tapped at least `taps` times, and
/// its roll is due: the app and the host.
fn in_a_game_of_short_waits(
    dir: &std::path::Path,
    bot: &std::path::Path,
    pace_ms: u64,
    taps: usize,
) -> (App, process::Proc) {
    let args = [
        "host",
        "--players",
        "2",
        "--name",
        "Ivo",
        "--grace",
        "2",
        "--turn",
        "10",
    ];
    let mut host = process::Proc::start(bot, &args, process::Hand::Bot, pace_ms);
    let (ticket, _) = process::ticket(&mut host);
    let app = shown_app(dir);
    app.agree_to_grace(2);
    join(app.window(), &ticket);
    play_until_my_roll(app.window(), taps);
    (app, host)
}

/// `window`'s app joins the room of `ticket`, says ready, and waits for
/// the game to start.
fn join(window: &AppWindow, ticket: &str) {
    window
        .global::<AppAdapter>()
        .invoke_join_room(ticket.into());
    pump_until("the room is joined", || {
        shows(window, "Seat 1, Red: Ivo (host)")
    });
    ui_support::find(window, "Ready").mock_single_click(PointerEventButton::Left);
    pump_until("the game starts", || {
        window.global::<AppAdapter>().get_screen() == Screen::Game
    });
}

/// Taps this player's turns in `window` at least `taps` times, until its
/// roll is due.
fn play_until_my_roll(window: &AppWindow, taps: usize) {
    let game = window.global::<GameAdapter>();
    for tapped in 0.. {
        pump_until("this player's turn", || my_turn(window));
        let (rolls, rolling) = (game.get_rolls(), game.get_can_roll());
        if tapped >= taps && rolling {
            return;
        }
        assert!(tap_turn(window), "a tap on this player's turn");
        // A roll is in the log only once the host's reveal is, and may
        // hand the turn on: the turn looked at next is the one after it.
        if rolling {
            pump_until("the roll", || game.get_rolls() != rolls);
        }
        ui_support::pump(Duration::from_millis(200));
    }
}

/// The app opened again on `dir` offers the kept game on Home with its
/// players' nicknames, and Resume, pressed, shows the board: the app.
fn resume_from_home(dir: &std::path::Path) -> App {
    let app = shown_app(dir);
    let window = app.window();
    ui_support::find(window, "Host a room");
    let offer = label_starting(window, "An online game is unfinished (last move just now)");
    assert!(offer.is_some(), "Home offers the game");
    assert!(shows(window, "Ivo (Red)"), "the host, by name");
    assert!(shows(window, "Player (Green)"), "this player, by name");
    ui_support::find(window, "Resume the game").mock_single_click(PointerEventButton::Left);
    pump_until("the board is shown", || {
        window.global::<AppAdapter>().get_screen() == Screen::Game
    });
    app
}

/// A two-player game kept in a new session folder of the data folder
/// `data`, as when the app was closed before its end: this app's player
/// (the identity in `data`) in green, against red. Games of another
/// `nonce` are other games. The folder.
fn kept_game(data: &std::path::Path, nonce: u8) -> std::path::PathBuf {
    use clovece::protocol::header::DEFAULT_ROLLS;
    use clovece::protocol::{DiceChain, DiceSecret, Header, Phone, Seat, SignedHeader, Signer};
    use clovece::rules::{HouseRules, RuleSet};

    let me = clovece::net::identity::load_or_create(data).unwrap();
    let red = libp2p::identity::Keypair::ed25519_from_bytes([1; 32]).unwrap();
    let signers = [&red, &me].map(|k| Signer::new(k).unwrap());
    let secret = || DiceSecret::from_bytes([9; 32]);
    let seat = |signer: &Signer| Seat::Player {
        key: signer.public(),
        commitment: DiceChain::new(&secret(), DEFAULT_ROLLS).commitment(),
    };
    let seats = [Some(seat(&signers[0])), None, Some(seat(&signers[1])), None];
    let header = Header::new([nonce; 32], RuleSet::Classic(HouseRules::default()), seats);
    let signed = SignedHeader::sign_all(header, &[&signers[0], &signers[1]]);
    // Session folders are named after the time they start.
    std::thread::sleep(Duration::from_millis(2));
    let folder = resume::new_folder(data);
    let dir = folder.join(GAME_DIR);
    std::fs::create_dir_all(&dir).unwrap();
    Phone::new(signed, &me, secret(), Some(&dir)).unwrap();
    folder
}

/// What Home asks before a kept game is left for two losses.
const LEAVE_COSTS: &str = "You leave an online game: it counts as two losses.";

/// Leaves the kept game Home's card shows, answering Home's question.
fn leave_on_card(window: &clovece::app::ui::AppWindow) {
    ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, LEAVE_COSTS));
    ui_support::find(window, "Leave").mock_single_click(PointerEventButton::Left);
}

/// A `clovece host` for two players named Ivo, on data folder `bot`, and
/// its room's ticket.
fn ivo_hosts(bot: &std::path::Path) -> (process::Proc, String) {
    let mut host = peer(bot, &["host", "--players", "2", "--name", "Ivo"]);
    let (ticket, _) = process::ticket(&mut host);
    (host, ticket)
}

/// A `clovece host` on `bot` and the app on `app` that joins its room and
/// plays their game to the result screen.
fn at_the_result(app: &std::path::Path, bot: &std::path::Path) -> (App, process::Proc) {
    let (host, ticket) = ivo_hosts(bot);
    let app = shown_app(app);
    join(app.window(), &ticket);
    play_to_the_result(app.window());
    (app, host)
}

/// This app's player's outcome in the one game recorded in `data`.
fn my_outcome(data: &std::path::Path) -> Outcome {
    let record = recorded_once(data);
    let me = record.players.iter().find(|p| p.name == "Player");
    me.expect("this player is recorded").outcome
}

/// Taps this player's turns in `window` until the result shows: a whole
/// game's rolls, each a round trip to the other phone, so longer than a
/// minute on a slow machine.
fn play_to_the_result(window: &AppWindow) {
    ui_support::pump_within(Duration::from_secs(180), "the result", || {
        tap_turn(window);
        window.global::<AppAdapter>().get_screen() == Screen::Result
    });
    // The game as it ended: the winner's four pieces home (they went back
    // to the bases with the end, and everyone had 0).
    assert!(
        placed(window, ", 4 home"),
        "the winner's pieces on the result"
    );
}

#[test]
fn resume_pressed_on_home_rejoins_the_game_by_name_plays_it_out_and_records_it_once() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (mut host, ticket) = ivo_hosts(bot_dir.path());
        join_and_close_mid_game(app_dir.path(), &ticket, 4);

        let app = resume_from_home(app_dir.path());
        let window = app.window();
        assert!(
            label_starting(window, "Ivo (Red), ").is_some(),
            "the seat list names the host"
        );
        play_to_the_result(window);
        // The fairness view follows this game: its two players, and every
        // roll of the log (a roll of the resumed game included).
        let fairness = window.global::<clovece::app::ui::FairnessAdapter>();
        assert_eq!(fairness.get_players().row_count(), 2);
        let rolls = window.global::<clovece::app::ui::GameAdapter>().get_rolls();
        assert!(rolls > 0);
        assert_eq!(fairness.get_history().row_count(), rolls as usize);
        let result = host.wait_for("result: ");
        // This phone's player is told they win.
        let said = if result.starts_with("winner red ") {
            "Ivo wins!"
        } else {
            "You win!"
        };
        assert!(shows(window, said), "the result says {said:?}: {result}");
        // Recorded, its session removes its folder (Home passes by a
        // game a session still has open).
        pump_until("the game is recorded", || {
            session_folders(app_dir.path()).is_empty()
        });
        let record = recorded_once(app_dir.path());
        assert!(record.players.iter().all(|p| p.outcome != Outcome::Dropped));
        host.finish();
    });
}

#[test]
fn an_app_the_system_killed_mid_game_reopens_the_game_from_its_bookmark() {
    use clovece::platform::Platform;
    use clovece::platform::lifecycle::Bookmark;

    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (host, ticket) = ivo_hosts(bot_dir.path());
        // The app, shown, with a handle on its life events.
        let app_with_life = || {
            let lifecycle = Platform::desktop().lifecycle;
            let services = Services {
                lifecycle: lifecycle.clone(),
                ..Services::desktop()
            };
            let app = ui_support::app_on(app_dir.path(), 1, services);
            app.window().show().unwrap();
            (app, lifecycle)
        };
        let saved = {
            let (app, lifecycle) = app_with_life();
            let window = app.window();
            assert_eq!(lifecycle.bookmark(), Bookmark::Home);
            window
                .global::<AppAdapter>()
                .invoke_join_room(ticket.as_str().into());
            pump_until("the room is joined", || {
                shows(window, "Seat 1, Red: Ivo (host)")
            });
            let Bookmark::Room {
                ticket: kept,
                store: Some(store),
            } = lifecycle.bookmark()
            else {
                panic!("the room and its game's folder are kept")
            };
            assert_eq!(kept, ticket);
            ui_support::find(window, "Ready").mock_single_click(PointerEventButton::Left);
            // The player switches apps: Android asks what to keep now,
            // and keeps it while the game starts and goes on.
            let saved = lifecycle.save();
            play_until_my_roll(window, 2);
            let folders = session_folders(app_dir.path());
            assert_eq!(folders[0].display().to_string(), store);
            assert_eq!(lifecycle.bookmark(), Bookmark::Game { store });
            // The system kills the app.
            saved
        };
        // Recreated, the app is handed the room's bookmark back and reopens
        // the game the room started, without a tap.
        let (app, lifecycle) = app_with_life();
        let window = app.window();
        lifecycle.restore(&saved);
        pump_until("the board is shown", || {
            window.global::<AppAdapter>().get_screen() == Screen::Game
        });
        assert!(label_starting(window, "Ivo (Red), ").is_some());
        ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Leave").mock_single_click(PointerEventButton::Left);
        assert_eq!(lifecycle.bookmark(), Bookmark::Home);
        host.finish();
    });
}

#[test]
fn a_resumed_game_whose_other_phone_is_gone_is_played_on_with_the_computer_in_its_seat() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (app, host) = in_a_game_of_short_waits(app_dir.path(), bot_dir.path(), 0, 4);
        drop(app);
        // The other phone is gone for good.
        host.kill();

        let app = resume_from_home(app_dir.path());
        let window = app.window();
        // Its chip counts down, and the panel says what for.
        pump_until("the host is marked as waited for", || {
            label_starting(window, "Ivo (Red), ").is_some_and(|l| l.contains(", waiting 0:"))
                && label_starting(
                    window,
                    "Ivo: the phone is silent — the computer plays for them in 0:0",
                )
                .is_some()
        });
        assert!(
            !window.global::<GameAdapter>().get_stranded(),
            "this phone may go on"
        );
        pump_until("the computer plays the host's seat", || {
            tap_turn(window);
            label_starting(window, "Ivo (Red, computer), ").is_some()
        });
        play_to_the_result(window);
        // Recorded, its session removes its folder (Home passes by a
        // game a session still has open).
        pump_until("the game is recorded", || {
            session_folders(app_dir.path()).is_empty()
        });
        let record = recorded_once(app_dir.path());
        let ivo = record.players.iter().find(|p| p.name == "Ivo").unwrap();
        assert_eq!(ivo.outcome, Outcome::Dropped);
    });
}

/// The other phone found this one gone (the app was killed on its
/// roll) and the computer took its seat; resumed, the app is told that
/// the computer plays for it until the turn passes, and then its player
/// plays their own turns again.
#[test]
fn a_phone_found_gone_and_resumed_is_told_it_is_back_and_plays_on_when_the_turn_passes() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        // The host's own seat takes 0.4 s an action, so that the game is
        // not over, the computer playing both seats, before the app is
        // back; it finds the closed phone gone 12 s after its roll is due.
        let (app, mut host) = in_a_game_of_short_waits(app_dir.path(), bot_dir.path(), 400, 2);
        close(app, app_dir.path());
        host.wait_for("away: green");

        let app = resume_from_home(app_dir.path());
        let window = app.window();
        let back = "You are back: the computer plays for you until the turn passes";
        pump_until("told that it is back", || shows(window, back));
        assert!(
            label_starting(window, "Player (Green, computer), ").is_some(),
            "the computer still plays its seat"
        );
        pump_until("its player's own turn again", || {
            !shows(window, back) && my_turn(window)
        });
        assert!(label_starting(window, "Player (Green), ").is_some());
        assert!(tap_turn(window), "the player plays their own turn");
        host.kill();
    });
}

#[test]
fn home_after_an_online_games_result_closes_it_for_the_next_game_and_invitations() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (host, ticket) = ivo_hosts(bot_dir.path());
        let app = shown_app(app_dir.path());
        let window = app.window();
        join(window, &ticket);
        let folders = session_folders(app_dir.path());
        assert_eq!(folders.len(), 1, "the game's session folder");
        play_to_the_result(window);
        // Its end is marked before the result shows: were the app killed
        // now, its next start would record the game, not offer it. (Its
        // session may have recorded and removed it already, once the
        // other phone held the end.)
        let folder = &folders[0];
        assert!(folder.join("ended").exists() || !folder.exists());
        ui_support::find(window, "Home").mock_single_click(PointerEventButton::Left);
        assert!(shows(window, "Host a room"), "Home");
        pump_until("Home listens for invitations", || {
            !app.invitable_at().is_empty()
        });
        pump_until("the game is recorded and removed", || {
            folders.iter().all(|f| !f.exists())
        });
        recorded_once(app_dir.path());

        // A game on this device takes this player's taps, not the closed
        // online game.
        ui_support::find(window, "Play against the computer")
            .mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Start").mock_single_click(PointerEventButton::Left);
        let game = window.global::<GameAdapter>();
        assert_eq!(game.get_rolls(), 0);
        ui_support::find(window, "Die").mock_single_click(PointerEventButton::Left);
        assert_eq!(game.get_rolls(), 1, "the die rolled in the new game");
        host.finish();
    });
}

#[test]
fn a_guest_is_not_offered_to_play_again_after_an_online_game() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (app, host) = at_the_result(app_dir.path(), bot_dir.path());
        let window = app.window();
        // The host opens the next room; a guest joins it as it joined
        // this one, from Home.
        assert!(!shows(window, "Play again"));
        assert!(!shows(window, "Host a new room"));
        assert!(shows(window, "Home"));
        host.finish();
    });
}

#[test]
fn a_game_left_mid_way_counts_as_a_leave_even_if_a_new_room_opens_before_its_turn() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        // The host takes two seconds over each of its actions, so the
        // leave waits for this player's next turn when the room opens.
        let host_args = ["host", "--players", "2", "--name", "Ivo"];
        let mut host = process::Proc::start(bot_dir.path(), &host_args, process::Hand::Bot, 2000);
        let (ticket, _) = process::ticket(&mut host);
        let app = shown_app(app_dir.path());
        let window = app.window();
        join(window, &ticket);
        play_until_my_roll(window, 2);
        let game = window.global::<GameAdapter>();
        pump_until("the host's turn", || {
            game.get_turn_name() == "Ivo" || !tap_turn(window)
        });
        pump_until("the host's turn", || game.get_turn_name() == "Ivo");
        let folders = session_folders(app_dir.path());
        assert_eq!(folders.len(), 1, "the game's folder");
        game.invoke_leave();
        ui_support::find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        pump_until("the left game is recorded and removed", || {
            !folders[0].exists()
        });
        assert_eq!(my_outcome(app_dir.path()), Outcome::Left);
        host.kill();
    });
}

/// Ivo hosts a room of two in `dir` and leaves the game after two of his
/// actions.
fn host_who_leaves(dir: &std::path::Path) -> process::Proc {
    let args = [
        "host",
        "--players",
        "2",
        "--name",
        "Ivo",
        "--leave-after",
        "2",
    ];
    peer(dir, &args)
}

/// Joins the room of `host` ([`host_who_leaves`]) and plays until he has
/// left: leaving then counts as this player's win.
fn play_until_left_alone(window: &AppWindow, host: &mut process::Proc) {
    let (ticket, _) = process::ticket(host);
    join(window, &ticket);
    let game = window.global::<GameAdapter>();
    ui_support::pump_within(Duration::from_secs(120), "the host's leave", || {
        game.get_leave_cost() == LeaveCost::Won || {
            tap_turn(window);
            false
        }
    });
}

#[test]
fn a_kept_game_everyone_else_left_is_offered_on_home_as_a_win_and_recorded_so() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut host = host_who_leaves(bot_dir.path());
        {
            let app = shown_app(app_dir.path());
            let window = app.window();
            play_until_left_alone(window, &mut host);
            host.wait_for("left: ");
            // The app is closed with the computer in the host's seat.
        }
        let app = shown_app(app_dir.path());
        let window = app.window();
        ui_support::find(window, "Host a room");
        assert!(
            shows(
                window,
                "Everyone else has left: the game counts as your win."
            ),
            "Home says what giving the game up counts as"
        );
        ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        // Recorded, its session removes its folder (Home passes by a
        // game a session still has open).
        pump_until("the game is recorded", || {
            session_folders(app_dir.path()).is_empty()
        });
        assert_eq!(my_outcome(app_dir.path()), Outcome::Won);
        host.finish();
    });
}

#[test]
fn leaving_a_game_everyone_else_left_shows_the_win_and_records_it() {
    ui_support::on_ui_thread(|| {
        let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut host = host_who_leaves(bot_dir.path());
        let app = shown_app(app_dir.path());
        let window = app.window();
        play_until_left_alone(window, &mut host);
        // Said on the board at once, as the computer plays the seat on.
        assert!(shows(
            window,
            "Everyone else has left: the game counts as your win."
        ));
        window.global::<GameAdapter>().invoke_leave();
        assert_eq!(
            window.global::<AppAdapter>().get_screen(),
            Screen::Result,
            "the win is shown, not Home"
        );
        assert!(shows(window, "You win!"));
        assert!(
            placed(window, ", left the game"),
            "the host's place says so"
        );
        ui_support::find(window, "Home").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        // Recorded, its session removes its folder (Home passes by a
        // game a session still has open).
        pump_until("the game is recorded", || {
            session_folders(app_dir.path()).is_empty()
        });
        assert_eq!(my_outcome(app_dir.path()), Outcome::Won);
        host.finish();
    });
}

/// This app (its data in `dirs[0]`) in a game of three with a grace of
/// 2 s, at another's turn; Ivo hosts it (`dirs[1]`) and Jana joins
/// (`dirs[2]`), each waiting three seconds before each action, so that
/// the game waits on one of them for that long once this player's turn
/// ends.
fn at_anothers_turn_among_three(dirs: &[tempfile::TempDir]) -> (App, process::Proc, process::Proc) {
    let host_args = [
        "host",
        "--players",
        "3",
        "--name",
        "Ivo",
        "--grace",
        "2",
        "--turn",
        "10",
    ];
    let paced = |dir: &std::path::Path, args: &[&str]| {
        process::Proc::start(dir, args, process::Hand::Bot, 3000)
    };
    let mut host = paced(dirs[1].path(), &host_args);
    let (ticket, _) = process::ticket(&mut host);
    let guest = ["join", &ticket, "--name", "Jana", "--grace", "2"];
    let other = paced(dirs[2].path(), &guest);
    let app = shown_app(dirs[0].path());
    app.agree_to_grace(2);
    let window = app.window();
    join(window, &ticket);
    play_until_my_roll(window, 1);
    let game = window.global::<GameAdapter>();
    let others_turn = || ["Ivo", "Jana"].contains(&game.get_turn_name().as_str());
    pump_until("another's turn", || others_turn() || !tap_turn(window));
    pump_until("another's turn", others_turn);
    (app, host, other)
}

/// The player leaves once both others are gone (no certificate can come,
/// and this player's turn, where a leave is signed, never comes again):
/// after the board showed the game stuck (`stuck_first`), or before. The
/// game is recorded (a drop, or a leave) and removed either way, not
/// played on unseen until the app closes.
/// Leaves a game of three whose other two phones are gone, the game
/// stranded first or not, the folder's given-up mark written or not
/// (`mark_fails`: a directory stands where it goes).
fn left_with_the_others_gone(stuck_first: bool, mark_fails: bool) {
    ui_support::on_ui_thread(move || {
        let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
        let (app, host, other) = at_anothers_turn_among_three(&dirs);
        let game = app.window().global::<GameAdapter>();
        host.kill();
        other.kill();
        if stuck_first {
            ui_support::pump_within(Duration::from_secs(120), "the game is stranded", || {
                game.get_stranded()
            });
        } else {
            assert!(!game.get_stranded(), "not stuck yet as the player leaves");
        }
        let folders = session_folders(dirs[0].path());
        if mark_fails {
            let blocked = folders[0].join("given-up");
            std::fs::create_dir_all(blocked.join("in-the-way")).unwrap();
        }
        game.invoke_leave();
        ui_support::pump_within(
            Duration::from_secs(120),
            "the left game is recorded and removed",
            || !folders[0].exists(),
        );
        // Left stranded, it is the drop it is on the others' phones (one
        // loss); left while it could go on, a leave (two).
        let left = if stuck_first {
            Outcome::Dropped
        } else {
            Outcome::Left
        };
        assert_eq!(my_outcome(dirs[0].path()), left);
    });
}

#[test]
fn a_stranded_game_left_is_recorded_as_a_drop_at_once() {
    left_with_the_others_gone(true, false);
}

/// The session knows how the game was given up: a mark it could not
/// write (the storage failing) does not turn the drop into a leave.
#[test]
fn a_stranded_game_left_is_a_drop_even_if_its_mark_cannot_be_written() {
    left_with_the_others_gone(true, true);
}

/// Left while the others still played, the game waits for this player's
/// turn to sign the leave in; the others gone before it comes, it gets
/// stuck, and its session, unseen, records it then.
#[test]
fn a_game_left_that_gets_stranded_afterwards_is_recorded_as_a_leave() {
    left_with_the_others_gone(false, false);
}

#[test]
fn a_game_whose_end_was_seen_is_recorded_with_its_result_on_the_next_start_not_offered() {
    ui_support::on_ui_thread(|| {
        let dirs = process::dirs(3);
        // Two processes play a game to its end; Ivo's saved game stands for
        // one whose result the app showed before it was closed or killed
        // while its session lingered at the end, before recording it.
        let mut host = peer(
            dirs[0].path(),
            &["host", "--players", "2", "--name", "Hana"],
        );
        let (link, _) = process::ticket(&mut host);
        let ivo = peer(dirs[1].path(), &["join", &link, "--name", "Ivo"]);
        host.wait_for("result: ");
        host.finish();
        ivo.finish();
        let data = dirs[2].path();
        let keep = |data: &std::path::Path| {
            let folder = resume::new_folder(data);
            let (from, to) = (dirs[1].path().join(GAME_DIR), folder.join(GAME_DIR));
            std::fs::create_dir_all(&to).unwrap();
            for file in std::fs::read_dir(&from).unwrap() {
                let file = file.unwrap();
                std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
            }
            folder
        };
        let folder = keep(data);
        // Unmarked, a kept game is one to resume.
        assert!(matches!(resume::kept(data), Some(Kept::Unfinished(_))));

        // Seen to its end and then left (the app killed before its session
        // recorded either), it is recorded with its result too.
        let other = tempfile::tempdir().unwrap();
        let left = keep(other.path());
        resume::mark_ended(&left).unwrap();
        resume::mark_given_up(&left, clovece::stats::GivenUp::OnPurpose).unwrap();
        assert!(resume::kept(other.path()).is_none());
        let record = recorded_once(other.path());
        let me = record.players.iter().find(|p| p.name == "Ivo").unwrap();
        assert!(
            matches!(me.outcome, Outcome::Won | Outcome::Lost),
            "{:?}",
            me.outcome
        );

        resume::mark_ended(&folder).unwrap();
        let app = shown_app(data);
        let window = app.window();
        ui_support::find(window, "Host a room");
        assert!(label_starting(window, "An online game is unfinished").is_none());
        assert!(!folder.exists());
        let record = recorded_once(data);
        let me = record.players.iter().find(|p| p.name == "Ivo").unwrap();
        assert!(
            matches!(me.outcome, Outcome::Won | Outcome::Lost),
            "its result, not a leave: {:?}",
            me.outcome
        );
    });
}

#[test]
fn a_closed_app_ends_its_online_session_and_its_invitation_inbox() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let services = Services::desktop();
        // Each session and the inbox hold the multicast lock while they run.
        let multicast = services.lifecycle.multicast();
        let app = ui_support::app_on(dir.path(), 1, services);
        let window = app.window();
        window.show().unwrap();
        ui_support::find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        assert_eq!(multicast.holds(), 1, "the room's session runs");
        drop(app);
        assert_eq!(multicast.holds(), 0, "nothing runs after the app");
    });
}

#[test]
fn a_damaged_kept_game_is_explained_on_home_and_discarded() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = resume::new_folder(dir.path());
        let game = folder.join(clovece::net::game::GAME_DIR);
        std::fs::create_dir_all(&game).unwrap();
        std::fs::write(game.join("secret"), b"not a secret").unwrap();
        std::fs::write(game.join("log"), b"not a log").unwrap();

        let app = ui_support::app(dir.path(), 1);
        let window = app.window();
        ui_support::find(window, "Host a room");
        let said = label_starting(window, "An online game cannot be resumed: ")
            .expect("Home says the kept game is damaged");
        assert!(said.contains("secret"), "{said}");
        assert!(label_starting(window, "Resume the game").is_none());
        ui_support::find(window, "Discard the unfinished game")
            .mock_single_click(PointerEventButton::Left);
        assert!(label_starting(window, "An online game").is_none());
        assert!(!folder.exists(), "the damaged game is gone");
    });
}

#[test]
fn homes_leave_and_resume_act_only_on_the_kept_game_the_card_shows() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let [oldest, older, newest] = [1, 2, 3].map(|n| kept_game(dir.path(), n));
        let app = shown_app(dir.path());
        let window = app.window();
        let card = window.global::<ResumeAdapter>();
        // Leave costs two losses: it is asked first, and the phone's Back
        // answers Stay.
        ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        assert!(shows(window, LEAVE_COSTS));
        ui_support::back(window);
        assert!(!shows(window, LEAVE_COSTS));
        assert!(newest.exists(), "Back left nothing");
        // A double tap on the answer, and a tap heard after the card went:
        // the newest game, which the card showed, is left, and no other.
        ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        let leave = ui_support::find(window, "Leave");
        leave.mock_single_click(PointerEventButton::Left);
        leave.mock_single_click(PointerEventButton::Left);
        card.invoke_discard();
        assert!(!newest.exists(), "the game the card showed is left");
        assert!(older.exists() && oldest.exists(), "no other game is left");
        assert!(!shows(window, "Leave game"), "the card went with its game");
        // Home, opened again, offers the next one; it goes before a tap.
        card.invoke_check();
        assert!(shows(window, "Leave game"));
        resume::discard(&older).unwrap();
        ui_support::find(window, "Resume the game").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        assert!(oldest.exists(), "not resumed in its place");
        // The card shows the oldest now; a newer game takes its place
        // before a tap.
        let newer = kept_game(dir.path(), 4);
        leave_on_card(window);
        assert!(oldest.exists() && newer.exists(), "neither is left");
        // The card shows the newer one now, and Leave leaves it.
        leave_on_card(window);
        assert!(!newer.exists() && oldest.exists());
        let stats = std::fs::read_to_string(dir.path().join("stats.jsonl")).unwrap();
        assert_eq!(stats.lines().count(), 2, "two games left: {stats}");
    });
}

/// A card that comes after Home opened (the game before ended its session
/// then) pushes Home's buttons down, under a finger aimed at one of them:
/// its own buttons take no tap for a moment.
#[test]
fn a_kept_games_card_that_comes_late_takes_no_tap_at_once() {
    use i_slint_backend_testing::mock_elapsed_time;

    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let app = shown_app(dir.path());
        let window = app.window();
        assert!(!shows(window, "Resume the game"));
        mock_elapsed_time(Duration::from_secs(2));
        let game = kept_game(dir.path(), 1);
        window.global::<ResumeAdapter>().invoke_check();
        let resume = ui_support::find(window, "Resume the game");
        resume.mock_single_click(PointerEventButton::Left);
        ui_support::find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        assert!(!shows(window, LEAVE_COSTS), "Leave took no tap");
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        assert!(game.exists());
        // A moment later the card's buttons act.
        mock_elapsed_time(Duration::from_millis(400));
        leave_on_card(window);
        assert!(!game.exists(), "left");
    });
}

#[test]
fn a_tap_on_a_kept_game_damaged_since_the_card_showed_it_shows_it_damaged() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = kept_game(dir.path(), 1);
        let app = shown_app(dir.path());
        let window = app.window();
        assert!(shows(window, "Resume the game"));
        let log = folder.join(clovece::net::game::GAME_DIR).join("log");
        std::fs::write(log, b"rubbish").unwrap();
        ui_support::find(window, "Resume the game").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        let card = window.global::<ResumeAdapter>();
        assert_eq!(card.get_state(), ResumeState::Damaged, "shown as it is");
        // Shown damaged, it is discarded unrecorded, as the card says.
        card.invoke_discard();
        assert!(!folder.exists());
        assert!(!dir.path().join("stats.jsonl").exists());
    });
}

/// Leave on the card cannot record the two losses (the statistics cannot
/// be written): the card shows the game damaged. Its Discard records the
/// leave first, so the game stays while the statistics still cannot be
/// written (a leave must not escape its losses by that), and is recorded
/// and removed once they can.
#[test]
fn a_leave_that_cannot_be_recorded_shows_the_game_damaged_until_it_can_be() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = kept_game(dir.path(), 1);
        // A folder where the statistics file goes: no write can replace it.
        let stats = dir.path().join("stats.jsonl");
        std::fs::create_dir(&stats).unwrap();
        let app = shown_app(dir.path());
        let window = app.window();
        leave_on_card(window);
        let card = window.global::<ResumeAdapter>();
        assert_eq!(card.get_state(), ResumeState::Damaged);
        assert!(folder.exists());
        card.invoke_discard();
        assert!(folder.exists(), "kept while its leave cannot be recorded");
        assert_eq!(card.get_state(), ResumeState::Damaged);
        std::fs::remove_dir(&stats).unwrap();
        card.invoke_discard();
        card.invoke_check();
        assert_eq!(card.get_state(), ResumeState::None);
        assert!(!folder.exists(), "recorded, then removed");
        let recorded = std::fs::read_to_string(&stats).unwrap();
        assert_eq!(recorded.lines().count(), 1, "{recorded}");
    });
}

#[test]
fn home_gives_up_no_game_while_a_session_plays_it() {
    ui_support::on_ui_thread(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = kept_game(dir.path(), 1);
        let app = shown_app(dir.path());
        let window = app.window();
        let find = |label: &str| ui_support::find(window, label);
        find("Resume the game").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        // Taps on the card heard behind Resume's.
        let card = window.global::<ResumeAdapter>();
        card.invoke_discard();
        card.invoke_resume();
        assert!(folder.exists(), "the resumed game is not given up");
        assert!(!dir.path().join("stats.jsonl").exists(), "nor recorded");
        close(app, dir.path());

        // The card shows the game while the player opens a room: taps on
        // the card heard behind that leave the game alone too (a session
        // runs, which may be playing it).
        let app = shown_app(dir.path());
        let window = app.window();
        let find = |label: &str| ui_support::find(window, label);
        assert!(shows(window, "Resume the game"));
        find("Host a room").mock_single_click(PointerEventButton::Left);
        find("Open the room").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        assert!(!shows(window, "Resuming the game…"), "a room, not a resume");
        let card = window.global::<ResumeAdapter>();
        card.invoke_discard();
        card.invoke_resume();
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        assert!(folder.exists(), "the kept game is not given up");
        assert!(!dir.path().join("stats.jsonl").exists(), "nor recorded");
        close(app, dir.path());
    });
}

/// The room screen left while a resumed game still loads: its session
/// stops, and once it has (its folder free again), Home offers the game
/// again, rather than passing it by as one another window plays.
#[test]
fn a_resume_called_off_while_it_loads_is_offered_again_once_its_session_stops() {
    ui_support::on_ui_thread(|| {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path(), 1);
        let app = shown_app(data.path());
        let window = app.window();
        let card = window.global::<ResumeAdapter>();
        assert_eq!(card.get_state(), ResumeState::Unfinished, "Home offers it");
        ui_support::find(window, "Resume the game").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        // The session has the game open; the event loop, not pumped, has
        // not shown it on the board yet.
        let open = std::time::Instant::now();
        while !clovece::protocol::Store::in_use(&folder.join(GAME_DIR)) {
            assert!(open.elapsed() < Duration::from_secs(30), "the game opens");
            std::thread::sleep(Duration::from_millis(5));
        }
        // It says what it does: there is no room, nothing to be ready for.
        assert!(shows(window, "Resuming the game…"));
        assert!(!shows(window, "Ready"));
        ui_support::find(window, "Back").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        pump_until("Home offers the game again", || {
            card.get_state() == ResumeState::Unfinished
        });
        assert!(folder.exists(), "kept, not given up");
    });
}
