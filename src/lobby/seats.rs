//! Who sits where in a room before the start, as a small state machine:
//! guests take the first free seat as they arrive and may leave (no
//! penalty before the start); the host puts the computer in empty seats or
//! takes it out; once the room is full the host may reorder everyone; each
//! guest confirms "ready". [`Seating::start`] gives a [`Lineup`] only when
//! every seat is taken and every guest is ready, and a lineup is the only
//! thing the game can be started with.

use libp2p::PeerId;

use super::options::Players;
use crate::bot::Level;
use crate::net::game::Sitter;
use crate::net::room::SeatView;

/// A seat before the start.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    Host,
    Guest {
        peer: PeerId,
        name: String,
        ready: bool,
    },
    Computer(Level),
    Empty,
}

/// Why the host's change to the seats was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatError {
    #[error("every seat is taken")]
    Full,
    #[error("there is no seat {0} (seats count from 1)")]
    NoSeat(usize),
    #[error("seat {0} is a player's; the computer only takes empty seats")]
    Taken(usize),
    #[error("the players can be reordered only when the room is full")]
    NotFull,
    #[error("a new order names every seat once, e.g. \"2 1 3 4\"")]
    NotAnOrder,
    #[error("that phone has no seat in this room")]
    NotSeated,
    #[error("seat {0} has no guest's phone to remove")]
    NoGuest(usize),
}

/// Why the game cannot start yet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartRefused {
    #[error("{0} seat(s) still empty")]
    NotFull(usize),
    #[error("not ready yet: {}", .0.join(", "))]
    NotReady(Vec<String>),
}

/// The seats of a room, in clockwise order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seating {
    host_name: String,
    places: Vec<Place>,
}

/// Every seat taken and every guest ready: what a game starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineup(Vec<Sitter>);

impl Lineup {
    pub fn sitters(&self) -> &[Sitter] {
        &self.0
    }

    pub fn into_sitters(self) -> Vec<Sitter> {
        self.0
    }
}

impl Seating {
    /// A room of `players` with the host in the first seat and the
    /// computer at `level` in the last `computers` seats.
    pub fn new(players: Players, host_name: &str, computers: u8, level: Level) -> Seating {
        let n = usize::from(players.count());
        let computers = usize::from(computers).min(n - 1);
        let mut places = vec![Place::Host];
        places.resize(n - computers, Place::Empty);
        places.resize(n, Place::Computer(level));
        Seating {
            host_name: host_name.to_owned(),
            places,
        }
    }

    /// Seats free for guests' phones.
    pub fn free(&self) -> usize {
        self.places.iter().filter(|p| **p == Place::Empty).count()
    }

    /// Seats for guests' phones, taken or free (the room's admission).
    pub fn guest_places(&self) -> usize {
        self.free() + self.guests().count()
    }

    fn guests(&self) -> impl Iterator<Item = (PeerId, &str, bool)> {
        self.places.iter().filter_map(|p| match p {
            Place::Guest { peer, name, ready } => Some((*peer, name.as_str(), *ready)),
            _ => None,
        })
    }

    /// The seat (from 0) of `peer`'s phone, if it has one.
    pub fn seat_of(&self, peer: PeerId) -> Option<usize> {
        self.places
            .iter()
            .position(|p| matches!(p, Place::Guest { peer: q, .. } if *q == peer))
    }

    /// `peer` arrives as `name` and takes the first empty seat (a phone
    /// already seated keeps its seat): whether the seats changed.
    pub fn arrive(&mut self, peer: PeerId, name: &str) -> Result<bool, SeatError> {
        if self.seat_of(peer).is_some() {
            return Ok(false);
        }
        let seat = self
            .places
            .iter()
            .position(|p| *p == Place::Empty)
            .ok_or(SeatError::Full)?;
        self.places[seat] = Place::Guest {
            peer,
            name: name.to_owned(),
            ready: false,
        };
        Ok(true)
    }

    /// `peer` leaves; its seat is empty again. Whether it had one.
    pub fn leave(&mut self, peer: PeerId) -> bool {
        match self.seat_of(peer) {
            Some(seat) => {
                self.places[seat] = Place::Empty;
                true
            }
            None => false,
        }
    }

    /// The host removes the guest of seat `seat` (from 1), who never got
    /// ready, say: the seat is empty again. The guest's phone.
    pub fn remove(&mut self, seat: usize) -> Result<PeerId, SeatError> {
        let place = seat
            .checked_sub(1)
            .and_then(|i| self.places.get_mut(i))
            .ok_or(SeatError::NoSeat(seat))?;
        match *place {
            Place::Guest { peer, .. } => {
                *place = Place::Empty;
                Ok(peer)
            }
            _ => Err(SeatError::NoGuest(seat)),
        }
    }

    /// Seated `peer` is ready to start (`now`) or no longer: whether that
    /// changed.
    pub fn ready(&mut self, peer: PeerId, now: bool) -> Result<bool, SeatError> {
        let seat = self.seat_of(peer).ok_or(SeatError::NotSeated)?;
        match &mut self.places[seat] {
            Place::Guest { ready, .. } if *ready != now => {
                *ready = now;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Puts the computer at `level` in empty seat `seat` (from 1), or with
    /// `None` takes it out again.
    pub fn computer(&mut self, seat: usize, level: Option<Level>) -> Result<(), SeatError> {
        let place = seat
            .checked_sub(1)
            .and_then(|i| self.places.get_mut(i))
            .ok_or(SeatError::NoSeat(seat))?;
        match place {
            Place::Empty | Place::Computer(_) => {
                *place = level.map_or(Place::Empty, Place::Computer);
                Ok(())
            }
            Place::Host | Place::Guest { .. } => Err(SeatError::Taken(seat)),
        }
    }

    /// Reorders a full room: seat `i` (from 1) gets whoever sat in seat
    /// `order[i - 1]`.
    pub fn reorder(&mut self, order: &[usize]) -> Result<(), SeatError> {
        if self.free() > 0 {
            return Err(SeatError::NotFull);
        }
        let n = self.places.len();
        let mut seen = vec![false; n];
        for &from in order {
            match from.checked_sub(1).and_then(|i| seen.get_mut(i)) {
                Some(s) if !*s => *s = true,
                _ => return Err(SeatError::NotAnOrder),
            }
        }
        if order.len() != n {
            return Err(SeatError::NotAnOrder);
        }
        self.places = order
            .iter()
            .map(|&from| self.places[from - 1].clone())
            .collect();
        Ok(())
    }

    /// The lineup, if every seat is taken and every guest is ready.
    pub fn start(&self) -> Result<Lineup, StartRefused> {
        let sitters: Option<Vec<Sitter>> = self
            .places
            .iter()
            .map(|p| match p {
                Place::Host => Some(Sitter::Host),
                Place::Guest { peer, .. } => Some(Sitter::Guest(*peer)),
                Place::Computer(level) => Some(Sitter::Computer(*level)),
                Place::Empty => None,
            })
            .collect();
        let sitters = sitters.ok_or(StartRefused::NotFull(self.free()))?;
        let waiting: Vec<String> = self
            .guests()
            .filter(|(_, _, ready)| !ready)
            .map(|(_, name, _)| format!("{name:?}"))
            .collect();
        if !waiting.is_empty() {
            return Err(StartRefused::NotReady(waiting));
        }
        Ok(Lineup(sitters))
    }

    /// The guests' phones with their seats (from 0): whom to tell of
    /// changes, and whose phone sits where (the seats shown name no
    /// phone).
    pub fn guest_seats(&self) -> Vec<(usize, PeerId)> {
        self.places
            .iter()
            .enumerate()
            .filter_map(|(seat, p)| match p {
                Place::Guest { peer, .. } => Some((seat, *peer)),
                _ => None,
            })
            .collect()
    }

    /// The seats as the guests are shown them.
    pub fn view(&self) -> Vec<SeatView> {
        self.places
            .iter()
            .map(|p| match p {
                Place::Host => SeatView::Host {
                    name: self.host_name.clone(),
                },
                Place::Guest { name, ready, .. } => SeatView::Guest {
                    name: name.clone(),
                    ready: *ready,
                },
                Place::Computer(level) => SeatView::Computer { level: *level },
                Place::Empty => SeatView::Empty,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(players: Players, computers: u8) -> Seating {
        Seating::new(players, "Hana", computers, Level::Medium)
    }

    #[test]
    fn guests_take_the_first_empty_seats_and_a_full_room_refuses() {
        let mut s = room(Players::Three, 0);
        let (a, b) = (PeerId::random(), PeerId::random());
        assert_eq!(s.arrive(a, "Ana"), Ok(true));
        assert_eq!(s.arrive(a, "Ana"), Ok(false), "seated already");
        s.arrive(b, "Ivo").unwrap();
        assert_eq!(s.arrive(PeerId::random(), "Eve"), Err(SeatError::Full));
        assert_eq!(s.guest_seats(), vec![(1, a), (2, b)]);
    }

    #[test]
    fn start_is_refused_until_full_and_every_guest_ready() {
        let mut s = room(Players::Three, 0);
        let (a, b) = (PeerId::random(), PeerId::random());
        assert_eq!(s.start(), Err(StartRefused::NotFull(2)));
        s.arrive(a, "Ana").unwrap();
        s.arrive(b, "Ivo").unwrap();
        s.ready(a, true).unwrap();
        assert_eq!(
            s.start(),
            Err(StartRefused::NotReady(vec!["\"Ivo\"".to_owned()]))
        );
        s.ready(b, true).unwrap();
        let lineup = s.start().unwrap();
        assert_eq!(
            lineup.sitters(),
            &[Sitter::Host, Sitter::Guest(a), Sitter::Guest(b)]
        );
        assert_eq!(s.ready(b, true), Ok(false), "ready already");
        assert_eq!(s.ready(b, false), Ok(true));
        assert!(s.start().is_err(), "ready can be taken back");
    }

    #[test]
    fn a_guest_leaving_frees_its_seat() {
        let mut s = room(Players::Two, 0);
        let a = PeerId::random();
        s.arrive(a, "Ana").unwrap();
        assert_eq!(s.free(), 0);
        assert!(s.leave(a));
        assert!(!s.leave(a));
        assert_eq!(s.free(), 1);
        assert_eq!(s.ready(a, true), Err(SeatError::NotSeated));
    }

    #[test]
    fn the_host_removes_a_guest_and_its_seat_is_empty_again() {
        let mut s = room(Players::Three, 1);
        let a = PeerId::random();
        s.arrive(a, "Ana").unwrap();
        assert_eq!(s.remove(1), Err(SeatError::NoGuest(1)), "the host's own");
        assert_eq!(s.remove(3), Err(SeatError::NoGuest(3)), "the computer's");
        assert_eq!(s.remove(4), Err(SeatError::NoSeat(4)));
        assert_eq!(s.remove(0), Err(SeatError::NoSeat(0)));
        assert_eq!(s.remove(2), Ok(a));
        assert_eq!(s.free(), 1);
        assert_eq!(s.remove(2), Err(SeatError::NoGuest(2)), "empty now");
        assert_eq!(s.ready(a, true), Err(SeatError::NotSeated));
    }

    #[test]
    fn computer_takes_only_empty_seats_and_can_be_taken_out() {
        let mut s = room(Players::Four, 1);
        assert_eq!(s.guest_places(), 2);
        assert_eq!(s.computer(1, Some(Level::Hard)), Err(SeatError::Taken(1)));
        assert_eq!(s.computer(5, Some(Level::Hard)), Err(SeatError::NoSeat(5)));
        assert_eq!(s.computer(0, Some(Level::Hard)), Err(SeatError::NoSeat(0)));
        s.computer(2, Some(Level::Easy)).unwrap();
        s.computer(4, None).unwrap();
        assert_eq!(s.guest_places(), 2);
        let a = PeerId::random();
        s.arrive(a, "Ana").unwrap();
        assert_eq!(
            s.view()[2],
            SeatView::Guest {
                name: "Ana".into(),
                ready: false
            }
        );
        assert_eq!(s.computer(3, Some(Level::Hard)), Err(SeatError::Taken(3)));
        s.computer(4, Some(Level::Hard)).unwrap();
        s.ready(a, true).unwrap();
        assert_eq!(
            s.start().unwrap().sitters(),
            &[
                Sitter::Host,
                Sitter::Computer(Level::Easy),
                Sitter::Guest(a),
                Sitter::Computer(Level::Hard)
            ]
        );
    }

    #[test]
    fn reorder_needs_a_full_room_and_a_permutation() {
        let mut s = room(Players::Three, 1);
        let a = PeerId::random();
        assert_eq!(s.reorder(&[2, 1, 3]), Err(SeatError::NotFull));
        s.arrive(a, "Ana").unwrap();
        for bad in [
            &[1, 2][..],
            &[1, 1, 2],
            &[0, 1, 2],
            &[1, 2, 4],
            &[1, 2, 3, 1],
        ] {
            assert_eq!(s.reorder(bad), Err(SeatError::NotAnOrder), "{bad:?}");
        }
        s.reorder(&[3, 1, 2]).unwrap();
        s.ready(a, true).unwrap();
        assert_eq!(
            s.start().unwrap().sitters(),
            &[
                Sitter::Computer(Level::Medium),
                Sitter::Host,
                Sitter::Guest(a)
            ]
        );
    }

    #[derive(Clone, Debug)]
    enum Op {
        Arrive(usize),
        Leave(usize),
        Ready(usize, bool),
        Computer(usize, Option<Level>),
        Reorder(Vec<usize>),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        let level = prop_oneof![Just(None), Just(Some(Level::Easy)), Just(Some(Level::Hard))];
        prop_oneof![
            (0..5usize).prop_map(Op::Arrive),
            (0..5usize).prop_map(Op::Leave),
            (0..5usize, any::<bool>()).prop_map(|(g, r)| Op::Ready(g, r)),
            (0..6usize, level).prop_map(|(s, l)| Op::Computer(s, l)),
            Just(vec![1usize, 2, 3, 4])
                .prop_shuffle()
                .prop_map(Op::Reorder),
        ]
    }

    proptest::proptest! {
        /// Whatever happens in the room, the host keeps exactly one seat,
        /// every seat is counted once, and a lineup only ever comes from
        /// a full room of ready guests.
        #[test]
        fn no_sequence_of_changes_starts_a_game_early(
            players in 2u8..=4,
            ops in proptest::collection::vec(op(), 0..40),
        ) {
            let players = Players::from_count(players).unwrap();
            let n = usize::from(players.count());
            let peers: Vec<PeerId> = (0..5).map(|_| PeerId::random()).collect();
            let mut s = room(players, 0);
            for op in ops {
                match op {
                    Op::Arrive(g) => { let _ = s.arrive(peers[g], "guest"); }
                    Op::Leave(g) => { s.leave(peers[g]); }
                    Op::Ready(g, r) => { let _ = s.ready(peers[g], r); }
                    Op::Computer(seat, level) => { let _ = s.computer(seat, level); }
                    Op::Reorder(order) => {
                        let order: Vec<usize> = order.into_iter().filter(|&i| i <= n).collect();
                        let _ = s.reorder(&order);
                    }
                }
                let view = s.view();
                proptest::prop_assert_eq!(view.len(), n);
                let hosts = view.iter().filter(|v| matches!(v, SeatView::Host { .. })).count();
                proptest::prop_assert_eq!(hosts, 1);
                let guests = s.guest_seats();
                proptest::prop_assert!(guests.len() < n);
                for (seat, _) in &guests {
                    let guest = matches!(view[*seat], SeatView::Guest { .. });
                    proptest::prop_assert!(guest);
                }
                let waiting = view.iter().any(|v| {
                    matches!(v, SeatView::Empty | SeatView::Guest { ready: false, .. })
                });
                match s.start() {
                    Ok(lineup) => {
                        proptest::prop_assert_eq!(lineup.sitters().len(), n);
                        proptest::prop_assert!(!waiting);
                    }
                    Err(_) => proptest::prop_assert!(waiting),
                }
            }
        }
    }
}
