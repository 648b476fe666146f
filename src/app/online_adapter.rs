//! Wires the online screens to their controllers: the host's options and
//! the room screen ([`super::room`]), `AppAdapter.join-room`, and the game
//! screen during an online game ([`super::online_game`]). The network
//! thread's updates reach the window with `upgrade_in_event_loop`; the
//! game screen's taps go back as actions.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use libp2p::Multiaddr;
use slint::{ComponentHandle, Image, Model, ModelRc, VecModel};

use super::adapter::{
    Sitter, count, hue, leave_cost, mark_squares, note, piece_data, show_fairness, show_matfyz,
    show_players, square_spot,
};
use super::board::home_count;
use super::invite_adapter::{self, Invites};
use super::leave::LeaveCost;
use super::online::{Part, Place, Problem, Session, Update};
use super::online_game::{Away, OnlineGame};
use super::qr;
use super::resume_adapter;
use super::room::{self, Room};
use super::ui::{
    self, AppWindow, GameAdapter, NearbyAdapter, ResultAdapter, ResumeAdapter, RoomAdapter,
};
use crate::bot::Level;
use crate::lobby::RoomOptions;
use crate::lobby::host::Given;
use crate::lobby::options::{Players, TurnTime};
use crate::net::Ticket;
use crate::net::front::Action;
use crate::net::game::Joining;
use crate::net::room::SeatView;
use crate::platform::discovery::Discovery;
use crate::platform::lifecycle::{Bookmark, Lifecycle};
use crate::protocol::Theme;
use crate::rules::{Colour, FirstPlayer, HouseRules, RuleSet, Seats};
use crate::stats::GivenUp;

/// The online side of the app on the UI thread.
pub struct Online {
    /// The data folder: identity, saved game, statistics.
    pub(super) data: PathBuf,
    pub(super) listen: Vec<Multiaddr>,
    /// The wait for a phone that is gone which this phone signs as a guest
    /// ([`Joining::grace_secs`]).
    grace_secs: u16,
    /// How long the phone holds its reveal for each computer roll, so that
    /// the player sees each of the computer's turns.
    computer_pace: std::time::Duration,
    pub(super) session: Option<Session>,
    /// Sessions whose game the player gave up (left, or closed after its
    /// end): each plays on unseen until it has signed the leave or the
    /// others hold the end, and records the game. Or the session of a room
    /// left before the start, until its goodbye is sent. (A new session
    /// stops them, but one may take a moment to end.)
    leaving: Vec<Leaving>,
    /// The platform's multicast lock, held by each session (the
    /// invitations' nodes hold it through their discovery), and the
    /// bookmark of what to reopen if the system kills the app.
    lifecycle: Lifecycle,
    /// How phones nearby find this one's room and invitation inbox, and
    /// how the host's invite list finds them.
    pub(super) discovery: Arc<dyn Discovery>,
    pub(super) room: Option<Room>,
    /// Invitations: the inbox while Home is open, the host's invite list.
    pub(super) invites: Invites,
    game: Option<OnlineGame>,
    /// The game screen's pieces while an online game is on.
    pieces: Rc<VecModel<ui::PieceData>>,
    /// The fairness view's roll history while an online game is on.
    history: Rc<VecModel<ui::RollData>>,
    /// The players the game waits on, with the seconds left, as last told.
    silent: Vec<(Colour, u64)>,
    /// The players' nicknames by colour, as the game's start (or resume)
    /// told them.
    names: [String; 4],
    /// Whether this phone hosted the game's room (a resumed game's too),
    /// as its start told: its result offers to host a new room.
    hosted: bool,
    /// Bumped for every new session, so a finished session's late
    /// updates do nothing.
    generation: u64,
    /// The game on this device that is kept is on the board: what to
    /// reopen when no online game or room is.
    local: bool,
    /// The room being joined was asked for by its code, which only the
    /// join screen takes, and not reached yet: leaving it (no room has
    /// that code) goes back there, where the code can be mended.
    by_code: bool,
}

thread_local! {
    /// The UI thread's online state, for the updates the network thread
    /// sends into the event loop (they can carry only `Send` values).
    static ONLINE: RefCell<Weak<RefCell<Online>>> = const { RefCell::new(Weak::new()) };
}

impl Online {
    /// Online play keeping its files in `data`, listening on every
    /// interface, holding `lifecycle`'s multicast lock while a session runs
    /// and keeping its bookmark, found through `discovery`.
    pub fn new(data: PathBuf, lifecycle: Lifecycle, discovery: Arc<dyn Discovery>) -> Online {
        Online {
            data,
            listen: vec!["/ip4/0.0.0.0/tcp/0".parse().expect("a valid address")],
            grace_secs: crate::protocol::header::DEFAULT_GRACE_SECS,
            computer_pace: super::COMPUTER_PACE,
            session: None,
            leaving: Vec::new(),
            lifecycle,
            discovery,
            room: None,
            invites: Invites::default(),
            game: None,
            pieces: Rc::new(VecModel::default()),
            history: Rc::new(VecModel::default()),
            silent: Vec::new(),
            names: Default::default(),
            hosted: false,
            generation: 0,
            local: false,
            by_code: false,
        }
    }

    /// Listens on `listen` instead (tests keep to loopback).
    pub fn set_listen(&mut self, listen: Vec<Multiaddr>) {
        self.listen = listen;
    }

    /// Signs, as a guest, a wait of `secs` for a phone that is gone
    /// instead of the rules' 45 s (the tests of drops).
    pub fn set_grace(&mut self, secs: u16) {
        self.grace_secs = secs;
    }

    /// Holds each reveal for a computer roll for `pace` instead (tests
    /// that play many of the computer's turns).
    pub fn set_computer_pace(&mut self, pace: std::time::Duration) {
        self.computer_pace = pace;
    }

    /// Stops the session (a started game stays in its folder, to be
    /// resumed) and the invitations' nodes: the app is closing.
    pub(super) fn close(&mut self) {
        self.generation += 1;
        self.session = None;
        self.leaving.clear();
        self.invites = Invites::default();
    }

    /// Keeps what to reopen if the operating system kills the app now:
    /// the online game on the board (its folder, which Resume goes on
    /// with), the room this phone joined (a host's room ends with the
    /// app), the game on this device, or Home. (A session left earlier
    /// calls this as it ends: the bookmark follows what is on the board,
    /// not that session.)
    fn keep_bookmark(&self) {
        let bookmark = match (&self.session, &self.game, &self.room) {
            (Some(session), Some(_), _) => Bookmark::Game {
                store: session.folder().display().to_string(),
            },
            (Some(session), None, Some(room)) if room.guest() => {
                room.ticket()
                    .map_or(Bookmark::Home, |(ticket, _)| Bookmark::Room {
                        ticket: ticket.to_owned(),
                        store: Some(session.folder().display().to_string()),
                    })
            }
            _ if self.local => Bookmark::Local,
            _ => Bookmark::Home,
        };
        self.lifecycle.set_bookmark(bookmark);
    }

    /// The game on this device that is kept is on the board (`true`), or
    /// none is (no game, or a new one nobody has rolled in yet).
    pub(super) fn set_local(&mut self, on: bool) {
        self.local = on;
        self.keep_bookmark();
    }

    /// Whether a session runs, shown or given up: its game's folder is in
    /// use.
    pub(super) fn busy(&self) -> bool {
        self.session.is_some() || !self.leaving.is_empty()
    }
}

/// A session playing on after the player gave its game up, or left its
/// room.
struct Leaving {
    /// The session's generation, whose updates are its own.
    generation: u64,
    session: Session,
    /// The game left before its end, kept up to date unseen: should it get
    /// stuck (the others gone before this player's turn, in which the
    /// leave is signed, comes), the session stops, and the game is
    /// recorded as its log then stands, with this player's leave.
    game: Option<OnlineGame>,
}

impl Leaving {
    /// Takes in an update of its session: whether the session ended.
    fn apply(&mut self, update: Update) -> bool {
        match (update, &mut self.game) {
            (Update::Ended(_), _) => return true,
            (Update::Log(snapshot), Some(game)) => game.update(snapshot),
            (Update::Silent(silent), Some(game)) => {
                game.tick(&silent);
                if game.stranded(&silent) {
                    self.game = None;
                    self.session.stop();
                }
            }
            _ => {}
        }
        false
    }
}

/// The player's identity, kept in the data folder.
pub(super) fn identity(s: &Online) -> Result<libp2p::identity::Keypair, String> {
    crate::net::identity::load_or_create(&s.data).map_err(|e| e.to_string())
}

/// Connects the room screen and `AppAdapter.join-room`.
/// `profile` gives the player's nickname and house rules (the settings');
/// `remember` keeps the host screen's choices as a room opens with them.
pub fn connect(
    window: &AppWindow,
    online: &Rc<RefCell<Online>>,
    profile: impl Fn() -> (String, HouseRules) + 'static,
    remember: impl Fn() + 'static,
) {
    ONLINE.with(|o| *o.borrow_mut() = Rc::downgrade(online));
    let profile = Rc::new(profile);
    let nickname = profile.clone();
    let nickname: Rc<dyn Fn() -> String> = Rc::new(move || nickname().0);
    invite_adapter::connect(window, online, nickname.clone());
    resume_adapter::connect(window, online, nickname);
    let room = window.global::<RoomAdapter>();

    let (weak, state, settings) = (window.as_weak(), online.clone(), profile.clone());
    room.on_open(move || {
        let Some(window) = weak.upgrade() else { return };
        let (name, house) = settings();
        let options = options_from_ui(&window.global::<RoomAdapter>(), house);
        remember();
        begin(&window, &state, Part::Host(options), name);
    });
    // Choosing a rule set chooses its own way to pick the first player
    // too; the host may choose another after.
    let (weak, settings) = (window.as_weak(), profile.clone());
    room.on_rules_chosen(move || {
        let Some(window) = weak.upgrade() else { return };
        let adapter = window.global::<RoomAdapter>();
        let rules = options_from_ui(&adapter, settings().1).rules;
        adapter.set_first(first_index(FirstPlayer::for_room(rules)));
    });
    let (weak, state) = (window.as_weak(), online.clone());
    window.global::<ui::AppAdapter>().on_join_room(move |link| {
        let Some(window) = weak.upgrade() else { return };
        let link = link.trim().to_owned();
        let joining = match super::nearby::chosen(&link) {
            Some(listing) => Joining::listed(link, listing),
            None => Joining::by(link),
        };
        begin(&window, &state, Part::Join(joining), profile().0);
    });

    let (weak, state) = (window.as_weak(), online.clone());
    room.on_toggle_ready(move || {
        let mut s = state.borrow_mut();
        let Some(action) = s.room.as_mut().and_then(Room::toggle_ready) else {
            return;
        };
        if let Some(session) = &s.session {
            session.act(action);
        }
        drop(s);
        if let Some(window) = weak.upgrade() {
            show_room(&window, &mut state.borrow_mut());
        }
    });
    let state = online.clone();
    room.on_computer(move |seat, level| {
        let level = usize::try_from(level)
            .ok()
            .and_then(|i| Level::ALL.get(i).copied());
        seat_command(&state, seat, |room, seat| room.computer(seat, level));
    });
    let state = online.clone();
    room.on_remove(move |seat| seat_command(&state, seat, Room::remove));
    let state = online.clone();
    room.on_move_up(move |seat| seat_command(&state, seat, Room::move_up));
    let state = online.clone();
    room.on_start(move || {
        let s = state.borrow();
        if let (Some(command), Some(session)) = (s.room.as_ref().and_then(Room::start), &s.session)
        {
            session.command(command);
        }
    });
    let (weak, state) = (window.as_weak(), online.clone());
    room.on_leave(move || {
        // Before the start leaving costs nothing. In the room, the session
        // says goodbye (a host's guests learn at once that the room is
        // closed) and ends; if the game started meanwhile, it stops and
        // the game is kept to be resumed. Still looking for the room (or
        // loading a game to resume), it just stops. Either way it is
        // kept until it has ended: its game's folder is in use until then,
        // and Home looks for kept games again once it is free.
        let mut s = state.borrow_mut();
        let in_room = s.room.as_ref().is_some_and(|r| r.ticket().is_some());
        if let Some(mut session) = s.session.take() {
            if in_room {
                session.act(Action::LeaveRoom);
            } else {
                session.stop();
            }
            let generation = s.generation;
            s.leaving.push(Leaving {
                generation,
                session,
                game: None,
            });
        }
        s.generation += 1;
        s.room = None;
        s.keep_bookmark();
        if let Some(window) = weak.upgrade() {
            let back = if s.by_code {
                ui::Screen::Join
            } else {
                ui::Screen::Home
            };
            window.global::<ui::AppAdapter>().set_screen(back);
        }
    });
}

/// Starts a session as `part` and opens the room screen (a resumed game
/// goes on to the board as soon as its log is shown).
pub(super) fn begin(
    window: &AppWindow,
    online: &Rc<RefCell<Online>>,
    mut part: Part,
    name: String,
) {
    window.global::<ui::ResumeAdapter>().set_local_lost(false);
    let role = match part {
        Part::Host(_) => room::Part::Host,
        Part::Join(_) | Part::Resume(_) => room::Part::Guest,
    };
    let resuming = matches!(part, Part::Resume(_));
    // The nearby rooms list stops too (an invitation accepted on its
    // screen begins a session while it is open): one node per identity.
    // So does the camera (an invitation accepted over the scan screen),
    // which would otherwise join the next room code it sees.
    window.global::<NearbyAdapter>().invoke_close();
    window.global::<ui::ScanAdapter>().invoke_close();
    let mut s = online.borrow_mut();
    if let Part::Join(joining) = &mut part {
        joining.grace_secs = s.grace_secs;
    }
    let link = match &part {
        Part::Join(joining) => Some(joining.link.as_str()),
        Part::Host(_) | Part::Resume(_) => None,
    };
    invite_adapter::session_begins(window, &mut s.invites, link);
    // One game at a time: a given-up game still playing out stops here
    // and is recorded as it stands (it stays busy until then).
    for leaving in &mut s.leaving {
        leaving.session.stop();
    }
    s.generation += 1;
    s.game = None;
    s.silent.clear();
    s.names = Default::default();
    s.hosted = false;
    s.by_code = matches!(&part, Part::Join(j) if j.link.parse::<crate::net::RoomCode>().is_ok());
    window.global::<RoomAdapter>().set_by_code(s.by_code);
    s.room = Some(Room::new(role));
    let place = Place {
        data: s.data.clone(),
        listen: s.listen.clone(),
        name,
        discovery: s.discovery.clone(),
        computer_pace: s.computer_pace,
    };
    let (weak, generation) = (window.as_weak(), s.generation);
    // A new session replaces (and so stops) any earlier one.
    let session = Session::start(part, place, move |update| {
        // Fails only when the window's event loop is gone.
        let _ = weak.upgrade_in_event_loop(move |window| {
            // The thread-local's borrow ends here, not with the update.
            if let Some(online) = ONLINE.with(|o| o.borrow().upgrade()) {
                apply(&window, &online, generation, update);
                online.borrow().keep_bookmark();
            }
        });
    });
    // Without the lock a phone drops multicast silently: the game still
    // runs on the ticket's addresses, only rediscovery by mDNS is lost.
    s.session = Some(match s.lifecycle.multicast().hold() {
        Ok(hold) => session.holding(hold),
        Err(e) => {
            tracing::warn!("online game without the multicast lock: {e}");
            session
        }
    });
    let adapter = window.global::<RoomAdapter>();
    adapter.set_hosting(role == room::Part::Host);
    adapter.set_resuming(resuming);
    forget_ticket(&adapter);
    show_room(window, &mut s);
    s.keep_bookmark();
    window
        .global::<ui::AppAdapter>()
        .set_screen(ui::Screen::Room);
}

/// Gives the session the host's command for seat `seat` (from 0, as the
/// room screen counts), made by `command` from the room as shown.
fn seat_command(
    online: &Rc<RefCell<Online>>,
    seat: i32,
    command: impl FnOnce(&Room, usize) -> Option<Given>,
) {
    let s = online.borrow();
    let command = usize::try_from(seat)
        .ok()
        .and_then(|seat| command(s.room.as_ref()?, seat));
    if let (Some(command), Some(session)) = (command, &s.session) {
        session.command(command);
    }
}

/// Takes in an update of session `generation`.
fn apply(window: &AppWindow, online: &Rc<RefCell<Online>>, generation: u64, update: Update) {
    let mut s = online.borrow_mut();
    if s.generation != generation {
        let leaving = s.leaving.iter().position(|l| l.generation == generation);
        if let Some(at) = leaving
            && s.leaving[at].apply(update)
        {
            s.leaving.remove(at);
            drop(s);
            // Its folder is free: Home may offer another kept game.
            if window.global::<ui::AppAdapter>().get_screen() == ui::Screen::Home {
                window.global::<ResumeAdapter>().invoke_check();
            }
        }
        return;
    }
    match update {
        Update::Started { names, hosted, .. } => {
            s.names = names;
            s.hosted = hosted;
        }
        Update::Log(snapshot) => {
            let cost = LeaveCost::of(snapshot.counted, snapshot.wins_by_forfeit());
            match s.game.as_mut() {
                Some(game) => game.update(snapshot),
                None => {
                    let game = OnlineGame::new(snapshot);
                    let pieces: Vec<ui::PieceData> = game.pieces().iter().map(piece_data).collect();
                    s.pieces = Rc::new(VecModel::from(pieces));
                    let adapter = window.global::<GameAdapter>();
                    adapter.set_pieces(ModelRc::from(s.pieces.clone()));
                    adapter.set_board(invite_adapter::board(game.snapshot().theme));
                    s.history = Rc::new(VecModel::default());
                    window
                        .global::<ui::FairnessAdapter>()
                        .set_history(ModelRc::from(s.history.clone()));
                    s.game = Some(game);
                    // The host's invite list, if open, closes with the room:
                    // its node must not answer for this phone in the game.
                    invite_adapter::room_gone(window, &mut s.invites);
                    window
                        .global::<ui::AppAdapter>()
                        .set_screen(ui::Screen::Game);
                }
            }
            window
                .global::<GameAdapter>()
                .set_leave_cost(leave_cost(cost));
            show_game(window, &s);
        }
        Update::Silent(silent) => {
            s.silent = silent;
            let silent = s.silent.clone();
            if let Some(game) = s.game.as_mut() {
                game.tick(&silent);
            }
            show_game(window, &s);
        }
        Update::Over { .. } => show_result(window, &s),
        Update::Nearby { peer, here } => {
            if s.invites.seen.take(peer, here) {
                invite_adapter::show_invitees(window, &s);
            }
        }
        Update::Named { peer, name } => {
            if s.invites.seen.name(peer, name) {
                invite_adapter::show_invitees(window, &s);
            }
        }
        Update::Ended(Ok(())) => s.session = None,
        other => {
            // In the room: its code was right, whatever becomes of it.
            if let Update::Joined { .. } = other {
                s.by_code = false;
                window.global::<RoomAdapter>().set_by_code(false);
            }
            let changed = s.room.as_mut().is_some_and(|room| room.apply(&other));
            if let Update::Ended(Err(_)) = other {
                s.session = None;
                invite_adapter::room_gone(window, &mut s.invites);
                // Once over, the game stays on its result screen: only its
                // recording failed.
                let over = s.game.as_ref().is_some_and(|g| g.over().is_some());
                if !over && s.game.take().is_some() {
                    // The game broke off: back to the room screen, which
                    // says why.
                    window
                        .global::<ui::AppAdapter>()
                        .set_screen(ui::Screen::Room);
                }
            }
            if changed {
                show_room(window, &mut s);
            }
        }
    }
}

/// Fills the room screen.
fn show_room(window: &AppWindow, s: &mut Online) {
    let Some(room) = &mut s.room else { return };
    let adapter = window.global::<RoomAdapter>();
    if room.ticket().is_none() && !adapter.get_code().is_empty() {
        // The room is gone: its code, QR code and link with it.
        forget_ticket(&adapter);
    }
    if let Some((ticket, code)) = room.ticket_to_draw() {
        adapter.set_code(code.into());
        adapter.set_link(ticket.into());
        adapter.set_private_room(ticket.parse::<Ticket>().is_ok_and(|t| t.secret().is_some()));
        match qr::picture(ticket) {
            Ok(picture) => adapter.set_qr(Image::from_rgba8(picture)),
            Err(e) => room.fail(Problem::other(e)),
        }
    }
    adapter.set_has_terms(room.terms().is_some());
    if let Some(terms) = room.terms() {
        adapter.set_terms(invite_adapter::game_data(terms));
    }
    let colours = u8::try_from(room.seats().len())
        .ok()
        .and_then(Seats::for_players);
    let seats: Vec<ui::SeatData> = room
        .seats()
        .iter()
        .zip(colours.into_iter().flat_map(Seats::iter))
        .enumerate()
        .map(|(i, (seat, colour))| seat_data(seat, colour, room.mine() == Some(i)))
        .collect();
    adapter.set_guests(seats.iter().any(|seat| seat.kind == ui::SeatKind::Guest));
    // A seat is its place in the room.
    super::rows::show(
        adapter.get_seats(),
        seats,
        |_| (),
        |seats| adapter.set_seats(seats),
    );
    adapter.set_full(room.full());
    adapter.set_startable(room.startable());
    adapter.set_ready(room.ready());
    adapter.set_out_of_touch(room.out_of_touch());
    show_problem(&adapter, room.problem());
    invite_adapter::show_invitees(window, s);
}

/// Clears the room screen's code, QR code and link.
fn forget_ticket(adapter: &RoomAdapter) {
    adapter.set_code("".into());
    adapter.set_qr(Image::default());
    adapter.set_link("".into());
}

fn show_problem(adapter: &RoomAdapter, problem: Option<&Problem>) {
    use ui::RoomProblem as Ui;
    let kind = match problem {
        None => Ui::None,
        Some(Problem::NotACode) => Ui::NotACode,
        Some(Problem::NoRoom) => Ui::NoRoom,
        Some(Problem::TwoRooms) => Ui::TwoRooms,
        Some(Problem::Closed) => Ui::Closed,
        Some(Problem::Full) => Ui::Full,
        Some(Problem::Removed) => Ui::Removed,
        Some(Problem::Private) => Ui::PrivateRoom,
        Some(Problem::NoAnswer) => Ui::NoAnswer,
        Some(Problem::Gone) => Ui::Gone,
        Some(Problem::Refused) => Ui::Refused,
        Some(Problem::OtherVersion) => Ui::OtherVersion,
        Some(Problem::NotAsOffered) => Ui::NotAsOffered,
        Some(Problem::BadStart(_)) => Ui::BadStart,
        Some(Problem::InUse) => Ui::InUse,
        Some(Problem::Storage(_)) => Ui::Storage,
        Some(Problem::Network(_)) => Ui::Network,
        Some(Problem::Other(_)) => Ui::Other,
    };
    adapter.set_problem(kind);
    adapter.set_problem_text(problem.map_or("", Problem::detail).into());
}

fn seat_data(seat: &SeatView, colour: Colour, mine: bool) -> ui::SeatData {
    let (kind, name, ready, level) = match seat {
        SeatView::Host { name } => (ui::SeatKind::Host, name.as_str(), true, 0),
        SeatView::Guest { name, ready } => (ui::SeatKind::Guest, name.as_str(), *ready, 0),
        SeatView::Computer { level } => {
            let index = Level::ALL.iter().position(|l| l == level).unwrap_or(0);
            (ui::SeatKind::Computer, "", false, count(index))
        }
        SeatView::Empty => (ui::SeatKind::Empty, "", false, 0),
    };
    ui::SeatData {
        kind,
        hue: hue(colour),
        name: name.into(),
        ready,
        level,
        mine,
    }
}

/// The players of `seats`, in that order.
fn players(
    s: &Online,
    game: &OnlineGame,
    seats: impl IntoIterator<Item = Colour>,
    silent: &[(Colour, u64)],
) -> Vec<ui::PlayerData> {
    let names = &s.names;
    let pieces = game.pieces();
    seats
        .into_iter()
        .map(|colour| ui::PlayerData {
            hue: hue(colour),
            name: names[colour.index()].as_str().into(),
            computer: game.computer(colour),
            active: game.turn() == Some(colour),
            home: count(home_count(&pieces, colour)),
            waiting: silent
                .iter()
                .find(|(c, _)| *c == colour)
                .map_or(-1, |&(_, secs)| seconds(secs)),
            left: game.left(colour),
        })
        .collect()
}

/// The phones the game waits on that are quiet, named by the one the
/// computer will play for first.
fn silence(s: &Online) -> ui::Silence {
    let soonest = s.silent.iter().min_by_key(|&&(_, secs)| secs);
    soonest.map_or_else(Default::default, |&(colour, secs)| ui::Silence {
        phones: count(s.silent.len()),
        name: s.names[colour.index()].as_str().into(),
        hue: hue(colour),
        seconds: seconds(secs),
    })
}

fn seconds(secs: u64) -> i32 {
    i32::try_from(secs).unwrap_or(i32::MAX)
}

/// Fills the game screen from the online game.
fn show_game(window: &AppWindow, s: &Online) {
    let Some(game) = &s.game else { return };
    let adapter = window.global::<GameAdapter>();
    let pieces = game.pieces();
    for (row, piece) in pieces.iter().enumerate() {
        let data = piece_data(piece);
        if row >= s.pieces.row_count() {
            s.pieces.push(data);
        } else if s.pieces.row_data(row).as_ref() != Some(&data) {
            s.pieces.set_row_data(row, data);
        }
    }
    let players = players(s, game, game.snapshot().shown().seats().iter(), &s.silent);
    let plans = show_matfyz(window, game.board(), &players, true);
    mark_squares(window, &game.targets(), &plans);
    adapter.set_note(note(game.note(), Some(game.me()), &players));
    show_players(&adapter, players);
    let turn = game.named();
    adapter.set_turn(hue(turn));
    super::adapter::show_turn_name(&adapter, &s.names[turn.index()]);
    adapter.set_turn_computer(game.computer(turn));
    adapter.set_turn_yours(game.yours());
    adapter.set_drawing(game.drawing());
    adapter.set_unwon(game.unwon());
    adapter.set_opening(match game.opening() {
        Some(FirstPlayer::FirstSix) => ui::OpeningKind::FirstSix,
        Some(FirstPlayer::HighestRoll) => ui::OpeningKind::HighestRoll,
        _ => ui::OpeningKind::None,
    });
    adapter.set_can_roll(game.can_roll());
    adapter.set_ran_out(game.ran_out());
    adapter.set_must_move(game.must_move());
    let fairness = game.fairness();
    adapter.set_die(game.face(&fairness).map_or(0, |d| i32::from(d.get())));
    adapter.set_rolls(count(fairness.history().len()));
    adapter.set_time_left(game.time_left().map_or(-1, i32::from));
    adapter.set_stranded(game.stranded(&s.silent));
    adapter.set_silence(silence(s));
    // Kept by its session, not by the game on this device's file.
    adapter.set_unsaved("".into());
    adapter.set_away(match game.away() {
        None => ui::AwayKind::None,
        Some(Away::Held) => ui::AwayKind::Held,
        Some(Away::Coming) => ui::AwayKind::Coming,
        Some(Away::Back) => ui::AwayKind::Back,
    });
    let sitters: Vec<Sitter> = game
        .snapshot()
        .shown()
        .seats()
        .iter()
        .map(|c| (c, s.names[c.index()].as_str().into(), game.computer(c)))
        .collect();
    show_fairness(window, &s.history, &fairness, &sitters);
}

/// Shows the result screen of the finished online game.
fn show_result(window: &AppWindow, s: &Online) {
    let Some(game) = &s.game else { return };
    let adapter = window.global::<ResultAdapter>();
    let winner = game.over().flatten();
    adapter.set_won(winner.is_some());
    adapter.set_online(true);
    adapter.set_hosted(s.hosted);
    if let Some(winner) = winner {
        adapter.set_winner(hue(winner));
        adapter.set_winner_name(s.names[winner.index()].as_str().into());
        adapter.set_winner_computer(game.computer(winner));
        // Over, the header names the winner: whether that is this phone's.
        adapter.set_winner_yours(game.yours());
    }
    adapter.set_counted_as_lost(game.counted_as_lost());
    let placings = players(s, game, game.ranking(), &[]);
    adapter.set_placings(ModelRc::new(VecModel::from(placings)));
    window
        .global::<ui::AppAdapter>()
        .set_screen(ui::Screen::Result);
}

/// The die was tapped: whether an online game took it.
pub fn roll(window: &AppWindow, online: &Rc<RefCell<Online>>) -> bool {
    act(window, online, OnlineGame::roll)
}

/// Piece `index` (of the game screen's pieces) was tapped: whether an
/// online game took it.
pub fn tap_piece(window: &AppWindow, online: &Rc<RefCell<Online>>, index: i32) -> bool {
    act(window, online, |game| {
        let piece = usize::try_from(index)
            .ok()
            .and_then(|i| game.pieces().get(i).map(|p| p.id))?;
        game.tap(piece)
    })
}

/// `square` was tapped: whether an online game took it (the piece that
/// lands there moves).
pub fn tap_square(
    window: &AppWindow,
    online: &Rc<RefCell<Online>>,
    square: &ui::SquareData,
) -> bool {
    act(window, online, |game| {
        let spot = square_spot(square)?;
        game.tap_to(spot)
    })
}

/// Option `index` of the Matfyz question was chosen: whether an online
/// game took it.
pub fn choose(window: &AppWindow, online: &Rc<RefCell<Online>>, index: usize) -> bool {
    act(window, online, |game| game.choose(index))
}

/// The Matfyz question was dismissed: whether an online game took it.
pub fn cancel_choice(window: &AppWindow, online: &Rc<RefCell<Online>>) -> bool {
    act(window, online, |game| {
        game.cancel_choice();
        None
    })
}

/// Gives up the online game, if there is one (the caller then changes
/// the screen): whether there was. Before its end that is leaving it (two
/// losses; one, a drop, if it is stranded); after its end the log is
/// final and the leave is ignored.
pub fn leave(online: &Rc<RefCell<Online>>) -> bool {
    let mut s = online.borrow_mut();
    let Some(game) = s.game.take() else {
        return false;
    };
    give_up(&mut s, Some(game));
    s.keep_bookmark();
    true
}

/// This player leaves an online game that every other player left
/// before, which makes it their win: the game ends for them, and its
/// result is shown (closing it closes the game, [`leave`]). Whether it was
/// such a game.
pub fn leave_won(window: &AppWindow, online: &Rc<RefCell<Online>>) -> bool {
    let mut s = online.borrow_mut();
    if !s.game.as_ref().is_some_and(OnlineGame::won_if_left) {
        return false;
    }
    // Its end comes with this leave: no wait to get stuck in.
    give_up(&mut s, None);
    if let Some(game) = s.game.as_mut() {
        game.leave();
    }
    s.keep_bookmark();
    show_result(window, &s);
    true
}

/// Gives the game's session up: it goes on until the others hold the end
/// (or the leave), then records the game in the statistics; its later
/// updates are not shown, and the next session may begin at once. `game`,
/// the game as shown, is watched meanwhile ([`Leaving::game`]).
fn give_up(s: &mut Online, game: Option<OnlineGame>) {
    if let Some(mut session) = s.session.take() {
        // Stranded, the game may never come back to this player's turn to
        // sign a leave in, and held back (found gone again) it does not for
        // many rolls: it is recorded now, as the drop it is on the others'
        // phones.
        let stranded = game
            .as_ref()
            .is_some_and(|g| g.stranded(&s.silent) || g.away() == Some(Away::Held));
        session.give_up(if stranded {
            GivenUp::Stranded
        } else {
            GivenUp::OnPurpose
        });
        if stranded {
            session.stop();
        }
        let generation = s.generation;
        s.leaving.push(Leaving {
            generation,
            session,
            game: game.filter(|_| !stranded),
        });
    }
    s.generation += 1;
    s.room = None;
}

/// Lets `choose` take this player's tap in the online game, sends the
/// action it comes to and shows the board (a question may have opened or
/// closed): whether there was an online game.
fn act(
    window: &AppWindow,
    online: &Rc<RefCell<Online>>,
    choose: impl FnOnce(&mut OnlineGame) -> Option<Action>,
) -> bool {
    let mut s = online.borrow_mut();
    let Some(game) = s.game.as_mut() else {
        return false;
    };
    let action = choose(game);
    if let (Some(action), Some(session)) = (action, &s.session) {
        session.act(action);
    }
    show_game(window, &s);
    true
}

/// The ways of choosing the first player, in the order of the host
/// screen's `first` (0 random, 1 red, 2 highest roll, 3 first six).
const FIRST: [FirstPlayer; 4] = [
    FirstPlayer::Random,
    FirstPlayer::Red,
    FirstPlayer::HighestRoll,
    FirstPlayer::FirstSix,
];

/// `first` as the screens number it ([`FIRST`]).
pub(super) fn first_index(first: FirstPlayer) -> i32 {
    FIRST.iter().position(|&f| f == first).unwrap_or_default() as i32
}

/// The host's options as the host screen shows them; classic rules with
/// the host's `house` rules (the header carries them to every phone), the
/// Croatian preset or the Matfyz rules.
fn options_from_ui(adapter: &RoomAdapter, house: HouseRules) -> RoomOptions {
    let turn = (u16::try_from(adapter.get_turn_time()).ok())
        .and_then(TurnTime::from_seconds)
        .unwrap_or_default();
    let first = usize::try_from(adapter.get_first())
        .ok()
        .and_then(|i| FIRST.get(i))
        .copied()
        .unwrap_or_default();
    RoomOptions {
        private: adapter.get_private(),
        players: u8::try_from(adapter.get_players())
            .ok()
            .and_then(Players::from_count)
            .unwrap_or_default(),
        turn,
        board: match adapter.get_board() {
            ui::BoardTheme::Sea => Theme::Sea,
            ui::BoardTheme::Classic => Theme::Classic,
        },
        rules: match adapter.get_rules() {
            ui::RuleChoice::Classic => RuleSet::Classic(house),
            ui::RuleChoice::Croatian => RuleSet::Classic(HouseRules::CROATIAN),
            ui::RuleChoice::Matfyz => RuleSet::Matfyz,
        },
        first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;

    #[test]
    fn a_game_on_this_device_stays_the_bookmark_when_an_earlier_session_ends() {
        let platform = Platform::desktop();
        let lifecycle = platform.lifecycle.clone();
        let mut online = Online::new(".".into(), platform.lifecycle, platform.discovery);
        online.set_local(true);
        assert_eq!(lifecycle.bookmark(), Bookmark::Local);
        // A session left before this game began tells its end.
        online.keep_bookmark();
        assert_eq!(lifecycle.bookmark(), Bookmark::Local);
        online.set_local(false);
        assert_eq!(lifecycle.bookmark(), Bookmark::Home);
    }
}
