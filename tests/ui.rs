//! Headless UI tests: the real app window on Slint's testing backend, driven
//! the way a person would (clicks on elements found by their accessible
//! labels), with mocked time for the computer's pace and the animations.

mod process;
mod ui_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clovece::app::App;
use clovece::app::ui::{
    AppAdapter, AppWindow, AwayKind, BoardTheme, ChoiceKind, GameAdapter, Hue, MatfyzAdapter,
    NoteKind, OpeningKind, ResultAdapter, RoomProblem, Screen, SetupAdapter, Silence,
};
use clovece::app::{COMPUTER_PACE, HANDOVER, RESULT_DELAY};
use i_slint_backend_testing::{AccessibleRole, ElementHandle, ElementQuery, mock_elapsed_time};
use slint::platform::{Key, PointerEventButton, WindowEvent};
use slint::{ComponentHandle, Model};

use ui_support::{app, back, enabled, find, label_of, press, pump_until, settings_dir, shows};

/// Home's "Play against the computer", then Start with the setup as it is.
fn play_the_computer(window: &AppWindow) {
    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
}

/// The switch labelled `label` (a house rule's has a text of that name
/// beside it).
fn switch(window: &AppWindow, label: &str) -> ElementHandle {
    let wanted = label.to_owned();
    ElementQuery::from_root(window)
        .match_descendants()
        .match_accessible_role(AccessibleRole::Switch)
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l == wanted))
        .find_first()
        .unwrap_or_else(|| panic!("no switch labelled {label:?}"))
}

/// An app shown, with a settings folder of its own (`name`) and its dice
/// seeded with `seed`.
fn shown(name: &str, seed: u8) -> (tempfile::TempDir, App) {
    ui_support::init();
    let folder = settings_dir(name);
    let app = app(folder.path(), seed);
    app.window().show().unwrap();
    (folder, app)
}

/// An app [`shown`], in a game against the computer.
fn against_the_computer(name: &str, seed: u8) -> (tempfile::TempDir, App) {
    let (folder, app) = shown(name, seed);
    play_the_computer(app.window());
    (folder, app)
}

#[test]
fn a_game_against_the_computer_is_played_to_the_result() {
    let (_folder, app) = against_the_computer("vs-computer", 11);
    let window = app.window();

    // Red (the person) rolls first: the die is enabled, no piece is, and
    // the header speaks to the one person playing.
    let die = find(window, "Die");
    assert_eq!(die.accessible_enabled(), Some(true));
    assert!(enabled(window, "piece").is_empty());
    assert!(shows(window, "Your turn"));

    // Element look-ups walk the whole window, so the loop asks the game
    // adapter what is due and uses look-ups for what a person would do.
    let game = window.global::<GameAdapter>();
    let (mut moves, mut notes, mut won_shown) = (0, Vec::new(), false);
    for _ in 0..20_000 {
        if game.get_note().kind == NoteKind::Won && !won_shown {
            // Until the result shows, the board's header names the winner
            // rather than whose turn it was.
            let header = |end: &'static str| {
                ElementQuery::from_root(window)
                    .match_descendants()
                    .match_predicate(move |e| {
                        e.accessible_label().is_some_and(|l| l.ends_with(end))
                    })
                    .find_first()
                    .is_some()
            };
            assert!(header(" wins!"));
            assert!(!header("'s turn") && !header(" is playing"));
            // The person plays red; the computer, the others.
            let computer = game.get_turn() != Hue::Red;
            assert_eq!(header(" (computer) wins!"), computer, "the winner as such");
            won_shown = true;
        }
        if window.global::<AppAdapter>().get_screen() == Screen::Result {
            let winner = ElementQuery::from_root(window)
                .match_descendants()
                .match_predicate(|e| e.accessible_label().is_some_and(|l| l.ends_with(" wins!")))
                .find_first()
                .expect("the result names the winner");
            assert!(
                find(window, "Play again").is_valid(),
                "{}",
                label_of(&winner)
            );
            // The person plays red; the computer, the others.
            let computer = window.global::<ResultAdapter>().get_winner() != Hue::Red;
            assert_eq!(
                label_of(&winner).ends_with(" (computer) wins!"),
                computer,
                "{}",
                label_of(&winner)
            );
            // The placings say the computer's seats, each row read as one.
            let green = ElementQuery::from_root(window)
                .match_descendants()
                .match_predicate(|e| {
                    e.accessible_label().is_some_and(|l| {
                        l.contains(". Green (Green, computer), ") && l.ends_with(" home")
                    })
                })
                .find_first();
            assert!(green.is_some(), "the computer's seat in the placings");
            assert!(moves > 0, "a result without a move");
            assert!(won_shown, "the board named the winner before the result");
            assert!(
                notes.iter().any(|n: &String| n.contains("try of three")),
                "{notes:?}"
            );
            return;
        }
        if game.get_can_roll() {
            die.mock_single_click(PointerEventButton::Left);
            mock_elapsed_time(Duration::from_millis(500));
            // The note below the die says what the roll did.
            if notes.len() < 3
                && let Some(note) = ui_support::note(window)
            {
                notes.push(note);
            }
        } else if game.get_must_move() && !game.get_turn_computer() {
            let movable = enabled(window, "piece");
            if moves == 0 {
                // The legal targets are marked on the board too.
                assert!(!enabled(window, "quare").is_empty(), "no target marked");
            }
            movable[0].mock_single_click(PointerEventButton::Left);
            mock_elapsed_time(Duration::from_millis(400));
            moves += 1;
        } else {
            // The computer is playing, or the result is coming.
            mock_elapsed_time(COMPUTER_PACE.max(RESULT_DELAY));
        }
    }
    panic!("no result after 20 000 steps; notes: {notes:?}");
}

#[test]
fn after_a_six_a_tap_on_any_piece_in_the_base_brings_one_out() {
    ui_support::init();
    let folder = settings_dir("base-tap");
    let app = app(folder.path(), 3);
    let window = app.window();
    window.window().set_size(slint::PhysicalSize::new(360, 740));
    window.show().unwrap();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);

    // Roll until a six waits to be used: every piece is still in its base.
    let game = window.global::<GameAdapter>();
    for _ in 0..200 {
        if game.get_must_move() {
            break;
        }
        find(window, "Die").mock_single_click(PointerEventButton::Left);
        mock_elapsed_time(COMPUTER_PACE * 2);
    }
    assert!(game.get_must_move(), "no six in 200 rolls");
    // Each piece is found more than once (nested elements share its label):
    // one handle per place.
    let mut in_base: Vec<(f32, f32, ElementHandle)> = Vec::new();
    for piece in enabled(window, "piece in base") {
        let at = piece.absolute_position();
        if !in_base.iter().any(|&(x, y, _)| (x, y) == (at.x, at.y)) {
            in_base.push((at.x, at.y, piece));
        }
    }
    assert_eq!(in_base.len(), 4, "each piece in the base takes a tap");
    // The one furthest from the first, beyond a tap's reach of it.
    in_base.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
    in_base[3].2.mock_single_click(PointerEventButton::Left);
    mock_elapsed_time(Duration::from_millis(400));
    assert!(!game.get_must_move(), "the tap brought a piece out");
    assert!(enabled(window, "piece in base").is_empty());
    assert!(game.get_can_roll(), "and the six rolls again");
}

#[test]
fn a_screen_reader_hears_which_option_is_chosen() {
    let (_folder, app) = shown("options-checked", 1);
    let window = app.window();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    let checked = |label: &str| {
        let option = find(window, label);
        assert_eq!(option.accessible_role(), Some(AccessibleRole::RadioButton));
        assert_eq!(option.accessible_checkable(), Some(true));
        option.accessible_checked()
    };
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(checked("3 players"), Some(true));
    assert_eq!(checked("2 players"), Some(false));
    find(window, "4 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(checked("3 players"), Some(false));
    assert_eq!(checked("4 players"), Some(true));
}

/// The colours offered are the rules' seating, and a colour that does not
/// play in fewer players gives way to red.
#[test]
fn the_colours_offered_against_the_computer_are_the_seated_ones() {
    let (_folder, app) = shown("seated-colours", 1);
    let window = app.window();
    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    let offered = || {
        ElementQuery::from_root(window)
            .match_descendants()
            .match_accessible_role(AccessibleRole::RadioButton)
            .find_all()
            .into_iter()
            .filter_map(|e| e.accessible_label())
            .filter(|l| ["Red", "Blue", "Green", "Yellow"].contains(&l.as_str()))
            // (The query meets each element more than once.)
            .fold(Vec::new(), |mut seen: Vec<String>, l| {
                if !seen.iter().any(|s| s == l.as_str()) {
                    seen.push(l.to_string());
                }
                seen
            })
    };
    let setup = window.global::<SetupAdapter>();
    find(window, "4 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(offered(), ["Red", "Blue", "Green", "Yellow"]);
    find(window, "Yellow").mock_single_click(PointerEventButton::Left);
    assert_eq!(setup.get_seat(), 3);
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(offered(), ["Red", "Blue", "Green"]);
    assert_eq!(setup.get_seat(), 0, "yellow does not play: red");
    find(window, "Green").mock_single_click(PointerEventButton::Left);
    find(window, "2 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(offered(), ["Red", "Green"]);
    assert_eq!(setup.get_seat(), 2, "green plays in two");
}

#[test]
fn a_game_on_this_device_outlives_the_app_until_it_is_left() {
    use clovece::app::Services;
    use clovece::platform::Platform;
    use clovece::platform::lifecycle::Bookmark;

    // Threaded: the system's restore reaches the window through its event
    // loop.
    ui_support::on_ui_thread(|| {
        let folder = settings_dir("local-kept");
        let dir = folder.path();
        let continue_label = "Continue the game on this device";
        let replaces = "A new game replaces the unfinished game on this device.";
        // The app, shown, with a handle on its life events.
        let app_with_life = |seed| {
            let lifecycle = Platform::desktop().lifecycle;
            let services = Services {
                lifecycle: lifecycle.clone(),
                ..Services::desktop()
            };
            let app = ui_support::app_on(dir, seed, services);
            app.window().show().unwrap();
            (app, lifecycle)
        };
        let (rolls, pieces, saved) = {
            let (app, lifecycle) = app_with_life(7);
            let window = app.window();
            assert!(!shows(window, continue_label), "nothing kept yet");
            find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
            assert!(!shows(window, replaces), "nothing to replace");
            find(window, "Start").mock_single_click(PointerEventButton::Left);
            let game = window.global::<GameAdapter>();
            while game.get_rolls() < 30 {
                if game.get_can_roll() {
                    find(window, "Die").mock_single_click(PointerEventButton::Left);
                } else if game.get_must_move() && !game.get_turn_computer() {
                    enabled(window, "piece")[0].mock_single_click(PointerEventButton::Left);
                }
                mock_elapsed_time(COMPUTER_PACE);
            }
            assert_eq!(lifecycle.bookmark(), Bookmark::Local);
            let pieces: Vec<_> = game.get_pieces().iter().collect();
            // The system asks what to keep, then kills the app.
            (game.get_rolls(), pieces, lifecycle.save())
        };

        // Opened again, Home offers the game, which goes on where it was.
        {
            let (app, lifecycle) = app_with_life(8);
            let window = app.window();
            // A new game nobody has rolled in yet is not the one the system
            // would reopen: that is still the game kept, which Home offers.
            // The setup says that a new game replaces it.
            find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
            assert!(shows(window, replaces));
            find(window, "Start").mock_single_click(PointerEventButton::Left);
            assert_eq!(lifecycle.bookmark(), Bookmark::Home);
            find(window, "Leave game").mock_single_click(PointerEventButton::Left);
            find(window, "Leave").mock_single_click(PointerEventButton::Left);
            find(window, continue_label).mock_single_click(PointerEventButton::Left);
            assert_eq!(lifecycle.bookmark(), Bookmark::Local);
            assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
            let game = window.global::<GameAdapter>();
            assert_eq!(game.get_rolls(), rolls);
            assert_eq!(game.get_pieces().iter().collect::<Vec<_>>(), pieces);
        }

        // Recreated by the system, the app reopens it without a tap; left, it
        // is no longer kept.
        let (app, lifecycle) = app_with_life(9);
        let window = app.window();
        lifecycle.restore(&saved);
        pump_until("the board is shown", || {
            window.global::<AppAdapter>().get_screen() == Screen::Game
        });
        assert_eq!(window.global::<GameAdapter>().get_rolls(), rolls);
        find(window, "Leave game").mock_single_click(PointerEventButton::Left);
        find(window, "Leave").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        assert_eq!(lifecycle.bookmark(), Bookmark::Home);
        assert!(!shows(window, continue_label), "a game left is not kept");
        drop(app);
        let (app, _) = app_with_life(10);
        assert!(!shows(app.window(), continue_label));
    });
}

#[test]
fn pass_and_play_asks_each_player_in_turn_and_leaving_asks_first() {
    let (_folder, app) = shown("pass-and-play", 5);
    let window = app.window();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);

    // Nobody is the computer: after red's three tries the die waits for
    // blue's tap, it does not roll by itself.
    let mut turns = Vec::new();
    for _ in 0..60 {
        roll_or_move(window);
        mock_elapsed_time(COMPUTER_PACE * 2);
        let players = ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(|e| e.accessible_label().is_some_and(|l| l.contains("'s turn")))
            .find_first();
        if let Some(p) = players {
            turns.push(label_of(&p));
        }
    }
    assert!(turns.iter().any(|t| t.starts_with("Blue")), "{turns:?}");
    assert!(turns.iter().all(|t| !t.contains("computer")), "{turns:?}");

    // Leaving asks first, and says what it costs.
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(find(window, "The game ends and is not kept.").is_valid());
    find(window, "Stay").mock_single_click(PointerEventButton::Left);
    assert_eq!(
        window.global::<AppAdapter>().get_screen(),
        Screen::Game,
        "staying keeps the game"
    );
    assert!(
        ElementHandle::find_by_accessible_label(window, "Stay")
            .next()
            .is_none()
    );
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    assert!(find(window, "Pass and play").is_valid());
}

/// A settings file the app cannot read (cut short, another app's) does
/// not keep it from starting, and is kept aside rather than overwritten by
/// the defaults at the next save.
#[test]
fn a_damaged_settings_file_is_kept_aside_and_the_app_starts() {
    ui_support::init();
    let folder = settings_dir("damaged-settings");
    let dir = folder.path();
    let damaged = "{\"nickname\": \"Eva\", \"language\": ";
    std::fs::write(dir.join("settings.json"), damaged).unwrap();
    let file = clovece::app::settings::SettingsFile::in_folder(dir);
    let services = ui_support::loopback_services();
    let dice = clovece::app::dice::Dice::from_seed([1; 32]);
    let app = clovece::app::App::with_services(file.clone(), dice, services).unwrap();
    app.window().show().unwrap();
    let kept = std::fs::read_to_string(dir.join("settings.json.damaged")).unwrap();
    assert_eq!(kept, damaged);
    assert!(!dir.join("settings.json").exists(), "nothing saved yet");
    let defaults = clovece::app::settings::Settings::default();
    file.save(&defaults).unwrap();
    let kept = std::fs::read_to_string(dir.join("settings.json.damaged")).unwrap();
    assert_eq!(kept, damaged, "a save leaves it");
}

/// A damaged settings file that cannot be kept aside either (here a
/// hundred copies are kept already) is not saved over: it may hold the
/// player's settings, and this run's go nowhere.
#[test]
fn a_damaged_settings_file_that_cannot_be_kept_aside_is_not_saved_over() {
    ui_support::init();
    let folder = settings_dir("damaged-settings-full");
    let dir = folder.path();
    let damaged = "{\"nickname\": \"Eva\", \"language\": ";
    std::fs::write(dir.join("settings.json"), damaged).unwrap();
    std::fs::write(dir.join("settings.json.damaged"), "").unwrap();
    for n in 2..=100 {
        std::fs::write(dir.join(format!("settings.json.damaged.{n}")), "").unwrap();
    }
    let file = clovece::app::settings::SettingsFile::in_folder(dir);
    let services = ui_support::loopback_services();
    let dice = clovece::app::dice::Dice::from_seed([1; 32]);
    let app = clovece::app::App::with_services(file, dice, services).unwrap();
    let window = app.window();
    window.show().unwrap();
    find(window, "Settings").mock_single_click(PointerEventButton::Left);
    switch(window, "Capturing is compulsory").mock_single_click(PointerEventButton::Left);
    mock_elapsed_time(Duration::from_millis(500));
    let kept = std::fs::read_to_string(dir.join("settings.json")).unwrap();
    assert_eq!(kept, damaged, "not saved over");
}

/// A game on this device that the phone's storage refuses (here a folder
/// stands where the file goes) goes on, and says that closing the app
/// would lose it; the next game, kept, says nothing.
#[test]
fn a_game_that_cannot_be_saved_says_so_and_goes_on() {
    let (folder, app) = shown("unsaved", 1);
    let window = app.window();
    std::fs::create_dir(folder.path().join("local-game")).unwrap();
    play_the_computer(window);
    let told = |window: &AppWindow| {
        ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(|e| {
                e.accessible_label().is_some_and(|l| {
                    l.starts_with("This game could not be saved on this device, so closing the app loses it: ")
                })
            })
            .find_first()
            .is_some()
    };
    assert!(!told(window), "nothing tried yet");
    find(window, "Die").mock_single_click(PointerEventButton::Left);
    assert!(told(window), "said at the first roll");
    std::fs::remove_dir(folder.path().join("local-game")).unwrap();
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    play_the_computer(window);
    assert!(!told(window), "a new game");
    find(window, "Die").mock_single_click(PointerEventButton::Left);
    assert!(!told(window), "kept");
}

#[test]
fn settings_are_saved_and_switch_the_language() {
    let (folder, app) = shown("settings", 1);
    let dir = folder.path();
    let window = app.window();

    find(window, "Settings").mock_single_click(PointerEventButton::Left);
    switch(window, "Capturing is compulsory").mock_single_click(PointerEventButton::Left);
    let saved = || std::fs::read_to_string(dir.join("settings.json")).unwrap_or_default();
    // Saved a moment after the last change, not at each key of a name.
    assert!(
        saved().contains("\"compulsory_capture\": false"),
        "{}",
        saved()
    );
    mock_elapsed_time(Duration::from_millis(500));
    assert!(
        saved().contains("\"compulsory_capture\": true"),
        "{}",
        saved()
    );

    let adapter = window.global::<clovece::app::ui::SettingsAdapter>();
    // A tap on a rule's explanation toggles it too, and is saved.
    find(
        window,
        "Pieces in the home row may not jump over each other.",
    )
    .mock_single_click(PointerEventButton::Left);
    assert!(adapter.get_no_jump_home());
    mock_elapsed_time(Duration::from_millis(500));
    assert!(saved().contains("\"no_jump_home\": true"), "{}", saved());
    // A new player has chosen no nickname and goes by "Player".
    assert_eq!(adapter.get_nickname(), "");
    assert_eq!(adapter.get_default_nickname(), "Player");
    let setup = window.global::<clovece::app::ui::SetupAdapter>();
    let first_name = || slint::Model::row_data(&setup.get_names(), 0).unwrap();
    assert_eq!(first_name(), "Player");
    adapter.set_language(3); // Čeština
    adapter.invoke_changed();
    mock_elapsed_time(Duration::from_millis(10));
    assert!(
        ElementHandle::find_by_accessible_label(window, "Nastavení")
            .next()
            .is_some()
            || ElementQuery::from_root(window)
                .match_descendants()
                .match_predicate(|e| e.accessible_label().is_some_and(|l| l == "Zpět"))
                .find_first()
                .is_some(),
        "no Czech label after choosing Čeština"
    );
    // The board's option is named as a board ("hrací plán"), not as the
    // rules ("pravidla"), which share the English word "Classic".
    assert!(
        ElementHandle::find_by_accessible_label(window, "Klasický hrací plán")
            .next()
            .is_some(),
        "the board's Classic is not Klasický hrací plán"
    );
    mock_elapsed_time(Duration::from_millis(500));
    assert!(saved().contains("\"language\": \"czech\""), "{}", saved());
    // The nickname nobody chose follows the language; a chosen one stays,
    // and a cleared field stays empty while the player types another.
    assert_eq!(first_name(), "Hráč");
    adapter.set_nickname("Eva".into());
    adapter.set_language(5); // Deutsch
    adapter.invoke_changed();
    assert_eq!(first_name(), "Eva");
    adapter.set_nickname(" ".into());
    adapter.invoke_changed();
    assert_eq!(adapter.get_nickname(), " ");
    assert_eq!(first_name(), "Spieler");
    mock_elapsed_time(Duration::from_millis(400));
    adapter.set_nickname(" E".into());
    adapter.invoke_changed();
    mock_elapsed_time(Duration::from_millis(400));
    assert!(saved().contains("\"language\": \"czech\""), "{}", saved());
    mock_elapsed_time(Duration::from_millis(100));
    assert!(saved().contains("\"nickname\": \" E\""), "{}", saved());

    // A name typed for the first seat of pass and play stays through
    // other changes of the settings.
    setup.invoke_rename(0, "Ana".into());
    // A game on this device is played on the board of the settings.
    adapter.set_theme(BoardTheme::Sea);
    adapter.invoke_changed();
    assert_eq!(first_name(), "Ana");
    window
        .global::<clovece::app::ui::SetupAdapter>()
        .invoke_start();
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
    assert_eq!(window.global::<GameAdapter>().get_board(), BoardTheme::Sea);
}

#[test]
fn a_settings_change_is_saved_at_once_when_the_app_goes_to_the_background() {
    ui_support::init();
    let folder = settings_dir("settings-background");
    let dir = folder.path();
    let lifecycle = clovece::platform::Platform::desktop().lifecycle;
    let services = clovece::app::Services {
        lifecycle: lifecycle.clone(),
        ..clovece::app::Services::desktop()
    };
    let app = ui_support::app_on(dir, 1, services);
    let adapter = app.window().global::<clovece::app::ui::SettingsAdapter>();
    adapter.set_nickname("Eva".into());
    adapter.invoke_changed();
    let saved = || std::fs::read_to_string(dir.join("settings.json")).unwrap();
    assert!(!saved().contains("Eva"), "saved at once");
    // The player switches apps; the system may kill the app now.
    lifecycle.pause().unwrap();
    assert!(saved().contains("\"nickname\": \"Eva\""), "{}", saved());
}

#[test]
fn the_english_default_nickname_of_an_earlier_version_follows_the_language() {
    use clovece::app::settings::{Language, Settings, SettingsFile};
    ui_support::init();
    let folder = settings_dir("legacy-nickname");
    let file = SettingsFile::in_folder(folder.path());
    file.save(&Settings {
        nickname: "Player".into(),
        language: Language::Croatian,
        ..Settings::default()
    })
    .unwrap();
    let app = clovece::app::App::with_services(
        file,
        clovece::app::dice::Dice::from_seed([1; 32]),
        ui_support::loopback_services(),
    )
    .unwrap();
    let window = app.window();
    let settings = window.global::<clovece::app::ui::SettingsAdapter>();
    assert_eq!(settings.get_nickname(), "");
    let names = window
        .global::<clovece::app::ui::SetupAdapter>()
        .get_names();
    assert_eq!(names.row_data(0).unwrap(), "Igrač");
}

/// A person's act: taps the die if it takes a tap (whether it did), else
/// the first piece that can move.
fn roll_or_move(window: &AppWindow) -> bool {
    let die = find(window, "Die");
    let rolls = die.accessible_enabled() == Some(true);
    if rolls {
        die.mock_single_click(PointerEventButton::Left);
    } else {
        enabled(window, "piece")[0].mock_single_click(PointerEventButton::Left);
    }
    rolls
}

/// In pass and play, the turn passing from one person to the next does
/// not let the second tap of a double tap (or a held key) roll the next
/// person's die: it waits a moment first.
#[test]
fn in_pass_and_play_a_double_tap_does_not_roll_for_the_next_person() {
    let (_folder, app) = shown("handover", 7);
    let window = app.window();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let game = window.global::<GameAdapter>();
    for handovers in 0..3 {
        let turn = game.get_turn();
        let mut acts = 0;
        while game.get_turn() == turn {
            roll_or_move(window);
            acts += 1;
            assert!(acts < 100, "the turn never passed");
        }
        let rolls = game.get_rolls();
        assert!(!game.get_can_roll(), "hand-over {handovers}: the die waits");
        find(window, "Die").mock_single_click(PointerEventButton::Left);
        assert_eq!(
            game.get_rolls(),
            rolls,
            "hand-over {handovers}: nothing rolled"
        );
        mock_elapsed_time(HANDOVER);
        assert!(game.get_can_roll(), "hand-over {handovers}: then it rolls");
    }
}

#[test]
fn the_fairness_view_lists_every_roll_and_each_players_faces() {
    let (_folder, app) = shown("fairness", 3);
    let window = app.window();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let game = window.global::<GameAdapter>();
    let mut rolled = Vec::new();
    while rolled.len() < 5 {
        if roll_or_move(window) {
            rolled.push(game.get_die());
        }
        mock_elapsed_time(HANDOVER);
    }

    find(window, "Rolls: roll history and dice statistics")
        .mock_single_click(PointerEventButton::Left);
    for (i, &die) in rolled.iter().enumerate() {
        let roll = ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(move |e| {
                e.accessible_label().is_some_and(|l| {
                    l.starts_with(&format!("Roll {}: ", i + 1))
                        && l.ends_with(&format!(" rolled {die}"))
                })
            })
            .find_first();
        assert!(roll.is_some(), "roll {} ({die}) is not listed", i + 1);
    }
    // Each player's rolls add up to all the rolls, and each face's count
    // is shown.
    // (A label set on a layout is seen on the elements it lowers to.)
    let labels: std::collections::BTreeSet<String> = ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(|e| e.accessible_label().is_some_and(|l| l.ends_with(" times")))
        .find_all()
        .iter()
        .map(label_of)
        .collect();
    let totals: usize = labels
        .iter()
        .map(|l| {
            let n = l.trim_end_matches(" times").rsplit(' ').next().unwrap();
            n.parse::<usize>().unwrap()
        })
        .sum();
    assert_eq!(totals, rolled.len(), "{labels:?}");
    let first = rolled[0];
    assert!(
        ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(move |e| e.accessible_label().is_some_and(|l| l
                .contains(&format!(": face {first}, count "))
                && !l.ends_with(", count 0")))
            .find_first()
            .is_some(),
        "the first roll's face is not counted"
    );

    find(window, "Back").mock_single_click(PointerEventButton::Left);
    assert!(
        ElementHandle::find_by_accessible_label(window, "Roll history")
            .next()
            .is_none()
    );
}

#[test]
fn when_the_turn_timer_runs_out_the_computer_rolls_for_the_person() {
    let (_folder, app) = shown("turn-timer", 4);
    let window = app.window();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "10 seconds per turn").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);

    let game = window.global::<GameAdapter>();
    assert!(find(window, "10 seconds left").is_valid());
    for _ in 0..3 {
        mock_elapsed_time(Duration::from_secs(1));
    }
    assert!(find(window, "7 seconds left").is_valid());
    assert_eq!(game.get_rolls(), 0);
    // The Rolls view, which covers the countdown, closes when 5 seconds
    // are left, so that the person sees their time run out.
    find(window, "Rolls: roll history and dice statistics")
        .mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Roll history"));
    mock_elapsed_time(Duration::from_secs(1));
    assert!(shows(window, "Roll history"), "6 seconds left");
    mock_elapsed_time(Duration::from_secs(1));
    assert!(!shows(window, "Roll history"), "5 seconds left");
    // A tap on its Back just as it closed lands on the game's own, in the
    // same place: it does not ask to leave while the time runs out.
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(!shows(window, "Leave this game?"));
    back(window);
    assert!(!shows(window, "Leave this game?"), "nor the phone's Back");
    // Nor does it open again while the time runs out, and a screen
    // reader says why its button is greyed.
    let rolls = find(window, "Rolls: roll history and dice statistics");
    rolls.mock_single_click(PointerEventButton::Left);
    assert!(!shows(window, "Roll history"), "opened with 5 seconds left");
    assert_eq!(
        rolls.accessible_description().as_deref(),
        Some("Not while your time runs out: roll or move first")
    );
    for _ in 0..5 {
        mock_elapsed_time(Duration::from_secs(1));
    }
    // Time is up: the computer rolled for red, and the next decision has
    // the full time again.
    assert_eq!(game.get_rolls(), 1);
    assert!(find(window, "10 seconds left").is_valid());
    assert_eq!(rolls.accessible_description().as_deref(), Some(""));
    // Red tries again for a six: told why the die shows a roll already,
    // until it rolls itself.
    let told = "The computer played when your time ran out. Tap the die to roll";
    assert!(shows(window, told));
    find(window, "Die").mock_single_click(PointerEventButton::Left);
    mock_elapsed_time(Duration::from_secs(2));
    assert_eq!(game.get_rolls(), 2);
    assert!(!game.get_ran_out());
    assert!(!shows(window, told));
    // Long after the Rolls view closed, Back asks to leave as ever.
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Leave this game?"));
}

/// A long nickname is cut short in the turn line, so that the words after
/// it stay in view; a screen reader hears it whole.
#[test]
fn the_turn_line_cuts_a_long_nickname_short_and_says_it_whole() {
    let (_folder, app) = shown("long-name", 4);
    let window = app.window();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    let setup = window.global::<SetupAdapter>();
    setup.invoke_rename(0, "Maximilian Mustermann".into());
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let game = window.global::<GameAdapter>();
    assert_eq!(game.get_turn_name(), "Maximilian Mustermann");
    assert_eq!(game.get_turn_short_name(), "Maximilia…");
    assert!(shows(window, "Maximilian Mustermann's turn"));
}

/// In pass and play the leave question is the asker's: it stays open
/// through their own turn, its clock running, and closes when the device
/// passes to the next person, whose clock then runs on the board.
#[test]
fn in_pass_and_play_a_leave_question_left_open_closes_for_the_next_person() {
    let (_folder, app) = shown("leave-handover", 4);
    let window = app.window();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "10 seconds per turn").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let game = window.global::<GameAdapter>();
    let asker = game.get_turn();
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    let mut seconds = 0;
    while game.get_turn() == asker {
        assert!(shows(window, "Leave this game?"), "open after {seconds} s");
        mock_elapsed_time(Duration::from_secs(1));
        seconds += 1;
        assert!(seconds < 100, "the turn never passed");
    }
    assert!(
        seconds > 10,
        "the computer played at least once for the asker"
    );
    assert!(!shows(window, "Leave this game?"));
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
    // Nor does the keyboard stay on Leave for the next person's Enter.
    mock_elapsed_time(Duration::ZERO);
    press(window, Key::Return);
    assert!(!shows(window, "Leave this game?"), "Enter reopened it");
}

#[test]
fn the_turn_timer_waits_while_the_app_is_in_the_background() {
    ui_support::init();
    let folder = settings_dir("timer-paused");
    let lifecycle = clovece::platform::Platform::desktop().lifecycle;
    let services = clovece::app::Services {
        lifecycle: lifecycle.clone(),
        ..clovece::app::Services::desktop()
    };
    let app = ui_support::app_on(folder.path(), 4, services);
    let window = app.window();
    window.show().unwrap();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "10 seconds per turn").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    mock_elapsed_time(Duration::from_secs(1));
    assert!(find(window, "9 seconds left").is_valid());
    // The screen went off: nobody can act, so nobody's time runs out.
    lifecycle.pause().unwrap();
    for _ in 0..20 {
        mock_elapsed_time(Duration::from_secs(1));
    }
    assert!(find(window, "9 seconds left").is_valid());
    assert_eq!(window.global::<GameAdapter>().get_rolls(), 0);
    lifecycle.resume().unwrap();
    mock_elapsed_time(Duration::from_secs(1));
    assert!(find(window, "8 seconds left").is_valid());
}

#[test]
fn a_game_against_the_computer_has_no_turn_timer() {
    let (_folder, app) = against_the_computer("no-timer", 4);
    let window = app.window();
    assert_eq!(window.global::<GameAdapter>().get_time_left(), -1);
    assert!(
        ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(|e| e
                .accessible_label()
                .is_some_and(|l| l.ends_with("seconds left")))
            .find_first()
            .is_none()
    );
}

/// The players' chips are updated in place as the game goes on (an
/// online game shows them again every second while a phone is waited
/// for): new rows would throw a screen reader off the chip it reads.
#[test]
fn the_players_chips_are_updated_in_place() {
    let (_folder, app) = against_the_computer("chips", 4);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    let chips = game.get_players();
    // A roll (its die turns for a moment) shows the game again.
    find(window, "Die").mock_single_click(PointerEventButton::Left);
    mock_elapsed_time(Duration::from_millis(500));
    assert_ne!(game.get_die(), 0, "rolled");
    assert!(game.get_players() == chips, "the same rows");
}

#[test]
fn a_dropped_player_is_marked_with_the_time_waited_and_the_computer_with_its_mark() {
    let (_folder, app) = against_the_computer("waiting", 4);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    let mut players: Vec<_> = game.get_players().iter().collect();
    assert!(players[1].computer, "the second seat is the computer's");
    assert!(find(window, "Green (Green, computer), 0 home").is_valid());
    // The online game (wired later) reports how long it has waited.
    players[1].waiting = 32;
    game.set_players(slint::ModelRc::new(slint::VecModel::from(players)));
    let waiting = "Green (Green, computer), 0 home, waiting 0:32";
    assert!(find(window, waiting).is_valid());
    // A Matfyz game's chips (with what each player holds) say it too.
    // (On a phone four chips share the width and show the time alone,
    // which a screen reader does not hear apart from the label:
    // screenshot board-matfyz-waiting.)
    window.global::<MatfyzAdapter>().set_active(true);
    assert!(find(window, waiting).is_valid());
}

/// The question whether to leave covers the turn clock: while the player
/// is to act, it shows the time left itself.
#[test]
fn asked_whether_to_leave_the_player_sees_their_time_run() {
    let (_folder, app) = against_the_computer("leave-clock", 1);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    game.set_time_left(12);
    game.set_can_roll(true);
    let clocks = || ElementHandle::find_by_accessible_label(window, "12 seconds left").count();
    let under = clocks();
    assert!(under > 0, "the turn line's clock");
    back(window);
    assert!(shows(window, "Leave this game?"));
    assert!(clocks() > under, "the question's clock too");
    // Another's turn runs no clock of this player's.
    game.set_can_roll(false);
    assert_eq!(clocks(), under);
}

#[test]
fn quiet_phones_are_said_with_the_time_before_the_computer_plays_for_them() {
    let (_folder, app) = against_the_computer("silence", 4);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    let one = "Ana: the phone is silent — the computer plays for them in 0:32";
    let two = "2 phones are silent — the computer plays for them in 0:05";
    assert!(
        !shows(window, one),
        "a game on this device waits on no phone"
    );
    // The online game (tested in app_resume) sets it.
    let mut silence = Silence {
        phones: 1,
        name: "Ana".into(),
        hue: Hue::Blue,
        seconds: 32,
    };
    game.set_silence(silence.clone());
    assert!(shows(window, one));
    silence.phones = 2;
    silence.seconds = 5;
    game.set_silence(silence);
    assert!(shows(window, two));
    // A game that cannot go on says so instead: no computer will come.
    game.set_stranded(true);
    assert!(!shows(window, two));
}

#[test]
fn a_phone_back_in_a_game_is_told_the_computer_plays_for_it_until_the_turn_passes() {
    let (_folder, app) = against_the_computer("away", 4);
    let window = app.window();
    let held = "Your phone dropped out again: you come back after some more rolls. The computer plays for you meanwhile";
    let coming = "Coming back into the game…";
    let back = "You are back: the computer plays for you until the turn passes";
    assert!(!shows(window, back));
    // The online game (tested in online_game) sets it.
    let game = window.global::<GameAdapter>();
    game.set_away(AwayKind::Held);
    assert!(shows(window, held));
    game.set_away(AwayKind::Coming);
    assert!(shows(window, coming));
    assert!(!shows(window, held));
    game.set_away(AwayKind::Back);
    assert!(shows(window, back));
    assert!(!shows(window, coming));
}

#[test]
fn a_game_that_cannot_go_on_without_the_gone_phones_says_so_and_offers_leave() {
    let (_folder, app) = against_the_computer("stranded", 4);
    let window = app.window();
    let note = "The other players' phones are gone, and this phone cannot play on without them. Wait for them, or leave the game.";
    assert!(!shows(window, note));
    // The online game (tested in app_resume and online_game) sets it, and
    // what leaving costs.
    let adapter = window.global::<GameAdapter>();
    adapter.set_leave_cost(clovece::app::ui::LeaveCost::TwoLosses);
    adapter.set_stranded(true);
    assert!(shows(window, note));
    let leaves = ElementHandle::find_by_accessible_label(window, "Leave game").count();
    assert_eq!(leaves, 2, "Leave beside the note, and in the title bar");
    ElementHandle::find_by_accessible_label(window, "Leave game")
        .last()
        .unwrap()
        .mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Stay"), "asked first, as always");
    assert!(
        shows(
            window,
            "The other players' phones are gone: leaving now counts as one loss, as when a phone drops out."
        ),
        "a drop's cost, not a leave's"
    );
    // The others back, leaving costs a leave's again: asked anew.
    adapter.set_stranded(false);
    // (A `changed` handler runs as the event loop next turns.)
    mock_elapsed_time(Duration::ZERO);
    assert!(
        !shows(window, "Stay"),
        "the question at the old cost closes"
    );
    adapter.set_leave_cost(clovece::app::ui::LeaveCost::Nothing);
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    // The next game on this device has no gone phones.
    play_the_computer(window);
    assert!(!shows(window, note));
}

/// A phone found gone again waits many rolls to be let back, with no turn
/// to sign a leave in: leaving then is a drop, and the question says so,
/// and is asked anew once the phone is let back.
#[test]
fn leaving_while_held_back_from_the_game_costs_a_drop() {
    let (_folder, app) = against_the_computer("held", 4);
    let window = app.window();
    let adapter = window.global::<GameAdapter>();
    adapter.set_leave_cost(clovece::app::ui::LeaveCost::TwoLosses);
    adapter.set_away(AwayKind::Held);
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    let drop = "Your phone waits to be let back into the game: leaving now counts as one loss, as when a phone drops out.";
    assert!(shows(window, drop), "a drop's cost, not a leave's");
    adapter.set_away(AwayKind::Back);
    mock_elapsed_time(Duration::ZERO);
    assert!(
        !shows(window, "Stay"),
        "the question at the old cost closes"
    );
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(shows(
        window,
        "You leave an online game: it counts as two losses."
    ));
}

#[test]
fn while_the_first_player_is_drawn_or_after_an_end_without_a_winner_the_header_names_no_turn() {
    let (_folder, app) = against_the_computer("drawing", 4);
    let window = app.window();
    let drawing = "Drawing who begins…";
    let unwon = "The game ended without a winner.";
    assert!(shows(window, "Your turn"));
    // The online game (tested in online_game) sets them during the draw
    // and once its dice ran out.
    let adapter = window.global::<GameAdapter>();
    adapter.set_drawing(true);
    assert!(shows(window, drawing));
    assert!(!shows(window, "Your turn"));
    adapter.set_drawing(false);
    // The seats' rolls that choose who begins say how they do.
    for (opening, said) in [
        (
            OpeningKind::FirstSix,
            "The first to roll a six begins (three tries each)",
        ),
        (
            OpeningKind::HighestRoll,
            "The highest roll begins; a tie rolls again",
        ),
    ] {
        adapter.set_opening(opening);
        assert!(shows(window, said), "{said}");
    }
    adapter.set_opening(OpeningKind::None);
    adapter.set_unwon(true);
    assert!(shows(window, unwon));
    assert!(!shows(window, "Your turn"));
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    // A game on this device draws nobody and has its winner.
    play_the_computer(window);
    assert!(!shows(window, drawing));
    assert!(!shows(window, unwon));
    assert!(shows(window, "Your turn"));
}

#[test]
fn the_notes_of_what_befell_a_seat_say_whose_it_was() {
    let (_folder, app) = against_the_computer("turn-lost", 1);
    let window = app.window();
    let adapter = window.global::<GameAdapter>();
    for (kind, number, said) in [
        (
            NoteKind::TurnLost,
            4,
            "Yellow: no piece can move with a 4 — turn lost",
        ),
        (
            NoteKind::TurnLost,
            0,
            "Yellow: no piece can move — turn lost",
        ),
        (
            NoteKind::Unused,
            4,
            "Yellow: no piece can move with the 4 left — turn over",
        ),
        (
            NoteKind::Unused,
            0,
            "Yellow: no piece can move with the rolls left — turn over",
        ),
        (
            NoteKind::NoSix,
            0,
            "Yellow: no six in three tries — turn lost",
        ),
        (
            NoteKind::TimedOut,
            0,
            "Yellow: time ran out — the computer stepped in",
        ),
        (
            NoteKind::Left,
            0,
            "Yellow: left the game — the computer plays on",
        ),
        (
            NoteKind::Gone,
            0,
            "Yellow: the phone is gone — the computer plays on",
        ),
        (
            NoteKind::Undone,
            0,
            "Back in touch: the turns played apart were undone",
        ),
        (NoteKind::Tie, 5, "A tie at 5: the tied players roll again"),
    ] {
        adapter.set_note(clovece::app::ui::Note {
            kind,
            number,
            piece: Hue::Yellow,
            by: Hue::Yellow,
            to: Hue::Yellow,
            yours: false,
            name: "".into(),
        });
        assert!(shows(window, said), "{said}");
        // A player with a name is named, as the heading names them.
        adapter.set_note(clovece::app::ui::Note {
            kind,
            number,
            piece: Hue::Yellow,
            name: "Ivo".into(),
            ..Default::default()
        });
        let named = said.replace("Yellow", "Ivo");
        assert!(shows(window, &named), "{named}");
    }
    // A capture names colours, shown with their marks (the screenshots'
    // "● Rot schlägt ▬ Grün"), spoken without.
    adapter.set_note(clovece::app::ui::Note {
        kind: NoteKind::Captured,
        piece: Hue::Green,
        by: Hue::Red,
        ..Default::default()
    });
    assert!(shows(window, "Green captured by Red"));
    // Said to the device's one person about their own time, which agrees
    // with no one's gender in any language.
    adapter.set_note(clovece::app::ui::Note {
        kind: NoteKind::TimedOut,
        piece: Hue::Red,
        yours: true,
        ..Default::default()
    });
    assert!(shows(window, "Your time ran out — the computer stepped in"));
    // The hint below does not say it again.
    adapter.set_can_roll(true);
    adapter.set_ran_out(true);
    assert!(shows(window, "Tap the die to roll"));
    assert!(!shows(
        window,
        "The computer played when your time ran out. Tap the die to roll"
    ));
}

#[test]
fn an_online_game_that_ended_without_a_winner_names_nobody() {
    let (_folder, app) = shown("no-winner", 1);
    let window = app.window();
    let result = window.global::<ResultAdapter>();
    result.set_winner_name("Hana".into());
    // Everyone left or the dice ran out (the online adapter's `over`).
    result.set_won(false);
    window.global::<AppAdapter>().set_screen(Screen::Result);
    assert!(shows(window, "The game ended without a winner."));
    assert!(!shows(window, "Hana wins!"));
    result.set_won(true);
    assert!(shows(window, "Hana wins!"));
    // A win the statistics count as a loss says why.
    let why = "Your phone was away when your own roll was due, so your statistics count this game as a loss, whoever wins it.";
    assert!(!shows(window, why));
    result.set_counted_as_lost(true);
    assert!(shows(window, why));
    result.set_counted_as_lost(false);
    // The host of an online game may open the next room; a guest joins it.
    result.set_online(true);
    result.set_hosted(true);
    assert!(shows(window, "Host a new room"));
    assert!(!shows(window, "Play again"));
    result.set_hosted(false);
    assert!(!shows(window, "Host a new room"));
}

#[test]
fn the_keyboard_scrolls_to_the_control_it_reaches_and_by_page() {
    ui_support::init();
    let folder = settings_dir("keyboard-scroll");
    let app = app(folder.path(), 5);
    let window = app.window();
    window.window().set_size(slint::PhysicalSize::new(360, 420));
    window.show().unwrap();
    // The top of the first element whose label starts so, if it is all in
    // the window (the look-up finds nothing scrolled out of sight).
    let in_view = |start: &'static str| {
        let e = ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.starts_with(start)))
            .find_first()?;
        let (top, height) = (e.absolute_position().y, e.size().height);
        (top >= 0.0 && top + height <= 420.0).then_some(top)
    };
    // Home's last button is below a short window until Tab reaches it
    // (Slint scrolls to the focused control).
    assert_eq!(in_view("Settings"), None);
    for _ in 0..8 {
        press(window, Key::Tab);
    }
    assert!(in_view("Settings").is_some());
    // Tab round to the first: back up.
    press(window, Key::Tab);
    assert!(in_view("Play against the computer").is_some());

    // How to play has nothing to focus: the arrow and page keys move it.
    for _ in 0..6 {
        press(window, Key::Tab);
    }
    press(window, Key::Return);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Rules);
    let first = "Roll the die";
    let before = in_view(first).expect("the first rule in view");
    press(window, Key::DownArrow);
    let after = in_view(first).expect("a line further, still in view");
    assert!(after < before, "{before} → {after}");
    press(window, Key::PageDown);
    assert_eq!(in_view(first), None, "a page further");
    press(window, Key::PageUp);
    press(window, Key::UpArrow);
    let back = in_view(first).expect("back in view");
    assert!((back - before).abs() < 0.5, "{before} → {back}");
}

/// Four players and the note on the smallest phone (an iPhone SE, 548 px
/// high): the result's buttons are below the screen, and scroll into it
/// (they ran off the bottom, unreachable).
#[test]
fn a_result_taller_than_a_small_phone_scrolls_to_its_buttons() {
    use clovece::app::ui::PlayerData;
    ui_support::init();
    let folder = settings_dir("result-scroll");
    let app = app(folder.path(), 5);
    let window = app.window();
    window.window().set_size(slint::PhysicalSize::new(320, 548));
    window.show().unwrap();
    let result = window.global::<ResultAdapter>();
    let player = |hue, name: &str| PlayerData {
        hue,
        name: name.into(),
        computer: false,
        active: false,
        home: 4,
        waiting: -1,
        left: false,
    };
    let placings = [
        player(Hue::Red, "Maximiliane Roswitha"),
        player(Hue::Blue, "Ivo"),
        player(Hue::Green, "Jana"),
        player(Hue::Yellow, "Dana"),
    ];
    result.set_placings(slint::ModelRc::new(slint::VecModel::from(
        placings.to_vec(),
    )));
    result.set_won(true);
    result.set_winner_name("Maximiliane Roswitha".into());
    result.set_counted_as_lost(true);
    result.set_online(true);
    result.set_hosted(true);
    window.global::<AppAdapter>().set_screen(Screen::Result);
    let home_in_view = || {
        ElementHandle::find_by_accessible_label(window, "Home")
            .next()
            .is_some_and(|e| e.absolute_position().y + e.size().height <= 548.0)
    };
    assert!(!home_in_view(), "below a small phone's screen");
    press(window, Key::PageDown);
    press(window, Key::PageDown);
    assert!(home_in_view(), "scrolled into it");
}

#[test]
fn a_question_opened_by_a_tap_gives_tab_its_first_control() {
    let (_folder, app) = against_the_computer("keyboard-late", 5);
    let window = app.window();
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Leave this game?"));
    // The question holds the keyboard without a control; the first Tab
    // goes to Stay, not round to Leave.
    press(window, Key::Tab);
    press(window, Key::Return);
    assert!(!shows(window, "Leave this game?"));
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
}

#[test]
fn the_keyboard_alone_starts_and_plays_a_game_and_stays_inside_the_leave_question() {
    let (_folder, app) = shown("keyboard", 5);
    let window = app.window();
    let screen = || window.global::<AppAdapter>().get_screen();

    // Home's first control, then the setup's last (Start): Shift+Tab from
    // the window's own scope goes round to the end.
    press(window, Key::Tab);
    press(window, Key::Return);
    assert_eq!(screen(), Screen::Setup);
    // "‹", then the players' options: choosing one keeps the keyboard on
    // it, so that Tab goes on to the next.
    let players = || window.global::<SetupAdapter>().get_players();
    for _ in 0..3 {
        press(window, Key::Tab);
    }
    press(window, Key::Return);
    assert_eq!(players(), 3);
    press(window, Key::Tab);
    press(window, Key::Space);
    assert_eq!(players(), 4);
    press(window, Key::Backtab);
    press(window, Key::Backtab);
    press(window, Key::Return);
    assert_eq!(players(), 2);
    // Round the end, from "‹": Start.
    press(window, Key::Backtab);
    press(window, Key::Backtab);
    press(window, Key::Space);
    assert_eq!(screen(), Screen::Game);

    let game = window.global::<GameAdapter>();
    let leaving = || shows(window, "Leave this game?");
    let (mut rolls, mut moves, mut rolled) = (0, 0, false);
    for _ in 0..2_000 {
        if moves >= 6 {
            break;
        }
        if game.get_can_roll() {
            // After a move the piece, no longer movable, gave the focus
            // back to the window, and Shift+Tab finds the die (the last
            // control while it may be rolled). After a roll the die may
            // still hold it: Escape asks to leave and Escape again stays,
            // and the keyboard is back on "‹".
            if rolled {
                press(window, Key::Escape);
                assert!(leaving());
                press(window, Key::Escape);
                assert!(!leaving());
            }
            press(window, Key::Backtab);
            let before = game.get_rolls();
            press(window, Key::Return);
            assert_eq!(game.get_rolls(), before + 1, "Enter on the die rolls");
            rolls += 1;
            rolled = true;
            mock_elapsed_time(Duration::from_millis(500));
        } else if game.get_must_move() && !game.get_turn_computer() {
            // The rolled die gave the focus back: Shift+Tab finds the
            // last piece that may move.
            let places = || {
                let pieces = game.get_pieces();
                pieces.iter().map(|p| (p.col, p.row)).collect::<Vec<_>>()
            };
            let before = places();
            press(window, Key::Backtab);
            press(window, Key::Return);
            assert_ne!(places(), before, "Enter on a piece moves it");
            moves += 1;
            rolled = false;
            mock_elapsed_time(Duration::from_millis(400));
        } else {
            mock_elapsed_time(COMPUTER_PACE.max(RESULT_DELAY));
        }
    }
    assert!(moves >= 6, "{rolls} rolls, {moves} moves");

    // The question keeps the keyboard: it opens on Stay, Tab goes to Leave
    // and round to Stay again, never to the board beneath.
    press(window, Key::Escape);
    assert!(leaving());
    for _ in 0..2 {
        press(window, Key::Tab);
    }
    press(window, Key::Return);
    assert!(!leaving());
    assert_eq!(screen(), Screen::Game);
    // Escape still asks (the keyboard went back to "‹" as Stay went), and
    // Shift+Tab from Stay goes round to Leave.
    press(window, Key::Escape);
    assert!(leaving());
    press(window, Key::Backtab);
    press(window, Key::Return);
    assert_eq!(screen(), Screen::Home);
}

#[test]
fn androids_back_key_goes_back_on_every_screen_and_asks_before_leaving_a_game() {
    let (_folder, app) = shown("back", 1);
    let window = app.window();
    let screen = || window.global::<AppAdapter>().get_screen();

    for (button, opened) in [
        ("Settings", Screen::Settings),
        ("Statistics", Screen::Statistics),
        ("Play against the computer", Screen::Setup),
    ] {
        find(window, button).mock_single_click(PointerEventButton::Left);
        assert_eq!(screen(), opened);
        back(window);
        assert_eq!(screen(), Screen::Home, "back from {button}");
    }
    // With the code field focused, Back still leaves the join screen.
    find(window, "Join a room").mock_single_click(PointerEventButton::Left);
    ui_support::text_field(window, "Room code or ticket link")
        .mock_single_click(PointerEventButton::Left);
    back(window);
    assert_eq!(screen(), Screen::Home);
    // On Home, Back is left to the system, which closes the app.
    back(window);
    assert_eq!(screen(), Screen::Home);
    // An invitation shown over Home is answered first: Back declines it.
    let invites = window.global::<clovece::app::ui::InviteAdapter>();
    invites.set_invited(true);
    back(window);
    assert!(!invites.get_invited());
    assert_eq!(screen(), Screen::Home);

    // In a game, Back asks first; Back again is Stay.
    play_the_computer(window);
    back(window);
    assert!(shows(window, "Stay"));
    back(window);
    assert!(!shows(window, "Stay"));
    assert_eq!(screen(), Screen::Game);
    back(window);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    assert_eq!(screen(), Screen::Home);
}

#[test]
fn a_matfyz_question_shows_the_time_left_to_answer_it() {
    let (_folder, app) = against_the_computer("sheet-clock", 1);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    let matfyz = window.global::<MatfyzAdapter>();
    game.set_time_left(12);
    let clocks = || {
        ElementHandle::find_by_accessible_label(window, "12 seconds left")
            .filter(|e| e.is_valid())
            .count()
    };
    assert_eq!(clocks(), 1, "the header's");
    // The sheet of plans covers the header's clock on a phone: it shows
    // its own.
    matfyz.set_choice(ChoiceKind::Plan);
    assert!(shows(window, "How far does the piece go?"));
    assert_eq!(clocks(), 2);
    matfyz.set_choice(ChoiceKind::None);
    assert_eq!(clocks(), 1);
}

/// A guest that lost touch with its host (its Wi-Fi gone, or the host's)
/// is told so while it tries again, up to the 45 s of a signed start.
#[test]
fn a_guest_out_of_touch_with_its_host_is_told_so() {
    use clovece::app::ui::{RoomAdapter, SeatData, SeatKind};
    let (_folder, app) = shown("out-of-touch", 1);
    let window = app.window();
    let room = window.global::<RoomAdapter>();
    let seats = vec![SeatData {
        kind: SeatKind::Host,
        ..SeatData::default()
    }];
    room.set_seats(slint::ModelRc::new(slint::VecModel::from(seats)));
    window.global::<AppAdapter>().set_screen(Screen::Room);
    let said = "Lost touch with the host's phone: trying to reach it again…";
    assert!(!shows(window, said));
    room.set_out_of_touch(true);
    assert!(shows(window, said));
    room.set_out_of_touch(false);
    assert!(!shows(window, said));
}

#[test]
fn closing_a_room_with_guests_in_it_asks_first() {
    use clovece::app::ui::{RoomAdapter, SeatData, SeatKind};
    let (_folder, app) = shown("close-room", 1);
    let window = app.window();
    let room = window.global::<RoomAdapter>();
    room.set_hosting(true);
    let seat = |kind| SeatData {
        kind,
        ..SeatData::default()
    };
    let seats = vec![seat(SeatKind::Host), seat(SeatKind::Guest)];
    room.set_seats(slint::ModelRc::new(slint::VecModel::from(seats)));
    room.set_guests(true);
    let screen = || window.global::<AppAdapter>().get_screen();
    window.global::<AppAdapter>().set_screen(Screen::Room);
    // The phone's Back asks, and answers the question.
    back(window);
    assert!(shows(window, "Close the room?"));
    assert!(shows(window, "The players in it are sent away."));
    back(window);
    assert!(!shows(window, "Close the room?"));
    assert_eq!(screen(), Screen::Room);
    // So does the screen's own; Stay keeps the room, Close closes it.
    find(window, "Leave the room").mock_single_click(PointerEventButton::Left);
    find(window, "Stay").mock_single_click(PointerEventButton::Left);
    assert_eq!(screen(), Screen::Room);
    find(window, "Leave the room").mock_single_click(PointerEventButton::Left);
    find(window, "Close").mock_single_click(PointerEventButton::Left);
    assert_eq!(screen(), Screen::Home);
}

#[test]
fn back_still_works_after_the_focused_name_field_went_with_its_seat() {
    let (_folder, app) = shown("back-field", 1);
    let window = app.window();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "4 players").mock_single_click(PointerEventButton::Left);
    ui_support::text_field(window, "Name of Yellow").mock_single_click(PointerEventButton::Left);
    // Two players: yellow's field, focused, is gone.
    find(window, "2 players").mock_single_click(PointerEventButton::Left);
    back(window);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
}

/// The screen's idle timeout as a switch a test reads.
struct ScreenSwitch(Arc<AtomicBool>);

impl clovece::platform::awake::ScreenTimeout for ScreenSwitch {
    fn keep_on(&mut self, on: bool) -> Result<(), clovece::platform::PlatformError> {
        self.0.store(on, Ordering::Relaxed);
        Ok(())
    }
}

#[test]
fn the_screen_stays_on_while_a_game_or_a_room_is_shown() {
    ui_support::init();
    let folder = settings_dir("screen-on");
    let on = Arc::new(AtomicBool::new(false));
    let services = clovece::app::Services {
        lifecycle: clovece::platform::Platform::desktop()
            .lifecycle
            .with_screen(ScreenSwitch(on.clone())),
        ..clovece::app::Services::desktop()
    };
    let app = ui_support::app_on(folder.path(), 4, services);
    let window = app.window();
    window.show().unwrap();
    let kept_on = || {
        mock_elapsed_time(Duration::from_millis(10));
        on.load(Ordering::Relaxed)
    };

    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    assert!(!kept_on(), "setting a game up");
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    assert!(kept_on(), "in the game");
    back(window);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    assert!(!kept_on(), "home again");
    // A room waits for friends to find it, its code on screen.
    window.global::<AppAdapter>().set_screen(Screen::Room);
    assert!(kept_on(), "in a room");
    window.global::<AppAdapter>().set_screen(Screen::Home);
    assert!(!kept_on(), "home again");
}

#[test]
fn setup_offers_classic_croatian_and_matfyz_rules() {
    let (_folder, app) = shown("rules", 4);
    let window = app.window();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "Matfyz rules").mock_single_click(PointerEventButton::Left);
    assert!(find(window, "Shared pieces: move any colour you have neither in your base nor at home, and bring one of each colour home.").is_valid());
    find(window, "Croatian rules").mock_single_click(PointerEventButton::Left);
    assert!(find(window, "No jumping over pieces in the home row.").is_valid());
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
    assert!(!window.global::<MatfyzAdapter>().get_active());
}

/// A screen reader hears a choice with the group it is in ("Computer
/// level", "Medium"), not as a bare "Medium" or "2".
#[test]
fn a_choice_is_read_within_the_group_it_chooses_for() {
    use i_slint_backend_testing::{AccessibleRole, ElementHandle};
    let (_folder, app) = shown("groups", 4);
    let window = app.window();
    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    let group = |title: &str| {
        ElementHandle::find_by_accessible_label(window, title)
            .find(|e| e.accessible_role() == Some(AccessibleRole::Groupbox))
            .unwrap_or_else(|| panic!("no group {title}"))
    };
    let holds = |group: &ElementHandle, choice: &str| {
        let choice = choice.to_owned();
        group
            .query_descendants()
            .match_predicate(move |e| {
                e.accessible_role() == Some(AccessibleRole::RadioButton)
                    && e.accessible_label().is_some_and(|l| l == choice)
            })
            .find_first()
            .is_some()
    };
    assert!(holds(&group("Computer level"), "Medium"));
    assert!(holds(&group("Players"), "2 players"));
    assert!(!holds(&group("Players"), "Medium"));
}

/// What the invite list of a full room with a computer seat says.
const FULL_ROOM: &str = "Every seat is taken. To invite someone, first free a seat: take the computer out, or remove a guest.";

#[test]
fn a_full_rooms_invite_list_says_so_and_invites_nobody() {
    use clovece::app::ui::{InviteAdapter, InviteState, InviteeData, RoomAdapter};
    let (_folder, app) = shown("invite-full", 1);
    let window = app.window();
    window.global::<RoomAdapter>().set_hosting(true);
    let invite = window.global::<InviteAdapter>();
    invite.set_friends(slint::ModelRc::new(slint::VecModel::from(vec![
        InviteeData {
            name: "Jana".into(),
            peer: "".into(),
            state: InviteState::None,
        },
    ])));
    invite.set_listing(true);
    window.global::<AppAdapter>().set_screen(Screen::Room);
    assert!(!shows(window, FULL_ROOM));
    assert_eq!(find(window, "Invite Jana").accessible_enabled(), Some(true));
    invite.set_full(true);
    // With no computer seat, the one way to free a seat is said.
    assert!(shows(
        window,
        "Every seat is taken. To invite someone, first free a seat: remove a guest."
    ));
    assert_eq!(
        find(window, "Invite Jana").accessible_enabled(),
        Some(false)
    );
    invite.set_computer_seated(true);
    assert!(shows(window, FULL_ROOM));
}

#[test]
fn hosting_offers_each_rule_set_with_its_own_first_player() {
    let (_folder, app) = shown("host-rules", 4);
    let window = app.window();
    // Not asked for a nickname, so that every choice is in the window.
    window
        .global::<clovece::app::ui::SettingsAdapter>()
        .set_nickname("Hana".into());

    find(window, "Host a room").mock_single_click(PointerEventButton::Left);
    let room = window.global::<clovece::app::ui::RoomAdapter>();
    assert_eq!(room.get_rules(), clovece::app::ui::RuleChoice::Classic);
    // Each rule set brings its own way of choosing who begins (0 random,
    // 2 highest roll, 3 first six), which the host may change after.
    assert_eq!(room.get_first(), 0);
    find(window, "Matfyz rules").mock_single_click(PointerEventButton::Left);
    assert_eq!(room.get_rules(), clovece::app::ui::RuleChoice::Matfyz);
    assert_eq!(room.get_first(), 2);
    assert!(find(window, "Shared pieces: move any colour you have neither in your base nor at home, and bring one of each colour home.").is_valid());
    find(window, "Croatian rules").mock_single_click(PointerEventButton::Left);
    assert_eq!(room.get_first(), 3);
    find(window, "Red begins").mock_single_click(PointerEventButton::Left);
    assert_eq!(room.get_first(), 1);
    find(window, "Classic rules").mock_single_click(PointerEventButton::Left);
    assert_eq!(room.get_rules(), clovece::app::ui::RuleChoice::Classic);
    assert_eq!(room.get_first(), 0);
}

#[test]
fn the_room_screen_opens_for_a_guest_and_ready_toggles() {
    // The network thread reaches the window through the event loop, which
    // only the threaded testing backend runs, on one thread of the binary.
    ui_support::on_ui_thread(|| {
        let host_dir = tempfile::tempdir().unwrap();
        let mut host = process::peer(
            host_dir.path(),
            &["host", "--players", "2", "--name", "Hana", "--board", "sea"],
        );
        let (ticket, _) = process::ticket(&mut host);

        let folder = settings_dir("room");
        let dir = folder.path();
        let app = app(dir, 3);
        app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
        let window = app.window();
        window.show().unwrap();
        // A house rule of the settings goes with the classic rules.
        find(window, "Settings").mock_single_click(PointerEventButton::Left);
        switch(window, "Capturing is compulsory").mock_single_click(PointerEventButton::Left);
        window.global::<AppAdapter>().set_screen(Screen::Home);

        // Hosting: the options, then the room with its code and QR code; Start
        // waits for a full room.
        find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        find(window, "2 players").mock_single_click(PointerEventButton::Left);
        find(window, "10 seconds per turn").mock_single_click(PointerEventButton::Left);
        find(window, "Sea board").mock_single_click(PointerEventButton::Left);
        find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        let room = window.global::<clovece::app::ui::RoomAdapter>();
        pump_until("the room is open", || {
            shows(window, "QR code to join the room")
        });
        // The room offers the game chosen, as its network side says.
        pump_until("the room's game is shown", || room.get_has_terms());
        let terms = room.get_terms();
        assert_eq!((terms.players, terms.turn), (2, 10));
        assert_eq!(terms.board, BoardTheme::Sea);
        assert_eq!(terms.rules.kind, clovece::app::ui::RulesKind::Classic);
        assert!(terms.rules.compulsory_capture && !terms.rules.no_jump_home);
        assert_eq!(room.get_code().len(), 6, "a six-character code");
        assert!(shows(window, &format!("Room code {}", room.get_code())));
        assert!(shows(window, "Seat 1, Red: Player (host)"));
        assert!(shows(window, "Seat 2, Green: Empty seat"));
        assert_eq!(find(window, "Start").accessible_enabled(), Some(false));
        // Seats are reordered in a full room only.
        assert_eq!(
            find(window, "Move seat 2 up").accessible_enabled(),
            Some(false)
        );
        find(window, "Put the computer in seat 2").mock_single_click(PointerEventButton::Left);
        pump_until("the computer sits down", || {
            shows(window, "Seat 2, Green: Computer (Easy)")
        });
        pump_until("the host may start", || {
            find(window, "Start").accessible_enabled() == Some(true)
        });
        // Full, the room has no seat for anyone invited.
        find(window, "Invite players").mock_single_click(PointerEventButton::Left);
        assert!(shows(window, FULL_ROOM));
        find(window, "Close the invite list").mock_single_click(PointerEventButton::Left);
        assert_eq!(
            find(window, "Move seat 2 up").accessible_enabled(),
            Some(true)
        );
        find(window, "Leave the room").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);

        // A private room shows its QR code but no code, which finds no room.
        find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        find(window, "Private room, by invitation only")
            .mock_single_click(PointerEventButton::Left);
        find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        pump_until("the private room is open", || {
            shows(window, "QR code to join the room")
        });
        assert!(shows(
            window,
            "Private room: friends join with the QR code or the link"
        ));
        assert!(!shows(window, &format!("Room code {}", room.get_code())));
        // Its link, which the QR code holds, is there to copy and send:
        // a ticket of this room, with its secret.
        let link = ui_support::text_field(window, "Ticket link")
            .accessible_value()
            .unwrap_or_default();
        let linked: clovece::net::Ticket = link.parse().expect("the room's ticket");
        assert_eq!(linked.code().to_string(), room.get_code().as_str());
        assert!(linked.secret().is_some());
        // It is longer than the field shows: a button copies all of it,
        // which the join screen's Paste then reads.
        find(window, "Copy the link").mock_single_click(PointerEventButton::Left);
        assert!(shows(window, "Link copied"));
        mock_elapsed_time(Duration::from_secs(2));
        find(window, "Copy the link").mock_single_click(PointerEventButton::Left);
        mock_elapsed_time(Duration::from_secs(2));
        assert!(shows(window, "Link copied"), "said again for another copy");
        mock_elapsed_time(Duration::from_secs(2));
        assert!(!shows(window, "Link copied"), "said for a moment");
        find(window, "Leave the room").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
        find(window, "Join a room").mock_single_click(PointerEventButton::Left);
        find(window, "Paste").mock_single_click(PointerEventButton::Left);
        let pasted = ui_support::text_field(window, "Room code or ticket link")
            .accessible_value()
            .unwrap_or_default();
        assert_eq!(pasted, link);
        back(window);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);

        // Text that is no code, and a code that names no room nearby, are
        // explained on the room screen in the app's words.
        for (text, problem, said) in [
            (
                "not a room",
                RoomProblem::NotACode,
                "That is neither a room code nor a room's link.",
            ),
            (
                "K7M2QX",
                RoomProblem::NoRoom,
                "No open room nearby has this code. Check the code, or scan the room's QR code or paste its link.",
            ),
        ] {
            let join = window.global::<clovece::app::ui::JoinAdapter>();
            join.set_text(text.into());
            window.global::<AppAdapter>().invoke_join_room(text.into());
            assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
            pump_until("the bad code is explained", || {
                room.get_problem() == problem
            });
            assert!(shows(window, said), "{said}");
            // Nothing to be ready for: Home in its place, or, for a code
            // that found no room, the join screen with the code to mend.
            assert!(!shows(window, "Ready"));
            assert!(!shows(window, "Seats"), "no seats to head");
            let (button, back) = match problem {
                RoomProblem::NotACode => ("Home", Screen::Home),
                _ => ("Try another code", Screen::Join),
            };
            // The join screen listens for invitations again, as Home
            // does: the session that looked for the room has ended.
            let invites = window.global::<clovece::app::ui::InviteAdapter>();
            invites.set_inbox_problem("not listening".into());
            find(window, button).mock_single_click(PointerEventButton::Left);
            assert_eq!(window.global::<AppAdapter>().get_screen(), back);
            assert_eq!(join.get_text(), text);
            pump_until("the inbox listens again", || {
                invites.get_inbox_problem().is_empty()
            });
            window.global::<AppAdapter>().set_screen(Screen::Home);
        }

        window
            .global::<AppAdapter>()
            .invoke_join_room(ticket.into());
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Room);
        pump_until("the host's seat is shown", || {
            shows(window, "Seat 1, Red: Hana (host)")
        });
        assert!(
            shows(window, "Seat 2, Green: Player (you), not ready"),
            "the guest sits in seat 2, not ready, and knows it is its own"
        );

        find(window, "Ready").mock_single_click(PointerEventButton::Left);
        assert!(room.get_ready());
        // The host hears it.
        while !host.wait_for("seats: ").ends_with(" ready") {}
        // The host starts once everyone is ready: the game screen opens, an
        // online game whose leave costs two losses.
        pump_until("the online game starts", || {
            window.global::<AppAdapter>().get_screen() == Screen::Game
        });
        let game = window.global::<GameAdapter>();
        assert_eq!(
            game.get_leave_cost(),
            clovece::app::ui::LeaveCost::TwoLosses
        );
        // The room's board, not this phone's setting (classic).
        assert_eq!(
            window
                .global::<clovece::app::ui::SettingsAdapter>()
                .get_theme(),
            BoardTheme::Classic
        );
        assert_eq!(game.get_board(), BoardTheme::Sea);
        // A tap on the die is this player's roll, made on every phone.
        pump_until("this player's roll", || game.get_can_roll());
        let rolls = game.get_rolls();
        find(window, "Die").mock_single_click(PointerEventButton::Left);
        pump_until("the roll is in the log", || game.get_rolls() > rolls);
    });
}

#[test]
fn a_room_that_cannot_open_the_network_says_so_in_the_players_language() {
    ui_support::on_ui_thread(|| {
        let folder = settings_dir("no-network");
        let app = app(folder.path(), 4);
        // This build has no QUIC: listening there fails as a phone without a
        // network does, with nothing sent anywhere.
        app.listen_on(vec!["/ip4/127.0.0.1/udp/0/quic-v1".parse().unwrap()]);
        let window = app.window();
        window.show().unwrap();
        find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        let room = window.global::<clovece::app::ui::RoomAdapter>();
        pump_until("the room says why it did not open", || {
            room.get_problem() == RoomProblem::Network
        });
        assert!(label_containing(window, "This phone cannot open the network.").is_some());
        let settings = window.global::<clovece::app::ui::SettingsAdapter>();
        settings.set_language(2); // Slovenčina
        settings.invoke_changed();
        mock_elapsed_time(Duration::from_millis(10));
        // (A one-letter word is kept with the next: a no-break space.)
        let said = label_containing(window, "Tento telefón sa nemôže pripojiť k\u{a0}sieti.")
            .expect("the problem in Slovak");
        // The system's own words follow, for a report of the problem.
        assert!(said.ends_with(')') && said.contains("quic"), "{said}");
        // Nothing to invite to or start: the way out is a button of its
        // own, not only the title bar's Back.
        settings.set_language(1); // English
        settings.invoke_changed();
        mock_elapsed_time(Duration::from_millis(10));
        assert!(label_containing(window, "This phone cannot open the network.").is_some());
        for gone in ["Invite players", "Start"] {
            let shown = ElementHandle::find_by_accessible_label(window, gone).next();
            assert!(shown.is_none(), "{gone} is shown");
        }
        find(window, "Home").mock_single_click(PointerEventButton::Left);
        pump_until("Home", || {
            window.global::<clovece::app::ui::AppAdapter>().get_screen()
                == clovece::app::ui::Screen::Home
        });
    });
}

/// The label of the first element whose label contains `part`.
fn label_containing(window: &clovece::app::ui::AppWindow, part: &'static str) -> Option<String> {
    ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.contains(part)))
        .find_first()
        .map(|e| label_of(&e))
}

#[test]
fn the_join_screen_rejects_a_bad_code_and_joins_with_a_good_one() {
    let (_folder, app) = shown("join", 1);
    let window = app.window();
    let joined = ui_support::joins(window);

    find(window, "Join a room").mock_single_click(PointerEventButton::Left);
    let field = ui_support::text_field(window, "Room code or ticket link");
    let join = find(window, "Join");
    assert_eq!(join.accessible_enabled(), Some(false));

    field.set_accessible_value("K7M0");
    mock_elapsed_time(Duration::from_millis(10));
    let verdict = label_containing(window, "is in no room code").expect("no verdict");
    assert!(verdict.starts_with("\"0\""), "{verdict}");
    assert_eq!(join.accessible_enabled(), Some(false));
    join.mock_single_click(PointerEventButton::Left);
    assert!(joined.borrow().is_empty());

    field.set_accessible_value("k7m2");
    mock_elapsed_time(Duration::from_millis(10));
    assert!(shows(window, "4 of 6 characters"));
    field.set_accessible_value("k7m2qx");
    mock_elapsed_time(Duration::from_millis(10));
    assert!(shows(window, "Room K7M2QX"));
    assert_eq!(join.accessible_enabled(), Some(true));
    join.mock_single_click(PointerEventButton::Left);
    assert_eq!(*joined.borrow(), ["K7M2QX"]);

    find(window, "Back").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Join a room"));
}

#[test]
fn a_player_without_a_nickname_is_asked_for_one_where_rooms_are_joined_and_hosted() {
    let (folder, app) = shown("ask-nickname", 1);
    let window = app.window();
    let saved = || std::fs::read_to_string(folder.path().join("settings.json")).unwrap_or_default();
    let asks = || {
        ElementQuery::from_root(window)
            .match_descendants()
            .match_accessible_role(AccessibleRole::TextInput)
            .match_predicate(|e| e.accessible_label().is_some_and(|l| l == "Nickname"))
            .find_first()
            .is_some()
    };
    find(window, "Join a room").mock_single_click(PointerEventButton::Left);
    assert!(asks(), "a new player is asked on the join screen");
    // Typed there, it is the settings' nickname; the field stays while
    // the player types.
    ui_support::text_field(window, "Nickname").set_accessible_value("Eva");
    mock_elapsed_time(Duration::from_millis(600));
    assert!(saved().contains("\"nickname\": \"Eva\""), "{}", saved());
    assert!(asks());
    // A player with a nickname is not asked again.
    back(window);
    find(window, "Host a room").mock_single_click(PointerEventButton::Left);
    assert!(!asks());
    back(window);
    window
        .global::<clovece::app::ui::SettingsAdapter>()
        .set_nickname("".into());
    find(window, "Host a room").mock_single_click(PointerEventButton::Left);
    assert!(asks(), "asked where a room is hosted");
}

#[test]
fn the_nearby_rooms_screen_opens_empty_with_its_three_filters() {
    ui_support::init();
    let folder = settings_dir("nearby");
    let dir = folder.path();
    let app = ui_support::app_on_loopback(dir, 1, Vec::new());
    let window = app.window();
    window.show().unwrap();

    find(window, "Nearby rooms").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "No rooms nearby yet"));
    assert!(!shows(window, "No room matches the filters"));
    for filter in ["Any number of players", "Any turn time", "Any board"] {
        assert!(shows(window, filter), "no filter {filter}");
    }
    let adapter = window.global::<clovece::app::ui::NearbyAdapter>();
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    find(window, "60 seconds per turn").mock_single_click(PointerEventButton::Left);
    find(window, "Sea board").mock_single_click(PointerEventButton::Left);
    assert_eq!(
        (
            adapter.get_players(),
            adapter.get_turn(),
            adapter.get_board()
        ),
        (3, 60, 2)
    );
    assert_eq!(adapter.get_problem(), "");
    find(window, "Back").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
}

#[test]
fn how_to_play_opens_from_home_with_each_rule_set_and_back_returns() {
    let (_folder, app) = shown("how-to-play", 1);
    let window = app.window();
    find(window, "How to play").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Rules);
    for start in [
        "Roll the die and move one of your pieces",
        "The settings switch on any of three",
        "The classic rules with no jumping",
        "The pieces are shared",
    ] {
        let found = ElementQuery::from_root(window)
            .match_descendants()
            .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.starts_with(start)))
            .find_first();
        assert!(found.is_some(), "{start}");
    }
    find(window, "Back").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
}

#[test]
fn the_statistics_screen_is_empty_before_a_game_and_shows_a_recorded_one() {
    use clovece::stats::{Outcome, Played, Record, Store};

    let (folder, app) = shown("statistics", 1);
    let dir = folder.path();
    let window = app.window();

    find(window, "Statistics").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "No games with other phones yet"));
    find(window, "Back").mock_single_click(PointerEventButton::Left);

    // The data folder is the settings' folder, as for `clovece stats`.
    let me = clovece::net::identity::load_or_create(dir).unwrap();
    let bo = libp2p::PeerId::random().to_base58();
    let played = |peer: String, name: &str, outcome| Played {
        peer,
        name: name.to_owned(),
        outcome,
        dice: [3, 1, 4, 1, 5, 9],
    };
    let classic = |game: &str, outcome| Record {
        game: game.to_owned(),
        rules: "classic".to_owned(),
        players: vec![
            played(me.public().to_peer_id().to_base58(), "Ana", outcome),
            played(bo.clone(), "Bo", Outcome::Lost),
        ],
    };
    let record = |game: &str, outcome| Record {
        rules: "croatian".to_owned(),
        ..classic(game, outcome)
    };
    let store = Store::new(dir);
    store.add(record("won", Outcome::Won)).unwrap();
    store.add(record("left", Outcome::Left)).unwrap();

    find(window, "Statistics").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "Games: 2"));
    assert!(shows(window, "Wins: 1"));
    // A leave counts two losses: 1 win of 3 decided.
    assert!(shows(window, "Losses: 2"));
    assert!(shows(window, "Win rate: 33 %"));
    assert!(shows(window, "Croatian: games 2, wins 1, win rate 33 %"));
    assert!(shows(window, "Face 6: 18 times"));
    // The player met, and their record in the games with this one.
    assert!(shows(window, "Players you met"));
    assert!(shows(window, "Bo: games 2, wins 0, win rate 0 %"));

    // Each combination of house rules is a row of its own, named in full.
    find(window, "Back").mock_single_click(PointerEventButton::Left);
    for (game, rules) in [
        ("one", "classic+compulsory-capture"),
        ("two", "classic+compulsory-capture,no-jump-home"),
    ] {
        store
            .add(Record {
                rules: rules.to_owned(),
                ..classic(game, Outcome::Won)
            })
            .unwrap();
    }
    find(window, "Statistics").mock_single_click(PointerEventButton::Left);
    assert!(shows(
        window,
        "Classic with house rules: Capturing is compulsory: games 1, wins 1, win rate 100 %"
    ));
    assert!(shows(
        window,
        "Classic with house rules: Capturing is compulsory; No jumping in the home row: games 1, wins 1, win rate 100 %"
    ));
}

#[test]
fn a_damaged_statistics_file_is_a_message_not_a_crash() {
    let (folder, app) = shown("statistics-damaged", 1);
    let dir = folder.path();
    let window = app.window();
    clovece::net::identity::load_or_create(dir).unwrap();
    // A folder where the file should be cannot be read at all.
    std::fs::create_dir(dir.join("stats.jsonl")).unwrap();

    find(window, "Statistics").mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "The statistics cannot be read"));
    assert!(label_containing(window, "stats.jsonl").is_some());
}

#[test]
fn the_scan_screen_on_a_desktop_reads_a_picture_of_the_qr_code_and_joins() {
    // The picture is read on a thread of its own.
    ui_support::on_ui_thread(|| {
        let folder = settings_dir("scan");
        let dir = folder.path();
        let app = app(dir, 1);
        let window = app.window();
        window.show().unwrap();
        let joined = ui_support::joins(window);

        let ticket = room_ticket();
        let picture = dir.join("room.png");
        // A link among other words joins too, as it does pasted.
        qr_picture(&format!("Join my room: {ticket}"), &picture);

        find(window, "Join a room").mock_single_click(PointerEventButton::Left);
        find(window, "Scan a QR code").mock_single_click(PointerEventButton::Left);
        assert!(shows(
            window,
            "This device has no camera. Read a picture of the QR code instead."
        ));
        let read = find(window, "Read the picture");
        ui_support::text_field(window, "Picture file")
            .set_accessible_value(dir.join("nope.png").to_str().unwrap());
        read.mock_single_click(PointerEventButton::Left);
        pump_until("the picture is read", || {
            label_containing(
                window,
                "The picture cannot be read. (cannot read the picture",
            )
            .is_some()
        });
        assert!(joined.borrow().is_empty());

        // Another QR code, or a room's damaged one, is said so in the app's
        // words (the reason was the ticket parser's English).
        for (text, said) in [
            ("https://example.org/", "This QR code is not a room's."),
            (
                "CLOVECE:damaged",
                "This room's QR code is damaged: scan it again, or type the room code",
            ),
        ] {
            let other = dir.join("other.png");
            qr_picture(text, &other);
            ui_support::text_field(window, "Picture file")
                .set_accessible_value(other.to_str().unwrap());
            read.mock_single_click(PointerEventButton::Left);
            pump_until(said, || shows(window, said));
        }
        assert!(joined.borrow().is_empty());

        ui_support::text_field(window, "Picture file")
            .set_accessible_value(picture.to_str().unwrap());
        // One asked for just before the camera closes is not acted on.
        read.mock_single_click(PointerEventButton::Left);
        window
            .global::<clovece::app::ui::ScanAdapter>()
            .invoke_close();
        ui_support::pump(Duration::from_millis(500));
        assert!(joined.borrow().is_empty());
        read.mock_single_click(PointerEventButton::Left);
        pump_until("the room is joined", || !joined.borrow().is_empty());
        assert_eq!(*joined.borrow(), [ticket.to_string()]);
    });
}

/// A room's ticket, of a host on loopback.
fn room_ticket() -> clovece::net::Ticket {
    clovece::net::Ticket::new(
        clovece::net::RoomId::from_bytes([9; 16]),
        libp2p::PeerId::random(),
        ["/ip4/127.0.0.1/tcp/4001".parse().unwrap()],
        None,
    )
    .unwrap()
}

/// Writes the QR code of `text` as a PNG picture, 4 pixels a module.
fn qr_picture(text: &str, path: &std::path::Path) {
    qr_image(text).save(path).unwrap();
}

/// The QR code of `text` in grey, 4 pixels a module.
fn qr_image(text: &str) -> image::GrayImage {
    let code = qrcode::QrCode::new(text.as_bytes()).unwrap();
    let (modules, colors) = (code.width(), code.to_colors());
    let side = (modules + 8) * 4;
    image::GrayImage::from_fn(side as u32, side as u32, |x, y| {
        let (mx, my) = (
            (x as usize / 4).wrapping_sub(4),
            (y as usize / 4).wrapping_sub(4),
        );
        let dark = mx < modules && my < modules && colors[my * modules + mx] == qrcode::Color::Dark;
        image::Luma([if dark { 0 } else { 255 }])
    })
}

/// A camera whose frames the test hands on.
#[derive(Clone, Default)]
struct HandHeld(Arc<std::sync::Mutex<Option<clovece::platform::camera::FrameSink>>>);

impl clovece::platform::camera::Camera for HandHeld {
    fn start(
        &mut self,
        sink: clovece::platform::camera::FrameSink,
        _: clovece::platform::camera::ErrorSink,
    ) -> Result<(), clovece::platform::camera::CameraError> {
        *self.0.lock().unwrap() = Some(sink);
        Ok(())
    }
    fn stop(&mut self) {
        *self.0.lock().unwrap() = None;
    }
}

/// A room's code seen, lost and seen again by a shaky camera before the
/// screen takes in the first sighting: it joins once, not again (which
/// stopped the join under way and started another).
#[test]
fn a_room_code_the_camera_sees_again_joins_once() {
    use clovece::platform::camera::{CameraSession, NoPermissionNeeded};
    use clovece::platform::lifecycle::{Bookmark, Lifecycle};
    use clovece::platform::multicast::{Multicast, NoLock};

    ui_support::on_ui_thread(|| {
        let folder = settings_dir("shaky-camera");
        let camera = HandHeld::default();
        let session = CameraSession::new(camera.clone(), NoPermissionNeeded);
        let services = clovece::app::Services {
            lifecycle: Lifecycle::new(Multicast::new(NoLock), session, Bookmark::Home),
            ..ui_support::loopback_services()
        };
        let app = ui_support::app_on(folder.path(), 1, services);
        let window = app.window();
        window.show().unwrap();
        let joined = ui_support::joins(window);
        find(window, "Join a room").mock_single_click(PointerEventButton::Left);
        find(window, "Scan a QR code").mock_single_click(PointerEventButton::Left);

        let ticket = room_ticket();
        let code = qr_image(&ticket.to_string());
        let blank = image::GrayImage::from_pixel(code.width(), code.height(), image::Luma([255]));
        let sink = camera.0.lock().unwrap().clone().expect("the camera runs");
        for picture in [&code, &blank, &code] {
            let (width, height) = (picture.width() as usize, picture.height() as usize);
            let frame =
                clovece::platform::qr::GreyFrame::new(picture.as_raw(), width, height, width);
            sink(frame.unwrap());
        }
        pump_until("the room is joined", || !joined.borrow().is_empty());
        ui_support::pump(Duration::from_millis(300));
        assert_eq!(*joined.borrow(), [ticket.to_string()]);
    });
}

/// The enabled elements whose label starts with `start`, one per label
/// (a look-up can meet an element more than once).
fn starting(window: &clovece::app::ui::AppWindow, start: &'static str) -> Vec<ElementHandle> {
    let mut seen = std::collections::BTreeSet::new();
    ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| {
            e.accessible_enabled() != Some(false)
                && e.accessible_label().is_some_and(|l| l.starts_with(start))
        })
        .find_all()
        .into_iter()
        .filter(|e| seen.insert(label_of(e)))
        .collect()
}

#[test]
fn a_matfyz_game_against_the_computer_asks_both_choices_and_reaches_the_result() {
    ui_support::init();
    let folder = settings_dir("matfyz");
    let dir = folder.path();
    // A die whose game asks both kinds of choice (not every game does).
    let app = app(dir, 3);
    let window = app.window();
    window.show().unwrap();

    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    find(window, "4 players").mock_single_click(PointerEventButton::Left);
    find(window, "Matfyz rules").mock_single_click(PointerEventButton::Left);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let matfyz = window.global::<MatfyzAdapter>();
    assert!(matfyz.get_active());
    // Every base starts with one piece of each colour, shown on the board
    // and on each player's chip.
    assert!(find(window, "Yellow piece in Red's base").is_valid());
    assert!(find(window, "Red piece in Blue's base").is_valid());

    // Element look-ups walk the whole window, so, as in the classic game
    // above, the loop asks the adapters what is due and what the note
    // says, and looks up what a person would tap or read.
    let game = window.global::<GameAdapter>();
    let die = find(window, "Die");
    let (mut plans, mut by_square, mut recipients) = (0, 0, 0);
    let (mut kept_shown, mut given) = (0, None);
    for _ in 0..30_000 {
        if window.global::<AppAdapter>().get_screen() == Screen::Result {
            assert!(find(window, "Play again").is_valid());
            assert!(
                plans > 0 && by_square > 0,
                "{plans} plans, {by_square} by square"
            );
            assert!(recipients > 0, "no recipient asked");
            assert!(
                given
                    .as_ref()
                    .is_some_and(|n: &String| n.contains("'s base")),
                "{given:?}"
            );
            return;
        }
        if game.get_can_roll() {
            die.mock_single_click(PointerEventButton::Left);
            mock_elapsed_time(Duration::from_millis(500));
            if matfyz.get_rolls() != "" && kept_shown < 5 {
                kept_shown += 1;
                // The sixes kept so far are shown below the die.
                let shown = label_of(&starting(window, "Rolls to use: ")[0]);
                assert_eq!(shown, format!("Rolls to use: {}", matfyz.get_rolls()));
            }
        } else if game.get_must_move() && !game.get_turn_computer() {
            match matfyz.get_choice() {
                ChoiceKind::Plan if by_square == 0 => {
                    // The plans' ends are marked: tapping one chooses it.
                    let square = ElementQuery::from_root(window)
                        .match_descendants()
                        .match_predicate(|e| {
                            e.accessible_enabled() == Some(true)
                                && e.accessible_label()
                                    .is_some_and(|l| l.contains("quare") && !l.contains("piece"))
                        })
                        .find_first()
                        .expect("a marked square");
                    square.mock_single_click(PointerEventButton::Left);
                    by_square += 1;
                }
                ChoiceKind::Plan => {
                    let options = starting(window, "Move with ");
                    assert_eq!(options.len(), matfyz.get_plans().row_count());
                    // Each plan's number is on the square where it ends.
                    let numbers: Vec<i32> = game.get_squares().iter().map(|s| s.plan).collect();
                    assert!(numbers.contains(&1), "{numbers:?}");
                    assert!(numbers.iter().all(|&n| n as usize <= options.len()));
                    options[plans % options.len()].mock_single_click(PointerEventButton::Left);
                    plans += 1;
                }
                ChoiceKind::Recipient => {
                    assert!(!starting(window, "Who gets the captured ").is_empty());
                    let options = starting(window, "Give it to ");
                    assert!(options.len() >= 2);
                    options[recipients % options.len()].mock_single_click(PointerEventButton::Left);
                    recipients += 1;
                }
                ChoiceKind::None => {
                    // The pieces on the board, not the tokens on the chips.
                    ElementQuery::from_root(window)
                        .match_descendants()
                        .match_accessible_role(AccessibleRole::Button)
                        .match_predicate(|e| {
                            e.accessible_enabled() == Some(true)
                                && e.accessible_label().is_some_and(|l| l.contains(" piece "))
                        })
                        .find_first()
                        .expect("a movable piece")
                        .mock_single_click(PointerEventButton::Left);
                }
            }
            mock_elapsed_time(Duration::from_millis(400));
        } else {
            mock_elapsed_time(COMPUTER_PACE.max(RESULT_DELAY));
        }
        // The first capture whose piece went to a base, as the note below
        // the die says it.
        if given.is_none() && game.get_note().kind == NoteKind::Given {
            given = ui_support::note(window);
        }
    }
    panic!("no result after 30 000 steps: {plans} plans, {recipients} recipients");
}

#[test]
fn the_one_person_playing_the_computer_is_told_they_win() {
    use clovece::app::offline::Player;

    ui_support::init();
    let folder = settings_dir("you-win");
    let app = app(folder.path(), 1);
    let window = app.window();
    // Anna's last piece two squares from her home's free square.
    let anna = Player::Human {
        name: "Anna".into(),
    };
    let computer = Player::Computer {
        level: Default::default(),
    };
    app.resume(red_rolled(["T39", "H1", "H3", "H4"], 2, [anna, computer]));
    window.show().unwrap();
    enabled(window, "piece")[0].mock_single_click(PointerEventButton::Left);
    assert!(shows(window, "You win!"), "the board's header");
    mock_elapsed_time(RESULT_DELAY + Duration::from_secs(1));
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Result);
    assert!(shows(window, "You win!"), "the result");
    assert!(!shows(window, "Anna wins!"));
}

/// docs/matfyz.md's position of three players, red to move with `sixes`
/// sixes and a 3, a blue piece on square `blue_on` and yellow ones on 10
/// and 30: a yellow captured there with the turn's last roll may go to
/// red or blue. Anna, Boris and Cyril play it on one device.
fn resume_matfyz_capture(app: &App, blue_on: u8, sixes: u32) {
    use clovece::app::offline::{OfflineGame, Player};
    use clovece::rules::Colour::{Blue, Green, Red, Yellow};
    use clovece::rules::{Die, Game, Seats, matfyz};

    let layout = matfyz::Layout {
        seats: Seats::for_players(3).unwrap(),
        turn: Red,
        bases: vec![
            (Red, vec![Red, Green]),
            (Blue, vec![Red, Blue, Green]),
            (Green, vec![Red, Blue, Green, Yellow]),
        ],
        homes: vec![(Red, [None; 4]), (Blue, [None; 4]), (Green, [None; 4])],
        track: vec![(blue_on, Blue), (10, Yellow), (30, Yellow)],
        rolls: matfyz::Rolls {
            sixes,
            last: Die::new(3),
        },
        done: vec![],
    };
    let game = Game::Matfyz(matfyz::Game::new(matfyz::Position::new(&layout).unwrap()));
    let people = ["Anna", "Boris", "Cyril"].map(|name| Player::Human { name: name.into() });
    app.resume(OfflineGame::resume(game, people.to_vec()).unwrap());
}

/// Matfyz: the square a run captures on may hold a piece the player could
/// move too (docs/matfyz.md's position: blue on T7 takes the yellow on
/// T10 with a 3, and that yellow may go on to T13). A tap there is for
/// the square, as a screen reader's action on it is: it asks who gets the
/// piece rather than moving the yellow away at once.
#[test]
fn a_tap_on_a_capture_square_under_a_movable_matfyz_piece_asks_about_the_capture() {
    use clovece::app::ui::{ChoiceKind, MatfyzAdapter, SquareKind};

    ui_support::init();
    let folder = settings_dir("tap-capture");
    let app = app(folder.path(), 1);
    resume_matfyz_capture(&app, 7, 0);
    let window = app.window();
    let game = window.global::<GameAdapter>();
    let squares = game.get_squares();
    let t10 = squares
        .iter()
        .find(|s| {
            s.target && s.kind != SquareKind::Home && s.kind != SquareKind::Base && s.number == 10
        })
        .expect("T10 (blue's start) is marked");
    let on_t10 = |pieces: &slint::ModelRc<_>| {
        pieces
            .iter()
            .any(|p: clovece::app::ui::PieceData| p.col == t10.col && p.row == t10.row && p.movable)
    };
    assert!(on_t10(&game.get_pieces()), "the yellow on T10 may move");
    game.invoke_tap_board(t10.col as f32 + 0.5, t10.row as f32 + 0.5, 0.5);
    assert_eq!(
        window.global::<MatfyzAdapter>().get_choice(),
        ChoiceKind::Recipient
    );
}

/// The recipients' row takes the place of the plans' buttons, so the
/// second tap of a double tap on a capturing plan must not give the
/// captured piece away unseen.
#[test]
fn a_double_tap_on_a_capturing_plan_does_not_answer_who_gets_the_piece() {
    use clovece::app::ui::{ChoiceKind, MatfyzAdapter};

    ui_support::init();
    let folder = settings_dir("double-tap-capture");
    let app = app(folder.path(), 1);
    // Red has rolled 6 and 3: the blue piece on T1 may go 6, or 6 and 3
    // onto the yellow on T10.
    resume_matfyz_capture(&app, 1, 1);
    let window = app.window();
    let matfyz = window.global::<MatfyzAdapter>();
    let piece = ElementQuery::from_root(window)
        .match_descendants()
        .match_accessible_role(AccessibleRole::Button)
        .match_predicate(|e| {
            e.accessible_enabled() == Some(true)
                && e.accessible_label()
                    .is_some_and(|l| l.ends_with(" piece on square 1"))
        })
        .find_first()
        .expect("the piece on square 1 may move");
    piece.mock_single_click(PointerEventButton::Left);
    assert_eq!(matfyz.get_choice(), ChoiceKind::Plan);
    mock_elapsed_time(Duration::from_millis(400));
    let capture = starting(window, "Move with ")
        .into_iter()
        .find(|plan| label_of(plan).ends_with("and capture"))
        .expect("a plan that captures");
    capture.mock_single_click(PointerEventButton::Left);
    assert_eq!(matfyz.get_choice(), ChoiceKind::Recipient);
    // The second tap of the double tap, at once: no answer.
    let recipients = starting(window, "Give it to ");
    assert!(recipients.len() >= 2);
    recipients[0].mock_single_click(PointerEventButton::Left);
    assert_eq!(matfyz.get_choice(), ChoiceKind::Recipient);
    // A moment later the row answers.
    mock_elapsed_time(Duration::from_millis(400));
    starting(window, "Give it to ")[0].mock_single_click(PointerEventButton::Left);
    assert_eq!(matfyz.get_choice(), ChoiceKind::None);
}

#[test]
fn a_tap_near_the_edge_of_a_small_boards_piece_moves_that_piece_not_its_neighbour() {
    use clovece::app::offline::Player;
    use slint::LogicalPosition;

    ui_support::init();
    let folder = settings_dir("tap-nearest");
    let app = app(folder.path(), 1);
    let window = app.window();
    // Red's pieces on T1 and T2, side by side; a three moves either.
    let players = ["Anna", "Boris"].map(|name| Player::Human { name: name.into() });
    app.resume(red_rolled(["T1", "T2", "B", "B"], 3, players));
    window.show().unwrap();
    // A small phone: a cell of the board is far smaller than a touch.
    window.window().set_size(slint::PhysicalSize::new(360, 600));
    mock_elapsed_time(Duration::from_secs(1));

    let adapter = window.global::<GameAdapter>();
    let on = |n: i32| {
        let pieces = adapter.get_pieces();
        let found = pieces.iter().position(|p| p.movable && p.number == n);
        found.map(|i| (i, pieces.row_data(i).unwrap()))
    };
    let (Some((one, _)), Some((two, _))) = (on(1), on(2)) else {
        panic!("both pieces may move");
    };
    // The piece drawn first, tapped within its own cell a third of a cell
    // from its neighbour's: the neighbour's touch area, drawn over it,
    // used to take the tap.
    let (tapped, other) = if one < two { (1, 2) } else { (2, 1) };
    let (_, piece) = on(tapped).unwrap();
    let (_, neighbour) = on(other).unwrap();
    let board = find(window, "Board");
    let (at, size) = (board.absolute_position(), board.size());
    let side = size.width.min(size.height);
    let cell = side / 11.0;
    // The tap is 0.7 of a cell from the neighbour's centre, within half
    // a touch (48 px) of it.
    assert!(0.7 * cell < 24.0, "a small board: {cell} px a cell");
    let (left, top) = (
        at.x + (size.width - side) / 2.0,
        at.y + (size.height - side) / 2.0,
    );
    let towards = |a: i32, b: i32| a as f32 + 0.5 + 0.3 * (b - a) as f32;
    let position = LogicalPosition::new(
        left + towards(piece.col, neighbour.col) * cell,
        top + towards(piece.row, neighbour.row) * cell,
    );
    let button = PointerEventButton::Left;
    window
        .window()
        .dispatch_event(WindowEvent::PointerPressed { position, button });
    window
        .window()
        .dispatch_event(WindowEvent::PointerReleased { position, button });
    let red: Vec<i32> = adapter
        .get_pieces()
        .iter()
        .filter(|p| p.hue == clovece::app::ui::Hue::Red && p.number > 0)
        .map(|p| p.number)
        .collect();
    assert!(red.contains(&(tapped + 3)), "T{tapped} moved: {red:?}");
    assert!(red.contains(&other), "T{other} stayed: {red:?}");
}

/// A two-player classic game on this device, played by `players`, with
/// red's pieces on `red` (green's in base) and red having rolled `roll`.
fn red_rolled(
    red: [&str; 4],
    roll: u8,
    players: [clovece::app::offline::Player; 2],
) -> clovece::app::offline::OfflineGame {
    use clovece::rules::{Colour, Die, Game, HouseRules, Place, Seats, classic};
    let place = |s: &str| s.parse::<Place>().unwrap();
    let pieces = [
        (Colour::Red, red.map(place).to_vec()),
        (Colour::Green, ["B"; 4].map(place).to_vec()),
    ];
    let position = classic::Position::new(Seats::for_players(2).unwrap(), Colour::Red, &pieces);
    let game = Game::Classic(classic::Game::new(HouseRules::default(), position.unwrap()));
    let mut game = clovece::app::offline::OfflineGame::resume(game, players.to_vec()).unwrap();
    game.roll(Die::new(roll).unwrap()).unwrap();
    game
}

/// The setup screens offer the last game's and the last room's choices
/// again, after a restart too; a fresh app offers the defaults.
#[test]
fn the_last_setup_and_room_choices_are_offered_again_after_a_restart() {
    use clovece::app::choices::{Choices, GameChoices, RoomChoices, Rules};
    use clovece::app::settings::{BoardTheme, SettingsFile};
    use clovece::app::ui::SetupAdapter;

    ui_support::on_ui_thread(|| {
        let folder = settings_dir("choices");
        let dir = folder.path();
        let read = |window: &clovece::app::ui::AppWindow| {
            let names = window.global::<SetupAdapter>().get_names();
            let names = slint::VecModel::from(names.iter().collect::<Vec<_>>());
            Choices::read(window, &names)
        };
        let app = app(dir, 4);
        app.listen_on(vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()]);
        let window = app.window();
        window.show().unwrap();
        let mut fresh = read(window);
        assert_eq!(fresh.game.names, ["Player", "", "", ""]);
        fresh.game.names.clear();
        assert_eq!(fresh, Choices::default(), "the screens' own defaults");

        find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
        let setup = window.global::<SetupAdapter>();
        setup.set_players(3);
        setup.set_rules(clovece::app::ui::RuleChoice::Matfyz);
        setup.set_turn_time(20);
        setup.invoke_rename(1, "Peter".into());
        find(window, "Start").mock_single_click(PointerEventButton::Left);
        assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
        window.global::<AppAdapter>().set_screen(Screen::Home);

        find(window, "Host a room").mock_single_click(PointerEventButton::Left);
        find(window, "Private room, by invitation only")
            .mock_single_click(PointerEventButton::Left);
        find(window, "2 players").mock_single_click(PointerEventButton::Left);
        find(window, "10 seconds per turn").mock_single_click(PointerEventButton::Left);
        find(window, "Sea board").mock_single_click(PointerEventButton::Left);
        find(window, "Open the room").mock_single_click(PointerEventButton::Left);
        find(window, "Leave the room").mock_single_click(PointerEventButton::Left);
        // Saved a moment after the last change.
        mock_elapsed_time(Duration::from_secs(1));
        drop(app);

        let app = clovece::app::App::with_services(
            SettingsFile::in_folder(dir),
            clovece::app::dice::Dice::from_seed([4; 32]),
            ui_support::loopback_services(),
        )
        .unwrap();
        let window = app.window();
        assert_eq!(
            read(window),
            Choices {
                game: GameChoices {
                    vs_computer: false,
                    players: 3,
                    rules: Rules::Matfyz,
                    turn_time: 20,
                    names: ["Player", "Peter", "", ""].map(String::from).to_vec(),
                    ..GameChoices::default()
                },
                room: RoomChoices {
                    private: true,
                    players: 2,
                    turn_time: 10,
                    board: BoardTheme::Sea,
                    ..RoomChoices::default()
                },
            }
        );
    });
}

/// Only a roll or a move starts a person's time anew: a tap that asks a
/// question or takes one back (the Matfyz plans) lets it run on, or
/// tapping faster than once a second would stop it.
#[test]
fn taps_that_only_ask_or_take_back_leave_the_turn_clock_running() {
    let (_folder, app) = shown("clock-taps", 1);
    let window = app.window();
    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    window
        .global::<clovece::app::ui::SetupAdapter>()
        .set_turn_time(10);
    find(window, "Start").mock_single_click(PointerEventButton::Left);
    let game = window.global::<GameAdapter>();
    assert_eq!(game.get_time_left(), 10);
    for _ in 0..8 {
        window.global::<MatfyzAdapter>().invoke_cancel();
        mock_elapsed_time(Duration::from_millis(500));
    }
    assert!(game.get_time_left() <= 7, "{}", game.get_time_left());
}

#[test]
fn a_game_on_this_device_that_does_not_play_again_is_removed_with_a_word() {
    use clovece::app::offline::{Player, Setup};
    use clovece::protocol::header::TurnTimer;
    use clovece::rules::{Colour, Die, Game, HouseRules, Move, RuleSet, Seats};

    /// The kept file's record, as `app::offline` writes it.
    #[derive(serde::Serialize)]
    enum Step {
        Roll(Die, bool),
        Move(Move, bool),
    }
    #[derive(serde::Serialize)]
    struct Record {
        setup: Setup,
        opening: Vec<Die>,
        steps: Vec<Step>,
    }
    ui_support::init();
    let rules = RuleSet::Classic(HouseRules::default());
    // Red's bringing out after a six, kept as if played after a one (as
    // a file that another version's rules wrote might hold).
    let mut game = Game::new(rules, Seats::for_players(2).unwrap(), Colour::Red).unwrap();
    game.roll(Die::SIX).unwrap();
    let bring_out = game.legal_moves()[0];
    let record = Record {
        setup: Setup {
            players: vec![
                Player::Human { name: "Ann".into() },
                Player::Human { name: "Bob".into() },
            ],
            rules,
            timer: TurnTimer::None,
        },
        opening: vec![],
        steps: vec![
            Step::Roll(Die::new(1).unwrap(), false),
            Step::Move(bring_out, false),
        ],
    };
    let folder = settings_dir("local-lost");
    let mut bytes = vec![1];
    bytes.extend(postcard::to_allocvec(&record).unwrap());
    std::fs::write(folder.path().join("local-game"), bytes).unwrap();

    let app = app(folder.path(), 1);
    let window = app.window();
    let lost = "The game on this device could not be continued and was removed.";
    assert!(!shows(window, lost));
    find(window, "Continue the game on this device").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Home);
    assert!(shows(window, lost));
    assert!(!shows(window, "Continue the game on this device"));
    // Said until a game starts.
    play_the_computer(window);
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);
    assert!(!shows(window, lost));
}

#[test]
fn a_person_without_a_nickname_is_named_by_colour_in_the_language_of_the_moment() {
    ui_support::init();
    let folder = settings_dir("no-nickname");
    let app = app(folder.path(), 1);
    let window = app.window();
    play_the_computer(window);
    let players = window.global::<GameAdapter>().get_players();
    let red = players.row_data(0).unwrap();
    assert!(!red.computer);
    // Not the word for "Player" of the language the game began in.
    assert_eq!(red.name, "");
}

/// A name typed for a colour, and the colour chosen against the computer,
/// stay with that colour when the number of players changes.
#[test]
fn names_and_the_colour_chosen_stay_with_their_colours() {
    use clovece::app::ui::SetupAdapter;
    ui_support::init();
    let folder = settings_dir("setup-colours");
    let app = app(folder.path(), 1);
    let window = app.window();
    let value = |label: &str| find(window, label).accessible_value().unwrap_or_default();

    find(window, "Pass and play").mock_single_click(PointerEventButton::Left);
    find(window, "2 players").mock_single_click(PointerEventButton::Left);
    find(window, "Name of Green").set_accessible_value("Bob");
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(value("Name of Green"), "Bob");
    assert_eq!(value("Name of Blue"), "");
    // Below the fold of the window's first size.
    window.global::<SetupAdapter>().invoke_start();
    assert_eq!(window.global::<AppAdapter>().get_screen(), Screen::Game);
    let players = window.global::<GameAdapter>().get_players();
    let names: Vec<_> = players.iter().map(|p| p.name.to_string()).collect();
    assert_eq!(names[2], "Bob", "green, third of red, blue, green");
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);

    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    find(window, "2 players").mock_single_click(PointerEventButton::Left);
    find(window, "Green").mock_single_click(PointerEventButton::Left);
    find(window, "3 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<SetupAdapter>().get_seat(), 2, "green still");
    window.global::<SetupAdapter>().invoke_start();
    let players = window.global::<GameAdapter>().get_players();
    let computers: Vec<bool> = players.iter().map(|p| p.computer).collect();
    assert_eq!(computers, [true, true, false], "the person plays green");
    find(window, "Leave game").mock_single_click(PointerEventButton::Left);
    find(window, "Leave").mock_single_click(PointerEventButton::Left);

    find(window, "Play against the computer").mock_single_click(PointerEventButton::Left);
    find(window, "4 players").mock_single_click(PointerEventButton::Left);
    find(window, "Yellow").mock_single_click(PointerEventButton::Left);
    // Yellow does not play in a game of two: red is the person's then.
    find(window, "2 players").mock_single_click(PointerEventButton::Left);
    assert_eq!(window.global::<SetupAdapter>().get_seat(), 0);
}
