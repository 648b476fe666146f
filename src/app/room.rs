//! The room screen's controller: what the room shows (code, seats, who is
//! ready) from the network's [`Update`]s, and the host's and guests'
//! intents turned into the lobby's commands ([`Given`] for the guests
//! the screen showed) and the game's [`Action`]s. The decisions (who may
//! sit where, when the game may start) stay the lobby's: this only asks.

use libp2p::PeerId;

use crate::bot::Level;
use crate::lobby::host::{Command, Given};
use crate::lobby::invite::Target;
use crate::net::front::Action;
use crate::net::room::{Listing, SeatView};

use super::online::{Problem, Update};

/// Who this phone is in the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Organises the room: seats, computer players, the start.
    Host,
    /// Takes a seat and says when it is ready.
    Guest,
}

/// What became of an invitation the host sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invited {
    /// Waiting to be taken by the phone: it is off, away from its Home
    /// screen, or not found yet.
    Waiting,
    /// On the phone's screen; accepting is simply taking a seat.
    Reached,
    Declined,
}

/// The room as its screen shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    part: Part,
    /// The ticket link (for the QR code) and short code: the host's once
    /// its room is open, a guest's once it is in the room.
    ticket: Option<(String, String)>,
    /// Whether the screen has drawn `ticket` ([`Room::ticket_to_draw`]).
    drawn: bool,
    /// The game the room starts, once the network said.
    terms: Option<Listing>,
    seats: Vec<SeatView>,
    /// This guest's seat, if its host said.
    mine: Option<usize>,
    /// The host's guests' phones, by seat (from 0).
    guests: Vec<(usize, PeerId)>,
    startable: bool,
    /// What this guest last said.
    ready: bool,
    /// The last thing that went wrong, for the player to read.
    problem: Option<Problem>,
    /// The host's invitations, by the phone invited.
    invited: Vec<(PeerId, Invited)>,
    /// This guest lost touch with its host and asks for its seat again.
    out_of_touch: bool,
    /// The session ended with a problem: the room is gone, and nothing on
    /// its screen can be asked of it any more.
    ended: bool,
}

impl Room {
    /// The room screen of a phone taking part as `part`, before the
    /// network said anything.
    pub fn new(part: Part) -> Room {
        Room {
            part,
            ticket: None,
            drawn: false,
            terms: None,
            seats: Vec::new(),
            mine: None,
            guests: Vec::new(),
            startable: false,
            ready: false,
            problem: None,
            invited: Vec::new(),
            out_of_touch: false,
            ended: false,
        }
    }

    /// The ticket link and the short code, once the room is open.
    pub fn ticket(&self) -> Option<(&str, &str)> {
        self.ticket.as_ref().map(|(t, c)| (t.as_str(), c.as_str()))
    }

    /// The ticket link and the short code once each time they change, for
    /// the screen to draw the QR code: a private room's host gives it a
    /// new secret after removing a phone (`net::room::Room::reseal`),
    /// with the same code.
    pub fn ticket_to_draw(&mut self) -> Option<(&str, &str)> {
        if std::mem::replace(&mut self.drawn, true) {
            return None;
        }
        self.ticket()
    }

    /// The game the room starts (players, rules, timer, board, who begins),
    /// once known.
    pub fn terms(&self) -> Option<&Listing> {
        self.terms.as_ref()
    }

    pub fn seats(&self) -> &[SeatView] {
        &self.seats
    }

    /// This guest's seat (from 0), once its host said which.
    pub fn mine(&self) -> Option<usize> {
        self.mine
    }

    /// The nickname `peer`'s phone sits in the host's room under, if it
    /// does.
    pub fn seated(&self, peer: PeerId) -> Option<&str> {
        let (seat, _) = self.guests.iter().find(|&&(_, p)| p == peer)?;
        match self.seats.get(*seat)? {
            SeatView::Guest { name, .. } => Some(name),
            _ => None,
        }
    }

    /// Whether every seat is taken (only then may the host reorder them).
    pub fn full(&self) -> bool {
        !self.seats.is_empty() && !self.seats.contains(&SeatView::Empty)
    }

    /// Whether the computer has a seat (which the host could free).
    pub fn computer_seated(&self) -> bool {
        self.seats
            .iter()
            .any(|s| matches!(s, SeatView::Computer { .. }))
    }

    /// Whether the host may start now: every seat taken, every guest ready.
    pub fn startable(&self) -> bool {
        self.part == Part::Host && self.startable
    }

    pub fn ready(&self) -> bool {
        self.ready
    }

    /// Whether this guest lost touch with its host and is asking for its
    /// seat again (the host may have started the game meanwhile).
    pub fn out_of_touch(&self) -> bool {
        self.out_of_touch
    }

    /// Something outside the network went wrong (the room's QR code could
    /// not be drawn): shown until the seats change.
    pub fn fail(&mut self, problem: Problem) {
        self.problem = Some(problem);
    }

    pub fn problem(&self) -> Option<&Problem> {
        self.problem.as_ref()
    }

    /// What became of the host's invitation to `peer`, if it sent one.
    pub fn invited(&self, peer: PeerId) -> Option<Invited> {
        self.invited
            .iter()
            .find_map(|&(p, state)| (p == peer).then_some(state))
    }

    /// Notes the organiser's word on an invitation (`invited: <peer>`,
    /// `declined: <peer>`); whether it was one.
    fn heard(&mut self, line: &str) -> bool {
        let (state, peer) = match line.split_once(": ") {
            Some(("invited", peer)) => (Invited::Waiting, peer),
            Some(("declined", peer)) => (Invited::Declined, peer),
            _ => return false,
        };
        let Ok(peer) = peer.parse::<PeerId>() else {
            return false;
        };
        self.invited.retain(|&(p, _)| p != peer);
        self.invited.push((peer, state));
        true
    }

    /// Takes in what the network said; whether the room screen changed.
    pub fn apply(&mut self, update: &Update) -> bool {
        match update {
            Update::Opened { ticket, code } | Update::Joined { ticket, code } => {
                let new = Some((ticket.clone(), code.clone()));
                self.drawn &= self.ticket == new;
                self.ticket = new;
            }
            Update::Terms(listing) => self.terms = Some(*listing),
            Update::Seats {
                seats,
                startable,
                mine,
                guests,
            } => {
                self.seats.clone_from(seats);
                self.startable = startable.unwrap_or(false);
                self.mine = *mine;
                self.guests.clone_from(guests);
                // An invitation taken is no longer waiting for an answer.
                self.invited
                    .retain(|(peer, _)| guests.iter().all(|(_, g)| g != peer));
                // The seats changed as asked: an earlier refusal is old.
                self.problem = None;
            }
            Update::InTouch(now) => self.out_of_touch = !now,
            Update::Reached(peer) => match self.invited.iter_mut().find(|(p, _)| p == peer) {
                Some((_, state @ Invited::Waiting)) => *state = Invited::Reached,
                _ => return false,
            },
            Update::Said(line) => {
                let Some(why) = line.strip_prefix("refused: ") else {
                    return self.heard(line);
                };
                // The seats say why in the player's language; the
                // organiser's own words go to the log (logcat on Android).
                eprintln!("clovece: the room refused a change: {why}");
                self.problem = Some(Problem::Refused);
            }
            Update::Ended(Err(e)) => {
                self.problem = Some(e.clone());
                self.ended = true;
                self.ticket = None;
                self.terms = None;
                self.seats.clear();
                self.mine = None;
                self.guests.clear();
                self.startable = false;
                self.ready = false;
                self.out_of_touch = false;
            }
            _ => return false,
        }
        true
    }

    /// A guest says it is ready, or takes it back.
    pub fn toggle_ready(&mut self) -> Option<Action> {
        (self.part == Part::Guest && !self.ended).then(|| {
            self.ready = !self.ready;
            Action::Ready(self.ready)
        })
    }

    /// The host puts the computer at `level` in seat `seat` (from 0), or
    /// takes it out with `None`.
    pub fn computer(&self, seat: usize, level: Option<Level>) -> Option<Given> {
        self.given(Command::Computer(seat + 1, level))
    }

    /// The host removes the guest of seat `seat` (from 0) from the room.
    pub fn remove(&self, seat: usize) -> Option<Given> {
        self.given(Command::Remove(seat + 1))
    }

    /// The host moves the player in seat `seat` (from 0) one seat up,
    /// swapping with the one before; the first seat has none.
    pub fn move_up(&self, seat: usize) -> Option<Given> {
        let n = self.seats.len();
        if seat == 0 || seat >= n {
            return None;
        }
        let mut order: Vec<usize> = (1..=n).collect();
        order.swap(seat, seat - 1);
        self.given(Command::Order(order))
    }

    /// The host invites `target` (whether or not the room suits them),
    /// while a seat is free for them.
    pub fn invite(&self, target: Target) -> Option<Given> {
        self.given(Command::Invite(target)).filter(|_| !self.full())
    }

    /// Whether this phone joined the room (rather than hosting it).
    pub fn guest(&self) -> bool {
        self.part == Part::Guest
    }

    /// Whether this phone hosts the room, while it is open.
    fn hosting(&self) -> bool {
        self.part == Part::Host && !self.ended
    }

    /// The host's `command`, for the guests in the seats as shown, while
    /// it hosts the room.
    fn given(&self, command: Command) -> Option<Given> {
        self.hosting().then(|| Given {
            command,
            guests: self.guests.clone(),
        })
    }

    /// The host starts the game, when it may.
    pub fn start(&self) -> Option<Given> {
        self.given(Command::Start).filter(|_| self.startable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(ready: bool) -> Update {
        Update::Seats {
            seats: vec![
                SeatView::Host {
                    name: "Hana".into(),
                },
                SeatView::Guest {
                    name: "Ivo".into(),
                    ready,
                },
                SeatView::Computer { level: Level::Hard },
            ],
            startable: Some(ready),
            mine: None,
            guests: Vec::new(),
        }
    }

    #[test]
    fn a_room_is_full_once_no_seat_is_empty() {
        let mut room = Room::new(Part::Host);
        assert!(!room.full(), "no seats shown yet");
        room.apply(&Update::Seats {
            seats: vec![
                SeatView::Host {
                    name: "Hana".into(),
                },
                SeatView::Empty,
            ],
            startable: Some(false),
            mine: None,
            guests: Vec::new(),
        });
        assert!(!room.full());
        room.apply(&seats(false));
        assert!(room.full());
    }

    #[test]
    fn a_guest_toggles_ready_and_back() {
        let mut room = Room::new(Part::Guest);
        assert_eq!(room.toggle_ready(), Some(Action::Ready(true)));
        assert!(room.ready());
        assert_eq!(room.toggle_ready(), Some(Action::Ready(false)));
        assert!(!room.ready());
    }

    #[test]
    fn a_guest_has_no_host_commands() {
        let mut room = Room::new(Part::Guest);
        room.apply(&seats(true));
        assert_eq!(room.start(), None);
        assert_eq!(room.computer(1, Some(Level::Easy)), None);
        assert_eq!(room.move_up(1), None);
        assert!(!room.startable());
    }

    #[test]
    fn the_host_may_start_only_when_the_lobby_says_all_are_ready() {
        let mut room = Room::new(Part::Host);
        assert_eq!(room.toggle_ready(), None, "the host has no ready toggle");
        assert!(room.apply(&seats(false)));
        assert_eq!(room.start(), None);
        room.apply(&seats(true));
        assert_eq!(room.start().map(|g| g.command), Some(Command::Start));
    }

    #[test]
    fn a_guest_out_of_touch_with_its_host_is_shown_so_until_answered_or_ended() {
        let mut room = Room::new(Part::Guest);
        assert!(!room.out_of_touch());
        assert!(room.apply(&Update::InTouch(false)));
        assert!(room.out_of_touch());
        assert!(room.apply(&Update::InTouch(true)));
        assert!(!room.out_of_touch());
        room.apply(&Update::InTouch(false));
        room.apply(&Update::Ended(Err(Problem::Gone)));
        assert!(!room.out_of_touch(), "the problem says it");
    }

    #[test]
    fn an_ended_session_leaves_nothing_to_ask_of_its_room() {
        for part in [Part::Host, Part::Guest] {
            let mut room = Room::new(part);
            room.apply(&Update::Joined {
                ticket: "ticket".into(),
                code: "ABC234".into(),
            });
            room.apply(&seats(true));
            assert!(room.apply(&Update::Ended(Err(Problem::Closed))));
            assert_eq!(room.problem(), Some(&Problem::Closed));
            assert!(room.seats().is_empty());
            assert_eq!(room.ticket(), None, "no code to pass on");
            assert_eq!(room.start(), None);
            assert_eq!(room.toggle_ready(), None);
            assert_eq!(room.computer(2, None), None);
            assert_eq!(room.remove(1), None);
            assert_eq!(room.move_up(1), None);
        }
    }

    #[test]
    fn the_host_moves_a_player_up_by_swapping_seats() {
        let mut room = Room::new(Part::Host);
        room.apply(&seats(true));
        assert_eq!(
            room.move_up(1).map(|g| g.command),
            Some(Command::Order(vec![2, 1, 3]))
        );
        assert_eq!(room.move_up(0), None, "the first seat has none before it");
        assert_eq!(room.move_up(3), None);
    }

    #[test]
    fn the_hosts_seat_commands_number_seats_from_one_for_the_lobby() {
        let room = Room::new(Part::Host);
        assert_eq!(
            room.computer(2, Some(Level::Easy)).map(|g| g.command),
            Some(Command::Computer(3, Some(Level::Easy)))
        );
        assert_eq!(
            room.computer(2, None).map(|g| g.command),
            Some(Command::Computer(3, None))
        );
        assert_eq!(room.remove(1).map(|g| g.command), Some(Command::Remove(2)));
    }

    #[test]
    fn the_rooms_code_and_a_refusal_are_shown() {
        let mut room = Room::new(Part::Host);
        room.apply(&Update::Opened {
            ticket: "clovece:x".into(),
            code: "ABC123".into(),
        });
        assert_eq!(room.ticket(), Some(("clovece:x", "ABC123")));
        assert!(!room.apply(&Update::Said("something else: x".into())));
        room.apply(&Update::Said("refused: every seat is taken".into()));
        assert_eq!(room.problem(), Some(&Problem::Refused));
        room.apply(&seats(false));
        assert_eq!(room.problem(), None, "a change since clears it");
        room.apply(&Update::Ended(Err(Problem::Full)));
        assert_eq!(room.problem(), Some(&Problem::Full));
    }

    #[test]
    fn a_guest_shows_the_ticket_of_the_room_it_joined() {
        let mut room = Room::new(Part::Guest);
        assert_eq!(room.ticket(), None);
        assert!(room.apply(&Update::Joined {
            ticket: "clovece:y".into(),
            code: "XYZ789".into(),
        }));
        assert_eq!(room.ticket(), Some(("clovece:y", "XYZ789")));
    }

    #[test]
    fn the_qr_code_is_drawn_again_only_when_the_ticket_changes() {
        let mut room = Room::new(Part::Guest);
        let joined = |ticket: &str| Update::Joined {
            ticket: ticket.into(),
            code: "XYZ789".into(),
        };
        assert_eq!(room.ticket_to_draw(), None);
        room.apply(&joined("clovece:y"));
        assert_eq!(room.ticket_to_draw(), Some(("clovece:y", "XYZ789")));
        assert_eq!(room.ticket_to_draw(), None, "drawn");
        room.apply(&joined("clovece:y"));
        assert_eq!(room.ticket_to_draw(), None, "the same again");
        // The private room's new secret: the same code, a new QR code.
        room.apply(&joined("clovece:z"));
        assert_eq!(room.ticket_to_draw(), Some(("clovece:z", "XYZ789")));
    }

    #[test]
    fn a_full_room_invites_nobody() {
        let mut room = Room::new(Part::Host);
        room.apply(&seats(false));
        assert!(room.full());
        let target = Target {
            peer: PeerId::random(),
            addrs: Vec::new(),
        };
        assert_eq!(room.invite(target), None, "nobody could sit down");
    }

    #[test]
    fn the_host_invites_and_hears_the_invitation_sent_then_declined() {
        let mut room = Room::new(Part::Host);
        let peer = PeerId::random();
        let target = Target {
            peer,
            addrs: Vec::new(),
        };
        assert_eq!(
            room.invite(target.clone()).map(|g| g.command),
            Some(Command::Invite(target.clone()))
        );
        assert_eq!(Room::new(Part::Guest).invite(target), None);
        assert_eq!(room.invited(peer), None);
        assert!(room.apply(&Update::Said(format!("invited: {peer}"))));
        assert_eq!(room.invited(peer), Some(Invited::Waiting));
        assert!(
            !room.apply(&Update::Reached(PeerId::random())),
            "not invited"
        );
        assert!(room.apply(&Update::Reached(peer)));
        assert_eq!(room.invited(peer), Some(Invited::Reached));
        assert!(!room.apply(&Update::Reached(peer)), "reached already");
        assert!(room.apply(&Update::Said(format!("declined: {peer}"))));
        assert_eq!(room.invited(peer), Some(Invited::Declined));
        assert!(!room.apply(&Update::Reached(peer)), "a decline stands");
        assert_eq!(room.invited(peer), Some(Invited::Declined));
        assert!(!room.apply(&Update::Said("declined: not a peer".into())));
        // Invited again, it waits again for the phone to take it.
        assert!(room.apply(&Update::Said(format!("invited: {peer}"))));
        assert_eq!(room.invited(peer), Some(Invited::Waiting));
    }

    #[test]
    fn an_invited_phone_that_takes_a_seat_is_in_the_room_not_invited() {
        let mut room = Room::new(Part::Host);
        let peer = PeerId::random();
        room.apply(&Update::Said(format!("invited: {peer}")));
        let Update::Seats {
            seats, startable, ..
        } = seats(false)
        else {
            unreachable!()
        };
        let seated = |guests| Update::Seats {
            seats: seats.clone(),
            startable,
            mine: None,
            guests,
        };
        room.apply(&seated(vec![(1, PeerId::random())]));
        assert_eq!(room.seated(peer), None, "another phone in the seat");
        assert_eq!(room.invited(peer), Some(Invited::Waiting));
        room.apply(&seated(vec![(1, peer)]));
        assert_eq!(room.seated(peer), Some("Ivo"));
        assert_eq!(room.invited(peer), None, "the invitation was taken");
        room.apply(&seated(Vec::new()));
        assert_eq!(room.seated(peer), None, "gone again");
        assert_eq!(room.invited(peer), None);
    }

    #[test]
    fn a_guest_knows_its_seat_once_the_host_says() {
        let mut room = Room::new(Part::Guest);
        assert_eq!(room.mine(), None);
        let Update::Seats { seats, .. } = seats(false) else {
            unreachable!()
        };
        room.apply(&Update::Seats {
            seats,
            startable: None,
            mine: Some(1),
            guests: Vec::new(),
        });
        assert_eq!(room.mine(), Some(1));
        room.apply(&Update::Ended(Err(Problem::Closed)));
        assert_eq!(room.mine(), None, "the room is gone");
    }
}
