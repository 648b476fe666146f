//! An online game of the app: the networked game ([`crate::net::game`])
//! on a tokio runtime of its own thread, its progress handed to the UI as
//! owned [`Update`]s and the player's taps sent to it as [`Action`]s (the
//! host's room commands as [`Given`] commands). Plain Rust: the adapter decides
//! how updates reach the window (`upgrade_in_event_loop`), tests take them
//! from a channel.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libp2p::{Multiaddr, PeerId};
use tokio::sync::{mpsc, oneshot};

use super::announce::{NodeAnnouncement, announcement, to_node};
use crate::bot::Level;
use crate::lobby::RoomOptions;
use crate::lobby::host::{Console, Given, Host};
use crate::net::NetError;
use crate::net::Sighting;
use crate::net::front::{Action, Front, Progress};
use crate::net::game::{self, GameError, Joining, Peer, Role};
use crate::net::room::{Listing, LookupError, Refusal, SeatView};
use crate::platform::discovery::Discovery;
#[cfg(test)]
use crate::platform::multicast::Multicast;
use crate::platform::multicast::MulticastHold;
use crate::protocol::{
    Colours, Control, Digest, Due, HeaderError, Phone, PhoneError, RollRecord, StoreError, Theme,
    TurnTimer,
};
use crate::rules::{Colour, Die, FirstPlayer, Game, Move};
use crate::stats::GivenUp;

/// The game as one log state shows it: what the game screen draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// This player's colour.
    pub me: Colour,
    /// The rules' game (`None` while the first player is chosen).
    pub game: Option<Game>,
    /// The game's starting position, shown while the first player is
    /// chosen (the pieces in their bases, every seat).
    pub start: Game,
    /// How the first player is chosen.
    pub first: FirstPlayer,
    /// The face the highest opening rolls just tied at, until the tied
    /// players roll again.
    pub tie: Option<Die>,
    /// How many of this player's turns the computer played as their timer
    /// ran out ([`Phone::timeouts`]).
    pub timeouts: u32,
    /// By colour, the moves the log holds as played for a player whose
    /// time ran out ([`crate::protocol::Log::timed_out`]): how this phone
    /// learns of the others'.
    pub timed_out: [u32; 4],
    pub due: Due,
    /// The hash of the log's last entry: the phones measure a player's
    /// time from it ([`crate::protocol::presence::Watch`]), so each new
    /// entry gives the player in turn their whole time again.
    pub head: Digest,
    /// Who plays each colour now (`None`: not in play).
    pub control: [Option<Control>; 4],
    /// The absent players certified back, who take their seats when the
    /// turn passes.
    pub returning: Colours,
    /// Whether this player, absent, waits to be voted back: found gone
    /// again, after the game made more rolls without them
    /// ([`crate::protocol::State::may_return`]).
    pub held_back: bool,
    /// Every roll so far, oldest first.
    pub rolls: Vec<RollRecord>,
    /// Every move so far, oldest first: the board shows the one move
    /// since its last snapshot as it was played.
    pub moves: Vec<Move>,
    /// The time each player has for a roll or move.
    pub timer: TurnTimer,
    /// The room's board: every phone of the game shows the same one.
    pub theme: Theme,
    /// Whether the game counts in the statistics: it has another player
    /// than this one ([`crate::stats::record::counts`]).
    pub counted: bool,
    /// The players certified gone while their own roll waited for them,
    /// which the statistics count as a loss whoever wins ([`crate::protocol::State::withheld`]).
    pub withheld: Colours,
    /// The player who wins by forfeit, every other player having left
    /// ([`crate::stats::record::forfeit_winner`]): the statistics count
    /// them the winner, whoever the computer brings home first.
    pub forfeit: Option<Colour>,
}

impl Snapshot {
    /// Whether every other player has left and this one wins by forfeit.
    pub fn wins_by_forfeit(&self) -> bool {
        self.forfeit == Some(self.me)
    }

    /// The game to show: the starting position until the first player is
    /// chosen.
    pub fn shown(&self) -> Game {
        self.game.unwrap_or(self.start)
    }

    fn of(phone: &Phone) -> Snapshot {
        let log = phone.log();
        let state = log.state();
        let header = &log.header().header;
        Snapshot {
            me: phone.seat(),
            game: state.game().copied(),
            start: Game::new(header.rules, log.setup().seats, Colour::Red)
                .expect("red is seated in every seating"),
            first: header.first,
            tie: state.tie(),
            timeouts: phone.timeouts(),
            timed_out: log.timed_out(),
            due: log.due(),
            head: log.head(),
            control: Colour::ALL.map(|c| state.control(c)),
            returning: state.returning(),
            held_back: !state.present().is_empty() && !state.may_return(phone.seat()),
            rolls: log.rolls().collect(),
            moves: log.moves().collect(),
            timer: header.timer,
            theme: header.theme,
            counted: crate::stats::record::counts(&header.seats),
            forfeit: crate::stats::record::forfeit_winner(log),
            withheld: Colour::ALL
                .into_iter()
                .filter(|&c| state.withheld(c))
                .collect(),
        }
    }
}

/// What the network thread tells the UI, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// The host's room is open: its ticket (the link and QR code) and its
    /// short code.
    Opened { ticket: String, code: String },
    /// The guest is in the room of this ticket (its QR code for a friend)
    /// and short code.
    Joined { ticket: String, code: String },
    /// The game the room starts: the host's choice, or what the host told
    /// this guest (which signs no other).
    Terms(Listing),
    /// The room's seats; with the host, whether the game may start and
    /// the guests' phones by seat (from 0); with a guest, its own seat if
    /// the host said.
    Seats {
        seats: Vec<SeatView>,
        startable: Option<bool>,
        mine: Option<usize>,
        guests: Vec<(usize, PeerId)>,
    },
    /// A line of the host's organiser (a refusal).
    Said(String),
    /// This guest lost touch with its host before the start and asks for
    /// its seat again (`false`), or is answered again (`true`).
    InTouch(bool),
    /// The host's node found a phone nearby (`here`) or lost it: whom its
    /// invite list offers.
    Nearby { peer: PeerId, here: bool },
    /// The phone invited has the invitation.
    Reached(PeerId),
    /// A phone found nearby said its nickname: only its word.
    Named { peer: PeerId, name: String },
    /// The game started (or resumed) with this player in `me`'s seat;
    /// every seat's nickname by colour (empty: the computer's seat, or a
    /// player whose nickname is not known); whether this phone hosted the
    /// room, resumed or not.
    Started {
        me: Colour,
        names: [String; 4],
        hosted: bool,
    },
    /// The log changed.
    Log(Snapshot),
    /// The players the game waits on, each with the seconds left before
    /// the computer plays for them (empty: nobody).
    Silent(Vec<(Colour, u64)>),
    /// The game is over (`None`: nobody won), or this player left it.
    Over { winner: Option<Colour> },
    /// The network side ended: the game was recorded in the statistics,
    /// or the problem that ended it.
    Ended(Result<(), Problem>),
}

/// What went wrong, for the room screen: why a session ended before its
/// game did, or a refusal. The ones a player meets when joining are named,
/// so that the screen says them in the player's language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The text to join with is neither a room code nor a ticket.
    NotACode,
    /// No open room nearby has the code.
    NoRoom,
    /// Two open rooms nearby have the code.
    TwoRooms,
    /// The host of a ticket or invitation has closed or started the room,
    /// or closed it with this guest in it.
    Closed,
    /// Every seat of the room is taken.
    Full,
    /// The host removed this phone from its room.
    Removed,
    /// The room is private, and the ticket does not open it.
    Private,
    /// The host did not answer.
    NoAnswer,
    /// The host, reached, went away before the start without a word: its
    /// phone or this one left the Wi-Fi, or its app was killed (a host
    /// that closes its room says so: [`Problem::Closed`]).
    Gone,
    /// The host's own change to the seats was refused: the room changed
    /// before it was made (a guest came, left or is no longer ready), as
    /// the seats now show. The app only offers changes the seats allow and
    /// gives its room commands, never lines to parse, so nothing else is
    /// refused.
    Refused,
    /// The other phone runs another version of the app (its protocol or
    /// its rules engine and computer players).
    OtherVersion,
    /// The room's host tried to start another game than its room offered
    /// (in the list, the invitation, or on the room screen).
    NotAsOffered,
    /// The room's host asked to sign a start this phone refuses (one that
    /// seats this player wrongly, is not fair to every player, or is not a
    /// valid game), in its (English) words: a broken or hostile host.
    BadStart(String),
    /// The game is open in another window of the app (or another
    /// process on its data folder), which plays it.
    InUse,
    /// This phone cannot save or read what it keeps (the game, the
    /// player's key, the statistics), in the system's (English) words:
    /// its storage is full or not writable, or a kept game is damaged.
    Storage(String),
    /// This phone cannot open the network, in its (English) words.
    Network(String),
    /// Anything else, in its (English) words.
    Other(String),
}

impl Problem {
    /// `e`, in its own words.
    pub(super) fn other(e: impl std::fmt::Display) -> Problem {
        Problem::Other(e.to_string())
    }

    /// `e` of this phone's storage, in its own words.
    pub(super) fn storage(e: impl std::fmt::Display) -> Problem {
        Problem::Storage(e.to_string())
    }

    /// The details of a problem shown by its kind, in their own words,
    /// after the kind's sentence in the player's language; empty for a
    /// problem named one by one.
    pub(super) fn detail(&self) -> &str {
        match self {
            Problem::BadStart(why)
            | Problem::Storage(why)
            | Problem::Network(why)
            | Problem::Other(why) => why,
            _ => "",
        }
    }
}

impl From<GameError> for Problem {
    fn from(e: GameError) -> Problem {
        match e {
            GameError::NotATicket(_) | GameError::DamagedTicket(_) => Problem::NotACode,
            GameError::Lookup(LookupError::NotFound(_)) => Problem::NoRoom,
            GameError::Lookup(LookupError::Refused(Refusal::NoSuchRoom | Refusal::Closed)) => {
                Problem::Closed
            }
            GameError::Lookup(LookupError::Ambiguous(_)) => Problem::TwoRooms,
            GameError::Lookup(LookupError::Refused(Refusal::Full)) => Problem::Full,
            GameError::Lookup(LookupError::Refused(Refusal::Removed)) => Problem::Removed,
            GameError::Lookup(LookupError::Refused(Refusal::WrongSecret)) => Problem::Private,
            GameError::Lookup(LookupError::NoAnswer) => Problem::NoAnswer,
            GameError::Lookup(LookupError::Gone) => Problem::Gone,
            GameError::Header(e) | GameError::Phone(PhoneError::Header(e))
                if matches!(e, HeaderError::Protocol { .. } | HeaderError::Engine { .. }) =>
            {
                Problem::OtherVersion
            }
            GameError::NotAsOffered => Problem::NotAsOffered,
            GameError::BadSeat
            | GameError::Unfair { .. }
            | GameError::Header(_)
            | GameError::Phone(PhoneError::Header(_)) => Problem::BadStart(e.to_string()),
            GameError::Phone(PhoneError::Store(StoreError::InUse { .. })) => Problem::InUse,
            GameError::Folder(..)
            | GameError::NoSavedGame(..)
            | GameError::Unreadable(..)
            | GameError::Phone(PhoneError::Store(_)) => Problem::storage(e),
            GameError::Net(
                NetError::Listen { .. } | NetError::Listener { .. } | NetError::Swarm(_),
            ) => Problem::Network(e.to_string()),
            e => Problem::other(e),
        }
    }
}

/// How this phone takes part.
#[derive(Clone, Debug)]
pub enum Part {
    /// Host a room with these options.
    Host(RoomOptions),
    /// Join by ticket link or room code, held to the game it was shown
    /// with, if any.
    Join(Joining),
    /// Go on with the game kept in this session folder
    /// ([`super::resume`]).
    Resume(PathBuf),
}

/// Where the session keeps its identity, saved game and statistics, where
/// it listens, and how phones nearby find it.
#[derive(Clone)]
pub struct Place {
    pub data: PathBuf,
    pub listen: Vec<Multiaddr>,
    pub name: String,
    /// The platform's discovery: where it runs outside the swarm (Bonjour
    /// on iOS), the session's node runs without libp2p's mDNS, is
    /// announced through it while the session runs and hears its finds
    /// (a room code is looked up among them, and the players are found
    /// again there after a Wi-Fi change), as libp2p's mDNS would do.
    pub discovery: Arc<dyn Discovery>,
    /// How long the phone holds its reveal for each computer roll, so that
    /// the player sees each of the computer's turns ([`crate::net::game::Peer::computer_pace`]).
    pub computer_pace: std::time::Duration,
}

/// The app's [`Front`]: progress out as [`Update`]s, taps in as actions.
struct AppFront<F> {
    notify: F,
    actions: mpsc::UnboundedReceiver<Action>,
    discovery: Arc<dyn Discovery>,
    announced: NodeAnnouncement,
    /// Where the discovery's finds go: to the session's node.
    found: mpsc::UnboundedSender<Sighting>,
    /// The session's folder, marked once the game ended, and once every
    /// other player had left.
    folder: PathBuf,
    /// Whether the folder is marked as a game every other player left.
    forfeit: bool,
}

#[async_trait::async_trait(?Send)]
impl<F: FnMut(Update)> Front for AppFront<F> {
    fn show(&mut self, progress: Progress<'_>) -> std::io::Result<()> {
        let update = match progress {
            Progress::Listening { peer, addrs } => {
                // Else the swarm's mDNS announces it, under the multicast
                // lock the session holds.
                if !self.discovery.swarm_mdns() {
                    let me = announcement(peer, addrs);
                    let found = to_node(self.found.clone());
                    self.announced
                        .open(&*self.discovery, &me, found, "the online session");
                }
                return Ok(());
            }
            Progress::Opened(ticket) => Update::Opened {
                ticket: ticket.to_string(),
                code: ticket.code().to_string(),
            },
            Progress::Joined(ticket) => Update::Joined {
                ticket: ticket.to_string(),
                code: ticket.code().to_string(),
            },
            Progress::Terms(listing) => Update::Terms(*listing),
            Progress::Seats {
                seats,
                startable,
                mine,
                guests,
            } => Update::Seats {
                seats: seats.to_vec(),
                startable,
                mine,
                guests: guests.to_vec(),
            },
            Progress::Said(line) => Update::Said(line.to_owned()),
            Progress::InTouch(now) => Update::InTouch(now),
            Progress::Nearby { peer, here } => Update::Nearby { peer, here },
            Progress::Reached(peer) => Update::Reached(peer),
            Progress::Named { peer, name } => Update::Named {
                peer,
                name: name.to_owned(),
            },
            Progress::Seat { me, names, hosted } => Update::Started {
                me,
                names: names.clone(),
                hosted,
            },
            Progress::Log(phone) => {
                let snapshot = Snapshot::of(phone);
                if snapshot.wins_by_forfeit() && !self.forfeit {
                    // For Home to say so if the app is closed now.
                    match super::resume::mark_forfeit(&self.folder) {
                        Ok(()) => self.forfeit = true,
                        Err(e) => tracing::warn!("cannot mark the game won by forfeit: {e}"),
                    }
                }
                Update::Log(snapshot)
            }
            Progress::Silent(silent) => Update::Silent(
                silent
                    .iter()
                    .map(|&(c, left)| (c, left.div_ceil(1000)))
                    .collect(),
            ),
            Progress::Result { winner, .. } => {
                // Recorded with its result on the next start if the app is
                // closed or killed before this session records it.
                if let Err(e) = super::resume::mark_ended(&self.folder) {
                    tracing::warn!("cannot mark the game ended: {e}");
                }
                Update::Over { winner }
            }
            Progress::Left(_) => Update::Over { winner: None },
            Progress::Resumed(_)
            | Progress::Away(_)
            | Progress::Back(_)
            | Progress::Acting { .. }
            | Progress::Dropped(_) => return Ok(()),
        };
        (self.notify)(update);
        Ok(())
    }

    fn due(&mut self, _phone: &Phone) -> std::io::Result<Option<Action>> {
        // A person taps the die or a piece (and answers a Matfyz piece's
        // questions); when their time runs out, every phone's computer
        // plays for them through the log.
        Ok(None)
    }

    async fn input(&mut self, _asked: bool) -> std::io::Result<Option<Action>> {
        match self.actions.recv().await {
            Some(action) => Ok(Some(action)),
            // The app is gone; its process ends with this thread.
            None => std::future::pending().await,
        }
    }
}

/// A running online session; dropping it stops the network thread (before
/// the start that is leaving the room, which costs nothing).
pub struct Session {
    actions: mpsc::UnboundedSender<Action>,
    commands: Option<mpsc::UnboundedSender<Given>>,
    stop: Option<oneshot::Sender<()>>,
    /// The platform's multicast lock, held while the session runs: its
    /// node finds the other phones again by mDNS after a Wi-Fi change.
    _hold: Option<MulticastHold>,
    /// The session's node, announced by the platform's discovery until
    /// the session is dropped or its game ends.
    announced: NodeAnnouncement,
    /// How the player gave the game up, once they did
    /// ([`Session::give_up`]): the session records it so even if the
    /// folder's mark could not be written.
    given_up: Arc<OnceLock<GivenUp>>,
    /// The session's folder, where a given-up game is marked so.
    folder: PathBuf,
}

impl Session {
    /// Starts taking part as `part`, telling `notify` (on the network
    /// thread) every update.
    pub fn start(part: Part, place: Place, notify: impl FnMut(Update) + Send + 'static) -> Session {
        let (actions, action_rx) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let new_folder = || super::resume::new_folder(&place.data);
        let (role, commands, folder) = match part {
            Part::Host(options) => {
                let (tx, rx) = mpsc::unbounded_channel();
                let console = Some(Console::Commands(rx));
                let host = Host::new(options.players, &place.name, 0, Level::Medium, console);
                let role = Role::Host(options.table(), Box::new(host));
                (role, Some(tx), new_folder())
            }
            Part::Join(joining) => (Role::Join(Some(joining)), None, new_folder()),
            Part::Resume(folder) => (Role::Join(None), None, folder),
        };
        let announced = NodeAnnouncement::default();
        let given_up = Arc::new(OnceLock::new());
        let (found, sightings) = mpsc::unbounded_channel();
        let mut front = AppFront {
            notify,
            actions: action_rx,
            discovery: place.discovery.clone(),
            announced: announced.clone(),
            found,
            folder: folder.clone(),
            forfeit: false,
        };
        let (done, session_folder) = (given_up.clone(), folder.clone());
        std::thread::spawn(move || {
            let data = place.data.clone();
            let session = || run(role, place, &folder, sightings, &mut front, stopped);
            let ended = match (unwound(session), done.get()) {
                (Ok(Stopped::Recorded), _) => Ok(()),
                // Given up, the game is recorded as its log stands, not
                // kept for Home: the player left it (or saw its end).
                (_, Some(&how)) => {
                    super::resume::give_up(&data, &folder, Some(how)).map_err(Problem::storage)
                }
                (ended, None) => ended.map(|_| ()),
            };
            front.announced.close();
            (front.notify)(Update::Ended(ended));
        });
        Session {
            actions,
            commands,
            stop: Some(stop),
            _hold: None,
            announced,
            given_up,
            folder: session_folder,
        }
    }

    /// The folder this session keeps its game in.
    pub fn folder(&self) -> &std::path::Path {
        &self.folder
    }

    /// Keeps `hold` (the platform's multicast lock) until the session is
    /// dropped.
    pub fn holding(mut self, hold: MulticastHold) -> Session {
        self._hold = Some(hold);
        self
    }

    /// Sends the player's action (ignored once the game is over).
    pub fn act(&self, action: Action) {
        let _ = self.actions.send(action);
    }

    /// The player is done with the game: on purpose, it leaves in its
    /// next turn if the game is still on (two losses), and if the session
    /// is stopped before the game is recorded, the game is recorded as its
    /// log then stands (this player's leave if unfinished) instead of being
    /// kept for Home. A leave that waits for a turn that never comes (a new
    /// session) still counts, and is never offered back as a game to
    /// resume: the folder is marked so, for a killed app's next start.
    /// Stranded, the player signs no leave (the others' phones, gone, would
    /// see a drop) and the game counts as their drop (one loss); the
    /// session is to be stopped then.
    pub fn give_up(&self, how: GivenUp) {
        let _ = self.given_up.set(how);
        if let Err(e) = super::resume::mark_given_up(&self.folder, how) {
            tracing::warn!("cannot mark the game given up: {e}");
        }
        if how == GivenUp::OnPurpose {
            self.act(Action::Leave);
        }
    }

    /// Stops the network thread as dropping does, keeping the session
    /// until its `Ended` update: its game is being recorded until then.
    pub fn stop(&mut self) {
        self.announced.close();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Sends a host's room command (a guest has none).
    pub fn command(&self, command: Given) {
        if let Some(commands) = &self.commands {
            let _ = commands.send(command);
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The thread ends at its next await; the UI does not wait for it,
        // but the phone is no longer announced from now on.
        self.stop();
    }
}

/// How a session that did not fail ended.
enum Stopped {
    /// The game ended, was recorded and its folder removed.
    Recorded,
    /// Stopped first, or the game goes on for this player ([`settle`]):
    /// a started game stays in its folder.
    Kept,
}

/// `run`'s result, or the problem of a panic in it: the screen waiting
/// for the session's `Ended` would otherwise wait for ever. (The panic
/// hook has already written the panic where the platform keeps such
/// messages.)
fn unwound<T>(run: impl FnOnce() -> Result<T, Problem>) -> Result<T, Problem> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("no message");
        Err(Problem::Other(format!("the app failed: {what}")))
    })
}

/// Plays as `role` in session folder `folder`, hearing the platform
/// discovery's `sightings`, until the game ends (recording it in the
/// statistics, then removing the folder) or `stop` fires (keeping a
/// started game there, to be resumed).
fn run(
    role: Role,
    place: Place,
    folder: &Path,
    sightings: mpsc::UnboundedReceiver<Sighting>,
    front: &mut dyn Front,
    stop: oneshot::Receiver<()>,
) -> Result<Stopped, Problem> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Problem::other)?;
    runtime.block_on(async {
        let keypair =
            crate::net::identity::load_or_create(&place.data).map_err(Problem::storage)?;
        // Each game in a folder of its own, so that a kept unfinished game
        // never takes the place of a new room.
        let peer = Peer {
            role,
            data: folder.to_owned(),
            listen: place.listen,
            mdns: place.discovery.swarm_mdns(),
            sightings: Some(sightings),
            pace: std::time::Duration::ZERO,
            computer_pace: place.computer_pace,
            linger: std::time::Duration::from_secs(5),
            name: place.name,
            ready_after: None,
            leave_after: None,
            drop_after: None,
        };
        let finished = tokio::select! {
            finished = game::run(keypair, peer, front) => match finished {
                Ok(finished) => Ok(Some(finished)),
                // The room left: as if stopped.
                Err(GameError::LeftRoom) => Ok(None),
                Err(e) => Err(Problem::from(e)),
            },
            _ = stop => Ok(None),
        };
        match finished {
            Ok(Some(finished)) => settle(&finished, &place.data, folder),
            // Stopped: a started game stays for Home to offer again.
            Ok(None) => Ok(Stopped::Kept),
            Err(e) => Err(e),
        }
    })
}

/// Records `finished` in the statistics of `data` and removes its session
/// `folder`, once the game is over for this player. A leave can be taken
/// out again as the phone goes (a certificate the others completed at its
/// place outranks it, docs/protocol.md): the game then goes on for this
/// player, and stays, for the session's end to record it as the leave it
/// was given up as (before, it was removed unrecorded).
fn settle(finished: &game::Finished, data: &Path, folder: &Path) -> Result<Stopped, Problem> {
    if !finished.phone.log().over_for(finished.phone.seat()) {
        return Ok(Stopped::Kept);
    }
    crate::stats::Store::new(data)
        .record(finished)
        .map_err(Problem::storage)?;
    let _ = super::resume::discard(folder);
    Ok(Stopped::Recorded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ticket::TicketError;
    use crate::platform::discovery::SwarmMdns;
    use crate::platform::multicast::NoLock;
    use crate::stats::Outcome;

    #[test]
    fn a_panic_on_the_network_thread_ends_its_session_with_a_problem() {
        let say = |what: &str| Err(Problem::Other(format!("the app failed: {what}")));
        assert_eq!(unwound(|| -> Result<(), _> { panic!("boom") }), say("boom"));
        let n = 3;
        assert_eq!(
            unwound(|| -> Result<(), _> { panic!("{n} left") }),
            say("3 left")
        );
        assert_eq!(unwound(|| Ok(7)), Ok(7));
    }

    #[test]
    fn the_failures_of_joining_are_named_and_the_rest_say_their_kind() {
        let code = "K7M2QX".parse().unwrap();
        let named = [
            (GameError::NotATicket("x".into()), Problem::NotACode),
            (
                GameError::DamagedTicket(TicketError::Empty),
                Problem::NotACode,
            ),
            (LookupError::NotFound(code).into(), Problem::NoRoom),
            (LookupError::Ambiguous(code).into(), Problem::TwoRooms),
            (
                LookupError::Refused(Refusal::NoSuchRoom).into(),
                Problem::Closed,
            ),
            (
                LookupError::Refused(Refusal::Closed).into(),
                Problem::Closed,
            ),
            (LookupError::Refused(Refusal::Full).into(), Problem::Full),
            (
                LookupError::Refused(Refusal::Removed).into(),
                Problem::Removed,
            ),
            (LookupError::Gone.into(), Problem::Gone),
            (
                LookupError::Refused(Refusal::WrongSecret).into(),
                Problem::Private,
            ),
            (LookupError::NoAnswer.into(), Problem::NoAnswer),
            (
                PhoneError::Store(StoreError::InUse {
                    path: "/data/game".into(),
                })
                .into(),
                Problem::InUse,
            ),
            (
                HeaderError::Protocol { ours: 6, theirs: 7 }.into(),
                Problem::OtherVersion,
            ),
            (
                PhoneError::Header(HeaderError::Engine {
                    ours: "a".into(),
                    theirs: "b".into(),
                })
                .into(),
                Problem::OtherVersion,
            ),
        ];
        for (error, problem) in named {
            assert_eq!(Problem::from(error), problem);
        }
        // The rest say what kind of problem it is in the player's
        // language, with its details in their own words.
        type Kind = fn(String) -> Problem;
        let kinds: [(GameError, Kind); 7] = [
            (GameError::BadSeat, Problem::BadStart),
            (
                GameError::Unfair {
                    timer: None,
                    grace: 600,
                    agreed: 45,
                },
                Problem::BadStart,
            ),
            (
                PhoneError::Header(HeaderError::MissingSignature(Colour::Red)).into(),
                Problem::BadStart,
            ),
            (
                GameError::Folder(
                    "/data/game".into(),
                    std::io::Error::from(std::io::ErrorKind::StorageFull),
                ),
                Problem::Storage,
            ),
            (
                crate::net::NetError::Listener {
                    addr: "/ip4/127.0.0.1/tcp/1".parse().unwrap(),
                    source: std::io::Error::from(std::io::ErrorKind::AddrNotAvailable),
                }
                .into(),
                Problem::Network,
            ),
            // A kept game whose seat is not this phone's key any more.
            (PhoneError::NotSeated.into(), Problem::Other),
            (GameError::Seats(5), Problem::Other),
        ];
        for (error, kind) in kinds {
            let words = error.to_string();
            let problem = Problem::from(error);
            assert_eq!(problem, kind(words.clone()));
            assert_eq!(problem.detail(), words);
        }
        assert_eq!(Problem::Full.detail(), "");
    }

    #[test]
    fn the_result_marks_the_sessions_folder_ended_before_the_screen_hears_it() {
        let folder = tempfile::tempdir().unwrap();
        let (notify, updates) = std::sync::mpsc::channel();
        let (_actions, actions) = mpsc::unbounded_channel();
        let (found, _sightings) = mpsc::unbounded_channel();
        let marked = folder.path().join("ended");
        let mut front = AppFront {
            notify: move |update| {
                // The mark is there by the time the app hears of the end.
                let _ = notify.send((update, marked.exists()));
            },
            actions,
            discovery: Arc::new(SwarmMdns::new(Multicast::new(NoLock))),
            announced: NodeAnnouncement::default(),
            found,
            folder: folder.path().to_owned(),
            forfeit: false,
        };
        let result = Progress::Result {
            winner: Some(Colour::Green),
            head: crate::protocol::Digest([0; 32]),
        };
        front.show(result).unwrap();
        let (update, marked) = updates.try_recv().unwrap();
        assert!(matches!(
            update,
            Update::Over {
                winner: Some(Colour::Green)
            }
        ));
        assert!(marked);
    }

    #[test]
    fn a_session_holds_the_multicast_lock_until_it_is_dropped() {
        let multicast = Multicast::new(NoLock);
        let dir = tempfile::tempdir().unwrap();
        let place = Place {
            data: dir.path().to_owned(),
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            name: "Hana".into(),
            discovery: Arc::new(SwarmMdns::new(multicast.clone())),
            computer_pace: std::time::Duration::ZERO,
        };
        // A code no room has: the session ends on its own, and still holds
        // the lock until the app drops it.
        let (ended, ended_rx) = std::sync::mpsc::channel();
        let session = Session::start(Part::Join(Joining::by("K7M2QX")), place, move |update| {
            if let Update::Ended(_) = update {
                let _ = ended.send(());
            }
        })
        .holding(multicast.hold().unwrap());
        assert_eq!(multicast.holds(), 1);
        drop(session);
        assert_eq!(multicast.holds(), 0);
        // The app does not wait for the network thread, but the test does:
        // otherwise the thread writes the phone's key into the folder
        // again after the test removed it, leaving it behind.
        ended_rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap();
    }

    /// A game this player gave up whose leave was taken out again as the
    /// phone went stays, and is recorded as the leave by the session's
    /// end; a game over for the player is recorded and removed.
    #[test]
    fn a_game_not_over_for_this_player_is_kept_for_its_giving_up() {
        use super::super::resume::tests::{Nowhere, kept_game_of};
        let outcomes = |data: &Path| -> Vec<Outcome> {
            let stats = crate::stats::Store::new(data).load().unwrap();
            stats.records.iter().map(|r| r.players[1].outcome).collect()
        };
        // Green leaves its game, against the computer at red or not.
        let settled = |computer| {
            let data = tempfile::tempdir().unwrap();
            let (folder, mut phone) = kept_game_of(data.path(), computer);
            phone.leave(&mut Nowhere).unwrap();
            let finished = game::Finished {
                phone,
                names: Vec::new(),
            };
            let stopped = settle(&finished, data.path(), &folder).unwrap();
            (data, folder, stopped)
        };
        // Red (a person) begins: Green's leave waits, the game goes on.
        let (data, folder, stopped) = settled(None);
        assert!(matches!(stopped, Stopped::Kept));
        assert!(folder.exists(), "kept, not removed");
        assert!(outcomes(data.path()).is_empty(), "nothing recorded yet");
        super::super::resume::give_up(data.path(), &folder, None).unwrap();
        assert_eq!(outcomes(data.path()), [Outcome::Left]);
        // Against the computer, Green's turn comes and the leave is
        // signed: the game is over for Green, and removed (it is nobody's
        // statistics).
        let (data, folder, stopped) = settled(Some(Level::Easy));
        assert!(matches!(stopped, Stopped::Recorded));
        assert!(!folder.exists());
        assert!(outcomes(data.path()).is_empty());
    }
}
