//! Wires the Slint adapters (`ui/adapters.slint`) to the plain-Rust
//! controllers: fills the globals' properties from the controllers' state
//! and turns the callbacks into controller calls. Nothing here decides a
//! rule; it only translates between the two sides and paces the computer.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use slint::{ComponentHandle, Model, ModelRc, SharedString, VecModel};

use super::board::{Board, Note, PieceView, home_count};
use super::choices::Choices;
use super::dice::Dice;
use super::fairness::{Fairness, Roll};
use super::geometry::{self, Cell, Spot};
use super::invite_adapter;
use super::leave::LeaveCost;
use super::local::GameFile;
use super::matfyz::{Choice, Plan};
use super::nearby::Browsing;
use super::offline::{OfflineGame, Outcome, Player, Setup};
use super::online_adapter::{self, Online};
use super::scan::Scanner;
use super::settings::{BoardTheme, Language, Settings, SettingsFile, Unsaved};
use super::turn_clock::Tick;
use super::ui::{
    self, AppWindow, FairnessAdapter, GameAdapter, MatfyzAdapter, ResultAdapter, SettingsAdapter,
    SetupAdapter,
};
use crate::bot::Level;
use crate::platform::Platform;
use crate::platform::discovery::Discovery;
use crate::platform::lifecycle::{Bookmark, Lifecycle};
use crate::protocol::header::TurnTimer;
use crate::rules::board::{HOME_LEN, TRACK_LEN};
use crate::rules::{Colour, Die, FlowError, HouseRules, Next, RuleSet, Seats};

/// How long the computer waits before each roll or move on this device,
/// and an online game's phone holds its reveal for each computer roll, so
/// people can follow it.
pub const COMPUTER_PACE: Duration = Duration::from_millis(700);
/// How long the finished board stays before the result screen.
pub const RESULT_DELAY: Duration = Duration::from_millis(1200);

/// The running app: its window and what the screens show.
pub struct App {
    window: AppWindow,
    state: Rc<RefCell<State>>,
    online: Rc<RefCell<Online>>,
}

struct State {
    settings: Settings,
    dice: Dice,
    /// The last setup started, for "play again".
    setup: Option<Setup>,
    game: Option<OfflineGame>,
    /// Bumped when a game starts or ends, so that a pending computer step
    /// or result of an earlier game does nothing.
    generation: u64,
    /// Whose roll or move the board last showed due: none until the
    /// game's first step is shown, and once it is won.
    turn: Option<Colour>,
    /// Pass and play: the turn has just passed from one person to another,
    /// whose die takes no tap for [`HANDOVER`], so that the second of a
    /// double tap meant for the last roll is not theirs.
    handing_over: bool,
    /// Pass and play: the person whose turn was shown last, and how many
    /// times the turn has passed from one person to another (computer
    /// turns between them or not), which closes a question one person
    /// left open ([`ui::GameAdapter`]'s `passes`).
    person: Option<Colour>,
    passes: i32,
    pieces: Rc<VecModel<ui::PieceData>>,
    squares: Rc<VecModel<ui::SquareData>>,
    names: Rc<VecModel<SharedString>>,
    /// The fairness view's roll history, newest first; rolls are added as
    /// they come rather than the whole list set again.
    history: Rc<VecModel<ui::RollData>>,
    /// Ticks once a second while a person with a turn timer is to act;
    /// restarted at each step, so each roll or move gets whole seconds.
    clock: slint::Timer,
    /// The app is in the background: a turn timer waits, as nobody sees
    /// the board to act in time. (Set on the lifecycle's thread.)
    paused: Arc<AtomicBool>,
    /// Where the game on this device is kept after each step.
    kept: GameFile,
    /// Tells the lifecycle whether the game on the board is the one kept,
    /// which an app the system recreates then reopens.
    reopen_local: Box<dyn Fn(bool)>,
    /// Settings changed and not saved yet, and the timer that saves them
    /// [`SAVE_AFTER`] their last change.
    unsaved: Arc<Unsaved>,
    saving: slint::Timer,
}

/// How long the die of the next person waits when the turn passes from
/// one person to another at this device ([`State::handing_over`]): longer
/// than a double tap, shorter than a hand reaching for the phone.
pub const HANDOVER: Duration = Duration::from_millis(600);

/// How long after their last change the settings are saved ([`Unsaved`]).
const SAVE_AFTER: Duration = Duration::from_millis(500);

/// The app could not start.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("cannot open the app's window (the subcommands need none: see --help): {0}")]
    Window(#[from] slint::PlatformError),
    #[error("no randomness for the dice: {0}")]
    Randomness(getrandom::Error),
    #[error(transparent)]
    Settings(#[from] super::settings::SettingsError),
}

/// What the app takes from the platform besides its settings and dice.
pub struct Services {
    /// The camera and the multicast lock, which follow the app's life.
    pub lifecycle: Lifecycle,
    /// Where the nearby rooms list listens and whom it asks.
    pub browsing: Browsing,
    /// How the nearby rooms list and the online session's node find
    /// phones (the host's invite list shows the session's finds), and how
    /// this phone's room and invitation inbox are found.
    pub discovery: Arc<dyn Discovery>,
}

impl Services {
    /// A desktop's: no camera, no lock, the nearby list on every interface.
    pub fn desktop() -> Services {
        let desktop = Platform::desktop();
        Services {
            lifecycle: desktop.lifecycle,
            browsing: Browsing::default(),
            discovery: desktop.discovery,
        }
    }
}

impl Drop for App {
    /// The app's end ends its online session and invitation inbox at once,
    /// as a killed app's would: Slint keeps a shown window alive until it is
    /// hidden, and with it every callback's state, so without this an app
    /// dropped mid-game (a test's, or one replaced in the same process)
    /// would play on beside the app that resumes the game from its folder.
    fn drop(&mut self) {
        let _ = self.window.hide();
        self.online.borrow_mut().close();
    }
}

impl App {
    /// The app with its settings in `file` and offline dice from `dice`,
    /// on the home screen (not yet shown), with a desktop's services.
    pub fn new(file: SettingsFile, dice: Dice) -> Result<App, AppError> {
        App::with_services(file, dice, Services::desktop())
    }

    /// The app as [`new`](Self::new), on `services`. The folder of the
    /// settings file is the app's data folder: the player's identity and
    /// statistics are kept beside the settings.
    pub fn with_services(
        file: SettingsFile,
        dice: Dice,
        services: Services,
    ) -> Result<App, AppError> {
        let window = AppWindow::new()?;
        // Statistics, identity, online games and their saved logs live
        // beside the settings.
        let data = file
            .path()
            .parent()
            .map_or_else(|| ".".into(), std::path::Path::to_path_buf);
        super::join::connect(&window);
        super::statistics::connect(&window, data.clone());
        let lifecycle = services.lifecycle.clone();
        // The phones the nearby list asks are also seen by the invite
        // list, and Home's inbox (whose node keeps the nearby list) and
        // online play listen where the nearby list does.
        let (known, listen) = (
            services.browsing.ask.clone(),
            services.browsing.listen.clone(),
        );
        let discovery = services.discovery.clone();
        super::nearby::connect(&window, services.browsing.ask);
        super::scan::connect(&window, Scanner::new(services.lifecycle));
        // A damaged settings file must not keep the app from starting: it
        // is kept aside, and the defaults are saved in its place on the
        // next save. One that cannot be read now, or kept aside, stays as
        // it is: this run's settings are not saved over it.
        let (settings, saved_to) = match file.load() {
            Ok(settings) => (settings, Some(file)),
            Err(e) if e.damaged() => match file.keep_damaged() {
                Ok(kept) => {
                    eprintln!("clovece: {e}; kept as {}", kept.display());
                    eprintln!("clovece: using the default settings");
                    (Settings::default(), Some(file))
                }
                Err(why) => {
                    eprintln!("clovece: {e}; cannot keep it aside: {why}");
                    eprintln!("clovece: using the default settings, saved nowhere");
                    (Settings::default(), None)
                }
            },
            Err(e) => {
                eprintln!("clovece: {e}; using the default settings, saved nowhere");
                (Settings::default(), None)
            }
        };
        crate::durable::sweep(&data);
        let kept = GameFile::in_folder(&data);
        let online = Rc::new(RefCell::new(Online::new(
            data,
            lifecycle.clone(),
            discovery,
        )));
        online.borrow_mut().invites.know(known);
        online.borrow_mut().set_listen(listen);
        let names = Rc::new(VecModel::from(vec![SharedString::new(); 4]));
        let state = Rc::new(RefCell::new(State {
            settings,
            dice,
            setup: None,
            game: None,
            generation: 0,
            turn: None,
            handing_over: false,
            person: None,
            passes: 0,
            pieces: Rc::new(VecModel::default()),
            squares: Rc::new(VecModel::from(all_squares())),
            names,
            history: Rc::new(VecModel::default()),
            clock: slint::Timer::default(),
            unsaved: Arc::new(Unsaved::new(saved_to)),
            saving: slint::Timer::default(),
            paused: Arc::default(),
            kept,
            reopen_local: {
                let online = Rc::downgrade(&online);
                Box::new(move |on| {
                    if let Some(online) = online.upgrade() {
                        online.borrow_mut().set_local(on);
                    }
                })
            },
        }));
        let app = App {
            window,
            state,
            online,
        };
        app.show_settings();
        app.connect();
        let (paused, unsaved) = {
            let s = app.state.borrow();
            (s.paused.clone(), s.unsaved.clone())
        };
        lifecycle.on_foreground(move |foreground| {
            paused.store(!foreground, Ordering::Relaxed);
            // The system may kill an app in the background without a word.
            if !foreground {
                unsaved.save();
            }
        });
        let awake = lifecycle.clone();
        app.window
            .global::<ui::AppAdapter>()
            .on_screen_shown(move |screen| {
                // A room or a game is watched from the table between turns.
                let on = matches!(screen, ui::Screen::Game | ui::Screen::Room);
                // Nobody to tell: the screen then goes off after the phone's
                // idle time, as on every other screen.
                if let Err(e) = awake.keep_screen_on(on) {
                    eprintln!("clovece: {e}");
                }
            });
        let weak = app.window.as_weak();
        lifecycle.on_restore(move |bookmark| {
            // Fails only once the window is gone.
            let _ = weak.upgrade_in_event_loop(move |window| reopen(&window, bookmark));
        });
        Ok(app)
    }

    /// The window (for tests: to find elements and take snapshots).
    pub fn window(&self) -> &AppWindow {
        &self.window
    }

    /// Online games listen on `listen` (tests keep to loopback).
    pub fn listen_on(&self, listen: Vec<libp2p::Multiaddr>) {
        self.online.borrow_mut().set_listen(listen);
    }

    /// Rooms joined wait `secs` for a phone that is gone, not the rules'
    /// 45 s: a host asking for that wait is signed, and no other (the
    /// tests of drops).
    pub fn agree_to_grace(&self, secs: u16) {
        self.online.borrow_mut().set_grace(secs);
    }

    /// Online games hold each reveal for a computer roll for `pace`, not
    /// [`COMPUTER_PACE`] (tests that play many of the computer's turns).
    pub fn pace_computer(&self, pace: Duration) {
        self.online.borrow_mut().set_computer_pace(pace);
    }

    /// Where this phone hears invitations while Home is open, each address
    /// ending in `/p2p/<peer id>` (tests invite it on loopback), once the
    /// inbox's node listens.
    pub fn invitable_at(&self) -> Vec<libp2p::Multiaddr> {
        let online = self.online.borrow();
        online_adapter::identity(&online)
            .map(|keypair| online.invites.addresses(keypair.public().to_peer_id()))
            .unwrap_or_default()
    }

    /// Shows the window and runs until it is closed.
    pub fn run(&self) -> Result<(), AppError> {
        let ran = self.window.run();
        // A change made a moment before the window closed.
        self.state.borrow().unsaved.save();
        Ok(ran?)
    }

    /// Goes on with `game` on the board (a position loaded for a test, a
    /// screenshot or, later, a saved game).
    pub fn resume(&self, game: OfflineGame) {
        start(&self.window, &self.state, &self.online, game);
    }

    fn show_settings(&self) {
        let mut state = self.state.borrow_mut();
        let adapter = self.window.global::<SettingsAdapter>();
        select_language(state.settings.language);
        // The English default that earlier versions saved is no choice.
        if state.settings.nickname == "Player" {
            state.settings.nickname.clear();
        }
        let s = &state.settings;
        state
            .names
            .set_row_data(0, nickname(&self.window, s).into());
        adapter.set_nickname(s.nickname.as_str().into());
        let language = Language::ALL
            .iter()
            .position(|&l| l == s.language)
            .unwrap_or(0);
        adapter.set_language(language as i32);
        adapter.set_theme(theme_to_ui(s.theme));
        adapter.set_compulsory_capture(s.house.compulsory_capture);
        adapter.set_optional_bring_out(s.house.optional_bring_out);
        adapter.set_no_jump_home(s.house.no_jump_home);
        s.choices.show(&self.window, &state.names);
        let setup = self.window.global::<SetupAdapter>();
        setup.set_names(ModelRc::from(state.names.clone()));
        let game = self.window.global::<GameAdapter>();
        game.set_squares(ModelRc::from(state.squares.clone()));
    }

    fn connect(&self) {
        let settings = self.window.global::<SettingsAdapter>();
        let (window, state) = (self.window.as_weak(), self.state.clone());
        let online = self.online.clone();
        settings.on_changed(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            settings_changed(&window, &mut state.borrow_mut());
            // A nickname typed on the join screen reaches the inbox
            // running there.
            let name = window.global::<SettingsAdapter>().get_nickname();
            invite_adapter::renamed(&online.borrow().invites, &name);
        });

        let setup = self.window.global::<SetupAdapter>();
        setup.on_seated(|players| {
            let hues: Vec<ui::Hue> = seating(players)
                .iter()
                .flat_map(|s| s.iter())
                .map(hue)
                .collect();
            ModelRc::new(VecModel::from(hues))
        });
        setup.on_plays(|players, colour| {
            let colour = usize::try_from(colour)
                .ok()
                .and_then(|i| Colour::ALL.get(i));
            colour.is_some_and(|&c| seating(players).is_some_and(|s| s.contains(c)))
        });
        let state = self.state.clone();
        setup.on_rename(move |seat, name| {
            if let Ok(seat) = usize::try_from(seat)
                && seat < 4
            {
                state.borrow().names.set_row_data(seat, name);
            }
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        setup.on_start(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            let setup = setup_from_ui(&window, &state.borrow());
            remember_choices(&window, &mut state.borrow_mut());
            let game = {
                let mut s = state.borrow_mut();
                s.setup = Some(setup.clone());
                let dice = &mut s.dice;
                OfflineGame::new(setup, || dice.roll())
            };
            if let Ok(game) = game {
                start(&window, &state, &online, game);
            }
        });

        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        self.window
            .global::<ui::ResumeAdapter>()
            .on_resume_local(move || {
                let Some(window) = window.upgrade() else {
                    return;
                };
                let game = state.borrow().kept.load();
                match game {
                    Some(Ok(game)) => {
                        state.borrow_mut().setup = game.record().map(|r| r.setup().clone());
                        start(&window, &state, &online, game);
                    }
                    // It did not play again: not offered any more (but
                    // kept aside), and Home says why the button went.
                    Some(Err(_)) => {
                        state.borrow().kept.set_aside();
                        let adapter = window.global::<ui::ResumeAdapter>();
                        adapter.set_local_lost(true);
                        adapter.invoke_check();
                    }
                    None => window.global::<ui::ResumeAdapter>().invoke_check(),
                }
            });

        let (window, weak_state) = (self.window.as_weak(), Rc::downgrade(&self.state));
        self.state.borrow().clock.start(
            slint::TimerMode::Repeated,
            Duration::from_secs(1),
            move || {
                if let (Some(window), Some(state)) = (window.upgrade(), weak_state.upgrade()) {
                    tick(&window, &state);
                }
            },
        );

        let (window, state) = (self.window.as_weak(), self.state.clone());
        let profile = move || {
            let s = state.borrow();
            let name = window
                .upgrade()
                .map(|window| nickname(&window, &s.settings))
                .unwrap_or_default();
            (name, s.settings.house)
        };
        let (window, state) = (self.window.as_weak(), self.state.clone());
        let remember = move || {
            if let Some(window) = window.upgrade() {
                remember_choices(&window, &mut state.borrow_mut());
            }
        };
        online_adapter::connect(&self.window, &self.online, profile, remember);

        let game = self.window.global::<GameAdapter>();
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        game.on_roll(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            if online_adapter::roll(&window, &online) {
                return;
            }
            human_acts(&window, &state, |game, dice| match game.roll(dice.roll()) {
                Ok(_) => Acted::Stepped,
                Err(_) => Acted::Nothing,
            });
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        game.on_tap_piece(move |index| {
            let Some(window) = window.upgrade() else {
                return;
            };
            if online_adapter::tap_piece(&window, &online, index) {
                return;
            }
            let Ok(index) = usize::try_from(index) else {
                return;
            };
            human_acts(&window, &state, |game, _| {
                match game.pieces().get(index).map(|p| p.id) {
                    Some(id) => Acted::from(game.play_piece(id)),
                    None => Acted::Nothing,
                }
            });
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        game.on_tap_square(move |index| {
            let Some(window) = window.upgrade() else {
                return;
            };
            let Some(square) = usize::try_from(index)
                .ok()
                .and_then(|i| state.borrow().squares.row_data(i))
            else {
                return;
            };
            if online_adapter::tap_square(&window, &online, &square) {
                return;
            }
            human_acts(&window, &state, |game, _| match square_spot(&square) {
                Some(spot) => Acted::from(game.play_to(spot)),
                None => Acted::Nothing,
            });
        });
        let window = self.window.as_weak();
        game.on_tap_board(move |col, row, reach| {
            let Some(window) = window.upgrade() else {
                return;
            };
            tap_board(&window.global::<GameAdapter>(), (col, row), reach);
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        game.on_leave(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            if online_adapter::leave_won(&window, &online) {
                return;
            }
            if !online_adapter::leave(&online) {
                let s = state.borrow();
                if let Some(game) = s.game.as_ref() {
                    s.kept.ended(game);
                }
                online.borrow_mut().set_local(false);
            }
            let mut state = state.borrow_mut();
            state.generation += 1;
            state.game = None;
            window
                .global::<ui::AppAdapter>()
                .set_screen(ui::Screen::Home);
        });

        let matfyz = self.window.global::<MatfyzAdapter>();
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        matfyz.on_choose(move |index| {
            let Some(window) = window.upgrade() else {
                return;
            };
            let Ok(index) = usize::try_from(index) else {
                return;
            };
            if online_adapter::choose(&window, &online, index) {
                return;
            }
            human_acts(&window, &state, |game, _| Acted::from(game.choose(index)));
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        matfyz.on_cancel(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            if online_adapter::cancel_choice(&window, &online) {
                return;
            }
            human_acts(&window, &state, |game, _| {
                game.cancel_choice();
                Acted::Shown
            });
        });

        let result = self.window.global::<ResultAdapter>();
        let (window, online) = (self.window.as_weak(), self.online.clone());
        result.on_home(move || {
            // After its end, closing an online game costs nothing; it must
            // close, or its taps would take those of the next game here.
            if !online_adapter::leave(&online) {
                online.borrow_mut().set_local(false);
            }
            if let Some(window) = window.upgrade() {
                window
                    .global::<ui::AppAdapter>()
                    .set_screen(ui::Screen::Home);
            }
        });
        let (window, state, online) = (
            self.window.as_weak(),
            self.state.clone(),
            self.online.clone(),
        );
        result.on_play_again(move || {
            let Some(window) = window.upgrade() else {
                return;
            };
            // An online game's players meet again in a new room, which its
            // host opens (only the host is offered this). The others go
            // Home: the nearby list would reach the host under this
            // player's identity while the finished game's session still
            // waits for the others to hold its end (docs/lobby.md, "One
            // identity, several nodes").
            if online_adapter::leave(&online) {
                window
                    .global::<ui::AppAdapter>()
                    .set_screen(ui::Screen::Host);
                return;
            }
            let game = {
                let mut s = state.borrow_mut();
                let setup = s.setup.clone();
                let dice = &mut s.dice;
                setup.and_then(|setup| OfflineGame::new(setup, || dice.roll()).ok())
            };
            if let Some(game) = game {
                start(&window, &state, &online, game);
            }
        });
    }
}

/// Reads the settings screen, applies it, and saves it a moment later.
fn settings_changed(window: &AppWindow, state: &mut State) {
    let adapter = window.global::<SettingsAdapter>();
    let s = &mut state.settings;
    let before = nickname(window, s);
    let language = s.language;
    s.nickname = adapter.get_nickname().into();
    s.language = usize::try_from(adapter.get_language())
        .ok()
        .and_then(|i| Language::ALL.get(i).copied())
        .unwrap_or_default();
    s.theme = match adapter.get_theme() {
        ui::BoardTheme::Classic => BoardTheme::Classic,
        ui::BoardTheme::Sea => BoardTheme::Sea,
    };
    s.house.compulsory_capture = adapter.get_compulsory_capture();
    s.house.optional_bring_out = adapter.get_optional_bring_out();
    s.house.no_jump_home = adapter.get_no_jump_home();
    // Every text of the app is translated again: not at each key of the
    // nickname.
    if s.language != language {
        select_language(s.language);
    }
    // The first pass-and-play seat follows the nickname, unless the
    // player typed another name there.
    let after = nickname(window, s);
    if state
        .names
        .row_data(0)
        .is_some_and(|name| name == before.as_str())
    {
        state.names.set_row_data(0, after.into());
    }
    save(state);
}

/// Keeps the setup screens' choices with the settings: a game or a room
/// is being set up with them. A first pass-and-play name that is the
/// nickname is kept as none, so that it follows the nickname.
fn remember_choices(window: &AppWindow, state: &mut State) {
    let mut choices = Choices::read(window, &state.names);
    let nickname = nickname(window, &state.settings);
    if let Some(first) = choices.game.names.first_mut()
        && *first == nickname
    {
        first.clear();
    }
    if choices != state.settings.choices {
        state.settings.choices = choices;
        save(state);
    }
}

/// Saves the settings [`SAVE_AFTER`] their last change.
fn save(state: &mut State) {
    state.unsaved.put(state.settings.clone());
    let unsaved = state.unsaved.clone();
    state
        .saving
        .start(slint::TimerMode::SingleShot, SAVE_AFTER, move || {
            unsaved.save()
        });
}

/// The player's nickname: the one chosen, or else the word for "Player"
/// in the language shown.
fn nickname(window: &AppWindow, settings: &Settings) -> String {
    match settings.nickname.trim() {
        "" => window
            .global::<SettingsAdapter>()
            .get_default_nickname()
            .into(),
        chosen => chosen.to_owned(),
    }
}

/// Shows the translation for `language`.
fn select_language(language: Language) {
    let code = language.translation().unwrap_or_else(|| {
        sys_locale::get_locale().map_or("", |l| Language::translation_for_locale(&l))
    });
    // Only fails when the UI was built without translations.
    let _ = slint::select_bundled_translation(code);
}

pub(super) fn leave_cost(cost: LeaveCost) -> ui::LeaveCost {
    match cost {
        LeaveCost::Nothing => ui::LeaveCost::Nothing,
        LeaveCost::TwoLosses => ui::LeaveCost::TwoLosses,
        LeaveCost::Won => ui::LeaveCost::Won,
    }
}

fn theme_to_ui(theme: BoardTheme) -> ui::BoardTheme {
    match theme {
        BoardTheme::Classic => ui::BoardTheme::Classic,
        BoardTheme::Sea => ui::BoardTheme::Sea,
    }
}

/// The setup the setup screen shows, with the settings' house rules.
fn setup_from_ui(window: &AppWindow, state: &State) -> Setup {
    let adapter = window.global::<SetupAdapter>();
    // The colours that play, clockwise from red.
    let count = u8::try_from(adapter.get_players()).unwrap_or(2).clamp(2, 4);
    let seated: Vec<Colour> = Seats::for_players(count)
        .map(|seats| seats.iter().collect())
        .unwrap_or_default();
    let players = if adapter.get_vs_computer() {
        let level = usize::try_from(adapter.get_level())
            .ok()
            .and_then(|i| Level::ALL.get(i).copied())
            .unwrap_or_default();
        // The person's colour; red if the one chosen does not play.
        let chosen = usize::try_from(adapter.get_seat()).ok();
        let mine = (seated.iter().copied())
            .find(|c| Some(c.index()) == chosen)
            .unwrap_or(Colour::Red);
        (seated.iter())
            .map(|&c| {
                // No nickname is no name: the board names the colour, in
                // the language of the moment, not in the one the game
                // began in.
                if c == mine {
                    Player::Human {
                        name: state.settings.nickname.trim().to_owned(),
                    }
                } else {
                    Player::Computer { level }
                }
            })
            .collect()
    } else {
        (seated.iter())
            .map(|c| Player::Human {
                name: state
                    .names
                    .row_data(c.index())
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            })
            .collect()
    };
    // The turn timer is for pass and play: against the computer, the one
    // person may take their time.
    let timer = (u16::try_from(adapter.get_turn_time()).ok())
        .and_then(TurnTimer::from_seconds)
        .filter(|_| !adapter.get_vs_computer())
        .unwrap_or_default();
    let rules = match adapter.get_rules() {
        ui::RuleChoice::Classic => RuleSet::Classic(state.settings.house),
        ui::RuleChoice::Croatian => RuleSet::Classic(HouseRules::CROATIAN),
        ui::RuleChoice::Matfyz => RuleSet::Matfyz,
    };
    Setup {
        players,
        rules,
        timer,
    }
}

/// A second of the turn timer passed: shows what is left, or lets the
/// computer act for the person whose time ran out.
fn tick(window: &AppWindow, state: &Rc<RefCell<State>>) {
    let stood_in = {
        let s = &mut *state.borrow_mut();
        if s.paused.load(Ordering::Relaxed) {
            return;
        }
        let Some(game) = s.game.as_mut() else { return };
        match game.tick() {
            Tick::Off => false,
            Tick::Left(left) => {
                window
                    .global::<GameAdapter>()
                    .set_time_left(i32::from(left));
                false
            }
            Tick::Up => {
                let dice = &mut s.dice;
                game.stand_in(|| dice.roll()).is_ok()
            }
        }
    };
    if stood_in {
        after_step(window, state);
    }
}

/// Puts the offline `game` on the board and shows the game screen. The
/// invitation inbox stops until Home is back: nobody answers an invitation
/// in a game on this device, and its discovery would keep Android's
/// multicast lock.
fn start(
    window: &AppWindow,
    state: &Rc<RefCell<State>>,
    online: &Rc<RefCell<Online>>,
    game: OfflineGame,
) {
    invite_adapter::away_from_home(window, &mut online.borrow_mut().invites);
    window.global::<ui::ResumeAdapter>().set_local_lost(false);
    // The hard player's first move would build its tables on this thread,
    // in the middle of the board's animations: built aside meanwhile.
    let hard = Player::Computer { level: Level::Hard };
    if game.players().iter().any(|(_, player)| *player == hard) {
        let rules = game.game().rules();
        let aside = std::thread::Builder::new().name("prepare".into());
        let _ = aside.spawn(move || crate::bot::prepare(rules, Level::Hard));
    }
    {
        let mut s = state.borrow_mut();
        s.generation += 1;
        (s.turn, s.handing_over, s.person) = (None, false, None);
        let pieces: Vec<ui::PieceData> = game.pieces().iter().map(piece_data).collect();
        s.pieces = Rc::new(VecModel::from(pieces));
        let adapter = window.global::<GameAdapter>();
        adapter.set_pieces(ModelRc::from(s.pieces.clone()));
        adapter.set_rolls(0);
        adapter.set_board(theme_to_ui(s.settings.theme));
        // Games on this device; online games pass `true`, say when they
        // are stranded, when their first player is drawn and when they
        // end without a winner.
        adapter.set_leave_cost(leave_cost(LeaveCost::of(false, false)));
        adapter.set_stranded(false);
        adapter.set_silence(ui::Silence::default());
        adapter.set_away(ui::AwayKind::None);
        adapter.set_drawing(false);
        adapter.set_unwon(false);
        adapter.set_opening(ui::OpeningKind::None);
        adapter.set_unsaved("".into());
        s.history = Rc::new(VecModel::default());
        window
            .global::<FairnessAdapter>()
            .set_history(ModelRc::from(s.history.clone()));
        s.game = Some(game);
    }
    window
        .global::<ui::AppAdapter>()
        .set_screen(ui::Screen::Game);
    after_step(window, state);
}

/// Taps what a tap on the board at `at` (in cells) is for, within `reach`
/// cells: the nearest movable piece or target square
/// ([`geometry::nearest`]), as if it were tapped itself. A target square
/// comes before a movable piece on it (Matfyz: the piece a run captures
/// may be one the player could move too), as a screen reader's action on
/// the square takes it: the move there may ask who gets the piece, where
/// the piece's own move would be made at once.
fn tap_board(game: &GameAdapter, at: (f32, f32), reach: f32) {
    let index = |i: usize| i32::try_from(i).unwrap_or(i32::MAX);
    let pieces = game.get_pieces();
    let squares = game.get_squares();
    let movable = pieces.iter().enumerate().filter(|(_, p)| p.movable);
    let targets = squares.iter().enumerate().filter(|(_, s)| s.target);
    // (a piece rather than a square, its index, its cell), the squares
    // first: `nearest` takes the first of equally near ones.
    let tappable: Vec<(bool, i32, (i32, i32))> = targets
        .map(|(i, s)| (false, index(i), (s.col, s.row)))
        .chain(movable.map(|(i, p)| (true, index(i), (p.col, p.row))))
        .collect();
    let cells: Vec<_> = tappable.iter().map(|&(_, _, cell)| cell).collect();
    match geometry::nearest(&cells, at, reach).map(|i| tappable[i]) {
        Some((true, piece, _)) => game.invoke_tap_piece(piece),
        Some((false, square, _)) => game.invoke_tap_square(square),
        None => {}
    }
}

/// What a person's tap did.
enum Acted {
    Nothing,
    /// It asked a question, or took one back: the game shows it, and the
    /// person's time goes on.
    Shown,
    /// A roll or a move: the time of whoever acts next begins.
    Stepped,
}

impl From<Result<Outcome, FlowError>> for Acted {
    fn from(result: Result<Outcome, FlowError>) -> Acted {
        match result {
            Ok(Outcome::Moved(_)) => Acted::Stepped,
            Ok(Outcome::Asked) => Acted::Shown,
            Err(_) => Acted::Nothing,
        }
    }
}

/// Runs a person's action if a person is to act, then shows the result.
fn human_acts(
    window: &AppWindow,
    state: &Rc<RefCell<State>>,
    action: impl FnOnce(&mut OfflineGame, &mut Dice) -> Acted,
) {
    let acted = {
        let s = &mut *state.borrow_mut();
        match s.game.as_mut() {
            Some(game) if game.computer_to_act().is_none() && !s.handing_over => {
                action(game, &mut s.dice)
            }
            _ => Acted::Nothing,
        }
    };
    match acted {
        Acted::Nothing => {}
        Acted::Shown => {
            let s = state.borrow();
            if let Some(game) = s.game.as_ref() {
                show_game(window, &s, game);
            }
        }
        Acted::Stepped => after_step(window, state),
    }
}

/// Shows the game as it is now and schedules what comes next: the
/// computer's step, or the result screen.
fn after_step(window: &AppWindow, state: &Rc<RefCell<State>>) {
    let (generation, next, computer, handover) = {
        let s = &mut *state.borrow_mut();
        let Some(game) = s.game.as_ref() else { return };
        let next = game.next();
        let turn = next.mover();
        let person = |c| matches!(game.player(c), Some(Player::Human { .. }));
        let now = turn.filter(|&c| person(c));
        let passed = game.only_person().is_none()
            && matches!((s.person, now), (Some(before), Some(now)) if before != now);
        // Straight from one person to the next: a computer's turn between
        // them gives the time its pace takes.
        s.handing_over = passed && s.turn.is_some_and(person);
        s.passes += i32::from(passed);
        s.person = now.or(s.person);
        s.turn = turn;
        show_game(window, s, game);
        let kept = match next {
            Next::Won { .. } => {
                s.kept.ended(game);
                Ok(false)
            }
            _ => s.kept.save(game),
        };
        // A game the phone's storage refuses goes on, but its player is
        // told that closing the app would lose it.
        let unsaved = kept
            .as_ref()
            .err()
            .map_or_else(String::new, ToString::to_string);
        window
            .global::<ui::GameAdapter>()
            .set_unsaved(unsaved.into());
        // Only the game kept is what an app the system recreates reopens:
        // until a person has rolled in a new game, that is the one kept
        // before, and Home is (which offers it).
        (s.reopen_local)(kept.unwrap_or(false));
        if game.time_left().is_some() {
            s.clock.restart();
        }
        let computer = game.computer_to_act().is_some();
        (s.generation, next, computer, s.handing_over)
    };
    let delay = match next {
        Next::Won { .. } => RESULT_DELAY,
        _ if computer => COMPUTER_PACE,
        _ if handover => HANDOVER,
        _ => return,
    };
    let (window, state) = (window.as_weak(), state.clone());
    slint::Timer::single_shot(delay, move || {
        let Some(window) = window.upgrade() else {
            return;
        };
        if state.borrow().generation != generation {
            return;
        }
        if matches!(next, Next::Won { .. }) {
            show_result(&window, &state.borrow());
            return;
        }
        if handover {
            let s = &mut *state.borrow_mut();
            s.handing_over = false;
            if let Some(game) = s.game.as_ref() {
                show_game(&window, s, game);
                // Their time begins with the die they can tap.
                if game.time_left().is_some() {
                    s.clock.restart();
                }
            }
            return;
        }
        let stepped = {
            let s = &mut *state.borrow_mut();
            let Some(game) = s.game.as_mut() else { return };
            match game.next() {
                Next::Roll { .. } => game.roll(s.dice.roll()).is_ok(),
                Next::Move { .. } => game.play_computer().is_ok(),
                Next::Won { .. } => false,
            }
        };
        if stepped {
            after_step(&window, &state);
        }
    });
}

/// Fills the game screen's adapter from the controller.
fn show_game(window: &AppWindow, state: &State, game: &OfflineGame) {
    let adapter = window.global::<GameAdapter>();
    // Only a person's choices are marked: the computer's would only blink.
    let human = game.computer_to_act().is_none();
    let mut pieces = game.pieces();
    let mut targets = game.targets();
    if !human {
        pieces.iter_mut().for_each(|p| p.movable = false);
        targets.clear();
    }
    for (row, piece) in pieces.iter().enumerate() {
        let data = piece_data(piece);
        if state.pieces.row_data(row).as_ref() != Some(&data) {
            state.pieces.set_row_data(row, data);
        }
    }
    let shown = players(game);
    adapter.set_note(note(game.note(), game.only_person(), &shown));
    let plans = show_matfyz(window, game.board(), &shown, human);
    mark_squares(window, &targets, &plans);
    show_players(&adapter, shown);
    let (turn, rolling) = match game.next() {
        Next::Roll { seat, .. } => (seat, true),
        Next::Move { seat } => (seat, false),
        Next::Won { winner } => (winner, false),
    };
    adapter.set_turn(hue(turn));
    show_turn_name(&adapter, name(game.player(turn)));
    // The winner's too, until the result shows ("Blue (computer) wins!").
    adapter.set_turn_computer(matches!(game.player(turn), Some(Player::Computer { .. })));
    adapter.set_turn_yours(human && game.only_person() == Some(turn));
    adapter.set_can_roll(rolling && human && !state.handing_over);
    adapter.set_passes(state.passes);
    adapter.set_ran_out(game.ran_out());
    adapter.set_must_move(matches!(game.next(), Next::Move { .. }));
    let face = game.fairness().face(turn);
    adapter.set_die(face.map_or(0, |d| i32::from(d.get())));
    adapter.set_rolls(count(game.fairness().history().len()));
    adapter.set_time_left(game.time_left().map_or(-1, i32::from));
    let sitters: Vec<Sitter> = game
        .players()
        .iter()
        .map(|(colour, player)| {
            let computer = matches!(player, Player::Computer { .. });
            (*colour, name(Some(player)).into(), computer)
        })
        .collect();
    show_fairness(window, &state.history, game.fairness(), &sitters);
}

/// Shows the players' chips, in place: the screen shows them again every
/// second while a phone is waited for, and new rows each time would throw
/// a screen reader off the chip it reads.
pub(super) fn show_players(adapter: &GameAdapter, players: Vec<ui::PlayerData>) {
    super::rows::show(
        adapter.get_players(),
        players,
        |p| p.hue,
        |rows| adapter.set_players(rows),
    );
}

/// Fills the Matfyz parts of the game screen from `board`: the rolls still
/// to use, what each of the `players` holds, and the question about the
/// tapped piece while a person at this device is `asking`: where each
/// plan it offers ends, in its order (none unless it asks how far).
pub(super) fn show_matfyz(
    window: &AppWindow,
    board: &Board,
    players: &[ui::PlayerData],
    asking: bool,
) -> Vec<Spot> {
    let adapter = window.global::<MatfyzAdapter>();
    adapter.set_active(board.game().rules() == RuleSet::Matfyz);
    let rolls: Vec<String> = board
        .unused_rolls()
        .iter()
        .map(|d| d.get().to_string())
        .collect();
    adapter.set_rolls(rolls.join(" ").into());
    let pieces = board.pieces();
    let holdings: Vec<ui::HoldingData> = board
        .game()
        .seats()
        .iter()
        .map(|seat| {
            let on = |spot: Spot| pieces.iter().find(|p| p.spot == spot).map(|p| p.id.colour);
            let base = Colour::ALL
                .into_iter()
                .filter(|&c| {
                    pieces
                        .iter()
                        .any(|p| p.spot == Spot::Base(seat) && p.id.colour == c)
                })
                .map(Some);
            let home = (1..=HOME_LEN).map(|h| on(Spot::Home(seat, h)));
            ui::HoldingData {
                base: ModelRc::new(VecModel::from_iter(base.map(slot_data))),
                home: ModelRc::new(VecModel::from_iter(home.map(slot_data))),
            }
        })
        .collect();
    super::rows::show(
        adapter.get_holdings(),
        holdings,
        |_| (),
        |rows| adapter.set_holdings(rows),
    );
    let choice = board.choice().filter(|_| asking);
    let mut ends = Vec::new();
    match choice.map(|(_, c)| c) {
        None => adapter.set_choice(ui::ChoiceKind::None),
        // The sheet's rows are the choice's options one for one: the row
        // tapped is the option chosen.
        Some(Choice::Plan(plans)) => {
            ends.extend(plans.iter().map(|plan| plan.end));
            let plans: Vec<ui::PlanData> = plans.iter().map(plan_data).collect();
            // An online game shows its board again every second.
            super::rows::show(
                adapter.get_plans(),
                plans,
                |_| (),
                |plans| adapter.set_plans(plans),
            );
            adapter.set_choice(ui::ChoiceKind::Plan);
        }
        Some(Choice::Recipient { captured, seats }) => {
            let recipients: Vec<ui::PlayerData> = seats
                .into_iter()
                .map(|s| {
                    let hue = hue(s);
                    let player = players.iter().find(|p| p.hue == hue).cloned();
                    player.unwrap_or(ui::PlayerData {
                        hue,
                        ..Default::default()
                    })
                })
                .collect();
            adapter.set_captured(hue(captured));
            super::rows::show(
                adapter.get_recipients(),
                recipients,
                |_| (),
                |rows| adapter.set_recipients(rows),
            );
            adapter.set_choice(ui::ChoiceKind::Recipient);
        }
    }
    ends
}

/// Marks the board's squares: where the piece that may move would land
/// (`targets`), and the number of each Matfyz plan (`plans`, where each
/// ends, in the sheet's order) on the square where it ends.
pub(super) fn mark_squares(window: &AppWindow, targets: &[Spot], plans: &[Spot]) {
    let squares = window.global::<GameAdapter>().get_squares();
    for row in 0..squares.row_count() {
        let Some(mut square) = squares.row_data(row) else {
            continue;
        };
        let spot = square_spot(&square);
        let target = spot.is_some_and(|spot| targets.contains(&spot));
        let plan = spot
            .and_then(|spot| plans.iter().position(|&end| end == spot))
            .map_or(0, |i| i32::try_from(i + 1).unwrap_or(0));
        if (square.target, square.plan) != (target, plan) {
            square.target = target;
            square.plan = plan;
            squares.set_row_data(row, square);
        }
    }
}

/// A place in a base or home: empty, or the colour of its piece.
fn slot_data(piece: Option<Colour>) -> ui::SlotData {
    ui::SlotData {
        filled: piece.is_some(),
        hue: hue(piece.unwrap_or(Colour::Red)),
    }
}

/// A plan as the sheet shows it: its rolls and where it ends.
fn plan_data(plan: &Plan) -> ui::PlanData {
    let rolls: Vec<String> = plan.rolls.iter().map(|d| d.get().to_string()).collect();
    // A run never ends in a base; one would read as square 0, still its row.
    let (place, number) = match plan.end {
        Spot::Track(n) => (ui::PlaceKind::Track, n),
        Spot::Home(_, h) => (ui::PlaceKind::Home, h),
        Spot::Base(_) => (ui::PlaceKind::Base, 0),
    };
    ui::PlanData {
        rolls: rolls.join(" + ").into(),
        place,
        number: i32::from(number),
        captures: plan.captures,
    }
}

/// One seat as the fairness view names it: colour, player's name (empty
/// for the colour's name) and whether the computer plays it.
pub(super) type Sitter = (Colour, SharedString, bool);

/// Fills the fairness view from `fairness`, a game on this device or
/// online: each of the `sitters`' faces, and in `history` (the view's
/// model, newest first) the rolls that are new since it was last filled.
/// A history longer than the game's (an online log that lost a stretch
/// to a conflict) is filled again.
pub(super) fn show_fairness(
    window: &AppWindow,
    history: &VecModel<ui::RollData>,
    fairness: &Fairness,
    sitters: &[Sitter],
) {
    let adapter = window.global::<FairnessAdapter>();
    let stats: Vec<ui::DiceStats> = sitters
        .iter()
        .map(|(colour, name, computer)| {
            let faces = fairness
                .faces(*colour)
                .map(|n| i32::try_from(n).unwrap_or(i32::MAX));
            ui::DiceStats {
                hue: hue(*colour),
                name: name.clone(),
                computer: *computer,
                faces: ModelRc::new(VecModel::from(faces.to_vec())),
                rolls: count(fairness.rolls(*colour) as usize),
            }
        })
        .collect();
    let most = stats.iter().flat_map(|s| s.faces.iter()).max().unwrap_or(0);
    super::rows::show(
        adapter.get_players(),
        stats,
        |s| s.hue,
        |rows| adapter.set_players(rows),
    );
    adapter.set_most(most);
    show_history(history, fairness.history(), sitters);
}

/// Shows `rolls` in `history`, newest first: the rolls not shown yet are
/// added, and the list is filled anew when a roll shown is no longer
/// among them (the log was cut short, or this side's turns were undone
/// as the phones met again), so it never lists a roll that was undone.
fn show_history(history: &VecModel<ui::RollData>, rolls: &[Roll], sitters: &[Sitter]) {
    let shown = history.row_count();
    let kept = shown <= rolls.len()
        && rolls[..shown].iter().enumerate().all(|(number, roll)| {
            history.row_data(shown - 1 - number).is_some_and(|row| {
                (row.hue, row.die, row.computer)
                    == (hue(roll.seat), i32::from(roll.die.get()), roll.by_computer)
            })
        });
    if !kept {
        history.set_vec(Vec::new());
    }
    for (number, roll) in rolls.iter().enumerate().skip(history.row_count()) {
        let name = sitters
            .iter()
            .find(|(colour, ..)| *colour == roll.seat)
            .map(|(_, name, _)| name.clone())
            .unwrap_or_default();
        history.insert(
            0,
            ui::RollData {
                number: count(number + 1),
                hue: hue(roll.seat),
                name,
                die: i32::from(roll.die.get()),
                computer: roll.by_computer,
            },
        );
    }
}

/// A count as the UI's integer.
pub(super) fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Shows the result screen of the finished game.
fn show_result(window: &AppWindow, state: &State) {
    let Some(game) = state.game.as_ref() else {
        return;
    };
    let Next::Won { winner } = game.next() else {
        return;
    };
    let adapter = window.global::<ResultAdapter>();
    adapter.set_won(true);
    adapter.set_online(false);
    adapter.set_counted_as_lost(false);
    adapter.set_winner(hue(winner));
    adapter.set_winner_name(name(game.player(winner)).into());
    adapter.set_winner_computer(matches!(game.player(winner), Some(Player::Computer { .. })));
    adapter.set_winner_yours(game.only_person() == Some(winner));
    let all = players(game);
    let placings: Vec<ui::PlayerData> = game
        .placings()
        .into_iter()
        .filter_map(|c| all.iter().find(|p| p.hue == hue(c)).cloned())
        .collect();
    adapter.set_placings(ModelRc::new(VecModel::from(placings)));
    window
        .global::<ui::AppAdapter>()
        .set_screen(ui::Screen::Result);
}

/// Reopens what the app showed when the operating system killed it: the
/// online game (the newest kept game, which Resume goes on with), the room
/// this phone had joined (its game, if it started after the bookmark was
/// kept), or the game on this device (if it is still kept). An online game
/// that ended (its result was on screen) is recorded by Home rather than
/// an older kept game resumed in its place.
fn reopen(window: &AppWindow, bookmark: Bookmark) {
    let resumable = |store: &str| super::resume::resumable(std::path::Path::new(store));
    match bookmark {
        Bookmark::Home => {}
        Bookmark::Game { store }
        | Bookmark::Room {
            store: Some(store), ..
        } if resumable(&store) => window.global::<ui::ResumeAdapter>().invoke_resume(),
        Bookmark::Game { .. } => {}
        Bookmark::Room { ticket, .. } => window
            .global::<ui::AppAdapter>()
            .invoke_join_room(ticket.into()),
        Bookmark::Local => window.global::<ui::ResumeAdapter>().invoke_resume_local(),
    }
}

/// A player's name; empty for the computer and for people who gave none
/// (the UI then names the colour, in its language).
fn name(player: Option<&Player>) -> &str {
    match player {
        Some(Player::Human { name }) => name,
        _ => "",
    }
}

fn players(game: &OfflineGame) -> Vec<ui::PlayerData> {
    let pieces = game.pieces();
    let turn = game.next().mover();
    game.players()
        .iter()
        .map(|(colour, player)| ui::PlayerData {
            hue: hue(*colour),
            name: name(Some(player)).into(),
            computer: matches!(player, Player::Computer { .. }),
            active: turn == Some(*colour),
            home: home_count(&pieces, *colour) as i32,
            // Nobody drops out of, or leaves, a game on this device.
            waiting: -1,
            left: false,
        })
        .collect()
}

/// The UI's `note`, told whether it is about `you` (this device's one
/// person, if it has one) and the `players`' names.
pub(super) fn note(note: Note, you: Option<Colour>, players: &[ui::PlayerData]) -> ui::Note {
    let red = Colour::Red;
    let (kind, number, piece, by, to) = match note {
        Note::None => (ui::NoteKind::None, 0, red, red, red),
        Note::TurnLost { seat, die } => {
            let face = die.map_or(0, Die::get);
            (ui::NoteKind::TurnLost, face, seat, seat, seat)
        }
        Note::Unused { seat, die } => {
            let face = die.map_or(0, Die::get);
            (ui::NoteKind::Unused, face, seat, seat, seat)
        }
        Note::NoSix { seat } => (ui::NoteKind::NoSix, 0, seat, seat, seat),
        Note::TryAgain { attempt } => (ui::NoteKind::TryAgain, attempt, red, red, red),
        Note::RollAgain => (ui::NoteKind::RollAgain, 0, red, red, red),
        Note::Captured { piece, by } => (ui::NoteKind::Captured, 0, piece, by, piece),
        Note::Given { piece, by, to } => (ui::NoteKind::Given, 0, piece, by, to),
        Note::Tie { face } => (ui::NoteKind::Tie, face.get(), red, red, red),
        Note::Begins { seat } => (ui::NoteKind::Begins, 0, seat, seat, seat),
        Note::TimedOut { seat } => (ui::NoteKind::TimedOut, 0, seat, seat, seat),
        Note::Left { seat } => (ui::NoteKind::Left, 0, seat, seat, seat),
        Note::Gone { seat } => (ui::NoteKind::Gone, 0, seat, seat, seat),
        Note::Undone => (ui::NoteKind::Undone, 0, red, red, red),
        Note::Won { winner } => (ui::NoteKind::Won, 0, winner, winner, winner),
    };
    ui::Note {
        kind,
        number: i32::from(number),
        piece: hue(piece),
        by: hue(by),
        to: hue(to),
        yours: you == Some(piece),
        name: telling_name(players, piece),
    }
}

/// The name that tells `colour`'s player from the others in a note, which
/// shows no colour: the name their seat shows, unless another player's
/// shows it too (two phones without a nickname both send the word for
/// "Player"); then none, and the note says the colour.
fn telling_name(players: &[ui::PlayerData], colour: Colour) -> SharedString {
    let Some(player) = players.iter().find(|p| p.hue == hue(colour)) else {
        return SharedString::new();
    };
    let mine = player.name.trim();
    let shared = players
        .iter()
        .any(|p| p.hue != player.hue && p.name.trim() == mine);
    if mine.is_empty() || shared {
        SharedString::new()
    } else {
        mine.into()
    }
}

/// The rules' seating of a game of `players` (as the setup screen counts
/// them: 2 to 4).
fn seating(players: i32) -> Option<Seats> {
    u8::try_from(players).ok().and_then(Seats::for_players)
}

/// How many characters of a nickname the turn line shows: a longer one
/// pushed the words after it ("… ist am Zug") out of a phone's width.
const TURN_LINE_NAME: usize = 10;

/// Sets whose turn it is by `name`: in full for a screen reader, and cut
/// to [`TURN_LINE_NAME`] characters, "…" ending it, for the turn line.
pub(super) fn show_turn_name(adapter: &GameAdapter, name: &str) {
    adapter.set_turn_name(name.into());
    adapter.set_turn_short_name(short_name(name).into());
}

fn short_name(name: &str) -> String {
    match name.char_indices().nth(TURN_LINE_NAME) {
        Some(_) => name.chars().take(TURN_LINE_NAME - 1).chain(['…']).collect(),
        None => name.to_owned(),
    }
}

pub(super) fn hue(colour: Colour) -> ui::Hue {
    match colour {
        Colour::Red => ui::Hue::Red,
        Colour::Blue => ui::Hue::Blue,
        Colour::Green => ui::Hue::Green,
        Colour::Yellow => ui::Hue::Yellow,
    }
}

fn colour(hue: ui::Hue) -> Colour {
    match hue {
        ui::Hue::Red => Colour::Red,
        ui::Hue::Blue => Colour::Blue,
        ui::Hue::Green => Colour::Green,
        ui::Hue::Yellow => Colour::Yellow,
    }
}

pub(super) fn piece_data(piece: &PieceView) -> ui::PieceData {
    let (place, number, seat) = match piece.spot {
        Spot::Base(seat) => (ui::PlaceKind::Base, 0, seat),
        Spot::Track(n) => (ui::PlaceKind::Track, n, piece.id.colour),
        Spot::Home(seat, h) => (ui::PlaceKind::Home, h, seat),
    };
    ui::PieceData {
        hue: hue(piece.id.colour),
        col: i32::from(piece.cell.col),
        row: i32::from(piece.cell.row),
        place,
        number: i32::from(number),
        movable: piece.movable,
        seat: hue(seat),
    }
}

/// Every square of the board, in a fixed order: the track, then each
/// colour's home row and base.
fn all_squares() -> Vec<ui::SquareData> {
    let square = |cell: Cell, kind, colour: Colour, number: u8| ui::SquareData {
        col: i32::from(cell.col),
        row: i32::from(cell.row),
        kind,
        hue: hue(colour),
        number: i32::from(number),
        target: false,
        plan: 0,
    };
    let mut squares: Vec<ui::SquareData> = (0..TRACK_LEN)
        .map(|n| {
            let owner = Colour::from_index(usize::from(n / 10));
            let kind = if n == owner.start() {
                ui::SquareKind::Start
            } else {
                ui::SquareKind::Track
            };
            square(geometry::track(n), kind, owner, n)
        })
        .collect();
    for c in Colour::ALL {
        squares.extend(
            (1..=HOME_LEN).map(|h| square(geometry::home(c, h), ui::SquareKind::Home, c, h)),
        );
        squares.extend((0..4u8).map(|slot| {
            square(
                geometry::base(c, usize::from(slot)),
                ui::SquareKind::Base,
                c,
                slot + 1,
            )
        }));
    }
    squares
}

/// The spot of `square`, where a piece can end a move (not a base).
pub(super) fn square_spot(square: &ui::SquareData) -> Option<Spot> {
    let number = u8::try_from(square.number).ok()?;
    match square.kind {
        ui::SquareKind::Track | ui::SquareKind::Start => Some(Spot::Track(number)),
        ui::SquareKind::Home => Some(Spot::Home(colour(square.hue), number)),
        ui::SquareKind::Base => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(hue: ui::Hue, name: &str) -> ui::PlayerData {
        ui::PlayerData {
            hue,
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_turn_line_cuts_a_long_nickname_to_ten_characters() {
        assert_eq!(short_name("Anna"), "Anna");
        assert_eq!(short_name("Ten chars!"), "Ten chars!");
        assert_eq!(short_name("Maximilian Mustermann"), "Maximilia…");
        assert_eq!(short_name("Ľudovít Štúr"), "Ľudovít Š…");
    }

    #[test]
    fn a_note_names_a_player_only_by_a_name_that_tells_them_apart() {
        let players = [
            player(ui::Hue::Red, "Player"),
            player(ui::Hue::Blue, ""),
            player(ui::Hue::Green, "Player "),
            player(ui::Hue::Yellow, "Zuzka"),
        ];
        let said = |colour| telling_name(&players, colour).to_string();
        assert_eq!(said(Colour::Blue), "", "the computer: its colour");
        assert_eq!(said(Colour::Red), "", "a name two players share");
        assert_eq!(said(Colour::Yellow), "Zuzka");
        // One player without a nickname goes by the word, as their seat.
        let one = [player(ui::Hue::Red, "Player"), player(ui::Hue::Blue, "")];
        assert_eq!(telling_name(&one, Colour::Red), "Player");
        assert_eq!(telling_name(&one, Colour::Green), "", "no seat");
    }

    /// The roll history follows the rolls: new ones are added on top, and
    /// when this side's turns are undone as the phones meet again (the
    /// others kept as many rolls, or more), the undone ones go.
    #[test]
    fn the_roll_history_never_lists_a_roll_that_was_undone() {
        let roll = |seat, face| Roll {
            seat,
            die: Die::new(face).unwrap(),
            by_computer: false,
        };
        let sitters: Vec<Sitter> = [Colour::Red, Colour::Green]
            .into_iter()
            .map(|c| (c, SharedString::new(), false))
            .collect();
        let history = VecModel::default();
        let shown = |history: &VecModel<ui::RollData>| -> Vec<(i32, i32)> {
            history.iter().map(|r| (r.number, r.die)).collect()
        };
        show_history(&history, &[roll(Colour::Red, 2)], &sitters);
        assert_eq!(shown(&history), [(1, 2)]);
        let mut rolls = vec![roll(Colour::Red, 2), roll(Colour::Green, 5)];
        show_history(&history, &rolls, &sitters);
        assert_eq!(shown(&history), [(2, 5), (1, 2)], "newest first");
        // Undone: the others kept a 3 for Red's roll, then as many more.
        rolls[0] = roll(Colour::Red, 3);
        show_history(&history, &rolls, &sitters);
        assert_eq!(shown(&history), [(2, 5), (1, 3)]);
        rolls.push(roll(Colour::Red, 6));
        rolls[1] = roll(Colour::Green, 1);
        show_history(&history, &rolls, &sitters);
        assert_eq!(shown(&history), [(3, 6), (2, 1), (1, 3)]);
        show_history(&history, &rolls[..1], &sitters);
        assert_eq!(shown(&history), [(1, 3)], "cut short");
    }
}
