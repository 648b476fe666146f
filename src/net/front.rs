//! The seam between a networked game and whoever sits at this phone: where
//! this player's actions come from and where the game's progress is shown.
//!
//! The game loops ([`super::setup`], [`super::play`]) do the networking and
//! keep the log; a [`Front`] only answers "what now?" and is told what
//! happened. The headless `clovece host` / `join` front
//! ([`super::lines::Lines`]) prints the notation's output lines and lets the
//! computer or the terminal choose; the app's front turns taps into
//! [`Action`]s and progress into what its screens show.

use std::io;

use libp2p::{Multiaddr, PeerId};

use crate::net::Ticket;
use crate::net::room::{Listing, SeatView};
use crate::protocol::presence::Millis;
use crate::protocol::{Digest, Phone};
use crate::rules::{Colour, Move};

/// Something this player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Say ready (or not) in the room, before the start (guests only).
    Ready(bool),
    /// Roll the die, when this player's roll is due.
    Roll,
    /// Play a move, when this player's move is due.
    Move(Move),
    /// Leave the game on purpose: it counts as two losses.
    Leave,
    /// Leave the room before the start, which costs nothing: a host
    /// closes it and tells its guests, a guest tells the host. Once the
    /// game has started the session just stops, keeping the game to be
    /// resumed, so a tap that crosses the start never costs two losses.
    LeaveRoom,
}

/// What happened, in the order it happened.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// This phone's node (`peer`) listens at `addrs`, before its room
    /// opens, it joins a room or its saved game resumes: where the
    /// platform's discovery announces it.
    Listening {
        peer: PeerId,
        addrs: &'a [Multiaddr],
    },
    /// The host's room is open with this ticket.
    Opened(&'a Ticket),
    /// This guest is in the room of this ticket (found from a code, or
    /// given), so it can show the room's QR code to a friend too.
    Joined(&'a Ticket),
    /// The game the room starts (players, rules, timer, board, who begins):
    /// the host's choice, and what its host told this guest, which signs no
    /// other.
    Terms(&'a Listing),
    /// The room's seats as the guests are shown them; with the host, also
    /// whether the game may start now (every seat taken, every guest
    /// ready) and the guests' phones by seat (from 0); with a guest, its
    /// own seat, if its host said (the host's is [`SeatView::Host`]).
    Seats {
        seats: &'a [SeatView],
        startable: Option<bool>,
        mine: Option<usize>,
        guests: &'a [(usize, PeerId)],
    },
    /// A line the host's organiser says (a refusal, an invitation sent).
    Said(&'a str),
    /// A guest lost its connection to the host before the start and asks
    /// for its seat again (`false`), or the host answered it again
    /// (`true`).
    InTouch(bool),
    /// The host's node found a phone nearby (`here`), or lost it: whom
    /// the host can invite. (The node is this phone on the network while
    /// the room is open, so its finds are the ones to list.)
    Nearby { peer: PeerId, here: bool },
    /// The phone invited took every message queued for it, the invitation
    /// among them: it is on its screen now.
    Reached(PeerId),
    /// A phone found nearby said its nickname ([`crate::net::room::Lobby::IAm`]).
    Named { peer: PeerId, name: &'a str },
    /// A saved game was taken up again, at this many entries.
    Resumed(u32),
    /// The game started (or resumed) with this player in `me`'s seat;
    /// every seat's nickname by colour (empty for the computer's seats and
    /// for players whose nickname is not known); whether this phone
    /// hosted its room (so that it can open the next one).
    Seat {
        me: Colour,
        names: &'a [String; 4],
        hosted: bool,
    },
    /// The log changed (or is shown for the first time).
    Log(&'a Phone),
    /// The computer took a player's seat because their phone was gone.
    Away(Colour),
    /// A player took their seat back from the computer.
    Back(Colour),
    /// Once a second: the players the game waits on whose phones are
    /// silent, each with the time left before the computer plays for them.
    Silent(&'a [(Colour, Millis)]),
    /// This player is about to roll or move, with the log at this length
    /// (for latency traces).
    Acting { action: Action, len: u32 },
    /// The game is over; `None` when nobody won.
    Result {
        winner: Option<Colour>,
        head: Digest,
    },
    /// This player left the game on purpose.
    Left(Digest),
    /// This player's phone vanished (a test's simulated crash).
    Dropped(Digest),
}

/// Whoever sits at this phone (see the module documentation).
#[async_trait::async_trait(?Send)]
pub trait Front {
    /// Shows `progress`.
    fn show(&mut self, progress: Progress<'_>) -> io::Result<()>;

    /// This player's roll or move is due in `phone`'s game (after the
    /// pace): the action to take at once, if this front has one without
    /// waiting for a person (the computer's move, the terminal's roll).
    /// `None` means the loop waits on [`Front::input`].
    fn due(&mut self, phone: &Phone) -> io::Result<Option<Action>>;

    /// The next action a person chooses; pending for ever when none will
    /// come. `asked` says whether the loop is waiting on this front for the
    /// roll or move due now (after [`Front::due`] gave `None`).
    /// Cancel-safe: the loop drops it whenever anything else happens.
    async fn input(&mut self, asked: bool) -> io::Result<Option<Action>>;
}
