//! Screenshot tests: the home screen and the board (both themes, a mid-game
//! position with a capture and pieces home) rendered by Slint's software
//! renderer and compared with the reference PNGs in `docs/screenshots/`
//! (which the README shows). Scattered small differences (anti-aliasing)
//! are tolerated: up to 1% of the pixels, and 15% of any 16×16 patch, so
//! that a piece's mark going missing fails. Another font or renderer
//! fails them (`.ci/run` installs the same DejaVu fonts).
//!
//! Regenerate the references on purpose with
//! `CLOVECE_UPDATE_SCREENSHOTS=1 cargo test --test ui_screenshots`.

mod ui_support;

use std::path::PathBuf;
use std::time::Duration;

use clovece::app::dice::Dice;
use clovece::app::geometry::Spot;
use clovece::app::offline::{OfflineGame, Player, Setup};
use clovece::app::ui::{AppWindow, BoardTheme, GameAdapter, SettingsAdapter};
use clovece::protocol::header::TurnTimer;
use clovece::rules::{Colour, Die, Game, HouseRules, Place, Seats, classic, matfyz};
use clovece::rules::{Next, RuleSet};
use i_slint_backend_testing::mock_elapsed_time;
use slint::platform::PointerEventButton;
use slint::{ComponentHandle, Model};

/// A pixel differs when one of its channels differs by more than this.
const CHANNEL_TOLERANCE: u8 = 40;
/// The share of pixels that may differ.
const PIXEL_TOLERANCE: f64 = 0.01;

const PHONE: (u32, u32) = (360, 740);
/// A small phone, less its status and navigation bars.
const SMALL_PHONE: (u32, u32) = (360, 600);

/// Renders `window` at `size` and compares it with `docs/screenshots/{name}.png`.
fn check(window: &AppWindow, size: (u32, u32), name: &str) {
    window.show().unwrap();
    window
        .window()
        .set_size(slint::PhysicalSize::new(size.0, size.1));
    // Let animations (the die's spin) finish.
    mock_elapsed_time(Duration::from_secs(2));
    let shot = window.window().take_snapshot().unwrap();
    let (width, height) = (shot.width(), shot.height());
    let pixels: Vec<u8> = shot.as_bytes().to_vec();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("docs/screenshots")
        .join(format!("{name}.png"));
    if std::env::var_os("CLOVECE_UPDATE_SCREENSHOTS").is_some() {
        write_png(&path, width, height, &pixels);
        return;
    }
    let (ref_width, ref_height, reference) = read_png(&path);
    assert_eq!(
        (width, height),
        (ref_width, ref_height),
        "{name}: size differs from the reference"
    );
    let differs: Vec<bool> = pixels
        .chunks(4)
        .zip(reference.chunks(4))
        .map(|(a, b)| {
            a.iter()
                .zip(b)
                .any(|(x, y)| x.abs_diff(*y) > CHANNEL_TOLERANCE)
        })
        .collect();
    let share = differs.iter().filter(|&&d| d).count() as f64 / f64::from(width * height);
    // A small thing missing (a piece's mark, a die's pips) is too few
    // pixels for the whole picture's share, but fills a patch of it.
    let patch = worst_patch(&differs, width as usize);
    if share > PIXEL_TOLERANCE || patch.1 > PATCH_TOLERANCE {
        let actual = std::env::temp_dir().join(format!("clovece-{name}-actual.png"));
        write_png(&actual, width, height, &pixels);
        panic!(
            "{name}: {:.2}% of the pixels differ from {}, {:.0}% of the {PATCH}×{PATCH} \
             patch at {:?} (this rendering: {}); set CLOVECE_UPDATE_SCREENSHOTS=1 to accept it",
            share * 100.0,
            path.display(),
            patch.1 * 100.0,
            patch.0,
            actual.display()
        );
    }
}

/// The side of the patches compared one by one, in pixels.
const PATCH: usize = 16;
/// The share of a patch's pixels that may differ: a piece's mark taken
/// off the board changes 21–80% of a patch, the same renderer none.
const PATCH_TOLERANCE: f64 = 0.15;

/// The patch (its top left corner) with the largest share of pixels that
/// differ, of `differs` (a picture `width` wide, row by row), and that share.
fn worst_patch(differs: &[bool], width: usize) -> ((usize, usize), f64) {
    let height = differs.len() / width;
    let mut worst = ((0, 0), 0.0);
    for top in (0..height).step_by(PATCH / 2) {
        for left in (0..width).step_by(PATCH / 2) {
            let (bottom, right) = ((top + PATCH).min(height), (left + PATCH).min(width));
            let count = (top..bottom)
                .flat_map(|y| &differs[y * width + left..y * width + right])
                .filter(|&&d| d)
                .count();
            let share = count as f64 / ((bottom - top) * (right - left)) as f64;
            if share > worst.1 {
                worst = ((left, top), share);
            }
        }
    }
    worst
}

fn write_png(path: &std::path::Path, width: u32, height: u32, rgba: &[u8]) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(rgba)
        .unwrap();
}

fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; set CLOVECE_UPDATE_SCREENSHOTS=1 to create it",
            path.display()
        )
    });
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Four players in mid-game: red has just captured a green piece, several
/// pieces are home, blue comes next.
fn mid_game() -> OfflineGame {
    let place = |s: &str| s.parse::<Place>().unwrap();
    let pieces: Vec<(Colour, Vec<Place>)> = [
        (Colour::Red, ["H4", "H3", "T17", "B"]),
        (Colour::Blue, ["H4", "T33", "T5", "B"]),
        (Colour::Green, ["T21", "T14", "B", "B"]),
        (Colour::Yellow, ["H2", "T38", "T9", "B"]),
    ]
    .into_iter()
    .map(|(c, ps)| (c, ps.into_iter().map(place).collect()))
    .collect();
    let seats = Seats::for_players(4).unwrap();
    let position = classic::Position::new(seats, Colour::Red, &pieces).unwrap();
    let game = Game::Classic(classic::Game::new(HouseRules::default(), position));
    let players = ["Anna", "Boris", "Cyril", "Dana"]
        .map(|name| Player::Human { name: name.into() })
        .to_vec();
    let mut game = OfflineGame::resume(game, players).unwrap();
    game.roll(Die::new(4).unwrap()).unwrap();
    let red = game
        .pieces()
        .into_iter()
        .find(|p| p.spot == Spot::Track(17))
        .unwrap();
    game.play_piece(red.id).unwrap();
    game
}

/// Four players of the Matfyz rules in mid-game: each base and home holds
/// pieces of other colours; red has rolled 6, 6, 4.
fn matfyz_mid_game() -> OfflineGame {
    use Colour::{Blue, Green, Red, Yellow};
    let layout = matfyz::Layout {
        seats: Seats::for_players(4).unwrap(),
        turn: Red,
        bases: vec![
            (Red, vec![Yellow]),
            (Blue, vec![Red]),
            (Green, vec![Red, Yellow]),
            (Yellow, vec![Blue, Green]),
        ],
        homes: vec![
            (Red, [None, Some(Green), None, Some(Blue)]),
            (Blue, [None, None, Some(Yellow), None]),
            (Green, [Some(Blue), None, None, None]),
            (Yellow, [None; 4]),
        ],
        track: vec![
            (5, Red),
            (12, Green),
            (14, Blue),
            (21, Yellow),
            (27, Red),
            (33, Green),
        ],
        rolls: matfyz::Rolls::default(),
        done: Vec::new(),
    };
    let position = matfyz::Position::new(&layout).unwrap();
    let game = Game::Matfyz(matfyz::Game::new(position));
    let players = vec![
        Player::Human {
            name: "Anna".into(),
        },
        Player::Computer {
            level: clovece::bot::Level::Medium,
        },
        Player::Human {
            name: "Cyril".into(),
        },
        Player::Computer {
            level: clovece::bot::Level::Hard,
        },
    ];
    let mut game = OfflineGame::resume(game, players).unwrap();
    for n in [6, 6, 4] {
        game.roll(Die::new(n).unwrap()).unwrap();
    }
    game
}

#[test]
fn the_home_screen_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-home");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    check(app.window(), PHONE, "home");
}

/// Home after the game on this device could not be continued.
#[test]
fn the_home_screen_says_when_the_game_on_this_device_was_lost() {
    use clovece::app::ui::ResumeAdapter;
    use slint::ComponentHandle;
    ui_support::init();
    let folder = ui_support::settings_dir("shot-home-lost");
    let app = ui_support::app(folder.path(), 1);
    app.window().global::<ResumeAdapter>().set_local_lost(true);
    check(app.window(), PHONE, "home-local-lost");
}

#[test]
fn how_to_play_looks_as_recorded() {
    use clovece::app::ui::{AppAdapter, Screen};
    ui_support::init();
    let folder = ui_support::settings_dir("shot-rules");
    let app = ui_support::app(folder.path(), 1);
    app.window()
        .global::<AppAdapter>()
        .set_screen(Screen::Rules);
    check(app.window(), PHONE, "rules");
}

#[test]
fn the_classic_board_in_mid_game_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-classic");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(mid_game());
    check(app.window(), PHONE, "board-classic");
}

#[test]
fn the_classic_board_on_a_small_phone_leaves_the_panel_and_players_their_room() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-classic-small");
    let app = ui_support::app(folder.path(), 1);
    app.resume(mid_game());
    check(app.window(), SMALL_PHONE, "board-classic-small");
}

/// The longest name of the game (German) fits the game's header of a
/// small phone whole, rather than cut off; and four chips, three of them
/// counting down a wait, keep their seconds (until session 52 they said
/// "Warten: 0:3").
#[test]
fn the_german_board_on_a_small_phone_names_the_whole_game() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-classic-german");
    let app = ui_support::app(folder.path(), 1);
    let settings = app.window().global::<SettingsAdapter>();
    settings.set_language(5); // Deutsch
    settings.invoke_changed();
    app.resume(mid_game());
    let game = app.window().global::<GameAdapter>();
    let mut players: Vec<_> = game.get_players().iter().collect();
    for (player, waited) in players[1..].iter_mut().zip([32, 5, 41]) {
        player.waiting = waited;
    }
    game.set_players(slint::ModelRc::new(slint::VecModel::from(players)));
    check(app.window(), SMALL_PHONE, "board-classic-german");
}

#[test]
fn the_matfyz_board_on_a_small_phone_leaves_the_panel_and_holdings_their_room() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-matfyz-small");
    let app = ui_support::app(folder.path(), 1);
    app.resume(matfyz_mid_game());
    check(app.window(), SMALL_PHONE, "board-matfyz-small");
    // The narrowest phone: each chip's four home places stay inside it
    // (they spilled over its border by 4 px).
    check(app.window(), (320, 600), "board-matfyz-narrow");
}

/// A Matfyz game waiting for dropped phones: their chips say how long,
/// the panel what for, and the holdings still fit a small phone under a
/// note of two lines (the board gives way: at 200 px at least, as it was
/// until session 52, the chips' home rows were cut off).
#[test]
fn the_matfyz_board_waiting_for_a_phone_says_so_on_a_small_phone() {
    use clovece::app::ui::{Hue, NoteKind, Silence};
    ui_support::init();
    let folder = ui_support::settings_dir("shot-matfyz-waiting");
    let app = ui_support::app(folder.path(), 1);
    app.resume(matfyz_mid_game());
    let game = app.window().global::<GameAdapter>();
    let mut players: Vec<_> = game.get_players().iter().collect();
    // Three of them, so that three chips carry the longer line.
    for (player, waited) in players[1..].iter_mut().zip([32, 5, 41]) {
        player.waiting = waited;
    }
    game.set_players(slint::ModelRc::new(slint::VecModel::from(players)));
    game.set_silence(Silence {
        phones: 3,
        name: String::new().into(),
        hue: Hue::Green,
        seconds: 5,
    });
    let mut note = game.get_note();
    note.kind = NoteKind::Unused;
    note.piece = Hue::Yellow;
    note.name = "Dana".into();
    game.set_note(note);
    check(app.window(), SMALL_PHONE, "board-matfyz-waiting");
}

#[test]
fn the_sea_board_in_mid_game_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-sea");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let settings = app.window().global::<SettingsAdapter>();
    settings.set_theme(BoardTheme::Sea);
    settings.invoke_changed();
    app.resume(mid_game());
    check(app.window(), PHONE, "board-sea");
}

#[test]
fn the_board_beside_the_panel_on_a_desktop_window_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-desktop");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(mid_game());
    check(app.window(), (960, 640), "board-desktop");
}

/// A pass-and-play game of four after 60 rolls of a seeded die, each move
/// the first piece that may move.
fn played() -> OfflineGame {
    let players = ["Anna", "Boris", "Cyril", "Dana"]
        .map(|name| Player::Human { name: name.into() })
        .to_vec();
    let mut game = OfflineGame::new(
        Setup {
            players,
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::None,
        },
        || unreachable!("red begins a classic game"),
    )
    .unwrap();
    let mut dice = Dice::from_seed([5; 32]);
    while game.fairness().history().len() < 60 {
        match game.next() {
            Next::Roll { .. } => {
                game.roll(dice.roll()).unwrap();
            }
            Next::Move { .. } => {
                let piece = game.pieces().into_iter().find(|p| p.movable);
                game.play_piece(piece.unwrap().id).unwrap();
            }
            Next::Won { .. } => break,
        }
    }
    game
}

#[test]
fn the_matfyz_board_in_mid_game_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-matfyz");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(matfyz_mid_game());
    check(app.window(), PHONE, "board-matfyz");
}

#[test]
fn the_matfyz_plan_choice_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-matfyz-plan");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(matfyz_mid_game());
    app.window().show().unwrap();
    ui_support::find(app.window(), "Red piece on square 27")
        .mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "board-matfyz-plan");
}

#[test]
fn the_fairness_view_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-fairness");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(played());
    app.window().show().unwrap();
    ui_support::find(app.window(), "Rolls: roll history and dice statistics")
        .mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "fairness");
}

#[test]
fn the_leave_warning_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-leave");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.resume(mid_game());
    app.window().show().unwrap();
    ui_support::find(app.window(), "Leave game").mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "leave");
}

#[test]
fn the_pass_and_play_setup_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-setup");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.window().show().unwrap();
    ui_support::find(app.window(), "Pass and play").mock_single_click(PointerEventButton::Left);
    ui_support::find(app.window(), "20 seconds per turn")
        .mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "setup");
}

#[test]
fn the_host_room_screen_looks_as_recorded() {
    use clovece::app::ui::{AppAdapter, RoomAdapter, RoomData, Screen, SeatData, SeatKind};
    use clovece::net::{RoomId, Ticket};
    ui_support::init();
    let folder = ui_support::settings_dir("shot-room");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let window = app.window();
    // A fixed room: the host, a guest ready, one not yet, the computer.
    let key = libp2p::identity::Keypair::ed25519_from_bytes([7; 32]).unwrap();
    let addr = "/ip4/192.168.1.23/tcp/40123".parse().unwrap();
    let ticket = Ticket::new(
        RoomId::from_bytes([9; 16]),
        key.public().to_peer_id(),
        [addr],
        None,
    )
    .unwrap();
    let room = window.global::<RoomAdapter>();
    room.set_hosting(true);
    room.set_code(ticket.code().to_string().into());
    let qr = clovece::app::qr::picture(&ticket.to_string()).unwrap();
    room.set_qr(slint::Image::from_rgba8(qr));
    room.set_link(ticket.to_string().into());
    let seat = |kind, hue, name: &str, ready| SeatData {
        kind,
        hue,
        name: name.into(),
        ready,
        level: 2,
        mine: false,
    };
    use clovece::app::ui::Hue;
    let seats = vec![
        seat(SeatKind::Host, Hue::Red, "Hana", true),
        seat(SeatKind::Guest, Hue::Blue, "Ivo", true),
        seat(SeatKind::Guest, Hue::Green, "Jana", false),
        seat(SeatKind::Computer, Hue::Yellow, "", false),
    ];
    room.set_seats(slint::ModelRc::new(slint::VecModel::from(seats.clone())));
    room.set_full(true);
    room.set_has_terms(true);
    room.set_terms(classic_four());
    window.global::<AppAdapter>().set_screen(Screen::Room);
    check(window, PHONE, "room");
    // As wide as the narrowest phone (and tall enough to show every
    // seat): a seat to fill and the computer's (the words on their
    // buttons broke in the middle), red to begin (shown with its mark, as
    // no token says which seat is red).
    let mut seats = seats;
    seats[2] = seat(SeatKind::Empty, Hue::Green, "", false);
    room.set_seats(slint::ModelRc::new(slint::VecModel::from(seats)));
    room.set_full(false);
    room.set_terms(RoomData {
        first: 1,
        ..classic_four()
    });
    check(window, (320, 900), "room-narrow");
    // What went wrong shows by the buttons, not below the seats out of
    // view (the test backend finds no element scrolled out of view).
    room.set_problem(clovece::app::ui::RoomProblem::Refused);
    assert!(ui_support::shows(
        window,
        "The room changed meanwhile. Look at the seats and try again."
    ));
}

#[test]
fn the_join_screen_with_a_code_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-join");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.window().show().unwrap();
    ui_support::find(app.window(), "Join a room").mock_single_click(PointerEventButton::Left);
    ui_support::text_field(app.window(), "Room code or ticket link").set_accessible_value("k7m2qx");
    check(app.window(), PHONE, "join");
}

#[test]
fn the_nearby_rooms_screen_looks_as_recorded() {
    use clovece::app::ui::{NearbyAdapter, RoomData, RulesData, RulesKind};

    ui_support::init();
    let folder = ui_support::settings_dir("shot-nearby");
    let dir = folder.path();
    let app = ui_support::app_on_loopback(dir, 1, Vec::new());
    app.window().show().unwrap();
    ui_support::find(app.window(), "Nearby rooms").mock_single_click(PointerEventButton::Left);
    ui_support::find(app.window(), "30 seconds per turn")
        .mock_single_click(PointerEventButton::Left);
    let room = |code: &str, host: &str, players, free, board, kind, no_jump_home| RoomData {
        code: code.into(),
        ticket: format!("CLOVECE:{code}").into(),
        host: host.into(),
        players,
        free,
        turn: 30,
        board,
        rules: RulesData {
            kind,
            compulsory_capture: false,
            optional_bring_out: false,
            no_jump_home,
        },
        // Each rule set's own way of choosing who begins.
        first: match kind {
            RulesKind::Croatian => 3,
            RulesKind::Matfyz => 2,
            _ => 0,
        },
    };
    // Rooms as the list would show them (the list itself runs on loopback
    // and finds none).
    let rooms = vec![
        room(
            "K7M2QX",
            "Hana",
            4,
            3,
            BoardTheme::Classic,
            RulesKind::Classic,
            false,
        ),
        room(
            "P3RW9A",
            "Ivo",
            2,
            1,
            BoardTheme::Sea,
            RulesKind::Croatian,
            false,
        ),
        // A host whose phone has not said its name yet.
        room(
            "ZT84HN",
            "",
            3,
            1,
            BoardTheme::Classic,
            RulesKind::Classic,
            true,
        ),
    ];
    app.window()
        .global::<NearbyAdapter>()
        .set_rooms(slint::ModelRc::new(slint::VecModel::from(rooms)));
    check(app.window(), PHONE, "nearby");
    // A screen reader hears whose room it is after what it is like.
    assert!(ui_support::shows(
        app.window(),
        "Room P3RW9A: 1 of 2 seats free, 30 s per turn, Sea board, Croatian rules. The first six begins. Host: Ivo"
    ));
}

#[test]
fn the_statistics_screen_looks_as_recorded() {
    use clovece::stats::{Outcome, Played, Record, Store};

    ui_support::init();
    let folder = ui_support::settings_dir("shot-statistics");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let me = clovece::net::identity::load_or_create(dir)
        .unwrap()
        .public()
        .to_peer_id()
        .to_base58();
    let store = Store::new(dir);
    let games = [
        ("classic", Outcome::Won, [5, 4, 6, 3, 5, 7]),
        ("classic", Outcome::Lost, [6, 5, 4, 6, 4, 5]),
        ("classic", Outcome::Won, [4, 6, 5, 5, 6, 4]),
        ("croatian", Outcome::Left, [2, 1, 3, 2, 1, 2]),
        ("croatian", Outcome::Won, [5, 5, 4, 6, 5, 6]),
        (
            "classic+compulsory-capture",
            Outcome::Dropped,
            [3, 2, 2, 3, 4, 1],
        ),
    ];
    // Two friends: Jana in every game, winning those Anna did not,
    // Marek in every other.
    let friends = [
        ("Jana", libp2p::PeerId::random()),
        ("Marek", libp2p::PeerId::random()),
    ];
    for (i, (rules, outcome, dice)) in games.into_iter().enumerate() {
        let mut players = vec![Played {
            peer: me.clone(),
            name: "Anna".to_owned(),
            outcome,
            dice,
        }];
        for (name, peer) in friends.iter().take(1 + i % 2) {
            let won = *name == "Jana" && outcome != Outcome::Won;
            players.push(Played {
                peer: peer.to_base58(),
                name: (*name).to_owned(),
                outcome: if won { Outcome::Won } else { Outcome::Lost },
                dice,
            });
        }
        store
            .add(Record {
                game: format!("game-{i}"),
                rules: rules.to_owned(),
                players,
            })
            .unwrap();
    }
    app.window().show().unwrap();
    ui_support::find(app.window(), "Statistics").mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "statistics");
}

#[test]
fn the_scan_screen_on_a_desktop_looks_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-scan");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.window().show().unwrap();
    ui_support::find(app.window(), "Join a room").mock_single_click(PointerEventButton::Left);
    ui_support::find(app.window(), "Scan a QR code").mock_single_click(PointerEventButton::Left);
    ui_support::text_field(app.window(), "Picture file")
        .set_accessible_value("/home/anna/room.png");
    check(app.window(), PHONE, "scan");
}

#[test]
fn the_host_options_look_as_recorded() {
    ui_support::init();
    let folder = ui_support::settings_dir("shot-host");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    app.window().show().unwrap();
    ui_support::find(app.window(), "Host a room").mock_single_click(PointerEventButton::Left);
    check(app.window(), PHONE, "host");
    // On a small phone the options scroll, and the room still opens from
    // where they are (the test backend finds nothing scrolled out of view).
    let small = slint::PhysicalSize::new(SMALL_PHONE.0, SMALL_PHONE.1);
    app.window().window().set_size(small);
    assert!(ui_support::shows(app.window(), "Open the room"));
}

#[test]
fn the_invite_list_looks_as_recorded() {
    use clovece::app::ui::{
        AppAdapter, InviteAdapter, InviteState, InviteeData, RoomAdapter, Screen,
    };
    ui_support::init();
    let folder = ui_support::settings_dir("shot-invite");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let window = app.window();
    window.global::<RoomAdapter>().set_hosting(true);
    let invitee = |name: &str, peer: &str, state| InviteeData {
        name: name.into(),
        peer: peer.into(),
        state,
    };
    let invite = window.global::<InviteAdapter>();
    invite.set_friends(slint::ModelRc::new(slint::VecModel::from(vec![
        invitee("Ivo", "", InviteState::Seated),
        invitee("Jana", "", InviteState::Sent),
        invitee("Karol", "", InviteState::Waiting),
    ])));
    invite.set_nearby(slint::ModelRc::new(slint::VecModel::from(vec![
        invitee("", "x7Qk2P", InviteState::Declined),
        invitee("Lucia", "b3TzW8", InviteState::None),
        invitee("", "R4mNa9", InviteState::None),
    ])));
    invite.set_listing(true);
    window.global::<AppAdapter>().set_screen(Screen::Room);
    check(window, PHONE, "invite");
}

#[test]
fn an_invitation_on_home_looks_as_recorded() {
    use clovece::app::ui::{BoardTheme, InviteAdapter, RoomData, RulesData, RulesKind};
    ui_support::init();
    let folder = ui_support::settings_dir("shot-invited");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let invite = app.window().global::<InviteAdapter>();
    invite.set_from("Hana".into());
    invite.set_room(RoomData {
        code: "K7M2QX".into(),
        ticket: "".into(),
        host: "".into(),
        players: 3,
        free: 0,
        turn: 60,
        board: BoardTheme::Sea,
        rules: RulesData {
            kind: RulesKind::Croatian,
            compulsory_capture: false,
            optional_bring_out: false,
            no_jump_home: false,
        },
        // The Croatian preset's own way.
        first: 3,
    });
    invite.set_invited(true);
    check(app.window(), PHONE, "invited");
}

/// A game of four, 30 s a turn, on the classic board by the classic rules,
/// as the screens show a room's.
fn classic_four() -> clovece::app::ui::RoomData {
    use clovece::app::ui::{RoomData, RulesData, RulesKind};
    RoomData {
        code: "".into(),
        ticket: "".into(),
        host: "".into(),
        players: 4,
        free: 0,
        turn: 30,
        board: BoardTheme::Classic,
        rules: RulesData {
            kind: RulesKind::Classic,
            compulsory_capture: false,
            optional_bring_out: false,
            no_jump_home: false,
        },
        first: 0,
    }
}

#[test]
fn the_offer_to_resume_an_online_game_looks_as_recorded() {
    use clovece::app::ui::{Hue, LeaveCost, PlayerData, ResumeAdapter, ResumeState};
    ui_support::init();
    let folder = ui_support::settings_dir("shot-resume");
    let dir = folder.path();
    let app = ui_support::app(dir, 1);
    let resume = app.window().global::<ResumeAdapter>();
    resume.set_game(classic_four());
    let seat = |hue, name: &str| PlayerData {
        hue,
        name: name.into(),
        computer: name.is_empty(),
        active: false,
        home: 0,
        waiting: -1,
        left: false,
    };
    let seats = [
        seat(Hue::Red, "Anna"),
        seat(Hue::Blue, "Boris"),
        seat(Hue::Green, ""),
        seat(Hue::Yellow, "Dana"),
    ];
    resume.set_players(slint::ModelRc::new(slint::VecModel::from(seats.to_vec())));
    resume.set_minutes(3);
    resume.set_leave_cost(LeaveCost::TwoLosses);
    resume.set_state(ResumeState::Unfinished);
    check(app.window(), PHONE, "resume");
}
